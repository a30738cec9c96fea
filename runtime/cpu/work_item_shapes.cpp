#include "work_item_shapes.hpp"

#include "barrier_regions.hpp"
#include "uniformity.hpp"
#include "work_item_loops.hpp"

#include <llvm/Analysis/PostDominators.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/GetElementPtrTypeIterator.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Operator.h>

#include <optional>

namespace xpurt::cpu {
namespace {

const Shape kUniform{Shape::Uniform, 0};
const Shape kVarying{Shape::Varying, 0};

Shape consecutive(int64_t stride) {
  return stride == 0 ? kUniform : Shape{Shape::Consecutive, stride};
}

llvm::StringRef workItemName(const llvm::CallBase &call) {
  const llvm::Function *callee = call.getCalledFunction();
  if (!callee) return {};
  llvm::StringRef name = callee->getName();
  return name.consume_front(kWorkItemPrefix) ? name : llvm::StringRef();
}

std::optional<int64_t> constantInt(const llvm::Value *v) {
  if (auto *c = llvm::dyn_cast<llvm::ConstantInt>(v))
    if (c->getBitWidth() <= 64) return c->getSExtValue();
  return std::nullopt;
}

}  // namespace

bool isConsecutiveWorkItemCall(const llvm::CallBase &call) {
  llvm::StringRef name = workItemName(call);
  if (name == "_Z12get_local_idj" || name == "_Z13get_global_idj") {
    auto dim = constantInt(call.getArgOperand(0));
    return dim && *dim == 0;
  }
  return name == "_Z19get_local_linear_idv" || name == "_Z20get_global_linear_idv";
}

WorkItemShapes::WorkItemShapes(llvm::Function &body) {
  llvm::PostDominatorTree postDominators(body);
  for (bool changed = true; changed;) {
    changed = false;
    // Shapes until they settle: they only ever get worse, so this ends.
    for (bool moved = true; moved;) {
      moved = false;
      for (const llvm::Instruction &i : llvm::instructions(body)) {
        Shape s = compute(i);
        auto [it, fresh] = shapes_.try_emplace(&i, s);
        if (!fresh && !(it->second == s)) {
          // Never back: uniform, then consecutive, then varying.
          if (it->second.kind == Shape::Varying) continue;
          if (it->second.kind == Shape::Consecutive && s.kind != Shape::Varying) s = kVarying;
          it->second = s;
          moved = true;
        } else if (fresh) {
          moved = true;
        }
      }
    }
    // Blocks that only some work-items run, and where their paths meet: a phi chooses there.
    auto [divergent, joins] = divergentBlocks(
        body, postDominators, [&](const llvm::Value *cond) { return !uniform(cond); });
    if (divergent != divergent_ || joins != joins_) {
      divergent_ = std::move(divergent);
      joins_ = std::move(joins);
      changed = true;
    }
  }
}

Shape WorkItemShapes::of(const llvm::Value *v) const {
  if (!llvm::isa<llvm::Instruction>(v)) return kUniform;  // arguments, constants, globals
  auto it = shapes_.find(v);
  return it == shapes_.end() ? kUniform : it->second;  // not seen yet: optimistic
}

Shape WorkItemShapes::compute(const llvm::Instruction &i) const {
  auto allUniform = [&] {
    for (const llvm::Value *op : i.operands())
      if (!llvm::isa<llvm::BasicBlock>(op) && !llvm::isa<llvm::Function>(op) && !uniform(op))
        return false;
    return true;
  };
  if (auto *phi = llvm::dyn_cast<llvm::PHINode>(&i)) {
    const llvm::BasicBlock *b = phi->getParent();
    if (divergent_.count(b) || joins_.count(b)) return kVarying;
    return allUniform() ? kUniform : kVarying;
  }
  if (auto *call = llvm::dyn_cast<llvm::CallBase>(&i)) {
    llvm::StringRef name = workItemName(*call);
    if (!name.empty()) {
      if (isConsecutiveWorkItemCall(*call)) return consecutive(1);
      if (name == "_Z12get_local_idj" || name == "_Z13get_global_idj")
        return constantInt(call->getArgOperand(0)) ? kUniform : kVarying;
      // A work-item's copy of a value kept across a barrier: `size` bytes after the one before.
      if (("xpurt.wi." + name.str()) == kPrivateSlot) {
        auto size = constantInt(call->getArgOperand(1));
        return size ? consecutive(*size) : kVarying;
      }
      return allUniform() ? kUniform : kVarying;
    }
    if (call->doesNotAccessMemory() && !call->mayHaveSideEffects() && allUniform()) return kUniform;
    return kVarying;
  }
  if (auto *load = llvm::dyn_cast<llvm::LoadInst>(&i))
    return load->isSimple() && uniform(load->getPointerOperand()) ? kUniform : kVarying;
  if (llvm::isa<llvm::AllocaInst>(i) || llvm::isa<llvm::AtomicRMWInst>(i) ||
      llvm::isa<llvm::AtomicCmpXchgInst>(i))
    return kVarying;
  if (allUniform()) return kUniform;
  if (i.getType()->isVectorTy()) return kVarying;  // steps are for scalars and addresses
  // Consecutive values: the first work-item's value and a constant step.
  auto step = [&](unsigned k) -> std::optional<int64_t> {
    Shape s = of(i.getOperand(k));
    if (s.kind == Shape::Uniform) return 0;
    if (s.kind == Shape::Consecutive) return s.stride;
    return std::nullopt;
  };
  if (auto *bin = llvm::dyn_cast<llvm::BinaryOperator>(&i)) {
    auto a = step(0), b = step(1);
    if (!a || !b) return kVarying;
    switch (bin->getOpcode()) {
      case llvm::Instruction::Add:
        return *a && *b ? kVarying : consecutive(*a + *b);
      case llvm::Instruction::Sub:
        return *a && *b ? kVarying : consecutive(*a - *b);
      case llvm::Instruction::Mul: {
        auto ca = constantInt(i.getOperand(0)), cb = constantInt(i.getOperand(1));
        if (*a && cb) return consecutive(*a * *cb);
        if (*b && ca) return consecutive(*b * *ca);
        return kVarying;
      }
      case llvm::Instruction::Shl: {
        auto cb = constantInt(i.getOperand(1));
        if (!*a || *b || !cb || *cb < 0 || *cb > 40) return kVarying;
        return consecutive(*a * (int64_t{1} << *cb));
      }
      case llvm::Instruction::AShr:
      case llvm::Instruction::LShr: {
        // ashr (shl x, 32), 32: how a sign extension of a 32-bit id looks once folded.
        auto cb = constantInt(i.getOperand(1));
        if (!*a || *b || !cb || *cb < 0 || *cb > 62) return kVarying;
        int64_t unit = int64_t{1} << *cb;
        return *a % unit == 0 ? consecutive(*a / unit) : kVarying;
      }
      default:
        return kVarying;
    }
  }
  if (llvm::isa<llvm::SExtInst>(i) || llvm::isa<llvm::ZExtInst>(i) ||
      llvm::isa<llvm::TruncInst>(i)) {
    // Ids and offsets do not wrap: OpenCL sizes fit their types.
    Shape s = of(i.getOperand(0));
    return s.kind == Shape::Consecutive ? s : kVarying;
  }
  if (auto *gep = llvm::dyn_cast<llvm::GetElementPtrInst>(&i)) {
    if (gep->getType()->isVectorTy()) return kVarying;
    const llvm::DataLayout &layout = i.getModule()->getDataLayout();
    auto base = step(0);
    if (!base) return kVarying;
    int64_t stride = *base;
    unsigned k = 1;
    for (auto t = llvm::gep_type_begin(gep); t != llvm::gep_type_end(gep); ++t, ++k) {
      auto s = step(k);
      if (!s) return kVarying;
      if (*s == 0) continue;
      if (t.isStruct()) return kVarying;
      stride += *s * static_cast<int64_t>(layout.getTypeAllocSize(t.getIndexedType()));
    }
    return consecutive(stride);
  }
  return kVarying;
}

}  // namespace xpurt::cpu
