// The CUDA C++ baselines of bench/cuda/workloads_bench.cpp, compiled with nvcc where a GPU run
// happens:
//   nvcc -ptx -arch=sm_90 -o baselines.ptx bench/cuda/baselines.cu
// The same algorithms as bench/kernels/workloads.cl, written as a CUDA programmer would.
extern "C" __global__ void saxpy(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void mandelbrot(int *out, float x0, float y0, float dx, float dy, int width,
                                      int max_iterations) {
  int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
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

// One partial sum per block, by a tree in dynamic shared memory.
extern "C" __global__ void reduce(const float *in, float *partial) {
  extern __shared__ float scratch[];
  int lid = threadIdx.x, n = blockDim.x;
  scratch[lid] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (int stride = n / 2; stride > 0; stride /= 2) {
    if (lid < stride) scratch[lid] += scratch[lid + stride];
    __syncthreads();
  }
  if (lid == 0) partial[blockIdx.x] = scratch[0];
}

#define TILE 16

extern "C" __global__ void transpose(float *out, const float *in, int rows, int cols) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
  __syncthreads();
  int ox = blockIdx.y * TILE + threadIdx.x, oy = blockIdx.x * TILE + threadIdx.y;
  out[oy * rows + ox] = tile[threadIdx.x][threadIdx.y];
}

extern "C" __global__ void sgemm(const float *a, const float *b, float *c, int n) {
  __shared__ float as[TILE][TILE], bs[TILE][TILE];
  int r = threadIdx.y, col = threadIdx.x;
  int row = blockIdx.y * TILE + r, gcol = blockIdx.x * TILE + col;
  float acc = 0.0f;
  for (int t = 0; t < n / TILE; ++t) {
    as[r][col] = a[row * n + t * TILE + col];
    bs[r][col] = b[(t * TILE + r) * n + gcol];
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc += as[r][k] * bs[k][col];
    __syncthreads();
  }
  c[row * n + gcol] = acc;
}

extern "C" __global__ void empty(void *) {}

// bench/kernels/vector_math.cl: CUDA has no vector math, so each component in turn.
extern "C" __global__ void vector_math(float4 *y, const float4 *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float4 v = x[i], r;
    r.x = sinf(v.x) * cosf(0.5f * v.x) + powf(fabsf(v.x) + 1.0f, 1.5f);
    r.y = sinf(v.y) * cosf(0.5f * v.y) + powf(fabsf(v.y) + 1.0f, 1.5f);
    r.z = sinf(v.z) * cosf(0.5f * v.z) + powf(fabsf(v.z) + 1.0f, 1.5f);
    r.w = sinf(v.w) * cosf(0.5f * v.w) + powf(fabsf(v.w) + 1.0f, 1.5f);
    y[i] = r;
  }
}
