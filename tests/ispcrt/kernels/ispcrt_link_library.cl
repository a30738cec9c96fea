// A library module without kernels for ispcrt_link_kernels.cl.
float ispcrt_link_scale(float x) {
  return 3.0f * x + 1.0f;
}
