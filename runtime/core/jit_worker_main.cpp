// xpurt-jit-worker: the process libxpurt starts to compile SPIR-V modules in (jit_worker.hpp).
#include <unistd.h>

extern "C" int xpurt_internal_jit_worker_main(int argc, char **argv);

int main(int argc, char **argv) {
  // Straight out once the answer is written: static destructors of LLVM and the leak checker
  // of sanitizer builds would only delay the process that waits for this one.
  _exit(xpurt_internal_jit_worker_main(argc, argv));
}
