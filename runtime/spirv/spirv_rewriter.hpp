// Rewriting a SPIR-V module's function bodies instruction by instruction, with the types,
// constants and variables the new instructions need found or added: the machinery of
// extension_lowering.cpp and launch_values.cpp. Ids are the module's; new ones continue from
// its bound.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace xpurt::spirv {

namespace op {
constexpr uint16_t Extension = 10, EntryPoint = 15, Capability = 17, TypeInt = 21, TypeVector = 23,
                   TypePointer = 32, Constant = 43, ConstantComposite = 44, Function = 54,
                   Variable = 59, Load = 61, Decorate = 71, VectorShuffle = 79,
                   CompositeInsert = 82, CopyObject = 83, Undef = 1, UConvert = 113, Bitcast = 124,
                   IAdd = 128, ISub = 130, IMul = 132, UMod = 137, ShiftRightLogical = 194,
                   ShiftLeftLogical = 196, BitwiseOr = 197, BitwiseXor = 198, BitwiseAnd = 199,
                   Not = 200, BitFieldInsert = 201, BitFieldSExtract = 202, BitFieldUExtract = 203,
                   BitReverse = 204, BitCount = 205, GroupNonUniformShuffle = 345,
                   GroupNonUniformRotateKHR = 4431, Name = 5, String = 7, ExecutionMode = 16,
                   TypeVoid = 19, TypeFunction = 33, FunctionParameter = 55, FunctionEnd = 56,
                   FunctionCall = 57, Store = 62, AccessChain = 65, InBoundsAccessChain = 66,
                   PtrAccessChain = 67, InBoundsPtrAccessChain = 70, VectorExtractDynamic = 77,
                   CompositeExtract = 81, TypeArray = 28, Label = 248, Return = 253,
                   ExecutionModeId = 331;
}  // namespace op

constexpr uint32_t kDecorationBuiltIn = 11, kStorageInput = 1, kStorageWorkgroup = 4;

struct Instruction {
  uint16_t opcode = 0;
  uint32_t type = 0, result = 0;
  std::vector<uint32_t> words;  // the whole instruction, first word included
  // The positions in `words` of the operands that are ids (the result type and result not
  // included); empty for instructions made here.
  std::vector<uint16_t> idOperands;
};

// The module's instructions; throws INVALID_MODULE naming the module if it cannot be parsed.
std::vector<Instruction> parseInstructions(std::span<const uint32_t> words,
                                           const std::string &name);

// The string literal operand starting at word `firstWord`.
std::string literalString(const Instruction &i, size_t firstWord);

// Capabilities, extensions, imports, memory model, entry points, execution modes, debug
// names and sources, decorations: what comes before types, constants and global variables.
bool inPreambleDebugOrAnnotations(uint16_t opcode);

// A module being rewritten: what it declares, the instructions added to its global sections,
// and the function bodies written anew.
class Rewriter {
 public:
  Rewriter(std::vector<Instruction> all, uint32_t bound) : all_(std::move(all)), bound_(bound) {
    for (const Instruction &i : all_) {
      if (i.type && i.result) typeOf_[i.result] = i.type;
      switch (i.opcode) {
        case op::TypeFunction:
          functionTypes_.emplace(std::vector<uint32_t>(i.words.begin() + 2, i.words.end()),
                                 i.result);
          break;
        case op::Constant:
          if (i.words.size() >= 4)
            valueOf_[i.result] =
                i.words[3] | (i.words.size() >= 5 ? uint64_t{i.words[4]} << 32 : 0);
          break;
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

  // The module's instructions as read; those before the first function may be changed before
  // assemble() (the function bodies are taken by rewriteFunctions).
  std::vector<Instruction> &instructions() { return all_; }
  uint32_t newId() { return bound_++; }
  // Instructions after the rewritten functions (a new function), and a new decoration.
  void appendToFunctions(const std::vector<Instruction> &instructions) {
    functions_.insert(functions_.end(), instructions.begin(), instructions.end());
  }
  void addDecoration(Instruction decoration) { decorations_.push_back(std::move(decoration)); }
  // A variable every entry point lists in its interface.
  void addInterface(uint32_t variable) {
    if (std::find(interface_.begin(), interface_.end(), variable) == interface_.end())
      interface_.push_back(variable);
  }

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

  uint32_t vectorType(uint32_t component, uint32_t count) {
    if (auto it = vectors_.find({component, count}); it != vectors_.end()) return it->second;
    uint32_t id = global(op::TypeVector, 0, {component, count});
    vectors_.emplace(std::pair{component, count}, id);
    vectorOf_[id] = {component, count};
    return id;
  }

  // An OpTypeFunction returning `result` with `params`, found or added.
  uint32_t functionType(uint32_t result, const std::vector<uint32_t> &params) {
    std::vector<uint32_t> operands{result};
    operands.insert(operands.end(), params.begin(), params.end());
    if (auto it = functionTypes_.find(operands); it != functionTypes_.end()) return it->second;
    uint32_t id = global(op::TypeFunction, 0, operands);
    functionTypes_.emplace(operands, id);
    return id;
  }

  // The value of an OpConstant of 64 bits or fewer, if `id` is one.
  std::optional<uint64_t> constantValue(uint32_t id) const {
    auto it = valueOf_.find(id);
    if (it == valueOf_.end()) return std::nullopt;
    return it->second;
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
  // The type a pointer type points to; 0 if `pointer` is none.
  uint32_t pointee(uint32_t pointer) const {
    auto it = pointeeOf_.find(pointer);
    return it == pointeeOf_.end() ? 0 : it->second;
  }
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
    uint32_t first = emit(op::CompositeInsert, type, {scalar, undefinedOf(type), 0});
    std::vector<uint32_t> operands{first, first};
    operands.resize(2 + count, 0);  // component 0 of the first vector, everywhere
    return emit(op::VectorShuffle, type, operands);
  }

  // An OpUndef of `type`, found or added.
  uint32_t undefinedOf(uint32_t type) {
    auto undefined = undefined_.find(type);
    if (undefined == undefined_.end())
      undefined = undefined_.emplace(type, global(op::Undef, type, {})).first;
    return undefined->second;
  }

  // Shifts by an amount that may equal the width (all bits out), in two legal halves.
  uint32_t shift(uint16_t opcode, uint32_t type, uint32_t value, uint32_t amount) {
    uint32_t half = emit(op::ShiftRightLogical, type, {amount, constantOf(type, 1)});
    uint32_t rest = emit(op::ISub, type, {amount, half});
    return emit(opcode, type, {emit(opcode, type, {value, half}), rest});
  }

  // An instruction with its word count; `type` and `result` 0 where it has none.
  static Instruction make(uint16_t opcode, uint32_t type, uint32_t result,
                          const std::vector<uint32_t> &operands) {
    Instruction i{opcode, type, result, {0}, {}};
    if (type) i.words.push_back(type);
    if (result) i.words.push_back(result);
    i.words.insert(i.words.end(), operands.begin(), operands.end());
    i.words[0] = uint32_t(i.words.size()) << 16 | opcode;
    return i;
  }

  // A type, constant or global variable added to the global section; returns its id.
  uint32_t global(uint16_t opcode, uint32_t type, const std::vector<uint32_t> &operands) {
    uint32_t id = bound_++;
    globals_.push_back(make(opcode, type, id, operands));
    if (type) typeOf_[id] = type;
    return id;
  }

 private:
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
  std::map<std::vector<uint32_t>, uint32_t> functionTypes_;
  std::map<uint32_t, uint64_t> valueOf_;
};

}  // namespace xpurt::spirv
