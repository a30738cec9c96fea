// Compiling SPIR-V in a JIT worker process. LLVM 15 and LLVMSPIRVLib as Debian builds them
// keep their assertions, and the translator calls exit() on some header fields: a malformed
// module could end the host process. So translation and code generation run in a short-lived
// child (xpurt-jit-worker, beside libxpurt in its "xpurt" folder); its death by a signal, an
// exit or a time limit becomes XPURT_ERROR_INVALID_MODULE, and this process only receives the
// compiled entry, checked like a disk cache entry.
#pragma once

#include "core/backend.hpp"
#include "jit_cache.hpp"

#include <xpurt/xpurt.h>

#include <cstdint>
#include <string>
#include <vector>

namespace xpurt::cpu {

// compileSpirvForCpu, in a worker process unless XPURT_JIT_ISOLATION=off (or the worker
// program is missing: then in this process, with a warning).
CacheEntry compileInWorker(const std::vector<uint32_t> &words, const std::string &name,
                           const core::ModuleOptions &options);

}  // namespace xpurt::cpu

// The worker program's whole body (tools' main calls it): reads one request on stdin, writes
// one answer on stdout. Exported for that program only; not part of xpurt's API.
extern "C" XPURT_API int xpurt_internal_jit_worker_main(int argc, char **argv);
