// The relational builtins of half, float and double by value
// (tests/kernels/relational_values.cl): the comparisons and classifications on special values and
// every pair of them, scalar (1 or 0) and on vectors of 4 (-1 or 0), bitselect and select, against
// references computed on the host from the bits.
#include "device_param.hpp"
#include "float_checks.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace xpurt::test {
namespace {

constexpr size_t kRelationalTests = 14;
const char *const kRelationalNames[kRelationalTests] = {
    "isequal",     "isnotequal",    "isgreater",   "isgreaterequal", "isless",
    "islessequal", "islessgreater", "isfinite",    "isinf",          "isnan",
    "isnormal",    "isordered",     "isunordered", "signbit"};

// The integer type of a type's size, and its bits.
template <class T>
using IntOf = std::conditional_t<sizeof(T) == 2, int16_t,
                                 std::conditional_t<sizeof(T) == 4, int32_t, int64_t>>;
template <class T>
using BitsOf = std::make_unsigned_t<IntOf<T>>;

template <class T>
BitsOf<T> bitsOf(T v) {
  BitsOf<T> b;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}
template <class T>
T fromBits(BitsOf<T> b) {
  T v;
  std::memcpy(&v, &b, sizeof(T));
  return v;
}

template <class T>
bool reference(size_t test, T tx, T ty) {
  double x = double(tx), y = double(ty);
  double smallestNormal = sizeof(T) == 2 ? 0x1p-14 : sizeof(T) == 4 ? 0x1p-126 : 0x1p-1022;
  switch (test) {
    case 0:
      return x == y;
    case 1:
      return x != y;  // true where either is a NaN
    case 2:
      return x > y;
    case 3:
      return x >= y;
    case 4:
      return x < y;
    case 5:
      return x <= y;
    case 6:
      return x < y || x > y;
    case 7:
      return std::isfinite(x);
    case 8:
      return std::isinf(x);
    case 9:
      return std::isnan(x);
    case 10:
      return std::isfinite(x) && std::fabs(x) >= smallestNormal;
    case 11:
      return !std::isnan(x) && !std::isnan(y);
    case 12:
      return std::isnan(x) || std::isnan(y);
    default:
      return std::signbit(x);
  }
}

class RelationalValuesTest : public DeviceTest {
 protected:
  Module kernels{device, "xpurt_test_relational_values"};

  template <class T>
  void run(const char *name, const std::vector<T> &x, const std::vector<T> &y,
           const std::vector<T> &z, const std::vector<IntOf<T>> &c, size_t lanes,
           std::vector<IntOf<T>> &tests, std::vector<T> &selected) {
    using I = IntOf<T>;
    std::vector<T> xs = x, ys = y, zs = z, sel(x.size() * 2, T(-7));
    std::vector<I> cs = c, out(x.size() * kRelationalTests, I(-7));
    Array<T> xa(device, xs), ya(device, ys), za(device, zs), sa(device, sel);
    Array<I> ca(device, cs), oa(device, out);
    queue.copyToDevice(xa);
    queue.copyToDevice(ya);
    queue.copyToDevice(za);
    queue.copyToDevice(ca);
    uint32_t items = uint32_t(x.size() / lanes);
    queue.launch(Kernel(kernels, name), Range(items), {xa, ya, za, ca, oa, sa, items});
    queue.copyToHost(oa);
    queue.copyToHost(sa);
    queue.sync();
    tests = scalarOrder(out, kRelationalTests, lanes);
    selected = scalarOrder(sel, 2, lanes);
  }

  template <class T>
  void check(const char *scalarKernel, const char *vectorKernel) {
    using I = IntOf<T>;
    double biggest = sizeof(T) == 2   ? 65504.0
                     : sizeof(T) == 4 ? 0x1.fffffep127
                                      : 0x1.fffffffffffffp1023;
    double smallest = sizeof(T) == 2 ? 0x1p-24 : sizeof(T) == 4 ? 0x1p-149 : 0x1p-1074;
    double normal = sizeof(T) == 2 ? 0x1p-14 : sizeof(T) == 4 ? 0x1p-126 : 0x1p-1022;
    const double specials[] = {0,
                               -0.0,
                               INFINITY,
                               -INFINITY,
                               NAN,
                               -NAN,
                               1,
                               -1,
                               0.5,
                               -2.5,
                               biggest,
                               -biggest,
                               smallest,
                               -smallest,
                               normal,
                               -normal,
                               normal - smallest};
    std::vector<T> x, y, z;
    std::vector<I> c;
    for (double a : specials)
      for (double b : specials) {
        x.push_back(static_cast<T>(a));
        y.push_back(static_cast<T>(b));
        z.push_back(fromBits<T>(BitsOf<T>(bitsOf(static_cast<T>(a)) * 2654435761u + x.size())));
        c.push_back(I(x.size() % 3 == 0 ? -1 : x.size() % 3 == 1 ? 0 : 5));
      }
    while (x.size() % 4 != 0) {
      x.push_back(T(1));
      y.push_back(T(2));
      z.push_back(T(3));
      c.push_back(0);
    }
    for (int vector = 0; vector < 2; ++vector) {
      size_t lanes = vector ? 4 : 1;
      std::vector<I> tests;
      std::vector<T> selected;
      run(vector ? vectorKernel : scalarKernel, x, y, z, c, lanes, tests, selected);
      int wrong = 0;
      for (size_t i = 0; i < x.size(); ++i) {
        for (size_t t = 0; t < kRelationalTests; ++t) {
          I want = reference(t, x[i], y[i]) ? I(vector ? -1 : 1) : I(0);
          I got = tests[i * kRelationalTests + t];
          if (got != want && ++wrong <= 6)
            ADD_FAILURE() << kRelationalNames[t] << "(" << show(double(x[i])) << ", "
                          << show(double(y[i])) << ") on " << (vector ? "a vector of 4" : "scalars")
                          << " on " << GetParam().name << ": " << int64_t(got) << ", expected "
                          << int64_t(want);
        }
        BitsOf<T> bx = bitsOf(x[i]), by = bitsOf(y[i]), bz = bitsOf(z[i]);
        T bitselected = fromBits<T>(BitsOf<T>((bx & ~bz) | (by & bz)));
        // Scalar select takes b where c is not 0; a vector's where c's most significant bit is.
        bool takeB = vector ? c[i] < 0 : c[i] != 0;
        T chosen = takeB ? y[i] : x[i];
        if (bitsOf(selected[i * 2]) != bitsOf(bitselected) && ++wrong <= 6)
          ADD_FAILURE() << "bitselect on " << (vector ? "a vector of 4" : "scalars") << " (x "
                        << show(double(x[i])) << "): bits " << std::hex
                        << uint64_t(bitsOf(selected[i * 2])) << ", expected "
                        << uint64_t(bitsOf(bitselected));
        if (bitsOf(selected[i * 2 + 1]) != bitsOf(chosen) && ++wrong <= 6)
          ADD_FAILURE() << "select on " << (vector ? "a vector of 4" : "scalars") << " (c "
                        << int64_t(c[i]) << "): " << show(double(selected[i * 2 + 1]))
                        << ", expected " << show(double(chosen));
      }
      EXPECT_EQ(wrong, 0) << (vector ? "vectors" : "scalars") << " on " << GetParam().name;
    }
  }
};

TEST_P(RelationalValuesTest, Half) {
  check<_Float16>("relational_half", "relational_half4");
}
TEST_P(RelationalValuesTest, Float) {
  check<float>("relational_float", "relational_float4");
}
TEST_P(RelationalValuesTest, Double) {
  check<double>("relational_double", "relational_double4");
}

XPURT_INSTANTIATE_CONFORMANCE(RelationalValuesTest);

}  // namespace
}  // namespace xpurt::test
