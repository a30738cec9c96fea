#include "kernel_reflection.hpp"

namespace xpurt::spirv {

void writeKernelInfo(core::Writer &w, const KernelInfo &info) {
  w.str(info.name);
  w.u32(static_cast<uint32_t>(info.args.size()));
  for (const KernelArg &a : info.args) {
    w.u8(static_cast<uint8_t>(a.kind));
    w.u32(a.size);
    w.str(a.typeName);
  }
  for (uint32_t d : info.requiredLocalSize) w.u32(d);
}

std::optional<KernelInfo> readKernelInfo(core::Reader &r) {
  KernelInfo info;
  info.name = r.str();
  uint32_t args = r.u32();
  for (uint32_t a = 0; r.ok() && a < args; ++a) {
    KernelArg arg{};
    uint8_t kind = r.u8();
    if (kind > static_cast<uint8_t>(KernelArg::Kind::Struct)) return std::nullopt;
    arg.kind = static_cast<KernelArg::Kind>(kind);
    arg.size = r.u32();
    arg.typeName = r.str();
    info.args.push_back(std::move(arg));
  }
  for (uint32_t &d : info.requiredLocalSize) d = r.u32();
  if (!r.ok()) return std::nullopt;
  return info;
}

std::string reflectKernelsSerialized(const std::vector<uint32_t> &words, const std::string &name,
                                     const core::ModuleOptions &options) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = readModule(context, words, options.specConstants, name);
  std::vector<KernelInfo> kernels = reflectKernels(*module);
  core::Writer w;
  w.u32(static_cast<uint32_t>(kernels.size()));
  for (const KernelInfo &k : kernels) writeKernelInfo(w, k);
  return w.take();
}

std::optional<std::vector<KernelInfo>> deserializeKernels(std::string_view bytes) {
  core::Reader r(bytes);
  std::vector<KernelInfo> kernels;
  uint32_t n = r.u32();
  for (uint32_t i = 0; r.ok() && i < n; ++i) {
    std::optional<KernelInfo> info = readKernelInfo(r);
    if (!info) return std::nullopt;
    kernels.push_back(std::move(*info));
  }
  if (!r.ok() || !r.atEnd()) return std::nullopt;
  return kernels;
}

}  // namespace xpurt::spirv
