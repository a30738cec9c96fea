// Where each node of a graph runs when the application leaves it open: a list scheduler of the
// HEFT family, as StarPU's dmda is. Nodes are taken in an order where predecessors come first;
// each goes to the device where it would finish earliest, counting when that device is free,
// when its predecessors finish (a little later across devices, for the wait), the copies of the
// COHERENT data it reads that are not up to date there, and its estimated run time. A node
// not yet measured on some device it may run on goes to one of those (least busy first), so
// that every device gets measured: the estimates come from launches (kernel_time_model.hpp).
// Self-contained, so it is tested apart from devices.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace xpurt::core::placement {

// A node cannot run on that device.
inline constexpr double kNever = std::numeric_limits<double>::infinity();
// Its run time there is not known yet.
inline constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();

// A range of one COHERENT view (data) that a node reads and/or writes.
struct Use {
  uint32_t data;
  uint64_t begin;
  uint64_t end;
  bool read;
  bool write;
};

struct Node {
  std::vector<uint32_t> preds;  // earlier nodes it runs after
  std::vector<double> runNs;    // per device: estimated run time, kNever or kUnknown
  std::vector<Use> uses;
};

// Where a range of data is up to date before the graph runs: a bit per memory place.
struct Valid {
  uint32_t data;
  uint64_t begin;
  uint64_t end;
  uint64_t places;
};

struct Problem {
  uint32_t devices = 0;
  // The memory place of each device: devices whose memory is host memory share one.
  std::vector<uint32_t> placeOfDevice;
  uint32_t places = 0;  // at most 64
  // nsPerByte[from * places + to]: copying a byte between places.
  std::vector<double> nsPerByte;
  // Bytes of data that no entry names are up to date at place 0 only.
  std::vector<Valid> initial;
  std::vector<Node> nodes;
};

// The cost of waiting for a node of another device (a cross-device event), so that nodes
// that cost nothing (callbacks, empty nodes) stay beside their predecessors.
inline constexpr double kCrossDeviceWaitNs = 5000;
// What an unmeasured node is taken to cost while it is being measured.
inline constexpr double kUnmeasuredNs = 1000;

// The device of each node. Every node must have some device it can run on.
std::vector<uint32_t> place(const Problem &problem);

}  // namespace xpurt::core::placement
