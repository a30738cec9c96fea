// The whole-function vectoriser's instructions: values by shape, memory accesses, calls, and
// what runs once per lane.
#include "work_item_loops.hpp"
#include "work_item_vectorizer_impl.hpp"

#include <llvm/ADT/Triple.h>
#include <llvm/Analysis/VectorUtils.h>
#include <llvm/IR/IntrinsicInst.h>

#include <optional>

namespace xpurt::cpu::wfv {

// ---- values ------------------------------------------------------------------------------

Value *Vectorizer::scalar(Value *v) {
  if (llvm::isa<llvm::Constant>(v) || llvm::isa<llvm::BasicBlock>(v) ||
      llvm::isa<llvm::MetadataAsValue>(v) || llvm::isa<llvm::InlineAsm>(v))
    return v;
  auto it = scalars_.find(v);
  if (it == scalars_.end())
    throw Unsupported{"internal: a uniform value used before its definition"};
  return it->second;
}

Value *Vectorizer::base(Value *v) {
  auto it = bases_.find(v);
  if (it == bases_.end()) throw Unsupported{"internal: a consecutive value without its base"};
  return it->second;
}

// Not cached: a vector made inside a loop does not dominate what follows the loop.
Value *Vectorizer::vector(Value *v) {
  Shape s = shapes_.of(v);
  if (s.kind == Shape::Uniform) {
    Value *x = scalar(v);
    if (unsigned n = elementsOf(v->getType()); v->getType()->isVectorTy()) {
      std::vector<int> repeated;
      for (unsigned l = 0; l < w_; ++l)
        for (unsigned j = 0; j < n; ++j) repeated.push_back(static_cast<int>(j));
      return b_.CreateShuffleVector(x, repeated);
    }
    if (auto *c = llvm::dyn_cast<llvm::Constant>(x))
      return llvm::ConstantVector::getSplat(llvm::ElementCount::getFixed(w_), c);
    return b_.CreateVectorSplat(w_, x);
  }
  if (s.kind == Shape::Consecutive) {
    std::vector<llvm::Constant *> steps;
    llvm::Type *t = v->getType()->isPointerTy() ? b_.getInt64Ty() : v->getType();
    for (unsigned l = 0; l < w_; ++l)
      steps.push_back(llvm::ConstantInt::get(t, static_cast<uint64_t>(s.stride * l), true));
    Value *offsets = llvm::ConstantVector::get(steps);
    Value *first = b_.CreateVectorSplat(w_, base(v));
    if (v->getType()->isPointerTy()) return b_.CreateGEP(b_.getInt8Ty(), first, offsets);
    return b_.CreateAdd(first, offsets);
  }
  auto it = vectors_.find(v);
  if (it == vectors_.end())
    throw Unsupported{"internal: a varying value used before its definition"};
  return it->second;
}

Value *Vectorizer::lane(Value *v, unsigned l) {
  Shape s = shapes_.of(v);
  if (s.kind == Shape::Uniform) return scalar(v);
  if (s.kind == Shape::Consecutive) {
    if (v->getType()->isPointerTy())
      return b_.CreateConstGEP1_64(b_.getInt8Ty(), base(v), static_cast<uint64_t>(s.stride * l));
    return b_.CreateAdd(
        base(v), llvm::ConstantInt::get(v->getType(), static_cast<uint64_t>(s.stride * l), true));
  }
  if (v->getType()->isVectorTy()) {
    std::vector<int> own;
    unsigned n = elementsOf(v->getType());
    for (unsigned j = 0; j < n; ++j) own.push_back(static_cast<int>(l * n + j));
    return b_.CreateShuffleVector(vector(v), own);
  }
  return b_.CreateExtractElement(vector(v), b_.getInt32(l));
}

Value *Vectorizer::maskFor(Value *mask, llvm::Type *laneType) {
  unsigned n = elementsOf(laneType);
  if (!laneType->isVectorTy()) return mask;
  if (isAllTrue(mask))
    return llvm::Constant::getAllOnesValue(vectorOf(laneType->getWithNewType(b_.getInt1Ty())));
  std::vector<int> repeated;
  for (unsigned l = 0; l < w_; ++l)
    for (unsigned j = 0; j < n; ++j) repeated.push_back(static_cast<int>(l));
  return b_.CreateShuffleVector(mask, repeated);
}

Value *Vectorizer::withLane(Value *packed, Value *laneValue, unsigned l) {
  if (!laneValue->getType()->isVectorTy())
    return b_.CreateInsertElement(packed, laneValue, b_.getInt32(l));
  unsigned n = elementsOf(laneValue->getType()), all = w_ * n;
  std::vector<int> widen, merge;
  for (unsigned k = 0; k < all; ++k) widen.push_back(k < n ? static_cast<int>(k) : -1);
  for (unsigned k = 0; k < all; ++k)
    merge.push_back(k >= l * n && k < (l + 1) * n ? static_cast<int>(all + k - l * n)
                                                  : static_cast<int>(k));
  return b_.CreateShuffleVector(packed, b_.CreateShuffleVector(laneValue, widen), merge);
}

// A uniform address, or a harmless one when no lane runs the access.
Value *Vectorizer::safeAddress(Value *address) {
  Value *a = scalar(address);
  if (isAllTrue(mask_)) return a;
  Value *dummy = dummy_;
  if (dummy->getType() != a->getType()) dummy = b_.CreateAddrSpaceCast(dummy, a->getType());
  return b_.CreateSelect(any(mask_), a, dummy);
}

// ---- instructions ------------------------------------------------------------------------

void Vectorizer::emitInstruction(Instruction &i) {
  if (llvm::isa<llvm::DbgInfoIntrinsic>(i) || i.isLifetimeStartOrEnd() ||
      llvm::isa<llvm::AssumeInst>(i))
    return;
  if (llvm::isa<llvm::LoadInst>(i) || llvm::isa<llvm::StoreInst>(i)) return emitMemory(i);
  if (auto *call = llvm::dyn_cast<llvm::CallBase>(&i)) return emitCall(*call);
  if (llvm::isa<llvm::AtomicRMWInst>(i) || llvm::isa<llvm::AtomicCmpXchgInst>(i))
    return scalarize(i);
  if (llvm::isa<llvm::FenceInst>(i)) {
    b_.Insert(i.clone());
    return;
  }
  Shape s = shapes_.of(&i);
  // Integer division by a lane that does not run it would trap: divide by one there.
  auto divisor = [&](Value *d, bool vectorised) -> Value * {
    if (isAllTrue(mask_)) return d;
    Value *one = llvm::ConstantInt::get(d->getType(), 1);
    return vectorised ? selectLanes(mask_, d, one, i.getType())
                      : b_.CreateSelect(any(mask_), d, one);
  };
  bool divides = i.getOpcode() == Instruction::SDiv || i.getOpcode() == Instruction::UDiv ||
                 i.getOpcode() == Instruction::SRem || i.getOpcode() == Instruction::URem;
  if (s.kind == Shape::Uniform || s.kind == Shape::Consecutive) {
    Instruction *copy = i.clone();
    for (unsigned k = 0; k < copy->getNumOperands(); ++k) {
      Value *op = i.getOperand(k);
      copy->setOperand(k, shapes_.of(op).kind == Shape::Consecutive ? base(op) : scalar(op));
    }
    if (divides) copy->setOperand(1, divisor(copy->getOperand(1), false));
    b_.Insert(copy, i.getName());
    (s.kind == Shape::Uniform ? scalars_ : bases_)[&i] = copy;
    return;
  }
  Value *v = nullptr;
  if (auto *bin = llvm::dyn_cast<llvm::BinaryOperator>(&i)) {
    Value *rhs = vector(bin->getOperand(1));
    if (divides) rhs = divisor(rhs, true);
    v = b_.CreateBinOp(bin->getOpcode(), vector(bin->getOperand(0)), rhs, i.getName());
    if (auto *out = llvm::dyn_cast<Instruction>(v)) out->copyIRFlags(bin);
  } else if (auto *un = llvm::dyn_cast<llvm::UnaryOperator>(&i)) {
    v = b_.CreateUnOp(un->getOpcode(), vector(un->getOperand(0)), i.getName());
    if (auto *out = llvm::dyn_cast<Instruction>(v)) out->copyIRFlags(un);
  } else if (auto *cmp = llvm::dyn_cast<llvm::CmpInst>(&i)) {
    v = b_.CreateCmp(cmp->getPredicate(), vector(cmp->getOperand(0)), vector(cmp->getOperand(1)),
                     i.getName());
  } else if (auto *cast = llvm::dyn_cast<llvm::CastInst>(&i)) {
    v = b_.CreateCast(cast->getOpcode(), vector(cast->getOperand(0)), vectorOf(i.getType()),
                      i.getName());
  } else if (auto *sel = llvm::dyn_cast<llvm::SelectInst>(&i)) {
    // A condition per element, per lane (its bit for each of the lane's elements), or one.
    Value *cond = sel->getCondition();
    Value *c = cond->getType()->isVectorTy() ? vector(cond)
               : shapes_.uniform(cond)       ? scalar(cond)
                                             : maskFor(vector(cond), i.getType());
    v = b_.CreateSelect(c, vector(sel->getTrueValue()), vector(sel->getFalseValue()), i.getName());
  } else if (auto *gep = llvm::dyn_cast<llvm::GetElementPtrInst>(&i)) {
    auto pick = [&](Value *x) { return shapes_.uniform(x) ? scalar(x) : vector(x); };
    std::vector<Value *> indices;
    for (Value *index : gep->indices()) indices.push_back(pick(index));
    v = b_.CreateGEP(gep->getSourceElementType(), pick(gep->getPointerOperand()), indices,
                     i.getName(), gep->isInBounds());
  } else if (llvm::isa<llvm::FreezeInst>(i)) {
    v = b_.CreateFreeze(vector(i.getOperand(0)), i.getName());
  } else if (llvm::isa<llvm::ExtractElementInst>(i) || llvm::isa<llvm::InsertElementInst>(i) ||
             llvm::isa<llvm::ShuffleVectorInst>(i)) {
    return emitVectorElements(i);
  } else {
    return scalarize(i);
  }
  vectors_[&i] = v;
}

void Vectorizer::emitMemory(Instruction &i) {
  auto *load = llvm::dyn_cast<llvm::LoadInst>(&i);
  auto *store = llvm::dyn_cast<llvm::StoreInst>(&i);
  bool simple = load ? load->isSimple() : store->isSimple();
  Value *address = load ? load->getPointerOperand() : store->getPointerOperand();
  llvm::Type *type = load ? load->getType() : store->getValueOperand()->getType();
  llvm::Align align = load ? load->getAlign() : store->getAlign();
  bool element = type->isIntegerTy() || type->isFloatingPointTy() || type->isPointerTy();
  // Vectors without padding: consecutive ones are one wider vector in memory.
  // (And of whole bytes: <4 x i1> takes a byte per lane in memory, half a byte packed.)
  bool packs = packable(type) && layout_.getTypeStoreSize(type) == layout_.getTypeAllocSize(type) &&
               type->getScalarSizeInBits() % 8 == 0;
  Shape where = shapes_.of(address);
  bool contiguous = where.kind == Shape::Consecutive &&
                    where.stride == static_cast<int64_t>(layout_.getTypeAllocSize(type));
  if (!simple || layout_.getTypeAllocSize(type) > 256 ||
      (!element && where.kind != Shape::Uniform && !(packs && contiguous)) ||
      (!element && store && !shapes_.uniform(store->getValueOperand()) && !(packs && contiguous)))
    return scalarize(i);
  bool full = isAllTrue(mask_);
  if (load) {
    if (where.kind == Shape::Uniform) {
      scalars_[load] = b_.CreateAlignedLoad(type, safeAddress(address), align, load->getName());
      return;
    }
    llvm::Type *vt = vectorOf(type);
    if (contiguous) {
      vectors_[load] = full ? static_cast<Value *>(b_.CreateAlignedLoad(vt, base(address), align))
                            : b_.CreateMaskedLoad(vt, base(address), align, maskFor(mask_, type));
      return;
    }
    vectors_[load] = b_.CreateMaskedGather(vt, vector(address), align, mask_);
    return;
  }
  Value *value = store->getValueOperand();
  if (where.kind == Shape::Uniform && shapes_.uniform(value)) {
    b_.CreateAlignedStore(scalar(value), safeAddress(address), align);
    return;
  }
  if (contiguous) {
    if (full)
      b_.CreateAlignedStore(vector(value), base(address), align);
    else
      b_.CreateMaskedStore(vector(value), base(address), align, maskFor(mask_, type));
    return;
  }
  // Lanes in order: where several write one address, the last one's value stays.
  Value *addresses =
      where.kind == Shape::Uniform ? b_.CreateVectorSplat(w_, scalar(address)) : vector(address);
  b_.CreateMaskedScatter(vector(value), addresses, align, mask_);
}

void Vectorizer::emitCall(llvm::CallBase &call) {
  Shape s = shapes_.of(&call);
  llvm::Function *callee = call.getCalledFunction();
  llvm::StringRef name = callee->getName();
  bool workItem = name.consume_front(kWorkItemPrefix);
  if (workItem && s.kind == Shape::Varying) {
    // Per lane, a work-item function would answer for the first work-item.
    if (name != kIsLocal && name != kIsPrivate)
      throw Unsupported{"a work-item function of a varying dimension"};
    return scalarize(call);
  }
  // A work-item function, or a call that touches no memory on uniform arguments: once, for
  // all lanes (a consecutive work-item function gives the first lane's value).
  if (workItem || (s.kind == Shape::Uniform && !call.getType()->isVoidTy())) {
    Instruction *copy = call.clone();
    for (unsigned k = 0; k < call.arg_size(); ++k)
      copy->setOperand(k, scalar(call.getArgOperand(k)));
    b_.Insert(copy, call.getName());
    (s.kind == Shape::Uniform ? scalars_ : bases_)[&call] = copy;
    return;
  }
  llvm::Type *ret = call.getType();
  bool pure = call.doesNotAccessMemory() && !call.mayHaveSideEffects();
  auto plainType = [](llvm::Type *t) {
    return t->isIntegerTy() || t->isFloatingPointTy() || packable(t);
  };
  bool plain = plainType(ret), vectors = ret->isVectorTy();
  for (const llvm::Use &arg : call.args()) {
    plain = plain && plainType(arg->getType());
    vectors = vectors || arg->getType()->isVectorTy();
  }
  if (pure && plain) {
    // glibc's vector math (libmvec), as LLVM's loop vectoriser would call it; for scalars.
    llvm::StringRef vectorName = vectors ? llvm::StringRef()
                                         : libraryInfo_.getVectorizedFunction(
                                               callee->getName(), llvm::ElementCount::getFixed(w_));
    if (!vectorName.empty()) {
      std::vector<llvm::Type *> params;
      std::vector<Value *> args;
      for (const llvm::Use &arg : call.args()) {
        params.push_back(vectorOf(arg->getType()));
        args.push_back(vector(arg.get()));
      }
      auto fn = f_.getParent()->getOrInsertFunction(
          vectorName, llvm::FunctionType::get(vectorOf(ret), params, false));
      if (auto *decl = llvm::dyn_cast<llvm::Function>(fn.getCallee())) {
        decl->setDoesNotAccessMemory();
        decl->setDoesNotThrow();
      }
      vectors_[&call] = b_.CreateCall(fn, args, call.getName());
      return;
    }
    llvm::Intrinsic::ID id = callee->getIntrinsicID();
    // Element by element: on packed lanes too, if the result is a vector like its operands.
    if (id != llvm::Intrinsic::not_intrinsic && llvm::isTriviallyVectorizable(id) &&
        (!vectors || ret->isVectorTy())) {
      std::vector<llvm::Type *> types{vectorOf(ret)};
      std::vector<Value *> args;
      for (unsigned k = 0; k < call.arg_size(); ++k) {
        Value *arg = call.getArgOperand(k);
        bool scalarOperand = llvm::isVectorIntrinsicWithScalarOpAtArg(id, k);
        if (scalarOperand && !shapes_.uniform(arg)) return scalarize(call);
        args.push_back(scalarOperand ? scalar(arg) : vector(arg));
        if (llvm::isVectorIntrinsicWithOverloadTypeAtArg(id, k))
          types.push_back(args.back()->getType());
      }
      llvm::Function *vectorForm = llvm::Intrinsic::getDeclaration(f_.getParent(), id, types);
      vectors_[&call] = b_.CreateCall(vectorForm, args, call.getName());
      return;
    }
  }
  scalarize(call);
}

// One copy of `i` per lane, each on that lane's operands; with side effects, only for the
// lanes that run it, in lane order.
void Vectorizer::scalarize(Instruction &i) {
  llvm::LLVMContext &c = g_->getContext();
  bool effects =
      i.mayHaveSideEffects() || i.mayReadFromMemory() ||
      (llvm::isa<llvm::CallBase>(i) && !llvm::cast<llvm::CallBase>(i).doesNotAccessMemory());
  bool guarded = effects || i.mayHaveSideEffects();
  bool result = !i.getType()->isVoidTy();
  if (result && !variesPerLane(i.getType()))
    throw Unsupported{"an aggregate value that differs between work-items"};
  Value *v = result ? llvm::PoisonValue::get(vectorOf(i.getType())) : nullptr;
  for (unsigned l = 0; l < w_; ++l) {
    BasicBlock *before = b_.GetInsertBlock(), *run = nullptr, *next = nullptr;
    if (guarded && !isAllTrue(mask_)) {
      run = BasicBlock::Create(c, "wfv.lane", g_);
      next = BasicBlock::Create(c, "wfv.lane.next", g_);
      b_.CreateCondBr(b_.CreateExtractElement(mask_, b_.getInt32(l)), run, next);
      b_.SetInsertPoint(run);
    }
    Instruction *copy = i.clone();
    for (unsigned k = 0; k < i.getNumOperands(); ++k) {
      Value *op = i.getOperand(k);
      if (llvm::isa<llvm::Function>(op) || llvm::isa<llvm::BasicBlock>(op)) continue;
      copy->setOperand(k, lane(op, l));
    }
    b_.Insert(copy);
    Value *laneValue = copy;
    if (run) {
      BasicBlock *ran = b_.GetInsertBlock();
      b_.CreateBr(next);
      b_.SetInsertPoint(next);
      if (result) {
        auto *phi = b_.CreatePHI(i.getType(), 2);
        phi->addIncoming(copy, ran);
        phi->addIncoming(llvm::Constant::getNullValue(i.getType()), before);
        laneValue = phi;
      }
    }
    if (result) v = withLane(v, laneValue, l);
  }
  if (result) vectors_[&i] = v;
}

}  // namespace xpurt::cpu::wfv

namespace xpurt::cpu::wfv {

// Elements of vectors that differ between work-items, on the packed lanes: with constant
// positions, shuffles of the whole; otherwise one lane at a time.
void Vectorizer::emitVectorElements(Instruction &i) {
  auto constantIndex = [](Value *index) -> std::optional<unsigned> {
    if (auto *c = llvm::dyn_cast<llvm::ConstantInt>(index))
      if (c->getValue().ult(1024)) return static_cast<unsigned>(c->getZExtValue());
    return std::nullopt;
  };
  if (auto *extract = llvm::dyn_cast<llvm::ExtractElementInst>(&i)) {
    Value *from = extract->getVectorOperand();
    auto index = constantIndex(extract->getIndexOperand());
    unsigned n = elementsOf(from->getType());
    if (!index || *index >= n || shapes_.uniform(from)) return scalarize(i);
    std::vector<int> picked;
    for (unsigned l = 0; l < w_; ++l) picked.push_back(static_cast<int>(l * n + *index));
    vectors_[&i] = b_.CreateShuffleVector(vector(from), picked, i.getName());
    return;
  }
  if (auto *insert = llvm::dyn_cast<llvm::InsertElementInst>(&i)) {
    auto index = constantIndex(insert->getOperand(2));
    unsigned n = elementsOf(i.getType()), all = w_ * n;
    if (!index || *index >= n) return scalarize(i);
    std::vector<int> widen, merge;
    for (unsigned k = 0; k < all; ++k) widen.push_back(k < w_ ? static_cast<int>(k) : -1);
    for (unsigned l = 0; l < w_; ++l)
      for (unsigned j = 0; j < n; ++j)
        merge.push_back(j == *index ? static_cast<int>(all + l) : static_cast<int>(l * n + j));
    Value *elements = b_.CreateShuffleVector(vector(insert->getOperand(1)), widen);
    vectors_[&i] =
        b_.CreateShuffleVector(vector(insert->getOperand(0)), elements, merge, i.getName());
    return;
  }
  auto *shuffle = llvm::cast<llvm::ShuffleVectorInst>(&i);
  unsigned n = elementsOf(shuffle->getOperand(0)->getType()), m = elementsOf(i.getType());
  std::vector<int> picked;
  for (unsigned l = 0; l < w_; ++l)
    for (unsigned j = 0; j < m; ++j) {
      int k = shuffle->getMaskValue(j);
      picked.push_back(k < 0                          ? -1
                       : static_cast<unsigned>(k) < n ? static_cast<int>(l * n + k)
                                                      : static_cast<int>(w_ * n + l * n + k - n));
    }
  vectors_[&i] = b_.CreateShuffleVector(vector(shuffle->getOperand(0)),
                                        vector(shuffle->getOperand(1)), picked, i.getName());
}

}  // namespace xpurt::cpu::wfv
