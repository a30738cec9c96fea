// The loop metadata the CPU JIT gives the loops it emits around work-items
// (work_item_loops.cpp): whether LLVM may vectorise, unroll or interleave them, and which of
// their memory accesses carry no dependence from one work-item to the next.
#pragma once

#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>

#include <vector>

namespace xpurt::cpu {

// Marks the accesses of the work-item loop that do depend on the work-item before (the bounds
// of the regions the items chose): not part of the loop's parallel accesses.
inline constexpr const char *kSerialAccess = "xpurt.serial";

// A loop property without operands, such as "llvm.loop.unroll.disable".
llvm::MDNode *loopFlag(llvm::LLVMContext &c, const char *name);

// "llvm.loop.vectorize.enable" false.
llvm::MDNode *noVectorize(llvm::LLVMContext &c);

// Gives the loop whose latch ends in `latchBranch` these properties: a distinct loop id whose
// first operand is itself, as LLVM requires.
void setLoopProperties(llvm::BranchInst *latchBranch, llvm::ArrayRef<llvm::Metadata *> properties);

// The y and z loops over work-items: never unrolled by a run-time count. LLVM's tuning for
// CPUs with a loop buffer (AMD Zen, recent Intel cores) unrolls small loops whose trip count is
// known only at run time; here that copied whole x loops, and ScalarEvolution's bookkeeping
// after each unroll grows with the function, so a work-group function of many regions (every
// barrier and sub-group collective starts one) compiled in time quadratic in its regions: the
// sub-group builtins' test module took 147 s to compile, 58 s with these marks.
void markOuter(llvm::LLVMContext &c, llvm::BranchInst *latchBranch);

// Work-items of a group are independent between barriers: tell the vectoriser that the loop
// over them carries no memory dependence. Not interleaved: a vector step of four interleaved
// vectors needs 32 work-items in x on AVX2, and 16 x 16 groups would always take the scalar
// remainder instead. Nor unrolled once vectorised: the smaller vector loop invited LLVM to
// unroll it and the loops around it, for a third more compile time and nothing measurable.
// vectorise = false: the loop runs rarely (the checked copy that only groups straddling a
// bound take); keep it scalar rather than spend compile time on vector code for it.
// Where LLVM declines to vectorise a body without loops of its own, it is not unrolled by a
// run-time count either (see markOuter). (A body's loop could inherit the metadata if its exit
// folded into this latch, as markDone says; bodies with loops keep LLVM's choice.)
void markParallel(llvm::LLVMContext &c, const std::vector<llvm::BasicBlock *> &body,
                  llvm::BranchInst *latchBranch, bool bodyHasLoops, bool vectorise = true);

// Loop metadata: not vectorised again. (Not "unroll.disable": when LLVM folds this latch
// into the exit of a loop in the body, that loop takes the metadata, and sgemm's k loop
// would no longer be unrolled.)
void markDone(llvm::LLVMContext &c, llvm::BranchInst *latchBranch);

}  // namespace xpurt::cpu
