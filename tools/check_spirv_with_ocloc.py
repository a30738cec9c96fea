#!/usr/bin/env python3
"""Builds every SPIR-V module of the project with Intel's offline GPU compiler (ocloc, IGC).

Each module listed in the build's spirv_modules.txt is first written as xpurt's Level Zero
backend hands it to a driver (xpurt-lower-spirv: newer extensions' instructions in core
SPIR-V), then compiled for each target (an integrated GPU and a data-centre GPU) as a Level
Zero GPU driver would build it. A module
Intel's compiler refuses fails the check, unless the refusal is a known property of the
target or of this compiler version, listed in the refusals file with the message it gives
(or built in: a module declaring Float64 on a target without doubles). A listed refusal that
no longer happens fails too, so the list stays true.

  check_spirv_with_ocloc.py --modules build/spirv_modules.txt \\
      --refusals tests/level_zero/ocloc_refusals.txt --lower build/bin/xpurt-lower-spirv \\
      --work build/ocloc [--jobs 2] [--xpurt-only]

--xpurt-only lowers every module and stops there: for sanitizer builds, whose lowered modules
are the plain build's, which that build's run of this check hands to ocloc.
"""
import argparse
import concurrent.futures
import os
import shutil
import struct
import subprocess
import sys
import time

TARGETS = {"tgllp": "integrated, Xe-LP (no doubles)", "pvc": "data centre, Xe-HPC"}
NO_DOUBLES = {"tgllp"}
DOUBLE_MESSAGE = "Double type is not supported on this platform"


def capabilities(path):
    data = open(path, "rb").read()
    if len(data) < 20 or len(data) % 4:
        return set()
    order = "<" if struct.unpack_from("<I", data)[0] == 0x07230203 else ">"
    words = struct.unpack_from(order + "%dI" % (len(data) // 4), data)
    caps, at = set(), 5
    while at < len(words):
        count, opcode = words[at] >> 16, words[at] & 0xFFFF
        if count == 0:
            break
        if opcode == 17 and count >= 2:  # OpCapability
            caps.add(words[at + 1])
        at += count
    return caps


def read_refusals(path):
    """Lines: module target expectation | why. target may be *; expectation is 'silent'
    (no message), 'crash' (killed by a signal) or text the compiler prints."""
    refusals = {}
    for number, line in enumerate(open(path), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        rule, _, why = line.partition("|")
        parts = rule.split(None, 2)
        if len(parts) != 3 or not why.strip():
            sys.exit(f"{path}:{number}: expected 'module target expectation | why'")
        module, target, expectation = parts
        for t in TARGETS if target == "*" else [target]:
            refusals[(module, t)] = (expectation.strip(), why.strip())
    return refusals


def lower(tool, module, work):
    """The module as the backend hands it to a driver; None and the message if refused."""
    name = os.path.splitext(os.path.basename(module))[0]
    out = os.path.join(work, f"{name}.spv")
    run = subprocess.run([tool, module, out], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, errors="replace")
    return (out, run.stdout) if run.returncode == 0 else (None, run.stdout)


def compile_one(ocloc, module, target, work):
    name = os.path.splitext(os.path.basename(module))[0]
    out = os.path.join(work, f"{name}_{target}")
    start = time.monotonic()
    run = subprocess.run(
        [ocloc, "compile", "-spirv_input", "-file", module, "-device", target,
         "-output_no_suffix", "-output", out],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    text = "\n".join(l for l in run.stdout.splitlines()
                     if l.strip() and "skipping loading of FCL" not in l
                     and not l.startswith("Command was:") and not l.startswith("Build succeeded"))
    return name, target, run.returncode, text, time.monotonic() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--modules", required=True)
    parser.add_argument("--refusals", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--lower", required=True, help="xpurt-lower-spirv")
    parser.add_argument("--ocloc", default=shutil.which("ocloc"))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--xpurt-only", action="store_true",
                        help="lower every module without compiling it")
    args = parser.parse_args()
    if not args.ocloc and not args.xpurt_only:
        print("ocloc (Debian's intel-opencl-icd) is not installed: nothing checked")
        return 77  # ctest's skip code
    modules = sorted({l.strip() for l in open(args.modules) if l.strip()})
    refusals = read_refusals(args.refusals)
    os.makedirs(args.work, exist_ok=True)
    failures, seen, lowered = [], set(), []
    for m in modules:
        path, text = lower(args.lower, m, args.work)
        if path is None:
            failures.append(f"{m}: refused by xpurt's intake: {text.strip()}")
            continue
        if text.strip():
            print(text.strip())
        lowered.append(path)
    if args.xpurt_only:
        for f in failures:
            print("  " + f)
        print(f"\n{len(lowered)} of {len(modules)} modules lowered, not compiled")
        return 1 if failures else 0
    jobs = [(m, t) for m in lowered for t in TARGETS]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = pool.map(lambda j: compile_one(args.ocloc, j[0], j[1], args.work) + (j[0],), jobs)
        for name, target, rc, text, seconds, path in results:
            seen.add((name, target))
            expected = refusals.get((name, target))
            if rc == 0:
                verdict = "built"
                if expected:
                    verdict = "BUILT, BUT LISTED AS REFUSED"
                    failures.append(f"{name} for {target} builds now: remove it from {args.refusals}")
            else:
                if rc < 0:
                    what = "crash"
                elif not text:
                    what = "silent"
                else:
                    what = text
                if target in NO_DOUBLES and DOUBLE_MESSAGE in text and 10 in capabilities(path):
                    verdict = "refused as expected: uses doubles, which this GPU lacks"
                elif expected and (expected[0] == what or (expected[0] not in ("silent", "crash")
                                                          and expected[0] in text)):
                    verdict = f"refused as expected: {expected[1]}"
                else:
                    verdict = "REFUSED"
                    failures.append(f"{name} for {target} ({TARGETS[target]}): exit {rc}: "
                                    f"{text or '(no message)'}")
            print(f"{name:34} {target:6} {seconds:6.2f} s  {verdict}", flush=True)
    for (name, target) in refusals:
        if (name, target) not in seen:
            failures.append(f"{args.refusals} lists {name} for {target}, which the build lacks")
    if failures:
        print("\nIntel's offline compiler refuses what a GPU driver would refuse:")
        for f in failures:
            print("  " + f)
        return 1
    print(f"\n{len(modules)} modules checked for {', '.join(TARGETS)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
