// Math builtins of float, double and half against host references within OpenCL's ulp limits
// (OpenCL C 3.0, 7.4, full profile), special values exact: one kernel per type computes every
// function of tests/kernels/math_values.cl on special values, pairs of them, and random values
// of several ranges. The references are glibc's long double functions, computed on the host
// from the same inputs: independent of every device's library (libclc, libdevice, libmvec).
// Vector forms give, lane by lane, the scalar form's result on the same device.
#include "device_param.hpp"
#include "float_checks.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace xpurt::test {
namespace {

using Ref = long double (*)(long double, long double);

// sinpi and cospi from the nearest multiple of 1/2, n / 2, and the rest t (|t| <= 1/4, exact):
// sin and cos of pi t keep their precision where the result is near 0. Exact at integers and
// half-integers, as OpenCL requires: sinpi(n) is +0 for a positive integer n and -0 for a
// negative one, cospi(n + 0.5) is +0.
long double sinpiRef(long double x, long double) {
  if (std::isinf(x) || std::isnan(x)) return NAN;
  long double r = std::fmod(std::fabs(x), 2.0L);  // exact
  int n = int(std::nearbyint(r * 2));
  long double t = r - n / 2.0L, s = std::sin(kPi * t), c = std::cos(kPi * t);
  long double v = n % 4 == 0 ? s : n % 4 == 1 ? c : n % 4 == 2 ? -s : -c;
  if (r == 0 || r == 1) v = 0;
  return std::signbit(x) ? -v : v;
}
long double cospiRef(long double x, long double) {
  if (std::isinf(x) || std::isnan(x)) return NAN;
  long double r = std::fmod(std::fabs(x), 2.0L);
  int n = int(std::nearbyint(r * 2));
  long double t = r - n / 2.0L, s = std::sin(kPi * t), c = std::cos(kPi * t);
  if (r == 0.5L || r == 1.5L) return 0.0L;
  return n % 4 == 0 ? c : n % 4 == 1 ? -s : n % 4 == 2 ? -c : s;
}

struct Function {
  const char *name;
  Ref ref;
  double floatUlps, doubleUlps;  // < 0: OpenCL sets no limit (checked loosely, see below)
  bool twoArgs = false;
};

#define XP_REF1(fn) [](long double x, long double) -> long double { return std::fn(x); }
#define XP_REF2(fn) [](long double x, long double y) -> long double { return std::fn(x, y); }

// The order of math_values.cl's XP_FUNCTIONS; sincos's two results last.
const Function kFunctions[] = {
    {"sin", XP_REF1(sin), 4, 4},
    {"cos", XP_REF1(cos), 4, 4},
    {"tan", XP_REF1(tan), 5, 5},
    {"asin", XP_REF1(asin), 4, 4},
    {"acos", XP_REF1(acos), 4, 4},
    {"atan", XP_REF1(atan), 5, 5},
    {"sinh", XP_REF1(sinh), 4, 4},
    {"cosh", XP_REF1(cosh), 4, 4},
    {"tanh", XP_REF1(tanh), 5, 5},
    {"asinh", XP_REF1(asinh), 4, 4},
    {"acosh", XP_REF1(acosh), 4, 4},
    {"atanh", XP_REF1(atanh), 5, 5},
    {"exp", XP_REF1(exp), 3, 3},
    {"exp2", XP_REF1(exp2), 3, 3},
    {"exp10", [](long double x, long double) { return ::exp10l(x); }, 3, 3},
    {"expm1", XP_REF1(expm1), 3, 3},
    {"log", XP_REF1(log), 3, 3},
    {"log2", XP_REF1(log2), 3, 3},
    {"log10", XP_REF1(log10), 3, 3},
    {"log1p", XP_REF1(log1p), 2, 2},
    {"cbrt", XP_REF1(cbrt), 2, 2},
    {"erf", XP_REF1(erf), 16, 16},
    {"erfc", XP_REF1(erfc), 16, 16},
    {"lgamma", XP_REF1(lgamma), -1, -1},
    {"tgamma", XP_REF1(tgamma), 16, 16},
    {"sinpi", sinpiRef, 4, 4},
    {"cospi", cospiRef, 4, 4},
    {"round", XP_REF1(round), 0, 0},
    {"rint", XP_REF1(nearbyint), 0, 0},  // the host rounds to nearest even, as rint must
    {"trunc", XP_REF1(trunc), 0, 0},
    {"floor", XP_REF1(floor), 0, 0},
    {"ceil", XP_REF1(ceil), 0, 0},
    {"atan2", XP_REF2(atan2), 6, 6, true},
    {"pow", XP_REF2(pow), 16, 16, true},
    {"hypot", XP_REF2(hypot), 4, 4, true},
    {"fmod", XP_REF2(fmod), 0, 0, true},
    {"remainder", XP_REF2(remainder), 0, 0, true},
    {"fdim", XP_REF2(fdim), 0.5, 0.5, true},  // correctly rounded
    {"copysign", XP_REF2(copysign), 0, 0, true},
    {"sincos (sin)", XP_REF1(sin), 4, 4},
    {"sincos (cos)", XP_REF1(cos), 4, 4},
};
constexpr size_t kCount = std::size(kFunctions);

// cl_khr_fp16's limits for half, in kFunctions' order (OpenCL C 3.0, 7.4): 2 ulp for most,
// 4 for erf, erfc, tgamma and pow, none for lgamma, exact or correctly rounded as for float.
const double kHalfUlps[kCount] = {2, 2, 2,  2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,   2, 2, 2, 2,
                                  4, 4, -1, 4, 2, 2, 0, 0, 0, 0, 0, 2, 4, 2, 0, 0, 0.5, 0, 2, 2};
static_assert(std::size(kHalfUlps) == kCount);

// Special values, every pair of them (for the two-argument functions), then random values:
// uniform in [-1, 1], [-10, 10] and [-1000, 1000], and of any magnitude with either sign.
template <class T>
void makeInputs(std::vector<T> &x, std::vector<T> &y) {
  using L = std::numeric_limits<T>;
  const T specials[] = {0, -T(0), L::infinity(), -L::infinity(), L::quiet_NaN(), 1, -1, T(0.5),
                        T(-0.5), 2, -2, 3, T(-3.5), L::denorm_min(), -L::denorm_min(), L::min(),
                        -L::min(), L::max(), -L::max(), T(1.5707963267948966),
                        T(-3.141592653589793), T(100), T(-1e10), T(0.999),
                        // exp's edges in float: near FLT_MAX, near FLT_MIN, a subnormal
                        T(88.72), T(-87.5), T(-100)};
  for (T a : specials)
    for (T b : specials) {
      x.push_back(a);
      y.push_back(b);
    }
  RandomOperands<T> random(2026);
  while (x.size() % 64 != 0 || x.size() < 4096) {
    int kind = int(x.size() % 4);
    x.push_back(random.draw(kind));
    y.push_back(random.draw(kind == 3 ? random.finiteKind() : kind));
  }
}

class MathValuesTest : public DeviceTest {
 protected:
  Module kernels{device, "xpurt_test_math_values"};

  // Runs kernel `name` over x and y (`lanes` inputs a work-item) and returns its outputs, in
  // the scalar kernel's order: out[input * kCount + function].
  template <class T>
  std::vector<T> run(const char *name, const std::vector<T> &x, const std::vector<T> &y,
                     size_t lanes) {
    std::vector<T> xs = x, ys = y, out(x.size() * kCount, T(-7));
    Array<T> xa(device, xs), ya(device, ys), oa(device, out);
    queue.copyToDevice(xa);
    queue.copyToDevice(ya);
    uint32_t items = uint32_t(x.size() / lanes);
    queue.launch(Kernel(kernels, name), Range(items), {xa, ya, oa, items});
    queue.copyToHost(oa);
    queue.sync();
    return scalarOrder(out, kCount, lanes);
  }

  template <class T>
  void check(const char *scalarKernel, const char *vectorKernel, size_t lanes) {
    std::vector<T> x, y;
    makeInputs(x, y);
    std::vector<T> scalar = run(scalarKernel, x, y, 1);
    std::vector<T> vector = run(vectorKernel, x, y, lanes);
    bool isFloat = std::is_same_v<T, float>;
    for (size_t f = 0; f < kCount; ++f) {
      const Function &fn = kFunctions[f];
      bool twoArgs = fn.twoArgs;
      double limit = isFloat ? fn.floatUlps : fn.doubleUlps;
      int wrong = 0, differing = 0;
      double worst = 0;
      // By bits (NaN included): the special values repeat for the one-argument functions.
      std::set<std::pair<uint64_t, uint64_t>> reported;
      for (size_t i = 0; i < x.size(); ++i) {
        long double exact = fn.ref(x[i], y[i]);
        T got = scalar[i * kCount + f];
        double error = 0;
        std::pair<uint64_t, uint64_t> input{0, 0};
        std::memcpy(&input.first, &x[i], sizeof(T));
        if (twoArgs) std::memcpy(&input.second, &y[i], sizeof(T));
        if (!withinUlps(exact, got, limit, &error) && ++wrong && reported.size() < 4 &&
            reported.insert(input).second) {
          ADD_FAILURE() << fn.name << "(" << show(x[i])
                        << (twoArgs ? ", " + show(y[i]) : std::string()) << ") on "
                        << GetParam().name << ": " << show(got) << ", exact "
                        << show(static_cast<T>(exact)) << " (" << error << " off; limit " << limit
                        << " ulp)";
        }
        if (std::isfinite(error)) worst = std::max(worst, error);
        T lane = vector[i * kCount + f];
        if (!sameBits(lane, got) && ++differing <= 2)
          ADD_FAILURE() << fn.name << " on a vector of " << lanes << ", lane " << i % lanes
                        << " (input " << show(x[i]) << "): " << show(lane) << ", the scalar "
                        << show(got);
      }
      EXPECT_EQ(wrong + differing, 0)
          << fn.name << " on " << GetParam().name << ": " << wrong << " of " << x.size()
          << " results out of bounds (worst " << worst << " ulp), " << differing
          << " vector lanes unlike the scalar";
    }
  }
};

// ldexp is exact, or rounded once where the result is subnormal: the host's is the reference.
template <class T>
void checkLdexp(Device &device, TaskQueue &queue, Module &kernels, const char *name) {
  std::vector<T> x, y;
  makeInputs(x, y);
  const int scales[] = {-1100, -1075, -1074, -1060, -1022, -160, -150, -149, -140, -127,
                        -126,  -1,    0,     1,     24,    127,  128,  1023, 1024, 2000};
  std::vector<T> xs;
  std::vector<int> ns;
  for (size_t i = 0; i < x.size(); i += 7)
    for (int n : scales) {
      xs.push_back(x[i]);
      ns.push_back(n);
    }
  std::vector<T> out(xs.size());
  Array<T> xv(device, xs), ov(device, out);
  Array<int> nv(device, ns);
  queue.copyToDevice(xv);
  queue.copyToDevice(nv);
  queue.launch(Kernel(kernels, name), Range(uint32_t(xs.size())), {xv, nv, ov});
  queue.copyToHost(ov);
  queue.sync();
  int wrong = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    T want = std::ldexp(xs[i], ns[i]);
    if (!sameBits(want, out[i]) && ++wrong <= 4)
      ADD_FAILURE() << "ldexp(" << show(xs[i]) << ", " << ns[i] << "): " << show(out[i])
                    << ", exact " << show(want);
  }
  EXPECT_EQ(wrong, 0) << "ldexp: " << wrong << " of " << xs.size() << " results wrong";
}

TEST_P(MathValuesTest, LdexpIsExactIntoTheSubnormals) {
  checkLdexp<float>(device, queue, kernels, "ldexp_float");
  checkLdexp<double>(device, queue, kernels, "ldexp_double");
}

TEST_P(MathValuesTest, FloatWithinOpenClUlpLimits) {
  check<float>("math_float", "math_float16", 16);
}

TEST_P(MathValuesTest, DoubleWithinOpenClUlpLimits) {
  check<double>("math_double", "math_double4", 4);
}

// Every exponent and a quarter of the significands of half as x, and another half as y.
TEST_P(MathValuesTest, HalfWithinOpenClUlpLimits) {
  std::vector<_Float16> x, y;
  for (uint32_t i = 0; i < 16384; ++i) {
    uint16_t a = uint16_t(i << 2 | (i & 3)), b = uint16_t(i * 40503u + 12345u);
    _Float16 u, v;
    std::memcpy(&u, &a, 2);
    std::memcpy(&v, &b, 2);
    x.push_back(u);
    y.push_back(v);
  }
  std::vector<_Float16> scalar = run("math_half", x, y, 1);
  std::vector<_Float16> vector = run("math_half8", x, y, 8);
  for (size_t f = 0; f < kCount; ++f) {
    const Function &fn = kFunctions[f];
    int wrong = 0, differing = 0;
    double worst = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      double a = double(x[i]), b = double(y[i]);
      long double exact = fn.ref(a, b);
      _Float16 got = scalar[i * kCount + f], lane = vector[i * kCount + f];
      double error = 0;
      if (!withinUlps(exact, got, kHalfUlps[f], &error) && ++wrong <= 3)
        ADD_FAILURE() << fn.name << "(" << show(a) << (fn.twoArgs ? ", " + show(b) : "")
                      << ") of half on " << GetParam().name << ": " << show(double(got))
                      << ", exact " << show(double(exact)) << " (" << error << " off; limit "
                      << kHalfUlps[f] << " ulp)";
      if (std::isfinite(error)) worst = std::max(worst, error);
      if (!sameBits(lane, got) && ++differing <= 2)
        ADD_FAILURE() << fn.name << " of half8, lane " << i % 8 << " (input " << show(a)
                      << "): " << show(double(lane)) << ", the scalar " << show(double(got));
    }
    EXPECT_EQ(wrong + differing, 0)
        << fn.name << " of half on " << GetParam().name << ": " << wrong << " of " << x.size()
        << " results out of bounds (worst " << worst << " ulp), " << differing
        << " vector lanes unlike the scalar";
  }
}

// Arrays of ordinary values, in the ranges where a vector math library computes without
// falling back to slower code (xpurt's CPU: sin and cos up to 2^16, exp up to 87.3 either way;
// every positive float for log), so that whole vectors of them take that code, and the edges
// of those ranges: uniform in [-2^16, 2^16] and [-100, 100], of any magnitude from 2^-30 to
// 2^16 with either sign, uniform in [-88, 88], and positive of any magnitude.
template <class T>
void makeOrdinaryInputs(std::vector<T> &x, std::vector<T> &y) {
  std::mt19937_64 random(2027);
  std::uniform_real_distribution<double> unit(-1, 1), scale(-30, 16), any(-149, 128);
  for (T edge : {T(65536), T(87.3), T(87.34), T(88.72)})
    for (T v : {edge, std::nextafter(edge, T(0)), std::nextafter(edge, T(INFINITY))}) {
      x.push_back(v);
      x.push_back(-v);
    }
  while (x.size() % 64 != 0 || x.size() < (1 << 15)) {
    double u = unit(random);
    switch (x.size() / 64 % 5) {  // 64 of a kind: whole vectors
      case 0:
        x.push_back(T(65536 * u));
        break;
      case 1:
        x.push_back(T(100 * u));
        break;
      case 2:
        x.push_back(T(std::copysign(std::exp2(scale(random)), u)));
        break;
      case 3:
        x.push_back(T(88 * u));
        break;
      default:
        x.push_back(T(std::exp2(any(random))));
        break;
    }
  }
  for (size_t i = 0; i < x.size(); ++i) y.push_back(T(4 * unit(random)));
}

// sin, cos, exp, log and pow over arrays, one function a kernel (math_values.cl's each_*):
// where a device compiles such loops to a vector math library's functions (the CPU: xpurt's
// own and libmvec's), its results too are within OpenCL's limits. Values only: a vector
// library may round differently from the scalar function, within the limit.
template <class T>
void checkEach(Device &device, TaskQueue &queue, Module &kernels, const char *type,
               const std::string &on, std::vector<T> x, std::vector<T> y) {
  x.push_back(T(0.25));  // an odd count: some work-items of the last vector are out of range
  y.push_back(T(3));
  for (const char *name : {"sin", "cos", "exp", "log", "pow"}) {
    const Function &fn =
        *std::find_if(std::begin(kFunctions), std::end(kFunctions),
                      [&](const Function &f) { return std::string(f.name) == name; });
    double limit = std::is_same_v<T, float> ? fn.floatUlps : fn.doubleUlps;
    std::vector<T> xs = x, ys = y, out(x.size(), T(-7));
    Array<T> xa(device, xs), ya(device, ys), oa(device, out);
    queue.copyToDevice(xa);
    queue.copyToDevice(ya);
    uint32_t n = uint32_t(x.size());
    queue.launch(Kernel(kernels, ("each_" + std::string(name) + "_" + type).c_str()), Range(n + 5),
                 {xa, ya, oa, n});
    queue.copyToHost(oa);
    queue.sync();
    int wrong = 0;
    double worst = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      long double exact = fn.ref(x[i], y[i]);
      double error = 0;
      if (!withinUlps(exact, out[i], limit, &error) && ++wrong <= 3)
        ADD_FAILURE() << name << "(" << show(x[i]) << (fn.twoArgs ? ", " + show(y[i]) : "")
                      << ") of " << type << " over an array on " << on << ": " << show(out[i])
                      << ", exact " << show(static_cast<T>(exact)) << " (" << error
                      << " off; limit " << limit << " ulp)";
      if (std::isfinite(error)) worst = std::max(worst, error);
    }
    EXPECT_EQ(wrong, 0) << name << " of " << type << " over an array on " << on << ": " << wrong
                        << " of " << x.size() << " results out of bounds (worst " << worst
                        << " ulp)";
  }
}

template <class T>
void checkEachOn(Device &device, TaskQueue &queue, Module &kernels, const char *type,
                 const std::string &on, void (*inputs)(std::vector<T> &, std::vector<T> &)) {
  std::vector<T> x, y;
  inputs(x, y);
  checkEach<T>(device, queue, kernels, type, on, x, y);
}

TEST_P(MathValuesTest, ElementWiseLoopsWithinOpenClUlpLimits) {
  checkEachOn<float>(device, queue, kernels, "float", GetParam().name, makeInputs<float>);
  checkEachOn<double>(device, queue, kernels, "double", GetParam().name, makeInputs<double>);
}

TEST_P(MathValuesTest, ElementWiseLoopsOfOrdinaryValuesWithinOpenClUlpLimits) {
  checkEachOn<float>(device, queue, kernels, "float", GetParam().name, makeOrdinaryInputs<float>);
  checkEachOn<double>(device, queue, kernels, "double", GetParam().name,
                      makeOrdinaryInputs<double>);
}

XPURT_INSTANTIATE_CONFORMANCE(MathValuesTest);

}  // namespace
}  // namespace xpurt::test
