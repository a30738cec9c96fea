// A rank that dies makes every other rank fail with an error naming it, within the context's
// timeout, instead of hanging. The last rank kills itself (SIGKILL: no chance to say goodbye)
// once the ranks have run one graph together; the others then launch a graph that needs its
// items, and must see xpurtMpiWait fail, naming that rank. Each survivor prints one line that
// tests/mpi/rank_failure.cmake checks, and ends without MPI_Finalize (a dead rank can make it
// wait forever).
//
//   mpiexec -np N xpurt_mpi_rank_failure TIMEOUT_MS
#include <xpurt/xpurt_mpi.h>

#include <unistd.h>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  uint32_t timeoutMs = argc > 1 ? static_cast<uint32_t>(std::atoi(argv[1])) : 5000;
  XpurtDevice device = nullptr;
  XpurtMpiContext context = nullptr;
  XpurtMpiOptions options{sizeof options, timeoutMs};
  if (xpurtGetDevice(XPURT_DEVICE_TYPE_CPU, 0, &device) != XPURT_SUCCESS ||
      xpurtMpiNewContext(MPI_COMM_WORLD, device, &options, &context) != XPURT_SUCCESS) {
    std::fprintf(stderr, "setup failed: %s\n", xpurtMpiLastErrorMessage());
    return 1;
  }
  int rank = 0, ranks = 1;
  xpurtMpiContextGetRank(context, &rank);
  xpurtMpiContextGetSize(context, &ranks);
  const size_t n = 1 << 16;
  XpurtMpiBuffer buffer = nullptr;
  XpurtMpiGraph gather = nullptr;
  std::vector<float> all(n);
  xpurtMpiNewBuffer(context, n, sizeof(float), nullptr, &buffer);
  xpurtMpiNewGraph(context, &gather);
  xpurtMpiGraphAddRead(gather, buffer, 0, n, all.data(), XPURT_MPI_ALL_RANKS);
  // Once together: every rank is up and has heard from every other.
  xpurtMpiGraphLaunch(gather);
  if (xpurtMpiWait(context) != XPURT_SUCCESS) {
    std::fprintf(stderr, "rank %d: the first graph failed: %s\n", rank, xpurtMpiLastErrorMessage());
    return 1;
  }
  int victim = ranks - 1;
  if (rank == victim) raise(SIGKILL);
  // Items the victim holds must move again after every rank writes its own.
  XpurtMpiGraph again = nullptr;
  std::vector<float> mine(n, static_cast<float>(rank));
  xpurtMpiNewGraph(context, &again);
  xpurtMpiGraphAddWrite(again, buffer, 0, n, mine.data(), victim);
  xpurtMpiGraphAddRead(again, buffer, 0, n, all.data(), XPURT_MPI_ALL_RANKS);
  auto start = std::chrono::steady_clock::now();
  XpurtResult launched = xpurtMpiGraphLaunch(again);
  XpurtResult waited = launched == XPURT_SUCCESS ? xpurtMpiWait(context) : launched;
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::string message = xpurtMpiLastErrorMessage();
  bool named = message.find("rank " + std::to_string(victim)) != std::string::npos;
  std::printf("rank %d: %s after %.1f s%s: %s\n", rank,
              waited == XPURT_SUCCESS ? "no error" : "failed", seconds,
              named ? " naming the dead rank" : "", message.c_str());
  std::fflush(stdout);
  _exit(waited != XPURT_SUCCESS && named ? 3 : 1);
}
