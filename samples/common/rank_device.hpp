// The device an MPI rank of samples/distributed (and of xpurt_bench_mpi_stencil) runs on.
#pragma once

#include <mpi.h>
#include <xpurt/xpurt.hpp>

#include <cstdint>
#include <cstdlib>
#include <string>

namespace samples {

// GPU (local rank mod GPUs) of the rank's node, or the CPU where there is no GPU or
// XPURT_DISTRIBUTED_CPU=1.
inline xpurt::Device deviceOfRank() {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int local = 0;
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  const char *cpu = std::getenv("XPURT_DISTRIBUTED_CPU");
  uint32_t gpus = xpurt::Device::count(xpurt::DeviceType::GPU);
  if (gpus && !(cpu && std::string(cpu) == "1"))
    return xpurt::Device(xpurt::DeviceType::GPU, static_cast<uint32_t>(local) % gpus);
  return xpurt::Device(xpurt::DeviceType::CPU, 0);
}

}  // namespace samples
