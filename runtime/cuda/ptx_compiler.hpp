// SPIR-V to PTX for NVIDIA GPUs: the shared intake's checked words are read into LLVM IR
// (runtime/spirv), retargeted to nvptx64-nvidia-cuda (SPIR address spaces to NVPTX ones,
// kernels as PTX kernels, __local pointer arguments as offsets into dynamic shared memory),
// linked with libclc's NVPTX builtin library and the project's own builtins, optimised and
// emitted as PTX text. Runs in the JIT worker (core/jit_worker.hpp) and in xpurt-compile.
// The launch convention the CUDA backend follows: a kernel's parameters are those of the
// SPIR-V kernel in order, except that a __local pointer parameter becomes a 32-bit byte offset
// into the launch's dynamic shared memory (one `extern __shared__` block, 16-byte aligned),
// which the runtime lays out and sizes; a kernel in PtxModule::launchValueKernels takes the
// launch values (nvptx_lowering.hpp's kLaunchValues: work dimension, global offset and size,
// number of groups, enqueued local size, first group id) as parameters after those. Sub-groups are warps (32 work-items in local linear order);
// work-group collectives, get_work_dim and the global offset use a few hundred bytes of static
// shared memory, which counts against the block's shared memory besides the dynamic part.
#pragma once

#include "core/backend.hpp"
#include "spirv/spirv_binary.hpp"
#include "spirv/spirv_reader.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace xpurt::cuda {

// The PTX targets LLVM 15 emits, newest first: a device gets the newest one its compute
// capability runs (the driver JITs the PTX for the device itself, e.g. sm_90 for Hopper).
inline constexpr int kPtxTargets[] = {80, 75, 72, 70, 62, 61, 60, 53, 52, 50};

// The SPIR-V intake for CUDA devices: spirv::checkModule with the capabilities the PTX
// lowering supports (an unsupported one is refused by name).
spirv::CheckedModule checkSpirvForCuda(std::span<const std::byte> bytes, const std::string &name);

// The target for a device of compute capability major.minor; nothing below sm_50.
std::optional<int> ptxTargetFor(int major, int minor);

struct PtxModule {
  std::string ptx;                                 // the PTX text, for cuModuleLoadDataEx
  std::vector<spirv::KernelInfo> kernels;          // every kernel of the SPIR-V module
  std::map<std::string, std::string> unavailable;  // kernel -> why it is not in the PTX
  // The kernels that take the launch values (kLaunchValues) as parameters after their own.
  std::set<std::string> launchValueKernels;
};

// Throws an Error (INVALID_MODULE, naming the module) for what cannot be compiled. A kernel
// that calls a builtin nobody provides is left out of the PTX and listed in `unavailable`,
// so the module's other kernels stay usable. sm: one of kPtxTargets.
PtxModule compileSpirvToPtx(const std::vector<uint32_t> &words, const std::string &name,
                            const core::ModuleOptions &options, int sm);

// Which libdevice the PTX compiler links (its path, size and time), or "no libdevice": part of
// the key of compiled PTX, which differs with it.
std::string libdeviceIdentity();

// A PtxModule as bytes (a disk cache entry's payload), and back; nothing for malformed bytes.
std::string serializePtxModule(const PtxModule &module);
std::optional<PtxModule> deserializePtxModule(std::string_view bytes);

// The JIT worker's compilers (core::Compiler), one per target: compileSpirvToPtx, serialized.
template <int Sm>
std::string compileSpirvForCudaSerialized(const std::vector<uint32_t> &words,
                                          const std::string &name,
                                          const core::ModuleOptions &options) {
  return serializePtxModule(compileSpirvToPtx(words, name, options, Sm));
}

}  // namespace xpurt::cuda
