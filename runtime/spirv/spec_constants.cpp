#include "spec_constants.hpp"

#include "core/error.hpp"

#include <spirv-tools/libspirv.h>

#include <map>
#include <memory>

namespace xpurt::spirv {
namespace {

constexpr uint32_t kOpDecorate = 71, kDecorationSpecId = 1, kOpTypeBool = 20, kOpTypeInt = 21,
                   kOpTypeFloat = 22, kOpSpecConstantTrue = 48, kOpSpecConstantFalse = 49,
                   kOpSpecConstant = 50;

struct Declared {
  std::map<uint32_t, uint32_t> specIdOf;  // result id -> SpecId
  std::map<uint32_t, uint32_t> typeOf;    // spec constant result id -> type id
  std::map<uint32_t, uint32_t> widthOf;   // type id -> bits (bool: 1)
  std::map<uint32_t, uint32_t> kindOf;    // type id -> opcode
};

spv_result_t record(void *user, const spv_parsed_instruction_t *inst) {
  auto &d = *static_cast<Declared *>(user);
  auto word = [&](uint16_t operand) { return inst->words[inst->operands[operand].offset]; };
  switch (inst->opcode) {
    case kOpDecorate:
      if (inst->num_operands >= 3 && word(1) == kDecorationSpecId) d.specIdOf[word(0)] = word(2);
      break;
    case kOpTypeBool:
      d.widthOf[inst->result_id] = 1;
      d.kindOf[inst->result_id] = kOpTypeBool;
      break;
    case kOpTypeInt:
    case kOpTypeFloat:
      if (inst->num_operands >= 2) {
        d.widthOf[inst->result_id] = word(1);
        d.kindOf[inst->result_id] = inst->opcode;
      }
      break;
    case kOpSpecConstantTrue:
    case kOpSpecConstantFalse:
    case kOpSpecConstant:
      d.typeOf[inst->result_id] = inst->type_id;
      break;
    default:
      break;
  }
  return SPV_SUCCESS;
}

bool fits(uint64_t value, uint32_t bits, bool isInteger) {
  if (bits >= 64) return true;
  uint64_t high = value >> bits;
  if (high == 0) return true;
  // A negative integer given sign-extended to 64 bits.
  return isInteger && bits > 0 && high == (~uint64_t{0} >> bits) && ((value >> (bits - 1)) & 1);
}

}  // namespace

std::map<uint32_t, SpecConstantType> declaredSpecConstants(std::span<const uint32_t> words,
                                                           const std::string &name) {
  std::unique_ptr<spv_context_t, void (*)(spv_context)> context(
      spvContextCreate(SPV_ENV_UNIVERSAL_1_5), spvContextDestroy);
  Declared d;
  spv_diagnostic diagnostic = nullptr;
  spv_result_t r =
      spvBinaryParse(context.get(), &d, words.data(), words.size(), nullptr, record, &diagnostic);
  spvDiagnosticDestroy(diagnostic);
  if (r != SPV_SUCCESS)
    core::fail(XPURT_ERROR_INVALID_MODULE, "SPIR-V module '{}' cannot be parsed", name);
  std::map<uint32_t, SpecConstantType> declared;
  for (auto [result, type] : d.typeOf) {
    auto id = d.specIdOf.find(result);
    if (id == d.specIdOf.end()) continue;
    uint32_t kind = d.kindOf.count(type) ? d.kindOf[type] : 0;
    declared[id->second] = {d.widthOf.count(type) ? d.widthOf[type] : 64,
                            kind == kOpTypeBool    ? SpecConstantType::Kind::Bool
                            : kind == kOpTypeInt   ? SpecConstantType::Kind::Integer
                            : kind == kOpTypeFloat ? SpecConstantType::Kind::Float
                                                   : SpecConstantType::Kind::Other};
  }
  return declared;
}

std::vector<std::pair<uint32_t, uint64_t>> checkSpecConstants(
    std::span<const uint32_t> words, std::span<const std::pair<uint32_t, uint64_t>> values,
    const std::string &name) {
  std::vector<std::pair<uint32_t, uint64_t>> cut;
  if (values.empty()) return cut;
  std::map<uint32_t, SpecConstantType> declared = declaredSpecConstants(words, name);
  for (auto [id, value] : values) {
    auto it = declared.find(id);
    if (it == declared.end()) {
      std::string ids;
      for (auto [known, type] : declared) ids += (ids.empty() ? "" : ", ") + std::to_string(known);
      core::fail(XPURT_ERROR_INVALID_ARGUMENT,
                 "module '{}' has no specialization constant with id {} (its ids: {})", name, id,
                 ids.empty() ? "none" : ids);
    }
    auto [bits, kind] = it->second;
    if (!fits(value, bits, kind == SpecConstantType::Kind::Integer))
      core::fail(XPURT_ERROR_INVALID_ARGUMENT,
                 "specialization constant {} of module '{}' is a {}-bit {}; the value {:#x} does "
                 "not fit in it",
                 id, name, bits,
                 kind == SpecConstantType::Kind::Bool    ? "bool"
                 : kind == SpecConstantType::Kind::Float ? "float"
                                                         : "integer",
                 value);
    cut.emplace_back(id, bits >= 64 ? value : value & ((uint64_t{1} << bits) - 1));
  }
  return cut;
}

}  // namespace xpurt::spirv
