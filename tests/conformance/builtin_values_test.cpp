// Builtin results against host references on edge values: integer functions (exact), vector
// forms element by element, shuffles, relational functions.
#include "device_param.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

namespace xpurt::test {
namespace {

class BuiltinValuesTest : public DeviceTest {
 protected:
  Module kernels{device, "xpurt_test_collectives"};
};

template <class T>
struct Ref {
  using U = std::make_unsigned_t<T>;
  static constexpr int bits = sizeof(T) * 8;
  using Wide = std::conditional_t<(sizeof(T) < 4), int64_t, __int128>;

  static T clampToT(Wide v) {
    Wide lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
    return static_cast<T>(v < lo ? lo : v > hi ? hi : v);
  }
  static U absDiff(T a, T b) { return a > b ? U(U(a) - U(b)) : U(U(b) - U(a)); }
  static T hadd(T a, T b) { return static_cast<T>((Wide(a) + Wide(b)) >> 1); }
  static T rhadd(T a, T b) { return static_cast<T>((Wide(a) + Wide(b) + 1) >> 1); }
  static T mulHi(T a, T b) { return static_cast<T>((Wide(a) * Wide(b)) >> bits); }
  static T madHi(T a, T b, T c) { return static_cast<T>(U(U(mulHi(a, b)) + U(c))); }
  static T ctz(T a) { return static_cast<T>(a == 0 ? bits : std::countr_zero(U(a))); }
  static T clz(T a) { return static_cast<T>(std::countl_zero(U(a))); }
  static T popcount(T a) { return static_cast<T>(std::popcount(U(a))); }
  static T rotate(T a, T b) { return static_cast<T>(std::rotl(U(a), int(U(b) % bits))); }
  static T addSat(T a, T b) { return clampToT(Wide(a) + Wide(b)); }
  static T subSat(T a, T b) { return clampToT(Wide(a) - Wide(b)); }
  static T madSat(T a, T b, T c) { return clampToT(Wide(a) * Wide(b) + Wide(c)); }
  static U abs(T a) { return a < 0 ? U(U(0) - U(a)) : U(a); }
  static U extractUnsigned(T a, unsigned off, unsigned cnt) {
    if (cnt == 0) return 0;
    U mask = cnt >= unsigned(bits) ? U(~U(0)) : U((U(1) << cnt) - 1);
    return U((U(a) >> off) & mask);
  }
  static T extractSigned(T a, unsigned off, unsigned cnt) {
    if (cnt == 0) return 0;
    U field = extractUnsigned(a, off, cnt);
    if (cnt < unsigned(bits) && (field >> (cnt - 1)) & 1) field = U(field | U(~U(0) << cnt));
    return static_cast<T>(field);
  }
  static T insert(T base, T ins, unsigned off, unsigned cnt) {
    if (cnt == 0) return base;
    U low = cnt >= unsigned(bits) ? U(~U(0)) : U((U(1) << cnt) - 1);
    U mask = U(low << off);
    return static_cast<T>(U((U(base) & U(~mask)) | (U(U(ins) << off) & mask)));
  }
};

template <class T>
std::vector<T> edgeValues() {
  using L = std::numeric_limits<T>;
  std::vector<T> v = {L::min(), L::max(), 0, 1, 2, 7, 31, 33, T(L::max() / 3), T(L::max() - 1)};
  if (std::is_signed_v<T>) {
    for (T x : {T(-1), T(-2), T(-33), T(L::min() + 1), T(L::min() / 3), T(-7)}) v.push_back(x);
  } else {
    for (T x : {T(L::max() / 2), T(L::max() / 2 + 1), T(100), T(L::max() - 33), T(64), T(5)})
      v.push_back(x);
  }
  return v;
}

template <class T>
void checkIntegerFunctions(Device &device, TaskQueue &queue, Module &kernels, const char *name) {
  using R = Ref<T>;
  std::vector<T> edges = edgeValues<T>();
  std::vector<T> a, b, c;
  for (size_t i = 0; i < edges.size(); ++i)
    for (size_t j = 0; j < edges.size(); ++j) {
      a.push_back(edges[i]);
      b.push_back(edges[j]);
      c.push_back(edges[(i * 7 + j * 3) % edges.size()]);
    }
  size_t n = a.size();
  Array<T> av(device, a), bv(device, b), cv(device, c);
  Array<int64_t, AllocType::Shared> out(device, n * 18);
  queue.copyToDevice(av);
  queue.copyToDevice(bv);
  queue.copyToDevice(cv);
  queue.launch(Kernel(kernels, name), Range(n), {av, bv, cv, out});
  queue.sync();
  const int bits = sizeof(T) * 8;
  for (size_t i = 0; i < n; ++i) {
    const int64_t *o = out.hostPtr() + i * 18;
    T x = a[i], y = b[i], z = c[i];
    unsigned off = unsigned(z) & 7u, cnt = unsigned(y) & (bits == 8 ? 7u : 15u);
    SCOPED_TRACE(testing::Message()
                 << name << "(" << int64_t(x) << ", " << int64_t(y) << ", " << int64_t(z) << ")");
    EXPECT_EQ(o[0], int64_t(R::absDiff(x, y))) << "abs_diff";
    EXPECT_EQ(o[1], int64_t(R::hadd(x, y))) << "hadd";
    EXPECT_EQ(o[2], int64_t(R::rhadd(x, y))) << "rhadd";
    EXPECT_EQ(o[3], int64_t(R::madHi(x, y, z))) << "mad_hi";
    EXPECT_EQ(o[4], int64_t(R::ctz(x))) << "ctz";
    EXPECT_EQ(o[5], int64_t(R::clz(x))) << "clz";
    EXPECT_EQ(o[6], int64_t(R::popcount(x))) << "popcount";
    EXPECT_EQ(o[7], int64_t(R::rotate(x, y))) << "rotate";
    EXPECT_EQ(o[8], int64_t(R::addSat(x, y))) << "add_sat";
    EXPECT_EQ(o[9], int64_t(R::subSat(x, y))) << "sub_sat";
    EXPECT_EQ(o[10], int64_t(R::madSat(x, y, z))) << "mad_sat";
    EXPECT_EQ(o[11], int64_t(R::mulHi(x, y))) << "mul_hi";
    EXPECT_EQ(o[12], int64_t(R::abs(x))) << "abs";
    // Shifts count modulo the width of the (promoted) left operand.
    using P = std::conditional_t<(sizeof(T) < 4), int, T>;
    using PU = std::make_unsigned_t<P>;
    int pbits = sizeof(P) * 8;
    EXPECT_EQ(o[13], int64_t(P(PU(P(x)) << (PU(P(y)) % pbits)))) << "<<";
    if (off + (bits == 8 ? (unsigned(y) & 15u) : cnt) <= unsigned(bits) || bits != 8) {
      unsigned c16 = unsigned(y) & 15u;
      if (off + c16 <= unsigned(bits)) {
        EXPECT_EQ(o[14], int64_t(R::extractUnsigned(x, off, c16))) << "bitfield_extract_unsigned";
        EXPECT_EQ(o[15], int64_t(R::insert(x, y, off, c16))) << "bitfield_insert";
      }
    }
    if (off + cnt <= unsigned(bits)) {
      using S = std::make_signed_t<T>;
      EXPECT_EQ(o[17], int64_t(Ref<S>::extractSigned(S(x), off, cnt))) << "bitfield_extract_signed";
    }
    if constexpr (std::is_same_v<T, int32_t>) {
      int64_t p = int64_t(x & 0x7fffff) * int64_t(y & 0x7fffff);
      EXPECT_EQ(o[16], int64_t(int32_t(uint32_t(p)))) << "mul24";
    }
    if constexpr (std::is_same_v<T, uint32_t>) {
      uint64_t p = uint64_t(x & 0xffffffu) * uint64_t(y & 0xffffffu) + z;
      EXPECT_EQ(o[16], int64_t(uint32_t(p))) << "mad24";
    }
  }
}

TEST_P(BuiltinValuesTest, IntegerFunctionsOnEdgeValues) {
  checkIntegerFunctions<int32_t>(device, queue, kernels, "int_functions");
  checkIntegerFunctions<uint32_t>(device, queue, kernels, "uint_functions");
  checkIntegerFunctions<int8_t>(device, queue, kernels, "char_functions");
}

TEST_P(BuiltinValuesTest, VectorIntegerFunctionsMatchTheScalarOnes) {
  std::vector<int32_t> edges = edgeValues<int32_t>();
  size_t n = edges.size();  // vectors of 4 consecutive edge values, rotated
  std::vector<int32_t> a(n * 4), b(n * 4), c(n * 4);
  for (size_t i = 0; i < n * 4; ++i) {
    a[i] = edges[i % n];
    b[i] = edges[(i * 5 + 1) % n];
    c[i] = edges[(i * 3 + 2) % n];
  }
  Array<int32_t> av(device, a), bv(device, b), cv(device, c);
  Array<int32_t, AllocType::Shared> out(device, n * 20);
  queue.copyToDevice(av);
  queue.copyToDevice(bv);
  queue.copyToDevice(cv);
  queue.launch(Kernel(kernels, "int4_functions"), Range(n), {av, bv, cv, out});
  queue.sync();
  using R = Ref<int32_t>;
  for (size_t v = 0; v < n; ++v)
    for (int e = 0; e < 4; ++e) {
      size_t i = v * 4 + e;
      const int32_t *o = out.hostPtr() + v * 20;
      SCOPED_TRACE(testing::Message() << "element " << i);
      EXPECT_EQ(uint32_t(o[0 + e]), R::absDiff(a[i], b[i]));
      EXPECT_EQ(o[4 + e], R::hadd(a[i], b[i]));
      EXPECT_EQ(o[8 + e], R::ctz(a[i]));
      EXPECT_EQ(o[12 + e], R::madHi(a[i], b[i], c[i]));
      EXPECT_EQ(o[16 + e], R::rhadd(a[i], b[i]));
    }
}

TEST_P(BuiltinValuesTest, ShuffleAndShuffle2TakeMaskElementsModuloTheirInputs) {
  constexpr size_t n = 16;
  std::vector<float> x(n * 8), y(n * 8);
  std::vector<uint32_t> mask(n * 4);
  for (size_t i = 0; i < n * 8; ++i) x[i] = float(i), y[i] = -float(i) - 1;
  for (size_t i = 0; i < n * 4; ++i) mask[i] = uint32_t(i * 2654435761u);  // high bits set too
  // float8 operands need 32-byte alignment: memory xpurt allocates has it, a std::vector's
  // need not.
  Array<float, AllocType::Shared> xv(device, n * 8), yv(device, n * 8), out(device, n * 8);
  Array<uint32_t, AllocType::Shared> mv(device, n * 4);
  std::copy(x.begin(), x.end(), xv.hostPtr());
  std::copy(y.begin(), y.end(), yv.hostPtr());
  std::copy(mask.begin(), mask.end(), mv.hostPtr());
  queue.launch(Kernel(kernels, "shuffles"), Range(n), {xv, yv, mv, out});
  queue.sync();
  for (size_t v = 0; v < n; ++v)
    for (size_t e = 0; e < 4; ++e) {
      uint32_t m = mask[v * 4 + e];
      EXPECT_EQ(out.hostPtr()[v * 8 + e], x[v * 8 + (m % 8)]) << v << "," << e;
      uint32_t k = m % 16;
      EXPECT_EQ(out.hostPtr()[v * 8 + 4 + e], k < 8 ? x[v * 8 + k] : y[v * 8 + k - 8])
          << v << "," << e;
    }
}

TEST_P(BuiltinValuesTest, RelationalFunctionsOnSpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float denorm = std::numeric_limits<float>::denorm_min();
  const float tiny = std::numeric_limits<float>::min();
  std::vector<float> x = {0.0f, -0.0f,  1.5f,    -2.0f, inf,   -inf,
                          nan,  denorm, -denorm, tiny,  -tiny, 3.4e38f};
  std::vector<float> y = {1.0f, -1.0f, nan, 3.0f, -inf, inf, 0.0f, 1.0f, -1.0f, 2.0f, 0.0f, inf};
  size_t n = x.size();
  Array<float> xv(device, x), yv(device, y);
  Array<int32_t, AllocType::Shared> out(device, n * 8);
  Array<float, AllocType::Shared> vout(device, n * 4);
  queue.copyToDevice(xv);
  queue.copyToDevice(yv);
  queue.launch(Kernel(kernels, "relational"), Range(n), {xv, yv, out, vout});
  queue.sync();
  for (size_t i = 0; i < n; ++i) {
    const int32_t *o = out.hostPtr() + i * 8;
    SCOPED_TRACE(testing::Message() << "x = " << x[i] << ", y = " << y[i]);
    EXPECT_EQ(o[0], std::isfinite(x[i]) ? 1 : 0) << "isfinite";
    EXPECT_EQ(o[1], std::isnormal(x[i]) ? 1 : 0) << "isnormal";
    EXPECT_EQ(o[2], std::signbit(x[i]) ? 1 : 0) << "signbit";
    EXPECT_EQ(o[3], std::isnan(x[i]) ? 1 : 0) << "isnan";
    EXPECT_EQ(o[4], std::isinf(x[i]) ? 1 : 0) << "isinf";
    EXPECT_EQ(o[5], std::isless(x[i], y[i]) ? 1 : 0) << "isless";
    EXPECT_EQ(o[6], std::isunordered(x[i], y[i]) ? 1 : 0) << "isunordered";
    uint32_t xb, yb;
    std::memcpy(&xb, &x[i], 4);
    std::memcpy(&yb, &y[i], 4);
    EXPECT_EQ(uint32_t(o[7]), (xb & 0x7fffffffu) | (yb & 0x80000000u)) << "bitselect";
    float v[4] = {x[i], y[i], -x[i], 1.0f};
    for (int e = 0; e < 4; ++e)
      EXPECT_EQ(vout.hostPtr()[i * 4 + e], std::isfinite(v[e]) ? -1.0f : 0.0f) << "isfinite4";
  }
}

TEST_P(BuiltinValuesTest, PrintfMatchesTheHostByteForByte) {
  std::vector<float> f = {3.14159f, -2.5f, 12345.678f, 0.000123f, 1e-5f, 6.02e23f};
  std::vector<int32_t> i = {42, -7, 123456, 48879, 8, 2};
  Array<float> fv(device, f);
  Array<int32_t> iv(device, i);
  queue.copyToDevice(fv);
  queue.copyToDevice(iv);
  // Made before the capture: a failure to make it must not leave stdout captured.
  Kernel printEverything(kernels, "print_everything");
  std::fflush(stdout);
  testing::internal::CaptureStdout();
  queue.launch(printEverything, Range(1), {fv, iv});
  queue.sync();
  std::fflush(stdout);
  std::string got = testing::internal::GetCapturedStdout();
  char line[512];
  std::string want;
  std::snprintf(line, sizeof line, "ints %d %i %u %x %X %o %c %5d|%-5d|%05d %+d\n", i[0], i[1],
                unsigned(i[2]), i[3], i[3], i[4], 'A' + i[5], i[0], i[0], i[0], i[0]);
  want += line;
  std::snprintf(line, sizeof line, "longs %ld %lu %lx\n", long(i[1]) * 100000000L,
                (unsigned long)i[2] * 3000000000UL, long(i[3]));
  want += line;
  std::snprintf(line, sizeof line, "floats %f %.2f %e %.3E %g %G %10.4f|%-10.1f|\n", f[0], f[1],
                f[2], f[3], f[4], f[5], f[0], f[1]);
  want += line;
  want += "strings abc|     right|left  |%|tru\n";
  std::snprintf(line, sizeof line,
                "vectors %hd,%hd,%hd,%hd|%f,%f|%d,%d,%d|%hhx,%hhx,%hhx,%hhx,%hhx,%hhx,%hhx,%hhx|"
                "%ld,%ld|%.3f,%.3f|%#hx,%#hx,%#hx,%#hx\n",
                short(i[0]), short(i[1]), short(-3), short(4), f[0], f[1], i[0], i[3], i[4], 1, 2,
                3, 250, 5, 6, 7, 8, long(i[1]) * 10000000000L, -1L, double(f[2]), 1.0 / 3.0,
                short(i[0]), short(i[1]), short(-3), short(4));
  want += line;
  want += "returns\nprintf returned 0\n";
  EXPECT_EQ(got, want);
}

TEST_P(BuiltinValuesTest, GetFenceTellsLocalFromGlobalPointers) {
  Array<int32_t, AllocType::Shared> out(device, 4);
  queue.launch(Kernel(kernels, "fences"), Range(4).local(4), {out, Arg::local(64)});
  queue.sync();
  const int local = 1, global = 2;  // CLK_LOCAL_MEM_FENCE, CLK_GLOBAL_MEM_FENCE
  EXPECT_EQ(out.hostPtr()[0], global);
  EXPECT_EQ(out.hostPtr()[1], local);  // a __local argument
  EXPECT_EQ(out.hostPtr()[2], local);  // a static __local array
}

TEST_P(BuiltinValuesTest, SyclShapedKernelsTakeStructsWithPointersAndLocalAccessors) {
  constexpr size_t n = 100, group = 32;
  std::vector<float> in(n), out(n, -1.0f);
  for (size_t i = 0; i < n; ++i) in[i] = float(i);
  Array<float> inView(device, in), outView(device, out);
  queue.copyToDevice(inView);
  queue.copyToDevice(outView);
  struct Captures {
    void *out;
    const void *in;
    float scale;
    int32_t n;
  } captures{outView.devicePtr(), inView.devicePtr(), 2.0f, static_cast<int32_t>(n)};
  struct Range1 {
    uint64_t v[1];
  } accessorRange{{group}}, offset{{0}};
  size_t global = (n + group - 1) / group * group;
  queue.launch(Kernel(kernels, "sycl_shaped"), Range(global).local(group),
               {captures, Arg::local(group * sizeof(float)), accessorRange, offset});
  queue.copyToHost(outView);
  queue.sync();
  for (size_t i = 0; i < n; ++i) {
    size_t mirror = i / group * group + (group - 1 - i % group);
    float want = (mirror < n ? 2.0f * float(mirror) : 0.0f) + 32000.0f;
    EXPECT_EQ(out[i], want) << i;
  }
}

template <class T>
int64_t saturate(double v) {
  if (std::isnan(v)) return 0;
  double lo = double(std::numeric_limits<T>::min()), hi = double(std::numeric_limits<T>::max());
  if (v <= lo) return int64_t(std::numeric_limits<T>::min());
  if (v >= hi) return static_cast<int64_t>(std::numeric_limits<T>::max());
  return static_cast<int64_t>(static_cast<T>(v));
}

TEST_P(BuiltinValuesTest, ConversionsToIntegersRoundAndSaturate) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> f = {0.5f,  1.5f,  2.5f,          -0.5f, -1.5f,         -2.5f,  2147483520.0f,
                          3e9f,  -3e9f, std::nanf(""), inf,   -inf,          255.5f, 256.0f,
                          -1.0f, 1e20f, 32767.2f,      -7.7f, 1.8446743e19f, 9.3e18f};
  std::vector<int32_t> i = {0,   -1,  127, 128, -128, -129, 65535, 65536, INT32_MIN, INT32_MAX,
                            300, 255, 256, -7,  42,   1000, -1000, 77,    -300,      12345678};
  size_t n = f.size();
  Array<float> fv(device, f);
  Array<int32_t> iv(device, i);
  Array<int64_t, AllocType::Shared> out(device, n * 12);
  queue.copyToDevice(fv);
  queue.copyToDevice(iv);
  queue.launch(Kernel(kernels, "convert_to_integers"), Range(n), {fv, iv, out});
  queue.sync();
  for (size_t k = 0; k < n; ++k) {
    const int64_t *o = out.hostPtr() + k * 12;
    double x = f[k];
    SCOPED_TRACE(testing::Message() << "f = " << f[k] << ", i = " << i[k]);
    EXPECT_EQ(o[0], saturate<int32_t>(std::trunc(x))) << "convert_int_sat";
    EXPECT_EQ(o[1], saturate<int32_t>(std::nearbyint(x))) << "convert_int_sat_rte";
    EXPECT_EQ(o[2], saturate<int32_t>(std::ceil(x))) << "convert_int_sat_rtp";
    EXPECT_EQ(o[3], saturate<int32_t>(std::floor(x))) << "convert_int_sat_rtn";
    EXPECT_EQ(o[4], saturate<uint8_t>(std::trunc(x))) << "convert_uchar_sat";
    EXPECT_EQ(o[5], saturate<int16_t>(std::ceil(x))) << "convert_short_sat_rtp";
    EXPECT_EQ(uint64_t(o[6]), uint64_t(saturate<uint64_t>(std::trunc(x)))) << "convert_ulong_sat";
    EXPECT_EQ(o[7], saturate<int64_t>(std::nearbyint(x))) << "convert_long_sat_rte";
    EXPECT_EQ(o[8], saturate<int8_t>(i[k])) << "convert_char_sat";
    EXPECT_EQ(o[9], saturate<uint16_t>(i[k])) << "convert_ushort_sat";
    EXPECT_EQ(o[10], saturate<uint32_t>(i[k])) << "convert_uint_sat";
    EXPECT_EQ(o[11], int64_t(uint8_t(i[k]))) << "convert_uchar";
  }
}

// Distance in half ulps between a half result and a double reference.
double halfUlps(_Float16 got, double want) {
  if (std::isnan(want)) return std::isnan(double(got)) ? 0 : 1e9;
  if (std::isinf(want)) return double(got) == want ? 0 : 1e9;
  _Float16 w = static_cast<_Float16>(want);
  double ulp = std::fabs(double(w)) < 6.103515625e-05 ? std::ldexp(1.0, -24)
                                                      : std::ldexp(1.0, std::ilogb(double(w)) - 10);
  return std::fabs(double(got) - want) / ulp;
}

TEST_P(BuiltinValuesTest, HalfMathIsWithinItsUlpLimits) {
  std::vector<_Float16> x;
  for (int k = -40; k <= 40; ++k) x.push_back(static_cast<_Float16>(k * 0.173));
  for (double v : {1e-4, -6e-5, 7.5, -9.9, 10.5, 0.0}) x.push_back(static_cast<_Float16>(v));
  size_t n = x.size();
  Array<_Float16, AllocType::Shared> xv(device, n), out(device, n * 8);
  std::copy(x.begin(), x.end(), xv.hostPtr());
  queue.launch(Kernel(kernels, "half_math"), Range(n), {xv, out});
  queue.sync();
  for (size_t k = 0; k < n; ++k) {
    double v = double(x[k]);
    const _Float16 *o = out.hostPtr() + k * 8;
    SCOPED_TRACE(testing::Message() << "x = " << v);
    // cl_khr_fp16: sin, exp, log, pow, tanh, atan2 and cbrt within 2 ulp; sqrt within 1.
    EXPECT_LE(halfUlps(o[0], std::sin(v)), 2.0) << "sin";
    EXPECT_LE(halfUlps(o[1], std::exp(v)), 2.0) << "exp";
    // The kernel adds in half precision: the reference takes log of the same half.
    double logArgument = double(static_cast<_Float16>(std::fabs(v) + 1));
    EXPECT_LE(halfUlps(o[2], std::log(logArgument)), 2.0) << "log";
    EXPECT_LE(halfUlps(o[3], std::sqrt(std::fabs(v))), 1.0) << "sqrt";
    EXPECT_LE(halfUlps(o[4], std::tanh(v)), 2.0) << "tanh";
    EXPECT_LE(halfUlps(o[5], std::pow(std::fabs(v), 1.5)), 2.0) << "pow";
    EXPECT_LE(halfUlps(o[6], std::atan2(v, 0.75)), 2.0) << "atan2";
    EXPECT_LE(halfUlps(o[7], std::cbrt(v)), 2.0) << "cbrt";
  }
}

namespace bits {

uint64_t reverse(uint64_t x, unsigned width) {
  uint64_t r = 0;
  for (unsigned i = 0; i < width; ++i) r |= ((x >> i) & 1) << (width - 1 - i);
  return r;
}
uint64_t low(unsigned count) {
  return count >= 64 ? ~uint64_t{0} : (uint64_t{1} << count) - 1;
}
uint64_t truncate(uint64_t x, unsigned width) {
  return x & low(width);
}
uint64_t extractUnsigned(uint64_t x, unsigned off, unsigned cnt) {
  return cnt == 0 ? 0 : (x >> off) & low(cnt);
}
int64_t extractSigned(uint64_t x, unsigned off, unsigned cnt) {
  if (cnt == 0) return 0;
  uint64_t field = extractUnsigned(x, off, cnt), top = uint64_t{1} << (cnt - 1);
  return int64_t((field ^ top) - top);
}
uint64_t insert(uint64_t base, uint64_t insert, unsigned off, unsigned cnt, unsigned width) {
  if (cnt == 0) return truncate(base, width);
  uint64_t mask = low(cnt) << off;
  return truncate((base & ~mask) | ((insert << off) & mask), width);
}

}  // namespace bits

TEST_P(BuiltinValuesTest, BitInstructionsAtEveryWidthWithEmptyAndWholeFields) {
  std::vector<uint64_t> xs{0, ~uint64_t{0}, 0x8000000000000001ull, 0x0123456789abcdefull,
                           0xf0e1d2c3b4a59687ull};
  std::vector<std::pair<unsigned, unsigned>> fields{{0, 0},   {0, 64}, {64, 0}, {63, 1},
                                                    {0, 1},   {7, 1},  {8, 8},  {3, 29},
                                                    {32, 32}, {1, 62}, {16, 0}, {5, 17}};
  std::vector<uint64_t> x, y;
  std::vector<uint32_t> off, cnt;
  for (uint64_t a : xs)
    for (auto [f, c] : fields) {
      x.push_back(a);
      y.push_back(~a * 0x9e3779b97f4a7c15ull);
      off.push_back(f);
      cnt.push_back(c);
    }
  size_t n = x.size();
  Array<uint64_t> xd(device, x), yd(device, y);
  Array<uint32_t> offd(device, off), cntd(device, cnt);
  Array<uint64_t, AllocType::Shared> out(device, n * 24);
  for (auto *a : {&xd, &yd}) queue.copyToDevice(*a);
  queue.copyToDevice(offd);
  queue.copyToDevice(cntd);
  queue.launch(Kernel(kernels, "bit_instruction_edges"), Range(n), {xd, yd, offd, cntd, out});
  queue.sync();
  for (size_t i = 0; i < n; ++i) {
    SCOPED_TRACE(testing::Message() << std::hex << "x " << x[i] << " y " << y[i] << std::dec
                                    << " offset " << off[i] << " count " << cnt[i]);
    const uint64_t *o = out.hostPtr() + i * 24;
    unsigned width = 8;
    for (int k = 0; k < 4; ++k, width *= 2, o += 5) {
      SCOPED_TRACE(testing::Message() << width << " bits");
      uint64_t a = bits::truncate(x[i], width), b = bits::truncate(y[i], width);
      unsigned f = std::min(off[i], width), c = std::min(cnt[i], width - f);
      EXPECT_EQ(o[0], bits::reverse(a, width)) << "bit_reverse";
      EXPECT_EQ(o[1], uint64_t(std::popcount(a))) << "popcount";
      EXPECT_EQ(o[2], bits::extractUnsigned(a, f, c)) << "bitfield_extract_unsigned";
      EXPECT_EQ(o[3], uint64_t(bits::extractSigned(a, f, c))) << "bitfield_extract_signed";
      EXPECT_EQ(o[4], bits::insert(a, b, f, c, width)) << "bitfield_insert";
    }
    uint32_t v[4] = {uint32_t(x[i]), uint32_t(x[i] >> 32), uint32_t(y[i]), uint32_t(y[i] >> 32)};
    unsigned f = std::min(off[i], 32u), c = std::min(cnt[i], 32u - f);
    for (int k = 0; k < 4; ++k) {
      uint64_t want = bits::reverse(v[k], 32) ^ uint64_t(std::popcount(v[k])) ^
                      bits::extractUnsigned(v[k], f, c) ^ bits::insert(v[k], v[3 - k], f, c, 32);
      EXPECT_EQ(o[k], want) << "uint4 component " << k;
    }
  }
}

TEST_P(BuiltinValuesTest, AnIcpxShapedModuleRunsWithItsHintsAndSubGroups) {
  Module icpx(device, "xpurt_test_icpx_shaped");
  constexpr size_t global = 64, group = 32, n = 60;
  Array<float, AllocType::Shared> out(device, global * 4), sum(device, 1);
  std::fill_n(out.hostPtr(), global * 4, -1.0f);
  sum.hostPtr()[0] = 0;
  struct Captures {
    void *out;
    float scale;
    uint32_t n;
  } captures{out.devicePtr(), 0.5f, static_cast<uint32_t>(n)};
  struct Range1 {
    uint64_t v[1];
  } accessorRange{{group}};
  queue.launch(Kernel(icpx, "icpx_shaped"), Range(global).local(group),
               {captures, Arg::local(group * sizeof(float)), accessorRange, sum});
  queue.sync();
  for (size_t g = 0; g < global; ++g) {
    size_t l = g % group;
    const float *o = out.hostPtr() + g * 4;
    SCOPED_TRACE(testing::Message() << "work-item " << g);
    if (g >= n) {
      EXPECT_EQ(o[0], -1.0f);
      continue;
    }
    EXPECT_EQ(o[0], 0.5f * 120);                          // reduce over a sub-group of 16
    EXPECT_EQ(o[1], 0.5f * float((l % 16) ^ 1));          // intel shuffle
    EXPECT_EQ(o[2], 16.0f);                               // the required sub-group size
    EXPECT_EQ(o[3], 0.5f * float((group - 1 - l) % 16));  // the local accessor, mirrored
  }
  EXPECT_EQ(sum.hostPtr()[0], 0.5f * 120 * (global / 16));  // float atomic add, every item
}

TEST_P(BuiltinValuesTest, GeometricFunctionsAgainstADoubleReference) {
  constexpr size_t n = 64;
  Array<float, AllocType::Shared> a(device, n * 4), b(device, n * 4), out(device, n * 12);
  for (size_t i = 0; i < n * 4; ++i) {
    a.hostPtr()[i] = float(int(i * 37 % 23) - 11) * 0.37f;
    b.hostPtr()[i] = float(int(i * 53 % 19) - 9) * 1.13f;
  }
  queue.launch(Kernel(kernels, "geometric"), Range(n), {a, b, out});
  queue.sync();
  // Relative bounds: the geometric functions are sums of a few products and a square root,
  // each within a few ulp (OpenCL: the constituent operations' bounds); fast_length within
  // 8192 ulp.
  auto near = [](float got, double want, double ulps) {
    double scale = std::max(std::fabs(want), 1e-6);
    return std::fabs(got - want) <= ulps * scale * std::ldexp(1.0, -23);
  };
  for (size_t k = 0; k < n; ++k) {
    const float *x = a.hostPtr() + k * 4, *y = b.hostPtr() + k * 4, *o = out.hostPtr() + k * 12;
    double dot = 0, len = 0, dist = 0;
    for (int i = 0; i < 4; ++i) {
      dot += double(x[i]) * y[i];
      len += double(x[i]) * x[i];
      dist += (double(x[i]) - y[i]) * (double(x[i]) - y[i]);
    }
    len = std::sqrt(len);
    dist = std::sqrt(dist);
    SCOPED_TRACE(testing::Message() << "vector " << k);
    double dot3 = double(x[0]) * y[0] + double(x[1]) * y[1] + double(x[2]) * y[2];
    // Sums may cancel: bound them by the magnitude of their terms.
    double terms = 0;
    for (int i = 0; i < 4; ++i) terms += std::fabs(double(x[i]) * y[i]);
    EXPECT_LE(std::fabs(o[0] - dot), 8 * terms * std::ldexp(1.0, -24)) << "dot";
    EXPECT_LE(std::fabs(o[11] - dot3), 8 * terms * std::ldexp(1.0, -24)) << "dot3";
    EXPECT_TRUE(near(o[1], len, 4)) << "length " << o[1] << " vs " << len;
    EXPECT_TRUE(near(o[2], dist, 4)) << "distance " << o[2] << " vs " << dist;
    for (int i = 0; i < 4 && len > 0; ++i)
      EXPECT_TRUE(near(o[3 + i], x[i] / len, 4)) << "normalize " << i;
    double c[3] = {double(x[1]) * y[2] - double(x[2]) * y[1],
                   double(x[2]) * y[0] - double(x[0]) * y[2],
                   double(x[0]) * y[1] - double(x[1]) * y[0]};
    for (int i = 0; i < 3; ++i) {
      double bound = std::fabs(double(x[(i + 1) % 3]) * y[(i + 2) % 3]) +
                     std::fabs(double(x[(i + 2) % 3]) * y[(i + 1) % 3]);
      EXPECT_LE(std::fabs(o[7 + i] - c[i]), 4 * bound * std::ldexp(1.0, -24)) << "cross " << i;
    }
    EXPECT_TRUE(near(o[10], len, 8192)) << "fast_length";
  }
}

XPURT_INSTANTIATE_CONFORMANCE(BuiltinValuesTest);

}  // namespace
}  // namespace xpurt::test
