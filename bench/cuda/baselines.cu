// The CUDA C++ baselines of bench/cuda_bench.cpp, compiled with nvcc where a GPU run happens:
//   nvcc -ptx -arch=sm_90 -o baselines.ptx bench/cuda/baselines.cu
// The same algorithms as bench/kernels/workloads.cl, written as a CUDA programmer would.
extern "C" __global__ void saxpy(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void empty(void *) {}
