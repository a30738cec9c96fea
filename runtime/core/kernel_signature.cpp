#include "kernel_signature.hpp"

#include "command.hpp"
#include "error.hpp"

#include <algorithm>

namespace xpurt::core {

const char *paramKindName(KernelParam::Kind kind) {
  switch (kind) {
    case KernelParam::Kind::GlobalPointer:
      return "global pointer";
    case KernelParam::Kind::ConstantPointer:
      return "constant pointer";
    case KernelParam::Kind::LocalPointer:
      return "local pointer";
    case KernelParam::Kind::Value:
      return "value";
    case KernelParam::Kind::Struct:
      return "struct by value";
  }
  return "?";
}

std::string KernelSignature::describe() const {
  std::string s = std::to_string(params.size()) + " arguments (";
  for (size_t i = 0; i < params.size(); ++i)
    s += (i ? ", " : "") + std::string(paramKindName(params[i].kind));
  return s + ")";
}

void KernelSignature::checkTaskLaunch(const std::string &kernel, bool hasParams) const {
  size_t n = params.size();
  bool pointer = n == 1 && (params[0].kind == KernelParam::Kind::GlobalPointer ||
                            params[0].kind == KernelParam::Kind::ConstantPointer);
  if (n > 1 || (n == 1 && !pointer))
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "kernel '{}' takes {}; a task launch passes a single params pointer", kernel, describe());
  if (n == 1 && !hasParams)
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "kernel '{}' takes a params pointer, but the launch has no params view", kernel);
}

static void checkArgument(const std::string &kernel, size_t i, const KernelParam &want,
                          const KernelArgs::Arg &got) {
  const char *gotKind = got.kind == XPURT_KERNEL_ARG_VALUE         ? "a value"
                        : got.kind == XPURT_KERNEL_ARG_MEMORY_VIEW ? "a memory view"
                                                                   : "local memory";
  auto mismatch = [&](const std::string &expected) {
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "argument {} of kernel '{}' is a {} ({}); the launch gives {} of {} bytes: pass {}", i,
         kernel, paramKindName(want.kind), want.typeName, gotKind, got.size, expected);
  };
  switch (want.kind) {
    case KernelParam::Kind::GlobalPointer:
    case KernelParam::Kind::ConstantPointer:
      if (got.kind == XPURT_KERNEL_ARG_MEMORY_VIEW) return;
      if (got.kind == XPURT_KERNEL_ARG_VALUE && got.size == 8) return;  // a raw device pointer
      mismatch("a memory view");
      return;
    case KernelParam::Kind::LocalPointer:
      if (got.kind != XPURT_KERNEL_ARG_LOCAL) mismatch("XPURT_KERNEL_ARG_LOCAL with a size");
      return;
    case KernelParam::Kind::Value:
    case KernelParam::Kind::Struct:
      if (got.kind != XPURT_KERNEL_ARG_VALUE || got.size != want.size)
        mismatch(fmt::format("a value of {} bytes", want.size));
      return;
  }
}

void KernelSignature::checkArguments(const std::string &kernel, const KernelArgs &args) const {
  if (args.args.size() != params.size())
    fail(XPURT_ERROR_INVALID_ARGUMENT, "kernel '{}' takes {}; the launch gives {}", kernel,
         describe(), args.args.size());
  for (size_t i = 0; i < args.args.size(); ++i) checkArgument(kernel, i, params[i], args.args[i]);
}

void KernelSignature::chooseLocalSize(const std::string &kernel, NDRange &range,
                                      uint32_t preferredX, bool preferWhole) const {
  bool required = requiredLocalSize[0] != 0;
  for (uint32_t d = 0; d < 3; ++d) {
    uint64_t want = required ? requiredLocalSize[d] : 0;
    uint64_t &local = range.localSize[d];
    if (d >= range.workDim) local = want ? want : 1;
    if (local == 0) {
      local = want ? want : (d == 0 ? std::min<uint64_t>(range.globalSize[0], preferredX) : 1);
      // Where partial groups cost launches: the largest size that divides the range, if it is
      // at least half the preferred size; else the preferred size and a partial last group.
      if (!want && preferWhole && range.globalSize[d] % local != 0) {
        uint64_t divisor = local;
        while (divisor > local / 2 && range.globalSize[d] % divisor != 0) --divisor;
        if (range.globalSize[d] % divisor == 0) local = divisor;
      }
    }
    if (want && local != want)
      fail(XPURT_ERROR_INVALID_ARGUMENT,
           "kernel '{}' requires work-groups of {}x{}x{} (reqd_work_group_size); the launch "
           "asks for a local size of {} in dimension {}",
           kernel, requiredLocalSize[0], requiredLocalSize[1], requiredLocalSize[2], local, d);
  }
}

NDRange KernelSignature::taskRange(const std::array<uint32_t, 3> &dims,
                                   uint32_t programCount) const {
  NDRange r;
  for (int d = 0; d < 3; ++d) {
    uint32_t required = requiredLocalSize[d];
    r.localSize[d] = required ? required : (d == 0 ? programCount : 1);
    r.globalSize[d] = dims[d] * r.localSize[d];
  }
  r.workDim = dims[2] > 1 ? 3 : dims[1] > 1 ? 2 : 1;
  return r;
}

void Kernel::checkTaskLaunch(bool hasParams) const {
  if (signature_) signature_->checkTaskLaunch(name_, hasParams);
}

void Kernel::checkLaunch(const KernelArgs &args, NDRange &range) const {
  if (!signature_)
    fail(XPURT_ERROR_UNSUPPORTED,
         "kernel '{}' of module '{}' takes task launches only (a params pointer and task "
         "dimensions), not launches with arguments",
         name_, module_->name());
  signature_->checkArguments(name_, args);
  checkDeviceLimits(args, range);
  const Device &device = module_->device();
  bool open = range.localSize[0] == 0 && range.localSize[1] == 0 && range.localSize[2] == 0;
  if (open && signature_->requiredLocalSize[0] == 0)
    if (auto suggested = suggestLocalSize(range)) range.localSize = *suggested;
  signature_->chooseLocalSize(name_, range, device.defaultWorkGroupSize(),
                              device.prefersWholeWorkGroups());
}

NDRange Kernel::taskRange(const std::array<uint32_t, 3> &dims) const {
  return signature_->taskRange(dims, module_->device().programCount());
}

}  // namespace xpurt::core
