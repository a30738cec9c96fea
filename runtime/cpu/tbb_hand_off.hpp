// ThreadSanitizer cannot see oneTBB's synchronisation: Debian's libtbb is not instrumented, so
// the ordering that task_arena::execute, parallel_for and task_group::wait really give (tasks
// see what their caller wrote before handing them over; the caller sees what the tasks wrote
// once they are joined) is invisible to it, and every access ordered only that way would be
// reported as a race. A TbbHandOff states those two edges to TSan in sanitizer builds and is
// nothing otherwise, so TSan checks xpurt's own synchronisation instead.
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
extern "C" void __tsan_acquire(void *addr);
extern "C" void __tsan_release(void *addr);
#endif

namespace xpurt::cpu {

class TbbHandOff {
 public:
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
  void joined() { acquire(&fromTasks_); }

  // For a task handed over alone (task_arena::enqueue): the sender calls sendTask(t) before,
  // the task receiveTask(t) first, with the same token (the task's own data).
  static void sendTask(void *token) { release(static_cast<char *>(token)); }
  static void receiveTask(void *token) { acquire(static_cast<char *>(token)); }

 private:
  struct Finished {
    TbbHandOff *handOff;
    ~Finished() { release(&handOff->fromTasks_); }
  };
#ifdef XPURT_TSAN
  static void acquire(char *token) {
    __tsan_acquire(token);
  }
  static void release(char *token) {
    __tsan_release(token);
  }
#else
  static void acquire(char *) {}
  static void release(char *) {}
#endif
  char toTasks_ = 0, fromTasks_ = 0;
};

}  // namespace xpurt::cpu
