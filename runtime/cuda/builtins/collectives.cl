// Sub-group functions (cl_khr_subgroups and the extended sub-group extensions, Intel's
// sub-group shuffles and block reads) and work-group collectives for NVIDIA GPUs. A sub-group
// is a warp, or half of one (cuda_builtins.h). The functions every member of a sub-group must call (broadcast, reduce, scan, all,
// any) synchronise the whole sub-group (a partial last one included); the non-uniform ones
// (ballots, shuffles, rotates, elect, the non_uniform_* and clustered ones) run among the
// work-items active at the call. Work-group collectives combine the sub-groups' results
// through a small __shared__ scratch (group_scratch.ll) between barriers.
#include "cuda_builtins.h"

// --- geometry ------------------------------------------------------------------------------
uint OVL get_sub_group_size(void) { return xp_warp_size(); }
// The enqueued local size's work-items: the partial last work-group has fewer (misc.cl).
static uint xp_enqueued_items(void) {
  return xpurt_cuda_enqueued_local_size(0) * xpurt_cuda_enqueued_local_size(1) *
         xpurt_cuda_enqueued_local_size(2);
}
uint OVL get_max_sub_group_size(void) { return min(xp_width(), xp_enqueued_items()); }
uint OVL get_num_sub_groups(void) { return (xp_local_items() + xp_width() - 1u) / xp_width(); }
uint OVL get_enqueued_num_sub_groups(void) {
  return (xp_enqueued_items() + xp_width() - 1u) / xp_width();
}
uint OVL get_sub_group_id(void) { return xp_warp(); }
uint OVL get_sub_group_local_id(void) { return xp_lane(); }

void OVL sub_group_barrier(cl_mem_fence_flags flags) {
  __nvvm_bar_warp_sync(xp_active_mask());
  __nvvm_membar_cta();
}
void OVL sub_group_barrier(cl_mem_fence_flags flags, memory_scope scope) {
  sub_group_barrier(flags);
}

// Bits [0, n) of a 128-bit sub-group mask (a warp uses only the first 32). These masks number
// a sub-group's members, not the warp's lanes.
static uint4 xp_bits_below(uint n) {
  return (uint4)(n >= 32u ? ~0u : (1u << n) - 1u, 0u, 0u, 0u);
}
uint4 OVL get_sub_group_eq_mask(void) { return (uint4)(1u << xp_lane(), 0u, 0u, 0u); }
uint4 OVL get_sub_group_lt_mask(void) { return xp_bits_below(xp_lane()); }
uint4 OVL get_sub_group_le_mask(void) { return xp_bits_below(xp_lane() + 1u); }
uint4 OVL get_sub_group_ge_mask(void) {
  return xp_bits_below(xp_warp_size()) & ~xp_bits_below(xp_lane());
}
uint4 OVL get_sub_group_gt_mask(void) {
  return xp_bits_below(xp_warp_size()) & ~xp_bits_below(xp_lane() + 1u);
}

// --- shuffles ------------------------------------------------------------------------------
// xp_shfl(mask, x, member): x of that member of this sub-group; every warp lane in mask must
// make the same call.
static int xp_shfl_i32(uint mask, int x, uint member) {
  return __nvvm_shfl_sync_idx_i32(mask, x, (int)(xp_base() + member), 31);
}
#define XP_SHFL_NARROW(T, U)                                   \
  static T OVL xp_shfl(uint mask, T x, uint lane) {           \
    return as_##T((U)xp_shfl_i32(mask, (int)as_##U(x), lane)); \
  }
XP_SHFL_NARROW(char, uchar) XP_SHFL_NARROW(uchar, uchar) XP_SHFL_NARROW(short, ushort)
XP_SHFL_NARROW(ushort, ushort) XP_SHFL_NARROW(half, ushort)
#define XP_SHFL_WORD(T)                                             \
  static T OVL xp_shfl(uint mask, T x, uint lane) {                 \
    return as_##T(xp_shfl_i32(mask, as_int(x), lane));              \
  }
XP_SHFL_WORD(int) XP_SHFL_WORD(uint) XP_SHFL_WORD(float)
#define XP_SHFL_WIDE(T)                                  \
  static T OVL xp_shfl(uint mask, T x, uint lane) {      \
    int2 v = as_int2(x);                                 \
    v.x = xp_shfl_i32(mask, v.x, lane);                  \
    v.y = xp_shfl_i32(mask, v.y, lane);                  \
    return as_##T(v);                                    \
  }
XP_SHFL_WIDE(long) XP_SHFL_WIDE(ulong) XP_SHFL_WIDE(double)
#define XP_SHFL_VECTOR(V, n)                                          \
  static V OVL xp_shfl(uint mask, V x, uint lane) {                   \
    V r;                                                              \
    for (int k = 0; k < n; ++k) r[k] = xp_shfl(mask, x[k], lane);     \
    return r;                                                         \
  }
#define XP_SHFL_VECTORS(T)                                                                  \
  XP_SHFL_VECTOR(T##2, 2) XP_SHFL_VECTOR(T##3, 3) XP_SHFL_VECTOR(T##4, 4)                   \
  XP_SHFL_VECTOR(T##8, 8) XP_SHFL_VECTOR(T##16, 16)
XP_SHFL_VECTORS(char) XP_SHFL_VECTORS(uchar) XP_SHFL_VECTORS(short) XP_SHFL_VECTORS(ushort)
XP_SHFL_VECTORS(int) XP_SHFL_VECTORS(uint) XP_SHFL_VECTORS(long) XP_SHFL_VECTORS(ulong)
XP_SHFL_VECTORS(half) XP_SHFL_VECTORS(float) XP_SHFL_VECTORS(double)

// x of member `id` if mask holds it; a work-item's own x where it does not (as the CPU).
#define XP_MEMBER(T)                                                           \
  static T OVL xp_member(uint mask, T x, uint id) {                            \
    T v = xp_shfl(mask, x, id & (xp_width() - 1u));                            \
    return id < xp_width() && ((mask >> (xp_base() + id)) & 1u) ? v : x;       \
  }

#define XP_SHUFFLES(T)                                                                     \
  XP_MEMBER(T)                                                                             \
  T OVL sub_group_broadcast(T x, uint id) { return xp_member(xp_warp_mask(), x, id); }     \
  T OVL intel_sub_group_broadcast(T x, uint id) { return sub_group_broadcast(x, id); }     \
  T OVL sub_group_non_uniform_broadcast(T x, uint id) {                                    \
    return xp_member(xp_active_mask(), x, id);                                             \
  }                                                                                        \
  T OVL sub_group_broadcast_first(T x) {                                                   \
    uint mask = xp_active_mask();                                                          \
    return xp_shfl(mask, x, xp_first(mask));                                               \
  }                                                                                        \
  T OVL sub_group_shuffle(T x, uint id) { return xp_member(xp_active_mask(), x, id); }     \
  T OVL intel_sub_group_shuffle(T x, uint id) { return sub_group_shuffle(x, id); }         \
  T OVL sub_group_shuffle_xor(T x, uint mask) { return sub_group_shuffle(x, xp_lane() ^ mask); } \
  T OVL intel_sub_group_shuffle_xor(T x, uint mask) { return sub_group_shuffle_xor(x, mask); } \
  T OVL sub_group_shuffle_up(T x, uint delta) {                                            \
    uint lane = xp_lane();                                                                 \
    return sub_group_shuffle(x, lane >= delta ? lane - delta : ~0u);                       \
  }                                                                                        \
  T OVL sub_group_shuffle_down(T x, uint delta) { return sub_group_shuffle(x, xp_lane() + delta); } \
  /* Intel's two-input shuffles: cur and next (prev and cur) as one window of 2 x size. */ \
  T OVL intel_sub_group_shuffle_down(T cur, T next, uint delta) {                          \
    uint i = xp_lane() + delta, n = get_max_sub_group_size();                              \
    T a = sub_group_shuffle(cur, i < n ? i : ~0u);                                         \
    T b = sub_group_shuffle(next, i >= n ? i - n : ~0u);                                   \
    return i < n ? a : b;                                                                  \
  }                                                                                        \
  T OVL intel_sub_group_shuffle_up(T prev, T cur, uint delta) {                            \
    uint n = get_max_sub_group_size(), i = xp_lane() + n - delta;                          \
    T a = sub_group_shuffle(prev, i < n ? i : ~0u);                                        \
    T b = sub_group_shuffle(cur, i >= n ? i - n : ~0u);                                    \
    return i < n ? a : b;                                                                  \
  }                                                                                        \
  T OVL sub_group_rotate(T x, int delta) {                                                 \
    int n = (int)xp_warp_size();                                                           \
    int i = ((int)xp_lane() + delta % n + n) % n;                                          \
    return sub_group_shuffle(x, (uint)i);                                                  \
  }                                                                                        \
  T OVL sub_group_clustered_rotate(T x, int delta, uint clustersize) {                     \
    int c = (int)clustersize, lane = (int)xp_lane();                                       \
    int first = lane / c * c;                                                              \
    int i = first + ((lane - first) + delta % c + c) % c;                                  \
    return sub_group_shuffle(x, (uint)i);                                                  \
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

// A fold in member order over the members of mask numbered [first, end): every member takes
// part in every shuffle, so the loop is the same for all of them.
#define XP_SUB_GROUP_OP(name, T, op, identity)                                                 \
  static T OVL xp_fold_##name(uint mask, T x, uint first, uint end) {                          \
    T r = (identity);                                                                          \
    for (uint i = 0; i < xp_width(); ++i) {                                                    \
      if (!((mask >> (xp_base() + i)) & 1u)) continue;                                         \
      T v = xp_shfl(mask, x, i);                                                               \
      if (i >= first && i < end) r = op(r, v);                                                 \
    }                                                                                          \
    return r;                                                                                  \
  }                                                                                            \
  T OVL sub_group_reduce_##name(T x) { return xp_fold_##name(xp_warp_mask(), x, 0u, xp_width()); }    \
  T OVL sub_group_scan_inclusive_##name(T x) {                                                 \
    return xp_fold_##name(xp_warp_mask(), x, 0u, xp_lane() + 1u);                              \
  }                                                                                            \
  T OVL sub_group_scan_exclusive_##name(T x) {                                                 \
    return xp_fold_##name(xp_warp_mask(), x, 0u, xp_lane());                                   \
  }                                                                                            \
  T OVL sub_group_non_uniform_reduce_##name(T x) {                                             \
    return xp_fold_##name(xp_active_mask(), x, 0u, xp_width());                                       \
  }                                                                                            \
  T OVL sub_group_non_uniform_scan_inclusive_##name(T x) {                                     \
    return xp_fold_##name(xp_active_mask(), x, 0u, xp_lane() + 1u);                            \
  }                                                                                            \
  T OVL sub_group_non_uniform_scan_exclusive_##name(T x) {                                     \
    return xp_fold_##name(xp_active_mask(), x, 0u, xp_lane());                                 \
  }                                                                                            \
  T OVL intel_sub_group_reduce_##name(T x) { return sub_group_reduce_##name(x); }              \
  T OVL intel_sub_group_scan_inclusive_##name(T x) { return sub_group_scan_inclusive_##name(x); } \
  T OVL intel_sub_group_scan_exclusive_##name(T x) { return sub_group_scan_exclusive_##name(x); } \
  T OVL sub_group_clustered_reduce_##name(T x, uint clustersize) {                             \
    uint first = xp_lane() / clustersize * clustersize;                                        \
    return xp_fold_##name(xp_active_mask(), x, first, first + clustersize);                    \
  }

#define XP_ARITHMETIC(T, MINV, MAXV, MINOP, MAXOP) \
  XP_SUB_GROUP_OP(add, T, XP_OP_add, (T)0)         \
  XP_SUB_GROUP_OP(mul, T, XP_OP_mul, (T)1)         \
  XP_SUB_GROUP_OP(min, T, MINOP, (T)(MAXV))        \
  XP_SUB_GROUP_OP(max, T, MAXOP, (T)(MINV))
#define XP_BITWISE(T)                          \
  XP_SUB_GROUP_OP(and, T, XP_OP_and, (T)~(T)0) \
  XP_SUB_GROUP_OP(or, T, XP_OP_or, (T)0)       \
  XP_SUB_GROUP_OP(xor, T, XP_OP_xor, (T)0)     \
  XP_BITWISE_NAMES(T, sub_group)

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
XP_SUB_GROUP_OP(logical_and, int, XP_OP_logical_and, 1)
XP_SUB_GROUP_OP(logical_or, int, XP_OP_logical_or, 0)
XP_SUB_GROUP_OP(logical_xor, int, XP_OP_logical_xor, 0)

// --- votes ---------------------------------------------------------------------------------
int OVL sub_group_all(int p) { return __nvvm_vote_all_sync(xp_warp_mask(), p != 0); }
int OVL sub_group_any(int p) { return __nvvm_vote_any_sync(xp_warp_mask(), p != 0); }
int OVL sub_group_non_uniform_all(int p) { return __nvvm_vote_all_sync(xp_active_mask(), p != 0); }
int OVL sub_group_non_uniform_any(int p) { return __nvvm_vote_any_sync(xp_active_mask(), p != 0); }
int OVL sub_group_elect(void) { return xp_lane() == xp_first(xp_active_mask()); }

#define XP_ALL_EQUAL(T)                                                   \
  int OVL sub_group_non_uniform_all_equal(T x) {                          \
    uint mask = xp_active_mask();                                         \
    T first = xp_shfl(mask, x, xp_first(mask));                           \
    return __nvvm_vote_all_sync(mask, first == x);                        \
  }
XP_ALL_EQUAL(char) XP_ALL_EQUAL(uchar) XP_ALL_EQUAL(short) XP_ALL_EQUAL(ushort)
XP_ALL_EQUAL(int) XP_ALL_EQUAL(uint) XP_ALL_EQUAL(long) XP_ALL_EQUAL(ulong)
XP_ALL_EQUAL(half) XP_ALL_EQUAL(float) XP_ALL_EQUAL(double)

// --- ballots -------------------------------------------------------------------------------
uint4 OVL sub_group_ballot(int p) {  // the sub-group's lanes of the warp's ballot
  return (uint4)(__nvvm_vote_ballot_sync(xp_active_mask(), p != 0) >> xp_base(), 0u, 0u, 0u);
}
int OVL sub_group_inverse_ballot(uint4 v) { return (v.x >> xp_lane()) & 1u; }
int OVL sub_group_ballot_bit_extract(uint4 v, uint i) {
  // Masks, not a select of elements, which LLVM would turn into a variable vector index:
  // LLVM 15's NVPTX back end miscompiles that on a by-value parameter (ptxas rejects it).
  uint k = i / 32u;
  uint word = (v.x & -(uint)(k == 0u)) | (v.y & -(uint)(k == 1u)) | (v.z & -(uint)(k == 2u)) |
              (v.w & -(uint)(k == 3u));
  return i < 128u && ((word >> (i % 32u)) & 1u);
}
uint OVL sub_group_ballot_bit_count(uint4 v) {
  return (uint)__builtin_popcount(v.x & xp_bits_below(xp_warp_size()).x);
}
uint OVL sub_group_ballot_inclusive_scan(uint4 v) {
  return (uint)__builtin_popcount(v.x & xp_bits_below(xp_lane() + 1u).x);
}
uint OVL sub_group_ballot_exclusive_scan(uint4 v) {
  return (uint)__builtin_popcount(v.x & xp_bits_below(xp_lane()).x);
}
uint OVL sub_group_ballot_find_lsb(uint4 v) {
  uint bits = v.x & xp_bits_below(xp_warp_size()).x;
  return bits ? (uint)__builtin_ctz(bits) : ~0u;
}
uint OVL sub_group_ballot_find_msb(uint4 v) {
  uint bits = v.x & xp_bits_below(xp_warp_size()).x;
  return bits ? 31u - (uint)__builtin_clz(bits) : ~0u;
}

// --- Intel block reads and writes, addressed as on xpurt's CPU device ------------------------
#define XP_BLOCK(T, suffix, AS)                                                           \
  T OVL intel_sub_group_block_read##suffix(const AS T *p) {                              \
    return p[xp_warp() * xp_width() + xp_lane()];                                        \
  }                                                                                      \
  void OVL intel_sub_group_block_write##suffix(AS T *p, T v) {                           \
    p[xp_warp() * xp_width() + xp_lane()] = v;                                           \
  }
#define XP_BLOCK_N(T, suffix, N, AS)                                                      \
  T##N OVL intel_sub_group_block_read##suffix##N(const AS T *p) {                        \
    T##N r;                                                                              \
    for (int k = 0; k < N; ++k)                                                          \
      r[k] = p[(size_t)k * get_max_sub_group_size() + xp_lane()];                        \
    return r;                                                                            \
  }                                                                                      \
  void OVL intel_sub_group_block_write##suffix##N(AS T *p, T##N v) {                     \
    for (int k = 0; k < N; ++k) p[(size_t)k * get_max_sub_group_size() + xp_lane()] = v[k]; \
  }
#define XP_BLOCKS(T, suffix, AS) \
  XP_BLOCK(T, suffix, AS) XP_BLOCK_N(T, suffix, 2, AS) XP_BLOCK_N(T, suffix, 4, AS) \
  XP_BLOCK_N(T, suffix, 8, AS)
XP_BLOCKS(uint, , __global) XP_BLOCKS(uint, _ui, __global) XP_BLOCKS(ushort, _us, __global)
XP_BLOCKS(uint, , __local) XP_BLOCKS(uint, _ui, __local) XP_BLOCKS(ushort, _us, __local)

// --- work-group collectives ----------------------------------------------------------------
// 64 slots of 8 bytes, one per sub-group (at most 1024 work-items in a CUDA block, in
// sub-groups of 16 or more).
__local uchar *xpurt_cuda_group_scratch(void);
#define XP_WSLOT(T, i) (((__local T *)xpurt_cuda_group_scratch())[i])

// Every collective begins with a barrier, so that it does not overwrite the scratch while an
// earlier one still reads it.
#define XP_WORK_GROUP_OP(name, T, op, identity)                                 \
  T OVL work_group_reduce_##name(T x) {                                         \
    T partial = xp_fold_##name(xp_warp_mask(), x, 0u, xp_width());              \
    __syncthreads();                                                            \
    if (xp_lane() == 0u) XP_WSLOT(T, xp_warp()) = partial;                      \
    __syncthreads();                                                            \
    T r = XP_WSLOT(T, 0);                                                       \
    for (uint i = 1, n = get_num_sub_groups(); i < n; ++i) r = op(r, XP_WSLOT(T, i)); \
    return r;                                                                   \
  }                                                                             \
  /* The inclusive and exclusive scans of x over the work-group. */             \
  static void OVL xp_group_scan_##name(T x, __private T *inclusive, __private T *exclusive) { \
    uint mask = xp_warp_mask(), lane = xp_lane();                               \
    T in = (identity), ex = (identity);                                         \
    for (uint i = 0; i < xp_width(); ++i) {                                     \
      if (!((mask >> (xp_base() + i)) & 1u)) continue;                          \
      T v = xp_shfl(mask, x, i);                                                \
      if (i < lane) ex = op(ex, v);                                             \
      if (i <= lane) in = op(in, v);                                            \
    }                                                                           \
    __syncthreads();                                                            \
    if (lane + 1u == xp_warp_size()) XP_WSLOT(T, xp_warp()) = in;               \
    __syncthreads();                                                            \
    T prefix = (identity);                                                      \
    for (uint i = 0, w = xp_warp(); i < w; ++i) prefix = op(prefix, XP_WSLOT(T, i)); \
    *inclusive = op(prefix, in);                                                \
    *exclusive = op(prefix, ex);                                                \
  }                                                                             \
  T OVL work_group_scan_inclusive_##name(T x) {                                 \
    T in, ex;                                                                   \
    xp_group_scan_##name(x, &in, &ex);                                          \
    return in;                                                                  \
  }                                                                             \
  T OVL work_group_scan_exclusive_##name(T x) {                                 \
    T in, ex;                                                                   \
    xp_group_scan_##name(x, &in, &ex);                                          \
    return ex;                                                                  \
  }

#define XP_WG_ARITHMETIC(T, MINV, MAXV, MINOP, MAXOP) \
  XP_WORK_GROUP_OP(add, T, XP_OP_add, (T)0)           \
  XP_WORK_GROUP_OP(mul, T, XP_OP_mul, (T)1)           \
  XP_WORK_GROUP_OP(min, T, MINOP, (T)(MAXV))          \
  XP_WORK_GROUP_OP(max, T, MAXOP, (T)(MINV))
#define XP_WG_BITWISE(T)                        \
  XP_WORK_GROUP_OP(and, T, XP_OP_and, (T)~(T)0) \
  XP_WORK_GROUP_OP(or, T, XP_OP_or, (T)0)       \
  XP_WORK_GROUP_OP(xor, T, XP_OP_xor, (T)0)     \
  XP_BITWISE_NAMES(T, work_group)
XP_WG_ARITHMETIC(char, CHAR_MIN, CHAR_MAX, XP_OP_min, XP_OP_max) XP_WG_BITWISE(char)
XP_WG_ARITHMETIC(uchar, 0, UCHAR_MAX, XP_OP_min, XP_OP_max) XP_WG_BITWISE(uchar)
XP_WG_ARITHMETIC(short, SHRT_MIN, SHRT_MAX, XP_OP_min, XP_OP_max) XP_WG_BITWISE(short)
XP_WG_ARITHMETIC(ushort, 0, USHRT_MAX, XP_OP_min, XP_OP_max) XP_WG_BITWISE(ushort)
XP_WG_ARITHMETIC(int, INT_MIN, INT_MAX, XP_OP_min, XP_OP_max) XP_WG_BITWISE(int)
XP_WG_ARITHMETIC(uint, 0, UINT_MAX, XP_OP_min, XP_OP_max) XP_WG_BITWISE(uint)
XP_WG_ARITHMETIC(long, LONG_MIN, LONG_MAX, XP_OP_min, XP_OP_max) XP_WG_BITWISE(long)
XP_WG_ARITHMETIC(ulong, 0, ULONG_MAX, XP_OP_min, XP_OP_max) XP_WG_BITWISE(ulong)
XP_WG_ARITHMETIC(half, -INFINITY, INFINITY, XP_OP_fmin, XP_OP_fmax)
XP_WG_ARITHMETIC(float, -INFINITY, INFINITY, XP_OP_fmin, XP_OP_fmax)
XP_WG_ARITHMETIC(double, -INFINITY, INFINITY, XP_OP_fmin, XP_OP_fmax)
// cl_khr_work_group_uniform_arithmetic's (SPV_KHR_uniform_group_instructions' OpGroupLogical*KHR).
XP_WORK_GROUP_OP(logical_and, int, XP_OP_logical_and, 1)
XP_WORK_GROUP_OP(logical_or, int, XP_OP_logical_or, 0)
XP_WORK_GROUP_OP(logical_xor, int, XP_OP_logical_xor, 0)

// bar.red: a barrier that also and/or-reduces a predicate over the block.
int OVL work_group_all(int p) { return __nvvm_bar0_and(p != 0) != 0; }
int OVL work_group_any(int p) { return __nvvm_bar0_or(p != 0) != 0; }

#define XP_WG_BROADCAST(T)                                                               \
  static T OVL xp_broadcast_from(T x, size_t from) {                                     \
    __syncthreads();                                                                     \
    if (xp_local_linear_id() == from) XP_WSLOT(T, 0) = x;                                \
    __syncthreads();                                                                     \
    return XP_WSLOT(T, 0);                                                               \
  }                                                                                      \
  T OVL work_group_broadcast(T x, size_t lx) { return xp_broadcast_from(x, lx); }       \
  T OVL work_group_broadcast(T x, size_t lx, size_t ly) {                                \
    return xp_broadcast_from(x, ly * __nvvm_read_ptx_sreg_ntid_x() + lx);                \
  }                                                                                      \
  T OVL work_group_broadcast(T x, size_t lx, size_t ly, size_t lz) {                     \
    return xp_broadcast_from(                                                            \
        x, (lz * __nvvm_read_ptx_sreg_ntid_y() + ly) * __nvvm_read_ptx_sreg_ntid_x() + lx); \
  }
XP_WG_BROADCAST(char) XP_WG_BROADCAST(uchar) XP_WG_BROADCAST(short) XP_WG_BROADCAST(ushort)
XP_WG_BROADCAST(int) XP_WG_BROADCAST(uint) XP_WG_BROADCAST(long) XP_WG_BROADCAST(ulong)
XP_WG_BROADCAST(half) XP_WG_BROADCAST(float) XP_WG_BROADCAST(double)
