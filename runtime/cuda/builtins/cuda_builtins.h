// Shared helpers of the CUDA backend's OpenCL builtin library (runtime/cuda/builtins/*.cl):
// OpenCL C for nvptx64, compiled by clang-15 at build time and linked into every kernel module
// before libclc's NVPTX library (see runtime/cuda/nvptx_builtins.cpp).
//
// A sub-group is a warp of 32 work-items, or half a warp for a kernel that requires sub-groups
// of 16, in local linear order (x fastest), which is how CUDA forms warps from a block of any
// shape; the last sub-group of a work-group may be partial. Member masks are the warp's: bit
// i is the warp's lane i.
#pragma once

#include "builtins.h"

// The position of this work-item in its work-group, read from the PTX special registers.
static inline uint xp_local_items(void) {
  return __nvvm_read_ptx_sreg_ntid_x() * __nvvm_read_ptx_sreg_ntid_y() *
         __nvvm_read_ptx_sreg_ntid_z();
}
static inline uint xp_local_linear_id(void) {
  return ((uint)__nvvm_read_ptx_sreg_tid_z() * __nvvm_read_ptx_sreg_ntid_y() +
          __nvvm_read_ptx_sreg_tid_y()) *
             __nvvm_read_ptx_sreg_ntid_x() +
         __nvvm_read_ptx_sreg_tid_x();
}
// The launch values CUDA has no register for (nvptx_lowering.hpp's kLaunchValues): the
// kernel's entry takes them as parameters and the PTX compiler defines these readers; d < 3.
// A launch the runtime split into launches of whole blocks (a partial last work-group) gives
// each part's first group id as its group base.
uint xpurt_cuda_work_dim(void);
ulong xpurt_cuda_global_offset(uint d);
ulong xpurt_cuda_global_size(uint d);
uint xpurt_cuda_num_groups(uint d);
uint xpurt_cuda_enqueued_local_size(uint d);
uint xpurt_cuda_group_base(uint d);
// The sub-group size of the kernel being compiled, 32 or 16: the PTX compiler replaces the
// calls with the launching kernel's (nvptx_kernels.cpp), so that it folds to a constant.
uint xpurt_cuda_sub_group_width(void);
static inline uint xp_width(void) { return xpurt_cuda_sub_group_width(); }
static inline uint xp_lane(void) { return xp_local_linear_id() % xp_width(); }
static inline uint xp_warp(void) { return xp_local_linear_id() / xp_width(); }
// The warp lane of this sub-group's member 0 (16 for the second half of a warp).
static inline uint xp_base(void) { return xp_local_linear_id() % 32u - xp_lane(); }
// The number of work-items in this work-item's sub-group (all but a partial last one's).
static inline uint xp_warp_size(void) {
  return min(xp_width(), xp_local_items() - xp_warp() * xp_width());
}
// The warp lanes of this work-item's whole sub-group, for the functions every member calls.
static inline uint xp_warp_mask(void) {
  uint n = xp_warp_size();
  return (n >= 32u ? ~0u : (1u << n) - 1u) << xp_base();
}
// The members that run this call together, for the non-uniform functions.
static inline uint xp_active_mask(void) {
  uint m;
  __asm__ volatile("activemask.b32 %0;" : "=r"(m));
  uint w = xp_width();
  return w >= 32u ? m : m & (((1u << w) - 1u) << xp_base());
}
// The member number of the lowest member in a mask of warp lanes.
static inline uint xp_first(uint mask) { return (uint)__builtin_ctz(mask) - xp_base(); }
