#include "cuda_launch.hpp"

#include "core/error.hpp"
#include "cuda_module.hpp"

namespace xpurt::cuda {

std::string KernelLaunch::describe(const core::Command &cmd) const {
  return fmt::format("kernel '{}', {}x{}x{} blocks of {}x{}x{}, {} bytes of dynamic shared memory",
                     cmd.kernel->name(), grid[0], grid[1], grid[2], block[0], block[1], block[2],
                     shared);
}

void prepareLaunch(const CudaDevice &device, const core::Command &cmd, KernelLaunch &l) {
  auto &kernel = static_cast<CudaKernel &>(*cmd.kernel);
  l.function = kernel.function();
  l.workDim = cmd.range.workDim;
  if (cmd.type == core::Command::Type::Launch) {
    const core::KernelSignature *signature = kernel.signature();
    if (signature) {
      core::NDRange range = kernel.taskRange(cmd.dims);
      for (int d = 0; d < 3; ++d) l.block[d] = static_cast<uint32_t>(range.localSize[d]);
      l.workDim = range.workDim;
    }
    for (int d = 0; d < 3; ++d) l.grid[d] = cmd.dims[d];
    l.taskParams = cmd.params();
    // A PTX or cubin kernel gets the params pointer even when it is null: the driver reads as
    // many parameters as the kernel has, none if it has none.
    if (!signature || !signature->params.empty()) l.params.push_back(&l.taskParams);
  } else {
    const core::KernelArgs &args = *cmd.args;
    l.pointers.resize(args.args.size());
    for (const core::KernelArgs::ViewArg &v : args.views) l.pointers[v.index] = v.ref.pointer();
    l.shared = static_cast<uint32_t>(layoutLocalArguments(args, &l.offsets));
    l.params.resize(args.args.size());
    for (uint32_t i = 0; i < args.args.size(); ++i) {
      const core::KernelArgs::Arg &a = args.args[i];
      if (a.kind == XPURT_KERNEL_ARG_LOCAL)
        l.params[i] = &l.offsets[i];
      else if (a.kind == XPURT_KERNEL_ARG_MEMORY_VIEW)
        l.params[i] = &l.pointers[i];
      else
        l.params[i] = const_cast<std::byte *>(args.data.data() + a.offset);
    }
    for (int d = 0; d < 3; ++d) {
      l.block[d] = static_cast<uint32_t>(cmd.range.localSize[d]);
      l.grid[d] = static_cast<uint32_t>(cmd.range.globalSize[d] / cmd.range.localSize[d]);
    }
  }
  if (cmd.type != core::Command::Type::Launch)
    for (int d = 0; d < 3; ++d) l.globalOffset[d] = cmd.range.globalOffset[d];
  if (kernel.takesLaunchValues()) {
    l.params.push_back(&l.workDim);
    for (uint64_t &offset : l.globalOffset) l.params.push_back(&offset);
  }
  const CudaDeviceDescription &d = device.description();
  for (int i = 0; i < 3; ++i)
    if (l.grid[i] > d.maxGridSize[i])
      core::fail(XPURT_ERROR_OUT_OF_RANGE,
                 "kernel '{}': {} blocks in dimension {}; {} runs at most {}: use larger "
                 "work-groups or split the launch",
                 kernel.name(), l.grid[i], i, device.label(), d.maxGridSize[i]);
  if (l.shared > 48 * 1024) kernel.allowDynamicShared(l.shared);
}

}  // namespace xpurt::cuda
