// Sub-group functions and work-group collectives, for devices that run the work-items of a
// group one after another (xpurt's CPU device). A collective is an exchange through the
// group's scratch memory between two barriers: each work-item publishes its value and the run
// (of the region before the barrier) in which it did, then reads the values of the members of
// its sub-group (or group) that published in the same run: the work-items active at that call.
// Where only some sub-groups reach a call, the JIT runs the work-items waiting at each barrier
// separately (work_group_builder.cpp), so the non-uniform functions see exactly the active
// work-items.
//
// A sub-group is xpurt_sub_group_size() consecutive work-items in local linear order (the last
// one of a group may be smaller): the kernel's required sub-group size, else the device's
// default (see docs/ARCHITECTURE.md).
#include "builtins.h"

// Provided by the JIT: 128 bytes per work-item of the group (one double16), 128-byte aligned,
// followed by a 4-byte tag per work-item; the kernel's sub-group size; the run counter.
__local uchar *xpurt_group_scratch(void);
uint xpurt_sub_group_size(void);
uint xpurt_group_round(void);

#define XP_SLOT(T, i) (*(__local T *)(xpurt_group_scratch() + 128 * (size_t)(i)))
#define XP_TAG(i) \
  (((__local uint *)(xpurt_group_scratch() + 128 * (size_t)xp_enqueued_items()))[i])
#define XP_FENCE (CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)

static uint xp_items(void) {
  return (uint)(get_local_size(0) * get_local_size(1) * get_local_size(2));
}
static uint xp_enqueued_items(void) {
  return (uint)(get_enqueued_local_size(0) * get_enqueued_local_size(1) *
                get_enqueued_local_size(2));
}
static uint xp_lid(void) { return (uint)get_local_linear_id(); }

// --- sub-group geometry -------------------------------------------------------------------
uint OVL get_max_sub_group_size(void) { return min(xpurt_sub_group_size(), xp_enqueued_items()); }
uint OVL get_num_sub_groups(void) {
  return (xp_items() + xpurt_sub_group_size() - 1) / xpurt_sub_group_size();
}
uint OVL get_enqueued_num_sub_groups(void) {
  return (xp_enqueued_items() + xpurt_sub_group_size() - 1) / xpurt_sub_group_size();
}
uint OVL get_sub_group_id(void) { return xp_lid() / xpurt_sub_group_size(); }
uint OVL get_sub_group_local_id(void) { return xp_lid() % xpurt_sub_group_size(); }
uint OVL get_sub_group_size(void) {
  return min(xpurt_sub_group_size(), xp_items() - get_sub_group_id() * xpurt_sub_group_size());
}
static uint xp_sg_base(void) { return get_sub_group_id() * xpurt_sub_group_size(); }
// Did member i of this work-item's sub-group publish in the same run as this work-item?
static bool xp_active(uint i) {
  return i < get_sub_group_size() && XP_TAG(xp_sg_base() + i) == XP_TAG(xp_lid());
}

void OVL sub_group_barrier(cl_mem_fence_flags flags) { barrier(flags); }
void OVL sub_group_barrier(cl_mem_fence_flags flags, memory_scope scope) { barrier(flags); }

// Bits 0..127 of a sub-group mask, one per work-item of the sub-group.
static uint4 xp_bits_below(uint n) {  // bits 0 .. n-1
  uint4 r;
  for (int w = 0; w < 4; ++w) {
    uint lo = 32 * w;
    r[w] = n <= lo ? 0u : n >= lo + 32 ? ~0u : (1u << (n - lo)) - 1u;
  }
  return r;
}
uint4 OVL get_sub_group_eq_mask(void) {
  return xp_bits_below(get_sub_group_local_id() + 1) & ~xp_bits_below(get_sub_group_local_id());
}
uint4 OVL get_sub_group_lt_mask(void) { return xp_bits_below(get_sub_group_local_id()); }
uint4 OVL get_sub_group_le_mask(void) { return xp_bits_below(get_sub_group_local_id() + 1); }
uint4 OVL get_sub_group_ge_mask(void) {
  return xp_bits_below(get_sub_group_size()) & ~xp_bits_below(get_sub_group_local_id());
}
uint4 OVL get_sub_group_gt_mask(void) {
  return xp_bits_below(get_sub_group_size()) & ~xp_bits_below(get_sub_group_local_id() + 1);
}

// --- exchange ------------------------------------------------------------------------------
// Every work-item writes its value to its slot; afterwards all slots are readable. The first
// barrier keeps this exchange from overwriting what the previous one is still reading.
#define XP_PUBLISH(T)                                                   \
  static void OVL xp_publish(T x) {                                     \
    barrier(XP_FENCE);                                                  \
    XP_SLOT(T, xp_lid()) = x;                                           \
    XP_TAG(xp_lid()) = xpurt_group_round();                             \
    barrier(XP_FENCE);                                                  \
  }                                                                     \
  static T OVL xp_member(T x, uint i) {                                 \
    return xp_active(i) ? XP_SLOT(T, xp_sg_base() + i) : x;             \
  }

// Broadcasts and shuffles, for every type (scalars and vectors).
#define XP_SHUFFLES(T)                                                                     \
  XP_PUBLISH(T)                                                                            \
  T OVL sub_group_broadcast(T x, uint id) {                                                \
    xp_publish(x);                                                                         \
    return xp_member(x, id);                                                               \
  }                                                                                        \
  T OVL sub_group_non_uniform_broadcast(T x, uint id) { return sub_group_broadcast(x, id); } \
  T OVL sub_group_broadcast_first(T x) { return sub_group_broadcast(x, 0); }               \
  T OVL intel_sub_group_broadcast(T x, uint id) { return sub_group_broadcast(x, id); }     \
  T OVL sub_group_shuffle(T x, uint id) { return sub_group_broadcast(x, id); }             \
  T OVL intel_sub_group_shuffle(T x, uint id) { return sub_group_broadcast(x, id); }       \
  T OVL sub_group_shuffle_xor(T x, uint mask) {                                            \
    return sub_group_broadcast(x, get_sub_group_local_id() ^ mask);                        \
  }                                                                                        \
  T OVL intel_sub_group_shuffle_xor(T x, uint mask) { return sub_group_shuffle_xor(x, mask); } \
  T OVL sub_group_shuffle_up(T x, uint delta) {                                            \
    uint lid = get_sub_group_local_id();                                                   \
    return sub_group_broadcast(x, lid >= delta ? lid - delta : ~0u);                       \
  }                                                                                        \
  T OVL sub_group_shuffle_down(T x, uint delta) {                                          \
    return sub_group_broadcast(x, get_sub_group_local_id() + delta);                       \
  }                                                                                        \
  /* Intel's two-input shuffles: cur and next (prev and cur) as one window of 2 x size. */ \
  T OVL intel_sub_group_shuffle_down(T cur, T next, uint delta) {                          \
    uint i = get_sub_group_local_id() + delta, n = get_max_sub_group_size();               \
    T a = sub_group_broadcast(cur, i < n ? i : ~0u);                                       \
    T b = sub_group_broadcast(next, i >= n ? i - n : ~0u);                                 \
    return i < n ? a : b;                                                                  \
  }                                                                                        \
  T OVL intel_sub_group_shuffle_up(T prev, T cur, uint delta) {                            \
    uint n = get_max_sub_group_size(), i = get_sub_group_local_id() + n - delta;          \
    T a = sub_group_broadcast(prev, i < n ? i : ~0u);                                      \
    T b = sub_group_broadcast(cur, i >= n ? i - n : ~0u);                                  \
    return i < n ? a : b;                                                                  \
  }                                                                                        \
  T OVL sub_group_rotate(T x, int delta) {                                                 \
    int n = (int)get_sub_group_size();                                                     \
    int i = ((int)get_sub_group_local_id() + delta % n + n) % n;                           \
    return sub_group_broadcast(x, (uint)i);                                                \
  }                                                                                        \
  T OVL sub_group_clustered_rotate(T x, int delta, uint clustersize) {                     \
    int c = (int)clustersize, lid = (int)get_sub_group_local_id();                         \
    int first = lid / c * c;                                                               \
    int i = first + ((lid - first) + delta % c + c) % c;                                   \
    return sub_group_broadcast(x, (uint)i);                                                \
  }
#define XP_SHUFFLES_WIDTHS(T) \
  XP_SHUFFLES(T) XP_SHUFFLES(T##2) XP_SHUFFLES(T##3) XP_SHUFFLES(T##4) XP_SHUFFLES(T##8) \
  XP_SHUFFLES(T##16)
XP_SHUFFLES_WIDTHS(char) XP_SHUFFLES_WIDTHS(uchar) XP_SHUFFLES_WIDTHS(short)
XP_SHUFFLES_WIDTHS(ushort) XP_SHUFFLES_WIDTHS(int) XP_SHUFFLES_WIDTHS(uint)
XP_SHUFFLES_WIDTHS(long) XP_SHUFFLES_WIDTHS(ulong) XP_SHUFFLES_WIDTHS(half)
XP_SHUFFLES_WIDTHS(float) XP_SHUFFLES_WIDTHS(double)

// --- reductions and scans ------------------------------------------------------------------
#define XP_OP_add(a, b) ((a) + (b))
#define XP_OP_mul(a, b) ((a) * (b))
#define XP_OP_min(a, b) min(a, b)
#define XP_OP_max(a, b) max(a, b)
#define XP_OP_fmin(a, b) fmin(a, b)
#define XP_OP_fmax(a, b) fmax(a, b)
#define XP_OP_and(a, b) ((a) & (b))
#define XP_OP_or(a, b) ((a) | (b))
#define XP_OP_xor(a, b) ((a) ^ (b))
#define XP_OP_logical_and(a, b) ((a) && (b))
#define XP_OP_logical_or(a, b) ((a) || (b))
#define XP_OP_logical_xor(a, b) (!(a) != !(b))

// F(name, T, op, identity): the sub-group forms of one operation, each a fold over the active
// members [first, end) of the sub-group after one exchange.
#define XP_SUB_GROUP_OP(name, T, op, identity)                                                 \
  static T OVL xp_fold_##name(T x, uint first, uint end) {                                     \
    xp_publish(x);                                                                             \
    T r = (identity);                                                                          \
    for (uint i = first; i < end; ++i)                                                         \
      if (xp_active(i)) r = op(r, XP_SLOT(T, xp_sg_base() + i));                               \
    return r;                                                                                  \
  }                                                                                            \
  T OVL sub_group_reduce_##name(T x) { return xp_fold_##name(x, 0, get_sub_group_size()); }    \
  T OVL sub_group_scan_inclusive_##name(T x) {                                                 \
    return xp_fold_##name(x, 0, get_sub_group_local_id() + 1);                                 \
  }                                                                                            \
  T OVL sub_group_scan_exclusive_##name(T x) {                                                 \
    return xp_fold_##name(x, 0, get_sub_group_local_id());                                     \
  }                                                                                            \
  T OVL sub_group_non_uniform_reduce_##name(T x) { return sub_group_reduce_##name(x); }        \
  T OVL sub_group_non_uniform_scan_inclusive_##name(T x) {                                     \
    return sub_group_scan_inclusive_##name(x);                                                 \
  }                                                                                            \
  T OVL sub_group_non_uniform_scan_exclusive_##name(T x) {                                     \
    return sub_group_scan_exclusive_##name(x);                                                 \
  }                                                                                            \
  T OVL intel_sub_group_reduce_##name(T x) { return sub_group_reduce_##name(x); }              \
  T OVL intel_sub_group_scan_inclusive_##name(T x) { return sub_group_scan_inclusive_##name(x); } \
  T OVL intel_sub_group_scan_exclusive_##name(T x) { return sub_group_scan_exclusive_##name(x); } \
  T OVL sub_group_clustered_reduce_##name(T x, uint clustersize) {                             \
    uint first = get_sub_group_local_id() / clustersize * clustersize;                         \
    return xp_fold_##name(x, first, min(first + clustersize, get_sub_group_size()));           \
  }

// The work-group forms: the first work-item folds every slot (in place for scans); the
// others read after the third barrier.
#define XP_WORK_GROUP_OP(name, T, op, identity)                                               \
  T OVL work_group_reduce_##name(T x) {                                                       \
    xp_publish(x);                                                                            \
    if (xp_lid() == 0) {                                                                      \
      T r = XP_SLOT(T, 0);                                                                    \
      for (uint i = 1; i < xp_items(); ++i) r = op(r, XP_SLOT(T, i));                         \
      XP_SLOT(T, 0) = r;                                                                      \
    }                                                                                         \
    barrier(XP_FENCE);                                                                        \
    return XP_SLOT(T, 0);                                                                     \
  }                                                                                           \
  static void OVL xp_scan_##name(T x) {                                                       \
    xp_publish(x);                                                                            \
    if (xp_lid() == 0)                                                                        \
      for (uint i = 1; i < xp_items(); ++i) XP_SLOT(T, i) = op(XP_SLOT(T, i - 1), XP_SLOT(T, i)); \
    barrier(XP_FENCE);                                                                        \
  }                                                                                           \
  T OVL work_group_scan_inclusive_##name(T x) {                                               \
    xp_scan_##name(x);                                                                        \
    return XP_SLOT(T, xp_lid());                                                              \
  }                                                                                           \
  T OVL work_group_scan_exclusive_##name(T x) {                                               \
    xp_scan_##name(x);                                                                        \
    return xp_lid() == 0 ? (T)(identity) : XP_SLOT(T, xp_lid() - 1);                          \
  }

#define XP_ARITHMETIC(T, MINV, MAXV, MINOP, MAXOP)                         \
  XP_SUB_GROUP_OP(add, T, XP_OP_add, (T)0)                                 \
  XP_SUB_GROUP_OP(mul, T, XP_OP_mul, (T)1)                                 \
  XP_SUB_GROUP_OP(min, T, MINOP, (T)(MAXV))                                \
  XP_SUB_GROUP_OP(max, T, MAXOP, (T)(MINV))                                \
  XP_WORK_GROUP_OP(add, T, XP_OP_add, (T)0)                                \
  XP_WORK_GROUP_OP(mul, T, XP_OP_mul, (T)1)                                \
  XP_WORK_GROUP_OP(min, T, MINOP, (T)(MAXV))                               \
  XP_WORK_GROUP_OP(max, T, MAXOP, (T)(MINV))
#define XP_BITWISE(T)                            \
  XP_SUB_GROUP_OP(and, T, XP_OP_and, (T)~(T)0)   \
  XP_SUB_GROUP_OP(or, T, XP_OP_or, (T)0)         \
  XP_SUB_GROUP_OP(xor, T, XP_OP_xor, (T)0)       \
  XP_WORK_GROUP_OP(and, T, XP_OP_and, (T)~(T)0)  \
  XP_WORK_GROUP_OP(or, T, XP_OP_or, (T)0)        \
  XP_WORK_GROUP_OP(xor, T, XP_OP_xor, (T)0)      \
  XP_BITWISE_NAMES(T, sub_group) XP_BITWISE_NAMES(T, work_group)

XP_ARITHMETIC(char, CHAR_MIN, CHAR_MAX, XP_OP_min, XP_OP_max) XP_BITWISE(char)
XP_ARITHMETIC(uchar, 0, UCHAR_MAX, XP_OP_min, XP_OP_max) XP_BITWISE(uchar)
XP_ARITHMETIC(short, SHRT_MIN, SHRT_MAX, XP_OP_min, XP_OP_max) XP_BITWISE(short)
XP_ARITHMETIC(ushort, 0, USHRT_MAX, XP_OP_min, XP_OP_max) XP_BITWISE(ushort)
XP_ARITHMETIC(int, INT_MIN, INT_MAX, XP_OP_min, XP_OP_max) XP_BITWISE(int)
XP_ARITHMETIC(uint, 0, UINT_MAX, XP_OP_min, XP_OP_max) XP_BITWISE(uint)
XP_ARITHMETIC(long, LONG_MIN, LONG_MAX, XP_OP_min, XP_OP_max) XP_BITWISE(long)
XP_ARITHMETIC(ulong, 0, ULONG_MAX, XP_OP_min, XP_OP_max) XP_BITWISE(ulong)
XP_ARITHMETIC(half, -INFINITY, INFINITY, XP_OP_fmin, XP_OP_fmax)
XP_ARITHMETIC(float, -INFINITY, INFINITY, XP_OP_fmin, XP_OP_fmax)
XP_ARITHMETIC(double, -INFINITY, INFINITY, XP_OP_fmin, XP_OP_fmax)

// Logical operations and votes, on int predicates (0 is false).
static int xp_truth(int x) { return x != 0; }
XP_SUB_GROUP_OP(logical_and, int, XP_OP_logical_and, 1)
XP_SUB_GROUP_OP(logical_or, int, XP_OP_logical_or, 0)
XP_SUB_GROUP_OP(logical_xor, int, XP_OP_logical_xor, 0)
// cl_khr_work_group_uniform_arithmetic's (SPV_KHR_uniform_group_instructions' OpGroupLogical*KHR).
XP_WORK_GROUP_OP(logical_and, int, XP_OP_logical_and, 1)
XP_WORK_GROUP_OP(logical_or, int, XP_OP_logical_or, 0)
XP_WORK_GROUP_OP(logical_xor, int, XP_OP_logical_xor, 0)
int OVL sub_group_all(int p) { return sub_group_reduce_logical_and(xp_truth(p)); }
int OVL sub_group_any(int p) { return sub_group_reduce_logical_or(xp_truth(p)); }
int OVL sub_group_non_uniform_all(int p) { return sub_group_all(p); }
int OVL sub_group_non_uniform_any(int p) { return sub_group_any(p); }
int OVL sub_group_elect(void) {  // the active work-item of lowest id
  xp_publish(0);
  uint first = 0;
  while (!xp_active(first)) ++first;
  return first == get_sub_group_local_id();
}
int OVL work_group_all(int p) { return work_group_reduce_and(xp_truth(p)); }
int OVL work_group_any(int p) { return work_group_reduce_or(xp_truth(p)); }

#define XP_ALL_EQUAL(T)                                                      \
  int OVL sub_group_non_uniform_all_equal(T x) {                             \
    xp_publish(x);                                                           \
    int equal = 1;                                                           \
    for (uint i = 0; i < get_sub_group_size(); ++i)                          \
      equal = equal && (!xp_active(i) || XP_SLOT(T, xp_sg_base() + i) == x); \
    return equal;                                                            \
  }
XP_ALL_EQUAL(char) XP_ALL_EQUAL(uchar) XP_ALL_EQUAL(short) XP_ALL_EQUAL(ushort)
XP_ALL_EQUAL(int) XP_ALL_EQUAL(uint) XP_ALL_EQUAL(long) XP_ALL_EQUAL(ulong)
XP_ALL_EQUAL(half) XP_ALL_EQUAL(float) XP_ALL_EQUAL(double)

// --- ballots -------------------------------------------------------------------------------
uint4 OVL sub_group_ballot(int p) {
  xp_publish(xp_truth(p));
  uint4 r = (uint4)(0);
  for (uint i = 0; i < get_sub_group_size(); ++i)
    if (xp_active(i) && XP_SLOT(int, xp_sg_base() + i)) r[i / 32] |= 1u << (i % 32);
  return r;
}
int OVL sub_group_inverse_ballot(uint4 v) {
  uint i = get_sub_group_local_id();
  return (v[i / 32] >> (i % 32)) & 1u;
}
int OVL sub_group_ballot_bit_extract(uint4 v, uint i) {
  return i < 128 && ((v[i / 32] >> (i % 32)) & 1u);
}
static uint xp_count(uint4 v) {
  return popcount(v.x) + popcount(v.y) + popcount(v.z) + popcount(v.w);
}
uint OVL sub_group_ballot_bit_count(uint4 v) {
  return xp_count(v & xp_bits_below(get_sub_group_size()));
}
uint OVL sub_group_ballot_inclusive_scan(uint4 v) {
  return xp_count(v & xp_bits_below(get_sub_group_local_id() + 1));
}
uint OVL sub_group_ballot_exclusive_scan(uint4 v) {
  return xp_count(v & xp_bits_below(get_sub_group_local_id()));
}
uint OVL sub_group_ballot_find_lsb(uint4 v) {
  v &= xp_bits_below(get_sub_group_size());
  for (int w = 0; w < 4; ++w)
    if (v[w]) return 32 * w + ctz(v[w]);
  return ~0u;
}
uint OVL sub_group_ballot_find_msb(uint4 v) {
  v &= xp_bits_below(get_sub_group_size());
  for (int w = 3; w >= 0; --w)
    if (v[w]) return 32 * w + 31 - clz(v[w]);
  return ~0u;
}

// --- Intel block reads and writes: element k of work-item i is p[k * max size + i] ----------
#define XP_BLOCK(T, suffix, AS)                                                           \
  T OVL intel_sub_group_block_read##suffix(const AS T *p) {                              \
    return p[xp_sg_base() + get_sub_group_local_id()];                                   \
  }                                                                                      \
  void OVL intel_sub_group_block_write##suffix(AS T *p, T v) {                           \
    p[xp_sg_base() + get_sub_group_local_id()] = v;                                      \
  }
#define XP_BLOCK_N(T, suffix, N, AS)                                                      \
  T##N OVL intel_sub_group_block_read##suffix##N(const AS T *p) {                        \
    T##N r;                                                                              \
    for (int k = 0; k < N; ++k)                                                          \
      r[k] = p[(size_t)k * get_max_sub_group_size() + get_sub_group_local_id()];         \
    return r;                                                                            \
  }                                                                                      \
  void OVL intel_sub_group_block_write##suffix##N(AS T *p, T##N v) {                     \
    for (int k = 0; k < N; ++k)                                                          \
      p[(size_t)k * get_max_sub_group_size() + get_sub_group_local_id()] = v[k];         \
  }
#define XP_BLOCKS(T, suffix, AS) \
  XP_BLOCK(T, suffix, AS) XP_BLOCK_N(T, suffix, 2, AS) XP_BLOCK_N(T, suffix, 4, AS) \
  XP_BLOCK_N(T, suffix, 8, AS)
XP_BLOCKS(uint, , __global) XP_BLOCKS(uint, _ui, __global) XP_BLOCKS(ushort, _us, __global)
XP_BLOCKS(uint, , __local) XP_BLOCKS(uint, _ui, __local) XP_BLOCKS(ushort, _us, __local)

// --- work-group broadcast ------------------------------------------------------------------
#define XP_WG_BROADCAST(T)                                                               \
  static T OVL xp_broadcast_from(T x, size_t from) {                                     \
    barrier(XP_FENCE);                                                                   \
    if (xp_lid() == from) XP_SLOT(T, 0) = x;                                             \
    barrier(XP_FENCE);                                                                   \
    return XP_SLOT(T, 0);                                                                \
  }                                                                                      \
  T OVL work_group_broadcast(T x, size_t lx) { return xp_broadcast_from(x, lx); }       \
  T OVL work_group_broadcast(T x, size_t lx, size_t ly) {                                \
    return xp_broadcast_from(x, ly * get_local_size(0) + lx);                            \
  }                                                                                      \
  T OVL work_group_broadcast(T x, size_t lx, size_t ly, size_t lz) {                     \
    return xp_broadcast_from(x, (lz * get_local_size(1) + ly) * get_local_size(0) + lx); \
  }
XP_WG_BROADCAST(char) XP_WG_BROADCAST(uchar) XP_WG_BROADCAST(short) XP_WG_BROADCAST(ushort)
XP_WG_BROADCAST(int) XP_WG_BROADCAST(uint) XP_WG_BROADCAST(long) XP_WG_BROADCAST(ulong)
XP_WG_BROADCAST(half) XP_WG_BROADCAST(float) XP_WG_BROADCAST(double)
