// One tile of the wavefront, a work-item per element: the element of the input tile, scaled,
// plus the mean of the last row of the tile above (`up`) and the last column of the tile to
// the left (`left`) — so tile (i, j) needs tiles (i-1, j) and (i, j-1) done first.
kernel void tile(global const float *src, global const float *up, global const float *left,
                 global float *out, float scale) {
  size_t x = get_global_id(0), y = get_global_id(1), n = get_global_size(0);
  out[y * n + x] = scale * src[y * n + x] + 0.5f * (up[(n - 1) * n + x] + left[y * n + n - 1]);
}
