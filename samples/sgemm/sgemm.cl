// C = A * B for n x n matrices (n a multiple of TILE), through tiles in local memory.
#define TILE 16

kernel void sgemm(global const float *a, global const float *b, global float *c, int n) {
  local float as[TILE][TILE], bs[TILE][TILE];
  int r = get_local_id(1), col = get_local_id(0);
  int row = get_global_id(1), gcol = get_global_id(0);
  float acc = 0.0f;
  for (int t = 0; t < n / TILE; ++t) {
    as[r][col] = a[row * n + t * TILE + col];
    bs[r][col] = b[(t * TILE + r) * n + gcol];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < TILE; ++k) acc += as[r][k] * bs[k][col];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  c[row * n + gcol] = acc;
}
