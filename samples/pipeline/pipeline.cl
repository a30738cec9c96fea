// The compute step of the pipeline, four elements per work-item: a few arithmetic steps per
// element, so that on a CPU a chunk's kernel costs about what copying the chunk costs.
kernel void transform(global const float4 *in, global float4 *out, int iterations) {
  size_t i = get_global_id(0);
  float4 x = in[i];
  float4 acc = (float4)(0.0f);
  for (int k = 0; k < iterations; ++k) acc = fma(acc, (float4)(0.999f), x + (float)k * 0.001f);
  out[i] = acc;
}
