#include "ze_append.hpp"

#include "ze_call.hpp"
#include "ze_handles.hpp"
#include "ze_module.hpp"

#include "core/launch_parts.hpp"
#include "spirv/launch_values.hpp"

#include <cstring>

namespace xpurt::level_zero {

CommandAppender::~CommandAppender() {
  DestroyingHandles destroying;
  for (auto &[kernel, clone] : clones_) zeKernelDestroy(clone.handle);
}

std::shared_ptr<void> CommandAppender::append(const core::Command &cmd,
                                              ze_command_list_handle_t list,
                                              uint32_t maxFillPatternSize, ze_event_handle_t signal,
                                              std::span<ze_event_handle_t> wait) {
  using Type = core::Command::Type;
  auto count = static_cast<uint32_t>(wait.size());
  ze_event_handle_t *waits = wait.empty() ? nullptr : wait.data();
  switch (cmd.type) {
    case Type::Copy:
      check(zeCommandListAppendMemoryCopy(list, cmd.dst.pointer(), cmd.src.pointer(), cmd.dst.size,
                                          signal, count, waits),
            "zeCommandListAppendMemoryCopy", [&] { return fmt::format("{} bytes", cmd.dst.size); });
      return nullptr;
    case Type::Fill: {
      uint32_t n = cmd.patternSize;
      if ((n & (n - 1)) == 0 && n <= maxFillPatternSize) {
        check(zeCommandListAppendMemoryFill(list, cmd.dst.pointer(), cmd.patternBytes(), n,
                                            cmd.dst.size, signal, count, waits),
              "zeCommandListAppendMemoryFill",
              [&] { return fmt::format("{} bytes", cmd.dst.size); });
        return nullptr;
      }
      // A pattern the queue group cannot fill with: the whole range, filled here, copied.
      auto filled = std::make_shared<std::vector<std::byte>>(cmd.dst.size);
      for (size_t at = 0; at < filled->size(); at += n)
        std::memcpy(filled->data() + at, cmd.patternBytes(),
                    std::min<size_t>(n, filled->size() - at));
      check(zeCommandListAppendMemoryCopy(list, cmd.dst.pointer(), filled->data(), cmd.dst.size,
                                          signal, count, waits),
            "zeCommandListAppendMemoryCopy", "a fill's pattern");
      return filled;
    }
    case Type::Launch:
    case Type::LaunchKernel:
      appendLaunch(cmd, list, signal, wait);
      return nullptr;
    case Type::Barrier:
      check(zeCommandListAppendBarrier(list, signal, count, waits), "zeCommandListAppendBarrier");
      return nullptr;
    case Type::HostCallback:
    case Type::Graph:
      break;
  }
  return nullptr;
}

CommandAppender::KernelClone &CommandAppender::cloneOf(core::Kernel &kernel,
                                                       ze_module_handle_t module) {
  auto it = clones_.find({&kernel, module});
  if (it != clones_.end()) return it->second;
  KernelClone clone;
  clone.kernel = core::Ref<core::Kernel>(&kernel);
  auto desc = zeStruct<ze_kernel_desc_t>(ZE_STRUCTURE_TYPE_KERNEL_DESC);
  desc.pKernelName = kernel.name().c_str();
  check(createHandle([&] { return zeKernelCreate(module, &desc, &clone.handle); }),
        "zeKernelCreate", fmt::format("kernel '{}'", kernel.name()));
  // Kernels reach memory views through pointers in their arguments and params structs.
  ze_kernel_indirect_access_flags_t indirect = ZE_KERNEL_INDIRECT_ACCESS_FLAG_HOST |
                                               ZE_KERNEL_INDIRECT_ACCESS_FLAG_DEVICE |
                                               ZE_KERNEL_INDIRECT_ACCESS_FLAG_SHARED;
  if (ze_result_t r = zeKernelSetIndirectAccess(clone.handle, indirect); r != ZE_RESULT_SUCCESS) {
    {
      DestroyingHandles destroying;
      zeKernelDestroy(clone.handle);
    }
    failCall("zeKernelSetIndirectAccess", r, fmt::format("kernel '{}'", kernel.name()));
  }
  return clones_.emplace(std::pair{&kernel, module}, std::move(clone)).first->second;
}

void CommandAppender::setArg(KernelClone &clone, uint32_t index, size_t size, const void *value) {
  // Remembered as the value's bytes, or the __local size with a marker for no value; compared
  // in place, so an unchanged argument allocates nothing.
  const std::byte marker{value ? uint8_t{1} : uint8_t{0}};
  const void *bytes = value ? value : &size;
  size_t n = value ? size : sizeof size;
  if (clone.args.size() <= index) clone.args.resize(index + 1);
  std::vector<std::byte> &known = clone.args[index];
  if (known.size() == n + 1 && known[0] == marker && std::memcmp(known.data() + 1, bytes, n) == 0)
    return;
  check(zeKernelSetArgumentValue(clone.handle, index, size, value), "zeKernelSetArgumentValue",
        [&] { return fmt::format("argument {} of kernel '{}'", index, clone.kernel->name()); });
  known.resize(n + 1);
  known[0] = marker;
  std::memcpy(known.data() + 1, bytes, n);
}

void CommandAppender::setGroupSize(KernelClone &clone, const std::array<uint32_t, 3> &size) {
  if (clone.groupSize == size) return;
  check(zeKernelSetGroupSize(clone.handle, size[0], size[1], size[2]), "zeKernelSetGroupSize", [&] {
    return fmt::format("{}x{}x{} for kernel '{}'", size[0], size[1], size[2], clone.kernel->name());
  });
  clone.groupSize = size;
}

void CommandAppender::appendLaunch(const core::Command &cmd, ze_command_list_handle_t list,
                                   ze_event_handle_t signal, std::span<ze_event_handle_t> wait) {
  bool task = cmd.type == core::Command::Type::Launch;
  const core::KernelSignature *signature = cmd.kernel->signature();
  core::NDRange range = core::launchRange(cmd);
  const ze_device_compute_properties_t &limits = device_.description().compute;
  const uint32_t most[3] = {limits.maxGroupCountX, limits.maxGroupCountY, limits.maxGroupCountZ};
  // The driver's own global offset: ZE_experimental_global_offset, 32 bits.
  bool partial = false, offset = false, driverOffset = device_.context().extensions().globalOffset;
  for (int d = 0; d < 3; ++d) {
    uint64_t groups = core::groupCount(range, d);
    if (groups > most[d])
      core::fail(XPURT_ERROR_OUT_OF_RANGE,
                 "kernel '{}': {} work-groups in dimension {}; {} runs at most {}: use larger "
                 "work-groups or split the launch",
                 cmd.kernel->name(), groups, d, device_.label(), most[d]);
    partial |= range.globalSize[d] % range.localSize[d] != 0;
    offset |= range.globalOffset[d] != 0;
    driverOffset &= range.globalOffset[d] <= UINT32_MAX;
  }
  auto &module = static_cast<ZeKernel &>(*cmd.kernel).zeModule();
  ZeModule::LaunchValueVariant variant{module.handle(), false};
  bool useVariant = partial || (offset && !driverOffset);
  if (useVariant) variant = module.launchValueVariant();
  KernelClone &clone = cloneOf(*cmd.kernel, variant.handle);

  if (task) {
    void *params = cmd.params();
    if (signature ? !signature->params.empty() : params != nullptr)
      setArg(clone, 0, sizeof params, &params);
  } else {
    const core::KernelArgs &args = *cmd.args;
    std::vector<void *> pointers(args.args.size());
    for (const core::KernelArgs::ViewArg &v : args.views) pointers[v.index] = v.ref.pointer();
    for (uint32_t i = 0; i < args.args.size(); ++i) {
      const core::KernelArgs::Arg &a = args.args[i];
      if (a.kind == XPURT_KERNEL_ARG_LOCAL) {
        uint64_t bytes;
        std::memcpy(&bytes, args.data.data() + a.offset, sizeof bytes);
        setArg(clone, i, bytes, nullptr);
      } else if (a.kind == XPURT_KERNEL_ARG_MEMORY_VIEW) {
        setArg(clone, i, sizeof(void *), &pointers[i]);
      } else {
        setArg(clone, i, a.size, args.data.data() + a.offset);
      }
    }
  }
  // The variant takes the offset with the launch values (or reads nothing it changes); the
  // module itself, through the driver.
  std::array<uint32_t, 3> setOffset{0, 0, 0};
  if (!useVariant)
    for (int d = 0; d < 3; ++d) setOffset[d] = static_cast<uint32_t>(range.globalOffset[d]);
  if (clone.offset != setOffset) {
    check(zeKernelSetGlobalOffsetExp(clone.handle, setOffset[0], setOffset[1], setOffset[2]),
          "zeKernelSetGlobalOffsetExp");
    clone.offset = setOffset;
  }
  uint64_t values[spirv::kLaunchValueCount] = {};
  for (uint32_t d = 0; d < 3; ++d) {
    values[spirv::kLaunchValueGlobalOffset + d] = range.globalOffset[d];
    values[spirv::kLaunchValueGlobalSize + d] = range.globalSize[d];
    values[spirv::kLaunchValueNumGroups + d] = core::groupCount(range, static_cast<int>(d));
    values[spirv::kLaunchValueEnqueuedLocalSize + d] = range.localSize[d];
  }
  values[spirv::kLaunchValueWorkDim] = range.workDim;
  auto hiddenArg = static_cast<uint32_t>(task ? 1 : cmd.args->args.size());

  core::LaunchParts parts = core::splitIntoWholeGroups(range);
  // One part signals and waits itself; several wait for the launch's waits, and a barrier
  // after them signals.
  bool split = parts.size() > 1;
  for (const core::LaunchPart &part : parts) {
    std::array<uint32_t, 3> groupSize;
    for (int d = 0; d < 3; ++d) groupSize[d] = static_cast<uint32_t>(part.localSize[d]);
    setGroupSize(clone, groupSize);
    if (variant.takesLaunchValues) {
      for (uint32_t d = 0; d < 3; ++d) values[spirv::kLaunchValueGroupBase + d] = part.groupBase[d];
      setArg(clone, hiddenArg, sizeof values, values);
    }
    ze_group_count_t groups{static_cast<uint32_t>(part.groups[0]),
                            static_cast<uint32_t>(part.groups[1]),
                            static_cast<uint32_t>(part.groups[2])};
    check(zeCommandListAppendLaunchKernel(list, clone.handle, &groups, split ? nullptr : signal,
                                          static_cast<uint32_t>(wait.size()),
                                          wait.empty() ? nullptr : wait.data()),
          "zeCommandListAppendLaunchKernel",
          [&] { return fmt::format("kernel '{}'", cmd.kernel->name()); });
  }
  if (split)
    check(zeCommandListAppendBarrier(list, signal, 0, nullptr), "zeCommandListAppendBarrier", [&] {
      return fmt::format("the end of kernel '{}', launched in {} parts", cmd.kernel->name(),
                         parts.size());
    });
}

}  // namespace xpurt::level_zero
