// Synchronisation and work-group copies that libclc's SPIR-V library lacks or gets wrong for
// xpurt: fences, prefetch, and the async copies with the wait that completes them.
#include "builtins.h"

void OVL mem_fence(cl_mem_fence_flags flags) {
  atomic_work_item_fence(flags, memory_order_acq_rel, memory_scope_work_group);
}
void OVL read_mem_fence(cl_mem_fence_flags flags) {
  atomic_work_item_fence(flags, memory_order_acquire, memory_scope_work_group);
}
void OVL write_mem_fence(cl_mem_fence_flags flags) {
  atomic_work_item_fence(flags, memory_order_release, memory_scope_work_group);
}

// Async copies: every work-item of the group copies its share (they all call it with the
// same arguments), and the wait is a barrier, after which the whole copy is visible.
static size_t xp_local_items(void) {
  return get_local_size(0) * get_local_size(1) * get_local_size(2);
}
#define XP_ASYNC(T)                                                                            \
  event_t OVL async_work_group_copy(__local T *dst, const __global T *src, size_t n,           \
                                    event_t e) {                                               \
    for (size_t i = get_local_linear_id(); i < n; i += xp_local_items()) dst[i] = src[i];      \
    return e;                                                                                  \
  }                                                                                            \
  event_t OVL async_work_group_copy(__global T *dst, const __local T *src, size_t n,           \
                                    event_t e) {                                               \
    for (size_t i = get_local_linear_id(); i < n; i += xp_local_items()) dst[i] = src[i];      \
    return e;                                                                                  \
  }                                                                                            \
  event_t OVL async_work_group_strided_copy(__local T *dst, const __global T *src, size_t n,   \
                                            size_t stride, event_t e) {                        \
    for (size_t i = get_local_linear_id(); i < n; i += xp_local_items())                       \
      dst[i] = src[i * stride];                                                                \
    return e;                                                                                  \
  }                                                                                            \
  event_t OVL async_work_group_strided_copy(__global T *dst, const __local T *src, size_t n,   \
                                            size_t stride, event_t e) {                        \
    for (size_t i = get_local_linear_id(); i < n; i += xp_local_items())                       \
      dst[i * stride] = src[i];                                                                \
    return e;                                                                                  \
  }                                                                                            \
  void OVL prefetch(const __global T *p, size_t n) {}
#define XP_ASYNC_WIDTHS(T) XP_ASYNC(T) XP_ASYNC(T##2) XP_ASYNC(T##3) XP_ASYNC(T##4) \
  XP_ASYNC(T##8) XP_ASYNC(T##16)
XP_ASYNC_WIDTHS(char) XP_ASYNC_WIDTHS(uchar) XP_ASYNC_WIDTHS(short) XP_ASYNC_WIDTHS(ushort)
XP_ASYNC_WIDTHS(int) XP_ASYNC_WIDTHS(uint) XP_ASYNC_WIDTHS(long) XP_ASYNC_WIDTHS(ulong)
XP_ASYNC_WIDTHS(half) XP_ASYNC_WIDTHS(float) XP_ASYNC_WIDTHS(double)

void OVL wait_group_events(int n, __private event_t *events) {
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
}
void OVL wait_group_events(int n, __generic event_t *events) {
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
}

// Where every address space is one memory, a generic pointer names __local memory when it
// points into the group's local memory (the JIT answers xpurt_is_local), else __global.
int xpurt_is_local(const __generic void *p);
cl_mem_fence_flags OVL get_fence(const __generic void *p) {
  return xpurt_is_local(p) ? CLK_LOCAL_MEM_FENCE : CLK_GLOBAL_MEM_FENCE;
}
cl_mem_fence_flags OVL get_fence(__generic void *p) {
  return get_fence((const __generic void *)p);
}

// The checked casts of a generic pointer to a named address space (OpGenericCastToPtrExplicit,
// OpenCL C's to_global, to_local and to_private): the pointer where it points into that space,
// else NULL. Private memory is what the JIT answers xpurt_is_private for.
int xpurt_is_private(const __generic void *p);
__global char *__to_global(__generic char *p) {
  return xpurt_is_local(p) || xpurt_is_private(p) ? NULL : (__global char *)p;
}
__local char *__to_local(__generic char *p) {
  return xpurt_is_local(p) ? (__local char *)p : NULL;
}
__private char *__to_private(__generic char *p) {
  return xpurt_is_private(p) ? (__private char *)p : NULL;
}
