// xpurt-corpus: loads every SPIR-V module of a directory on each device and creates each of
// its kernels, as a program would; reports the share of modules that load whole, the load
// rate, and the reasons of those that do not, grouped (tools/icpx-corpus/fetch.py makes such
// a directory from real icpx-compiled SYCL libraries).
//   xpurt-corpus DIR [BACKEND...]     BACKEND: cpu, level_zero, cuda (default: every device)
#include <xpurt/xpurt.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <string>
#include <vector>

namespace {

// The names of a module's kernel entry points (OpEntryPoint Kernel).
std::vector<std::string> kernelNames(const std::vector<uint32_t> &words) {
  std::vector<std::string> names;
  for (size_t at = 5; at < words.size();) {
    uint32_t count = words[at] >> 16, opcode = words[at] & 0xffff;
    if (count == 0 || at + count > words.size()) break;
    if (opcode == 15 && count >= 4 && words[at + 1] == 6) {
      const char *text = reinterpret_cast<const char *>(&words[at + 3]);
      names.emplace_back(text, strnlen(text, (count - 3) * 4));
    }
    if (opcode == 54) break;  // OpFunction: the entry points are behind
    at += count;
  }
  return names;
}

std::vector<uint32_t> readWords(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<uint32_t> words(bytes.size() / 4);
  std::copy_n(bytes.data(), words.size() * 4, reinterpret_cast<char *>(words.data()));
  return words;
}

// An error message without what names one module or kernel, so that like failures group.
std::string reason(const std::string &message) {
  static const std::regex quoted("'[^']*'"), number("[0-9]+");
  return std::regex_replace(std::regex_replace(message, quoted, "'…'"), number, "N");
}

struct Result {
  int modules = 0, whole = 0, kernels = 0;
  double seconds = 0;
  std::map<std::string, std::pair<int, std::string>> failures;  // reason -> count, example
};

Result run(const xpurt::Device &device, const std::vector<std::filesystem::path> &files) {
  Result r;
  for (const auto &file : files) {
    std::vector<uint32_t> words = readWords(file);
    auto start = std::chrono::steady_clock::now();
    std::string failure;
    try {
      auto module = xpurt::Module::fromMemory(device, words.data(), words.size() * 4);
      for (const std::string &name : kernelNames(words)) {
        xpurt::Kernel kernel(module, name);
        ++r.kernels;
      }
    } catch (const xpurt::Error &e) {
      failure = e.what();
    }
    r.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ++r.modules;
    if (failure.empty()) {
      ++r.whole;
    } else {
      auto &[count, example] = r.failures[reason(failure)];
      if (count++ == 0) example = file.filename().string() + ": " + failure;
    }
  }
  return r;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIR [cpu|level_zero|cuda ...]\n", argv[0]);
    return 2;
  }
  std::vector<std::filesystem::path> files;
  for (const auto &entry : std::filesystem::directory_iterator(argv[1]))
    if (entry.path().extension() == ".spv") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::vector<std::string> wanted(argv + 2, argv + argc);
  int failed = 0;
  for (xpurt::DeviceType type : {xpurt::DeviceType::GPU, xpurt::DeviceType::CPU})
    for (uint32_t i = 0, n = xpurt::Device::count(type); i < n; ++i) {
      xpurt::DeviceInfo info = xpurt::Device::info(type, i);
      std::string backend = info.backend;
      if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), backend) == wanted.end())
        continue;
      Result r = run(xpurt::Device(type, i), files);
      std::printf(
          "%s:%u (%s): %d of %d modules load with every kernel (%.1f %%), %d kernels, "
          "%.2f modules/s\n",
          info.backend, i, info.name, r.whole, r.modules,
          r.modules ? 100.0 * r.whole / r.modules : 0.0, r.kernels,
          r.seconds > 0 ? r.modules / r.seconds : 0.0);
      for (const auto &[why, entry] : r.failures)
        std::printf("  %d: %s\n     e.g. %s\n", entry.first, why.c_str(), entry.second.c_str());
      failed += r.modules - r.whole;
    }
  return failed ? 1 : 0;
}
