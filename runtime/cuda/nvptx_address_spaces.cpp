#include "core/error.hpp"
#include "nvptx_lowering.hpp"

#include <llvm/ADT/DenseMap.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DebugInfo.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Operator.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

namespace xpurt::cuda {
namespace {

class NvptxTypes : public llvm::ValueMapTypeRemapper {
 public:
  llvm::Type *remapType(llvm::Type *t) override {
    if (auto it = cache_.find(t); it != cache_.end()) return it->second;
    llvm::Type *r = t;
    if (auto *p = llvm::dyn_cast<llvm::PointerType>(t)) {
      r = llvm::PointerType::get(t->getContext(), nvptxAddressSpace(p->getAddressSpace()));
    } else if (auto *a = llvm::dyn_cast<llvm::ArrayType>(t)) {
      r = llvm::ArrayType::get(remapType(a->getElementType()), a->getNumElements());
    } else if (auto *v = llvm::dyn_cast<llvm::VectorType>(t)) {
      r = llvm::VectorType::get(remapType(v->getElementType()), v->getElementCount());
    } else if (auto *f = llvm::dyn_cast<llvm::FunctionType>(t)) {
      std::vector<llvm::Type *> params;
      for (llvm::Type *param : f->params()) params.push_back(remapType(param));
      r = llvm::FunctionType::get(remapType(f->getReturnType()), params, f->isVarArg());
    } else if (auto *s = llvm::dyn_cast<llvm::StructType>(t); s && !s->isOpaque()) {
      // Opaque pointers leave no cycles through structs: a plain recursion terminates.
      std::vector<llvm::Type *> elements;
      bool changed = false;
      for (llvm::Type *e : s->elements()) {
        elements.push_back(remapType(e));
        changed = changed || elements.back() != e;
      }
      if (changed)
        r = s->isLiteral()
                ? llvm::StructType::get(t->getContext(), elements, s->isPacked())
                : llvm::StructType::create(t->getContext(), elements, s->getName(), s->isPacked());
    }
    cache_[t] = r;
    return r;
  }

 private:
  llvm::DenseMap<llvm::Type *, llvm::Type *> cache_;
};

// Constants are rebuilt here rather than by the ValueMapper, which would re-create
// generic <-> private address space casts that are now casts to the same space (and assert).
class NvptxConstants : public llvm::ValueMaterializer {
 public:
  NvptxConstants(llvm::ValueToValueMapTy &map, NvptxTypes &types, const std::string &name)
      : map_(map), types_(types), name_(name) {}

  llvm::Value *materialize(llvm::Value *v) override {
    auto *c = llvm::dyn_cast<llvm::Constant>(v);
    return c && !llvm::isa<llvm::GlobalValue>(c) ? remap(c) : nullptr;
  }

  llvm::Constant *remap(llvm::Constant *c) {
    if (auto *g = llvm::dyn_cast<llvm::GlobalValue>(c)) {
      llvm::Value *mapped = map_.lookup(g);
      if (!mapped)
        core::fail(XPURT_ERROR_INVALID_MODULE, "module '{}': '{}' has no PTX form", name_,
                   g->getName().str());
      return llvm::cast<llvm::Constant>(mapped);
    }
    llvm::Type *t = types_.remapType(c->getType());
    if (llvm::isa<llvm::ConstantPointerNull>(c))
      return llvm::ConstantPointerNull::get(llvm::cast<llvm::PointerType>(t));
    if (llvm::isa<llvm::PoisonValue>(c)) return llvm::PoisonValue::get(t);
    if (llvm::isa<llvm::UndefValue>(c)) return llvm::UndefValue::get(t);
    if (llvm::isa<llvm::ConstantAggregateZero>(c)) return llvm::ConstantAggregateZero::get(t);
    if (llvm::isa<llvm::ConstantData>(c)) return c;  // numbers and their arrays
    std::vector<llvm::Constant *> ops;
    for (llvm::Value *op : c->operand_values())
      ops.push_back(remap(llvm::cast<llvm::Constant>(op)));
    if (auto *e = llvm::dyn_cast<llvm::ConstantExpr>(c)) {
      if (e->getOpcode() == llvm::Instruction::AddrSpaceCast &&
          ops[0]->getType()->getPointerAddressSpace() == t->getPointerAddressSpace())
        return ops[0];
      llvm::Type *source = nullptr;
      if (auto *gep = llvm::dyn_cast<llvm::GEPOperator>(e))
        source = types_.remapType(gep->getSourceElementType());
      return e->getWithOperands(ops, t, false, source);
    }
    if (llvm::isa<llvm::ConstantStruct>(c))
      return llvm::ConstantStruct::get(llvm::cast<llvm::StructType>(t), ops);
    if (llvm::isa<llvm::ConstantArray>(c))
      return llvm::ConstantArray::get(llvm::cast<llvm::ArrayType>(t), ops);
    if (llvm::isa<llvm::ConstantVector>(c)) return llvm::ConstantVector::get(ops);
    core::fail(XPURT_ERROR_INVALID_MODULE,
               "module '{}': a constant of kind {} cannot be compiled to PTX; rewrite the "
               "kernel without it (e.g. without taking a block's address)",
               name_, static_cast<unsigned>(c->getValueID()));
  }

 private:
  llvm::ValueToValueMapTy &map_;
  NvptxTypes &types_;
  const std::string &name_;
};

// byval(T), sret(T), elementtype(T), ...: their types follow the pointers'.
llvm::AttributeList remapAttributes(llvm::LLVMContext &c, llvm::AttributeList list, unsigned params,
                                    NvptxTypes &types) {
  for (unsigned i = 0; i < params; ++i)
    for (int kind = llvm::Attribute::FirstTypeAttr; kind <= llvm::Attribute::LastTypeAttr; ++kind) {
      auto k = static_cast<llvm::Attribute::AttrKind>(kind);
      if (llvm::Type *t = list.getParamAttr(i, k).getValueAsType())
        list = list.replaceAttributeTypeAtIndex(c, llvm::AttributeList::FirstArgIndex + i, k,
                                                types.remapType(t));
    }
  return list;
}

}  // namespace

unsigned nvptxAddressSpace(unsigned spir) {
  switch (spir) {
    case 4:
      return 0;  // generic
    case 2:
      // Generic, not NVPTX's constant space: a __constant pointer argument points into global
      // memory, which ld.const cannot read. Program-scope __constant variables still go to the
      // constant bank: NVPTX's GenericToNVVM moves generic globals marked constant there.
      return 0;
    default:
      return spir;
  }
}

std::unique_ptr<llvm::Module> retargetAddressSpaces(llvm::Module &spir, const std::string &name) {
  llvm::StripDebugInfo(spir);
  llvm::LLVMContext &c = spir.getContext();
  auto m = std::make_unique<llvm::Module>(spir.getModuleIdentifier(), c);
  m->setSourceFileName(spir.getSourceFileName());
  if (!spir.alias_empty() || !spir.ifunc_empty())
    core::fail(XPURT_ERROR_INVALID_MODULE,
               "module '{}': global aliases cannot be compiled to PTX; define each name once",
               name);
  NvptxTypes types;
  llvm::ValueToValueMapTy map;
  NvptxConstants constants(map, types, name);
  std::vector<std::pair<llvm::GlobalVariable *, llvm::GlobalVariable *>> globals;
  for (llvm::GlobalVariable &g : spir.globals()) {
    // A program-scope __constant variable goes to the constant bank (NVPTX's space 4); the
    // code sees it through a generic pointer, as every __constant pointer.
    bool constant = g.getAddressSpace() == 2;
    auto *n = new llvm::GlobalVariable(
        *m, types.remapType(g.getValueType()), g.isConstant(), g.getLinkage(), nullptr, g.getName(),
        nullptr, g.getThreadLocalMode(), constant ? 4 : nvptxAddressSpace(g.getAddressSpace()));
    n->copyAttributesFrom(&g);
    // A __local array of the kernel's own at 16 bytes, as nvcc places __shared__ arrays: its
    // rows can then be read as vectors (ld.shared.v4).
    if (g.getAddressSpace() == 3 && g.hasInitializer() && n->getValueType()->isArrayTy() &&
        n->getAlign().valueOrOne() < llvm::Align(16))
      n->setAlignment(llvm::Align(16));
    globals.emplace_back(&g, n);
    map[&g] = constant ? llvm::ConstantExpr::getAddrSpaceCast(n, llvm::PointerType::get(c, 0))
                       : static_cast<llvm::Constant *>(n);
  }
  for (llvm::Function &f : spir) {
    auto *n =
        llvm::Function::Create(llvm::cast<llvm::FunctionType>(types.remapType(f.getFunctionType())),
                               f.getLinkage(), f.getAddressSpace(), f.getName(), m.get());
    n->copyAttributesFrom(&f);
    map[&f] = n;
    for (unsigned i = 0; i < f.arg_size(); ++i) {
      n->getArg(i)->setName(f.getArg(i)->getName());
      map[f.getArg(i)] = n->getArg(i);
    }
  }
  for (auto [g, n] : globals)
    if (g->hasInitializer()) n->setInitializer(constants.remap(g->getInitializer()));
  for (llvm::Function &f : spir) {
    auto *n = llvm::cast<llvm::Function>(map[&f]);
    if (!f.isDeclaration()) {
      llvm::SmallVector<llvm::ReturnInst *, 4> returns;
      llvm::CloneFunctionInto(n, &f, map, llvm::CloneFunctionChangeType::DifferentModule, returns,
                              "", nullptr, &types, &constants);
    }
    n->setAttributes(
        remapAttributes(c, n->getAttributes(), static_cast<unsigned>(n->arg_size()), types));
  }
  // Generic and private pointers are one space now: their casts are no-ops.
  for (llvm::Function &f : *m)
    for (llvm::Instruction &i : llvm::make_early_inc_range(llvm::instructions(f)))
      if (auto *cast = llvm::dyn_cast<llvm::AddrSpaceCastInst>(&i);
          cast && cast->getSrcAddressSpace() == cast->getDestAddressSpace()) {
        cast->replaceAllUsesWith(cast->getPointerOperand());
        cast->eraseFromParent();
      }
  // Intrinsics overloaded on pointer types (llvm.memcpy.p4.p1.i64) get their new names.
  std::vector<llvm::Function *> intrinsics;
  for (llvm::Function &f : *m)
    if (f.isIntrinsic()) intrinsics.push_back(&f);
  for (llvm::Function *f : intrinsics)
    if (llvm::Optional<llvm::Function *> renamed = llvm::Intrinsic::remangleIntrinsicFunction(f)) {
      f->replaceAllUsesWith(*renamed);
      f->eraseFromParent();
    }
  return m;
}

}  // namespace xpurt::cuda
