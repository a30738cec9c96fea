// Vector math builtins against the scalar ones, lane by lane (vector_math_test.cpp), and the
// kernels whose PTX tests/cuda/check_vector_math_ptx.sh inspects.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

kernel void lgamma_double16(global const double16 *x, global double16 *y) {
  size_t i = get_global_id(0);
  y[i] = lgamma(x[i]);
}

kernel void sincos_float4(global const float4 *x, global float4 *s, global float4 *c) {
  size_t i = get_global_id(0);
  float4 cosine;
  s[i] = sincos(x[i], &cosine);
  c[i] = cosine;
}

kernel void fabs_float4(global const float4 *x, global float4 *y) {
  size_t i = get_global_id(0);
  y[i] = fabs(x[i]);
}

// Each work-item takes 16 lanes of x and y; each function's vector results go to v and the
// scalar function's results for the same lanes to s, 16 values apart (kDoubleResults, ...).
kernel void double_lanes(global const double *x, global const double *y, global double *v,
                         global double *s, global int *vi, global int *si) {
  size_t i = get_global_id(0);
  double16 a = vload16(i, x), b = vload16(i, y);
  global double *vo = v + i * 64, *so = s + i * 64;
  int8 q;
  vstore16(lgamma(a), 0, vo);
  vstore16(pow(fabs(a), b), 1, vo);
  vstore8(lgamma_r(a.lo, &q), 4, vo);
  vstore8(q, i, vi);
  vstore3(erf(a.s012), 0, vo + 48);
  vstore2(atan2(a.s34, b.s34), 0, vo + 51);
  for (int l = 0; l < 16; ++l) {
    double al = x[i * 16 + l], bl = y[i * 16 + l];
    so[l] = lgamma(al);
    so[16 + l] = pow(fabs(al), bl);
    if (l < 8) {
      int ql;
      so[32 + l] = lgamma_r(al, &ql);
      si[i * 8 + l] = ql;
    }
    if (l < 3) so[48 + l] = erf(al);
    if (l >= 3 && l < 5) so[48 + l] = atan2(al, bl);
  }
}

kernel void float_lanes(global const float *x, global const float *y, global float *v,
                        global float *s, global int *vi, global int *si) {
  size_t i = get_global_id(0);
  float16 a = vload16(i, x), b = vload16(i, y);
  global float *vo = v + i * 64, *so = s + i * 64;
  float4 c;
  int3 q;
  vstore4(sincos(a.lo.lo, &c), 0, vo);
  vstore4(c, 1, vo);
  vstore8(tgamma(a.hi), 1, vo);
  vstore16(cos(a), 1, vo);
  vstore3(remquo(a.s012, b.s012 + 0.5f, &q), 0, vo + 32);
  vstore3(q, i, vi);
  vstore16(atan2(a, b), 3, vo);
  for (int l = 0; l < 16; ++l) {
    float al = x[i * 16 + l], bl = y[i * 16 + l];
    if (l < 4) {
      float cl;
      so[l] = sincos(al, &cl);
      so[4 + l] = cl;
    }
    if (l >= 8) so[l] = tgamma(al);
    so[16 + l] = cos(al);
    if (l < 3) {
      int ql;
      so[32 + l] = remquo(al, bl + 0.5f, &ql);
      si[i * 3 + l] = ql;
    }
    so[48 + l] = atan2(al, bl);
  }
}

kernel void half_lanes(global const half *x, global const half *y, global half *v,
                       global half *s) {
  size_t i = get_global_id(0);
  half8 a = vload8(i, x), b = vload8(i, y);
  global half *vo = v + i * 16, *so = s + i * 16;
  vstore8(sin(a), 0, vo);
  vstore8(pow(fabs(a), b), 1, vo);
  for (int l = 0; l < 8; ++l) {
    half al = x[i * 8 + l], bl = y[i * 8 + l];
    so[l] = sin(al);
    so[8 + l] = pow(fabs(al), bl);
  }
}

// sin, cos and pow of each element of a float4, combined at the end (bench/kernels/vector_math.cl
// has the same shape): check_vector_math_ptx.sh checks that each element's code stays where it
// is computed, as nvcc leaves it, and that libdevice's rounding is rint.
kernel void sin_cos_pow_float4(global float4 *y, global const float4 *x, int n) {
  int i = get_global_id(0);
  if (i < n) {
    float4 v = x[i];
    y[i] = sin(v) * cos(0.5f * v) + pow(fabs(v) + 1.0f, (float4)(1.5f));
  }
}

// Sums of each work-group's elements through local memory, written at the group's id after the
// barriers: check_vector_math_ptx.sh checks that the group id comes from the kernel's
// parameters, not through shared memory.
kernel void group_sums(global const float *x, global float *sums, local float *scratch) {
  size_t lid = get_local_id(0), n = get_local_size(0);
  scratch[lid] = x[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t stride = n / 2; stride > 0; stride /= 2) {
    if (lid < stride) scratch[lid] += scratch[lid + stride];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) sums[get_group_id(0)] = scratch[0];
}
