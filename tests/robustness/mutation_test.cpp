// Loads thousands of randomly mutated copies of the project's SPIR-V and native modules on the
// CPU device, in batches, each batch in a child process, and fails if any child dies: a module
// that xpurt cannot load must give an error, never end the process (nor hang it).
//
//   xpurt_mutation_test <mutants> <seed> <folder with .spv and .so files> [<artifact folder>]
//
// With MUTANTS=first[:last] in the environment, those mutants load in the test's own process.
// With MUTATE_NATIVE=1, native modules (.so) are mutated too, in the parts the loader reads
// before mapping. Not every such mutant can be refused: a finaliser or initialiser moved to
// another address inside the code still passes (a native module's code is trusted, and
// where its functions start is not recorded for the loader), and crashes when it runs; with
// seed 1 one of 385 native mutants does that, so CI mutates SPIR-V only.
// A mutant that kills its child is written to the artifact folder; run the test again with
// the same seed to get the same mutants.
#include <xpurt/xpurt.h>

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

// Larger modules spend the run in the translator on a few inputs.
constexpr uintmax_t kMaxModuleBytes = 64 * 1024;
constexpr size_t kBatch = 200;
constexpr int kBatchSeconds = 600;

struct Mutant {
  std::string bytes;
  std::string how;
};

struct Original {
  std::string bytes;
  bool native;  // an ELF shared object, else SPIR-V
};

// Mutations a damaged file or a hostile author makes, on whole words of a SPIR-V module.
Mutant mutateSpirv(const std::string &original, std::mt19937_64 &rng) {
  Mutant m;
  std::vector<uint32_t> w(original.size() / 4);
  std::memcpy(w.data(), original.data(), w.size() * 4);
  uint32_t bound = w.size() > 3 ? w[3] : 1;
  const uint32_t interesting[] = {0,          1,          2,           0xFFFF,     0x10000,
                                  0x7FFFFFFF, 0x80000000, 0xFFFFFFFF,  bound - 1,  bound,
                                  bound + 1,  0xFFFFFFFE, 0x00010000u, 0x0001FFFF, 64};
  int count = 1 + static_cast<int>(rng() % 4);
  for (int i = 0; i < count && w.size() > 1; ++i) {
    // Mostly past the header: header damage is refused early and teaches little.
    size_t from = (rng() % 8 == 0 || w.size() <= 6) ? 0 : 5;
    size_t at = from + rng() % (w.size() - from);
    switch (rng() % 10) {
      case 0:
        w[at] ^= uint32_t{1} << (rng() % 32);
        m.how += "flip;";
        break;
      case 1:
        w[at] = static_cast<uint32_t>(rng());
        m.how += "random;";
        break;
      case 2:
        w[at] = interesting[rng() % std::size(interesting)];
        m.how += "interesting;";
        break;
      case 3:
        w.resize(std::max<size_t>(1, at));
        m.how += "truncate;";
        break;
      case 4:
        w.erase(w.begin() + static_cast<ptrdiff_t>(at));
        m.how += "delete;";
        break;
      case 5: {
        size_t len = 1 + rng() % std::min<size_t>(16, w.size() - at);
        std::vector<uint32_t> copy(w.begin() + static_cast<ptrdiff_t>(at),
                                   w.begin() + static_cast<ptrdiff_t>(at + len));
        size_t to = from + rng() % (w.size() - from);
        w.insert(w.begin() + static_cast<ptrdiff_t>(to), copy.begin(), copy.end());
        m.how += "duplicate;";
        break;
      }
      case 6:
        std::swap(w[at], w[from + rng() % (w.size() - from)]);
        m.how += "swap;";
        break;
      case 7:
        w[at] += static_cast<uint32_t>(static_cast<int>(rng() % 9) - 4);
        m.how += "nudge;";
        break;
      case 8:  // another opcode, same length
        w[at] = (w[at] & 0xFFFF0000u) | static_cast<uint32_t>(rng() % 400);
        m.how += "opcode;";
        break;
      default:  // another word count, same opcode
        w[at] = (w[at] & 0xFFFFu) | (static_cast<uint32_t>(rng() % 24) << 16);
        m.how += "length;";
        break;
    }
  }
  m.bytes.assign(reinterpret_cast<const char *>(w.data()), w.size() * 4);
  return m;
}

// A native module: damage where the loader reads before it maps anything (the ELF header,
// the program headers, the dynamic table), or a truncated file. The rest of the file is
// machine code and relocations, which a native module is trusted with (xpurt runs its code).
Mutant mutateElf(const std::string &original, std::mt19937_64 &rng) {
  Mutant m{original, ""};
  std::string &b = m.bytes;
  uint64_t phoff = 0;
  uint16_t phentsize = 0, phnum = 0;
  std::memcpy(&phoff, b.data() + 32, 8);
  std::memcpy(&phentsize, b.data() + 54, 2);
  std::memcpy(&phnum, b.data() + 56, 2);
  // The headers, and the dynamic segment's bytes in the file.
  std::vector<std::pair<size_t, size_t>> regions = {{0, phoff + size_t{phentsize} * phnum}};
  for (uint16_t i = 0; i < phnum; ++i) {
    const char *ph = b.data() + phoff + size_t{i} * phentsize;
    uint32_t type;
    uint64_t offset, size;
    std::memcpy(&type, ph, 4);
    std::memcpy(&offset, ph + 8, 8);
    std::memcpy(&size, ph + 32, 8);
    if (type == 2 /*PT_DYNAMIC*/) regions.push_back({offset, offset + size});
  }
  int count = 1 + static_cast<int>(rng() % 3);
  for (int i = 0; i < count; ++i) {
    auto [from, to] = regions[rng() % regions.size()];
    to = std::min(to, b.size());
    if (to <= from) continue;
    size_t at = from + rng() % (to - from);
    switch (rng() % 4) {
      case 0:
        b[at] = static_cast<char>(b[at] ^ (1 << (rng() % 8)));
        m.how += "flip;";
        break;
      case 1:
        b[at] = static_cast<char>(rng());
        m.how += "random;";
        break;
      case 2: {  // a field of 2, 4 or 8 bytes set to a boundary value
        const uint64_t values[] = {0,          1,        0x7FFFFFFF,  0xFFFFFFFF,
                                   UINT64_MAX, b.size(), b.size() + 1};
        uint64_t v = values[rng() % std::size(values)];
        size_t width = size_t{2} << (rng() % 3);
        std::memcpy(b.data() + at, &v, std::min(width, b.size() - at));
        m.how += "field;";
        break;
      }
      default:
        b.resize(rng() % b.size());
        m.how += "truncate;";
        return m;
    }
  }
  return m;
}

std::vector<Original> readModules(const fs::path &folder, bool withNative) {
  std::vector<fs::path> files;
  for (const auto &e : fs::directory_iterator(folder)) {
    bool spirv = e.path().extension() == ".spv";
    bool native = withNative && e.path().extension() == ".so";
    if ((spirv || native) && e.is_regular_file() && e.file_size() <= kMaxModuleBytes)
      files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());  // the same mutants for the same seed
  std::vector<Original> modules;
  for (const fs::path &f : files) {
    std::ifstream in(f, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    bool native = f.extension() == ".so";
    if (bytes.size() < (native ? 64u : 20u)) continue;
    modules.push_back({std::move(bytes), native});
  }
  return modules;
}

struct Progress {
  std::atomic<uint64_t> current;  // the mutant the child is loading
  std::atomic<uint64_t> loaded, refused;
};

// The child: loads mutants [begin, end), makes a kernel of every name it finds and links each
// module that loads (the linker runs in a JIT worker process too).
[[noreturn]] void loadBatch(const std::vector<Mutant> &mutants, size_t begin, size_t end,
                            Progress *progress) {
  XpurtDevice device = nullptr;
  if (xpurtGetDevice(XPURT_DEVICE_TYPE_CPU, 0, &device) != XPURT_SUCCESS) {
    std::fprintf(stderr, "no CPU device: %s\n", xpurtLastErrorMessage());
    _exit(3);
  }
  for (size_t i = begin; i < end; ++i) {
    progress->current = i;
    const Mutant &m = mutants[i];
    XpurtModule module = nullptr;
    XpurtResult r =
        xpurtLoadModuleFromMemory(device, m.bytes.data(), m.bytes.size(), nullptr, &module);
    if (r != XPURT_SUCCESS) {
      if (std::strlen(xpurtLastErrorMessage()) == 0) {
        std::fprintf(stderr, "mutant %zu: error %d without a message\n", i, r);
        _exit(4);
      }
      ++progress->refused;
      continue;
    }
    ++progress->loaded;
    for (const char *name : {"simple", "add", "scale", "copy", "reduce", "write_index"}) {
      XpurtKernel kernel = nullptr;
      if (xpurtNewKernel(module, name, &kernel) == XPURT_SUCCESS) xpurtRelease(kernel);
    }
    XpurtModule linked = nullptr;
    if (xpurtLinkModules(device, &module, 1, nullptr, &linked) == XPURT_SUCCESS)
      xpurtRelease(linked);
    else if (std::strlen(xpurtLastErrorMessage()) == 0) {
      std::fprintf(stderr, "mutant %zu: a link error without a message\n", i);
      _exit(4);
    }
    xpurtRelease(module);
  }
  xpurtRelease(device);
  std::exit(0);
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: %s <mutants> <seed> <folder with .spv and .so files> [artifacts]\n",
                 argv[0]);
    return 2;
  }
  size_t count = std::strtoull(argv[1], nullptr, 10);
  uint64_t seed = std::strtoull(argv[2], nullptr, 10);
  std::vector<Original> modules = readModules(argv[3], std::getenv("MUTATE_NATIVE") != nullptr);
  fs::path artifacts = argc > 4 ? fs::path(argv[4]) : fs::path(".");
  if (modules.empty()) {
    std::fprintf(stderr, "no .spv or .so modules of at most %ju bytes in %s\n", kMaxModuleBytes,
                 argv[3]);
    return 2;
  }
  std::mt19937_64 rng(seed);
  std::vector<Mutant> mutants;
  for (size_t i = 0; i < count; ++i) {
    const Original &o = modules[i % modules.size()];
    mutants.push_back(o.native ? mutateElf(o.bytes, rng) : mutateSpirv(o.bytes, rng));
  }

  // MUTANTS=first:last loads those mutants in this process, for a debugger.
  if (const char *only = std::getenv("MUTANTS")) {
    size_t first = std::strtoull(only, nullptr, 10), last = first;
    if (const char *colon = std::strchr(only, ':')) last = std::strtoull(colon + 1, nullptr, 10);
    Progress local{};
    loadBatch(mutants, first, std::min(count, last + 1), &local);
  }
  // Children do not write the disk cache, and a worker that loops is stopped soon.
  setenv("XPURT_CACHE_DIR", "off", 1);
  setenv("XPURT_JIT_TIMEOUT", "60", 1);
  setenv("XPURT_LOG_LEVEL", "off", 0);
  auto *progress = static_cast<Progress *>(
      mmap(nullptr, sizeof(Progress), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  if (progress == MAP_FAILED) return 2;
  new (progress) Progress{};
  auto start = std::chrono::steady_clock::now();
  size_t crashes = 0;
  for (size_t begin = 0; begin < count;) {
    size_t end = std::min(count, begin + kBatch);
    progress->current = begin;
    std::fflush(stdout);  // else the child would print what is buffered again
    pid_t pid = fork();
    if (pid < 0) return 2;
    if (pid == 0) {
      alarm(kBatchSeconds);  // a hang is reported as SIGALRM
      loadBatch(mutants, begin, end, progress);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      begin = end;
      continue;
    }
    size_t bad = progress->current;
    ++crashes;
    fs::path file = artifacts / ("mutant-" + std::to_string(seed) + "-" + std::to_string(bad));
    std::ofstream(file, std::ios::binary)
        .write(mutants[bad].bytes.data(), static_cast<std::streamsize>(mutants[bad].bytes.size()));
    if (WIFSIGNALED(status))
      std::printf("mutant %zu (%s) killed its process: signal %d (%s); written to %s\n", bad,
                  mutants[bad].how.c_str(), WTERMSIG(status), strsignal(WTERMSIG(status)),
                  file.c_str());
    else
      std::printf("mutant %zu (%s) ended its process with status %d; written to %s\n", bad,
                  mutants[bad].how.c_str(), WEXITSTATUS(status), file.c_str());
    begin = bad + 1;
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "%zu mutants of %zu modules (seed %ju): %ju loaded, %ju refused with an error, "
      "%zu crashed, in %.1f s\n",
      count, modules.size(), static_cast<uintmax_t>(seed),
      static_cast<uintmax_t>(progress->loaded.load()),
      static_cast<uintmax_t>(progress->refused.load()), crashes, seconds);
  return crashes == 0 ? 0 : 1;
}
