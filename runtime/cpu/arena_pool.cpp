#include "arena_pool.hpp"

#include <map>
#include <mutex>
#include <vector>

namespace xpurt::cpu {
namespace {

struct ArenaPool {
  std::mutex mutex;
  std::map<int, std::vector<tbb::task_arena *>> idle;  // by threads
};

ArenaPool &pool() {
  // Never destroyed: a device may be released from static destructors of the application, and
  // oneTBB's own state may be gone by then.
  static auto *p = new ArenaPool;
  return *p;
}

}  // namespace

void ArenaReturn::operator()(tbb::task_arena *arena) const noexcept {
  ArenaPool &p = pool();
  std::lock_guard lock(p.mutex);
  try {
    p.idle[threads].push_back(arena);
  } catch (...) {
    delete arena;  // out of memory: this arena goes, as an unpooled one would
  }
}

PooledArena takeArena(int threads) {
  ArenaPool &p = pool();
  {
    std::lock_guard lock(p.mutex);
    auto it = p.idle.find(threads);
    if (it != p.idle.end() && !it->second.empty()) {
      tbb::task_arena *arena = it->second.back();
      it->second.pop_back();
      return PooledArena(arena, ArenaReturn{threads});
    }
  }
  auto arena = std::make_unique<tbb::task_arena>(threads);
  arena->initialize();
  return PooledArena(arena.release(), ArenaReturn{threads});
}

}  // namespace xpurt::cpu
