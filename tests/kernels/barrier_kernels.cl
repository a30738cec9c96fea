// Kernels with barriers and __local memory for the conformance tests.

// Sum of each group's values, by a tree in a __local pointer argument.
kernel void reduce_sum(global const float *in, global float *out, local float *scratch) {
  size_t lid = get_local_id(0), n = get_local_size(0);
  scratch[lid] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t stride = n / 2; stride > 0; stride /= 2) {  // a barrier inside a loop
    if (lid < stride) scratch[lid] += scratch[lid + stride];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) out[get_group_id(0)] = scratch[0];
}

// Transpose of a rows x cols matrix through a static __local tile.
#define TILE 16
kernel void transpose(global float *out, global const float *in, int rows, int cols) {
  local float tile[TILE][TILE + 1];
  int x = get_global_id(0), y = get_global_id(1);
  int lx = get_local_id(0), ly = get_local_id(1);
  if (x < cols && y < rows) tile[ly][lx] = in[y * cols + x];
  barrier(CLK_LOCAL_MEM_FENCE);
  int ox = get_group_id(1) * TILE + lx, oy = get_group_id(0) * TILE + ly;
  if (ox < rows && oy < cols) out[oy * rows + ox] = tile[lx][ly];
}

// Inclusive prefix sum within each group (Hillis-Steele), values kept in registers across
// barriers.
kernel void prefix_scan(global const int *in, global int *out, local int *a, local int *b) {
  size_t lid = get_local_id(0), n = get_local_size(0);
  int mine = in[get_global_id(0)];
  a[lid] = mine;
  barrier(CLK_LOCAL_MEM_FENCE);
  local int *from = a, *to = b;
  for (size_t offset = 1; offset < n; offset *= 2) {
    int v = from[lid];
    if (lid >= offset) v += from[lid - offset];
    to[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    local int *t = from;
    from = to;
    to = t;
  }
  out[get_global_id(0)] = from[lid] + 0 * mine;
}

// Histogram in __local memory with local atomics, merged into global memory.
kernel void histogram(global const uint *in, global uint *bins, int n) {
  local uint counts[16];
  size_t lid = get_local_id(0);
  if (lid < 16) counts[lid] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  size_t i = get_global_id(0);
  if (i < n) atomic_inc(&counts[in[i] % 16]);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid < 16) atomic_add(&bins[lid], counts[lid]);
}

// Private values that live across several barriers, in a loop with a data-dependent but
// uniform trip count.
kernel void rotate_ring(global int *data, int rounds, local int *ring) {
  size_t lid = get_local_id(0), n = get_local_size(0);
  int value = data[get_global_id(0)];
  int history = 0;
  for (int r = 0; r < rounds; ++r) {
    ring[lid] = value;
    barrier(CLK_LOCAL_MEM_FENCE);
    value = ring[(lid + 1) % n];
    history = history * 3 + value;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  data[get_global_id(0)] = value * 1000 + (history & 511);
}

// Each work-item: the product of its row of the group's tile (in __local memory, the same for
// every work-item of the row) with a column of w (the same for every row), the shape of a
// tiled matrix product, for any group shape. w holds local size x squared values.
kernel void tile_row_products(global const float *in, global const float *w, global float *out,
                              local float *tile) {
  size_t lx = get_local_size(0), ly = get_local_size(1);
  size_t x = get_local_id(0), row = get_local_id(2) * ly + get_local_id(1);
  size_t g = (get_global_id(2) * get_global_size(1) + get_global_id(1)) * get_global_size(0) +
             get_global_id(0);
  tile[row * lx + x] = in[g];
  barrier(CLK_LOCAL_MEM_FENCE);
  float acc = 0;
  for (size_t k = 0; k < lx; ++k) acc += tile[row * lx + k] * w[k * lx + x];
  out[g] = acc;
}
