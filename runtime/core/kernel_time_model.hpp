// What kernels cost on each kind of device, learned from the launches of graphs placed across
// devices (graph_across_devices.hpp), as StarPU's history-based performance models are: for a
// kernel (its module's SPIR-V, build options and name) on a device (its backend and name, so
// that two cards of one model share what was learned), the time per work-item of its launches
// so far, a mean in which later launches weigh more. Kept beside the JIT cache (disk_cache::directory) as kernel-times.txt, so a
// later process places work by what an earlier one measured.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

namespace xpurt::core {

class Device;
class Kernel;

class KernelTimeModel {
 public:
  // The process's model, read from the cache folder on first use.
  static KernelTimeModel &instance();

  // The keys of a kernel (empty for a native one, which runs on its own device only) and of a
  // device.
  static std::string kernelKey(const Kernel &kernel);
  static std::string deviceKey(Device &device);

  // Nanoseconds per work-item, if a launch of the kernel on such a device was measured.
  std::optional<double> nsPerItem(const std::string &kernel, const std::string &device) const;
  // A measured launch of `items` work-items that took `ns`.
  void record(const std::string &kernel, const std::string &device, uint64_t items, uint64_t ns);
  // Writes what changed since the last save (best effort: failures are logged).
  void save();

 private:
  // Kept in `file` (nothing: in memory only).
  explicit KernelTimeModel(std::optional<std::filesystem::path> file);

  struct Entry {
    double nsPerItem = 0;
    uint64_t samples = 0;
  };
  void load();

  std::optional<std::filesystem::path> file_;
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, Entry> entries_;
  bool dirty_ = false;
};

}  // namespace xpurt::core
