// OpenCL C kernels for the SPIR-V conformance tests.
#include <xpurt/task_model.h>

// 16 values per work-item, at its global linear id.
kernel void work_item_ids(global ulong *out) {
  global ulong *o = out + get_global_linear_id() * 16;
  for (uint d = 0; d < 3; ++d) {
    o[d] = get_global_id(d);
    o[3 + d] = get_local_id(d);
    o[6 + d] = get_group_id(d);
    o[9 + d] = get_local_size(d);
  }
  o[12] = get_work_dim();
  o[13] = get_local_linear_id();
  o[14] = get_global_offset(0) + 100 * get_global_offset(1) + 10000 * get_global_offset(2);
  o[15] = get_num_groups(0) + 100 * get_num_groups(1) + 10000 * get_num_groups(2) +
          1000000 * (get_global_size(0) + 100 * get_global_size(1) + 10000 * get_global_size(2));
}

// Global ids and sizes only: the CPU device may run consecutive groups of such a kernel as
// one (KernelLayout::groupsMayMerge). Each work-item writes its own slot once.
kernel void global_ids_only(global ulong *out) {
  size_t i = get_global_id(0) - get_global_offset(0);
  out[i] += get_global_id(0) + 1000000 * get_global_size(0) + 100000000000ul * get_work_dim();
}

// In a work-group that may be partial: each work-item's global linear id goes through __local
// memory to the work-item at the mirrored local linear position, and a counter in a __local
// variable counts the group's work-items between barriers.
kernel void partial_group_exchange(global ulong *out, local ulong *scratch) {
  local int count;
  size_t lid = get_local_linear_id();
  size_t items = get_local_size(0) * get_local_size(1) * get_local_size(2);
  if (lid == 0) count = 0;
  scratch[lid] = get_global_linear_id();
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_inc(&count);
  ulong mirrored = scratch[items - 1 - lid];
  barrier(CLK_LOCAL_MEM_FENCE);
  global ulong *o = out + get_global_linear_id() * 4;
  o[0] = mirrored;
  o[1] = get_enqueued_local_size(0) + 100 * get_enqueued_local_size(1) +
         10000 * get_enqueued_local_size(2);
  o[2] = items;
  o[3] = count;
}

// A long16 by value (its type asks for 128-byte alignment), and a value of that width live
// across a barrier.
kernel void wide_values(global long16 *out, long16 v, local long *scratch) {
  size_t lid = get_local_id(0);
  long16 w = v * (long)(lid + 1);
  scratch[lid] = (long)lid;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = w + scratch[get_local_size(0) - 1 - lid];
}

typedef struct {
  float scale;
  float shift;
  int count;
} Affine;

kernel void affine(global float *y, global const float *x, Affine a) {
  size_t i = get_global_id(0);
  if (i < a.count) y[i] = a.scale * x[i] + a.shift;
}

kernel void vector_ops(global float4 *out, global const float4 *in, global int4 *mask) {
  size_t i = get_global_id(0);
  float4 v = in[i];
  out[i] = v * v + (float4)(1.0f, 2.0f, 3.0f, 4.0f) + (float4)(dot(v, v));
  mask[i] = isgreater(v, (float4)(0.5f)) + select((int4)(10), (int4)(20), v < 0.0f);
}

kernel void math_functions(global float *out, global const float *in) {
  size_t i = get_global_id(0);
  float x = in[i];
  global float *o = out + i * 8;
  o[0] = sin(x);
  o[1] = cos(x);
  o[2] = exp(x);
  o[3] = log(fabs(x) + 1.0f);
  o[4] = sqrt(fabs(x));
  o[5] = pow(fabs(x), 1.5f);
  o[6] = tanh(x);
  o[7] = atan2(x, 1.5f);
}

kernel void integer_functions(global int *out, global const int *a, global const int *b) {
  size_t i = get_global_id(0);
  int x = a[i], y = b[i];
  global int *o = out + i * 8;
  o[0] = min(x, y);
  o[1] = max(x, y);
  o[2] = clamp(x, -5, 5);
  o[3] = mul_hi(x, y);
  o[4] = add_sat(x, y);
  o[5] = (int)abs(x);
  o[6] = clz(x);
  o[7] = popcount(x) + rotate(x, 3) * 0;
}

constant float table[4] = {1.0f, 2.0f, 3.0f, 4.0f};

kernel void constant_memory(global float *out, constant float *lut) {
  size_t i = get_global_id(0);
  out[i] = table[i % 4] * 10.0f + lut[i % 4];
}

kernel void many_pointers(global float *out, global const float *a, global const float *b,
                          global const float *c, global const float *d, global const float *e,
                          global const float *f, global const float *g) {
  size_t i = get_global_id(0);
  out[i] = a[i] + 2 * b[i] + 3 * c[i] + 4 * d[i] + 5 * e[i] + 6 * f[i] + 7 * g[i];
}

kernel void global_atomics(global int *counter, global int *slots) {
  int old = atomic_add(counter, 1);
  atomic_inc(&slots[old % 8]);
}

// ISPC's task model: one work-group per task.
struct TaskRecord {
  global int *out;
};

XPURT_TASK_KERNEL(4) void task_ids(global struct TaskRecord *p) {
  global int *o = p->out + (taskIndex * programCount + programIndex) * 6;
  o[0] = taskIndex;
  o[1] = taskCount;
  o[2] = programIndex;
  o[3] = programCount;
  o[4] = taskIndex0 + 10 * taskIndex1 + 100 * taskIndex2;
  o[5] = taskCount0 + 10 * taskCount1 + 100 * taskCount2;
}

kernel void print_values(global const float *values, global int *results) {
  size_t i = get_global_id(0);
  results[i] = printf("item %d: %.2f %s\n", (int)i, values[i], i == 0 ? "first" : "next");
}

// A specialization constant (what SYCL emits; OpenCL C reaches it through the translator's
// __spirv_SpecConstant convention): id 7, default 3.
int __spirv_SpecConstant(int id, int value);

kernel void spec_constant(global int *out) {
  out[get_global_id(0)] = __spirv_SpecConstant(7, 3) * 10;
}

// Builtins that take generic pointers in OpenCL C 2.0, and a few from each family.
kernel void builtin_mix(global float *out, global const float *in, global int *ints,
                        global atomic_int *counter) {
  size_t i = get_global_id(0);
  float4 v = vload4(i, in);                      // vector load
  vstore4(v * 2.0f, i, out);                     // vector store
  float c;
  float s = sincos(in[4 * i], &c);               // generic pointer to private memory
  int e;
  float m = frexp(in[4 * i + 1] + 3.0f, &e);
  float3 a = (float3)(1.0f, 2.0f, 3.0f), b = (float3)(v.x, v.y, 1.0f);
  global float *o = out + 4 * get_global_size(0) + 8 * i;
  o[0] = s;
  o[1] = c;
  o[2] = m;
  o[3] = (float)e;
  o[4] = length(a);
  o[5] = cross(a, b).z;
  o[6] = normalize(b).x;
  o[7] = smoothstep(0.0f, 1.0f, fabs(v.z) / 4.0f);
  ints[2 * i] = convert_int_sat_rte(v.w * 1e10f);
  ints[2 * i + 1] = convert_int_rte(v.w * 2.5f);
  atomic_fetch_add_explicit(counter, 2, memory_order_relaxed);
}

// Work-item functions at a dimension known only at run time, including dimensions >= work_dim
// and >= 3 (sizes answer 1, ids 0).
kernel void dynamic_dimensions(global ulong *out, global const uint *dims) {
  size_t item = get_global_linear_id();
  for (int i = 0; i < 6; ++i) {
    uint d = dims[i];
    global ulong *o = out + (item * 6 + i) * 7;
    o[0] = get_global_size(d);
    o[1] = get_local_size(d);
    o[2] = get_num_groups(d);
    o[3] = get_enqueued_local_size(d);
    o[4] = get_global_id(d);
    o[5] = get_local_id(d);
    o[6] = get_group_id(d);
  }
}

// Conversions to float with every rounding mode, scalar and vector, from int, long and double.
kernel void directed_conversions(global float *out, global const int *i32, global const long *i64,
                                 global const double *f64) {
  size_t i = get_global_id(0);
  global float *o = out + i * 12;
  o[0] = convert_float_rte(i32[i]);
  o[1] = convert_float_rtz(i32[i]);
  o[2] = convert_float_rtn(i32[i]);
  o[3] = convert_float_rtp(i32[i]);
  o[4] = convert_float_rte(i64[i]);
  o[5] = convert_float_rtz(i64[i]);
  o[6] = convert_float_rtn(i64[i]);
  o[7] = convert_float_rtp(i64[i]);
  o[8] = convert_float_rte(f64[i]);
  o[9] = convert_float_rtz(f64[i]);
  o[10] = convert_float_rtn(f64[i]);
  o[11] = convert_float_rtp(f64[i]);
}

kernel void directed_conversions4(global float4 *out, global const int4 *in) {
  size_t i = get_global_id(0);
  out[i * 4 + 0] = convert_float4_rte(in[i]);
  out[i * 4 + 1] = convert_float4_rtz(in[i]);
  out[i * 4 + 2] = convert_float4_rtn(in[i]);
  out[i * 4 + 3] = convert_float4_rtp(in[i]);
}

// Wide vectors through pointers into the application's memory, which need not be aligned to
// the vector's size (tests/conformance/spirv_test.cpp).
kernel void scale_float8(global const float8 *in, global float8 *out, float factor) {
  size_t i = get_global_id(0);
  out[i] = in[i] * factor;
}

kernel void add_double4(global double4 *data) {
  size_t i = get_global_id(0);
  data[i] += (double4)(1.0, 2.0, 3.0, 4.0);
}

// Dependency tests: a kernel that holds its work until the host opens the gate, and simple
// element-wise steps whose results show the order commands ran in.
kernel void gated_fill(volatile global const int *gate, global int *out, int value) {
  while (*gate == 0) {
  }
  out[get_global_id(0)] = value;
}

kernel void gated_copy(volatile global const int *gate, global const int *in, global int *out) {
  while (*gate == 0) {
  }
  out[get_global_id(0)] = in[get_global_id(0)];
}

kernel void add_int(global const int *in, global int *out, int add) {
  out[get_global_id(0)] = in[get_global_id(0)] + add;
}

// The checked casts of a generic pointer (OpGenericCastToPtrExplicit): work-item i casts a
// pointer into global, local or private memory (i % 3) to each space; 1 where it is not NULL.
kernel void address_space_casts(global int *g, local int *l, global int *out) {
  int p = 1;
  size_t i = get_global_id(0);
  generic int *q = i % 3 == 0 ? (generic int *)(g + i) : i % 3 == 1 ? (generic int *)(l + 1) : &p;
  out[3 * i] = to_global(q) != 0;
  out[3 * i + 1] = to_local(q) != 0;
  out[3 * i + 2] = to_private(q) != 0;
}

// Split launches (coherent_view_test.cpp): each item the sum of itself and its neighbours
// (the ends add what they have), and each item plus an entry of a table every chunk reads.
kernel void sum3(global const int *in, global int *out, int n) {
  int i = get_global_id(0);
  int s = in[i];
  if (i > 0) s += in[i - 1];
  if (i + 1 < n) s += in[i + 1];
  out[i] = s;
}

kernel void add_table(global const int *table, int tableSize, global const int *in,
                      global int *out) {
  int i = get_global_id(0);
  out[i] = in[i] + table[i % tableSize];
}
