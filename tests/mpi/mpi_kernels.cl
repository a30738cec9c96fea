// Kernels of the MPI layer's tests (tests/mpi/mpi_test.cpp): global ids are those of the whole
// launch on every rank, the last dimension being the one split over the ranks.

// One Jacobi step of a width x rows grid; the outermost rows and columns stay fixed.
kernel void jacobi(global const float *in, global float *out, int width, int rows) {
  int x = get_global_id(0);
  int y = get_global_id(1);
  size_t i = (size_t)y * width + x;
  if (x == 0 || x == width - 1 || y == 0 || y == rows - 1) {
    out[i] = in[i];
    return;
  }
  out[i] = (in[i - 1] + in[i + 1] + in[i - width] + in[i + width]) * 0.25f;
}

kernel void scale_add(global float *x, float a, float b) {
  size_t i = get_global_id(0);
  x[i] = x[i] * a + b;
}

// sums[row] = the sum of the row's width values.
kernel void row_sums(global const float *x, global float *sums, int width) {
  size_t row = get_global_id(0);
  float s = 0.0f;
  for (int c = 0; c < width; ++c) s += x[row * width + c];
  sums[row] = s;
}

// total[0] = the sum of the n values (one work-item).
kernel void total(global const float *values, global float *result, int n) {
  float s = 0.0f;
  for (int i = 0; i < n; ++i) s += values[i];
  result[0] = s;
}

// C = A * B for n x n matrices; work-item (col, row).
kernel void matmul(global const float *a, global const float *b, global float *c, int n) {
  int col = get_global_id(0);
  int row = get_global_id(1);
  float s = 0.0f;
  for (int k = 0; k < n; ++k) s += a[row * n + k] * b[k * n + col];
  c[row * n + col] = s;
}
