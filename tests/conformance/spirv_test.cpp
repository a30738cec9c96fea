// SPIR-V kernels (OpenCL C built at build time) through both launch styles.
#include "device_param.hpp"

#include <algorithm>
#include <array>
#include <cfenv>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>

namespace xpurt::test {
namespace {

class SpirvTest : public DeviceTest {
 protected:
  Module spirv{device, "xpurt_test_spirv"};
};

// Distance in units in the last place between a float result and a double reference.
double ulps(float got, double want) {
  if (std::isnan(want)) return std::isnan(got) ? 0 : 1e9;
  if (std::isinf(want)) return got == want ? 0 : 1e9;
  float w = static_cast<float>(want);
  // The spacing of floats around want; for 0 and denormals, the smallest denormal.
  double ulp = w == 0 || std::fpclassify(w) == FP_SUBNORMAL
                   ? std::numeric_limits<float>::denorm_min()
                   : std::ldexp(1.0, std::ilogb(w) - 23);
  return std::fabs(got - want) / ulp;
}

TEST_P(SpirvTest, Long16ByValueAndAcrossABarrier) {
  std::array<int64_t, 16> v;
  for (int k = 0; k < 16; ++k) v[k] = 1000 * (k + 1) - 7;
  constexpr size_t n = 64, local = 16;
  Array<int64_t, AllocType::Shared> out(device, n * 16);
  queue.launch(Kernel(spirv, "wide_values"), Range(n).local(local),
               {out, v, Arg::local(local * 8)});
  queue.sync();
  for (size_t i = 0; i < n; ++i)
    for (int k = 0; k < 16; ++k) {
      int64_t lid = static_cast<int64_t>(i % local);
      ASSERT_EQ(out.hostPtr()[i * 16 + k],
                v[k] * (lid + 1) + (static_cast<int64_t>(local) - 1 - lid))
          << "work-item " << i << ", component " << k;
    }
}

// The host's own conversion under a rounding mode (the FPU's mode applies to run-time values).
template <class From>
float hostConvert(From v, int mode) {
  volatile From in = v;
  std::fesetround(mode);
  volatile float r = static_cast<float>(in);
  std::fesetround(FE_TONEAREST);
  return r;
}

bool sameFloat(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof a) == 0;
}

TEST_P(SpirvTest, ConversionsToFloatHonourEveryRoundingMode) {
  std::vector<int32_t> ints = {0,          1,           -1,        16777217,
                               -16777217,  16777219,    INT32_MAX, INT32_MIN,
                               2147483520, -2147483520, 123456789, -987654321};
  std::vector<int64_t> longs = {0,
                                -1,
                                (1ll << 53) + 1,
                                -(1ll << 53) - 1,
                                INT64_MAX,
                                INT64_MIN,
                                (1ll << 24) + 1,
                                9007199254740993ll,
                                -1234567890123456789ll,
                                1ll << 62,
                                3,
                                987654321987654321ll};
  std::vector<double> doubles = {1.0 / 3,      -1.0 / 3, 1e39,      -1e39, 1e-46, -1e-46,
                                 std::nan(""), INFINITY, -INFINITY, 0.1,   -0.0,  3.4028235e38};
  const size_t n = ints.size();
  Array<int32_t> a(device, ints);
  Array<int64_t> l(device, longs);
  Array<double> d(device, doubles);
  Array<float, AllocType::Shared> out(device, n * 12), out4(device, n * 4);
  queue.copyToDevice(a);
  queue.copyToDevice(l);
  queue.copyToDevice(d);
  queue.launch(Kernel(spirv, "directed_conversions"), Range(n), {out, a, l, d});
  queue.launch(Kernel(spirv, "directed_conversions4"), Range(n / 4), {out4, a});
  queue.sync();
  const int modes[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};
  const char *names[4] = {"rte", "rtz", "rtn", "rtp"};
  for (size_t i = 0; i < n; ++i)
    for (int m = 0; m < 4; ++m) {
      SCOPED_TRACE(testing::Message() << "value " << i << ", " << names[m]);
      EXPECT_TRUE(sameFloat(out.hostPtr()[i * 12 + m], hostConvert(ints[i], modes[m])))
          << ints[i] << " -> " << out.hostPtr()[i * 12 + m];
      EXPECT_TRUE(sameFloat(out.hostPtr()[i * 12 + 4 + m], hostConvert(longs[i], modes[m])))
          << longs[i] << " -> " << out.hostPtr()[i * 12 + 4 + m];
      EXPECT_TRUE(sameFloat(out.hostPtr()[i * 12 + 8 + m], hostConvert(doubles[i], modes[m])))
          << doubles[i] << " -> " << out.hostPtr()[i * 12 + 8 + m];
      // convert_float4_*: element i % 4 of vector i / 4, in mode m.
      EXPECT_TRUE(
          sameFloat(out4.hostPtr()[(i / 4 * 4 + m) * 4 + i % 4], hostConvert(ints[i], modes[m])));
    }
}

TEST_P(SpirvTest, StructsByValueAndBoundsChecks) {
  constexpr int n = 1000;
  std::vector<float> x(n + 24), y(n + 24, -1.0f);
  std::iota(x.begin(), x.end(), 0.0f);
  Array<float> xs(device, x), ys(device, y);
  struct Affine {
    float scale, shift;
    int32_t count;
  } a{2.0f, 0.5f, n};
  queue.copyToDevice(xs);
  queue.copyToDevice(ys);
  queue.launch(Kernel(spirv, "affine"), Range(n + 24).local(32), {ys, xs, a});
  queue.copyToHost(ys);
  queue.sync();
  for (int i = 0; i < n + 24; ++i) ASSERT_EQ(y[i], i < n ? 2.0f * i + 0.5f : -1.0f) << i;
}

TEST_P(SpirvTest, VectorTypesAndRelationals) {
  constexpr int n = 64;
  Array<float, AllocType::Shared> in(device, 4 * n), out(device, 4 * n);
  Array<int32_t, AllocType::Shared> mask(device, 4 * n);
  for (int i = 0; i < 4 * n; ++i) in.hostPtr()[i] = static_cast<float>(i % 7) * 0.25f - 0.5f;
  queue.launch(Kernel(spirv, "vector_ops"), Range(n), {out, in, mask});
  queue.sync();
  for (int i = 0; i < n; ++i) {
    const float *v = in.hostPtr() + 4 * i;
    float dot = v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3];
    for (int k = 0; k < 4; ++k) {
      EXPECT_NEAR(out.hostPtr()[4 * i + k], v[k] * v[k] + (k + 1) + dot, 1e-5f);
      int want = (v[k] > 0.5f ? -1 : 0) + (v[k] < 0.0f ? 20 : 10);
      EXPECT_EQ(mask.hostPtr()[4 * i + k], want) << i << "," << k;
    }
  }
}

// A DEVICE view wrapping an application's std::vector, at an offset: OpenCL would let the
// compiler assume 32-byte alignment for a float8, the CPU device must not fault on less.
TEST_P(SpirvTest, WideVectorsInApplicationMemoryAtAnyAlignment) {
  constexpr size_t n = 64;
  for (size_t shift = 0; shift < 8; ++shift) {
    std::vector<float> in(8 * n + 8), out(8 * n + 8, 0.0f);
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i);
    MemoryView inView(device, in.data() + shift, 8 * n * sizeof(float));
    MemoryView outView(device, out.data() + shift, 8 * n * sizeof(float));
    queue.copyToDevice(inView);
    queue.launch(Kernel(spirv, "scale_float8"), Range(n), {inView, outView, 3.0f});
    queue.copyToHost(outView);
    queue.sync();
    for (size_t i = 0; i < 8 * n; ++i) ASSERT_EQ(out[shift + i], 3.0f * in[shift + i]) << shift;
  }
  std::vector<double> data(4 * n + 1, 0.5);
  MemoryView view(device, data.data() + 1, 4 * n * sizeof(double));  // 8 bytes past alignment
  queue.copyToDevice(view);
  queue.launch(Kernel(spirv, "add_double4"), Range(n), {view});
  queue.copyToHost(view);
  queue.sync();
  for (size_t i = 0; i < 4 * n; ++i) ASSERT_EQ(data[1 + i], 0.5 + double(i % 4 + 1)) << i;
}

TEST_P(SpirvTest, MathIsWithinOpenClUlpLimits) {
  constexpr int n = 4096;
  Array<float, AllocType::Shared> in(device, n), out(device, 8 * n);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-20.0f, 20.0f);
  for (int i = 0; i < n; ++i) in.hostPtr()[i] = i < 8 ? static_cast<float>(i) : dist(rng);
  queue.launch(Kernel(spirv, "math_functions"), Range(n), {out, in});
  queue.sync();
  // OpenCL C 2.0 single-precision limits: sin, cos 4; exp 3; log 3; sqrt 3; pow 16; tanh 5;
  // atan2 6.
  const double limit[8] = {4, 4, 3, 3, 3, 16, 5, 6};
  const char *names[8] = {"sin", "cos", "exp", "log", "sqrt", "pow", "tanh", "atan2"};
  double worst[8] = {};
  for (int i = 0; i < n; ++i) {
    double x = in.hostPtr()[i];
    double want[8] = {std::sin(x),
                      std::cos(x),
                      std::exp(x),
                      std::log(std::fabs(x) + 1.0f),
                      std::sqrt(std::fabs(x)),
                      std::pow(std::fabs(x), 1.5),
                      std::tanh(x),
                      std::atan2(x, 1.5)};
    for (int k = 0; k < 8; ++k)
      worst[k] = std::max(worst[k], ulps(out.hostPtr()[8 * i + k], want[k]));
  }
  for (int k = 0; k < 8; ++k) EXPECT_LE(worst[k], limit[k]) << names[k];
}

TEST_P(SpirvTest, IntegerFunctions) {
  constexpr int n = 256;
  Array<int32_t, AllocType::Shared> a(device, n), b(device, n), out(device, 8 * n);
  std::mt19937 rng(3);
  for (int i = 0; i < n; ++i) {
    a.hostPtr()[i] = static_cast<int32_t>(rng());
    b.hostPtr()[i] = i % 3 ? static_cast<int32_t>(rng()) : INT32_MAX;
  }
  queue.launch(Kernel(spirv, "integer_functions"), Range(n), {out, a, b});
  queue.sync();
  for (int i = 0; i < n; ++i) {
    int32_t x = a.hostPtr()[i], y = b.hostPtr()[i];
    const int32_t *o = out.hostPtr() + 8 * i;
    EXPECT_EQ(o[0], std::min(x, y));
    EXPECT_EQ(o[1], std::max(x, y));
    EXPECT_EQ(o[2], std::clamp(x, -5, 5));
    EXPECT_EQ(o[3], static_cast<int32_t>((int64_t{x} * y) >> 32));
    int64_t sum = int64_t{x} + y;
    EXPECT_EQ(o[4], static_cast<int32_t>(std::clamp<int64_t>(sum, INT32_MIN, INT32_MAX)));
    EXPECT_EQ(o[5], static_cast<int32_t>(std::abs(int64_t{x})));
    EXPECT_EQ(o[6], x == 0 ? 32 : __builtin_clz(static_cast<uint32_t>(x)));
    EXPECT_EQ(o[7], __builtin_popcount(static_cast<uint32_t>(x)));
  }
}

TEST_P(SpirvTest, ConstantMemoryAndManyPointerArguments) {
  constexpr int n = 100;
  Array<float, AllocType::Shared> out(device, n), lut(device, 4);
  for (int k = 0; k < 4; ++k) lut.hostPtr()[k] = 0.5f * k;
  queue.launch(Kernel(spirv, "constant_memory"), Range(n), {out, lut});
  queue.sync();
  for (int i = 0; i < n; ++i) EXPECT_EQ(out.hostPtr()[i], (i % 4 + 1) * 10.0f + 0.5f * (i % 4));

  std::vector<std::unique_ptr<Array<float, AllocType::Shared>>> in;
  for (int k = 0; k < 7; ++k) {
    in.push_back(std::make_unique<Array<float, AllocType::Shared>>(device, n));
    for (int i = 0; i < n; ++i) in[k]->hostPtr()[i] = static_cast<float>(i + k);
  }
  queue.launch(Kernel(spirv, "many_pointers"), Range(n),
               {out, *in[0], *in[1], *in[2], *in[3], *in[4], *in[5], *in[6]});
  queue.sync();
  for (int i = 0; i < n; ++i) {
    float want = 0;
    for (int k = 0; k < 7; ++k) want += (k + 1) * static_cast<float>(i + k);
    EXPECT_EQ(out.hostPtr()[i], want);
  }
}

TEST_P(SpirvTest, GlobalAtomicsCountEveryWorkItem) {
  Array<int32_t, AllocType::Shared> counter(device, 1), slots(device, 8);
  counter.hostPtr()[0] = 0;
  std::fill_n(slots.hostPtr(), 8, 0);
  queue.launch(Kernel(spirv, "global_atomics"), Range(10000).local(50), {counter, slots});
  queue.sync();
  EXPECT_EQ(counter.hostPtr()[0], 10000);
  for (int k = 0; k < 8; ++k) EXPECT_EQ(slots.hostPtr()[k], 1250);
}

TEST_P(SpirvTest, TaskLaunchesFollowIspcsTaskModel) {
  Array<int32_t, AllocType::Shared> out(device, 2 * 3 * 4 * 6);
  Array<int32_t *> params(device);
  *params.hostPtr() = out.devicePtr();
  queue.copyToDevice(params);
  queue.launch(Kernel(spirv, "task_ids"), params, 2, 3);
  queue.sync();
  for (int task = 0; task < 6; ++task)
    for (int program = 0; program < 4; ++program) {
      const int32_t *o = out.hostPtr() + (task * 4 + program) * 6;
      EXPECT_EQ(o[0], task);
      EXPECT_EQ(o[1], 6);
      EXPECT_EQ(o[2], program);
      EXPECT_EQ(o[3], 4);
      EXPECT_EQ(o[4], task % 2 + 10 * (task / 2));
      EXPECT_EQ(o[5], 2 + 10 * 3 + 100 * 1);
    }
}

TEST_P(SpirvTest, LaunchesThatDoNotMatchTheKernelAreRefused) {
  Kernel affine(spirv, "affine");
  Array<float> v(device, 16);
  auto expectError = [&](auto launch, const char *part) {
    try {
      launch();
      ADD_FAILURE() << "no error; expected one mentioning " << part;
    } catch (const Error &e) {
      EXPECT_EQ(e.code(), XPURT_ERROR_INVALID_ARGUMENT);
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
          << part << " not in: " << e.what();
    }
  };
  expectError([&] { queue.launch(affine, Range(16), {v, v}); }, "takes 3 arguments");
  expectError([&] { queue.launch(affine, Range(16), {v, v, 1.0f}); }, "a value of 12 bytes");
  expectError([&] { queue.launch(affine, Range(16), {v, 2.0f, v}); }, "argument 1");
  std::string most = "at most " + std::to_string(device.info().maxWorkGroupSize);
  expectError([&] { queue.launch(affine, Range(16).local(8192), {v, v, v}); }, most.c_str());
  expectError([&] { queue.launch(affine, v, 4); }, "single params pointer");
  expectError([&] { queue.launch(Kernel(spirv, "task_ids"), Range(16).local(8), {v}); },
              "reqd_work_group_size");
  EXPECT_THROW(Kernel(spirv, "no_such_kernel"), Error);
  queue.sync();
}

TEST_P(SpirvTest, BuiltinsWithGenericPointersAndFromEachFamily) {
  constexpr int n = 32;
  Array<float, AllocType::Shared> in(device, 4 * n), out(device, 4 * n + 8 * n);
  Array<int32_t, AllocType::Shared> ints(device, 2 * n), counter(device, 1);
  for (int i = 0; i < 4 * n; ++i) in.hostPtr()[i] = static_cast<float>(i % 9) * 0.5f - 2.0f;
  counter.hostPtr()[0] = 0;
  queue.launch(Kernel(spirv, "builtin_mix"), Range(n).local(8), {out, in, ints, counter});
  queue.sync();
  EXPECT_EQ(counter.hostPtr()[0], 2 * n);
  for (int i = 0; i < n; ++i) {
    const float *v = in.hostPtr() + 4 * i;
    for (int k = 0; k < 4; ++k) EXPECT_EQ(out.hostPtr()[4 * i + k], 2.0f * v[k]);
    const float *o = out.hostPtr() + 4 * n + 8 * i;
    int e = 0;
    float m = std::frexp(v[1] + 3.0f, &e);
    EXPECT_NEAR(o[0], std::sin(v[0]), 1e-6f);
    EXPECT_NEAR(o[1], std::cos(v[0]), 1e-6f);
    EXPECT_EQ(o[2], m);
    EXPECT_EQ(o[3], static_cast<float>(e));
    EXPECT_NEAR(o[4], std::sqrt(14.0f), 1e-5f);
    EXPECT_NEAR(o[5], 1.0f * v[1] - 2.0f * v[0], 1e-5f);
    float len = std::sqrt(v[0] * v[0] + v[1] * v[1] + 1.0f);
    EXPECT_NEAR(o[6], v[0] / len, 1e-5f);
    float t = std::clamp(std::fabs(v[2]) / 4.0f, 0.0f, 1.0f);
    EXPECT_NEAR(o[7], t * t * (3 - 2 * t), 1e-6f);
    double big = static_cast<double>(v[3] * 1e10f);
    int32_t sat = big >= 2147483647.0    ? INT32_MAX
                  : big <= -2147483648.0 ? INT32_MIN
                                         : static_cast<int32_t>(std::nearbyint(big));
    EXPECT_EQ(ints.hostPtr()[2 * i], sat) << v[3];
    EXPECT_EQ(ints.hostPtr()[2 * i + 1], static_cast<int32_t>(std::nearbyint(v[3] * 2.5f))) << v[3];
  }
}

TEST_P(SpirvTest, PrintfWritesToTheProcessOutput) {
  Array<float, AllocType::Shared> values(device, 2);
  values.hostPtr()[0] = 1.5f;
  values.hostPtr()[1] = -2.25f;
  Array<int32_t, AllocType::Shared> results(device, 2);
  results.hostPtr()[0] = results.hostPtr()[1] = 99;
  Kernel printValues(spirv, "print_values");  // before the capture, which a throw would leave
  testing::internal::CaptureStdout();
  queue.launch(printValues, Range(2).local(1), {values, results});
  queue.sync();
  std::fflush(stdout);
  std::string out = testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("item 0: 1.50 first\n"), std::string::npos) << out;
  EXPECT_NE(out.find("item 1: -2.25 next\n"), std::string::npos) << out;
  // OpenCL's printf returns 0 on success, not the number of characters.
  EXPECT_EQ(results.hostPtr()[0], 0);
  EXPECT_EQ(results.hostPtr()[1], 0);
}

TEST_P(SpirvTest, GenericPointersCastToTheSpaceTheyPointInto) {
  constexpr uint32_t kItems = 48;
  std::vector<int> g(kItems, 0), out(3 * kItems, -1);
  Array<int> gv(device, g), ov(device, out);
  queue.launch(Kernel(spirv, "address_space_casts"), Range(kItems).local(16),
               {gv, Arg::local(64 * sizeof(int)), ov});
  queue.copyToHost(ov);
  queue.sync();
  for (uint32_t i = 0; i < kItems; ++i)
    for (uint32_t space = 0; space < 3; ++space)
      EXPECT_EQ(out[3 * i + space], i % 3 == space ? 1 : 0)
          << "work-item " << i << ": a pointer to "
          << (const char *[]){"global", "local", "private"}[i % 3] << " memory cast to "
          << (const char *[]){"global", "local", "private"}[space];
}

TEST_P(SpirvTest, SpecializationConstantsThatDoNotFitAreRefused) {
  auto load = [&](uint32_t id, uint64_t value) {
    ModuleOptions options;
    options.specConstants = {{id, value}};
    return Module(device, "xpurt_test_spirv", options);
  };
  try {
    load(7, uint64_t{1} << 40);  // a 32-bit int
    ADD_FAILURE() << "a 41-bit value for a 32-bit constant was taken";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), XPURT_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("32-bit integer"), std::string::npos) << e.what();
  }
  try {
    load(99, 1);
    ADD_FAILURE() << "an id the module does not declare was taken";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), XPURT_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("no specialization constant with id 99 (its ids: 7)"),
              std::string::npos)
        << e.what();
  }
  // A negative value, sign-extended to 64 bits, fits.
  Module negative = load(7, static_cast<uint64_t>(int64_t{-2}));
  Array<int32_t, AllocType::Shared> out(device, 4);
  queue.launch(Kernel(negative, "spec_constant"), Range(4), {out});
  queue.sync();
  EXPECT_EQ(out.hostPtr()[3], -20);
}

TEST_P(SpirvTest, SpecializationConstantsComeFromModuleOptions) {
  auto run = [&](Module &m) {
    Array<int32_t, AllocType::Shared> out(device, 4);
    queue.launch(Kernel(m, "spec_constant"), Range(4), {out});
    queue.sync();
    return out.hostPtr()[3];
  };
  EXPECT_EQ(run(spirv), 30);  // the default
  ModuleOptions options;
  options.specConstants = {{7, 5}};
  Module specialised(device, "xpurt_test_spirv", options);
  EXPECT_EQ(run(specialised), 50);
  EXPECT_EQ(run(spirv), 30);  // a module of other options is another module
}

XPURT_INSTANTIATE_CONFORMANCE(SpirvTest);

}  // namespace
}  // namespace xpurt::test
