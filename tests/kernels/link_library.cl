// A library without kernels for link_kernels.cl: a function, a constant table and a variable.
int __spirv_SpecConstant(int id, int value);

constant float link_table[4] = {0.25f, 0.5f, 0.75f, 1.0f};
global int link_bias = 100;

static float twice(float x) {
  return x + x + 1000.0f;  // not link_kernels.cl's twice: a wrong binding shows in the results
}

// Scales by specialization constant 8 (default 2), set in the options of the linked module.
float link_scale(float x) {
  return twice(x) - 1000.0f + x * (float)(__spirv_SpecConstant(8, 2) - 2);
}
