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
// The work-item functions read kLaunchValues (see lowerKernels).
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
// (transitively) reads one of kLaunchValues (get_global_id, get_group_id, get_work_dim, ...)
// takes all of them as parameters after its own, and its entry stores them. Returns the names
// of those kernels. Sub-group functions get the sub-group size of the kernel that calls them.
std::set<std::string> lowerKernels(llvm::Module &m, const std::vector<spirv::KernelInfo> &kernels,
                                   const std::map<std::string, std::string> &unavailable);

// The sub-group size the CUDA builtin library asks for (cuda_builtins.h): each call becomes the
// size of the kernel that runs it, 32 (a warp), or 16 where the kernel requires it.
inline constexpr const char *kSubGroupWidthName = "xpurt_cuda_sub_group_width";

// The launch's dynamic shared memory (PTX `.extern .shared .align 16 .b8 []`).
inline constexpr const char *kDynamicSharedName = "xpurt_dynamic_shared";

// The launch values CUDA has no register for, which a kernel whose code reads them takes as
// parameters after its own, in this order (count parameters of `bits` each), and its entry
// stores in shared memory, in the global variable `global` ([count x iN]; every work-item
// stores the same values): the work dimension; the global offset; the global size and the
// number of work-groups of the whole launch; the enqueued local size; and the group id of this
// launch's first block, which is not 0 where the runtime splits a launch with a partial last
// work-group into launches of whole blocks (cuda_launch.hpp). The CUDA builtin library reads
// them through `reader` (cuda/builtins/cuda_builtins.h), which the PTX compiler defines.
struct LaunchValue {
  const char *global;
  const char *reader;
  unsigned bits, count;
};
inline constexpr LaunchValue kLaunchValues[] = {
    {"xpurt.work_dim", "xpurt_cuda_work_dim", 32, 1},
    {"xpurt.global_offset", "xpurt_cuda_global_offset", 64, 3},
    {"xpurt.global_size", "xpurt_cuda_global_size", 64, 3},
    {"xpurt.num_groups", "xpurt_cuda_num_groups", 32, 3},
    {"xpurt.enqueued_local_size", "xpurt_cuda_enqueued_local_size", 32, 3},
    {"xpurt.group_base", "xpurt_cuda_group_base", 32, 3}};

// After optimising: where a kernel's entry, into which its code was inlined, loads a launch
// value that it stored itself, uses the parameter it stored (LLVM cannot forward the store
// past a barrier); the stores of a value nothing loads any more go, so a kernel whose code was
// all inlined keeps no launch value in shared memory.
void forwardLaunchValues(llvm::Module &m);

// Defines the launch-value readers the module calls (after the CUDA builtin library is linked):
// each loads element d (d < 3; the library tests it) of its launch value's global.
void defineLaunchValueReaders(llvm::Module &m);

}  // namespace xpurt::cuda
