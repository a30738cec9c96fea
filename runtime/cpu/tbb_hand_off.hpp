// ThreadSanitizer cannot see oneTBB's synchronisation: Debian's libtbb is not instrumented, so
// the ordering that task_arena::execute, parallel_for and task_group::wait really give (tasks
// see what their caller wrote before handing them over; the caller sees what the tasks wrote
// once they are joined) is invisible to it, and every access ordered only that way would be
// reported as a race. A TbbHandOff states those two edges to TSan in sanitizer builds and is
// nothing otherwise, so TSan checks xpurt's own synchronisation instead.
//
// One more edge needs care: oneTBB's inline templates, compiled into xpurt, end a parallel_for
// with a worker's atomic decrements of the wait node on the waiting thread's stack, after the
// task bodies (and their release) have returned; libtbb orders them before parallel_for
// returns. Unstated, the thread's next use of that stack was reported as racing with the
// worker. handOver() therefore starts the work in a frame of its own, and joined() acquires
// what atomics left on the stack below its caller.
#pragma once

#include <utility>

#if defined(__SANITIZE_THREAD__)
#define XPURT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define XPURT_TSAN 1
#endif
#endif

#ifdef XPURT_TSAN
#include <pthread.h>

#include <algorithm>
#include <cstdint>

extern "C" void __tsan_acquire(void *addr);
extern "C" void __tsan_release(void *addr);
#endif

namespace xpurt::cpu {

class TbbHandOff {
 public:
  // Hands work to oneTBB and waits for it: send(), then `start` (a parallel_for or an arena
  // entry, its bodies wrapped with wrap()) in a frame of its own, then joined().
  template <class Start>
  void handOver(Start &&start) {
    send();
    inOwnFrame(start);
    joined();
  }

  // Before handing work to oneTBB: what this thread did so far happens before the tasks.
  void send() { release(&toTasks_); }
  // A task body that acquires what send() released and releases what it did for joined().
  template <class Body>
  auto wrap(Body &body) {
    return [this, &body](auto &&...args) -> decltype(auto) {
      acquire(&toTasks_);
      Finished finished{this};
      return body(std::forward<decltype(args)>(args)...);
    };
  }
  // After the tasks have been joined: what they did happens before what follows.
  void joined() {
    acquire(&fromTasks_);
    acquireDeadStack();
  }

  // A release and an acquire on a token both sides know without reading memory the other
  // wrote (a member of a graph's executable, after its tasks are joined).
  static void sendTask(void *token) { release(static_cast<char *>(token)); }
  static void receiveTask(void *token) { acquire(static_cast<char *>(token)); }

  // What a task handed over alone (task_arena::enqueue, task_group::run) captures, stated to
  // TSan as handed over with it. Its constructor runs where oneTBB keeps the task, after the
  // value is written, and releases on its own address; the task calls received() before it
  // reads anything it captured, which acquires on the same address — computed from the task's
  // own, so nothing is read before the acquire. (A token read from the captures would be.)
  template <class T>
  class Captures {
   public:
    explicit Captures(T value) : value_(std::move(value)) { release(token()); }
    Captures(const Captures &o) : value_(o.value_) { release(token()); }
    Captures(Captures &&o) noexcept : value_(std::move(o.value_)) { release(token()); }
    Captures &operator=(const Captures &) = delete;
    const T &received() const {
      acquire(token());
      return value_;
    }

   private:
    char *token() const { return reinterpret_cast<char *>(const_cast<Captures *>(this)); }
    T value_;
  };

 private:
  struct Finished {
    TbbHandOff *handOff;
    ~Finished() { release(&handOff->fromTasks_); }
  };
#ifdef XPURT_TSAN
  // Not inlined: the wait nodes oneTBB's inline code keeps on the stack end up below the caller,
  // where joined() looks for them.
  template <class Start>
  __attribute__((noinline)) static void inOwnFrame(Start &start) {
    start();
  }
  static void acquire(char *token) { __tsan_acquire(token); }
  static void release(char *token) { __tsan_release(token); }
  // Not inlined: its frame starts where the joined frames started, at the caller's stack
  // pointer (sanitizer builds keep frame pointers). The wait nodes lie within the 8 KiB below,
  // 4-byte aligned; where nothing synchronised, __tsan_acquire finds nothing and costs a lookup.
  __attribute__((noinline)) static void acquireDeadStack() {
    thread_local uintptr_t stackEnd = [] {
      pthread_attr_t attr;
      void *low = nullptr;
      size_t size = 0;
      if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        pthread_attr_getstack(&attr, &low, &size);
        pthread_attr_destroy(&attr);
      }
      return reinterpret_cast<uintptr_t>(low);
    }();
    uintptr_t top = reinterpret_cast<uintptr_t>(__builtin_frame_address(0)) + 2 * sizeof(void *);
    uintptr_t bottom = std::max(stackEnd, top - std::min<uintptr_t>(top, 8 * 1024));
    for (uintptr_t p = bottom & ~uintptr_t{3}; p < top; p += 4)
      __tsan_acquire(reinterpret_cast<void *>(p));
  }
#else
  template <class Start>
  static void inOwnFrame(Start &start) {
    start();
  }
  static void acquire(char *) {}
  static void release(char *) {}
  static void acquireDeadStack() {}
#endif
  char toTasks_ = 0, fromTasks_ = 0;
};

}  // namespace xpurt::cpu
