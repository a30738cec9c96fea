// oneTBB arenas shared by the CPU devices a process creates one after another.
//
// Every arena a process has ever created slows oneTBB's workers down in finding the one that
// has work: a worker visits idle arenas too, yielding in each, and while other processes keep
// the cores busy every yield costs a time slice. With oneTBB 2021.8 on two busy cores, after a
// hundred arenas had each run a few tasks, a task enqueued into a new arena beside one running
// task waited more than ten seconds for the worker. A device that is released hands its arena
// back here, and the next device with as many threads takes it: a process creates only as many
// arenas as it has devices alive at once.
#pragma once

#include <oneapi/tbb/task_arena.h>

#include <memory>

namespace xpurt::cpu {

struct ArenaReturn {
  int threads = 0;  // what the arena was taken for
  void operator()(tbb::task_arena *arena) const noexcept;
};
using PooledArena = std::unique_ptr<tbb::task_arena, ArenaReturn>;

// An initialized arena of `threads` threads (one slot kept for the thread that enters it), idle:
// a released device's, or a new one.
PooledArena takeArena(int threads);

}  // namespace xpurt::cpu
