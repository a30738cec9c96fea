// Checks of floating-point builtin results for the value suites (math_values_test.cpp,
// math_values_more_test.cpp, common_values_test.cpp, relational_values_test.cpp,
// geometric_values_test.cpp): OpenCL's ulp measure for half, float and double, how a value is
// shown in a failure, the scalar order of a vector kernel's results, and random operands.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace xpurt::test {

inline constexpr long double kPi = 3.14159265358979323846264338327950288L;

// A type's significant bits and the exponent of its smallest normal value.
struct FloatFormat {
  int digits, minExponent;
};
template <class T>
constexpr FloatFormat kFloatFormat = std::is_same_v<T, double>  ? FloatFormat{53, -1022}
                                     : std::is_same_v<T, float> ? FloatFormat{24, -126}
                                                                : FloatFormat{11, -14};

// The ulp of T at v (below T's smallest normal, the smallest subnormal's).
template <class T>
long double ulpAt(long double v) {
  constexpr FloatFormat format = kFloatFormat<T>;
  int exponent = v == 0 ? format.minExponent : std::max(std::ilogb(v), format.minExponent);
  return std::ldexp(1.0L, exponent - (format.digits - 1));
}

// Whether a device result is within `ulps` of the exact value (OpenCL's measure: the error
// over the ulp of T at the exact value; below T's smallest normal, the smallest subnormal's
// scale). NaN must be NaN; infinities, zeros (with their signs) and results that round to an
// infinity must be exact. With no limit (ulps < 0), within 2^-10 relative, or 2^-12 absolute
// near a zero. *error is the error in ulps (or absolute, without a limit).
template <class T>
bool withinUlps(long double exact, T result, double ulps, double *error) {
  *error = 0;
  long double got = static_cast<long double>(result);
  long double rounded = static_cast<long double>(static_cast<T>(exact));
  if (std::isnan(exact)) return std::isnan(got);
  if (std::isnan(got)) return false;
  if (std::isinf(rounded) || exact == 0)
    return got == rounded && std::signbit(got) == std::signbit(rounded);
  if (std::isinf(got)) return false;
  long double diff = std::fabs(got - exact);
  if (ulps < 0) {
    *error = double(diff);
    return diff <= std::max(std::fabs(exact) / 1024, 1.0L / 4096);
  }
  *error = double(diff / ulpAt<T>(exact));
  return *error <= ulps;
}

// The same bits, or both NaN.
template <class T>
bool sameBits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0 || (std::isnan(double(a)) && std::isnan(double(b)));
}

// A value as decimal, with as many digits as tell T's values apart, and as a hexadecimal float.
template <class T>
std::string show(T v) {
  std::ostringstream s;
  s.precision(kFloatFormat<T>.digits == 53 ? 17 : kFloatFormat<T>.digits == 24 ? 9 : 5);
  s << double(v);
  if (std::isfinite(double(v))) s << " (" << std::hexfloat << double(v) << ")";
  return s.str();
}

// A vector kernel's results in its scalar kernel's order: result r of lane l of work-item i
// from out[(i * results + r) * lanes + l] to [(i * lanes + l) * results + r].
template <class T>
std::vector<T> scalarOrder(const std::vector<T> &out, size_t results, size_t lanes) {
  std::vector<T> ordered(out.size());
  size_t items = out.size() / (results * lanes);
  for (size_t i = 0; i < items; ++i)
    for (size_t r = 0; r < results; ++r)
      for (size_t l = 0; l < lanes; ++l)
        ordered[(i * lanes + l) * results + r] = out[(i * results + r) * lanes + l];
  return ordered;
}

// Random operands of a value suite, by kind: 0 uniform in [-1, 1], 1 in [-10, 10], 2 in
// [-1000, 1000], 3 of any magnitude T has, with either sign. The same seed draws the same values.
template <class T>
class RandomOperands {
 public:
  explicit RandomOperands(uint64_t seed) : random_(seed) {}
  T draw(int kind) {
    switch (kind) {
      case 0:
        return T(unit_(random_));
      case 1:
        return T(10 * unit_(random_));
      case 2:
        return T(1000 * unit_(random_));
      default:
        return T(std::copysign(std::ldexp(1 + std::fabs(unit_(random_)), int(scale_(random_)) - 1),
                               unit_(random_)));
    }
  }
  // One of kinds 0 to 2, at random.
  int finiteKind() { return int(random_() % 3); }

 private:
  using L = std::numeric_limits<T>;
  std::mt19937_64 random_;
  std::uniform_real_distribution<double> unit_{-1, 1};
  std::uniform_real_distribution<double> scale_{double(L::min_exponent), double(L::max_exponent)};
};

}  // namespace xpurt::test
