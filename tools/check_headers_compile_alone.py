#!/usr/bin/env python3
"""Compiles every header of the project on its own, as the first and only include of a file.

A header that needs another's includes to compile fails here, whatever the files that include
it happen to include before it (in a unity build's batch, many files' includes come before a
file's own). Each header is compiled with the flags of a source file of its folder, taken from
the build tree's compile_commands.json (CMAKE_EXPORT_COMPILE_COMMANDS, on in every tree of this
project); unity batches are followed to the sources they include.

  check_headers_compile_alone.py --build build --source . [--jobs 2]
"""
import argparse
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys

HEADER_FOLDERS = ("include", "runtime")
HEADER_SUFFIXES = (".h", ".hpp")
UNITY_INCLUDE = re.compile(r'#include\s+"([^"]+)"')


def sources_and_commands(build):
    """Each real source file of the tree, with the compile command that builds it."""
    entries = json.load(open(os.path.join(build, "compile_commands.json")))
    commands = {}
    for entry in entries:
        source = os.path.realpath(os.path.join(entry["directory"], entry["file"]))
        arguments = entry.get("arguments") or shlex.split(entry["command"])
        command = (entry["directory"], arguments, source)
        # A source built by several targets (the arena pool's test compiles its own copy) keeps
        # the first target's flags: the library's, configured before the tests.
        if "/Unity/unity_" in source:
            for included in UNITY_INCLUDE.findall(open(source).read()):
                commands.setdefault(os.path.realpath(included), command)
        else:
            commands.setdefault(source, command)
    return commands


def syntax_only(arguments, compiled, header):
    """The command with its source, object and dependency file replaced by the header alone."""
    out, skip = [], 0
    for argument in arguments:
        if skip:
            skip -= 1
            continue
        if argument in ("-o", "-MF", "-MT", "-MQ"):
            skip = 1
            continue
        if argument in ("-c", "-MD", "-MMD") or os.path.realpath(argument) == compiled:
            continue
        out.append(argument)
    # C headers too are compiled as C++: the sources that include them here are C++ (the C
    # API's header is compiled as C by the tests written in C).
    return out + ["-fsyntax-only", "-x", "c++", header]


def command_for(header, commands):
    """The command of a C++ source in the header's folder (the same name first), else of the
    nearest folder above it that has one."""
    folder = os.path.dirname(header)
    stem = os.path.splitext(header)[0]
    while True:
        same = [s for s in commands if os.path.dirname(s) == folder and s.endswith(".cpp")]
        if same:
            named = [s for s in same if os.path.splitext(s)[0] == stem]
            return commands[(named or sorted(same))[0]]
        if folder == os.path.dirname(folder):
            return None
        folder = os.path.dirname(folder)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", required=True, help="a configured build tree")
    parser.add_argument("--source", required=True, help="the project's source tree")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    source = os.path.realpath(args.source)
    if not os.path.exists(os.path.join(args.build, "compile_commands.json")):
        sys.exit(f"{args.build}/compile_commands.json is missing: configure the tree first")
    commands = sources_and_commands(args.build)
    headers = sorted(
        os.path.join(root, name)
        for folder in HEADER_FOLDERS
        for root, _, names in os.walk(os.path.join(source, folder))
        for name in names if name.endswith(HEADER_SUFFIXES))
    opencl_folders = {f for f in {os.path.dirname(h) for h in headers}
                      if any(n.endswith(".cl") for n in os.listdir(f))}
    jobs, unchecked = [], []
    for header in headers:
        if os.path.dirname(header) in opencl_folders:
            continue  # OpenCL C, built with its .cl files, not a C++ header
        if os.path.basename(header).startswith("xpurt_mpi."):
            # The MPI layer's headers take that layer's flags (MPI's include folders); a tree
            # built without the layer does not check it.
            command = command_for(os.path.join(source, "runtime", "mpi", "_.hpp"), commands)
            if command is None or "runtime/mpi" not in command[2]:
                continue
        elif os.path.relpath(header, source).startswith("include" + os.sep):
            # Public headers take the flags of the runtime's API layer, which includes them.
            command = command_for(os.path.join(source, "runtime", "api", "_.hpp"), commands)
        else:
            command = command_for(header, commands)
        if command is None:
            unchecked.append(header)
            continue
        directory, arguments, compiled = command
        jobs.append((header, directory, syntax_only(arguments, compiled, header)))

    def run(job):
        header, directory, arguments = job
        done = subprocess.run(arguments, cwd=directory, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, errors="replace")
        return header, done.returncode, done.stdout

    failures = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for header, code, text in pool.map(run, jobs):
            if code != 0:
                failures.append((header, text))
    for header in unchecked:
        print(f"{os.path.relpath(header, source)}: no C++ source of its folder or a folder above "
              "it is built in this tree, so its flags are unknown")
    for header, text in failures:
        print(f"{os.path.relpath(header, source)} does not compile alone:\n{text}")
    if unchecked:
        return 1
    if failures:
        print(f"{len(failures)} of {len(jobs)} headers need includes they do not make: include "
              "what each uses in the header itself")
        return 1
    print(f"{len(jobs)} headers compile alone")
    return 0


if __name__ == "__main__":
    sys.exit(main())
