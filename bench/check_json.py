#!/usr/bin/env python3
"""Check of tessera-bench --scene all --json (issue 5, done-when 1).

    python3 bench/check_json.py PATH/TO/tessera-bench

Runs every available scene's small variant for a few timed steps (quality
checks included) and checks that each available scene gave one line, that
every line is one JSON object with every required key of the right type, and
that unavailable scenes are named on stderr. Standard library only.
"""
import json
import re
import subprocess
import sys

REQUIRED = {
    "engine": str, "version": str, "git": str, "compiler": str, "cpu": str, "simd": str,
    "width": int, "threads": int, "solver": str, "substeps": int, "scene": str, "params": dict,
    "steps": int, "bodies": int, "contact_points": int, "colors": list, "overflow": int,
    "ms_mean": (int, float), "ms_median": (int, float), "ms_max": (int, float), "stages": dict,
    "quality_pass": (bool, type(None)), "quality_figure": (int, float, type(None)), "state_hash": str,
}


def scene_list(bench):
    listing = subprocess.run([bench, "--list"], capture_output=True, text=True, check=True).stdout
    scenes = {}
    for line in listing.splitlines():
        name = line.split()[0]
        scenes[name] = "unavailable" not in line
    return scenes


def check_line(line, problems):
    try:
        record = json.loads(line)
    except json.JSONDecodeError as e:
        problems.append(f"not JSON ({e}): {line[:120]}")
        return None
    for key, kind in REQUIRED.items():
        if key not in record:
            problems.append(f"{record.get('scene')}: no key {key}")
        elif not isinstance(record[key], kind) or (kind is int and isinstance(record[key], bool)):
            problems.append(f"{record.get('scene')}: {key} = {record[key]!r} has the wrong type")
    if not re.fullmatch(r"[0-9a-f]{16}", str(record.get("state_hash"))):
        problems.append(f"{record.get('scene')}: state_hash {record.get('state_hash')!r} is not 16 hex digits")
    if not all(isinstance(v, (int, float)) for v in record.get("stages", {}).values()):
        problems.append(f"{record.get('scene')}: a stage time is not a number")
    if record.get("quality_pass") is None:
        problems.append(f"{record.get('scene')}: the quality check was not taken")
    return record


def main(bench):
    scenes = scene_list(bench)
    run = subprocess.run([bench, "--scene", "all", "--small", "--steps", "3", "--json"],
                         capture_output=True, text=True)
    problems = [] if run.returncode == 0 else [f"exit status {run.returncode}: {run.stderr.strip()}"]
    seen, good = [], 0
    for line in run.stdout.splitlines():
        before = len(problems)
        record = check_line(line, problems)
        good += len(problems) == before
        if record is not None:
            seen.append(record.get("scene"))
    available = [name for name, ok in scenes.items() if ok]
    if sorted(seen) != sorted(available):
        problems.append(f"scenes run {seen}, available {available}")
    for name, ok in scenes.items():
        if not ok and name not in run.stderr:
            problems.append(f"unavailable scene {name} is not named on stderr")
    for p in problems:
        print("check_json:", p)
    print(f"check_json: {good} passed, {len(problems)} failed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
