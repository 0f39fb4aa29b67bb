#!/usr/bin/env bash
# EVM benchmark: the same workloads in EVMKit (bench/EVMBench, release build) and in revm (pyrevm,
# pinned in tools/evm/requirements.txt) in one run, in gas per second: a compute loop (arithmetic and
# keccak), an ERC-20 transfer loop, an ERC-721 mint loop and a contract-creation loop, each one long
# transaction through Vyper contracts (tools/evm/contracts/, compiled now by the pinned vyper).
# Prints a table with the ratio and writes bench/results/evm.json.
# Usage: scripts/bench-evm.sh   (HUB_EVM_BENCH_SECONDS: measured time per workload and engine, default 3)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
say() { echo "bench-evm.sh: $*" >&2; }
die() {
    say "$*"
    exit 1
}
source "$root/scripts/lib/live-hubd.bash"
bash scripts/install-deps.sh --no-postgres
seconds=${HUB_EVM_BENCH_SECONDS:-3}

venv=$root/.build-evm/venv
pinned_venv "$venv" tools/evm/requirements.txt
swift build -c release --product EVMBench

work=$(mktemp -d "${TMPDIR:-/tmp}/hub-bench-evm.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$venv/bin/python" tools/evm/bench_workloads.py "$work/workloads.json"
say "EVMKit (release)"
.build/release/EVMBench "$work/workloads.json" "$work/prepared.json" "$seconds" | tee "$work/evmkit.jsonl"
say "revm (pyrevm $(grep -oP 'pyrevm==\K.*' tools/evm/requirements.txt))"
(cd tools/evm && "$venv/bin/python" bench_revm.py "$work/prepared.json" "$seconds") | tee "$work/revm.jsonl"

mkdir -p bench/results
EVMKIT="$work/evmkit.jsonl" REVM="$work/revm.jsonl" python3 - <<'PY'
import datetime, json, os, platform
ours = [json.loads(l) for l in open(os.environ["EVMKIT"]) if l.strip()]
theirs = {r["workload"]: r for r in (json.loads(l) for l in open(os.environ["REVM"]) if l.strip())}
rows = []
print(f"\n{'workload':<38} {'gas/tx':>12} {'EVMKit Mgas/s':>14} {'revm Mgas/s':>12} {'ratio':>6}")
for r in ours:
    t = theirs[r["workload"]]
    ratio = r["gas_per_second"] / t["gas_per_second"]
    same_gas = r["gas"] == t["gas"]
    rows.append({"workload": r["workload"], "gas": r["gas"], "revm_gas": t["gas"], "evmkit_gas_per_second": r["gas_per_second"],
                 "revm_gas_per_second": t["gas_per_second"], "ratio": round(ratio, 2)})
    print(f"{r['workload']:<38} {r['gas']:>12,} {r['gas_per_second'] / 1e6:>14.1f} {t['gas_per_second'] / 1e6:>12.1f} {ratio:>6.2f}"
          + ("" if same_gas else f"  (revm used {t['gas']:,} gas)"))
machine = f"{os.cpu_count()} cores, {platform.platform()}"
with open("bench/results/evm.json", "w") as handle:
    json.dump({"date": datetime.date.today().isoformat(), "machine": machine, "reference": "revm via pyrevm 0.3.7",
               "results": rows}, handle, indent=2)
    handle.write("\n")
print("wrote bench/results/evm.json (ratio > 1: EVMKit is faster)")
PY
