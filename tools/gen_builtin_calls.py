#!/usr/bin/env python3
"""Generates OpenCL C kernels that call every builtin overload clang's opencl-c.h declares.

Input: opencl-c.h preprocessed for the features the CPU device reports (clang -E -P). Output:
one .cl file per builtin family, each kernel calling every overload of one builtin (or a slice
of them), and a C++ include listing (module, kernel, builtin) for the conformance test, which
checks that every kernel builds, links and runs.

Each call takes its arguments from the kernel's buffers (zero-filled by the test, so counts,
offsets and indices are 0) and stores its result, so nothing is optimised away before the
runtime sees it.
"""
import argparse
import os
import re
import sys

# Declarations that need device features xpurt does not offer (images, pipes, device-side
# enqueue, Intel's motion estimation): left out, as the device does not report them.
EXCLUDED_TYPE_WORDS = re.compile(
    r"image|sampler_t|pipe|queue_t|clk_event_t|ndrange_t|reserve_id_t|intel_sub_group_avc|"
    r"clk_profiling_info|kernel_enqueue_flags_t")
# Calls not generated here: printf has its own byte-exact tests.
EXCLUDED_NAMES = {"printf"}

QUALIFIERS = {"const", "volatile", "restrict", "__global", "__local", "__constant", "__private",
              "__generic", "global", "local", "constant", "private", "generic", "unsigned",
              "signed", "struct", "read_only", "write_only", "read_write", "__read_only",
              "__write_only", "__read_write"}
ADDRESS_SPACES = {"__global": "global", "global": "global", "__local": "local", "local": "local",
                  "__constant": "constant", "constant": "constant", "__private": "private",
                  "private": "private", "__generic": "generic", "generic": "generic"}
SCALARS = ["char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float",
           "double", "half", "bool", "size_t", "ptrdiff_t", "intptr_t", "uintptr_t", "void",
           "event_t", "memory_order", "memory_scope", "cl_mem_fence_flags"]
TYPE_WORDS = set(SCALARS)
for s in ["char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float", "double",
          "half"]:
    for n in (2, 3, 4, 8, 16):
        TYPE_WORDS.add(f"{s}{n}")
for a in ["int", "uint", "long", "ulong", "float", "double", "half", "flag", "intptr_t",
          "uintptr_t", "size_t", "ptrdiff_t"]:
    TYPE_WORDS.add(f"atomic_{a}")

FAMILIES = [  # (module, predicate on the builtin's name), first match wins
    ("conversions", lambda n: n.startswith("convert_") or n.startswith("as_")),
    ("vector_data", lambda n: re.match(r"v(load|store)(a?_half)?\d*(_rt[enpz])?$", n)),
    ("atomics", lambda n: n.startswith("atom") or n.startswith("atomic_")),
    ("sub_groups", lambda n: "sub_group" in n),
    ("work_groups", lambda n: n.startswith("work_group_") or n in (
        "async_work_group_copy", "async_work_group_strided_copy", "wait_group_events",
        "prefetch", "barrier", "mem_fence", "read_mem_fence", "write_mem_fence",
        "atomic_work_item_fence", "get_fence", "to_global", "to_local", "to_private")),
    ("relational", lambda n: n in (
        "isequal", "isnotequal", "isgreater", "isgreaterequal", "isless", "islessequal",
        "islessgreater", "isfinite", "isinf", "isnan", "isnormal", "isordered", "isunordered",
        "signbit", "any", "all", "bitselect", "select")),
    ("geometric", lambda n: n in (
        "dot", "cross", "distance", "length", "normalize", "fast_distance", "fast_length",
        "fast_normalize")),
    ("integer", lambda n: n in (
        "abs", "abs_diff", "add_sat", "hadd", "rhadd", "clz", "ctz", "mad_hi", "mad_sat",
        "mul_hi", "rotate", "sub_sat", "upsample", "popcount", "mad24", "mul24",
        "bitfield_insert", "bitfield_extract_signed", "bitfield_extract_unsigned",
        "bit_reverse", "dot_acc_sat", "dot_4x8packed_uu_uint",
        "dot_4x8packed_ss_int", "dot_4x8packed_us_int", "dot_4x8packed_su_int",
        "dot_acc_sat_4x8packed_uu_uint", "dot_acc_sat_4x8packed_ss_int",
        "dot_acc_sat_4x8packed_us_int", "dot_acc_sat_4x8packed_su_int")),
    ("common", lambda n: n in (
        "clamp", "degrees", "max", "min", "mix", "radians", "step", "smoothstep", "sign")),
    ("misc", lambda n: n in ("shuffle", "shuffle2", "vec_step")),
    ("math", lambda n: True),
]

SLICE = 48  # overloads per kernel: small kernels keep a missing builtin's damage small
# Collectives are barriers to the CPU JIT, which cuts a kernel into a region per barrier:
# fewer of them per kernel keep its compile time linear.
COLLECTIVE_SLICE = 6


def strip_attributes(text):
    out, i = [], 0
    while True:
        j = text.find("__attribute__", i)
        if j < 0:
            out.append(text[i:])
            return "".join(out)
        out.append(text[i:j])
        k = text.index("(", j)
        depth = 0
        while True:
            if text[k] == "(":
                depth += 1
            elif text[k] == ")":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        i = k + 1


def declarations(preprocessed):
    text = " ".join(l for l in preprocessed.splitlines() if not l.lstrip().startswith("#"))
    for decl in text.split(";"):
        if "overloadable" not in decl or "{" in decl or "typedef" in decl:
            continue
        decl = strip_attributes(decl).strip()
        m = re.match(r"^(.*?)\b(\w+)\s*\((.*)\)\s*$", decl)
        if not m:
            continue
        ret, name, params = m.group(1).strip(), m.group(2), m.group(3).strip()
        if name in EXCLUDED_NAMES or EXCLUDED_TYPE_WORDS.search(decl):
            continue
        plist = [] if params in ("", "void") else [p.strip() for p in params.split(",")]
        if any(p == "..." for p in plist) or untranslatable(name, plist):
            continue
        yield ret, name, [drop_name(p) for p in plist]


def untranslatable(name, params):
    """Overloads that LLVM 15's SPIR-V translator cannot emit (it asserts on them), so no SPIR-V
    module made with this toolchain contains them: compare-exchange on atomic_float/double, and
    every atomic on atomic_half."""
    if any("atomic_half" in p for p in params):
        return True
    return name.startswith("atomic_compare_exchange") and any(
        re.search(r"atomic_(float|double)", p) for p in params)


def drop_name(param):
    tokens = re.findall(r"\w+|\*|\[\]", param)
    if len(tokens) > 1 and re.match(r"\w+$", tokens[-1]) and tokens[-1] not in TYPE_WORDS \
            and tokens[-1] not in QUALIFIERS:
        tokens = tokens[:-1]
    return " ".join(tokens)


def argument(name, ptype, arg_index, arg_count):
    """An expression of exactly type `ptype` taken from the kernel's buffers."""
    words = ptype.split()
    if "clustered" in name and arg_index == arg_count - 1:
        return "1u"  # the cluster size must be a constant
    if "*" in words:
        space = next((ADDRESS_SPACES[w] for w in words if w in ADDRESS_SPACES
                      and words.index(w) < words.index("*")), "generic")
        base = {"global": "in", "local": "lmem", "constant": "cin", "private": "pmem",
                "generic": "in"}[space]
        cast = re.sub(r"\*\s*__private\b", "*", ptype)  # the pointer itself is private
        # 128-byte aligned (a double16 is), apart from the values below in global memory.
        offset = 128 * arg_index + (1024 if base in ("in", "cin") else 0)
        return f"({cast})({base} + {offset})"
    core = [w for w in words if w not in QUALIFIERS or w in ("unsigned", "signed")]
    t = " ".join(core)
    if t == "memory_order":
        return "memory_order_relaxed"
    if t == "memory_scope":
        return "memory_scope_work_group"
    if t == "cl_mem_fence_flags":
        return "CLK_GLOBAL_MEM_FENCE"
    if t == "event_t":
        return "(event_t)0"
    return f"*(global {t} *)(in + {256 * arg_index})"


def family(name):
    return next(mod for mod, pred in FAMILIES if pred(name))


def emit(decls, outdir):
    by_family = {}
    for ret, name, params in decls:
        by_family.setdefault(family(name), {}).setdefault(name, []).append((ret, params))
    manifest = []
    for mod, names in sorted(by_family.items()):
        lines = ["// Generated by tools/gen_builtin_calls.py from clang's opencl-c.h: do not edit.",
                 "#include <opencl-c.h>  // clang's builtin table lacks some of its declarations",
                 "#pragma OPENCL EXTENSION cl_khr_fp16 : enable",
                 "#pragma OPENCL EXTENSION cl_khr_fp64 : enable", ""]
        for name, overloads in sorted(names.items()):
            step = COLLECTIVE_SLICE if mod in ("sub_groups", "work_groups") else SLICE
            for start in range(0, len(overloads), step):
                kernel = f"call_{name}" + (f"_{start // step}" if start else "")
                manifest.append((f"xpurt_builtins_{mod}", kernel, name))
                lines.append(f"kernel void {kernel}(global uchar *in, constant uchar *cin, "
                             "global uchar *out, local uchar *lmem) {")
                lines.append("  ulong16 pstore[4];")
                lines.append("  private uchar *pmem = (private uchar *)pstore;")
                lines.append("  event_t ev;")
                for k, (ret, params) in enumerate(overloads[start:start + step]):
                    args = ", ".join(argument(name, p, i, len(params)) for i, p in enumerate(params))
                    call = f"{name}({args})"
                    r = ret.replace("__private", "").strip()
                    r = " ".join(w for w in r.split() if w not in ("const", "volatile"))
                    if r == "void":
                        lines.append(f"  {call};")
                    elif r == "event_t":
                        lines.append(f"  ev = {call}; wait_group_events(1, &ev);")
                    else:
                        lines.append(f"  *(global {r} *)(out + {128 * k}) = {call};")
                lines.append("}")
                lines.append("")
        with open(os.path.join(outdir, f"xpurt_builtins_{mod}.cl"), "w") as f:
            f.write("\n".join(lines))
    with open(os.path.join(outdir, "builtin_calls.inc"), "w") as f:
        f.write("// Generated by tools/gen_builtin_calls.py: {module, kernel, builtin}.\n")
        for mod, kernel, name in manifest:
            f.write(f'{{"{mod}", "{kernel}", "{name}"}},\n')
    return by_family


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("preprocessed", help="opencl-c.h after clang -E -P")
    ap.add_argument("outdir")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    with open(a.preprocessed) as f:
        decls = list(declarations(f.read()))
    fams = emit(decls, a.outdir)
    total = sum(len(o) for names in fams.values() for o in names.values())
    print(f"{total} overloads of {sum(len(n) for n in fams.values())} builtins in "
          f"{len(fams)} modules: " + ", ".join(sorted(fams)), file=sys.stderr)


if __name__ == "__main__":
    main()
