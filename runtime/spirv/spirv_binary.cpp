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
constexpr uint32_t kOpDecorate = 71, kDecorationAlignment = 44;
constexpr uint32_t kDecorationBuiltInWord = 11, kDecorationLinkageAttributes = 41;
constexpr uint32_t kLinkageExport = 0, kLinkageImport = 1;
constexpr uint32_t kOpVariable = 59;
constexpr uint32_t kOpLoad = 61, kOpStore = 62, kOpCopyMemory = 63, kOpCopyMemorySized = 64;
constexpr uint32_t kMemoryAccessVolatile = 0x1, kMemoryAccessAligned = 0x2;

bool powerOfTwo(uint32_t v) {
  return v != 0 && (v & (v - 1)) == 0;
}

// Alignments the validator accepts but LLVM cannot represent (it asserts on them).
void checkAlignments(std::span<const uint32_t> words, const std::string &name) {
  for (size_t at = 5; at < words.size();) {
    uint32_t count = words[at] >> 16, opcode = words[at] & 0xffff;
    if (count == 0 || at + count > words.size()) return;  // readPreamble / the validator say why
    auto ops = words.subspan(at + 1, count - 1);
    uint32_t alignment = 0;
    if (opcode == kOpDecorate && ops.size() >= 3 && ops[1] == kDecorationAlignment)
      alignment = ops[2];
    // Memory operands: the mask follows the fixed operands; Aligned's literal follows it.
    size_t fixed = opcode == kOpLoad                               ? 3
                   : opcode == kOpStore || opcode == kOpCopyMemory ? 2
                   : opcode == kOpCopyMemorySized                  ? 3
                                                                   : 0;
    if (fixed && ops.size() > fixed && (ops[fixed] & kMemoryAccessAligned) &&
        ops.size() > fixed + 1)
      alignment = ops[fixed + 1];
    (void)kMemoryAccessVolatile;
    if ((opcode == kOpDecorate && ops.size() >= 3 && ops[1] == kDecorationAlignment) ||
        (fixed && ops.size() > fixed && (ops[fixed] & kMemoryAccessAligned)))
      if (!powerOfTwo(alignment))
        fail(XPURT_ERROR_INVALID_MODULE,
             "SPIR-V module '{}': alignment {} (instruction at word {}) is not a power of two",
             name, alignment, at);
    at += count;
  }
}

}  // namespace

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
  std::vector<std::pair<uint32_t, std::string>> imports;  // target id, name
  std::vector<uint32_t> builtIns, variables;
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
    if (opcode == kOpDecorate && count >= 3 && operands[1] == kDecorationBuiltInWord)
      builtIns.push_back(operands[0]);
    if (opcode == kOpDecorate && count >= 5 && operands[1] == kDecorationLinkageAttributes) {
      // The name is a string literal; the linkage type is the word after it.
      std::string symbol = literalString(operands.subspan(2));
      size_t typeAt = 2 + symbol.size() / 4 + 1;
      if (typeAt < operands.size() && operands[typeAt] == kLinkageImport)
        imports.emplace_back(operands[0], std::move(symbol));
      else if (typeAt < operands.size() && operands[typeAt] == kLinkageExport)
        p.exports.push_back(std::move(symbol));
    }
    if (opcode == kOpVariable && count >= 4) variables.push_back(operands[1]);
    if (opcode == kOpFunction) break;  // the preamble is over
    at += count;
  }
  auto contains = [](const std::vector<uint32_t> &ids, uint32_t id) {
    return std::find(ids.begin(), ids.end(), id) != ids.end();
  };
  for (auto &[id, symbol] : imports) {
    if (contains(builtIns, id)) continue;
    // Translators declare the builtins they do not turn into instructions as imported
    // functions of reserved names (mangled `_Z...`, `__spirv_...`), and LLVM intrinsics they
    // have no instruction for (`llvm.usub.sat.i32`) as imports of the intrinsic's name: the
    // device's compiler defines those, not another module.
    bool reserved =
        symbol.rfind("_Z", 0) == 0 || symbol.rfind("__", 0) == 0 || symbol.rfind("llvm.", 0) == 0;
    if (contains(variables, id) || !reserved) p.imports.push_back(std::move(symbol));
  }
  return p;
}

namespace {
struct CapabilityName {
  uint32_t value;
  const char *name;
  const char *extension;  // the SPV_* extension that declares it; empty for core ones
};
constexpr CapabilityName kCapabilityNames[] = {
#include "spirv_capability_names.inc"
};

const CapabilityName *findCapability(uint32_t c) {
  auto *end = std::end(kCapabilityNames);
  auto *it = std::lower_bound(std::begin(kCapabilityNames), end, c,
                              [](const CapabilityName &n, uint32_t v) { return n.value < v; });
  return it != end && it->value == c ? it : nullptr;
}
}  // namespace

std::string capabilityName(uint32_t c) {
  const CapabilityName *n = findCapability(c);
  if (!n) return fmt::format("{} (a capability SPIR-V's grammar does not name)", c);
  // Values from 4400 on belong to extensions (the core ones lie below): say which.
  if (c >= 4400 && *n->extension) return fmt::format("{} ({}, {})", n->name, n->extension, c);
  return fmt::format("{} ({})", n->name, c);
}

void checkSupported(const Preamble &preamble, std::span<const uint32_t> supported,
                    const std::string &device, const std::string &name) {
  for (uint32_t c : preamble.capabilities)
    if (std::find(supported.begin(), supported.end(), c) == supported.end())
      fail(XPURT_ERROR_UNSUPPORTED,
           "SPIR-V module '{}' declares capability {}, which the {} device does not support", name,
           capabilityName(c), device);
  if (preamble.addressingModel != 2 || preamble.memoryModel != 2)
    fail(XPURT_ERROR_UNSUPPORTED,
         "SPIR-V module '{}' uses addressing model {} and memory model {}; the {} device runs "
         "OpenCL kernels (Physical64 addressing = 2, OpenCL memory model = 2)",
         name, preamble.addressingModel, preamble.memoryModel, device);
  if (preamble.kernels.empty() && preamble.exports.empty())
    fail(XPURT_ERROR_INVALID_MODULE,
         "SPIR-V module '{}' has no kernel entry points and exports no function or variable "
         "for linking",
         name);
}

std::vector<std::string> validate(std::span<const uint32_t> words, const std::string &name) {
  std::unique_ptr<spv_context_t, void (*)(spv_context)> context(
      spvContextCreate(SPV_ENV_UNIVERSAL_1_5), spvContextDestroy);
  spv_diagnostic diagnostic = nullptr;
  spv_result_t result = spvValidateBinary(context.get(), words.data(), words.size(), &diagnostic);
  std::string message = diagnostic && diagnostic->error ? diagnostic->error : "";
  spvDiagnosticDestroy(diagnostic);
  if (result == SPV_SUCCESS) return {};
  // Findings the reader tolerates, logged instead: what llvm-spirv-15 emits for optimised but
  // valid programs (see docs/ARCHITECTURE.md), and gaps of SPIRV-Tools 2023.1 fixed upstream
  // later (SPV_INTEL_memory_access_aliasing's declarations live outside blocks).
  static const std::pair<const char *, const char *> tolerated[] = {
      {"before its dominator", "a layout problem"},
      {"has not been defined", "a layout problem"},
      {"must be the first instruction", "a layout problem"},
      {"Variables must be declared", "a layout problem"},
      {"AliasDomainDeclINTEL must appear in a block", "a known gap of SPIRV-Tools 2023.1"},
      {"AliasScopeDeclINTEL must appear in a block", "a known gap of SPIRV-Tools 2023.1"},
      {"AliasScopeListDeclINTEL must appear in a block", "a known gap of SPIRV-Tools 2023.1"}};
  for (auto [pattern, kind] : tolerated)
    if (message.find(pattern) != std::string::npos)
      return {
          fmt::format("SPIR-V module '{}': the validator reports {}, which the reader "
                      "tolerates: {}",
                      name, kind, message)};
  fail(XPURT_ERROR_INVALID_MODULE, "SPIR-V module '{}' is not valid: {}", name, message);
}

namespace {

// Every id an instruction refers to must be defined somewhere: the validator reports an
// undefined id and an id used before its definition with the same words, and tolerating the
// second (see validate) must not let the first through. Before the first function (types,
// constants, variables), where the translator reads in order, an id must be defined before it
// is used, and a result type must be a type: the translator aborts on anything else.
// No real module comes near this many ids (it would take far more than 256 MB); the id
// tables below are sized by the bound, so a larger one is refused rather than allocated.
constexpr uint32_t kMaxIdBound = uint32_t{1} << 26;

struct IdUse {
  explicit IdUse(uint32_t idBound)
      : bound(idBound),
        defined(idBound),
        used(idBound),
        isType(idBound),
        isFunction(idBound),
        calledAsFunction(idBound),
        forwardPointer(idBound) {}
  uint32_t bound;  // every id is in [1, bound)
  std::vector<bool> defined, used, isType;
  // Named by OpEntryPoint or OpFunctionCall: the linker and the translator follow these to an
  // OpFunction without looking.
  std::vector<bool> isFunction, calledAsFunction;
  std::vector<bool> forwardPointer;  // declared by OpTypeForwardPointer
  bool inFunctions = false;
  size_t badString = 0;     // word offset of a string whose padding is not zero, + 1
  uint64_t badOrder = 0;    // an id used before its definition outside functions, + 1
  uint64_t notAType = 0;    // an id used as a result type that is no type, + 1
  uint64_t outOfBound = 0;  // an id of 0 or past the bound, + 1
};

bool at(const std::vector<bool> &v, uint32_t id) {
  return id < v.size() && v[id];
}

// Opcodes that may name ids defined later: debug, annotation and entry point instructions.
bool mayReferAhead(uint32_t opcode) {
  switch (opcode) {
    case 3:
    case 5:
    case 6:
    case 8:
    case 15:
    case 16:
    case 71:
    case 72:
    case 73:
    case 74:
    case 75:
    case 330:
    case 331:
    case 332:
    case 5632:
    case 5633:
      return true;
    default:
      return false;
  }
}

bool definesType(uint32_t opcode) {
  return (opcode >= 19 && opcode <= 38) || opcode == 322 || opcode == 327 || opcode == 4456 ||
         opcode == 5341 || opcode == 5358 || (opcode >= 5700 && opcode <= 5713) || opcode == 6086;
}

spv_result_t recordIds(void *user, const spv_parsed_instruction_t *inst) {
  auto &ids = *static_cast<IdUse *>(user);
  // Ids index the tables: one outside [1, bound) is noted instead, and the module refused.
  auto inBound = [&ids](uint32_t id) {
    if (id != 0 && id < ids.bound) return true;
    if (!ids.outOfBound) ids.outOfBound = uint64_t{id} + 1;
    return false;
  };
  auto mark = [&](std::vector<bool> &v, uint32_t id) {
    if (inBound(id)) v[id] = true;
  };
  if (inst->opcode == 54) {  // OpFunction
    ids.inFunctions = true;
    mark(ids.isFunction, inst->result_id);
  }
  if ((inst->opcode == 15 && inst->num_operands > 1) ||  // OpEntryPoint
      (inst->opcode == 57 && inst->num_operands > 2))    // OpFunctionCall
    mark(ids.calledAsFunction, inst->words[inst->operands[inst->opcode == 15 ? 1 : 2].offset]);
  if (inst->opcode == 39 && inst->num_operands > 0)  // OpTypeForwardPointer
    mark(ids.forwardPointer, inst->words[inst->operands[0].offset]);
  for (uint16_t i = 0; i < inst->num_operands; ++i) {
    const spv_parsed_operand_t &op = inst->operands[i];
    switch (op.type) {
      case SPV_OPERAND_TYPE_TYPE_ID:
        if (!ids.notAType && !at(ids.isType, inst->words[op.offset]))
          ids.notAType = uint64_t{inst->words[op.offset]} + 1;
        [[fallthrough]];
      case SPV_OPERAND_TYPE_ID:
      case SPV_OPERAND_TYPE_MEMORY_SEMANTICS_ID:
      case SPV_OPERAND_TYPE_SCOPE_ID: {
        uint32_t id = inst->words[op.offset];
        mark(ids.used, id);
        if (!ids.inFunctions && !ids.badOrder && !mayReferAhead(inst->opcode) &&
            inst->opcode != 39 && !at(ids.defined, id) && !at(ids.forwardPointer, id))
          ids.badOrder = uint64_t{id} + 1;
        break;
      }
      case SPV_OPERAND_TYPE_LITERAL_STRING: {
        // The translator insists that the bytes after the terminating NUL are NUL too.
        bool ended = false;
        for (uint16_t w = 0; w < op.num_words; ++w)
          for (int b = 0; b < 4; ++b) {
            char c = static_cast<char>((inst->words[op.offset + w] >> (8 * b)) & 0xff);
            if (ended && c) ids.badString = op.offset + 1;
            ended = ended || !c;
          }
        break;
      }
      default:
        break;
    }
  }
  if (inst->result_id) {
    mark(ids.defined, inst->result_id);
    if (definesType(inst->opcode)) mark(ids.isType, inst->result_id);
  }
  return SPV_SUCCESS;
}

void checkIdsDefined(std::span<const uint32_t> words, const std::string &name) {
  std::unique_ptr<spv_context_t, void (*)(spv_context)> context(
      spvContextCreate(SPV_ENV_UNIVERSAL_1_5), spvContextDestroy);
  uint32_t bound = words.size() > 3 ? words[3] : 0;
  if (bound > kMaxIdBound)
    fail(XPURT_ERROR_INVALID_MODULE,
         "SPIR-V module '{}' declares an id bound of {} in its header; xpurt takes modules of "
         "at most {} ids",
         name, bound, kMaxIdBound);
  IdUse ids(bound);
  spv_diagnostic diagnostic = nullptr;
  spv_result_t r = spvBinaryParse(context.get(), &ids, words.data(), words.size(), nullptr,
                                  recordIds, &diagnostic);
  std::string message = diagnostic && diagnostic->error ? diagnostic->error : "";
  spvDiagnosticDestroy(diagnostic);
  if (r != SPV_SUCCESS)
    fail(XPURT_ERROR_INVALID_MODULE, "SPIR-V module '{}' cannot be parsed: {}", name, message);
  if (ids.outOfBound)
    fail(XPURT_ERROR_INVALID_MODULE,
         "SPIR-V module '{}' uses id %{}, outside the id bound {} of its header (every id is "
         "at least 1 and below the bound)",
         name, ids.outOfBound - 1, bound);
  if (ids.badString)
    fail(XPURT_ERROR_INVALID_MODULE,
         "SPIR-V module '{}': a string literal is not padded with zero bytes", name);
  for (size_t id = 0; id < ids.used.size(); ++id)
    if (ids.used[id] && (id >= ids.defined.size() || !ids.defined[id]))
      fail(XPURT_ERROR_INVALID_MODULE, "SPIR-V module '{}' uses id %{}, which it never defines",
           name, id);
  if (ids.badOrder)
    fail(XPURT_ERROR_INVALID_MODULE,
         "SPIR-V module '{}' uses id %{} among its types, constants and variables before "
         "defining it",
         name, ids.badOrder - 1);
  if (ids.notAType)
    fail(XPURT_ERROR_INVALID_MODULE, "SPIR-V module '{}' uses id %{} as a type, which it is not",
         name, ids.notAType - 1);
  for (size_t id = 0; id < ids.calledAsFunction.size(); ++id)
    if (ids.calledAsFunction[id] && !ids.isFunction[id])
      fail(XPURT_ERROR_INVALID_MODULE,
           "SPIR-V module '{}' names id %{} as an entry point or calls it, but it is no function",
           name, id);
}

}  // namespace

void checkTranslatable(std::span<const uint32_t> words, const std::string &name) {
  checkAlignments(words, name);
  checkIdsDefined(words, name);
}

namespace {

// `capabilities` null: those the module declares.
CheckedModule checkIntake(std::span<const std::byte> bytes, const std::string &name,
                          const std::span<const uint32_t> *capabilities,
                          const std::string &device) {
  CheckedModule checked;
  checked.words = toWords(bytes, name);
  checked.preamble = readPreamble(checked.words, name);
  const Preamble &preamble = checked.preamble;
  checkSupported(preamble, capabilities ? *capabilities : preamble.capabilities, device, name);
  checked.warnings = validate(checked.words, name);
  checkTranslatable(checked.words, name);
  return checked;
}

}  // namespace

CheckedModule checkModule(std::span<const std::byte> bytes, const std::string &name,
                          std::span<const uint32_t> capabilities, const std::string &device) {
  return checkIntake(bytes, name, &capabilities, device);
}

CheckedModule checkModule(std::span<const std::byte> bytes, const std::string &name,
                          const std::string &device) {
  return checkIntake(bytes, name, nullptr, device);
}

}  // namespace xpurt::spirv
