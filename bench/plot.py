#!/usr/bin/env python3
"""Turns tessera-bench JSON lines into PNG charts.

    python3 bench/plot.py results.jsonl [more.jsonl ...] [-o DIR]

Reads every JSON object line (other lines, such as a table, are skipped) of
tessera-bench --json and tessera-bench-bullet --json, and writes to DIR
(default: plots):

  ms_per_step.png     median ms per step per scene, one bar per engine and
                      setting (log scale); a failed quality check is marked
  thread_scaling.png  speedup against the fewest threads, per engine and scene
  width_scaling.png   speedup against the narrowest SIMD width
  stages.png          mean ms per stage of each scene (first setting per engine)

A chart whose data is missing (no thread sweep, say) is still written, with a
note saying what to run. Needs matplotlib (Debian: python3-matplotlib).
"""
import argparse
import json
import os
import statistics
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(paths):
    records, skipped = [], 0
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if not line.startswith("{"):
                    skipped += bool(line)
                    continue
                record = json.loads(line)
                if "engine" in record and "ms_median" in record:
                    records.append(record)
    return records, skipped


def setting(r, without=()):
    """The engine and settings of a run, as a label and a grouping key."""
    parts = [r["engine"]]
    for key, short in (("threads", "t"), ("width", "w"), ("substeps", "s")):
        if key not in without:
            parts.append(f"{r.get(key)}{short}")
    return " ".join(parts)


def scene_label(r):
    params = ",".join(f"{k}={v}" for k, v in sorted(r.get("params", {}).items()))
    return f"{r['scene']}\n{params}" if params else r["scene"]


def group_medians(records, key_fn):
    """key -> (median across runs of ms_median, every quality passed)."""
    groups = defaultdict(list)
    for r in records:
        groups[key_fn(r)].append(r)
    return {k: (statistics.median(x["ms_median"] for x in rs),
                all(x.get("quality_pass") is not False for x in rs))
            for k, rs in groups.items()}


def note_figure(path, title, text):
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.set_title(title)
    ax.text(0.5, 0.5, text, ha="center", va="center", wrap=True)
    ax.set_axis_off()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_ms_per_step(records, path):
    medians = group_medians(records, lambda r: (scene_label(r), setting(r)))
    scenes = sorted({k[0] for k in medians})
    settings = sorted({k[1] for k in medians})
    if not scenes:
        note_figure(path, "ms per step", "no runs in the data")
        return
    fig, ax = plt.subplots(figsize=(min(16, max(8, 1.4 * len(scenes))), 5))
    width = 0.8 / len(settings)
    for i, s in enumerate(settings):
        xs, ys, failed = [], [], []
        for j, scene in enumerate(scenes):
            if (scene, s) in medians:
                ms, ok = medians[(scene, s)]
                xs.append(j + (i - (len(settings) - 1) / 2) * width)
                ys.append(ms)
                failed.append(not ok)
        bars = ax.bar(xs, ys, width, label=s)
        for bar, bad in zip(bars, failed):
            if bad:
                bar.set_hatch("//")
                ax.annotate("quality\nFAIL", (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                            ha="center", va="bottom", fontsize=7, color="red")
    ax.set_xticks(range(len(scenes)))
    ax.set_xticklabels(scenes, fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("ms per step (median across runs)")
    ax.set_title("Step time per scene (hatched: failed its quality check)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_scaling(records, key, path, what):
    """Speedup against the smallest value of key, one line per engine, scene and other settings."""
    medians = group_medians(records, lambda r: (r["scene"], setting(r, without=(key,)), r.get(key)))
    lines = defaultdict(dict)
    for (scene, s, value), (ms, _) in medians.items():
        lines[(scene, s)][value] = ms
    lines = {k: v for k, v in lines.items() if len(v) >= 2}
    if not lines:
        note_figure(path, f"{what} scaling",
                    f"no {what} sweep in the data: run tessera-bench --sweep {key}=1,2,... --json")
        return
    fig, ax = plt.subplots(figsize=(8, 5))
    top = 1
    for (scene, s), points in sorted(lines.items()):
        xs = sorted(points)
        base = points[xs[0]]
        ax.plot(xs, [base / points[x] for x in xs], marker="o", label=f"{scene} ({s})")
        top = max(top, xs[-1] / xs[0])
    all_x = sorted({x for points in lines.values() for x in points})
    ax.plot(all_x, [x / all_x[0] for x in all_x], "k--", linewidth=0.8, label="ideal")
    ax.set_xlabel(what)
    ax.set_ylabel(f"speedup against {all_x[0]} {what}")
    ax.set_xticks(all_x)
    ax.set_title(f"{what.capitalize()} scaling (median ms per step)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_stages(records, path):
    first = {}
    for r in records:
        first.setdefault((r["engine"], r["scene"]), r)
    rows = sorted(first.items())
    if not rows:
        note_figure(path, "stages", "no runs in the data")
        return
    stage_names = []
    for _, r in rows:
        for name in r.get("stages", {}):
            if name != "step" and name not in stage_names:
                stage_names.append(name)
    fig, ax = plt.subplots(figsize=(min(16, max(8, 1.2 * len(rows))), 5))
    labels = [f"{engine}\n{scene}" for (engine, scene), _ in rows]
    bottom = [0.0] * len(rows)
    cmap = plt.get_cmap("tab20")
    for i, name in enumerate(stage_names):
        values = [max(0.0, r.get("stages", {}).get(name) or 0.0) for _, r in rows]
        ax.bar(range(len(rows)), values, 0.6, bottom=bottom, label=name, color=cmap(i % 20))
        bottom = [b + v for b, v in zip(bottom, values)]
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_ylabel("mean ms per step")
    ax.set_title("Time per stage")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("inputs", nargs="+", help="files of JSON lines from tessera-bench --json")
    parser.add_argument("-o", "--output", default="plots", help="directory for the PNGs (default: plots)")
    args = parser.parse_args(argv)
    records, skipped = load(args.inputs)
    os.makedirs(args.output, exist_ok=True)
    charts = {
        "ms_per_step.png": lambda p: plot_ms_per_step(records, p),
        "thread_scaling.png": lambda p: plot_scaling(records, "threads", p, "threads"),
        "width_scaling.png": lambda p: plot_scaling(records, "width", p, "width"),
        "stages.png": lambda p: plot_stages(records, p),
    }
    for name, draw in charts.items():
        path = os.path.join(args.output, name)
        draw(path)
        print(path)
    print(f"plot.py: {len(records)} runs read" + (f", {skipped} non-JSON lines skipped" if skipped else ""),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
