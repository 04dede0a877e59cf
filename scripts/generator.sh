#!/usr/bin/env bash
# Prints the CMake generator option for a build directory: `-G Ninja` for a
# new one when ninja is installed (scripts/setup.sh installs it), nothing for
# one already configured (CMake refuses to change a directory's generator)
# or without ninja. Used as: cmake -S . -B dir $(scripts/generator.sh dir)
set -euo pipefail
if [[ ! -f "$1/CMakeCache.txt" ]] && command -v ninja >/dev/null 2>&1; then
    echo "-G Ninja"
fi
