#include "extension_lowering.hpp"

#include "core/error.hpp"

#include <spirv-tools/libspirv.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <utility>

namespace xpurt::spirv {
namespace {

namespace op {
constexpr uint16_t Extension = 10, EntryPoint = 15, Capability = 17, TypeInt = 21, TypeVector = 23,
                   TypePointer = 32, Constant = 43, ConstantComposite = 44, Function = 54,
                   Variable = 59, Load = 61, Decorate = 71, VectorShuffle = 79,
                   CompositeInsert = 82, CopyObject = 83, Undef = 1, UConvert = 113, Bitcast = 124,
                   IAdd = 128, ISub = 130, IMul = 132, UMod = 137, ShiftRightLogical = 194,
                   ShiftLeftLogical = 196, BitwiseOr = 197, BitwiseXor = 198, BitwiseAnd = 199,
                   Not = 200, BitFieldInsert = 201, BitFieldSExtract = 202, BitFieldUExtract = 203,
                   BitReverse = 204, BitCount = 205, GroupNonUniformShuffle = 345,
                   GroupNonUniformRotateKHR = 4431;
}  // namespace op

constexpr uint32_t kCapabilityShader = 1, kCapabilityGroupNonUniform = 61,
                   kCapabilityGroupNonUniformShuffle = 65, kCapabilityBitInstructions = 6025,
                   kCapabilityGroupNonUniformRotateKHR = 6026, kDecorationBuiltIn = 11,
                   kBuiltInSubgroupSize = 36, kBuiltInSubgroupLocalInvocationId = 41,
                   kStorageInput = 1, kVersion1_3 = 0x00010300;
constexpr const char *kBitInstructions = "SPV_KHR_bit_instructions";
constexpr const char *kSubgroupRotate = "SPV_KHR_subgroup_rotate";

struct Instruction {
  uint16_t opcode = 0;
  uint32_t type = 0, result = 0;
  std::vector<uint32_t> words;  // the whole instruction, first word included
};

spv_result_t collect(void *user, const spv_parsed_instruction_t *parsed) {
  auto &all = *static_cast<std::vector<Instruction> *>(user);
  all.push_back({parsed->opcode, parsed->type_id, parsed->result_id,
                 std::vector<uint32_t>(parsed->words, parsed->words + parsed->num_words)});
  return SPV_SUCCESS;
}

std::string literalString(const Instruction &i, size_t firstWord) {
  if (i.words.size() <= firstWord) return {};
  const char *text = reinterpret_cast<const char *>(i.words.data() + firstWord);
  return std::string(text, strnlen(text, (i.words.size() - firstWord) * 4));
}

// Capabilities, extensions, imports, memory model, entry points, execution modes, debug
// names and sources, decorations: what comes before types, constants and global variables.
bool inPreambleDebugOrAnnotations(uint16_t opcode) {
  static constexpr uint16_t kOpcodes[] = {2,  3,  4,  5,  6,  7,  10,  11,  14,  15,   16,
                                          17, 71, 72, 73, 74, 75, 330, 331, 332, 5632, 5633};
  return std::binary_search(std::begin(kOpcodes), std::end(kOpcodes), opcode);
}

// A module being rewritten: what it declares, the instructions added to its global sections,
// and the function bodies written anew.
class Rewriter {
 public:
  Rewriter(std::vector<Instruction> all, uint32_t bound) : all_(std::move(all)), bound_(bound) {
    for (const Instruction &i : all_) {
      if (i.type && i.result) typeOf_[i.result] = i.type;
      switch (i.opcode) {
        case op::Capability:
          capabilities_.insert(i.words[1]);
          break;
        case op::TypeInt:
          ints_.emplace(std::pair{i.words[2], i.words[3]}, i.result);
          widthOf_[i.result] = i.words[2];
          break;
        case op::TypeVector:
          vectors_.emplace(std::pair{i.words[2], i.words[3]}, i.result);
          vectorOf_[i.result] = {i.words[2], i.words[3]};
          break;
        case op::TypePointer:
          pointers_.emplace(std::pair{i.words[2], i.words[3]}, i.result);
          pointeeOf_[i.result] = i.words[3];
          break;
        case op::Decorate:
          if (i.words.size() >= 4 && i.words[2] == kDecorationBuiltIn)
            builtins_.emplace(i.words[3], i.words[1]);
          break;
        default:
          break;
      }
    }
  }

  bool declares(uint32_t capability) const { return capabilities_.count(capability) != 0; }

  // Rewrites every instruction `lower` takes (it returns false to keep one) in the function
  // bodies; returns how many were rewritten.
  template <typename Lower>
  size_t rewriteFunctions(Lower &&lower) {
    size_t rewritten = 0;
    std::vector<Instruction> body;
    for (const Instruction &i : all_) {
      if (i.opcode == op::Function) inFunctions_ = true;
      if (!inFunctions_) continue;
      body_ = &body;
      if (lower(*this, i))
        ++rewritten;
      else
        body.push_back(i);
    }
    functions_ = std::move(body);
    return rewritten;
  }

  // The rewritten module: capabilities and extensions changed as asked, new interface
  // variables on every entry point, new decorations and globals in their sections.
  std::vector<uint32_t> assemble(const std::vector<uint32_t> &header,
                                 const std::set<uint32_t> &dropCapabilities,
                                 const std::set<std::string> &dropExtensions) {
    std::vector<uint32_t> out(header);
    out[3] = bound_;
    auto put = [&](const Instruction &i) { out.insert(out.end(), i.words.begin(), i.words.end()); };
    bool capabilitiesAdded = false, decorationsAdded = false;
    for (const Instruction &i : all_) {
      if (i.opcode == op::Function) break;
      if (i.opcode == op::Capability) {
        if (!capabilitiesAdded) {
          for (uint32_t c : addedCapabilities_) put(make(op::Capability, 0, 0, {c}));
          capabilitiesAdded = true;
        }
        if (dropCapabilities.count(i.words[1])) continue;
      }
      if (i.opcode == op::Extension && dropExtensions.count(literalString(i, 1))) continue;
      if (!decorationsAdded && !inPreambleDebugOrAnnotations(i.opcode)) {
        for (const Instruction &d : decorations_) put(d);
        decorationsAdded = true;
      }
      if (i.opcode == op::EntryPoint && !interface_.empty()) {
        // Every entry point lists the built-ins the rewritten code reads: which functions an
        // entry point calls is not worth finding out for an unused Input variable.
        std::vector<uint32_t> operands(i.words.begin() + 1, i.words.end());
        size_t listed = 2 + literalString(i, 3).size() / 4 + 1;
        std::set<uint32_t> present(operands.begin() + std::min(listed, operands.size()),
                                   operands.end());
        for (uint32_t v : interface_)
          if (!present.count(v)) operands.push_back(v);
        put(make(op::EntryPoint, 0, 0, operands));
        continue;
      }
      put(i);
    }
    if (!decorationsAdded)
      for (const Instruction &d : decorations_) put(d);
    for (const Instruction &g : globals_) put(g);
    for (const Instruction &f : functions_) put(f);
    return out;
  }

  // --- Types, constants and variables, found or added to the global section ---------------

  uint32_t intType(uint32_t width) {
    if (auto it = ints_.find({width, 0}); it != ints_.end()) return it->second;
    uint32_t id = global(op::TypeInt, 0, {width, 0});
    ints_.emplace(std::pair{width, 0u}, id);
    widthOf_[id] = width;
    return id;
  }

  uint32_t pointerType(uint32_t storage, uint32_t pointee) {
    if (auto it = pointers_.find({storage, pointee}); it != pointers_.end()) return it->second;
    uint32_t id = global(op::TypePointer, 0, {storage, pointee});
    pointers_.emplace(std::pair{storage, pointee}, id);
    pointeeOf_[id] = pointee;
    return id;
  }

  // The scalar integer type of `type`'s components, and how many there are.
  std::optional<std::pair<uint32_t, uint32_t>> integerComponents(uint32_t type) const {
    uint32_t scalar = type, count = 1;
    if (auto v = vectorOf_.find(type); v != vectorOf_.end()) std::tie(scalar, count) = v->second;
    if (!widthOf_.count(scalar)) return std::nullopt;
    return std::pair{scalar, count};
  }

  uint32_t widthOf(uint32_t intType) const { return widthOf_.at(intType); }
  uint32_t typeOf(uint32_t id) const {
    auto it = typeOf_.find(id);
    return it == typeOf_.end() ? 0 : it->second;
  }

  uint32_t constant(uint32_t scalarType, uint64_t value) {
    uint32_t width = widthOf(scalarType);
    if (width < 64) value &= (uint64_t{1} << width) - 1;
    auto key = std::pair{scalarType, value};
    if (auto it = constants_.find(key); it != constants_.end()) return it->second;
    std::vector<uint32_t> literal{uint32_t(value)};
    if (width > 32) literal.push_back(uint32_t(value >> 32));
    uint32_t id = global(op::Constant, scalarType, literal);
    constants_.emplace(key, id);
    return id;
  }

  // `value` in every component of `type` (a scalar integer type or a vector of one).
  uint32_t constantOf(uint32_t type, uint64_t value) {
    auto [scalar, count] = *integerComponents(type);
    uint32_t c = constant(scalar, value);
    if (count == 1) return c;
    auto key = std::pair{type, value};
    if (auto it = composites_.find(key); it != composites_.end()) return it->second;
    uint32_t id = global(op::ConstantComposite, type, std::vector<uint32_t>(count, c));
    composites_.emplace(key, id);
    return id;
  }

  // The Input variable of a 32-bit integer built-in, declared if the module has none.
  uint32_t builtinVariable(uint32_t builtin) {
    if (auto it = builtins_.find(builtin); it != builtins_.end()) {
      uint32_t pointer = typeOf(it->second);
      auto pointee = pointeeOf_.find(pointer);
      if (pointee != pointeeOf_.end() && widthOf_.count(pointee->second) &&
          widthOf(pointee->second) == 32) {
        if (std::find(interface_.begin(), interface_.end(), it->second) == interface_.end())
          interface_.push_back(it->second);
        return it->second;
      }
    }
    uint32_t u32 = intType(32);
    uint32_t id = global(op::Variable, pointerType(kStorageInput, u32), {kStorageInput});
    decorations_.push_back(make(op::Decorate, 0, 0, {id, kDecorationBuiltIn, builtin}));
    builtins_[builtin] = id;
    interface_.push_back(id);
    return id;
  }

  void requireCapability(uint32_t capability) {
    if (capabilities_.insert(capability).second) addedCapabilities_.push_back(capability);
  }

  // --- Instructions in the function being rewritten -----------------------------------------

  // Appends an instruction with a result; `result` 0 takes a new id.
  uint32_t emit(uint16_t opcode, uint32_t type, const std::vector<uint32_t> &operands,
                uint32_t result = 0) {
    if (!result) result = bound_++;
    body_->push_back(make(opcode, type, result, operands));
    typeOf_[result] = type;
    return result;
  }

  // `value` (any scalar integer) as `scalarType`.
  uint32_t convertScalar(uint32_t value, uint32_t scalarType) {
    uint32_t from = typeOf(value);
    if (from == scalarType) return value;
    bool sameWidth = widthOf_.count(from) && widthOf(from) == widthOf(scalarType);
    return emit(sameWidth ? op::Bitcast : op::UConvert, scalarType, {value});
  }

  // A scalar in every component of `type`: inserted into an undefined vector and shuffled,
  // as the LLVM translator writes it (its reader builds OpCompositeConstruct from constants
  // only).
  uint32_t splat(uint32_t scalar, uint32_t type) {
    auto [component, count] = *integerComponents(type);
    if (count == 1) return scalar;
    auto undefined = undefined_.find(type);
    if (undefined == undefined_.end())
      undefined = undefined_.emplace(type, global(op::Undef, type, {})).first;
    uint32_t first = emit(op::CompositeInsert, type, {scalar, undefined->second, 0});
    std::vector<uint32_t> operands{first, first};
    operands.resize(2 + count, 0);  // component 0 of the first vector, everywhere
    return emit(op::VectorShuffle, type, operands);
  }

  // Shifts by an amount that may equal the width (all bits out), in two legal halves.
  uint32_t shift(uint16_t opcode, uint32_t type, uint32_t value, uint32_t amount) {
    uint32_t half = emit(op::ShiftRightLogical, type, {amount, constantOf(type, 1)});
    uint32_t rest = emit(op::ISub, type, {amount, half});
    return emit(opcode, type, {emit(opcode, type, {value, half}), rest});
  }

 private:
  static Instruction make(uint16_t opcode, uint32_t type, uint32_t result,
                          const std::vector<uint32_t> &operands) {
    Instruction i{opcode, type, result, {0}};
    if (type) i.words.push_back(type);
    if (result) i.words.push_back(result);
    i.words.insert(i.words.end(), operands.begin(), operands.end());
    i.words[0] = uint32_t(i.words.size()) << 16 | opcode;
    return i;
  }

  uint32_t global(uint16_t opcode, uint32_t type, const std::vector<uint32_t> &operands) {
    uint32_t id = bound_++;
    globals_.push_back(make(opcode, type, id, operands));
    if (type) typeOf_[id] = type;
    return id;
  }

  std::vector<Instruction> all_;
  uint32_t bound_;
  bool inFunctions_ = false;
  std::vector<Instruction> *body_ = nullptr;
  std::vector<Instruction> functions_, globals_, decorations_;
  std::vector<uint32_t> interface_, addedCapabilities_;
  std::set<uint32_t> capabilities_;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> ints_, vectors_, pointers_;
  std::map<std::pair<uint32_t, uint64_t>, uint32_t> constants_, composites_;
  std::map<uint32_t, uint32_t> widthOf_, pointeeOf_, typeOf_, builtins_, undefined_;
  std::map<uint32_t, std::pair<uint32_t, uint32_t>> vectorOf_;
};

// A mask of `width` bits with bit i set where (i / step) is even: 0x55.. for 1, 0x33.. for 2.
uint64_t alternatingMask(uint32_t width, uint32_t step) {
  uint64_t mask = 0;
  for (uint32_t i = 0; i < width; ++i)
    if ((i / step) % 2 == 0) mask |= uint64_t{1} << i;
  return mask;
}

// (1 << count) - 1 as a scalar of `scalar`'s type, for any count up to the width.
uint32_t lowBits(Rewriter &r, uint32_t scalar, uint32_t count) {
  uint32_t ones = r.shift(op::ShiftLeftLogical, scalar, r.constant(scalar, 1), count);
  return r.emit(op::ISub, scalar, {ones, r.constant(scalar, 1)});
}

// The bit-field instructions: Base's components are 8 to 64 bits; Offset and Count are
// scalars of any integer type, and a field reaches at most the top bit.
bool lowerBitInstruction(Rewriter &r, const Instruction &i) {
  auto components = r.integerComponents(i.type);
  if (!components) return false;
  auto [scalar, count] = *components;
  uint32_t width = r.widthOf(scalar), type = i.type;
  if (width != 8 && width != 16 && width != 32 && width != 64) return false;
  auto c = [&](uint64_t v) { return r.constantOf(type, v); };
  auto bin = [&](uint16_t opcode, uint32_t a, uint32_t b, uint32_t result = 0) {
    return r.emit(opcode, type, {a, b}, result);
  };
  const std::vector<uint32_t> &w = i.words;
  switch (i.opcode) {
    case op::BitFieldUExtract:
    case op::BitFieldSExtract: {
      uint32_t offset = r.convertScalar(w[4], scalar), bits = r.convertScalar(w[5], scalar);
      uint32_t mask = lowBits(r, scalar, bits);
      uint32_t field =
          bin(op::BitwiseAnd, r.shift(op::ShiftRightLogical, type, w[3], r.splat(offset, type)),
              r.splat(mask, type), i.opcode == op::BitFieldUExtract ? i.result : 0);
      if (i.opcode == op::BitFieldUExtract) return true;
      // Sign extension: the field's top bit (none for an empty field) flipped and subtracted.
      uint32_t top =
          r.emit(op::BitwiseXor, scalar,
                 {mask, r.emit(op::ShiftRightLogical, scalar, {mask, r.constant(scalar, 1)})});
      uint32_t topBits = r.splat(top, type);
      bin(op::ISub, bin(op::BitwiseXor, field, topBits), topBits, i.result);
      return true;
    }
    case op::BitFieldInsert: {
      uint32_t offset = r.convertScalar(w[5], scalar), bits = r.convertScalar(w[6], scalar);
      uint32_t fieldMask = r.shift(op::ShiftLeftLogical, scalar, lowBits(r, scalar, bits), offset);
      uint32_t mask = r.splat(fieldMask, type);
      uint32_t kept = bin(op::BitwiseAnd, w[3], r.emit(op::Not, type, {mask}));
      uint32_t inserted = bin(
          op::BitwiseAnd, r.shift(op::ShiftLeftLogical, type, w[4], r.splat(offset, type)), mask);
      bin(op::BitwiseOr, kept, inserted, i.result);
      return true;
    }
    case op::BitReverse: {
      uint32_t x = w[3];
      for (uint32_t step = 1; step < width; step *= 2) {
        uint32_t m = c(alternatingMask(width, step)), s = c(step);
        uint32_t low = bin(op::ShiftLeftLogical, bin(op::BitwiseAnd, x, m), s);
        uint32_t high = bin(op::BitwiseAnd, bin(op::ShiftRightLogical, x, s), m);
        x = bin(op::BitwiseOr, high, low, step * 2 == width ? i.result : 0);
      }
      return true;
    }
    default:
      return false;
  }
}

// OpBitCount: Base and Result may have different component widths.
bool lowerBitCount(Rewriter &r, const Instruction &i) {
  uint32_t type = r.typeOf(i.words[3]);
  auto components = r.integerComponents(type), resultComponents = r.integerComponents(i.type);
  if (!components || !resultComponents) return false;
  uint32_t width = r.widthOf(components->first);
  if (width != 8 && width != 16 && width != 32 && width != 64) return false;
  auto c = [&](uint64_t v) { return r.constantOf(type, v); };
  auto bin = [&](uint16_t opcode, uint32_t a, uint32_t b) { return r.emit(opcode, type, {a, b}); };
  uint32_t x = i.words[3];
  x = bin(op::ISub, x,
          bin(op::BitwiseAnd, bin(op::ShiftRightLogical, x, c(1)), c(alternatingMask(width, 1))));
  uint32_t m2 = c(alternatingMask(width, 2));
  x = bin(op::IAdd, bin(op::BitwiseAnd, x, m2),
          bin(op::BitwiseAnd, bin(op::ShiftRightLogical, x, c(2)), m2));
  x = bin(op::BitwiseAnd, bin(op::IAdd, x, bin(op::ShiftRightLogical, x, c(4))),
          c(alternatingMask(width, 4)));
  if (width > 8)  // each byte holds its count: their sum collects in the top byte
    x = bin(op::ShiftRightLogical, bin(op::IMul, x, c(0x0101010101010101ull)), c(width - 8));
  uint32_t resultWidth = r.widthOf(resultComponents->first);
  uint16_t finish = i.type == type         ? op::CopyObject
                    : resultWidth == width ? op::Bitcast
                                           : op::UConvert;
  r.emit(finish, i.type, {x}, i.result);
  return true;
}

// OpGroupNonUniformRotateKHR Scope Value Delta [ClusterSize], at sub-group scope: the value
// of the invocation (id + Delta) mod size, within its cluster if one is given.
bool lowerRotate(Rewriter &r, const Instruction &i) {
  const std::vector<uint32_t> &w = i.words;
  uint32_t u32 = r.intType(32);
  uint32_t id = r.emit(op::Load, u32, {r.builtinVariable(kBuiltInSubgroupLocalInvocationId)});
  uint32_t delta = r.convertScalar(w[5], u32);
  uint32_t moved = r.emit(op::IAdd, u32, {id, delta});
  uint32_t source;
  if (w.size() > 6) {
    uint32_t clusterMask = r.emit(op::ISub, u32, {r.convertScalar(w[6], u32), r.constant(u32, 1)});
    uint32_t clusterStart = r.emit(op::BitwiseAnd, u32, {id, r.emit(op::Not, u32, {clusterMask})});
    source = r.emit(op::BitwiseOr, u32,
                    {clusterStart, r.emit(op::BitwiseAnd, u32, {moved, clusterMask})});
  } else {
    uint32_t size = r.emit(op::Load, u32, {r.builtinVariable(kBuiltInSubgroupSize)});
    source = r.emit(op::UMod, u32, {moved, size});
  }
  r.requireCapability(kCapabilityGroupNonUniform);
  r.requireCapability(kCapabilityGroupNonUniformShuffle);
  r.emit(op::GroupNonUniformShuffle, i.type, {w[3], w[4], source}, i.result);
  return true;
}

}  // namespace

LoweredModule lowerNewerExtensions(std::span<const uint32_t> words, const std::string &name) {
  std::unique_ptr<spv_context_t, void (*)(spv_context)> context(
      spvContextCreate(SPV_ENV_UNIVERSAL_1_6), spvContextDestroy);
  std::vector<Instruction> all;
  spv_diagnostic diagnostic = nullptr;
  spv_result_t parsed = spvBinaryParse(context.get(), &all, words.data(), words.size(), nullptr,
                                       collect, &diagnostic);
  spvDiagnosticDestroy(diagnostic);
  if (parsed != SPV_SUCCESS || words.size() < 5)
    core::fail(XPURT_ERROR_INVALID_MODULE, "SPIR-V module '{}' cannot be parsed", name);

  LoweredModule result;
  Rewriter r(std::move(all), words[3]);
  bool bitInstructions = r.declares(kCapabilityBitInstructions) && !r.declares(kCapabilityShader);
  bool rotate = r.declares(kCapabilityGroupNonUniformRotateKHR) && words[1] >= kVersion1_3;
  if (!bitInstructions && !rotate) {
    result.words.assign(words.begin(), words.end());
    return result;
  }
  size_t bitKept = 0, rotateKept = 0;
  r.rewriteFunctions([&](Rewriter &rw, const Instruction &i) {
    switch (i.opcode) {
      case op::BitFieldInsert:
      case op::BitFieldSExtract:
      case op::BitFieldUExtract:
      case op::BitReverse:
      case op::BitCount: {
        if (!bitInstructions) return false;
        bool done = i.opcode == op::BitCount ? lowerBitCount(rw, i) : lowerBitInstruction(rw, i);
        bitKept += !done;
        return done;
      }
      case op::GroupNonUniformRotateKHR: {
        if (!rotate) return false;
        bool done = lowerRotate(rw, i);
        rotateKept += !done;
        return done;
      }
      default:
        return false;
    }
  });
  std::set<uint32_t> dropCapabilities;
  std::set<std::string> dropExtensions;
  if (bitInstructions && !bitKept) {
    dropCapabilities.insert(kCapabilityBitInstructions);
    dropExtensions.insert(kBitInstructions);
    result.extensions.push_back(kBitInstructions);
  }
  if (rotate && !rotateKept) {
    dropCapabilities.insert(kCapabilityGroupNonUniformRotateKHR);
    dropExtensions.insert(kSubgroupRotate);
    result.extensions.push_back(kSubgroupRotate);
  }
  std::vector<uint32_t> header(words.begin(), words.begin() + 5);
  result.words = r.assemble(header, dropCapabilities, dropExtensions);
  return result;
}

}  // namespace xpurt::spirv
