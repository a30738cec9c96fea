#include "module_parts.hpp"

#include "work_group.hpp"

#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <algorithm>
#include <unordered_set>

namespace xpurt::cpu {
namespace {

// The functions and variables entry reaches through its instructions' operands (calls,
// addresses taken, constant expressions) and variables' initialisers, entry included.
std::unordered_set<const llvm::GlobalValue *> reachedFrom(const llvm::Function &entry) {
  std::unordered_set<const llvm::GlobalValue *> reached{&entry};
  std::unordered_set<const llvm::Constant *> seenConstants;
  std::vector<const llvm::User *> work{&entry};
  auto visit = [&](const llvm::Value *v) {
    if (const auto *g = llvm::dyn_cast<llvm::GlobalValue>(v)) {
      if (reached.insert(g).second) work.push_back(g);
    } else if (const auto *c = llvm::dyn_cast<llvm::Constant>(v)) {
      if (c->getNumOperands() && seenConstants.insert(c).second) work.push_back(c);
    }
  };
  while (!work.empty()) {
    const llvm::User *u = work.back();
    work.pop_back();
    if (const auto *f = llvm::dyn_cast<llvm::Function>(u)) {
      for (const llvm::BasicBlock &b : *f)
        for (const llvm::Instruction &i : b)
          for (const llvm::Value *op : i.operand_values()) visit(op);
    } else if (const auto *g = llvm::dyn_cast<llvm::GlobalVariable>(u)) {
      if (g->hasInitializer()) visit(g->getInitializer());
    } else {
      for (const llvm::Value *op : u->operand_values()) visit(op);
    }
  }
  return reached;
}

size_t instructionCount(const llvm::Module &m) {
  size_t n = 0;
  for (const llvm::Function &f : m) n += f.getInstructionCount();
  return n;
}

}  // namespace

std::vector<ModulePart> splitByKernel(const llvm::Module &module) {
  std::vector<const llvm::Function *> entries;
  for (const llvm::Function &f : module)
    if (!f.isDeclaration() && f.getName().startswith(workGroupFunctionName("")))
      entries.push_back(&f);
  if (entries.size() < 2 || !module.alias_empty() || !module.ifunc_empty()) return {};
  for (const llvm::GlobalVariable &g : module.globals())
    if (!g.isDeclaration() && !g.isConstant()) return {};
  std::vector<ModulePart> parts;
  for (const llvm::Function *entry : entries) {
    std::unordered_set<const llvm::GlobalValue *> reached = reachedFrom(*entry);
    llvm::ValueToValueMapTy map;
    std::unique_ptr<llvm::Module> part = llvm::CloneModule(
        module, map, [&](const llvm::GlobalValue *g) { return reached.count(g) != 0; });
    // What is not the entry point is the part's own: another part may define it too.
    for (llvm::Function &f : *part)
      if (!f.isDeclaration() && f.getName() != entry->getName())
        f.setLinkage(llvm::GlobalValue::InternalLinkage);
    for (llvm::GlobalVariable &g : part->globals())
      if (!g.isDeclaration()) g.setLinkage(llvm::GlobalValue::InternalLinkage);
    ModulePart p;
    p.instructions = instructionCount(*part);
    llvm::raw_string_ostream out(p.bitcode);
    llvm::WriteBitcodeToFile(*part, out);
    out.flush();
    parts.push_back(std::move(p));
  }
  std::stable_sort(parts.begin(), parts.end(), [](const ModulePart &a, const ModulePart &b) {
    return a.instructions > b.instructions;
  });
  return parts;
}

}  // namespace xpurt::cpu
