// Compiling a module in a JIT worker process, for every backend that compiles through LLVM.
// LLVM 15 and LLVMSPIRVLib as Debian builds them keep their assertions, and the translator
// calls exit() on some header fields: a malformed module could end the host process. So
// translation and code generation run in a child (xpurt-jit-worker, beside libxpurt in its
// "xpurt" folder), kept for later modules while it compiles them (jit_worker_process.hpp); its
// death by a signal, an exit or a time limit becomes XPURT_ERROR_INVALID_MODULE, and this
// process only receives the backend's compiled module as bytes, which the backend checks as it
// checks a disk cache entry. The worker compiles with this process's XPURT_ settings of the
// moment, sent with each module.
#pragma once

#include "backend.hpp"
#include "error.hpp"

#include <xpurt/xpurt.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace xpurt::core {

// A backend's compiler: checked SPIR-V words to its compiled module, serialized (the payload
// of its disk cache entries). Throws an Error for what cannot be compiled.
using Compiler = std::string (*)(const std::vector<uint32_t> &words, const std::string &name,
                                 const ModuleOptions &options);

// Not a backend's compiler: SPIRV-Tools' linker, which trusts its input as LLVM does
// (spirv/module_linking.hpp). Its words are the modules to link, packed.
inline constexpr std::string_view kSpirvLinker = "spirv_link";

// The compiler of the backend of that name in this build, or null (runtime/api/backend_list.cpp).
Compiler findCompiler(std::string_view backend);

// What compileInWorker throws where the worker process died of a signal (a crash of LLVM's,
// or of the compiler's on a malformed module).
class WorkerCrashed : public Error {
 public:
  using Error::Error;
};

// Runs the compiler of `backend` in a worker process unless XPURT_JIT_ISOLATION=off (or the
// worker program is missing: then in this process, with a warning); returns its bytes.
std::string compileInWorker(std::string_view backend, const std::vector<uint32_t> &words,
                            const std::string &name, const ModuleOptions &options);

}  // namespace xpurt::core

// The worker program's whole body (its main calls it): reads requests on stdin and writes
// their answers on stdout until stdin ends. Exported for that program only; not part of xpurt's
// API.
extern "C" XPURT_API int xpurt_internal_jit_worker_main(int argc, char **argv);
