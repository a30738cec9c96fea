// Intake of a SPIR-V binary before anything reads it: the header and preamble (capabilities,
// addressing and memory model, kernel entry points) and validation with SPIRV-Tools.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace xpurt::spirv {

struct Preamble {
  uint32_t version = 0;  // 0x00MMmm00
  std::vector<uint32_t> capabilities;
  uint32_t addressingModel = 0;      // 0 Logical, 1 Physical32, 2 Physical64
  uint32_t memoryModel = 0;          // 2 OpenCL
  std::vector<std::string> kernels;  // OpEntryPoint Kernel names
  // Functions and variables by LinkageAttributes: those the module leaves to another module
  // to define, and those it offers to others. Built-in variables and functions of reserved
  // names (`_Z...`, `__...`: builtins the device's library defines), which translators mark
  // as imports too, are not among the imports.
  std::vector<std::string> imports;
  std::vector<std::string> exports;
  // Kernels cannot run until the module is linked (xpurtLinkModules): it imports something,
  // or it is a library of functions without kernels.
  bool linkOnly() const { return !imports.empty() || kernels.empty(); }
};

// The words of a SPIR-V binary; throws INVALID_MODULE if `bytes` cannot be one (size, magic,
// byte order: a big-endian module is swapped to host order).
std::vector<uint32_t> toWords(std::span<const std::byte> bytes, const std::string &name);

// A string literal operand: the words up to and including the one with its terminating zero.
std::string literalString(std::span<const uint32_t> words);

// Reads the preamble; throws INVALID_MODULE naming the instruction where the binary is broken.
Preamble readPreamble(std::span<const uint32_t> words, const std::string &name);

// "Name (value)", or "Name (SPV_extension, value)" for a capability an extension brings.
std::string capabilityName(uint32_t capability);

// Throws UNSUPPORTED naming the first capability not in `supported`, or an addressing or
// memory model other than Physical64/OpenCL; INVALID_MODULE for a module with neither kernels
// nor anything to link.
void checkSupported(const Preamble &preamble, std::span<const uint32_t> supported,
                    const std::string &device, const std::string &name);

// Validates with SPIRV-Tools. Structural errors throw INVALID_MODULE with the validator's
// message; findings about block and definition order alone, which the standard LLVM-to-SPIR-V
// translator produces for valid programs, are returned as warnings.
std::vector<std::string> validate(std::span<const uint32_t> words, const std::string &name);

// Refuses what the validator lets through but the LLVM translator cannot take (it would abort
// the process): alignments that are not powers of two, ids used but never defined. Throws
// INVALID_MODULE.
void checkTranslatable(std::span<const uint32_t> words, const std::string &name);

// The whole intake, in the order every device runs it (and the fuzzer with it): words,
// preamble, the device's capabilities, validation, what the translator cannot take.
struct CheckedModule {
  std::vector<uint32_t> words;
  std::vector<std::string> warnings;  // the validator's, for the caller to log
  Preamble preamble;
};
CheckedModule checkModule(std::span<const std::byte> bytes, const std::string &name,
                          std::span<const uint32_t> capabilities, const std::string &device);
// The same for a device whose compiler decides which capabilities it takes (a Level Zero
// driver): every capability the module declares passes.
CheckedModule checkModule(std::span<const std::byte> bytes, const std::string &name,
                          const std::string &device);

}  // namespace xpurt::spirv
