#include "spirv_rewriter.hpp"

#include "core/error.hpp"

#include <spirv-tools/libspirv.h>

#include <cstring>
#include <memory>

namespace xpurt::spirv {
namespace {

spv_result_t collect(void *user, const spv_parsed_instruction_t *parsed) {
  auto &all = *static_cast<std::vector<Instruction> *>(user);
  Instruction i{parsed->opcode,
                parsed->type_id,
                parsed->result_id,
                std::vector<uint32_t>(parsed->words, parsed->words + parsed->num_words),
                {}};
  for (uint16_t k = 0; k < parsed->num_operands; ++k) {
    const spv_parsed_operand_t &o = parsed->operands[k];
    if (o.type == SPV_OPERAND_TYPE_ID || o.type == SPV_OPERAND_TYPE_SCOPE_ID ||
        o.type == SPV_OPERAND_TYPE_MEMORY_SEMANTICS_ID)
      i.idOperands.push_back(o.offset);
  }
  all.push_back(std::move(i));
  return SPV_SUCCESS;
}

}  // namespace

std::vector<Instruction> parseInstructions(std::span<const uint32_t> words,
                                           const std::string &name) {
  std::unique_ptr<spv_context_t, void (*)(spv_context)> context(
      spvContextCreate(SPV_ENV_UNIVERSAL_1_6), spvContextDestroy);
  std::vector<Instruction> all;
  spv_diagnostic diagnostic = nullptr;
  spv_result_t parsed = spvBinaryParse(context.get(), &all, words.data(), words.size(), nullptr,
                                       collect, &diagnostic);
  spvDiagnosticDestroy(diagnostic);
  if (parsed != SPV_SUCCESS || words.size() < 5)
    core::fail(XPURT_ERROR_INVALID_MODULE, "SPIR-V module '{}' cannot be parsed", name);
  return all;
}

std::string literalString(const Instruction &i, size_t firstWord) {
  if (i.words.size() <= firstWord) return {};
  const char *text = reinterpret_cast<const char *>(i.words.data() + firstWord);
  return std::string(text, strnlen(text, (i.words.size() - firstWord) * 4));
}

bool inPreambleDebugOrAnnotations(uint16_t opcode) {
  static constexpr uint16_t kOpcodes[] = {2,  3,  4,  5,  6,  7,  10,  11,  14,  15,   16,
                                          17, 71, 72, 73, 74, 75, 330, 331, 332, 5632, 5633};
  return std::binary_search(std::begin(kOpcodes), std::end(kOpcodes), opcode);
}

}  // namespace xpurt::spirv
