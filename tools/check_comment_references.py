#!/usr/bin/env python3
"""Checks that every file and symbol that the project's comments and documents name exists.

A comment that points at a file or a function is read as a fact; once that file is renamed or
that function is removed, the comment sends its reader looking for something that is not there.
This check reads the comments of the sources that git tracks, or would (new files not ignored):
C, C++, OpenCL C, CUDA, assembly, LLVM IR, SPIR-V assembly, CMake, shell and Python, docstrings
included; and the Markdown documents. It reports:

  - a file name (runtime/core/task_queue.hpp, simple.cl, README.md) that names no such file,
    matched by path suffix (so that a name relative to the commenting file's folder matches), nor
    a file that the CMake code makes or uses (generated into the build tree: simple.spv,
    spirv_modules.txt), nor a placeholder (IN.spv); files external on purpose are listed below,
    each with the reason;
  - a qualified C++ name (core::Completions, TaskQueue::gatherWaits) of which some component
    occurs nowhere in the code, comments excluded; names in namespaces of other projects (std::,
    llvm::, ...) are not checked;
  - a C API name (xpurtLoadModule, XPURT_CACHE_DIR, XpurtDeviceInfo) that occurs nowhere in the
    code (string literals count: environment variables are read by name).

In Markdown, file names are checked anywhere but in URLs, symbols only inside backticks. Each
problem is printed as `path:line: names 'X', which does not exist`; the exit status is 1 if
there is any, 0 if none, 77 outside a git checkout (no list of the files to compare with).

  check_comment_references.py [--skip PATH]...

--skip leaves a file (a path relative to the repository root) out of the files whose comments
are checked; its code still counts as code.
"""
import argparse
import bisect
import os
import re
import subprocess
import sys

# Folders whose files are checked, and the other files checked beside them (with every
# CMakeLists.txt and docs/*.md).
SCANNED_FOLDERS = ("include/", "runtime/", "tests/", "bench/", "samples/", "tools/", "kernels/",
                   "cmake/")
SCANNED_FILES = ("README.md", ".ci/run")
# docs/history/ records the past: the names there were true when it was written.
UNSCANNED_FOLDERS = ("docs/history/",)

FILE_EXTENSIONS = "hpp|cpp|h|c|cl|cu|inc|py|sh|cmake|md|spv|spvasm|ll|S|map|supp|txt"
# A file name: path characters ending in one of the extensions, and not followed by more of a
# name (foo.h.in, foo.cl_file, foo.cpp-like).
FILE_NAME = re.compile(r"(?<![\w./-])([\w./-]*\w\.(?:%s))(?![\w-]|\.\w)" % FILE_EXTENSIONS)
# The same in CMake code, where ${variable} may stand for part of the name.
CMAKE_FILE_NAME = re.compile(r"(?<![\w./}-])((?:[\w./-]|\$\{\w+\})*(?:\w|\})\.(?:%s))(?![\w-]|\.\w)"
                             % FILE_EXTENSIONS)
SPIRV_MODULE = re.compile(r"\bxpurt_add_spirv_module\(\s*((?:\w|\$\{\w+\})+)")
URL = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s)>\]`'\"]+|\bwww\.[^\s)>\]`'\"]+")
# A qualified C++ name: identifiers joined by ::, perhaps after a leading :: (the global
# namespace), perhaps with a destructor's ~.
QUALIFIED_NAME = re.compile(r"(?<![\w:])((?:[A-Za-z_]\w*)?(?:::~?[A-Za-z_]\w*)+)")
# A C API name; followed by * (XPURT_QUEUE_FLAG_*), the start of the names of a family.
C_API_NAME = re.compile(r"(?<!\w)(xpurt[A-Z]\w*|XPURT_\w*[A-Z0-9]|Xpurt[A-Z]\w*)(_?\*)?")
IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
# A name in a usage line or synopsis that stands for any file: IN.spv, OUT.ll, NAME.spv, a.cl,
# out.inc (not a Markdown document's name: those are capitals too).
PLACEHOLDER_STEM = re.compile(r"[A-Z][A-Z0-9_]*|[a-z]|in|out")

# Files named on purpose that are not in the repository nor made by the build, each with why.
# Matched against the whole name as written (a leading ./ or ../ dropped).
EXTERNAL_FILES = [
    # The C and C++ standard libraries' and POSIX's headers.
    (r"(sys/)?(assert|errno|inttypes|limits|math|signal|stdarg|stdatomic|stddef|stdint|stdio|"
     r"stdlib|string|time|unistd|dlfcn|pthread|fcntl|mman|wait|resource|stat|types|sched)\.h"),
    # NVIDIA's CUDA driver API header, which tools/install-deps.sh fetches into .deps/cuda.
    r"(.*/)?cuda\.h",
    # The Level Zero headers (Debian's level-zero-dev), which the Level Zero backend and xpurt's
    # Level Zero driver for the CPU implement.
    r"(level_zero/)?(ze|zet|zes)_(api|ddi)\.h",
    # clang's OpenCL C header, from which tests/CMakeLists.txt generates the builtin tests.
    r"opencl-c(-base)?\.h",
    # Headers of the libraries xpurt builds on, by their include paths.
    r"(llvm|clang|LLVMSPIRVLib|spirv-tools|tbb|oneapi|gtest|benchmark|spdlog|CL)/.+\.(h|hpp)",
    # The index tools/icpx-corpus/fetch.py writes beside the modules it fetches.
    r"corpus\.txt",
    # The kernel time model the runtime writes into the JIT cache folder (kernel_time_model.hpp).
    r"kernel-times\.txt",
]
EXTERNAL_FILES = [re.compile(p) for p in EXTERNAL_FILES]

# First components of qualified names that belong to the libraries xpurt builds on, whose
# names are theirs to keep, each with whose it is.
EXTERNAL_SCOPES = {
    "std",  # the C++ standard library
    "llvm",  # LLVM
    "X86ISD",  # LLVM's x86 back end's node kinds, named as its errors print them
    "SPIRV", "SPIRVErrorLog",  # LLVMSPIRVLib (the SPIR-V/LLVM translator): namespace, error log
    "tbb", "oneapi",  # oneTBB
    "testing",  # GoogleTest
}


def git_files(root):
    """The files of the working tree that git tracks, or would (new, not ignored): in a clean
    checkout the tracked files, in a working tree also those not added yet."""
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         cwd=root, check=True, capture_output=True)
    paths = dict.fromkeys(p for p in out.stdout.decode().split("\0") if p)
    return [p for p in paths if os.path.isfile(os.path.join(root, p))]


def scanned(path):
    if path.startswith(UNSCANNED_FOLDERS):
        return False
    if path.startswith(SCANNED_FOLDERS) or path in SCANNED_FILES:
        return True
    if os.path.basename(path) == "CMakeLists.txt":
        return True
    return path.startswith("docs/") and path.endswith(".md") and path.count("/") == 1


def language(path):
    name = os.path.basename(path)
    ext = os.path.splitext(name)[1]
    if ext in (".h", ".hpp", ".c", ".cpp", ".cl", ".cu", ".inc", ".S", ".map"):
        return "c"
    if name == "CMakeLists.txt" or ext == ".cmake" or name.endswith(".cmake.in"):
        return "cmake"
    if ext == ".py":
        return "python"
    if ext == ".sh" or path == ".ci/run":
        return "shell"
    if ext in (".supp", ".txt"):
        return "hash"
    if ext in (".ll", ".spvasm"):
        return "semicolon"
    if ext == ".md":
        return "markdown"
    return None


# Lexers: an alternative with a group c1, c2 or c3 is a comment, that group what it says; the
# others are strings and other code that may hold comment markers.
LEXERS = {
    "c": r"""
        //[/!]?(?P<c1>[^\n]*)
      | /\*[*!]?(?P<c2>.*?)(?:\*/|\Z)
      | (?:u8|[uUL])?R"(?P<delim>[^()\\\s]{0,16})\(.*?\)(?P=delim)"
      | "(?:[^"\\\n]|\\.)*"?
      | (?<!\w)'(?:[^'\\\n]|\\.)*'?     # not a digit separator (1'000)
    """,
    "cmake": r"""
        \#\[(?P<eq>=*)\[(?P<c1>.*?)\](?P=eq)\]
      | \#(?P<c2>[^\n]*)
      | "(?:[^"\\]|\\.)*"
      | \[(?P<eq2>=*)\[.*?\](?P=eq2)\]
    """,
    "shell": r"""
        (?<![^\s;|&(])\#(?P<c1>[^\n]*)  # a word that begins with #, not $# or ${#x}
      | '[^']*'
      | "(?:[^"\\]|\\.)*"
    """,
    "hash": r"""
        (?<!\S)\#(?P<c1>[^\n]*)
    """,
    # A triple-quoted string that opens its line is a docstring: a comment.
    "python": r"""
        \#(?P<c1>[^\n]*)
      | (?:(?<=\n)|^)[ \t]*[rRuU]?
        (?:\"\"\"(?P<c2>(?:[^\\]|\\.)*?)\"\"\"|'''(?P<c3>(?:[^\\]|\\.)*?)''')
      | [rRbBuUfF]{0,2}(?:\"\"\"(?:[^\\]|\\.)*?\"\"\"|'''(?:[^\\]|\\.)*?''')
      | [rRbBuUfF]{0,2}(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
    """,
    "semicolon": r"""
        ;(?P<c1>[^\n]*)
      | "(?:[^"\\\n]|\\.)*"
    """,
}
LEXERS = {lang: re.compile(pattern, re.S | re.X) for lang, pattern in LEXERS.items()}
COMMENT_GROUPS = ("c1", "c2", "c3")


def blank(s):
    return re.sub(r"[^\n]", " ", s)


def split(text, lang):
    """Returns (comments, code): what the text's comments say, and its code, each with the rest
    blanked out (line breaks kept), so that offsets and lines stay those of the file."""
    if lang == "markdown":
        return text, ""
    comments, code, at = [], [], 0
    for m in LEXERS[lang].finditer(text):
        group = next((g for g in COMMENT_GROUPS
                      if g in m.re.groupindex and m.start(g) >= 0), None)
        if group is None:
            continue
        code.append(text[at:m.start()])
        code.append(blank(m.group(0)))
        comments.append(blank(text[at:m.start(group)]))
        comments.append(m.group(group))
        comments.append(blank(text[m.end(group):m.end()]))
        at = m.end()
    code.append(text[at:])
    comments.append(blank(text[at:]))
    return "".join(comments), "".join(code)


# Markdown code: fenced blocks (with their language) and spans.
MARKDOWN_CODE = re.compile(
    r"^(?P<fence>```|~~~)(?P<lang>[^\n]*)\n(?P<block>.*?)^(?P=fence)[ \t]*$"
    r"|(?P<ticks>`+)(?!`).+?(?<!`)(?P=ticks)(?!`)", re.S | re.M)


def markdown_code(text):
    """The code of a Markdown text, the rest blanked out; and its CMake examples' text."""
    parts, cmake, at = [], [], 0
    for m in MARKDOWN_CODE.finditer(text):
        parts.append(blank(text[at:m.start()]))
        parts.append(m.group(0))
        if m.group("lang") and m.group("lang").strip() == "cmake":
            cmake.append(m.group("block"))
        at = m.end()
    parts.append(blank(text[at:]))
    return "".join(parts), "\n".join(cmake)


def build_names(cmake_code, tracked_names):
    """Patterns of the names of the files that CMake code makes or uses beside the tracked
    files: the modules of xpurt_add_spirv_module (<name>.spv), and the other files it names (in
    the build tree, or found on the system), ${variable} standing for any part. A name in the
    build tree is matched by its file name alone, the folder being the build's choice."""
    def pattern(name):
        if not re.search(r"\w", re.sub(r"\$\{\w+\}", "", name.rsplit(".", 1)[0])):
            return None  # ${name}.spv: the name of any module, not of one
        return "".join(r"[\w.-]*" if part.startswith("${") else re.escape(part)
                       for part in re.split(r"(\$\{\w+\})", name))
    names = {pattern(m.group(1) + ".spv") for m in SPIRV_MODULE.finditer(cmake_code)}
    names.update(pattern(m.group(1).rsplit("/", 1)[-1])
                 for m in CMAKE_FILE_NAME.finditer(cmake_code)
                 if m.group(1).rsplit("/", 1)[-1] not in tracked_names)
    names.discard(None)
    return re.compile("|".join(sorted(names)) or "(?!)")


class Files:
    def __init__(self, tracked, built):
        self.by_name = {}
        for path in tracked:
            self.by_name.setdefault(os.path.basename(path), []).append(path)
        self.built = built

    def exists(self, name, more_built=None):
        while name.startswith(("./", "../")):
            name = name[name.index("/") + 1:]
        name = name.lstrip("/")
        base = os.path.basename(name)
        if any(path == name or path.endswith("/" + name) for path in self.by_name.get(base, ())):
            return True
        if any(pattern.fullmatch(name) for pattern in EXTERNAL_FILES):
            return True
        if self.built.fullmatch(base) or (more_built and more_built.fullmatch(base)):
            return True
        stem, ext = os.path.splitext(base)
        return ext != ".md" and "/" not in name and bool(PLACEHOLDER_STEM.fullmatch(stem))


def check(root, skips):
    tracked = git_files(root)
    me = os.path.relpath(os.path.abspath(__file__), root)
    sources = {}
    identifiers = set()
    cmake_code = []
    for path in tracked:
        lang = language(path)
        if lang is None or not scanned(path):
            continue
        try:
            with open(os.path.join(root, path), encoding="utf-8") as f:
                text = f.read()
        except UnicodeDecodeError:
            continue
        comments, code = split(text, lang)
        if path != me:
            identifiers.update(IDENTIFIER.findall(code))
        if lang == "cmake":
            cmake_code.append(code)
        if path not in skips:
            sources[path] = (text, comments, lang)
    tracked_names = {os.path.basename(path) for path in tracked}
    files = Files(tracked, build_names("\n".join(cmake_code), tracked_names))

    problems = []
    for path in sorted(sources):
        text, comments, lang = sources[path]
        newlines = [i for i, ch in enumerate(text) if ch == "\n"]

        def report(offset, name):
            problems.append((path, bisect.bisect_left(newlines, offset) + 1, name))

        comments = URL.sub(lambda m: blank(m.group(0)), comments)
        symbols, examples = comments, None
        if lang == "markdown":
            # Only code names symbols; the document's CMake examples name their own files.
            symbols, example_cmake = markdown_code(comments)
            examples = build_names(example_cmake, tracked_names)
        in_names = []  # where the file names are: their words are not symbols
        for m in FILE_NAME.finditer(comments):
            in_names.append((m.start(), m.end()))
            before = comments[m.start() - 1] if m.start() else " "
            after = comments[m.end()] if m.end() < len(comments) else " "
            if before in "*>{}$%@\\" or after in "*<{}":
                continue  # a pattern or a template of names (lib*.so, <name>_test.cpp)
            if not files.exists(m.group(1), examples):
                report(m.start(1), m.group(1))

        def in_file_name(pos):
            i = bisect.bisect_right(in_names, (pos, len(comments))) - 1
            return i >= 0 and in_names[i][0] <= pos < in_names[i][1]

        for m in QUALIFIED_NAME.finditer(symbols):
            parts = [p.lstrip("~") for p in m.group(1).split("::") if p]
            if in_file_name(m.start()) or parts[0] in EXTERNAL_SCOPES:
                continue
            if not all(p in identifiers for p in parts):
                report(m.start(1), m.group(1))
        for m in C_API_NAME.finditer(symbols):
            if in_file_name(m.start()):
                continue
            name = m.group(1)
            if m.group(2):
                prefix = name + m.group(2)[:-1]
                found = any(i.startswith(prefix) for i in identifiers)
                name = prefix + "*"
            else:
                found = name in identifiers
            if not found:
                report(m.start(1), name)
    return sorted(set(problems))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--skip", action="append", default=[], metavar="PATH",
                        help="a file whose comments are not checked (relative to the repository "
                        "root); may be repeated")
    args = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if not os.path.exists(os.path.join(root, ".git")):
        print("check_comment_references.py: not a git checkout, no tracked files: skipped")
        return 77
    try:
        problems = check(root, {os.path.normpath(p) for p in args.skip})
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"check_comment_references.py: cannot list the tracked files: {e}", file=sys.stderr)
        return 2
    for path, line, name in problems:
        print(f"{path}:{line}: names '{name}', which does not exist")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
