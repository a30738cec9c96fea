// One kernel calls an OpenCL-style builtin that no library provides; the other does not.
int __attribute__((overloadable)) xpurt_no_such_builtin(int x);

kernel void uses_missing(global int *out) {
  out[get_global_id(0)] = xpurt_no_such_builtin((int)get_global_id(0));
}

kernel void fill_ones(global int *out) { out[get_global_id(0)] = 1; }
