// The math builtins math_values_test.cpp leaves out, by value against host references within
// OpenCL's limits (OpenCL C 3.0, 7.4 and 7.5.1, full profile), special values exact: sqrt,
// rsqrt, the *pi functions, logb, fmax, fmin, maxmag, minmag, nextafter, powr, pown, rootn,
// fma, mad, frexp, modf, fract, remquo, lgamma_r, fabs and ilogb of float and double
// (tests/kernels/math_values_more.cl), their vector forms lane by lane against the scalar
// ones, and half_ and native_ of float in their domains. The references are computed on the
// host in long double, or in the type itself where the result is defined by its rounding
// (nextafter, fma, mad, fract): independent of every device's library.
#include "device_param.hpp"
#include "float_checks.hpp"

#include <cfloat>
#include <climits>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace xpurt::test {
namespace {

constexpr size_t kResults = 26, kIntResults = 4, kFastResults = 28;

template <class T>
struct Input {
  T x, y, z;
  int n;
};

// OpenCL's special values of powr (7.5.1): pow's where x >= 0, NaN where x < 0, 0^0, inf^0
// and 1^inf; -0 is a zero like +0.
long double powrRef(long double x, long double y) {
  if (std::isnan(x) || std::isnan(y) || x < 0) return NAN;
  if (x == 0) return y == 0 ? NAN : y < 0 ? INFINITY : 0.0L;
  if (std::isinf(x)) return y == 0 ? NAN : y < 0 ? 0.0L : INFINITY;
  if (x == 1) return std::isinf(y) ? NAN : 1.0L;
  return std::pow(x, y);
}

long double rootnRef(long double x, int n) {
  if (n == 0 || std::isnan(x)) return NAN;
  bool odd = n % 2 != 0;
  if (x == 0) return n < 0 ? (odd ? std::copysign(INFINITY, x) : INFINITY) : (odd ? x : 0.0L);
  if (x < 0) return odd ? -std::pow(-x, 1.0L / n) : NAN;
  return std::pow(x, 1.0L / n);
}

// fmax and fmin by their definition (6.15.2); OpenCL leaves the sign of a zero from two zeros
// open, as IEEE 754's maxNum does: `zeros` tells the caller to accept either.
template <class T>
T fmaxRef(T x, T y) {
  return std::isnan(x) ? y : std::isnan(y) ? x : x < y ? y : x;
}
template <class T>
T fminRef(T x, T y) {
  return std::isnan(x) ? y : std::isnan(y) ? x : y < x ? y : x;
}

// fract(x) = fmin(x - floor(x), the largest T below 1), with 7.5.1's special values.
template <class T>
T fractRef(T x, T *floorOut) {
  *floorOut = std::floor(x);
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return std::copysign(T(0), x);
  if (x == 0) return x;
  volatile T difference = x - *floorOut;  // rounded in T, as the definition is
  return std::fmin(T(difference), std::nextafter(T(1), T(0)));
}

// The quotient remquo's *quo must give: the sign of x / y and at least the 7 low bits of the
// integer nearest x / y (the one remainder() uses). Exact where |x / y| < 2^digits (see
// `checkQuotient`); otherwise only the sign is checked.
template <class T>
bool quotientKnown(T x, T y) {
  return std::isfinite(x) && std::isfinite(y) && y != 0 &&
         std::fabs(static_cast<long double>(x) / y) <
             std::ldexp(1.0L, std::numeric_limits<T>::digits);
}

// Where lgamma_r's sign is defined: finite x that is not 0 or a negative integer.
template <class T>
bool lgammaSignKnown(T x) {
  return std::isfinite(x) && x != 0 && !(x < 0 && std::trunc(x) == x);
}

struct Limits {
  double floatUlps, doubleUlps;
};

// Result r of math_values_more.cl: its name and the ulp limit of float and double (0: exact;
// 0.5: correctly rounded; < 0: OpenCL sets none, checked loosely).
struct Result {
  const char *name;
  Limits ulps;
};
const Result kResultNames[kResults] = {
    {"sqrt", {3, 0.5}},       {"rsqrt", {2, 2}},  {"acospi", {5, 5}},        {"asinpi", {5, 5}},
    {"atanpi", {5, 5}},       {"tanpi", {6, 6}},  {"logb", {0, 0}},          {"atan2pi", {6, 6}},
    {"fmax", {0, 0}},         {"fmin", {0, 0}},   {"maxmag", {0, 0}},        {"minmag", {0, 0}},
    {"nextafter", {0, 0}},    {"powr", {16, 16}}, {"pown", {16, 16}},        {"rootn", {16, 16}},
    {"fma", {0, 0}},          {"mad", {0, 0}},    {"frexp", {0, 0}},         {"modf", {0, 0}},
    {"modf (whole)", {0, 0}}, {"fract", {0, 0}},  {"fract (floor)", {0, 0}}, {"remquo", {0, 0}},
    {"lgamma_r", {-1, -1}},   {"fabs", {0, 0}}};

// The exact result r for one input (in long double), and whether a zero's sign is open.
template <class T>
long double reference(size_t r, const Input<T> &in, bool *eitherZero) {
  long double x = in.x, y = in.y;
  *eitherZero = false;
  T whole, floorOut;
  int exponent;
  switch (r) {
    case 0:
      return std::sqrt(x);
    case 1:
      return 1 / std::sqrt(x);
    case 2:
      return std::acos(x) / kPi;
    case 3:
      return std::asin(x) / kPi;
    case 4:
      return std::atan(x) / kPi;
    case 5: {
      // tan(pi x) from x's distance t to the nearest integer n (exact): at integers a zero
      // with the sign of x for even n and of -x for odd n, at n + 1/2 +inf where floor(x) is
      // even and -inf where it is odd (7.5.1).
      if (!std::isfinite(x)) return NAN;
      long double n = std::nearbyint(x), t = x - n;
      if (t == 0) return std::copysign(0.0L, std::fmod(std::fabs(n), 2) == 0 ? x : -x);
      if (std::fabs(t) == 0.5L)
        return std::fmod(std::fabs(std::floor(x)), 2) == 0 ? INFINITY : -INFINITY;
      return std::tan(kPi * t);
    }
    case 6:
      return std::logb(x);
    case 7:
      return std::atan2(x, y) / kPi;
    case 8:
      *eitherZero = in.x == 0 && in.y == 0;
      return fmaxRef(in.x, in.y);
    case 9:
      *eitherZero = in.x == 0 && in.y == 0;
      return fminRef(in.x, in.y);
    case 10:
    case 11: {
      long double ax = std::fabs(x), ay = std::fabs(y);
      *eitherZero = in.x == 0 && in.y == 0;
      if (r == 10) return ax > ay ? x : ay > ax ? y : fmaxRef(in.x, in.y);
      return ax < ay ? x : ay < ax ? y : fminRef(in.x, in.y);
    }
    case 12:
      return std::nextafter(in.x, in.y);
    case 13:
      return powrRef(x, y);
    case 14:
      return std::pow(x, static_cast<long double>(in.n));
    case 15:
      return rootnRef(x, in.n);
    case 16:
      return std::fma(in.x, in.y, in.z);
    case 17:
      return std::fma(in.x, in.y, in.z);  // or the rounded product plus z (checkMad)
    case 18:
      return std::frexp(in.x, &exponent);
    case 19:
      return std::modf(in.x, &whole);
    case 20:
      std::modf(in.x, &whole);
      return whole;
    case 21:
      return fractRef(in.x, &floorOut);
    case 22:
      fractRef(in.x, &floorOut);
      return floorOut;
    case 23:
      return std::remainder(in.x, in.y);
    case 24: {
      int sign;
      return ::lgammal_r(x, &sign);
    }
    default:
      return std::fabs(x);
  }
}

// Specials, pairs of them (x, y), then random values; z and n cycle through their own lists.
template <class T>
std::vector<Input<T>> makeInputs() {
  using L = std::numeric_limits<T>;
  const T specials[] = {0,
                        -T(0),
                        L::infinity(),
                        -L::infinity(),
                        L::quiet_NaN(),
                        1,
                        -1,
                        T(0.5),
                        T(-0.5),
                        T(1.5),
                        2,
                        -2,
                        3,
                        T(-3.5),
                        L::denorm_min(),
                        -L::min(),
                        L::min(),
                        L::max(),
                        -L::max(),
                        T(0.25),
                        T(-0.75),
                        T(100),
                        T(-1e10),
                        T(0.999),
                        T(7)};
  const T zs[] = {0,      -T(0),    1,        -1,      L::infinity(), L::quiet_NaN(),
                  T(0.5), L::max(), L::min(), T(-1e-3)};
  const int ns[] = {0, 1, -1, 2, -2, 3, -3, 4, 5, 7, -7, 10, 31, -64, 100, 1000, -1001};
  std::vector<Input<T>> inputs;
  auto add = [&](T x, T y) {
    size_t i = inputs.size();
    inputs.push_back({x, y, zs[i % std::size(zs)], ns[i % std::size(ns)]});
  };
  for (T a : specials)
    for (T b : specials) add(a, b);
  RandomOperands<T> random(2027);
  while (inputs.size() % 64 != 0 || inputs.size() < 4096) {
    int kind = int(inputs.size() % 4);
    add(random.draw(kind), random.draw(kind == 3 ? random.finiteKind() : kind));
    // Products near z's size for fma and mad: z a random of the same kind.
    if (inputs.size() % 3 == 0) inputs.back().z = random.draw(kind);
  }
  return inputs;
}

class MathValuesMoreTest : public DeviceTest {
 protected:
  Module kernels{device, "xpurt_test_math_values_more"};

  // Runs kernel `name` (`lanes` inputs a work-item) and returns its results in the scalar
  // kernel's order: out[input * kResults + r], iout[input * kIntResults + r].
  template <class T>
  void run(const char *name, const std::vector<Input<T>> &inputs, size_t lanes, std::vector<T> &out,
           std::vector<int> &iout) {
    std::vector<T> x, y, z;
    std::vector<int> n;
    for (const Input<T> &in : inputs) {
      x.push_back(in.x);
      y.push_back(in.y);
      z.push_back(in.z);
      n.push_back(in.n);
    }
    std::vector<T> o(inputs.size() * kResults, T(-7));
    std::vector<int> io(inputs.size() * kIntResults, -7);
    Array<T> xa(device, x), ya(device, y), za(device, z), oa(device, o);
    Array<int> na(device, n), ia(device, io);
    queue.copyToDevice(xa);
    queue.copyToDevice(ya);
    queue.copyToDevice(za);
    queue.copyToDevice(na);
    uint32_t items = uint32_t(inputs.size() / lanes);
    queue.launch(Kernel(kernels, name), Range(items), {xa, ya, za, na, oa, ia, items});
    queue.copyToHost(oa);
    queue.copyToHost(ia);
    queue.sync();
    out = scalarOrder(o, kResults, lanes);
    iout = scalarOrder(io, kIntResults, lanes);
  }

  // The int results' references, where defined: frexp's exponent, remquo's quotient (its sign
  // and 7 low bits), lgamma_r's sign, ilogb.
  template <class T>
  static bool intDefined(size_t r, const Input<T> &in) {
    switch (r) {
      case 0:
        return std::isfinite(in.x);
      case 1:
        return quotientKnown(in.x, in.y);
      case 2:
        return lgammaSignKnown(in.x);
      default:
        return true;
    }
  }
  template <class T>
  static bool intCorrect(size_t r, const Input<T> &in, int got, int *want) {
    switch (r) {
      case 0:
        std::frexp(in.x, want);
        return got == *want;
      case 1: {
        T rest = std::remainder(in.x, in.y);
        long double k = std::nearbyint((static_cast<long double>(in.x) - rest) / in.y);
        *want = int(std::fmod(std::fabs(k), 128.0L)) * (k < 0 ? -1 : 1);
        unsigned magnitude = got < 0 ? 0u - unsigned(got) : unsigned(got);
        return (magnitude & 127) == unsigned(std::abs(*want)) &&
               (k == 0 || got == 0 || (got < 0) == (k < 0));
      }
      case 2:
        ::lgammal_r(in.x, want);
        return got == *want;
      default:
        *want = in.x == 0                              ? INT_MIN
                : std::isnan(in.x) || std::isinf(in.x) ? INT_MAX
                                                       : std::ilogb(in.x);
        return got == *want;
    }
  }

  template <class T>
  void check(const char *scalarKernel, const char *vectorKernel, size_t lanes) {
    std::vector<Input<T>> inputs = makeInputs<T>();
    std::vector<T> scalar, vector;
    std::vector<int> iscalar, ivector;
    run(scalarKernel, inputs, 1, scalar, iscalar);
    run(vectorKernel, inputs, lanes, vector, ivector);
    bool isFloat = std::is_same_v<T, float>;
    auto describe = [&](const Input<T> &in) {
      return show(in.x) + ", " + show(in.y) + ", " + show(in.z) + ", " + std::to_string(in.n);
    };
    for (size_t r = 0; r < kResults; ++r) {
      const Result &result = kResultNames[r];
      double limit = isFloat ? result.ulps.floatUlps : result.ulps.doubleUlps;
      int wrong = 0, differing = 0;
      double worst = 0;
      for (size_t i = 0; i < inputs.size(); ++i) {
        bool eitherZero = false;
        long double exact = reference(r, inputs[i], &eitherZero);
        T got = scalar[i * kResults + r];
        double error = 0;
        bool ok = withinUlps(exact, got, limit, &error) ||
                  (eitherZero && got == 0 && static_cast<T>(exact) == 0);
        if (r == 17 && !ok) {  // mad: a correctly rounded fma, or a rounded product plus z
          volatile T product = inputs[i].x * inputs[i].y;
          volatile T sum = T(product) + inputs[i].z;
          ok = sameBits(got, T(sum));
        }
        if (!ok && ++wrong <= 3)
          ADD_FAILURE() << result.name << "(" << describe(inputs[i]) << ") on " << GetParam().name
                        << ": " << show(got) << ", exact " << show(static_cast<T>(exact)) << " ("
                        << error << " off; limit " << limit << " ulp)";
        if (std::isfinite(error)) worst = std::max(worst, error);
        T lane = vector[i * kResults + r];
        if (!sameBits(lane, got) && ++differing <= 2)
          ADD_FAILURE() << result.name << " on a vector of " << lanes << ", lane " << i % lanes
                        << " (" << describe(inputs[i]) << "): " << show(lane) << ", the scalar "
                        << show(got);
      }
      EXPECT_EQ(wrong + differing, 0)
          << result.name << " on " << GetParam().name << ": " << wrong << " of " << inputs.size()
          << " results out of bounds (worst " << worst << " ulp), " << differing
          << " vector lanes unlike the scalar";
    }
    const char *intNames[kIntResults] = {"frexp (exponent)", "remquo (quotient)", "lgamma_r (sign)",
                                         "ilogb"};
    for (size_t r = 0; r < kIntResults; ++r) {
      int wrong = 0, differing = 0;
      for (size_t i = 0; i < inputs.size(); ++i) {
        if (!intDefined(r, inputs[i])) continue;
        int got = iscalar[i * kIntResults + r], want = 0;
        if (!intCorrect(r, inputs[i], got, &want) && ++wrong <= 3)
          ADD_FAILURE() << intNames[r] << "(" << describe(inputs[i]) << ") on " << GetParam().name
                        << ": " << got << ", expected " << want;
        int lane = ivector[i * kIntResults + r];
        if (lane != got && ++differing <= 2)
          ADD_FAILURE() << intNames[r] << " on a vector of " << lanes << " (" << describe(inputs[i])
                        << "): " << lane << ", the scalar " << got;
      }
      EXPECT_EQ(wrong + differing, 0) << intNames[r] << " on " << GetParam().name;
    }
  }
};

TEST_P(MathValuesMoreTest, FloatWithinOpenClUlpLimits) {
  check<float>("more_float", "more_float4", 4);
}

TEST_P(MathValuesMoreTest, DoubleWithinOpenClUlpLimits) {
  check<double>("more_double", "more_double2", 2);
}

// half_ functions within 8192 ulp (7.4) and native_ ones loosely (their accuracy is the
// implementation's: within 2^-10 relative or 2^-12 absolute here), each where its input is in
// its domain and the exact result is a finite normal float.
TEST_P(MathValuesMoreTest, HalfAndNativeFunctionsInTheirDomains) {
  struct Fast {
    const char *name;
    long double (*ref)(long double, long double);
    bool (*domain)(float, float);
  };
  auto any = [](float, float) { return true; };
  auto trig = [](float x, float) { return std::fabs(x) <= 65536; };
  auto positive = [](float x, float) { return x > 0; };
  auto nonNegative = [](float x, float) { return x >= 0; };
  auto tangent = [](float x, float) { return std::fabs(x) <= 1.5f; };  // away from the poles
  const Fast one[12] = {
      {"cos", [](long double x, long double) { return std::cos(x); }, trig},
      {"exp", [](long double x, long double) { return std::exp(x); }, any},
      {"exp2", [](long double x, long double) { return std::exp2(x); }, any},
      {"exp10", [](long double x, long double) { return std::pow(10.0L, x); }, any},
      {"log", [](long double x, long double) { return std::log(x); }, positive},
      {"log2", [](long double x, long double) { return std::log2(x); }, positive},
      {"log10", [](long double x, long double) { return std::log10(x); }, positive},
      {"recip", [](long double x, long double) { return 1 / x; }, any},
      {"rsqrt", [](long double x, long double) { return 1 / std::sqrt(x); }, positive},
      {"sin", [](long double x, long double) { return std::sin(x); }, trig},
      {"sqrt", [](long double x, long double) { return std::sqrt(x); }, nonNegative},
      {"tan", [](long double x, long double) { return std::tan(x); }, tangent}};
  const Fast two[2] = {
      {"divide", [](long double x, long double y) { return x / y; }, any},
      {"powr", [](long double x, long double y) { return std::pow(x, y); }, positive}};

  std::vector<float> x, y;
  std::mt19937_64 random(2028);
  std::uniform_real_distribution<double> unit(-1, 1);
  std::uniform_real_distribution<double> exponent(-40, 40);
  while (x.size() < 4096) {
    switch (x.size() % 4) {
      case 0:
        x.push_back(float(4 * unit(random)));
        break;
      case 1:
        x.push_back(float(100 * unit(random)));
        break;
      case 2:
        x.push_back(float(std::ldexp(1 + std::fabs(unit(random)), int(exponent(random)))));
        break;
      default:
        x.push_back(float(-std::ldexp(1 + std::fabs(unit(random)), int(exponent(random)))));
    }
    y.push_back(float(std::ldexp(unit(random), int(exponent(random)) / 4)));
  }
  std::vector<float> out(x.size() * kFastResults, -7);
  Array<float> xa(device, x), ya(device, y), oa(device, out);
  queue.copyToDevice(xa);
  queue.copyToDevice(ya);
  queue.launch(Kernel(kernels, "fast_float"), Range(uint32_t(x.size())),
               {xa, ya, oa, uint32_t(x.size())});
  queue.copyToHost(oa);
  queue.sync();
  auto verify = [&](const Fast &f, size_t halfSlot, size_t nativeSlot) {
    int wrongHalf = 0, wrongNative = 0, checked = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!f.domain(x[i], y[i])) continue;
      long double exact = f.ref(x[i], y[i]);
      if (!std::isfinite(exact) || std::fabs(exact) < FLT_MIN || std::fabs(exact) > FLT_MAX)
        continue;
      ++checked;
      double error;
      float half = out[i * kFastResults + halfSlot], native = out[i * kFastResults + nativeSlot];
      if (!withinUlps(exact, half, 8192, &error) && ++wrongHalf <= 3)
        ADD_FAILURE() << "half_" << f.name << "(" << show(x[i]) << ", " << show(y[i]) << ") on "
                      << GetParam().name << ": " << show(half) << ", exact " << show(float(exact))
                      << " (" << error << " ulp off; limit 8192)";
      if (!withinUlps(exact, native, -1, &error) && ++wrongNative <= 3)
        ADD_FAILURE() << "native_" << f.name << "(" << show(x[i]) << ", " << show(y[i]) << ") on "
                      << GetParam().name << ": " << show(native) << ", exact "
                      << show(float(exact));
    }
    EXPECT_GT(checked, 500) << f.name << ": too few inputs in its domain";
    EXPECT_EQ(wrongHalf + wrongNative, 0) << "half_/native_" << f.name << " on " << GetParam().name;
  };
  for (size_t f = 0; f < 12; ++f) verify(one[f], f, 12 + f);
  verify(two[0], 24, 25);
  verify(two[1], 26, 27);
}

XPURT_INSTANTIATE_CONFORMANCE(MathValuesMoreTest);

}  // namespace
}  // namespace xpurt::test
