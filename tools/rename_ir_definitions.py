#!/usr/bin/env python3
"""Renames function definitions in an LLVM IR text file, leaving their callers as they are.

  rename_ir_definitions.py IN.ll OUT.ll PREFIX NAME...

Each NAME's definition becomes PREFIX + NAME, and NAME is declared in its place, so that the
callers in IN.ll (vector forms of a builtin, say) call whatever defines NAME once linked: a
body written to wrap the original, which calls it as PREFIX + NAME. Fails if a NAME has no
definition.
"""
import re
import sys


def declaration(define_line, name):
    """'define spir_func double @f(double %0) #1 {' -> 'declare spir_func double @f(double)'."""
    head, _, rest = define_line.partition("@" + name + "(")
    depth, params = 1, ""
    for ch in rest:
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0:
            break
        params += ch
    types = [re.sub(r"\s+%[\w.$-]+$", "", p.strip()) for p in params.split(",") if p.strip()]
    head = head.replace("define", "declare", 1)
    head = re.sub(r"\b(internal|linkonce_odr|weak_odr|dso_local)\s+", "", head)
    return "%s@%s(%s)" % (head, name, ", ".join(types))


def main():
    source, target, prefix, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    lines = open(source).read().split("\n")
    for name in names:
        at = [i for i, line in enumerate(lines)
              if line.startswith("define ") and ("@" + name + "(") in line]
        if len(at) != 1:
            sys.exit("rename_ir_definitions.py: %s has %d definitions in %s" % (name, len(at), source))
        line = lines[at[0]]
        lines[at[0]] = line.replace("@" + name + "(", "@" + prefix + name + "(", 1)
        lines.insert(at[0], declaration(line, name))
    open(target, "w").write("\n".join(lines))


if __name__ == "__main__":
    main()
