// Work-group collectives and sub-group functions (OpenCL C 3.0), checked against host
// references on full and partial groups (tests/conformance/collectives_test.cpp).

kernel void group_collectives(global const int *in, global int *out, global float *fout) {
  size_t g = get_global_linear_id();
  int x = in[g];
  global int *o = out + g * 8;
  o[0] = work_group_reduce_add(x);
  o[1] = work_group_reduce_min(x);
  o[2] = work_group_reduce_max(x);
  o[3] = work_group_scan_inclusive_add(x);
  o[4] = work_group_scan_exclusive_add(x);
  o[5] = work_group_broadcast(x, 1, 0);
  o[6] = work_group_all(x >= 0);
  o[7] = work_group_any(x == 7);
  fout[g] = work_group_reduce_max((float)x * 0.5f);
}

// Sub-groups of 16, which every device runs: the CPU's default, every Intel GPU, half a warp
// on an NVIDIA GPU. The tests compute what each work-item sees from that size.
__attribute__((intel_reqd_sub_group_size(16)))
kernel void sub_group_functions(global const int *in, global int *out) {
  size_t g = get_global_linear_id();
  int x = in[g];
  global int *o = out + g * 12;
  o[0] = get_sub_group_size();
  o[1] = get_sub_group_id();
  o[2] = get_sub_group_local_id();
  o[3] = get_num_sub_groups();
  o[4] = sub_group_reduce_add(x);
  o[5] = sub_group_scan_inclusive_add(x);
  o[6] = sub_group_scan_exclusive_max(x);
  o[7] = sub_group_broadcast(x, 1);
  o[8] = sub_group_shuffle_xor(x, 1);
  o[9] = sub_group_ballot_bit_count(sub_group_ballot(x & 1));
  o[10] = sub_group_any(x == 3);
  o[11] = get_max_sub_group_size();
}

// 32: a size other than the CPU's default that every Intel GPU since Gen9 runs (Xe-HPC runs
// only 16 and 32).
__attribute__((intel_reqd_sub_group_size(32)))
kernel void sub_groups_of_thirty_two(global const int *in, global int *out) {
  size_t g = get_global_linear_id();
  out[g * 2] = get_sub_group_size();
  out[g * 2 + 1] = sub_group_reduce_max(in[g]);
}

// cl_khr_subgroup_rotate: over the whole sub-group and within clusters of 4.
__attribute__((intel_reqd_sub_group_size(16)))
kernel void sub_group_rotates(global const int *in, global int *out) {
  size_t g = get_global_linear_id();
  int x = in[g];
  out[g * 3] = sub_group_rotate(x, 3);
  out[g * 3 + 1] = sub_group_clustered_rotate(x, 1, 4);
  out[g * 3 + 2] = sub_group_rotate(x, get_sub_group_size() - 1);
}

// Float atomics from every work-item on one address.
kernel void float_atomics(global float *sum, global double *dsum, global float *fmaxv,
                          global const float *values) {
  size_t g = get_global_id(0);
  atomic_fetch_add_explicit((volatile global atomic_float *)sum, values[g], memory_order_relaxed,
                            memory_scope_device);
  atomic_fetch_add_explicit((volatile global atomic_double *)dsum, (double)values[g],
                            memory_order_relaxed, memory_scope_device);
  atomic_fetch_max_explicit((volatile global atomic_float *)fmaxv, values[g],
                            memory_order_relaxed, memory_scope_device);
}

// Sub-group functions in branches that only some work-items take: the first sub-group of
// each group reduces; the first five work-items of each sub-group reduce and scan among
// themselves; the odd values vote; one work-item of those with even values is elected.
__attribute__((intel_reqd_sub_group_size(16)))
kernel void divergent_sub_groups(global const int *in, global int *out) {
  size_t g = get_global_linear_id();
  int x = in[g];
  global int *o = out + g * 5;
  o[0] = o[1] = o[2] = o[3] = o[4] = -1;
  if (get_sub_group_id() == 0) o[0] = sub_group_reduce_add(x);
  if (get_sub_group_local_id() < 5) {
    o[1] = sub_group_non_uniform_reduce_add(x);
    o[2] = sub_group_non_uniform_scan_inclusive_add(x);
  }
  if (x & 1) o[3] = (int)sub_group_ballot_bit_count(sub_group_ballot(1));
  else o[4] = sub_group_elect();
}

// A barrier that only some work-items reach: undefined in OpenCL; the CPU device fails the
// launch rather than run work-items past a barrier they never reached.
kernel void divergent_barrier(global int *out) {
  size_t l = get_local_id(0);
  if (l < 3) barrier(CLK_GLOBAL_MEM_FENCE);
  out[get_global_id(0)] = (int)l;
}
