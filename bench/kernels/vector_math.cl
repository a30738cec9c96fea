// Vector math on CUDA (bench/cuda/workloads_bench.cpp): libclc's sin, cos and pow on float4,
// which xpurt compiles to one call of the scalar function per element
// (runtime/cuda/nvptx_vector_math.cpp).
kernel void vector_math(global float4 *y, global const float4 *x, int n) {
  int i = get_global_id(0);
  if (i < n) {
    float4 v = x[i];
    y[i] = sin(v) * cos(0.5f * v) + pow(fabs(v) + 1.0f, (float4)(1.5f));
  }
}
