// What SYCL modules from icpx hold besides OpenCL C's builtins: LLVM intrinsics the translator
// leaves as imported functions (saturating arithmetic), and SPV_KHR_uniform_group_instructions
// (the reductions and scans of SYCL's group algorithms). Each result against a host reference.
#include "device_param.hpp"

#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

namespace xpurt::test {
namespace {

class IcpxTest : public DeviceTest {};

template <class T>
std::vector<T> edges() {
  using L = std::numeric_limits<T>;
  return {0,
          1,
          2,
          L::max(),
          T(L::max() - 1),
          L::min(),
          T(L::min() + 1),
          T(-1),
          T(-2),
          T(L::max() / 2),
          T(L::min() / 2),
          T(77)};
}

// The four results of sat_<kind>: sadd and ssub on T as signed, uadd and usub as unsigned.
template <class T>
void expectSaturating(const T *a, const T *b, const T *out, size_t lanes, size_t items,
                      const char *kind) {
  using S = std::make_signed_t<T>;
  using U = std::make_unsigned_t<T>;
  using Wide = std::conditional_t<(sizeof(T) < 8), int64_t, __int128>;
  auto clamp = [](Wide v, Wide lo, Wide hi) { return v < lo ? lo : v > hi ? hi : v; };
  constexpr Wide smin = std::numeric_limits<S>::min(), smax = std::numeric_limits<S>::max();
  constexpr Wide umax = std::numeric_limits<U>::max();
  for (size_t i = 0; i < items; ++i)
    for (size_t l = 0; l < lanes; ++l) {
      size_t in = i * lanes + l;
      Wide sa = S(a[in]), sb = S(b[in]), ua = U(a[in]), ub = U(b[in]);
      Wide expected[4] = {clamp(sa + sb, smin, smax), clamp(sa - sb, smin, smax),
                          clamp(ua + ub, 0, umax), clamp(ua - ub, 0, umax)};
      const char *names[4] = {"sadd", "ssub", "uadd", "usub"};
      for (size_t n = 0; n < 4; ++n) {
        T got = out[(4 * i + n) * lanes + l];
        Wide value = n < 2 ? Wide(S(got)) : Wide(U(got));
        EXPECT_EQ(int64_t(value), int64_t(expected[n]))
            << "llvm." << names[n] << ".sat." << kind << " of " << int64_t(sa) << " and "
            << int64_t(sb) << " (element " << l << ")";
      }
    }
}

template <class T>
void checkSaturating(Device &device, TaskQueue &queue, Module &module, const char *kind,
                     size_t lanes) {
  std::vector<T> e = edges<T>(), a, b;
  for (T x : e)
    for (T y : e) {
      a.push_back(x);
      b.push_back(y);
    }
  while (a.size() % lanes) {
    a.push_back(3);
    b.push_back(5);
  }
  size_t items = a.size() / lanes;
  std::vector<T> out(a.size() * 4, T(0x5a));
  Array<T> av(device, a), bv(device, b), ov(device, out);
  queue.copyToDevice(av);
  queue.copyToDevice(bv);
  queue.launch(Kernel(module, std::string("sat_") + kind), Range(uint32_t(items)), {av, bv, ov});
  queue.copyToHost(ov);
  queue.sync();
  expectSaturating(a.data(), b.data(), out.data(), lanes, items, kind);
}

TEST_P(IcpxTest, SaturatingIntrinsicsTheModuleImportsAreDefined) {
  Module module(device, "xpurt_test_intrinsic_imports");
  checkSaturating<int8_t>(device, queue, module, "i8", 1);
  checkSaturating<int16_t>(device, queue, module, "i16", 1);
  checkSaturating<int32_t>(device, queue, module, "i32", 1);
  checkSaturating<int64_t>(device, queue, module, "i64", 1);
  checkSaturating<int8_t>(device, queue, module, "v4i8", 4);
  checkSaturating<int16_t>(device, queue, module, "v2i16", 2);
}

// tests/kernels/uniform_group.spvasm: work-groups of 64, sub-groups of 16.
TEST_P(IcpxTest, UniformGroupInstructionsReduceAndScan) {
  constexpr size_t kGroup = 64, kSub = 16, kItems = 4 * kGroup;
  std::mt19937 random(32);
  std::vector<int32_t> in(kItems);
  std::vector<float> fin(kItems);
  for (size_t i = 0; i < kItems; ++i) {
    in[i] = int32_t(random() % 2000) - 3;
    fin[i] = float(1 << (random() % 3)) / 2;  // 0.5, 1 or 2: every product is exact
  }
  for (size_t i = kGroup; i < 2 * kGroup; ++i) in[i] = 0;                      // a group all false
  for (size_t i = 2 * kGroup; i < 2 * kGroup + kSub; ++i) in[i] = int32_t(i);  // a sub-group > 0
  std::vector<int32_t> out(kItems * 8, -7);
  std::vector<float> fout(kItems, -7);
  Array<int32_t> iv(device, in), ov(device, out);
  Array<float> fv(device, fin), fov(device, fout);
  Module module(device, "xpurt_test_uniform_group");
  queue.copyToDevice(iv);
  queue.copyToDevice(fv);
  queue.launch(Kernel(module, "uniform_group_ops"), Range(kItems).local(kGroup), {iv, fv, ov, fov});
  queue.copyToHost(ov);
  queue.copyToHost(fov);
  queue.sync();
  for (size_t i = 0; i < kItems; ++i) {
    size_t g = i / kGroup * kGroup, s = i / kSub * kSub;
    uint32_t wgXor = 0, sgAndScan = ~0u, wgOrExclusive = 0, sgMul = 1, wgMulExclusive = 1;
    int anyNonZero = 0, allPositive = 1, oddParity = 0;
    float product = 1;
    for (size_t j = g; j < g + kGroup; ++j) {
      wgXor ^= uint32_t(in[j]);
      anyNonZero |= in[j] != 0;
      product *= fin[j];
      if (j < i) wgOrExclusive |= uint32_t(in[j]), wgMulExclusive *= uint32_t(in[j]);
      if (j <= i) oddParity ^= in[j] & 1;
    }
    for (size_t j = s; j < s + kSub; ++j) {
      sgMul *= uint32_t(in[j]);
      allPositive &= in[j] > 0;
      if (j <= i) sgAndScan &= uint32_t(in[j]);
    }
    const int32_t *o = &out[i * 8];
    EXPECT_EQ(uint32_t(o[0]), wgXor) << "work-group xor reduce, work-item " << i;
    EXPECT_EQ(uint32_t(o[1]), sgAndScan) << "sub-group and inclusive scan, work-item " << i;
    EXPECT_EQ(uint32_t(o[2]), wgOrExclusive) << "work-group or exclusive scan, work-item " << i;
    EXPECT_EQ(uint32_t(o[3]), sgMul) << "sub-group mul reduce, work-item " << i;
    EXPECT_EQ(o[4], anyNonZero) << "work-group logical or reduce, work-item " << i;
    EXPECT_EQ(o[5], allPositive) << "sub-group logical and reduce, work-item " << i;
    EXPECT_EQ(o[6], oddParity) << "work-group logical xor inclusive scan, work-item " << i;
    EXPECT_EQ(uint32_t(o[7]), wgMulExclusive) << "work-group mul exclusive scan, work-item " << i;
    EXPECT_EQ(fout[i], product) << "work-group fmul reduce, work-item " << i;
  }
}

XPURT_INSTANTIATE_CONFORMANCE(IcpxTest);

}  // namespace
}  // namespace xpurt::test
