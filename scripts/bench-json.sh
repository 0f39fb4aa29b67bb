#!/usr/bin/env bash
# The API's JSON coder beside Foundation's JSONEncoder/JSONDecoder, both measured in the same run
# on the same documents (bench/JSONBench). Prints a table with the ratios and writes
# bench/results/json.json. Usage: scripts/bench-json.sh
#   BENCH_RUNS=3            runs, one after the other (every run is recorded)
#   BENCH_JSONBENCH=path    measure a JSONBench built elsewhere (another commit) instead
#   BENCH_LABEL=text        what the runs are recorded as (default: this commit)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
binary=${BENCH_JSONBENCH:-}
if [[ -z $binary ]]; then
    swift build -c release --product JSONBench
    binary=.build/release/JSONBench
fi
label=${BENCH_LABEL:-$(git rev-parse --short HEAD)}
runs=${BENCH_RUNS:-3}
lines=""
for run in $(seq "$runs"); do
    echo "== run $run of $runs" >&2
    lines+=$("$binary" | sed "s/^{/{\"run\": $run, /")$'\n'
done
mkdir -p bench/results
LINES="$lines" LABEL="$label" python3 - <<'PY'
import datetime, json, os, sys
sys.path.insert(0, "bench/lib")
from machine import machine
rows = [json.loads(l) for l in os.environ["LINES"].splitlines() if l.strip()]
print(f"{'run':>3}  {'operation':<16} {'hub':>10} {'Foundation':>11}  {'ratio':>5}  unit")
for r in rows:
    r["ratio"] = round(r["value"] / r["baseline"], 2)
    print(f"{r['run']:>3}  {r['operation']:<16} {r['value']:>10,.0f} {r['baseline']:>11,.0f}  {r['ratio']:>5.2f}  {r['unit']}")
result = {"machine": machine(), "date": datetime.date.today().isoformat(), "build": os.environ["LABEL"],
          "baseline": "Foundation JSONEncoder/JSONDecoder, snake_case, sorted keys, same run", "results": rows}
json.dump(result, open("bench/results/json.json", "w"), indent=2)
print("wrote bench/results/json.json (ratio > 1: the hub's coder is faster)")
PY
