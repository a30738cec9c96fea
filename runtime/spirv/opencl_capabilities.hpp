// The SPIR-V capabilities of OpenCL kernels that xpurt's own compilers (the CPU JIT, SPIR-V to
// PTX) take, for their intake and the fuzzer's. A kernel that calls a builtin of one of them
// that the device lacks is refused by itself, naming the builtin (not the module).
#pragma once

#include <cstdint>

namespace xpurt::spirv {

inline constexpr uint32_t kOpenClKernelCapabilities[] = {
    4 /*Addresses*/, 5 /*Linkage*/, 6 /*Kernel*/, 7 /*Vector16*/, 8 /*Float16Buffer*/,
    9 /*Float16*/, 10 /*Float64*/, 11 /*Int64*/, 12 /*Int64Atomics*/, 18 /*Groups*/, 22 /*Int16*/,
    38 /*GenericPointer*/, 39 /*Int8*/, 58 /*SubgroupDispatch*/, 61 /*GroupNonUniform*/,
    62 /*GroupNonUniformVote*/, 63 /*GroupNonUniformArithmetic*/, 64 /*GroupNonUniformBallot*/,
    65 /*GroupNonUniformShuffle*/, 66 /*GroupNonUniformShuffleRelative*/,
    67 /*GroupNonUniformClustered*/, 5568 /*SubgroupShuffleINTEL*/,
    5569 /*SubgroupBufferBlockIOINTEL*/, 5612 /*AtomicFloat32MinMaxEXT*/,
    5613 /*AtomicFloat64MinMaxEXT*/, 6016 /*DotProductInputAll*/, 6017 /*DotProductInput4x8Bit*/,
    6018 /*DotProductInput4x8BitPacked*/, 6019 /*DotProduct*/, 6025 /*BitInstructions*/,
    6026 /*GroupNonUniformRotateKHR*/, 6033 /*AtomicFloat32AddEXT*/, 6034 /*AtomicFloat64AddEXT*/,
    6400 /*GroupUniformArithmeticKHR*/,
    // Hints only, which the compilers may ignore: icpx declares them in most SYCL modules.
    5629 /*ExpectAssumeKHR*/, 5821 /*FunctionFloatControlINTEL*/, 5837 /*FPFastMathModeINTEL*/,
    5892 /*KernelAttributesINTEL*/, 5910 /*MemoryAccessAliasingINTEL*/};

}  // namespace xpurt::spirv
