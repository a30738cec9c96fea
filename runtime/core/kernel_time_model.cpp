#include "kernel_time_model.hpp"

#include "backend.hpp"
#include "disk_cache.hpp"
#include "log.hpp"

#include <unistd.h>

#include <fstream>
#include <sstream>

namespace xpurt::core {

namespace fs = std::filesystem;

// The file's first line, then one line per entry: kernel key, device key (tabs and newlines
// in it replaced), nanoseconds per work-item, samples; tab-separated.
static constexpr const char *kHeader = "xpurt kernel times 1";
// Later samples weigh this much: the mean follows a device whose speed changes (clocks, load)
// yet one slow launch does not undo many.
static constexpr double kWeight = 0.25;

KernelTimeModel::KernelTimeModel(std::optional<fs::path> file) : file_(std::move(file)) {
  load();
}

KernelTimeModel &KernelTimeModel::instance() {
  static KernelTimeModel model([]() -> std::optional<fs::path> {
    std::optional<fs::path> dir = disk_cache::directory();
    if (!dir) return std::nullopt;
    return *dir / "kernel-times.txt";
  }());
  return model;
}

std::string KernelTimeModel::kernelKey(const Kernel &kernel) {
  const Module &module = kernel.module();
  if (module.spirv().empty()) return {};
  std::string material = module.options().buildFlags;
  for (auto [id, value] : module.options().specConstants)
    material += fmt::format(" {}={}", id, value);
  disk_cache::Key key = disk_cache::makeKey(module.spirv(), material + "\n" + kernel.name());
  return fmt::format("{:016x}{:016x}:{}", key.hash[0], key.hash[1], kernel.name());
}

std::string KernelTimeModel::deviceKey(Device &device) {
  std::string key = fmt::format("{}/{}", device.backend().name(), device.info().name);
  for (char &c : key)
    if (c == '\t' || c == '\n') c = ' ';
  return key;
}

std::optional<double> KernelTimeModel::nsPerItem(const std::string &kernel,
                                                 const std::string &device) const {
  std::lock_guard lock(mutex_);
  auto it = entries_.find({kernel, device});
  if (it == entries_.end()) return std::nullopt;
  return it->second.nsPerItem;
}

void KernelTimeModel::record(const std::string &kernel, const std::string &device, uint64_t items,
                             uint64_t ns) {
  if (kernel.empty() || items == 0 || ns == 0) return;
  double perItem = static_cast<double>(ns) / static_cast<double>(items);
  std::lock_guard lock(mutex_);
  Entry &e = entries_[{kernel, device}];
  e.nsPerItem = e.samples ? (1 - kWeight) * e.nsPerItem + kWeight * perItem : perItem;
  ++e.samples;
  dirty_ = true;
}

void KernelTimeModel::load() {
  if (!file_) return;
  std::ifstream in(*file_);
  if (!in) return;  // nothing learned yet
  std::string line;
  if (!std::getline(in, line) || line != kHeader) {
    log().warn("{}: not a kernel time model of this xpurt; it is rewritten as the runtime learns",
               file_->string());
    return;
  }
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string kernel, device, perItem, samples;
    if (!std::getline(fields, kernel, '\t') || !std::getline(fields, device, '\t') ||
        !std::getline(fields, perItem, '\t') || !std::getline(fields, samples))
      continue;
    try {
      Entry e{std::stod(perItem), std::stoull(samples)};
      if (e.nsPerItem > 0 && e.samples > 0) entries_[{kernel, device}] = e;
    } catch (const std::exception &) {
      // A damaged line is dropped; the kernel is measured again.
    }
  }
}

void KernelTimeModel::save() {
  std::lock_guard lock(mutex_);
  if (!file_ || !dirty_) return;
  // Written aside and renamed, so that a reader never sees half a file.
  fs::path part = *file_;
  part += fmt::format(".{}-{}.part", getpid(), static_cast<const void *>(this));
  {
    std::ofstream out(part, std::ios::trunc);
    out << kHeader << '\n';
    for (const auto &[key, e] : entries_)
      out << key.first << '\t' << key.second << '\t' << fmt::format("{:.6g}", e.nsPerItem) << '\t'
          << e.samples << '\n';
    if (!out) {
      log().warn("could not write the kernel time model to {}", part.string());
      return;
    }
  }
  std::error_code ec;
  fs::rename(part, *file_, ec);
  if (ec) {
    log().warn("could not write the kernel time model to {}: {}", file_->string(), ec.message());
    fs::remove(part, ec);
    return;
  }
  dirty_ = false;
}

}  // namespace xpurt::core
