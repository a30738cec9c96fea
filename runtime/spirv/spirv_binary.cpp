#include "spirv_binary.hpp"

#include "core/error.hpp"

#include <spirv-tools/libspirv.h>

#include <algorithm>
#include <cstring>
#include <memory>

namespace xpurt::spirv {
using core::fail;

namespace {

constexpr uint32_t kMagic = 0x07230203;
constexpr uint32_t kOpCapability = 17, kOpMemoryModel = 14, kOpEntryPoint = 15;
constexpr uint32_t kOpFunction = 54, kExecutionModelKernel = 6;

std::string literalString(std::span<const uint32_t> words) {
  std::string s;
  for (uint32_t w : words)
    for (int b = 0; b < 4; ++b) {
      char c = static_cast<char>((w >> (8 * b)) & 0xff);
      if (!c) return s;
      s += c;
    }
  return s;
}

}  // namespace

std::vector<uint32_t> toWords(std::span<const std::byte> bytes, const std::string &name) {
  if (bytes.size() < 20 || bytes.size() % 4 != 0)
    fail(XPURT_ERROR_INVALID_MODULE,
         "SPIR-V module '{}' is {} bytes: a module is a whole number of 32-bit words, at least "
         "the 5-word header",
         name, bytes.size());
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  if (words[0] != kMagic) {
    if (__builtin_bswap32(words[0]) != kMagic)
      fail(XPURT_ERROR_INVALID_MODULE, "'{}' does not start with the SPIR-V magic number", name);
    for (uint32_t &w : words) w = __builtin_bswap32(w);
  }
  return words;
}

Preamble readPreamble(std::span<const uint32_t> words, const std::string &name) {
  Preamble p;
  p.version = words[1];
  for (size_t at = 5; at < words.size();) {
    uint32_t count = words[at] >> 16, opcode = words[at] & 0xffff;
    if (count == 0 || at + count > words.size())
      fail(XPURT_ERROR_INVALID_MODULE,
           "SPIR-V module '{}' is truncated or corrupt: the instruction at word {} (opcode {}) "
           "claims {} words",
           name, at, opcode, count);
    auto operands = words.subspan(at + 1, count - 1);
    if (opcode == kOpCapability && count >= 2) p.capabilities.push_back(operands[0]);
    if (opcode == kOpMemoryModel && count >= 3) {
      p.addressingModel = operands[0];
      p.memoryModel = operands[1];
    }
    if (opcode == kOpEntryPoint && count >= 4 && operands[0] == kExecutionModelKernel)
      p.kernels.push_back(literalString(operands.subspan(2)));
    if (opcode == kOpFunction) break;  // the preamble is over
    at += count;
  }
  return p;
}

const char *capabilityName(uint32_t c) {
  static const char *const names[] = {"Matrix",
                                      "Shader",
                                      "Geometry",
                                      "Tessellation",
                                      "Addresses",
                                      "Linkage",
                                      "Kernel",
                                      "Vector16",
                                      "Float16Buffer",
                                      "Float16",
                                      "Float64",
                                      "Int64",
                                      "Int64Atomics",
                                      "ImageBasic",
                                      "ImageReadWrite",
                                      "ImageMipmap",
                                      "(16)",
                                      "Pipes",
                                      "Groups",
                                      "DeviceEnqueue",
                                      "LiteralSampler",
                                      "AtomicStorage",
                                      "Int16",
                                      "TessellationPointSize",
                                      "GeometryPointSize",
                                      "ImageGatherExtended",
                                      "(26)",
                                      "StorageImageMultisample",
                                      "UniformBufferArrayDynamicIndexing",
                                      "SampledImageArrayDynamicIndexing",
                                      "StorageBufferArrayDynamicIndexing",
                                      "StorageImageArrayDynamicIndexing",
                                      "ClipDistance",
                                      "CullDistance",
                                      "ImageCubeArray",
                                      "SampleRateShading",
                                      "ImageRect",
                                      "SampledRect",
                                      "GenericPointer",
                                      "Int8",
                                      "InputAttachment",
                                      "SparseResidency",
                                      "MinLod",
                                      "Sampled1D",
                                      "Image1D",
                                      "SampledCubeArray",
                                      "SampledBuffer",
                                      "ImageBuffer",
                                      "ImageMSArray",
                                      "StorageImageExtendedFormats",
                                      "ImageQuery",
                                      "DerivativeControl",
                                      "InterpolationFunction",
                                      "TransformFeedback",
                                      "GeometryStreams",
                                      "StorageImageReadWithoutFormat",
                                      "StorageImageWriteWithoutFormat",
                                      "MultiViewport",
                                      "SubgroupDispatch",
                                      "NamedBarrier",
                                      "PipeStorage"};
  return c < std::size(names) ? names[c] : "an extension capability";
}

void checkSupported(const Preamble &preamble, std::span<const uint32_t> supported,
                    const std::string &device, const std::string &name) {
  for (uint32_t c : preamble.capabilities)
    if (std::find(supported.begin(), supported.end(), c) == supported.end())
      fail(XPURT_ERROR_UNSUPPORTED,
           "SPIR-V module '{}' declares capability {} ({}), which the {} device does not support",
           name, capabilityName(c), c, device);
  if (preamble.addressingModel != 2 || preamble.memoryModel != 2)
    fail(XPURT_ERROR_UNSUPPORTED,
         "SPIR-V module '{}' uses addressing model {} and memory model {}; the {} device runs "
         "OpenCL kernels (Physical64 addressing = 2, OpenCL memory model = 2)",
         name, preamble.addressingModel, preamble.memoryModel, device);
  if (preamble.kernels.empty())
    fail(XPURT_ERROR_INVALID_MODULE, "SPIR-V module '{}' has no kernel entry points", name);
}

std::vector<std::string> validate(std::span<const uint32_t> words, const std::string &name) {
  std::unique_ptr<spv_context_t, void (*)(spv_context)> context(
      spvContextCreate(SPV_ENV_UNIVERSAL_1_5), spvContextDestroy);
  spv_diagnostic diagnostic = nullptr;
  spv_result_t result = spvValidateBinary(context.get(), words.data(), words.size(), &diagnostic);
  std::string message = diagnostic && diagnostic->error ? diagnostic->error : "";
  spvDiagnosticDestroy(diagnostic);
  if (result == SPV_SUCCESS) return {};
  // What llvm-spirv-15 emits for optimised but valid programs (see docs/ARCHITECTURE.md).
  static const char *const layoutOnly[] = {"before its dominator", "has not been defined",
                                           "must be the first instruction",
                                           "Variables must be declared"};
  for (const char *pattern : layoutOnly)
    if (message.find(pattern) != std::string::npos)
      return {
          fmt::format("SPIR-V module '{}': the validator reports a layout problem, which "
                      "the reader tolerates: {}",
                      name, message)};
  fail(XPURT_ERROR_INVALID_MODULE, "SPIR-V module '{}' is not valid: {}", name, message);
}

}  // namespace xpurt::spirv
