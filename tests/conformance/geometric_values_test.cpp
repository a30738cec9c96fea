// The geometric builtins of half, float and double on vectors of 1 to 4 elements by value
// (tests/kernels/geometric_values.cl), against references computed on the host in long double,
// within OpenCL's bounds (C 3.0, 7.4: from the constituent operations): dot and cross within
// a few epsilons of the sum of the magnitudes of their products, length within 2 + n ulp,
// distance within 2.5 + 2n ulp, normalize's elements within 2 + n epsilons, fast_length,
// fast_distance and fast_normalize of float within 8192 ulp.
#include "device_param.hpp"
#include "float_checks.hpp"

#include <cmath>
#include <random>
#include <vector>

namespace xpurt::test {
namespace {

constexpr size_t kStride = 40;

class GeometricValuesTest : public DeviceTest {
 protected:
  Module kernels{device, "xpurt_test_geometric_values"};

  template <class T>
  void check(const char *kernel, int digits) {
    const long double eps = std::ldexp(1.0L, 1 - digits);
    std::mt19937_64 random(2030);
    std::uniform_real_distribution<double> unit(-10, 10);
    std::vector<T> a, b;
    for (size_t i = 0; i < 1024 * 4; ++i) {
      // Some zeros, and the first vector all zeros (normalize returns it).
      bool zero = i < 4 || i % 7 == 0;
      a.push_back(zero ? T(0) : static_cast<T>(unit(random)));
      b.push_back(static_cast<T>(unit(random)));
    }
    size_t items = a.size() / 4;
    std::vector<T> out(items * kStride, T(-7));
    Array<T> av(device, a), bv(device, b), ov(device, out);
    queue.copyToDevice(av);
    queue.copyToDevice(bv);
    queue.launch(Kernel(kernels, kernel), Range(uint32_t(items)), {av, bv, ov, uint32_t(items)});
    queue.copyToHost(ov);
    queue.sync();
    int wrong = 0;
    auto expect = [&](bool ok, const char *what, size_t item, int n, long double got,
                      long double want) {
      if (!ok && ++wrong <= 8)
        ADD_FAILURE() << what << " of " << n << " element(s), vector " << item << " on "
                      << GetParam().name << ": " << show(double(got)) << ", expected "
                      << show(double(want));
    };
    for (size_t i = 0; i < items; ++i) {
      const T *x = &a[i * 4], *y = &b[i * 4];
      const T *o = &out[i * kStride];
      size_t k = 0;
      for (int n = 1; n <= 4; ++n) {
        long double dot = 0, terms = 0, squares = 0, diff = 0;
        for (int j = 0; j < n; ++j) {
          long double xj = double(x[j]), yj = double(y[j]);
          dot += xj * yj;
          terms += std::fabs(xj * yj);
          squares += xj * xj;
          diff += (xj - yj) * (xj - yj);
        }
        long double length = std::sqrt(squares), distance = std::sqrt(diff);
        expect(std::fabs(double(o[k]) - dot) <= 2 * n * eps * terms, "dot", i, n, double(o[k]),
               dot);
        ++k;
        expect(std::fabs(double(o[k]) - length) <= (2 + n) * eps * length, "length", i, n,
               double(o[k]), length);
        ++k;
        expect(std::fabs(double(o[k]) - distance) <= (2.5L + 2 * n) * eps * distance, "distance", i,
               n, double(o[k]), distance);
        ++k;
        for (int j = 0; j < n; ++j, ++k) {
          long double want = length == 0 ? 0 : double(x[j]) / length;
          expect(std::fabs(double(o[k]) - want) <= (2 + n) * eps, "normalize", i, n, double(o[k]),
                 want);
        }
      }
      for (int n = 3; n <= 4; ++n)
        for (int j = 0; j < n; ++j, ++k) {
          long double want = 0, bound = 0;
          if (j < 3) {
            int p = (j + 1) % 3, q = (j + 2) % 3;
            long double xp = double(x[p]), xq = double(x[q]), yp = double(y[p]), yq = double(y[q]);
            want = xp * yq - xq * yp;
            bound = 3 * eps * (std::fabs(xp * yq) + std::fabs(xq * yp));
          }
          expect(std::fabs(double(o[k]) - want) <= bound, "cross", i, n, double(o[k]), want);
        }
      if (digits == 24) {  // fast_length, fast_distance, fast_normalize of float4
        long double squares = 0, diff = 0;
        for (int j = 0; j < 4; ++j) {
          squares += double(x[j]) * double(x[j]);
          diff += (double(x[j]) - double(y[j])) * (double(x[j]) - double(y[j]));
        }
        long double length = std::sqrt(squares), distance = std::sqrt(diff);
        expect(std::fabs(double(o[k]) - length) <= 8192 * eps * length, "fast_length", i, 4,
               double(o[k]), length);
        ++k;
        expect(std::fabs(double(o[k]) - distance) <= 8192 * eps * distance, "fast_distance", i, 4,
               double(o[k]), distance);
        ++k;
        for (int j = 0; j < 4; ++j, ++k) {
          long double want = length == 0 ? 0 : double(x[j]) / length;
          expect(std::fabs(double(o[k]) - want) <= 8192 * eps, "fast_normalize", i, 4, double(o[k]),
                 want);
        }
      }
    }
    EXPECT_EQ(wrong, 0) << kernel << " on " << GetParam().name;
  }
};

TEST_P(GeometricValuesTest, Half) {
  check<_Float16>("geometric_half", 11);
}
TEST_P(GeometricValuesTest, Float) {
  check<float>("geometric_float", 24);
}
TEST_P(GeometricValuesTest, Double) {
  check<double>("geometric_double", 53);
}

XPURT_INSTANTIATE_CONFORMANCE(GeometricValuesTest);

}  // namespace
}  // namespace xpurt::test
