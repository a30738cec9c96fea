// Rewrites the instructions of SPIR-V extensions that GPU drivers may not read yet into core
// SPIR-V that every OpenCL-capable driver reads, with the same results:
//   SPV_KHR_bit_instructions (OpBitFieldInsert, OpBitField[SU]Extract, OpBitReverse,
//   OpBitCount in Kernel modules; OpenCL's cl_khr_extended_bit_ops) -> shifts, masks and adds;
//   SPV_KHR_subgroup_rotate (OpGroupNonUniformRotateKHR; cl_khr_subgroup_rotate) ->
//   OpGroupNonUniformShuffle from the sub-group local id.
// The Level Zero API does not say which SPIR-V extensions a driver's compiler reads, and
// Intel's compiler before 2023 ends without a message on the first and refuses the second.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace xpurt::spirv {

struct LoweredModule {
  std::vector<uint32_t> words;          // the module itself when nothing was lowered
  std::vector<std::string> extensions;  // the extensions whose instructions were rewritten
};

// `words` must be a module that passed the intake (spirv_binary.hpp). Throws INVALID_MODULE
// naming the module if it cannot be parsed.
LoweredModule lowerNewerExtensions(std::span<const uint32_t> words, const std::string &name);

}  // namespace xpurt::spirv
