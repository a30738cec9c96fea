// Linking SPIR-V modules as a program's object files are linked: every function or variable a
// module imports (LinkageAttributes Import, an `extern` declaration in OpenCL C) is bound to
// the one definition another module exports, by name, with SPIRV-Tools' linker. The result is
// one module that every device loads like any other; modules that import something, and
// libraries without kernels, load as link-only modules.
#pragma once

#include "core/backend.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace xpurt::spirv {

struct Preamble;

struct LinkInput {
  std::span<const std::byte> spirv;
  std::string name;  // for messages
};

// The linked module's words. Throws INVALID_MODULE naming the modules and saying what to do
// when a symbol is defined nowhere or twice or its types differ. Modules of different SPIR-V
// versions link as modules of the highest.
std::vector<uint32_t> linkModules(std::span<const LinkInput> inputs);

// For linking in a JIT worker process (core/jit_worker.hpp, core::kSpirvLinker), as compiling
// is done: SPIRV-Tools' linker trusts its input, and a module that the validator stopped early
// on (at a finding the intake tolerates) can crash it. packLinkInputs gives the words of the
// request: the module count, then per module the name's length in bytes, the name padded to
// whole words, the module's length in words and its words. linkPackedModules, in the worker,
// links them and gives the linked words as bytes.
std::vector<uint32_t> packLinkInputs(std::span<const LinkInput> inputs);
std::string linkPackedModules(const std::vector<uint32_t> &packed, const std::string &name,
                              const core::ModuleOptions &options);

// A module loaded only to be linked: it has no runnable kernels. createKernel says what it
// imports and to link it.
class LinkOnlyModule : public core::Module {
 public:
  LinkOnlyModule(core::Ref<core::Device> device, std::string name, const Preamble &preamble);
  core::Ref<core::Kernel> createKernel(const std::string &kernel) override;

 private:
  std::vector<std::string> imports_;
  bool hasKernels_;
};

}  // namespace xpurt::spirv
