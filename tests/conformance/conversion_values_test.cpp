// Every explicit conversion between char uchar short ushort int uint long ulong float double,
// convert_<dst>[_sat][_rte|_rtz|_rtp|_rtn], and a 4-wide form per destination
// (tests/kernels/builtin_values_conversions.cl), against host references that round with
// integer arithmetic and floor/ceil/trunc, never through the device's library or a changed
// rounding mode: on NaN, infinities, zeros, halfway cases, values just inside and outside each
// integer range, integers that float or double cannot hold, and random values (fixed seeds).
// half to and from float too. A conversion that OpenCL leaves implementation-defined (a
// floating-point value out of an integer's range, or NaN, without _sat) is not checked.
#include "device_param.hpp"
#include "value_checks.hpp"

#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

namespace xpurt::test {
namespace {

class ConversionValuesTest : public DeviceTest {
 protected:
  Module kernels{device, "xpurt_test_conversion_values"};

  template <class S>
  void checkSource(const std::string &type, std::vector<S> inputs);
};

constexpr size_t slots = 170;  // CV_SLOTS of the kernels

using Wide = __int128;

// Rounding modes, in the kernels' order: the conversion's default, then the suffixes.
enum Mode { Default, Rte, Rtz, Rtp, Rtn };
const char *const suffixes[] = {"", "_rte", "_rtz", "_rtp", "_rtn"};

struct Destination {
  const char *name;
  int bits;  // 0 for float and double
  bool isSigned;
  Wide lo() const { return isSigned ? -(Wide(1) << (bits - 1)) : 0; }
  Wide hi() const { return isSigned ? (Wide(1) << (bits - 1)) - 1 : (Wide(1) << bits) - 1; }
};
const Destination destinations[] = {
    {"char", 8, true},   {"uchar", 8, false}, {"short", 16, true}, {"ushort", 16, false},
    {"int", 32, true},   {"uint", 32, false}, {"long", 64, true},  {"ulong", 64, false},
    {"float", 0, false}, {"double", 0, false}};

// An integral double in the mode (ties to even by comparison with the halfway point).
double roundIn(double v, Mode mode) {
  switch (mode) {
    case Rtp:
      return std::ceil(v);
    case Rtn:
      return std::floor(v);
    case Rte: {
      double r = std::floor(v), fraction = v - r;
      if (fraction > 0.5 || (fraction == 0.5 && std::fmod(r, 2.0) != 0)) r += 1;
      return r;
    }
    default:
      return std::trunc(v);
  }
}

// An integer to `mantissa` significant bits in the mode (the default: to nearest), exactly, as
// a double (which holds every such result: 24 bits for float, 53 for double).
double integerToFloating(Wide v, int mantissa, Mode mode) {
  bool negative = v < 0;
  unsigned __int128 magnitude = negative ? -static_cast<unsigned __int128>(v) : v;
  uint64_t m = uint64_t(magnitude);  // below 2^64 for every source
  int width = std::bit_width(m);
  if (width <= mantissa) return negative ? -double(m) : double(m);
  int shift = width - mantissa;
  uint64_t kept = m >> shift, rest = m & ((uint64_t(1) << shift) - 1),
           half = uint64_t(1) << (shift - 1);
  bool up = false;
  if (mode == Rte || mode == Default) up = rest > half || (rest == half && (kept & 1));
  if (mode == Rtp) up = rest != 0 && !negative;
  if (mode == Rtn) up = rest != 0 && negative;
  double r = std::ldexp(double(kept + up), shift);
  return negative ? -r : r;
}

// A double to float in the mode: the host's conversion (to nearest), then one step toward the
// directed mode's side where that went past the value.
float doubleToFloat(double d, Mode mode) {
  float f = static_cast<float>(d);
  if (std::isnan(d) || double(f) == d) return f;
  const float inf = std::numeric_limits<float>::infinity();
  if (mode == Rtp && double(f) < d) f = std::nextafter(f, inf);
  if (mode == Rtn && double(f) > d) f = std::nextafter(f, -inf);
  if (mode == Rtz && std::fabs(double(f)) > std::fabs(d)) f = std::nextafter(f, 0.0f);
  return f;
}

// What the kernel should store: an integer (sign- or zero-extended to 64 bits), float bits or
// double bits; `defined` false where OpenCL leaves the result to the implementation.
struct Expected {
  bool defined = true;
  uint64_t bits = 0;
  int kind = 0;  // 0 signed integer, 1 unsigned integer, 2 float, 3 double
  bool nan = false;
};

// The source value: an integer, or a float or double (exact as a double).
struct Source {
  bool floating;
  Wide integer;
  double value;
};

Expected toInteger(const Source &x, const Destination &d, bool sat, Mode mode) {
  Expected e;
  e.kind = d.isSigned ? 0 : 1;
  Wide r;
  if (!x.floating) {
    if (sat) {
      r = x.integer < d.lo() ? d.lo() : x.integer > d.hi() ? d.hi() : x.integer;
    } else {  // modulo 2^bits
      unsigned __int128 low = static_cast<unsigned __int128>(x.integer) &
                              ((static_cast<unsigned __int128>(1) << d.bits) - 1);
      r = d.isSigned && low > static_cast<unsigned __int128>(d.hi())
              ? Wide(low) - (Wide(1) << d.bits)
              : Wide(low);
    }
  } else if (std::isnan(x.value)) {
    e.defined = sat;
    r = 0;
  } else {
    double rounded = roundIn(x.value, mode == Default ? Rtz : mode);
    // Both limits are powers of two, exact as doubles.
    double lo = double(d.lo()), limit = std::ldexp(1.0, d.isSigned ? d.bits - 1 : d.bits);
    if (rounded >= lo && rounded < limit)
      r = Wide(rounded);
    else if (!sat)
      e.defined = false, r = 0;
    else
      r = rounded < lo ? d.lo() : d.hi();
  }
  e.bits = uint64_t(r);
  return e;
}

Expected toFloat(const Source &x, Mode mode) {
  float f =
      x.floating ? doubleToFloat(x.value, mode) : float(integerToFloating(x.integer, 24, mode));
  return {true, std::bit_cast<uint32_t>(f), 2, std::isnan(f)};
}

Expected toDouble(const Source &x, Mode mode) {
  double f = x.floating ? x.value : integerToFloating(x.integer, 53, mode);
  return {true, std::bit_cast<uint64_t>(f), 3, std::isnan(f)};
}

// Destination dst (its index in destinations), saturated or not, in the mode.
Expected reference(const Source &x, size_t dst, bool sat, Mode mode) {
  if (dst == 8) return toFloat(x, mode);
  if (dst == 9) return toDouble(x, mode);
  return toInteger(x, destinations[dst], sat, mode);
}

bool matches(const Expected &e, uint64_t got) {
  if (e.nan)
    return e.kind == 2 ? std::isnan(std::bit_cast<float>(uint32_t(got)))
                       : std::isnan(std::bit_cast<double>(got));
  return got == e.bits;
}

std::string showBits(uint64_t bits, int kind) {
  char text[96];
  if (kind == 0) std::snprintf(text, sizeof text, "%lld", (long long)int64_t(bits));
  if (kind == 1) std::snprintf(text, sizeof text, "%llu", (unsigned long long)bits);
  if (kind == 2)
    std::snprintf(text, sizeof text, "%.9g (%a, bits 0x%08x)",
                  double(std::bit_cast<float>(uint32_t(bits))),
                  double(std::bit_cast<float>(uint32_t(bits))), unsigned(bits));
  if (kind == 3)
    std::snprintf(text, sizeof text, "%.17g (%a)", std::bit_cast<double>(bits),
                  std::bit_cast<double>(bits));
  return text;
}

template <class S>
std::string showSource(S x) {
  if constexpr (std::is_floating_point_v<S>)
    return showBits(
        sizeof(S) == 4 ? std::bit_cast<uint32_t>(float(x)) : std::bit_cast<uint64_t>(double(x)),
        sizeof(S) == 4 ? 2 : 3);
  else
    return showBits(uint64_t(x), std::is_signed_v<S> ? 0 : 1);
}

// Inputs of an integer source: its limits, every destination's limits and their neighbours,
// integers just past float's and double's 24 and 53 bits (ties and not), random values.
template <class S>
std::vector<S> integerInputs() {
  using L = std::numeric_limits<S>;
  std::vector<Wide> c = {
      0, 1, -1, 2, -2, 3, L::min(), Wide(L::min()) + 1, L::max(), Wide(L::max()) - 1};
  for (size_t d = 0; d < 8; ++d)
    for (Wide v : {destinations[d].lo(), destinations[d].hi()})
      for (Wide delta : {-1, 0, 1}) c.push_back(v + delta);
  for (int p : {24, 53})
    for (Wide delta : {1, 2, 3, 5})
      for (int extra : {0, 1, 2, 9}) {
        Wide v = (Wide(1) << (p + extra)) + (delta << extra);
        c.push_back(v);
        c.push_back(-v);
      }
  for (Wide v :
       {Wide(1) << 62 | Wide(1) << 9, Wide(1) << 62 | Wide(3) << 9, Wide(1) << 62 | Wide(1) << 38,
        Wide(1) << 63 | Wide(1) << 39, Wide(0x7fffffbf), Wide(0x7fffffc0), Wide(0xffffff7f)}) {
    c.push_back(v);
    c.push_back(-v);
  }
  std::mt19937_64 random(1234 + sizeof(S) * 2 + std::is_signed_v<S>);
  for (int k = 0; k < 64; ++k) c.push_back(Wide(S(random())));
  for (int k = 0; k < 64; ++k) c.push_back(Wide(S(S(random()) >> (random() % (sizeof(S) * 8)))));
  std::vector<S> inputs;
  for (Wide v : c)
    if (v >= Wide(L::min()) && v <= Wide(L::max())) inputs.push_back(S(v));
  return inputs;
}

// Inputs of a float or double source: NaN, infinities, zeros, halfway cases, each integer
// range's limits with their halves and neighbours in S's precision, float's own limits and
// ties (from double), random values of every magnitude an integer reaches.
template <class S>
std::vector<S> floatingInputs() {
  using L = std::numeric_limits<S>;
  std::vector<double> c = {L::quiet_NaN(),
                           L::infinity(),
                           -L::infinity(),
                           0.0,
                           -0.0,
                           0.5,
                           -0.5,
                           1.5,
                           -1.5,
                           2.5,
                           -2.5,
                           3.5,
                           -3.5,
                           1,
                           -1,
                           0.25,
                           -0.75,
                           0.49999999999999994,
                           -0.50000000000000011,
                           1e-30,
                           -1e-30,
                           1e30,
                           -1e30,
                           double(L::max()),
                           -double(L::max()),
                           16777217.0,
                           -16777217.0,
                           8388607.5,
                           -8388608.5};
  for (size_t d = 0; d < 8; ++d)
    for (Wide v : {destinations[d].lo(), destinations[d].hi()})
      for (double delta : {-1.0, -0.5, 0.0, 0.5, 1.0}) {
        S s = static_cast<S>(double(v) + delta);
        for (S t : {s, std::nextafter(s, L::infinity()), std::nextafter(s, -L::infinity())})
          c.push_back(t);
      }
  if constexpr (sizeof(S) == 8) {
    const double flt = std::numeric_limits<float>::max(), fltHalfUlp = std::ldexp(1.0, 103);
    for (double v : {1 + std::ldexp(1.0, -24), 1 + 3 * std::ldexp(1.0, -24),
                     1 + std::ldexp(1.0, -30), flt, flt + fltHalfUlp,
                     std::nextafter(flt + fltHalfUlp, 0.0), std::nextafter(flt + fltHalfUlp, 1e300),
                     1e39, 1e300, double(std::numeric_limits<float>::min()),
                     std::ldexp(1.0 + std::ldexp(1.0, -30), -126)}) {
      c.push_back(v);
      c.push_back(-v);
    }
  }
  std::mt19937_64 random(4321 + sizeof(S));
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  for (int k = 0; k < 96; ++k) {
    double v = std::ldexp(mantissa(random), int(random() % 68) - 2);
    c.push_back(random() & 1 ? -v : v);
  }
  for (int k = 0; k < 32; ++k) {  // halfway between integers
    double v = double(random() % (1u << 22)) + 0.5;
    c.push_back(random() & 1 ? -v : v);
  }
  std::vector<S> inputs;
  for (double v : c) inputs.push_back(static_cast<S>(v));
  return inputs;
}

template <class S>
void ConversionValuesTest::checkSource(const std::string &type, std::vector<S> inputs) {
  size_t n = inputs.size();
  for (size_t k = 0; k < 3; ++k) inputs.push_back(inputs[k]);  // the last 4-wide loads' tail
  Array<S> in(device, inputs);
  Array<uint64_t, AllocType::Shared> out(device, n * slots);
  queue.copyToDevice(in);
  queue.launch(Kernel(kernels, "from_" + type), Range(n), {in, out});
  queue.sync();

  ValueChecks checks("conversions from " + type + " on " + GetParam().name);
  auto source = [&](size_t i) {
    S x = inputs[i];
    if constexpr (std::is_floating_point_v<S>)
      return Source{true, 0, double(x)};
    else
      return Source{false, Wide(x), 0};
  };
  auto compare = [&](const std::string &function, const Expected &e, uint64_t got, size_t i,
                     const std::string &where) {
    if (!e.defined) return checks.skip();
    checks.check(
        function, matches(e, got), [&] { return type + " " + showSource(inputs[i]) + where; },
        [&] { return showBits(got, e.kind) + ", expected " + showBits(e.bits, e.kind); });
  };
  for (size_t i = 0; i < n; ++i) {
    const uint64_t *o = out.hostPtr() + i * slots;
    Source x = source(i);
    for (size_t d = 0; d < 10; ++d)
      for (bool sat : {false, true}) {
        if (sat && d >= 8) continue;  // no saturated conversions to floating point
        for (int m = Default; m <= Rtn; ++m) {
          size_t slot = d < 8 ? d * 10 + (sat ? 5 : 0) + m : 80 + (d - 8) * 5 + m;
          std::string function =
              std::string("convert_") + destinations[d].name + (sat ? "_sat" : "") + suffixes[m];
          compare(function, reference(x, d, sat, Mode(m)), o[slot], i, "");
        }
      }
    // Work-item i's 4-wide forms convert elements i to i + 3.
    const uint64_t *o4 = o + 90;
    for (size_t d = 0; d < 10; ++d)
      for (int variant = 0; variant < 2; ++variant) {
        bool sat = d < 8 && variant == 1;
        Mode mode = variant == 0 ? Default : d < 8 ? Rte : d == 8 ? Rtp : Rtn;
        std::string function = std::string("convert_") + destinations[d].name + "4" +
                               (sat ? "_sat" : "") + (variant ? suffixes[mode] : "");
        for (size_t e = 0; e < 4; ++e) {
          Expected want = reference(source(i + e), d, sat, mode);
          uint64_t got = o4[(d * 2 + variant) * 4 + e];
          if (d == 8) got = uint32_t(got);
          compare(function, want, got, i + e,
                  ", element " + std::to_string(e) + " of the vector at " + std::to_string(i));
        }
      }
  }
}

TEST_P(ConversionValuesTest, FromChar) {
  checkSource("char", integerInputs<int8_t>());
}
TEST_P(ConversionValuesTest, FromUchar) {
  checkSource("uchar", integerInputs<uint8_t>());
}
TEST_P(ConversionValuesTest, FromShort) {
  checkSource("short", integerInputs<int16_t>());
}
TEST_P(ConversionValuesTest, FromUshort) {
  checkSource("ushort", integerInputs<uint16_t>());
}
TEST_P(ConversionValuesTest, FromInt) {
  checkSource("int", integerInputs<int32_t>());
}
TEST_P(ConversionValuesTest, FromUint) {
  checkSource("uint", integerInputs<uint32_t>());
}
TEST_P(ConversionValuesTest, FromLong) {
  checkSource("long", integerInputs<int64_t>());
}
TEST_P(ConversionValuesTest, FromUlong) {
  checkSource("ulong", integerInputs<uint64_t>());
}
TEST_P(ConversionValuesTest, FromFloat) {
  checkSource("float", floatingInputs<float>());
}
TEST_P(ConversionValuesTest, FromDouble) {
  checkSource("double", floatingInputs<double>());
}

// float to half in the mode: the host's conversion (to nearest), then one step of the half's
// bits toward the directed mode's side where that went past the value.
uint16_t floatToHalf(float f, Mode mode) {
  _Float16 h = static_cast<_Float16>(f);
  uint16_t bits = std::bit_cast<uint16_t>(h);
  if (std::isnan(f) || double(h) == double(f)) return bits;
  auto step = [&](bool up) {  // the next half up or down, away from 0 (no zero results here)
    return uint16_t((double(h) > 0) == up ? bits + 1 : bits - 1);
  };
  if (mode == Rtp && double(h) < double(f)) return step(true);
  if (mode == Rtn && double(h) > double(f)) return step(false);
  if (mode == Rtz && std::fabs(double(h)) > std::fabs(double(f))) return step(double(h) < 0);
  return bits;
}

TEST_P(ConversionValuesTest, HalfToAndFromFloat) {
  const float inf = std::numeric_limits<float>::infinity();
  // Half's limits (65504 the largest, 65520 halfway to the next power of two), ties at 1, its
  // smallest normal (denormal halves may be flushed, so none are made), random normal values.
  std::vector<float> f = {std::nanf(""),
                          inf,
                          -inf,
                          0.0f,
                          -0.0f,
                          1.0f,
                          -1.0f,
                          65504.0f,
                          -65504.0f,
                          65519.0f,
                          65520.0f,
                          -65520.0f,
                          65536.0f,
                          1e6f,
                          -1e6f,
                          0.1f,
                          -0.1f,
                          1.0f + std::ldexp(1.0f, -11),
                          1.0f + 3 * std::ldexp(1.0f, -11),
                          1.0f + std::ldexp(1.0f, -13),
                          -1.0f - std::ldexp(1.0f, -13),
                          std::ldexp(1.0f, -14),
                          std::ldexp(1.5f, -14),
                          2.5f,
                          2049.0f,
                          2051.0f};
  std::vector<uint16_t> h = {0x0000, 0x8000, 0x3c00, 0xbc00, 0x7bff, 0xfbff, 0x7c00,
                             0xfc00, 0x7e00, 0x0400, 0x8400, 0x3555, 0x4248};
  std::mt19937 random(77);
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  while (f.size() < 96) {
    float v = std::ldexp(mantissa(random), int(random() % 30) - 14);
    f.push_back(random() & 1 ? -v : v);
  }
  while (h.size() < f.size()) {
    uint16_t bits = uint16_t(random());
    if ((bits & 0x7c00) != 0 && (bits & 0x7c00) != 0x7c00) h.push_back(bits);  // normal
  }
  size_t n = f.size();
  for (size_t k = 0; k < 3; ++k) f.push_back(f[k]), h.push_back(h[k]);
  Array<float> fv(device, f);
  Array<uint16_t> hv(device, h);
  Array<uint32_t, AllocType::Shared> out(device, n * 18);
  queue.copyToDevice(fv);
  queue.copyToDevice(hv);
  queue.launch(Kernel(kernels, "half_conversions"), Range(n), {fv, hv, out});
  queue.sync();
  ValueChecks checks("half conversions on " + GetParam().name);
  auto halfMatches = [](uint16_t got, uint16_t want) {
    return (want & 0x7fff) > 0x7c00 ? (got & 0x7fff) > 0x7c00 : got == want;
  };
  auto showHalf = [](uint16_t bits) {
    char text[64];
    std::snprintf(text, sizeof text, "%.6g (bits 0x%04x)", double(std::bit_cast<_Float16>(bits)),
                  unsigned(bits));
    return std::string(text);
  };
  auto fromFloat = [&](const std::string &function, size_t k, uint32_t got, Mode mode,
                       const std::string &where) {
    uint16_t want = floatToHalf(f[k], mode);
    checks.check(
        function, halfMatches(uint16_t(got), want),
        [&] { return "float " + showBits(std::bit_cast<uint32_t>(f[k]), 2) + where; },
        [&] { return showHalf(uint16_t(got)) + ", expected " + showHalf(want); });
  };
  auto toFloat = [&](const std::string &function, size_t k, uint32_t got,
                     const std::string &where) {
    float want = float(std::bit_cast<_Float16>(h[k]));
    checks.check(
        function,
        std::isnan(want) ? std::isnan(std::bit_cast<float>(got))
                         : got == std::bit_cast<uint32_t>(want),
        [&] { return "half " + showHalf(h[k]) + where; },
        [&] {
          return showBits(got, 2) + ", expected " + showBits(std::bit_cast<uint32_t>(want), 2);
        });
  };
  for (size_t i = 0; i < n; ++i) {
    const uint32_t *o = out.hostPtr() + i * 18;
    for (int m = Default; m <= Rtn; ++m)
      fromFloat(std::string("convert_half") + suffixes[m], i, o[m], Mode(m), "");
    toFloat("convert_float", i, o[5], "");
    for (int m = Rte; m <= Rtn; ++m)
      toFloat(std::string("convert_float") + suffixes[m], i, o[14 + (m == Rte ? 3 : m - Rtz)], "");
    for (size_t e = 0; e < 4; ++e) {
      std::string where =
          ", element " + std::to_string(e) + " of the vector at " + std::to_string(i);
      fromFloat("convert_half4_rtz", i + e, o[6 + e], Rtz, where);
      toFloat("convert_float4", i + e, o[10 + e], where);
    }
  }
}

XPURT_INSTANTIATE_CONFORMANCE(ConversionValuesTest);

}  // namespace
}  // namespace xpurt::test
