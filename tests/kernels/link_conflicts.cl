// Definitions that clash with link_library.cl's when linked with it and link_kernels.cl:
// LINK_DUPLICATE defines link_scale a second time; LINK_MISMATCH stands in for the library, with
// link_scale of another type.
#ifdef LINK_DUPLICATE
float link_scale(float x) {
  return x;
}
#endif
#ifdef LINK_MISMATCH
constant float link_table[4] = {0.0f, 0.0f, 0.0f, 0.0f};
global int link_bias = 0;
int link_scale(int x) {
  return x;
}
#endif
