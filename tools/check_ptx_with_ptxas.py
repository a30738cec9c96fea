#!/usr/bin/env python3
"""Compiles every SPIR-V module of the project to PTX, as the CUDA backend would, and checks the
PTX with NVIDIA's assembler (ptxas) for a Hopper GPU.

Each module listed in the build's spirv_modules.txt goes through xpurt-compile --target ptx
(xpurt's SPIR-V intake, the NVPTX lowering, libclc's NVPTX builtins, LLVM's NVPTX back end);
the PTX is then assembled by ptxas. A module that xpurt-compile refuses, or whose PTX ptxas
refuses, fails the check, named with the message. Kernels that xpurt-compile leaves out (they
call builtins the CUDA device lacks) are listed, not failures: the backend reports them when
they are asked for.

  check_ptx_with_ptxas.py --modules build/spirv_modules.txt --compile build/bin/xpurt-compile \\
      --ptxas .deps/cuda/bin/ptxas --work build/ptx [--arch sm_90] [--jobs 2] [--xpurt-only]

--xpurt-only compiles to PTX and stops there: for sanitizer builds, whose PTX is the plain
build's, which that build's run of this check hands to ptxas.
"""
import argparse
import concurrent.futures
import os
import subprocess
import sys
import time


def check_one(compiler, ptxas, arch, module, work, xpurt_only):
    name = os.path.splitext(os.path.basename(module))[0]
    ptx = os.path.join(work, f"{name}.ptx")
    start = time.monotonic()
    run = subprocess.run([compiler, "--target", "ptx", "-o", ptx, module],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         errors="replace")
    unavailable = [l for l in run.stdout.splitlines() if l.startswith("unavailable ")]
    if run.returncode != 0:
        what = "crashed" if run.returncode < 0 else f"exit {run.returncode}"
        return name, module, f"xpurt-compile {what}: {run.stderr.strip() or '(no message)'}", \
            unavailable, time.monotonic() - start
    if xpurt_only:
        return name, module, None, unavailable, time.monotonic() - start
    run = subprocess.run([ptxas, f"-arch={arch}", "-o", os.devnull, ptx],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         errors="replace")
    error = None
    if run.returncode != 0:
        error = f"ptxas -arch={arch} {ptx}: exit {run.returncode}: " \
                f"{run.stdout.strip() or '(no message)'}"
    return name, module, error, unavailable, time.monotonic() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--modules", required=True)
    parser.add_argument("--compile", required=True, help="xpurt-compile")
    parser.add_argument("--ptxas", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--xpurt-only", action="store_true",
                        help="compile to PTX without assembling it")
    args = parser.parse_args()
    if not args.xpurt_only and not os.access(args.ptxas, os.X_OK):
        print(f"ptxas not found at {args.ptxas} (tools/install-deps.sh fetches it): nothing checked")
        return 77  # ctest's skip code
    modules = sorted({l.strip() for l in open(args.modules) if l.strip()})
    os.makedirs(args.work, exist_ok=True)
    failures, left_out = [], 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = pool.map(
            lambda m: check_one(args.compile, args.ptxas, args.arch, m, args.work,
                                args.xpurt_only), modules)
        for name, module, error, unavailable, seconds in results:
            verdict = "FAILED" if error else "compiled" if args.xpurt_only else "assembled"
            if unavailable and not error:
                verdict += f" ({len(unavailable)} kernels left out)"
            print(f"{name:34} {seconds:6.2f} s  {verdict}", flush=True)
            for line in unavailable:
                print(f"    {line[:300]}")
            left_out += len(unavailable)
            if error:
                failures.append(f"{module}: {error}")
    if failures:
        print(f"\nModules that do not compile to PTX that ptxas ({args.arch}) accepts:")
        for f in failures:
            print("  " + f)
        return 1
    done = "compiled to PTX, not assembled" if args.xpurt_only else \
        f"compiled to PTX and assembled for {args.arch}"
    print(f"\n{len(modules)} modules {done}; "
          f"{left_out} kernels left out for builtins the CUDA device lacks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
