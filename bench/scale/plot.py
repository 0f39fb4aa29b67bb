"""Merges `make bench-scale`'s results (the growth steps of each backend, the SSE fan-out) into one
JSON file and draws them: transfer rate and p99 against the ledger's size, and `hubd verify`'s time
and peak memory against the number of transfers."""
import argparse
import datetime
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")  # no display: write the PNG only
import matplotlib.pyplot as plt

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from machine import machine  # noqa: E402


def load_steps(paths: list[str]) -> list[dict]:
    steps: list[dict] = []
    for path in paths:
        with open(path) as file:
            steps += json.load(file)
    return steps


def by_backend(steps: list[dict]) -> dict[str, list[dict]]:
    backends: dict[str, list[dict]] = {}
    for step in steps:
        backends.setdefault(step["backend"], []).append(step)
    return backends


def draw(steps: list[dict], title: str, path: str) -> None:
    figure, axes = plt.subplots(2, 2, figsize=(11, 8))
    # The rate and p99 panels also draw, dashed, the measurement taken again with a warm cache
    # (`warm_…`, PostgreSQL's --prewarm) where a backend has it.
    panels = [
        (axes[0][0], "accounts", "transfers_per_sec", "transfers/s (64 callers, single transfers)", "warm_transfers_per_sec"),
        (axes[0][1], "accounts", "p99_ms", "p99 latency (ms)", "warm_p99_ms"),
        (axes[1][0], "transfers", "verify_seconds", "hubd verify (s)", None),
        (axes[1][1], "transfers", "verify_max_rss_mb", "hubd verify peak memory (MB)", None),
    ]
    for axis, x, y, label, warm in panels:
        for backend, rows in sorted(by_backend(steps).items()):
            line = axis.plot([row[x] for row in rows], [row[y] for row in rows], marker="o", label=backend)[0]
            warm_rows = [row for row in rows if warm and row.get(warm) is not None]
            if warm_rows:
                axis.plot([row[x] for row in warm_rows], [row[warm] for row in warm_rows], marker="o", linestyle="--",
                          color=line.get_color(), label=f"{backend}, warm cache")
        axis.set_xscale("log")
        axis.set_xlabel(f"{x} in the ledger")
        axis.set_ylabel(label)
        axis.set_ylim(bottom=0)
        axis.grid(True, which="both", alpha=0.3)
        axis.legend()
    figure.suptitle(title, fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=100)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--growth", nargs="+", required=True, help="LedgerBench --scale-steps outputs")
    parser.add_argument("--fanout", help="scripts/bench-fanout.sh's results")
    parser.add_argument("--output", required=True)
    parser.add_argument("--plot", required=True)
    options = parser.parse_args()
    steps = load_steps(options.growth)
    report = {
        "machine": machine(),
        "generated_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "growth": steps,
    }
    if options.fanout:
        with open(options.fanout) as file:
            report["fanout"] = json.load(file)
    with open(options.output, "w") as file:
        json.dump(report, file, indent=2)
        file.write("\n")
    draw(steps, f"make bench-scale, {report['generated_at'][:10]}, {report['machine']}", options.plot)
    print(f"wrote {options.output} and {options.plot}")


if __name__ == "__main__":
    main()
