#include "cuda_launch.hpp"

#include "core/error.hpp"
#include "cuda_module.hpp"

namespace xpurt::cuda {

std::string KernelLaunch::describe(const core::Command &cmd) const {
  return fmt::format("kernel '{}', {}x{}x{} blocks of {}x{}x{}, {} bytes of dynamic shared memory",
                     cmd.kernel->name(), grid[0], grid[1], grid[2], block[0], block[1], block[2],
                     shared);
}

void KernelLaunch::select(size_t index) {
  const core::LaunchPart &part = parts[index];
  for (int d = 0; d < 3; ++d) {
    grid[d] = static_cast<uint32_t>(part.groups[d]);
    block[d] = static_cast<uint32_t>(part.localSize[d]);
    values.groupBase[d] = static_cast<uint32_t>(part.groupBase[d]);
  }
}

void KernelLaunch::clear() {
  function = nullptr;
  grid = block = {1, 1, 1};
  shared = 0;
  params.clear();
  taskParams = nullptr;
  pointers.clear();
  offsets.clear();
  values = {};
  parts = {};
}

void prepareLaunch(const CudaDevice &device, const core::Command &cmd, KernelLaunch &l) {
  l.clear();
  auto &kernel = static_cast<CudaKernel &>(*cmd.kernel);
  l.function = kernel.function();
  core::NDRange range = core::launchRange(cmd);
  // Room for the launch values too: no reallocation per launch.
  constexpr size_t kLaunchValueParams = 16;
  l.params.reserve((cmd.args ? cmd.args->args.size() : 1) + kLaunchValueParams);
  if (cmd.type == core::Command::Type::Launch) {
    const core::KernelSignature *signature = kernel.signature();
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
  }
  const CudaDeviceDescription &d = device.description();
  KernelLaunch::Values &v = l.values;
  v.workDim = range.workDim;
  for (int i = 0; i < 3; ++i) {
    uint64_t groups = core::groupCount(range, i);
    if (groups > d.maxGridSize[i])
      core::fail(XPURT_ERROR_OUT_OF_RANGE,
                 "kernel '{}': {} blocks in dimension {}; {} runs at most {}: use larger "
                 "work-groups or split the launch",
                 kernel.name(), groups, i, device.label(), d.maxGridSize[i]);
    v.globalOffset[i] = range.globalOffset[i];
    v.globalSize[i] = range.globalSize[i];
    v.numGroups[i] = static_cast<uint32_t>(groups);
    v.enqueuedLocalSize[i] = static_cast<uint32_t>(range.localSize[i]);
  }
  if (kernel.takesLaunchValues()) {
    l.params.push_back(&v.workDim);
    for (uint64_t &x : v.globalOffset) l.params.push_back(&x);
    for (uint64_t &x : v.globalSize) l.params.push_back(&x);
    for (uint32_t &x : v.numGroups) l.params.push_back(&x);
    for (uint32_t &x : v.enqueuedLocalSize) l.params.push_back(&x);
    for (uint32_t &x : v.groupBase) l.params.push_back(&x);
  }
  l.parts = core::splitIntoWholeGroups(range);
  if (!l.parts.empty()) l.select(0);
  if (l.shared > 48 * 1024) kernel.allowDynamicShared(l.shared);
}

}  // namespace xpurt::cuda
