// The benchmark workloads in OpenCL C: run by xpurt from SPIR-V and by PoCL from this source.

kernel void saxpy(global float *y, global const float *x, float a, int n) {
  int i = get_global_id(0);
  if (i < n) y[i] = a * x[i] + y[i];
}

// Element-wise and math-heavy: transcendental functions per element.
kernel void math_heavy(global float *y, global const float *x, int n) {
  int i = get_global_id(0);
  if (i < n) {
    float v = x[i];
    y[i] = sin(v) * exp(-0.5f * v * v) + sqrt(fabs(v)) * cos(0.25f * v) + log(1.0f + v * v);
  }
}

kernel void mandelbrot(global int *out, float x0, float y0, float dx, float dy, int width,
                       int max_iterations) {
  int i = get_global_id(0), j = get_global_id(1);
  float cr = x0 + i * dx, ci = y0 + j * dy;
  float zr = cr, zi = ci;
  int k = 0;
  for (; k < max_iterations; ++k) {
    if (zr * zr + zi * zi > 4.0f) break;
    float nr = zr * zr - zi * zi, ni = 2.0f * zr * zi;
    zr = cr + nr;
    zi = ci + ni;
  }
  out[j * width + i] = k;
}

// One partial sum per work-group, by a tree in local memory.
kernel void reduce(global const float *in, global float *partial, local float *scratch) {
  int lid = get_local_id(0), n = get_local_size(0);
  scratch[lid] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int stride = n / 2; stride > 0; stride /= 2) {
    if (lid < stride) scratch[lid] += scratch[lid + stride];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) partial[get_group_id(0)] = scratch[0];
}

#define TILE 16

// out (cols x rows) = transpose of in (rows x cols); sizes multiples of TILE.
kernel void transpose(global float *out, global const float *in, int rows, int cols) {
  local float tile[TILE][TILE + 1];
  int x = get_global_id(0), y = get_global_id(1);
  int lx = get_local_id(0), ly = get_local_id(1);
  tile[ly][lx] = in[y * cols + x];
  barrier(CLK_LOCAL_MEM_FENCE);
  int ox = get_group_id(1) * TILE + lx, oy = get_group_id(0) * TILE + ly;
  out[oy * rows + ox] = tile[lx][ly];
}

// C = A * B for n x n matrices, n a multiple of TILE, through local tiles.
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
