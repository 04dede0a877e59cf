#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compiles the C code blocks of the documentation, so that no guide shows
code that does not build.

The rule (docs/README.md says it for the writers of the guides):
  - every fenced block opened with ```c in README.md and docs/*.md is code;
    blocks that are not C, or not meant to compile, use another tag
    (```sh, ```text, ```cmake, ```cpp ...);
  - a block with a line starting `int main(` is a whole program: it is
    compiled as it stands (C11, -Wall -Wextra -pedantic -Werror), linked
    against the library, and run: it must exit with 0;
  - any other block is a fragment: it becomes the body of `int main(void)`,
    after #include of <stdio.h>, <stdlib.h>, <string.h> and
    "tessera/tessera.h", and is compiled and linked (unused variables
    allowed), not run. A fragment declares what it uses.

Run by ctest (doc_snippets, cmake/tessera_docs.cmake):
  check_doc_snippets.py --cc CC --include DIR --library LIB --work DIR FILE_OR_DIR...
"""
import argparse
import os
import re
import shlex
import subprocess
import sys

FRAGMENT_HEAD = """#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera/tessera.h"

int main(void)
{
"""
FRAGMENT_TAIL = """
    return 0;
}
"""
STRICT = ["-std=c11", "-Wall", "-Wextra", "-pedantic", "-Werror"]
LENIENT = STRICT + ["-Wno-unused-variable", "-Wno-unused-but-set-variable", "-Wno-unused-parameter"]


def markdown_files(paths):
    for path in paths:
        if os.path.isdir(path):
            for name in sorted(os.listdir(path)):
                if name.endswith(".md"):
                    yield os.path.join(path, name)
        else:
            yield path


def c_blocks(path):
    """(first line number, code) of each ```c block of a Markdown file."""
    blocks = []
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        if re.fullmatch(r"\s*```c\s*", lines[i]):
            start = i + 1
            j = start
            while j < len(lines) and not re.fullmatch(r"\s*```\s*", lines[j]):
                j += 1
            if j == len(lines):
                sys.exit(f"{path}:{i + 1}: a ```c block is not closed")
            blocks.append((start + 1, "\n".join(lines[start:j]) + "\n"))
            i = j
        i += 1
    return blocks


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cc", default="cc")
    parser.add_argument("--include", required=True, help="the public headers' folder (holds tessera/)")
    parser.add_argument("--library", required=True, help="libtessera.so to link against")
    parser.add_argument("--flags", default="", help="extra compile and link flags (e.g. a sanitizer)")
    parser.add_argument("--work", required=True, help="folder for the generated sources and programs")
    parser.add_argument("paths", nargs="+", help="Markdown files, or folders of them")
    args = parser.parse_args()

    os.makedirs(args.work, exist_ok=True)
    library = os.path.abspath(args.library)
    link = [library, "-Wl,-rpath," + os.path.dirname(library), "-lm"]
    extra = shlex.split(args.flags)
    failures = 0
    count = 0
    for path in markdown_files(args.paths):
        for line, code in c_blocks(path):
            count += 1
            whole = re.search(r"^int main\(", code, re.MULTILINE) is not None
            stem = re.sub(r"[^A-Za-z0-9]+", "_", os.path.basename(path)) + f"_{line}"
            source = os.path.join(args.work, stem + ".c")
            program = os.path.join(args.work, stem)
            with open(source, "w", encoding="utf-8") as f:
                f.write(f'#line {line} "{path}"\n' + code if whole else
                        FRAGMENT_HEAD + f'#line {line} "{path}"\n' + code + FRAGMENT_TAIL)
            command = [args.cc] + (STRICT if whole else LENIENT) + extra + ["-I", args.include, source, "-o",
                                                                             program] + link
            built = subprocess.run(command, capture_output=True, text=True)
            if built.returncode != 0:
                failures += 1
                print(f"{path}:{line}: FAIL: the block does not compile\n{built.stderr}", file=sys.stderr)
                continue
            if whole:
                ran = subprocess.run([program], capture_output=True, text=True, timeout=60)
                if ran.returncode != 0:
                    failures += 1
                    print(f"{path}:{line}: FAIL: the program exited with {ran.returncode}\n{ran.stdout}{ran.stderr}",
                          file=sys.stderr)
                    continue
            print(f"{path}:{line}: ok ({'program, ran' if whole else 'fragment'})")
    if count == 0:
        sys.exit("no ```c block found")
    print(f"{count - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
