// The common builtins of half, float and double by value (tests/kernels/common_values.cl):
// clamp, max, min, step and sign exact, degrees and radians within 2 ulp (OpenCL C 3.0, 7.4),
// mix and smoothstep, whose accuracy OpenCL leaves to the implementation, within a few ulp of
// their operands; each where OpenCL defines the result (max and min of finite values, mix with
// a in [0, 1], smoothstep with edge0 < edge1, step of a number). References in long double on
// the host; vector forms lane by lane against the scalar ones.
#include "device_param.hpp"
#include "float_checks.hpp"

#include <cmath>
#include <random>
#include <vector>

namespace xpurt::test {
namespace {

constexpr size_t kCommonResults = 9;
const char *const kCommonNames[kCommonResults] = {"clamp", "degrees", "radians",    "max", "min",
                                                  "mix",   "step",    "smoothstep", "sign"};

// Whether result r is right for x, y, z (`checked` false where OpenCL leaves it undefined).
template <class T>
bool correct(size_t r, T tx, T ty, T tz, T tgot, bool *checked, long double *want) {
  long double x = double(tx), y = double(ty), z = double(tz), got = double(tgot);
  *checked = true;
  auto exactly = [&](long double w, bool eitherZero) {
    *want = w;
    if (std::isnan(w)) return std::isnan(got);
    if (w == 0 && got == 0) return eitherZero || std::signbit(got) == std::signbit(w);
    return got == w;
  };
  auto within = [&](long double w, long double tolerance) {
    *want = w;
    if (std::isnan(w)) return std::isnan(got);
    if (std::isinf(static_cast<long double>(double(static_cast<T>(double(w))))))
      return got == static_cast<long double>(double(static_cast<T>(double(w))));
    return std::fabs(got - w) <= tolerance;
  };
  bool finite = std::isfinite(x) && std::isfinite(y);
  switch (r) {
    case 0: {  // fmin(fmax(x, y), z): NaN x gives y
      long double lo = std::isnan(x) ? y : std::max(x, y);
      return exactly(std::min(lo, z), x == 0 || y == 0 || z == 0);
    }
    case 1:
      return within(x * (180 / kPi), 2 * ulpAt<T>(x * (180 / kPi)));
    case 2:
      return within(x * (kPi / 180), 2 * ulpAt<T>(x * (kPi / 180)));
    case 3:
      *checked = finite;
      return exactly(x < y ? y : x, x == 0 && y == 0);
    case 4:
      *checked = finite;
      return exactly(y < x ? y : x, x == 0 && y == 0);
    case 5: {
      *checked = x >= 0 && x <= 1 && std::isfinite(z);
      long double big = std::max(std::fabs(y), std::fabs(z));
      return within(y + (z - y) * x, 4 * ulpAt<T>(big));
    }
    case 6:
      *checked = !std::isnan(x);
      return exactly(x < y ? 0 : 1, false);
    case 7: {
      *checked = std::isfinite(x) && y < z;
      long double t = std::min(std::max((x - y) / (z - y), 0.0L), 1.0L);
      long double scale = std::max(1.0L, (std::fabs(x) + std::fabs(y) + std::fabs(z)) / (z - y));
      return within(t * t * (3 - 2 * t), 16 * scale * ulpAt<T>(1));
    }
    default:
      return exactly(std::isnan(x) ? 0.0L : x > 0 ? 1.0L : x < 0 ? -1.0L : x, false);
  }
}

class CommonValuesTest : public DeviceTest {
 protected:
  Module kernels{device, "xpurt_test_common_values"};

  template <class T>
  std::vector<T> run(const char *name, const std::vector<T> &x, const std::vector<T> &y,
                     const std::vector<T> &z, size_t lanes) {
    std::vector<T> xs = x, ys = y, zs = z, out(x.size() * kCommonResults, T(-7));
    Array<T> xa(device, xs), ya(device, ys), za(device, zs), oa(device, out);
    queue.copyToDevice(xa);
    queue.copyToDevice(ya);
    queue.copyToDevice(za);
    uint32_t items = uint32_t(x.size() / lanes);
    queue.launch(Kernel(kernels, name), Range(items), {xa, ya, za, oa, items});
    queue.copyToHost(oa);
    queue.sync();
    return scalarOrder(out, kCommonResults, lanes);
  }

  // x: special values, then random ones of several ranges and values in [0, 1] (mix's
  // weights); y < z: random values of the same ranges.
  template <class T>
  void check(const char *scalarKernel, const char *vectorKernel, size_t lanes) {
    FloatFormat f = kFloatFormat<T>;
    double biggest = std::ldexp(2.0 - std::ldexp(1.0, 1 - f.digits), -f.minExponent + 1);
    const double specials[] = {
        0,   -0.0, INFINITY, -INFINITY, NAN,     1,        -1,
        0.5, -0.5, 0.25,     2,         biggest, -biggest, std::ldexp(1.0, f.minExponent)};
    std::vector<T> x, y, z;
    std::mt19937_64 random(2029);
    std::uniform_real_distribution<double> unit(-1, 1);
    double range[] = {1, 10, 100, 1000};
    for (size_t i = 0; x.size() < 2048; ++i) {
      double scale = range[i % 4];
      double a = i < std::size(specials) ? specials[i]
                 : i % 3 == 0            ? std::fabs(unit(random))
                                         : scale * unit(random);
      double b = scale * unit(random), c = scale * unit(random);
      if (c < b) std::swap(b, c);
      x.push_back(static_cast<T>(a));
      y.push_back(static_cast<T>(b));
      z.push_back(static_cast<T>(c));
    }
    std::vector<T> scalar = run(scalarKernel, x, y, z, 1);
    std::vector<T> vector = run(vectorKernel, x, y, z, lanes);
    for (size_t r = 0; r < kCommonResults; ++r) {
      int wrong = 0, differing = 0, checkedCount = 0;
      for (size_t i = 0; i < x.size(); ++i) {
        bool checked;
        long double want;
        T got = scalar[i * kCommonResults + r];
        bool ok = correct(r, x[i], y[i], z[i], got, &checked, &want);
        if (!checked) continue;
        ++checkedCount;
        if (!ok && ++wrong <= 3)
          ADD_FAILURE() << kCommonNames[r] << " (x " << show(double(x[i])) << ", y "
                        << show(double(y[i])) << ", z " << show(double(z[i])) << ") on "
                        << GetParam().name << ": " << show(double(got)) << ", expected "
                        << show(double(want));
        if (!sameBits(vector[i * kCommonResults + r], got) && ++differing <= 2)
          ADD_FAILURE() << kCommonNames[r] << " on a vector of " << lanes << " (x "
                        << show(double(x[i]))
                        << "): " << show(double(vector[i * kCommonResults + r])) << ", the scalar "
                        << show(double(got));
      }
      EXPECT_GT(checkedCount, 500) << kCommonNames[r];
      EXPECT_EQ(wrong + differing, 0)
          << kCommonNames[r] << " on " << GetParam().name << ": " << wrong << " wrong, "
          << differing << " vector lanes unlike the scalar";
    }
  }
};

TEST_P(CommonValuesTest, Half) {
  check<_Float16>("common_half", "common_half8", 8);
}
TEST_P(CommonValuesTest, Float) {
  check<float>("common_float", "common_float4", 4);
}
TEST_P(CommonValuesTest, Double) {
  check<double>("common_double", "common_double2", 2);
}

XPURT_INSTANTIATE_CONFORMANCE(CommonValuesTest);

}  // namespace
}  // namespace xpurt::test
