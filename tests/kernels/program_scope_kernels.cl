// Kernels sharing their module's program-scope variable and constant table
// (conformance/program_scope_test.cpp). Built twice: with the variable, and (CONSTANTS_ONLY)
// with the table alone, which a CPU device may compile in parts, a copy of the table each.
constant int shared_table[4] = {1, 2, 3, 4};

#ifndef CONSTANTS_ONLY
global int shared_value = 7;

kernel void set_shared(int value) {
  if (get_global_id(0) == 0) shared_value = value;
}

kernel void get_shared(global int *out) {
  out[get_global_id(0)] = shared_value + shared_table[get_global_id(0) % 4];
}
#endif

kernel void table_plus(global int *out, int add) {
  out[get_global_id(0)] = shared_table[get_global_id(0) % 4] + add;
}

kernel void table_times(global int *out, int factor) {
  out[get_global_id(0)] = shared_table[get_global_id(0) % 4] * factor;
}
