// xpurt_mpi's C++ API (include/xpurt/xpurt_mpi.hpp) on every device: the stencil of
// mpi_test.cpp written with it, and its errors as exceptions.
#include "mpi_test_support.hpp"

#include <xpurt/xpurt_mpi.hpp>

#include <numeric>

namespace xpurt::test {
namespace {

class MpiCppTest : public ::testing::TestWithParam<DeviceParam> {
 protected:
  Device device{GetParam().type, GetParam().index, GetParam().flags};
  Module module{device, "xpurt_test_mpi"};
};

// Two steps of the stencil a launch, then every row read on every rank, against the host.
TEST_P(MpiCppTest, StencilThroughTheCppApi) {
  const int width = 32, rows = 24;
  std::vector<float> start(width * rows);
  for (size_t i = 0; i < start.size(); ++i) start[i] = static_cast<float>((i * 7) % 11);
  mpi::Context context(MPI_COMM_WORLD, device);
  mpi::Buffer a(context, rows, width * sizeof(float), start.data());
  mpi::Buffer b(context, rows, width * sizeof(float));
  Kernel jacobi(module, "jacobi");
  std::vector<float> result(start.size());
  mpi::Graph g(context);
  g.launch(jacobi, Range(width, rows),
           {mpi::Arg::rows(a, Access::Read, 1), mpi::Arg::rows(b, Access::Write), width, rows})
      .launch(jacobi, Range(width, rows),
              {mpi::Arg::rows(b, Access::Read, 1), mpi::Arg::rows(a, Access::Write), width, rows})
      .read(a, 0, rows, result.data(), mpi::kAllRanks);
  g.launch();
  context.wait();
  std::vector<float> expected = start, next = start;
  for (int step = 0; step < 2; ++step) {
    for (int y = 0; y < rows; ++y)
      for (int x = 0; x < width; ++x) {
        size_t i = static_cast<size_t>(y) * width + x;
        next[i] =
            (x == 0 || x == width - 1 || y == 0 || y == rows - 1)
                ? expected[i]
                : (expected[i - 1] + expected[i + 1] + expected[i - width] + expected[i + width]) *
                      0.25f;
      }
    std::swap(expected, next);
  }
  EXPECT_EQ(result, expected) << "rank " << context.rank();
  EXPECT_EQ(a.owned(context.rank()).second, static_cast<size_t>(rows / context.size()));
  context.release();
  EXPECT_THROW(context.wait(), Error);
}

// Bad input throws xpurt::Error with the layer's message, and the context goes on.
TEST_P(MpiCppTest, ErrorsAreExceptions) {
  mpi::Context context(MPI_COMM_WORLD, device);
  mpi::Buffer x(context, 8, sizeof(float));
  mpi::Graph g(context);
  std::vector<float> v(8, -1.0f);
  try {
    g.read(x, 0, 9, v.data(), 0);
    ADD_FAILURE() << "a read past the buffer was accepted";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), XPURT_ERROR_OUT_OF_RANGE);
    EXPECT_NE(std::string(e.what()).find("not within the 8 items"), std::string::npos) << e.what();
  }
  Kernel scale(module, "scale_add");
  EXPECT_THROW(
      g.launch(scale, Range(8).offset(1), {mpi::Arg::rows(x, Access::ReadWrite), 1.0f, 1.0f}),
      Error);
  g.launch(scale, Range(8), {mpi::Arg::rows(x, Access::ReadWrite), 2.0f, 1.0f})
      .read(x, 0, 8, v.data(), 0);
  g.launch();
  context.wait();
  if (context.rank() == 0) {
    EXPECT_EQ(v, std::vector<float>(8, 1.0f));  // 0 * 2 + 1
  }
}

INSTANTIATE_TEST_SUITE_P(Devices, MpiCppTest, ::testing::ValuesIn(conformanceDevices()),
                         [](const auto &param) { return param.param.name; });

}  // namespace
}  // namespace xpurt::test
