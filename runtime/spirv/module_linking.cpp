#include "module_linking.hpp"

#include "core/error.hpp"
#include "spirv_binary.hpp"

#include <spirv-tools/linker.hpp>

#include <algorithm>
#include <cstring>
#include <set>

#include <fmt/format.h>

namespace xpurt::spirv {
using core::fail;

namespace {

// What to do about the linker's findings, by the words its messages start with.
std::string adviceFor(const std::string &message) {
  static const std::pair<const char *, const char *> advice[] = {
      {"Too many external references",
       "a symbol may be defined by one module only: make the other definitions static "
       "(internal linkage) or leave those modules out"},
      {"Type mismatch",
       "declare the symbol with the same type where it is imported and where it is defined"},
      {"The entry point", "kernels of modules linked together need different names"},
      {"Conflicting addressing models", "compile every module for the same target (spir64)"},
      {"Conflicting memory models", "compile every module for the same target (spir64)"}};
  for (auto [start, what] : advice)
    if (message.find(start) != std::string::npos) return what;
  return {};
}

constexpr uint32_t kOpName = 5, kOpFunction = 54, kOpVariable = 59, kStorageFunction = 7;

void appendLiteralString(std::vector<uint32_t> &words, const std::string &s) {
  for (size_t i = 0; i <= s.size(); i += 4) {  // the terminating zero included
    uint32_t w = 0;
    for (size_t b = 0; b < 4 && i + b < s.size(); ++b)
      w |= static_cast<uint32_t>(static_cast<unsigned char>(s[i + b])) << (8 * b);
    words.push_back(w);
  }
}

// Functions and module-scope variables of internal linkage (`static` in OpenCL C) keep their
// names in the linked module, so two modules' `static float twice(float)` become two functions
// of one name, and the LLVM SPIR-V reader binds every call to whichever it reads first. Their
// OpNames (debug information only) are made unique: "twice", "twice.1".
std::vector<uint32_t> uniqueGlobalNames(const std::vector<uint32_t> &words) {
  std::set<uint32_t> globals;
  for (size_t at = 5; at + 3 < words.size() && (words[at] >> 16);) {
    uint32_t count = words[at] >> 16, opcode = words[at] & 0xffff;
    if (opcode == kOpFunction && count >= 5) globals.insert(words[at + 2]);
    if (opcode == kOpVariable && count >= 4 && words[at + 3] != kStorageFunction)
      globals.insert(words[at + 2]);
    at += count;
  }
  std::vector<uint32_t> out(words.begin(), words.begin() + 5);
  std::set<std::string> taken;
  for (size_t at = 5; at < words.size();) {
    uint32_t count = words[at] >> 16, opcode = words[at] & 0xffff;
    if (count == 0 || at + count > words.size()) {  // the intake says what is wrong with it
      out.insert(out.end(), words.begin() + static_cast<std::ptrdiff_t>(at), words.end());
      break;
    }
    auto instruction = std::span(words).subspan(at, count);
    if (opcode == kOpName && count >= 3 && globals.count(instruction[1])) {
      std::string name = literalString(instruction.subspan(2)), unique = name;
      for (int n = 1; !taken.insert(unique).second; ++n) unique = fmt::format("{}.{}", name, n);
      if (unique != name) {
        std::vector<uint32_t> renamed{0, instruction[1]};
        appendLiteralString(renamed, unique);
        renamed[0] = static_cast<uint32_t>(renamed.size()) << 16 | kOpName;
        out.insert(out.end(), renamed.begin(), renamed.end());
        at += count;
        continue;
      }
    }
    out.insert(out.end(), instruction.begin(), instruction.end());
    at += count;
  }
  return out;
}

}  // namespace

std::vector<uint32_t> linkModules(std::span<const LinkInput> inputs) {
  std::vector<std::vector<uint32_t>> binaries;
  std::vector<std::string> names;
  for (const LinkInput &input : inputs) {
    binaries.push_back(toWords(input.spirv, input.name));
    names.push_back(fmt::format("'{}' ({})", input.name, names.size() + 1));
  }
  // One toolchain writes different versions by content (llvm-spirv: 1.4 for a module with
  // program-scope variables, 1.1 for one with specialization constants), and SPIRV-Tools 2023.1
  // links only modules of one version: every module is read as the highest version among
  // them, which takes every earlier module's instructions. The linked module is validated as
  // any module is when it loads.
  uint32_t version = 0;
  for (const std::vector<uint32_t> &words : binaries) version = std::max(version, words[1]);
  for (std::vector<uint32_t> &words : binaries) words[1] = version;
  // SPIR-V 1.5 as the rest of the intake: the linker only uses it to read the modules.
  spvtools::Context context(SPV_ENV_UNIVERSAL_1_5);
  std::vector<std::string> errors;
  context.SetMessageConsumer(
      [&](spv_message_level_t level, const char *, const spv_position_t &, const char *message) {
        if (level <= SPV_MSG_ERROR) errors.emplace_back(message);
      });
  // Builtins stay imported for the device's library: partial linkage, then a check that
  // nothing else is left undefined.
  spvtools::LinkerOptions options;
  options.SetVerifyIds(true);
  options.SetAllowPartialLinkage(true);
  std::vector<uint32_t> linked;
  if (spvtools::Link(context, binaries, &linked, options) == SPV_SUCCESS) {
    std::vector<std::string> undefined = readPreamble(linked, "linked").imports;
    if (!undefined.empty())
      fail(XPURT_ERROR_INVALID_MODULE,
           "linking SPIR-V modules {} failed: {} {} declared but defined by none of them; link "
           "the module that defines {} too, or define {} in one of these modules",
           fmt::join(names, ", "), fmt::join(undefined, ", "), undefined.size() == 1 ? "is" : "are",
           undefined.size() == 1 ? "it" : "them", undefined.size() == 1 ? "it" : "them");
    return uniqueGlobalNames(linked);
  }
  std::string what = errors.empty() ? "the linker gave no reason" : errors.front();
  if (what.ends_with('.')) what.pop_back();
  std::string advice = adviceFor(what);
  fail(XPURT_ERROR_INVALID_MODULE, "linking SPIR-V modules {} failed: {}{}{}",
       fmt::join(names, ", "), what, advice.empty() ? "" : "; ", advice);
}

std::vector<uint32_t> packLinkInputs(std::span<const LinkInput> inputs) {
  std::vector<uint32_t> packed{static_cast<uint32_t>(inputs.size())};
  for (const LinkInput &input : inputs) {
    toWords(input.spirv, input.name);  // refused as the linker would refuse it
    packed.push_back(static_cast<uint32_t>(input.name.size()));
    size_t at = packed.size();
    packed.resize(at + (input.name.size() + 3) / 4);
    std::memcpy(packed.data() + at, input.name.data(), input.name.size());
    packed.push_back(static_cast<uint32_t>(input.spirv.size() / 4));
    at = packed.size();
    packed.resize(at + input.spirv.size() / 4);
    std::memcpy(packed.data() + at, input.spirv.data(), input.spirv.size());
  }
  return packed;
}

std::string linkPackedModules(const std::vector<uint32_t> &packed, const std::string &name,
                              const core::ModuleOptions &) {
  std::vector<std::string> names;
  std::vector<LinkInput> inputs;
  size_t at = 1;
  auto take = [&](size_t words) {
    if (packed.empty() || words > packed.size() - at)
      fail(XPURT_ERROR_INVALID_MODULE, "linking {}: malformed request", name);
    const uint32_t *start = packed.data() + at;
    at += words;
    return start;
  };
  uint32_t count = packed.empty() ? 0 : packed[0];
  names.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t nameBytes = *take(1);
    names.emplace_back(reinterpret_cast<const char *>(take((nameBytes + size_t{3}) / 4)),
                       nameBytes);
    uint32_t words = *take(1);
    inputs.push_back({std::as_bytes(std::span(take(words), words)), names.back()});
  }
  std::vector<uint32_t> linked = linkModules(inputs);
  return std::string(reinterpret_cast<const char *>(linked.data()), linked.size() * 4);
}

LinkOnlyModule::LinkOnlyModule(core::Ref<core::Device> device, std::string name,
                               const Preamble &preamble)
    : Module(std::move(device), std::move(name)),
      imports_(preamble.imports),
      hasKernels_(!preamble.kernels.empty()) {}

core::Ref<core::Kernel> LinkOnlyModule::createKernel(const std::string &kernel) {
  if (!hasKernels_)
    fail(XPURT_ERROR_NOT_FOUND,
         "module '{}' has no kernels, so no kernel '{}': it is a library of functions to link "
         "with the modules that call them (xpurtLinkModules)",
         name(), kernel);
  fail(XPURT_ERROR_INVALID_MODULE,
       "module '{}' imports {}, which it does not define, so its kernels cannot run: link it "
       "with the modules that define {} (xpurtLinkModules) and take kernel '{}' from the "
       "linked module",
       name(), fmt::join(imports_, ", "), imports_.size() == 1 ? "it" : "them", kernel);
}

}  // namespace xpurt::spirv
