// The steps that turn the LLVM IR the SPIR-V reader makes (SPIR address spaces, spir_kernel
// functions, SPIR-mangled OpenCL builtins) into IR the NVPTX back end compiles: used by
// ptx_compiler.cpp in this order.
#pragma once

#include "spirv/spirv_reader.hpp"

#include <llvm/IR/Module.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace xpurt::cuda {

// SPIR's address space numbers as NVPTX's: generic 4 and constant 2 -> 0 (NVPTX's generic,
// which private pointers share; a __constant pointer may point into global memory); global 1
// and local 3 stay.
unsigned nvptxAddressSpace(unsigned spirAddressSpace);

// The module rebuilt with every type, global, function and constant in NVPTX address spaces;
// casts that became same-space casts are dropped. Debug information is not carried over.
std::unique_ptr<llvm::Module> retargetAddressSpaces(llvm::Module &spir, const std::string &name);

// Gives the used OpenCL builtins their bodies: the CUDA builtin library embedded in libxpurt
// (cuda/builtins/, loadCudaBuiltinLibrary), then, where NVIDIA's libdevice is found
// (XPURT_LIBDEVICE, else the one found at build time), float and double math functions from
// it (loadLibdeviceMathLibrary), then libclc's NVPTX library where those have none
// (their names differ from SPIR's where pointers are __constant or generic, so builtins are
// matched by demangled signature), both linked lazily, then xpurt's target-neutral bodies.
// get_work_dim reads kWorkDimName, get_global_offset kGlobalOffsetName (see lowerKernels).
// Returns the builtins nobody provides.
std::vector<llvm::Function *> linkBuiltins(llvm::Module &m, const std::string &name);

// libclc's vector math functions hold one inlined copy of the scalar body per element (lgamma
// of a double16 is sixteen lgammas), which makes PTX that ptxas and the driver take minutes
// over. Each used one whose body averages 64 or more instructions per element is defined in m
// instead as a call of the library's scalar function per element, and that function declared
// for linking.
void callScalarMathPerElement(llvm::Module &m, llvm::Module &library);

// The embedded CUDA builtin library (nvptx_builtin_library.S), lazily loaded.
std::unique_ptr<llvm::Module> loadCudaBuiltinLibrary(llvm::LLVMContext &context);
// The embedded math functions that call NVIDIA's libdevice (cuda/builtins/libdevice_math.cl),
// lazily loaded: linkBuiltins links them, and libdevice after them, where libdevice is found.
std::unique_ptr<llvm::Module> loadLibdeviceMathLibrary(llvm::LLVMContext &context);

// printf as CUDA's vprintf(format, argument buffer). A call it cannot lower (a format that is
// not a constant string, a vector conversion it cannot follow) is left calling `printf`, which
// is returned for the caller to treat as a missing builtin (nullptr if none).
llvm::Function *lowerPrintfToVprintf(llvm::Module &m);

// Makes the available kernels PTX entry points named as the SPIR-V kernels, each taking the
// kernel's parameters with __local pointers as i32 byte offsets into kDynamicSharedName;
// everything else becomes internal, plain C calling convention. A kernel whose code
// (transitively) reads kWorkDimName or kGlobalOffsetName (get_work_dim, get_global_offset,
// get_global_id) takes four more parameters after those: the launch's work dimension, an i32
// (1, 2 or 3), and its global offset, three i64, which its entry stores there. Returns the
// names of those kernels. Sub-group functions get the sub-group size of the kernel that calls them.
std::set<std::string> lowerKernels(llvm::Module &m, const std::vector<spirv::KernelInfo> &kernels,
                                   const std::map<std::string, std::string> &unavailable);

// The sub-group size the CUDA builtin library asks for (cuda_builtins.h): each call becomes the
// size of the kernel that runs it, 32 (a warp), or 16 where the kernel requires it.
inline constexpr const char *kSubGroupWidthName = "xpurt_cuda_sub_group_width";

// The launch's dynamic shared memory (PTX `.extern .shared .align 16 .b8 []`).
inline constexpr const char *kDynamicSharedName = "xpurt_dynamic_shared";

// The launch's work dimension, an i32 in shared memory that every work-item of a kernel which
// calls get_work_dim stores (all the same value) on entry; and its global offset, three i64
// stored the same way for get_global_offset (and get_global_id, which adds it).
inline constexpr const char *kWorkDimName = "xpurt.work_dim";
inline constexpr const char *kGlobalOffsetName = "xpurt.global_offset";

}  // namespace xpurt::cuda
