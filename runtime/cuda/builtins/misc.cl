// Builtins libclc's NVPTX library lacks besides the collectives: get_fence, the async copies
// and prefetch (libclc has none for half and 3-element vectors; these serve every type), half
// vload/vstore, scalar nextafter and the translator's __to_global and the like; and 64-bit
// rotate, which it gets wrong.
#include "cuda_builtins.h"

// A generic pointer names __local memory when it points into the block's shared memory.
cl_mem_fence_flags OVL get_fence(const __generic void *p) {
  return __nvvm_isspacep_shared((const void *)p) ? CLK_LOCAL_MEM_FENCE : CLK_GLOBAL_MEM_FENCE;
}
cl_mem_fence_flags OVL get_fence(__generic void *p) { return get_fence((const __generic void *)p); }

// Async copies: every work-item of the group copies its share (they all call it with the same
// arguments); the wait (wait_group_events, a barrier) completes the copy.
#define XP_ASYNC(T)                                                                            \
  event_t OVL async_work_group_copy(__local T *dst, const __global T *src, size_t n,           \
                                    event_t e) {                                               \
    for (size_t i = xp_local_linear_id(); i < n; i += xp_local_items()) dst[i] = src[i];       \
    return e;                                                                                  \
  }                                                                                            \
  event_t OVL async_work_group_copy(__global T *dst, const __local T *src, size_t n,           \
                                    event_t e) {                                               \
    for (size_t i = xp_local_linear_id(); i < n; i += xp_local_items()) dst[i] = src[i];       \
    return e;                                                                                  \
  }                                                                                            \
  event_t OVL async_work_group_strided_copy(__local T *dst, const __global T *src, size_t n,   \
                                            size_t stride, event_t e) {                        \
    for (size_t i = xp_local_linear_id(); i < n; i += xp_local_items())                        \
      dst[i] = src[i * stride];                                                                \
    return e;                                                                                  \
  }                                                                                            \
  event_t OVL async_work_group_strided_copy(__global T *dst, const __local T *src, size_t n,   \
                                            size_t stride, event_t e) {                        \
    for (size_t i = xp_local_linear_id(); i < n; i += xp_local_items())                        \
      dst[i * stride] = src[i];                                                                \
    return e;                                                                                  \
  }                                                                                            \
  void OVL prefetch(const __global T *p, size_t n) {}
#define XP_ASYNC_WIDTHS(T) \
  XP_ASYNC(T) XP_ASYNC(T##2) XP_ASYNC(T##3) XP_ASYNC(T##4) XP_ASYNC(T##8) XP_ASYNC(T##16)
XP_ASYNC_WIDTHS(char) XP_ASYNC_WIDTHS(uchar) XP_ASYNC_WIDTHS(short) XP_ASYNC_WIDTHS(ushort)
XP_ASYNC_WIDTHS(int) XP_ASYNC_WIDTHS(uint) XP_ASYNC_WIDTHS(long) XP_ASYNC_WIDTHS(ulong)
XP_ASYNC_WIDTHS(half) XP_ASYNC_WIDTHS(float) XP_ASYNC_WIDTHS(double)

// vloadN/vstoreN of half: elements offset * N .. offset * N + N - 1.
#define XP_VLOAD(N, AS)                                                          \
  half##N OVL vload##N(size_t offset, const AS half *p) {                        \
    half##N r;                                                                   \
    for (int k = 0; k < N; ++k) r[k] = p[offset * N + k];                        \
    return r;                                                                    \
  }
#define XP_VSTORE(N, AS)                                                         \
  void OVL vstore##N(half##N v, size_t offset, AS half *p) {                     \
    for (int k = 0; k < N; ++k) p[offset * N + k] = v[k];                        \
  }
#define XP_VLOADS(AS) XP_VLOAD(2, AS) XP_VLOAD(3, AS) XP_VLOAD(4, AS) XP_VLOAD(8, AS) XP_VLOAD(16, AS)
#define XP_VSTORES(AS) \
  XP_VSTORE(2, AS) XP_VSTORE(3, AS) XP_VSTORE(4, AS) XP_VSTORE(8, AS) XP_VSTORE(16, AS)
XP_VLOADS(__generic) XP_VLOADS(__global) XP_VLOADS(__local) XP_VLOADS(__constant)
XP_VSTORES(__generic) XP_VSTORES(__global) XP_VSTORES(__local)

// The next representable value after x towards y.
#define XP_NEXTAFTER(T, I, SIGN)                                            \
  T CNFN nextafter(T x, T y) {                                              \
    if (isnan(x) || isnan(y)) return x + y;                                 \
    if (x == y) return y;                                                   \
    if (x == (T)0) return as_##T((as_##I(y) & (I)(SIGN)) | (I)1);          \
    I bits = as_##I(x);                                                     \
    bits += (x < y) == (x > (T)0) ? (I)1 : (I)-1;                           \
    return as_##T(bits);                                                    \
  }
XP_NEXTAFTER(float, int, 0x80000000u)
XP_NEXTAFTER(double, long, 0x8000000000000000ul)

// Work-item functions at any dimension: past the third, OpenCL gives sizes of 1 and ids of 0
// (libclc's NVPTX versions read whatever register the index lands on). Each block is a whole
// work-group: a partial last group runs as a launch of its own whose blocks are that group's
// size (cuda_launch.hpp), so the local size is the block's, while the group id, global size,
// enqueued local size and the number of groups are the whole launch's (xpurt_cuda_*).
static uint xp_ntid(uint d) {
  return d == 0 ? __nvvm_read_ptx_sreg_ntid_x()
                : d == 1 ? __nvvm_read_ptx_sreg_ntid_y() : __nvvm_read_ptx_sreg_ntid_z();
}
static uint xp_tid(uint d) {
  return d == 0 ? __nvvm_read_ptx_sreg_tid_x()
                : d == 1 ? __nvvm_read_ptx_sreg_tid_y() : __nvvm_read_ptx_sreg_tid_z();
}
static uint xp_ctaid(uint d) {
  return d == 0 ? __nvvm_read_ptx_sreg_ctaid_x()
                : d == 1 ? __nvvm_read_ptx_sreg_ctaid_y() : __nvvm_read_ptx_sreg_ctaid_z();
}
uint OVL get_work_dim(void) { return xpurt_cuda_work_dim(); }
size_t OVL get_local_size(uint d) { return d < 3 ? xp_ntid(d) : 1; }
size_t OVL get_enqueued_local_size(uint d) {
  return d < 3 ? xpurt_cuda_enqueued_local_size(d) : 1;
}
size_t OVL get_num_groups(uint d) { return d < 3 ? xpurt_cuda_num_groups(d) : 1; }
size_t OVL get_global_size(uint d) { return d < 3 ? xpurt_cuda_global_size(d) : 1; }
size_t OVL get_global_offset(uint d) { return d < 3 ? xpurt_cuda_global_offset(d) : 0; }
size_t OVL get_local_id(uint d) { return d < 3 ? xp_tid(d) : 0; }
size_t OVL get_group_id(uint d) { return d < 3 ? xp_ctaid(d) + xpurt_cuda_group_base(d) : 0; }
size_t OVL get_global_id(uint d) {
  return d < 3 ? (size_t)(xp_ctaid(d) + xpurt_cuda_group_base(d)) *
                         xpurt_cuda_enqueued_local_size(d) +
                     xp_tid(d) + xpurt_cuda_global_offset(d)
               : 0;
}
size_t OVL get_global_linear_id(void) {
  size_t id[3];
  for (uint d = 0; d < 3; ++d) id[d] = get_global_id(d) - xpurt_cuda_global_offset(d);
  return (id[2] * xpurt_cuda_global_size(1) + id[1]) * xpurt_cuda_global_size(0) + id[0];
}
size_t OVL get_local_linear_id(void) { return xp_local_linear_id(); }

// rotate of a 64-bit integer: OpenCL takes the count modulo 64, which LLVM 15's NVPTX back end
// forgets where it recognises a rotate: libclc's body gave 0 for a count of 65 or -1. The
// right shift in two steps is no rotate pattern to it.
ulong OVL rotate(ulong x, ulong n) {
  uint c = (uint)(n & 63ul);
  return (x << c) | ((x >> (63u - c)) >> 1);
}
long OVL rotate(long x, long n) { return (long)rotate((ulong)x, (ulong)n); }

// The checked casts of a generic pointer to a named address space (OpGenericCastToPtrExplicit,
// OpenCL C's to_global, to_local and to_private): the pointer where PTX says it points into
// that space, else NULL. Private memory is PTX's local space.
__global char *__to_global(__generic char *p) {
  return __nvvm_isspacep_global(p) ? (__global char *)p : NULL;
}
__local char *__to_local(__generic char *p) {
  return __nvvm_isspacep_shared(p) ? (__local char *)p : NULL;
}
__private char *__to_private(__generic char *p) {
  return __nvvm_isspacep_local(p) ? (__private char *)p : NULL;
}
