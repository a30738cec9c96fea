// Kernels of the Level Zero CPU driver's tests (tests/ze_cpu).

kernel void add_int(global const int *in, global int *out, int add) {
  size_t i = get_global_id(0);
  out[i] = in[i] + add;
}

// Each work-item writes its global id at its place in the range (offsets included).
kernel void global_ids(global uint *out) {
  out[get_global_id(0) - get_global_offset(0)] = (uint)get_global_id(0);
}

// Each work-group sums its inputs through __local memory of one int per work-item (a power of
// two of them).
kernel void group_sums(global const int *in, global int *out, local int *scratch) {
  size_t l = get_local_id(0);
  scratch[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = get_local_size(0) / 2; s > 0; s /= 2) {
    if (l < s) scratch[l] += scratch[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) out[get_group_id(0)] = scratch[0];
}

kernel __attribute__((reqd_work_group_size(8, 1, 1))) void fixed_groups(global uint *out) {
  out[get_global_id(0)] = (uint)get_local_size(0);
}

// Work that takes a while, for timestamps.
kernel void busy(global int *out, int rounds) {
  int x = (int)get_global_id(0);
  for (int i = 0; i < rounds; ++i) x = x * 1103515245 + 12345;
  out[get_global_id(0)] = x;
}

// A barrier that only some work-items reach: the CPU device fails such a launch.
kernel void divergent_barrier(global int *out) {
  size_t l = get_local_id(0);
  if (l < 3) barrier(CLK_GLOBAL_MEM_FENCE);
  out[get_global_id(0)] = (int)l;
}

// Specialization constants of every width (OpenCL C reaches them through the translator's
// __spirv_SpecConstant convention): ids 1 to 6, with their defaults.
char __attribute__((overloadable)) __spirv_SpecConstant(int id, char value);
short __attribute__((overloadable)) __spirv_SpecConstant(int id, short value);
int __attribute__((overloadable)) __spirv_SpecConstant(int id, int value);
long __attribute__((overloadable)) __spirv_SpecConstant(int id, long value);
float __attribute__((overloadable)) __spirv_SpecConstant(int id, float value);
bool __attribute__((overloadable)) __spirv_SpecConstant(int id, bool value);

kernel void spec_constants(global long *out) {
  out[0] = __spirv_SpecConstant(1, (char)-1);
  out[1] = __spirv_SpecConstant(2, (short)2);
  out[2] = __spirv_SpecConstant(3, 3);
  out[3] = __spirv_SpecConstant(4, 4L);
  out[4] = (long)(__spirv_SpecConstant(5, 5.5f) * 2.0f);
  out[5] = __spirv_SpecConstant(6, false) ? 1 : 0;
}
