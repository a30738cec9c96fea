// Kernels whose work-items take different paths through loops and branches: what the CPU
// JIT's whole-function vectoriser runs several work-items at a time with masks.

// Collatz: a loop each work-item leaves after its own number of steps, with a branch inside.
kernel void collatz(global const uint *in, global uint *steps, global uint *peak, uint limit) {
  size_t i = get_global_id(0);
  uint n = in[i], count = 0, top = n;
  while (n != 1 && count < limit) {
    if (n & 1)
      n = 3 * n + 1;
    else
      n >>= 1;
    top = max(top, n);
    ++count;
  }
  steps[i] = count;
  peak[i] = top;
}

// Nested loops of varying trip counts, breaks out of each, and an early return.
kernel void nested_breaks(global const int *in, global int *out, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  int v = in[i], acc = 0;
  for (int a = 0; a < (v & 7); ++a) {
    for (int b = 0; b < a + (i & 3); ++b) {
      if (((a * b + v) & 15) == 3) break;
      acc += a * 3 + b - v % 5;
    }
    if (acc > 40) break;
  }
  out[i] = acc;
}

// A division by a value that is zero for work-items already out of the loop, and atomics
// inside it.
kernel void divide_and_count(global const int *in, global int *counts, global int *out,
                             int step) {
  int i = get_global_id(0);
  int v = in[i], q = 0;
  while (v > 0) {
    q += 1000 / v;
    atomic_inc(&counts[v & 15]);
    v -= step;
  }
  out[i] = q;
}

// Newton's square root with math calls in a loop of data-dependent length.
kernel void newton_sqrt(global const float *in, global float *out, global int *iterations) {
  size_t i = get_global_id(0);
  float a = in[i], x = a > 1.0f ? a : 1.0f;
  int k = 0;
  while (fabs(x * x - a) > 1e-5f * a && k < 60) {
    x = 0.5f * (x + a / x) + 0.0f * sin(x);
    ++k;
  }
  out[i] = x;
  iterations[i] = k;
}

// Two dimensions: work-items of one row share y; the loop's length depends on x and y.
kernel void escape_grid(global int *out, int width, int limit) {
  int x = get_global_id(0), y = get_global_id(1);
  int zr = x - 40, zi = y - 20, k = 0;
  while (k < limit && zr * zr + zi * zi < 10000) {
    int t = (zr * zr - zi * zi) / 16 + x - 40;
    zi = (2 * zr * zi) / 16 + y - 20;
    zr = t;
    ++k;
  }
  out[y * width + x] = k;
}

// A loop of varying length after a barrier: the region after it runs vectorised with what the
// work-items kept across the barrier.
kernel void steps_of_neighbour(global const uint *in, global uint *out, local uint *tmp) {
  size_t lid = get_local_id(0), size = get_local_size(0);
  tmp[lid] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  uint v = tmp[(lid + 1) % size], steps = 0;
  while (v != 1 && steps < 500) {
    v = (v & 1) ? 3 * v + 1 : v / 2;
    ++steps;
  }
  out[get_global_id(0)] = steps;
}

// Loops that all work-items run alike (trip counts from arguments) inside a branch that only
// some take, one of them left through a break; a loop of varying length beside them. The
// store inside the first uniform loop is for the work-items in its branch only.
kernel void uniform_loops_in_branches(global const int *in, global int *out, int n) {
  size_t i = get_global_id(0);
  int v = in[i], acc = 0;
  if (v % 3 != 0) {
    for (int k = 0; k < n; ++k) {
      acc += v * k + (k & 1);
      out[i] = acc;
    }
  } else {
    for (int k = 0;; ++k) {
      if (k * k > n) break;
      acc -= k;
    }
  }
  while (v > 1) {
    v /= 2;
    ++acc;
  }
  out[i] += acc;
}

// C = A * B for n x n matrices through __local tiles as large as the (square) group: a loop
// over tiles with barriers, and between them a loop over k that all work-items run alike.
kernel void tiled_matmul(global const float *a, global const float *b, global float *c, int n,
                         local float *as, local float *bs) {
  int lx = get_local_id(0), ly = get_local_id(1), t = get_local_size(0);
  int row = get_global_id(1), col = get_global_id(0);
  float acc = 0.0f;
  for (int k0 = 0; k0 < n; k0 += t) {
    as[ly * t + lx] = a[row * n + k0 + lx];
    bs[ly * t + lx] = b[(k0 + ly) * n + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < t; ++k) acc += as[ly * t + k] * bs[k * t + lx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  c[row * n + col] = acc;
}

// Vector values of each work-item: a loop all work-items run alike `n` times, a loop of each
// one's own length, elements picked and swapped, a vector select, a vector stored by some
// work-items only, and a float3, which lies padded to four floats in memory.
kernel void vector_lanes(global const float4 *in, global float4 *out, global int4 *counts,
                         global float *picked, global float3 *padded, int n) {
  size_t i = get_global_id(0);
  float4 x = in[i];
  float4 acc = (float4)(0.0f);
  for (int k = 0; k < n; ++k) acc = fma(acc, (float4)(0.5f), x + (float)k);
  int4 c = (int4)(0);
  float4 y = x;
  while (y.x + y.y + y.z + y.w < 40.0f && c.x < 50) {
    y = y * 1.5f + 1.0f;
    c += (int4)(1, 2, (int)y.z & 3, 0);
  }
  c.w = (int)i;
  acc.yz = acc.zy;
  out[i] = select(acc, y, isgreater(x, (float4)(2.0f)));
  if (i % 3 != 0) counts[i] = c;
  picked[i] = acc.w + y.x;
  padded[i] = x.xyz * 2.0f;
}

// Loops whose count is an argument: the same for every work-item, known only at launch. The
// first reads at a fixed step across work-items (one vector per turn), the second walks each
// work-item's own row (no fixed step), the third stores inside a branch that leaves some
// work-items out; the first two loops' last values are used after them.
kernel void counted_loops(global const float *in, global const int *rows, global float *sums,
                          global int *rowSums, global float *trail, int n) {
  size_t i = get_global_id(0);
  size_t g = get_global_size(0);
  float acc = 0.0f;
  int last = -1;
  for (int k = 0; k < n; ++k) {
    acc = acc * 0.5f + in[k * g + i];
    last = k;
  }
  int r = 0;
  for (int k = 0; k < n; ++k) r += rows[i * n + k] * (k + 1);
  sums[i] = acc + (float)last;
  rowSums[i] = r;
  if (i % 3 != 1)
    for (int k = 0; k < n; ++k) trail[k * g + i] = acc - (float)k;
}
