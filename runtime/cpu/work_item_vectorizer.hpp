// Whole-function vectorisation of a work-item body across x (ISPC's SPMD-on-SIMD, Karrenberg's
// WFV): one call runs `width` consecutive work-items. Values the same for all of them stay
// scalar, `get_local_id(0) + c` stays a base and a stride (so `a[get_global_id(0)]` is one
// vector load), branches they may take differently become masks, and a loop runs while any
// of them is still in it. The work-group builder uses it where LLVM's loop vectoriser cannot
// vectorise the loop over work-items: bodies with loops of their own (mandelbrot's escape
// loop, a loop whose count is an argument); and on regions between barriers whose only
// branches are loops' (anyBody), where it keeps strided reads of __local memory as gathers and
// runs loops that all work-items run alike as plain loops. A work-item's float4 becomes the
// lanes' float4s side by side (one load for `in[get_global_id(0)]`). Anything it cannot prove
// right (private arrays, aggregates, vectors of addresses, collectives, irregular loops) leaves
// the body to the scalar loop.
#pragma once

#include <llvm/IR/Function.h>

#include <string>

namespace xpurt::cpu {

// XPURT_CPU_VECTORIZE=0 (or off, false) turns it off, for comparing and for the conformance
// suite's second run; on by default. Another value is an XPURT_ERROR_INVALID_CONFIG error.
bool workItemVectorizerEnabled();

// The vector width for the host CPU's features (as "+avx2,+fma,..."): 16 with AVX-512, 8 with
// AVX, else 4.
unsigned vectorWidthFor(const std::string &cpuFeatures);

// A function with `body`'s parameters and return type that runs `width` consecutive
// work-items in x; its work-item functions (xpurt.wi.*) give the first one's values. Returns
// nullptr with the reason in `why` when it cannot. `body` must be flat (its callees inlined)
// and return nothing or the same value for every work-item. Unless `anyBody`, a body whose
// loops all work-items leave together after a constant count is left to LLVM (a reason in
// `why`).
llvm::Function *vectorizeWorkItems(llvm::Function &body, unsigned width, bool anyBody,
                                   std::string &why);

}  // namespace xpurt::cpu
