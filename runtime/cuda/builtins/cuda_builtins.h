// Shared helpers of the CUDA backend's OpenCL builtin library (runtime/cuda/builtins/*.cl):
// OpenCL C for nvptx64, compiled by clang-15 at build time and linked into every kernel module
// before libclc's NVPTX library (see runtime/cuda/nvptx_builtins.cpp).
//
// A sub-group is a warp: 32 work-items in local linear order (x fastest), which is how CUDA
// forms warps from a block of any shape; the last sub-group of a work-group may be partial.
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
static inline uint xp_lane(void) { return xp_local_linear_id() % 32u; }
static inline uint xp_warp(void) { return xp_local_linear_id() / 32u; }
// The number of work-items in this work-item's sub-group (32 but for a partial last one).
static inline uint xp_warp_size(void) { return min(32u, xp_local_items() - xp_warp() * 32u); }
// The member mask of this work-item's whole sub-group, for the functions every member calls.
static inline uint xp_warp_mask(void) {
  uint n = xp_warp_size();
  return n >= 32u ? ~0u : (1u << n) - 1u;
}
// The members that run this call together, for the non-uniform functions.
static inline uint xp_active_mask(void) {
  uint m;
  __asm__ volatile("activemask.b32 %0;" : "=r"(m));
  return m;
}
