// Copies between two CUDA devices (docs/PERFORMANCE.md):
//   peer_copy/xpurt/MiB       xpurtCopyMemoryView from a DEVICE view of the first CUDA device to
//                             one of the second, on a queue of the first, and its sync
//   peer_copy/raw_driver/MiB  cuMemcpyPeerAsync between cuMemAlloc'd buffers, peer access
//                             enabled both ways, and cuStreamSynchronize
// Bytes per second are the copy's size over the time of a copy and its wait. They skip, saying
// why, without two CUDA devices.
#include "cuda_bench_setup.hpp"

#include <vector>

namespace xpurt_bench_cuda {
namespace {

// The first two CUDA devices' indices among xpurt's GPUs, if there are two.
std::optional<std::pair<uint32_t, uint32_t>> twoCudaDevices() {
  std::vector<uint32_t> found;
  for (uint32_t i = 0, n = xpurt::Device::count(xpurt::DeviceType::GPU); i < n; ++i)
    if (std::string(xpurt::Device::info(xpurt::DeviceType::GPU, i).backend) == "cuda")
      found.push_back(i);
  if (found.size() < 2) return std::nullopt;
  return std::pair{found[0], found[1]};
}

void BM_PeerCopy_Xpurt(benchmark::State &state) {
  auto pair = twoCudaDevices();
  if (!pair) {
    state.SkipWithError("fewer than two CUDA devices");
    return;
  }
  size_t bytes = static_cast<size_t>(state.range(0)) << 20;
  xpurt::Device a(xpurt::DeviceType::GPU, pair->first), b(xpurt::DeviceType::GPU, pair->second);
  xpurt::Array<char> from(a, bytes), to(b, bytes);
  xpurt::TaskQueue queue(a);
  queue.fill(from, char{1});
  queue.copyMemoryView(to, from);  // the first copy of the pair enables peer access
  queue.sync();
  for (auto _ : state) {
    queue.copyMemoryView(to, from);
    queue.sync();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_PeerCopy_Xpurt)->Name("peer_copy/xpurt")->Arg(64)->Arg(1024)->UseRealTime();

void BM_PeerCopy_RawDriver(benchmark::State &state) {
  if (!twoCudaDevices()) {
    state.SkipWithError("fewer than two CUDA devices");
    return;
  }
  const Driver &d = setup().driver;
  auto memAlloc = d.get<std::remove_pointer_t<decltype(&cuMemAlloc)>>("cuMemAlloc_v2");
  auto memFree = d.get<std::remove_pointer_t<decltype(&cuMemFree)>>("cuMemFree_v2");
  auto enablePeer =
      d.get<std::remove_pointer_t<decltype(&cuCtxEnablePeerAccess)>>("cuCtxEnablePeerAccess");
  auto copyPeer = d.get<std::remove_pointer_t<decltype(&cuMemcpyPeerAsync)>>("cuMemcpyPeerAsync");
  if (!memAlloc || !memFree || !enablePeer || !copyPeer) {
    state.SkipWithError("the driver lacks a call the baseline makes");
    return;
  }
  size_t bytes = static_cast<size_t>(state.range(0)) << 20;
  CUdevice devA = 0, devB = 0;
  d.deviceGet(&devA, 0);
  d.deviceGet(&devB, 1);
  CUcontext ctxA = nullptr, ctxB = nullptr;
  d.retain(&ctxA, devA);
  d.retain(&ctxB, devB);
  CUdeviceptr from = 0, to = 0;
  d.setCurrent(ctxB);
  enablePeer(ctxA, 0);
  memAlloc(&to, bytes);
  d.setCurrent(ctxA);
  enablePeer(ctxB, 0);
  memAlloc(&from, bytes);
  CUstream stream = nullptr;
  d.streamCreate(&stream, CU_STREAM_NON_BLOCKING);
  copyPeer(to, ctxB, from, ctxA, bytes, stream);
  d.streamSync(stream);
  for (auto _ : state) {
    copyPeer(to, ctxB, from, ctxA, bytes, stream);
    d.streamSync(stream);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  memFree(from);
  d.setCurrent(ctxB);
  memFree(to);
  d.setCurrent(ctxA);
}
BENCHMARK(BM_PeerCopy_RawDriver)->Name("peer_copy/raw_driver")->Arg(64)->Arg(1024)->UseRealTime();

}  // namespace
}  // namespace xpurt_bench_cuda
