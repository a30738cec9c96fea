// Vector math builtins give, lane by lane, what the scalar builtin gives for the same lane:
// OpenCL C's math functions apply to a vector element by element. Large ones are compiled
// differently from the scalar ones on some devices (on CUDA, one call of the scalar function
// per lane), so each vector form is checked against the scalar form on the same device.
#include "device_param.hpp"

#include <cmath>
#include <vector>

namespace xpurt::test {
namespace {

class VectorMathTest : public DeviceTest {
 protected:
  Module kernels{device, "xpurt_test_vector_math"};
};

// How far apart a and b are, in units in the last place of T (with `mantissa` bits) at b.
double ulpsApart(double a, double b, int mantissa, int minExponent) {
  if (std::isnan(a) && std::isnan(b)) return 0;
  if (a == b) return 0;
  if (std::isinf(a) || std::isinf(b) || std::isnan(a) || std::isnan(b)) return HUGE_VAL;
  int exponent = b == 0 ? minExponent : std::max(std::ilogb(b), minExponent);
  return std::fabs(a - b) / std::ldexp(1.0, exponent - mantissa);
}

std::vector<double> inputs(size_t n, double first, double step, double wrap) {
  std::vector<double> v(n);
  for (size_t k = 0; k < n; ++k) v[k] = first + std::fmod(step * double(k), wrap);
  return v;
}

struct Slot {
  const char *function;
  size_t first, count;
};

template <class T>
void expectLanesMatch(const T *vector, const T *scalar, size_t items, size_t stride,
                      std::initializer_list<Slot> slots, int mantissa, int minExponent,
                      double ulps) {
  for (size_t i = 0; i < items; ++i)
    for (const Slot &slot : slots)
      for (size_t l = slot.first; l < slot.first + slot.count; ++l) {
        double v = double(vector[i * stride + l]), s = double(scalar[i * stride + l]);
        EXPECT_LE(ulpsApart(v, s, mantissa, minExponent), ulps)
            << slot.function << ", work-item " << i << ", lane " << l - slot.first << ": vector "
            << v << ", scalar " << s;
      }
}

constexpr size_t kItems = 8;

// The scalar results of one function against the host's (loosely: this is not a precision
// test), so that a kernel which left both outputs alike but wrong (all zeros) does not pass.
// Input lane l of work-item i is x[i * lanes + l]; its result, scalar[i * stride + first + l].
template <class T, class F>
void expectNearHost(const T *scalar, const std::vector<T> &x, size_t lanes, size_t stride,
                    size_t first, F host, const char *function) {
  for (size_t i = 0; i < kItems; ++i)
    for (size_t l = 0; l < lanes; ++l) {
      double want = host(double(x[i * lanes + l]));
      EXPECT_NEAR(double(scalar[i * stride + first + l]), want,
                  0.01 * std::max(1.0, std::fabs(want)))
          << function << " against the host's, work-item " << i << ", lane " << l;
    }
}

TEST_P(VectorMathTest, DoubleVectorsMatchTheScalarFunctions) {
  std::vector<double> x = inputs(kItems * 16, -3.7, 0.29, 9.0),
                      y = inputs(kItems * 16, 0.5, 0.13, 2.0);
  Array<double> xv(device, x), yv(device, y);
  Array<double, AllocType::Shared> v(device, kItems * 64), s(device, kItems * 64);
  Array<int32_t, AllocType::Shared> vi(device, kItems * 8), si(device, kItems * 8);
  queue.copyToDevice(xv);
  queue.copyToDevice(yv);
  queue.launch(Kernel(kernels, "double_lanes"), Range(kItems), {xv, yv, v, s, vi, si});
  queue.sync();
  expectLanesMatch(v.hostPtr(), s.hostPtr(), kItems, 64,
                   {{"lgamma(double16)", 0, 16},
                    {"pow(double16)", 16, 16},
                    {"lgamma_r(double8)", 32, 8},
                    {"erf(double3)", 48, 3},
                    {"atan2(double2)", 51, 2}},
                   52, -1022, 4);
  for (size_t k = 0; k < kItems * 8; ++k)
    EXPECT_EQ(vi.hostPtr()[k], si.hostPtr()[k]) << "lgamma_r's sign, lane " << k;
  expectNearHost(
      s.hostPtr(), x, 16, 64, 0, [](double a) { return std::lgamma(a); }, "lgamma");
}

TEST_P(VectorMathTest, FloatVectorsMatchTheScalarFunctions) {
  std::vector<double> xd = inputs(kItems * 16, -2.6, 0.31, 7.0),
                      yd = inputs(kItems * 16, 0.4, 0.17, 3.0);
  std::vector<float> x(xd.begin(), xd.end()), y(yd.begin(), yd.end());
  Array<float> xv(device, x), yv(device, y);
  Array<float, AllocType::Shared> v(device, kItems * 64), s(device, kItems * 64);
  Array<int32_t, AllocType::Shared> vi(device, kItems * 3), si(device, kItems * 3);
  queue.copyToDevice(xv);
  queue.copyToDevice(yv);
  queue.launch(Kernel(kernels, "float_lanes"), Range(kItems), {xv, yv, v, s, vi, si});
  queue.sync();
  expectLanesMatch(v.hostPtr(), s.hostPtr(), kItems, 64,
                   {{"sincos(float4), sine", 0, 4},
                    {"sincos(float4), cosine", 4, 4},
                    {"tgamma(float8)", 8, 8},
                    {"cos(float16)", 16, 16},
                    {"remquo(float3)", 32, 3},
                    {"atan2(float16)", 48, 16}},
                   23, -126, 4);
  // remquo's quotient: its sign and at least its 3 lowest bits are specified.
  for (size_t k = 0; k < kItems * 3; ++k)
    EXPECT_EQ(vi.hostPtr()[k] & 7, si.hostPtr()[k] & 7) << "remquo's quotient, lane " << k;
  expectNearHost(
      s.hostPtr(), x, 16, 64, 16, [](double a) { return std::cos(a); }, "cos");
}

TEST_P(VectorMathTest, HalfVectorsMatchTheScalarFunctions) {
  std::vector<double> xd = inputs(kItems * 8, -2.0, 0.23, 4.0),
                      yd = inputs(kItems * 8, 0.5, 0.11, 1.5);
  std::vector<_Float16> x(xd.begin(), xd.end()), y(yd.begin(), yd.end());
  Array<_Float16> xv(device, x), yv(device, y);
  Array<_Float16, AllocType::Shared> v(device, kItems * 16), s(device, kItems * 16);
  queue.copyToDevice(xv);
  queue.copyToDevice(yv);
  queue.launch(Kernel(kernels, "half_lanes"), Range(kItems), {xv, yv, v, s});
  queue.sync();
  expectLanesMatch(v.hostPtr(), s.hostPtr(), kItems, 16,
                   {{"sin(half8)", 0, 8}, {"pow(half8)", 8, 8}}, 10, -14, 2);
  expectNearHost(
      s.hostPtr(), x, 8, 16, 0, [](double a) { return std::sin(a); }, "sin");
}

XPURT_INSTANTIATE_CONFORMANCE(VectorMathTest);

}  // namespace
}  // namespace xpurt::test
