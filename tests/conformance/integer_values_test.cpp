// Every integer function of OpenCL C 3.0 (§6.15.3) and the shift operators, on every integer
// type, scalar, 4-wide and 3-wide (tests/kernels/builtin_values_integer.cl), against host
// references computed exactly in wider integers: on edge values (0, ±1, MIN, MAX and their
// neighbours, shift and rotate counts at, past and below the width, 24-bit limits) in every
// pair, and on random values from a fixed seed.
#include "device_param.hpp"
#include "value_checks.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <limits>
#include <random>
#include <sstream>
#include <type_traits>
#include <vector>

namespace xpurt::test {
namespace {

class IntegerValuesTest : public DeviceTest {
 protected:
  Module kernels{device, "xpurt_test_integer_values"};

  template <class T>
  void checkType(const std::string &type);
};

// Results per work-item: IV_SLOTS and IV_VECTOR_SLOTS of the kernels.
constexpr size_t scalarSlots = 21, vectorSlots = 24;

using Wide = __int128;

template <class T>
struct IntegerReference {
  using U = std::make_unsigned_t<T>;
  using L = std::numeric_limits<T>;
  static constexpr int bits = sizeof(T) * 8;

  static T saturate(Wide v) {
    return T(v < Wide(L::min()) ? L::min() : v > Wide(L::max()) ? L::max() : v);
  }
  static U abs(T x) { return x < 0 ? U(U(0) - U(x)) : U(x); }
  static U absDiff(T x, T y) { return U(x > y ? Wide(x) - Wide(y) : Wide(y) - Wide(x)); }
  static T addSat(T x, T y) { return saturate(Wide(x) + Wide(y)); }
  static T subSat(T x, T y) { return saturate(Wide(x) - Wide(y)); }
  static T hadd(T x, T y) { return T((Wide(x) + Wide(y)) >> 1); }
  static T rhadd(T x, T y) { return T((Wide(x) + Wide(y) + 1) >> 1); }
  static T clamp(T x, T lo, T hi) { return x < lo ? lo : x > hi ? hi : x; }
  static T clz(T x) { return T(std::countl_zero(U(x))); }
  static T ctz(T x) { return T(std::countr_zero(U(x))); }  // the width for 0
  static T popcount(T x) { return T(std::popcount(U(x))); }
  static T mulHi(T x, T y) {
    if constexpr (std::is_same_v<T, uint64_t>)
      return T((static_cast<unsigned __int128>(x) * y) >> 64);
    else
      return T((Wide(x) * Wide(y)) >> bits);
  }
  static T madHi(T x, T y, T z) { return T(U(U(mulHi(x, y)) + U(z))); }
  static T madSat(T x, T y, T z) {
    if constexpr (std::is_same_v<T, uint64_t>) {
      unsigned __int128 v = static_cast<unsigned __int128>(x) * y + z;
      return v > L::max() ? L::max() : T(v);
    } else {
      return saturate(Wide(x) * Wide(y) + Wide(z));
    }
  }
  static T max(T x, T y) { return x > y ? x : y; }
  static T min(T x, T y) { return x < y ? x : y; }
  // Counts modulo the width, a negative one taken as unsigned.
  static T rotate(T x, T n) { return T(std::rotl(U(x), int(U(n) % bits))); }
  // A vector's shifts take the count modulo the element's width; a scalar's, modulo the width
  // of the left operand after integer promotion (OpenCL C 3.0 §6.5.7).
  using P = std::conditional_t<(sizeof(T) < 4), int32_t, T>;
  using PU = std::make_unsigned_t<P>;
  static P shiftLeft(T x, T n) { return P(PU(P(x)) << (PU(P(n)) % (sizeof(P) * 8))); }
  static P shiftRight(T x, T n) { return P(P(x) >> (PU(P(n)) % (sizeof(P) * 8))); }
  static T vectorShiftLeft(T x, T n) { return T(U(x) << (U(n) % bits)); }
  static T vectorShiftRight(T x, T n) { return T(x >> (U(n) % bits)); }
  // upsample(hi, lo): the type twice as wide, here as that type's value extended to 64 bits.
  static uint64_t upsample(T hi, T lo) { return uint64_t(int64_t(hi)) << bits | uint64_t(U(lo)); }
};

// mul24 and mad24 of 24-bit operands: the kernel sign-extends int's low 24 bits and masks
// uint's, as OpenCL requires the operands to be.
int32_t to24(int32_t x) {
  return int32_t(uint32_t(x) << 8) >> 8;
}
uint32_t to24(uint32_t x) {
  return x & 0xffffffu;
}
template <class T>
T mul24(T x, T y) {
  return T(uint32_t(int64_t(to24(x)) * int64_t(to24(y))));
}
template <class T>
T mad24(T x, T y, T z) {
  return T(uint32_t(uint32_t(mul24(x, y)) + uint32_t(z)));
}

// One expected result: the function, its value as the kernel stores it (extended to 64 bits as
// a C conversion of its type does) and whether to show it signed.
struct Expected {
  const char *function = nullptr;  // null: the type has no such function
  uint64_t bits = 0;
  bool isSigned = false;
  int operands = 0;  // how many of x, y, z the function takes
};
template <class R>
Expected expect(const char *function, int operands, R value) {
  return {function, uint64_t(value), std::is_signed_v<R>, operands};
}

// The reference of every slot, for x, y, z, and for the vector forms' scalar arguments sy, sz
// (the vector's first y and z).
template <class T>
std::array<Expected, vectorSlots> references(T x, T y, T z, T sy, T sz, bool vector) {
  using R = IntegerReference<T>;
  T lo = std::min(y, z), hi = std::max(y, z);
  std::array<Expected, vectorSlots> e;
  e[0] = expect("abs", 1, R::abs(x));
  e[1] = expect("abs_diff", 2, R::absDiff(x, y));
  e[2] = expect("add_sat", 2, R::addSat(x, y));
  e[3] = expect("hadd", 2, R::hadd(x, y));
  e[4] = expect("rhadd", 2, R::rhadd(x, y));
  e[5] = expect("clamp (between y and z)", 3, R::clamp(x, lo, hi));
  e[6] = expect("clz", 1, R::clz(x));
  e[7] = expect("ctz", 1, R::ctz(x));
  e[8] = expect("mad_hi", 3, R::madHi(x, y, z));
  e[9] = expect("mad_sat", 3, R::madSat(x, y, z));
  e[10] = expect("max", 2, R::max(x, y));
  e[11] = expect("min", 2, R::min(x, y));
  e[12] = expect("mul_hi", 2, R::mulHi(x, y));
  e[13] = expect("rotate", 2, R::rotate(x, y));
  e[14] = expect("sub_sat", 2, R::subSat(x, y));
  e[15] = expect("popcount", 1, R::popcount(x));
  if (vector) {
    e[16] = expect("<<", 2, R::vectorShiftLeft(x, y));
    e[17] = expect(">>", 2, R::vectorShiftRight(x, y));
  } else {
    e[16] = expect("<<", 2, R::shiftLeft(x, y));
    e[17] = expect(">>", 2, R::shiftRight(x, y));
  }
  if constexpr (sizeof(T) < 8) {
    Expected up = expect("upsample", 2, R::upsample(x, y));
    up.isSigned = std::is_signed_v<T>;
    e[18] = up;
  }
  if constexpr (sizeof(T) == 4) {
    e[19] = expect("mul24 (x, y to 24 bits)", 2, mul24(x, y));
    e[20] = expect("mad24 (x, y to 24 bits)", 3, mad24(x, y, z));
  }
  if (vector) {
    T slo = std::min(sy, sz), shi = std::max(sy, sz);
    e[21] = expect("clamp (scalar limits)", 1, R::clamp(x, slo, shi));
    e[22] = expect("min (scalar y)", 1, R::min(x, sy));
    e[23] = expect("max (scalar y)", 1, R::max(x, sy));
  }
  return e;
}

std::string show(uint64_t bits, bool isSigned) {
  return isSigned ? std::to_string(int64_t(bits)) : std::to_string(bits);
}

template <class T>
std::string show(T v) {
  return show(uint64_t(v), std::is_signed_v<T>);
}

// Edge values of T: 0, ±1, MIN, MAX and neighbours, counts around the width, halves, bit
// patterns, and for 32-bit types the limits of mul24's operands.
template <class T>
std::vector<T> integerEdges() {
  using L = std::numeric_limits<T>;
  using U = std::make_unsigned_t<T>;
  constexpr Wide bits = sizeof(T) * 8;
  std::vector<Wide> candidates = {0,
                                  1,
                                  2,
                                  3,
                                  bits - 1,
                                  bits,
                                  bits + 1,
                                  2 * bits,
                                  L::max(),
                                  Wide(L::max()) - 1,
                                  L::min(),
                                  Wide(L::min()) + 1,
                                  L::max() / 2,
                                  Wide(L::max() / 2) + 1,
                                  -1,
                                  -2,
                                  -bits,
                                  -bits - 1,
                                  L::min() / 2,
                                  Wide(T(U(0x5555555555555555ull))),
                                  Wide(T(U(0xaaaaaaaaaaaaaaaaull)))};
  if (bits == 32)
    for (Wide v : {0x7fffff, 0x800000, 0xffffff, 0x1000000, -0x800000, -0x800001})
      candidates.push_back(v);
  std::vector<T> edges;
  for (Wide v : candidates)
    if (v >= Wide(L::min()) && v <= Wide(L::max()) &&
        std::find(edges.begin(), edges.end(), T(v)) == edges.end())
      edges.push_back(T(v));
  return edges;
}

template <class T>
void IntegerValuesTest::checkType(const std::string &type) {
  // Every triple of edge values, then random triples (a fixed seed: a failure repeats) of
  // every magnitude, so that products stay small enough for a third operand to matter,
  // padded to whole 4-wide vectors.
  std::vector<T> edges = integerEdges<T>(), a, b, c;
  for (T x : edges)
    for (T y : edges)
      for (T z : edges) {
        a.push_back(x);
        b.push_back(y);
        c.push_back(z);
      }
  std::mt19937_64 random(20261126 + sizeof(T) * 2 + std::is_signed_v<T>);
  auto anyMagnitude = [&] {
    uint64_t bits = random() >> (random() % 64);
    return T(random() & 1 ? ~bits : bits);
  };
  size_t edgeTriples = a.size();
  while (a.size() < edgeTriples + 1024 || a.size() % 4 != 0) {
    a.push_back(anyMagnitude());
    b.push_back(anyMagnitude());
    c.push_back(T(random()));
  }
  size_t n = a.size(), vectors = n / 4;
  Array<T> av(device, a), bv(device, b), cv(device, c);
  Array<uint64_t, AllocType::Shared> out(device, n * scalarSlots),
      vout(device, vectors * vectorSlots * 7);
  queue.copyToDevice(av);
  queue.copyToDevice(bv);
  queue.copyToDevice(cv);
  queue.launch(Kernel(kernels, type + "_values"), Range(n), {av, bv, cv, out});
  queue.launch(Kernel(kernels, type + "_vector_values"), Range(vectors), {av, bv, cv, vout});
  queue.sync();

  ValueChecks checks(type + " integer functions on " + GetParam().name);
  auto compare = [&](const std::string &form, const Expected &e, uint64_t got, size_t i,
                     const std::string &where) {
    if (!e.function) return;
    checks.check(
        form + " " + e.function, got == e.bits,
        [&] {
          std::string operands = "x = " + show(a[i]);
          if (e.operands > 1) operands += ", y = " + show(b[i]);
          if (e.operands > 2) operands += ", z = " + show(c[i]);
          return operands + where;
        },
        [&] { return show(got, e.isSigned) + ", expected " + show(e.bits, e.isSigned); });
  };
  for (size_t i = 0; i < n; ++i) {
    auto want = references<T>(a[i], b[i], c[i], 0, 0, false);
    for (size_t s = 0; s < scalarSlots; ++s)
      compare(type, want[s], out.hostPtr()[i * scalarSlots + s], i, "");
  }
  for (size_t v = 0; v < vectors; ++v) {
    const uint64_t *o4 = vout.hostPtr() + v * vectorSlots * 7, *o3 = o4 + vectorSlots * 4;
    for (size_t e = 0; e < 4; ++e) {
      size_t i = v * 4 + e;
      auto want = references<T>(a[i], b[i], c[i], b[v * 4], c[v * 4], true);
      std::string where = ", element " + std::to_string(e) + " of vector " + std::to_string(v) +
                          " (scalar y = " + show(b[v * 4]) + ", z = " + show(c[v * 4]) + ")";
      for (size_t s = 0; s < vectorSlots; ++s)
        compare(type + "4", want[s], o4[s * 4 + e], i, where);
    }
    for (size_t e = 0; e < 3; ++e) {
      size_t i = v * 3 + e;
      auto want = references<T>(a[i], b[i], c[i], b[v * 3], c[v * 3], true);
      std::string where = ", element " + std::to_string(e) + " of vector " + std::to_string(v) +
                          " (scalar y = " + show(b[v * 3]) + ", z = " + show(c[v * 3]) + ")";
      for (size_t s = 0; s < vectorSlots; ++s)
        compare(type + "3", want[s], o3[s * 3 + e], i, where);
    }
  }
}

TEST_P(IntegerValuesTest, Char) {
  checkType<int8_t>("char");
}
TEST_P(IntegerValuesTest, Uchar) {
  checkType<uint8_t>("uchar");
}
TEST_P(IntegerValuesTest, Short) {
  checkType<int16_t>("short");
}
TEST_P(IntegerValuesTest, Ushort) {
  checkType<uint16_t>("ushort");
}
TEST_P(IntegerValuesTest, Int) {
  checkType<int32_t>("int");
}
TEST_P(IntegerValuesTest, Uint) {
  checkType<uint32_t>("uint");
}
TEST_P(IntegerValuesTest, Long) {
  checkType<int64_t>("long");
}
TEST_P(IntegerValuesTest, Ulong) {
  checkType<uint64_t>("ulong");
}

XPURT_INSTANTIATE_CONFORMANCE(IntegerValuesTest);

}  // namespace
}  // namespace xpurt::test
