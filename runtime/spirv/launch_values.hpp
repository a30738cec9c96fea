// A variant of a SPIR-V module whose kernels learn the launch's geometry from the runtime, for
// devices that launch whole work-groups only and have no global offset of their own (a Level
// Zero driver): the runtime runs a launch with a partial last work-group as launches of whole
// groups (core/launch_parts.hpp), passing each the whole launch's values, and the work-item
// built-ins answer as for one launch.
//
// Each kernel gets a wrapper entry point of the same name taking one more parameter after its
// own, a ulong16 of kLaunchValue* components, which it stores in a __local variable before
// calling the kernel; every load of the built-ins below, in any function, reads that variable
// and the device's own WorkgroupId and LocalInvocationId instead:
//   WorkgroupId            = device group id + group base
//   GlobalInvocationId     = (device group id + group base) * enqueued size + local id + offset
//   NumWorkgroups, GlobalSize, EnqueuedWorkgroupSize, GlobalOffset, WorkDim: the values given
//   GlobalLinearId         = from the global id less the offset, and the global size.
// The local size and ids, and sub-groups, are the device's: each part's groups are whole.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace xpurt::spirv {

// Components of the launch-value parameter (three each, x y z, but the work dimension).
enum LaunchValueComponent : uint32_t {
  kLaunchValueGroupBase = 0,  // the id of the part's first work-group
  kLaunchValueGlobalOffset = 3,
  kLaunchValueGlobalSize = 6,
  kLaunchValueNumGroups = 9,
  kLaunchValueEnqueuedLocalSize = 12,
  kLaunchValueWorkDim = 15,
  kLaunchValueCount = 16
};

struct LaunchValueModule {
  std::vector<uint32_t> words;  // the module itself where no function reads those built-ins
  bool takesLaunchValues = false;
};

// `words` must be a module that passed the intake (spirv_binary.hpp). Throws INVALID_MODULE
// if it cannot be parsed, and UNSUPPORTED naming the built-in where the module reaches one
// other than by loading it (directly or through an access chain).
LaunchValueModule addLaunchValues(std::span<const uint32_t> words, const std::string &name);

}  // namespace xpurt::spirv
