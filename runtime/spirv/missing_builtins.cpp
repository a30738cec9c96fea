#include "missing_builtins.hpp"

#include <llvm/Demangle/Demangle.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>

#include <fmt/format.h>

#include <regex>
#include <set>
#include <utility>

namespace xpurt::spirv {
namespace {

// A builtin's signature as OpenCL C spells it: "ctz(uint4)", not the demangler's
// "ctz(unsigned int vector[4])"; address spaces as "__global int *".
std::string openclSignature(const std::string &mangled) {
  std::string s = llvm::demangle(mangled);
  static const std::pair<std::regex, const char *> rewrites[] = {
      {std::regex(R"(unsigned (char|short|int|long))"), "u$1"},
      {std::regex(R"((\w+) vector\[(\d+)\])"), "$1$2"},
      {std::regex(R"( AS1\*)"), " __global *"},
      {std::regex(R"( AS2\*)"), " __constant *"},
      {std::regex(R"( AS3\*)"), " __local *"},
      {std::regex(R"( AS4\*)"), " *"}};
  for (const auto &[pattern, replacement] : rewrites)
    s = std::regex_replace(s, pattern, replacement);
  return s;
}

}  // namespace

std::map<std::string, std::string> dropKernelsCallingMissing(
    llvm::Module &m, const std::vector<spirv::KernelInfo> &kernels,
    const std::vector<llvm::Function *> &missing, const std::string &device) {
  std::map<std::string, std::string> unavailable;
  if (missing.empty()) return unavailable;
  std::set<const llvm::Function *> lacking(missing.begin(), missing.end());
  std::vector<llvm::Function *> dropped;
  for (const spirv::KernelInfo &info : kernels) {
    llvm::Function *kernel = m.getFunction(info.name);
    if (!kernel) continue;
    std::set<std::string> calls;  // the missing builtins this kernel reaches, demangled
    std::set<const llvm::Function *> seen{kernel};
    std::vector<const llvm::Function *> work{kernel};
    while (!work.empty()) {
      const llvm::Function *f = work.back();
      work.pop_back();
      for (const llvm::Instruction &i : llvm::instructions(*f))
        if (auto *call = llvm::dyn_cast<llvm::CallBase>(&i))
          if (const llvm::Function *callee = call->getCalledFunction()) {
            if (lacking.count(callee))
              calls.insert(openclSignature(callee->getName().str()));
            else if (!callee->isDeclaration() && seen.insert(callee).second)
              work.push_back(callee);
          }
    }
    if (calls.empty()) continue;
    std::string list;
    for (const std::string &c : calls) list += (list.empty() ? "" : ", ") + c;
    unavailable[info.name] =
        fmt::format("kernel '{}' calls OpenCL builtin{} that the {} device does not provide: {}",
                    info.name, calls.size() > 1 ? "s" : "", device, list);
    dropped.push_back(kernel);
  }
  for (llvm::Function *kernel : dropped) {
    kernel->replaceAllUsesWith(llvm::PoisonValue::get(kernel->getType()));
    kernel->eraseFromParent();
  }
  return unavailable;
}

}  // namespace xpurt::spirv
