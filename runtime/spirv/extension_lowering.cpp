#include "extension_lowering.hpp"

#include "core/error.hpp"
#include "spirv_rewriter.hpp"

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

constexpr uint32_t kCapabilityShader = 1, kCapabilityGroupNonUniform = 61,
                   kCapabilityGroupNonUniformShuffle = 65, kCapabilityBitInstructions = 6025,
                   kCapabilityGroupNonUniformRotateKHR = 6026, kBuiltInSubgroupSize = 36,
                   kBuiltInSubgroupLocalInvocationId = 41, kVersion1_3 = 0x00010300;
constexpr const char *kBitInstructions = "SPV_KHR_bit_instructions";
constexpr const char *kSubgroupRotate = "SPV_KHR_subgroup_rotate";

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
  std::vector<Instruction> all = parseInstructions(words, name);
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
