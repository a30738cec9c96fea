// What a kernel takes, as its module reflected it, and the checks of a launch against it: the
// same on every device, made once when the command is built.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace xpurt::core {

struct KernelArgs;
struct NDRange;

struct KernelParam {
  enum class Kind : uint8_t {
    GlobalPointer,    // __global T *: the runtime passes a device address
    ConstantPointer,  // __constant T *
    LocalPointer,     // __local T *: the runtime gives each work-group `size` bytes
    Value,            // a scalar or vector by value
    Struct,           // a struct by value
  };
  Kind kind;
  uint32_t size;         // bytes of the value (pointers: 8)
  std::string typeName;  // as the source spelled it, if known
};

const char *paramKindName(KernelParam::Kind kind);

struct KernelSignature {
  std::vector<KernelParam> params;
  std::array<uint32_t, 3> requiredLocalSize{0, 0, 0};  // reqd_work_group_size; 0 if none

  // Throws INVALID_ARGUMENT unless an ISPCRT-style launch fits: one pointer parameter that a
  // params view is given for, or none.
  void checkTaskLaunch(const std::string &kernel, bool hasParams) const;
  // Throws INVALID_ARGUMENT naming the first argument that does not match its parameter.
  void checkArguments(const std::string &kernel, const KernelArgs &args) const;
  // Fills in the local sizes the launch left to the runtime (0): the required size, else
  // up to preferredX work-items in x (preferWhole: a size that divides the global size where
  // one of at least half as many does) and 1 elsewhere; refuses a size the kernel forbids.
  void chooseLocalSize(const std::string &kernel, NDRange &range, uint32_t preferredX,
                       bool preferWhole = false) const;
  // The ISPCRT model of a task launch: one work-group per task, of the required size or else
  // programCount work-items in x.
  NDRange taskRange(const std::array<uint32_t, 3> &dims, uint32_t programCount) const;

  // "2 arguments (global pointer, value)"
  std::string describe() const;
};

}  // namespace xpurt::core
