// Kernels that call a function and read variables another module defines (link_library.cl):
// they run only once the two are linked (xpurtLinkModules).
float link_scale(float x);
extern constant float link_table[4];
extern global int link_bias;

// Internal linkage: the library has a function of this name too, and neither sees the other's.
static float twice(float x) {
  return 2.0f * x;
}

kernel void linked_scale(global float *data) {
  size_t i = get_global_id(0);
  data[i] = link_scale(data[i]) + link_table[i % 4] + (float)link_bias + twice(0.5f);
}
