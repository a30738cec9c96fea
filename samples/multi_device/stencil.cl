// One Jacobi step of a 2-D grid held as a slab of rows: rows 1 to rows inside the slab are the
// slab's own, rows 0 and rows + 1 its neighbours' (halo rows, copied in between steps). A cell
// becomes the mean of its four neighbours; the grid's outermost rows and columns stay fixed.
// firstRow: the grid row of the slab's row 1; gridRows: the grid's rows.
kernel void jacobi(global const float *in, global float *out, int width, int firstRow,
                   int gridRows) {
  int x = get_global_id(0);
  int y = get_global_id(1) + 1;  // a row of the slab's own
  int row = firstRow + y - 1;    // the same row in the grid
  size_t i = (size_t)y * width + x;
  if (x == 0 || x == width - 1 || row == 0 || row == gridRows - 1) {
    out[i] = in[i];
    return;
  }
  out[i] = (in[i - 1] + in[i + 1] + in[i - width] + in[i + width]) * 0.25f;
}

// The same step on a grid held whole in a COHERENT view, padded by a zero row above and below:
// `in` points at the padded row above the device's rows, `out` at its first row, so that each
// launch declares exactly what it reads (its rows and a halo row on each side) and writes (its
// rows), and the runtime copies the halo rows between devices.
kernel void jacobi_rows(global const float *in, global float *out, int width, int firstRow,
                        int gridRows) {
  int x = get_global_id(0);
  int y = get_global_id(1) + 1;
  int row = firstRow + y - 1;
  size_t i = (size_t)y * width + x;
  size_t o = i - width;
  if (x == 0 || x == width - 1 || row == 0 || row == gridRows - 1) {
    out[o] = in[i];
    return;
  }
  out[o] = (in[i - 1] + in[i + 1] + in[i - width] + in[i + width]) * 0.25f;
}

// The same step with global ids of the whole grid, for one launch split over devices by rows:
// each device gets its rows, reads a halo row on each side (as far as the grid goes).
kernel void jacobi_grid(global const float *in, global float *out, int width, int gridRows) {
  int x = get_global_id(0);
  int y = get_global_id(1);
  size_t i = (size_t)y * width + x;
  if (x == 0 || x == width - 1 || y == 0 || y == gridRows - 1) {
    out[i] = in[i];
    return;
  }
  out[i] = (in[i - 1] + in[i + 1] + in[i - width] + in[i + width]) * 0.25f;
}
