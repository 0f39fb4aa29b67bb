#!/usr/bin/env bash
# Benchmark of the EVM marketplace end to end on the hub's own chain (bench/evm-market): a release
# hubd with its defaults (SQLite, every rail, the EVM rail on the event chain it creates for itself)
# and bench/evm-market/market.py, which sets up members with custodial accounts through the API and
# then measures, with USERS workers at once, mints, direct-sale listings and purchases, each counted
# when its block is sealed and the rail has indexed it; plain payments on the same chain, sent
# before and after, are the baseline of the same run. hubd verify checks chain and ledger after.
# Prints a table and writes bench/results/evm-market.json (or BENCH_RESULTS); fails on any error.
# The load runs on the same machine as hubd and takes CPU from it.
# Usage: scripts/bench-evm-market.sh
# Environment: BENCH_USERS (32), BENCH_PER_USER (20), BENCH_BUILD (release; `debug` only to
#   smoke-test this script: its numbers mean nothing), BENCH_NO_BUILD (set: use the hubd built),
#   BENCH_RESULTS (the output file).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
say() { echo "bench-evm-market.sh: $*" >&2; }
die() {
    say "$*"
    exit 1
}
source "$root/scripts/lib/live-hubd.bash"
source "$root/scripts/lib/stop-process.bash"
export no_proxy=127.0.0.1${no_proxy:+,$no_proxy} NO_PROXY=127.0.0.1${NO_PROXY:+,$NO_PROXY}
users=${BENCH_USERS:-32}
per_user=${BENCH_PER_USER:-20}
output_file=${BENCH_RESULTS:-bench/results/evm-market.json}

venv=$root/.build-localchain/bench-venv
pinned_venv "$venv" tools/localchain/requirements-bench.txt

build=${BENCH_BUILD:-release}
if [[ -z ${BENCH_NO_BUILD:-} ]]; then
    say "building hubd ($build; several minutes the first time)"
    swift build -c "$build" --product hubd
fi
hubd=$root/.build/$build/hubd
[[ -x $hubd ]] || die "$hubd was not built"

work=$(mktemp -d "${TMPDIR:-/tmp}/hub-bench-evm-market.XXXXXX")
server_pid=
cleanup() {
    stop_process "$server_pid"
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The embedded default: no plugins file in the working directory, so every rail runs with its
# defaults; the key files go to the working directory.
port=$(free_port)
base=http://127.0.0.1:$port
database=sqlite:$work/hub.sqlite
(cd "$work" && HUB_LOG_LEVEL=warning exec "$hubd" serve --database-url "$database" --listen "127.0.0.1:$port") >"$work/hubd.log" 2>&1 &
server_pid=$!
wait_ready "$base" "$work/hubd.log"
password=$(cd "$work" && new_admin "$database" bench@example.test)
token=$(printf '%s\n' "$password" | python3 tools/contract/hubapi.py login "$base" bench@example.test) || die "could not log in"

say "setup ($users members) and $((users * per_user)) operations per phase from $users workers"
load_before=$(cut -d' ' -f1 /proc/loadavg)
status=0
"$venv/bin/python" bench/evm-market/market.py "$base" "$token" --users "$users" --per-user "$per_user" >"$work/result.json" || status=$?
load_after=$(cut -d' ' -f1 /proc/loadavg)
[[ -s $work/result.json ]] || {
    tail -n 30 "$work/hubd.log" >&2
    die "market.py failed before it measured anything"
}
stop_process "$server_pid"
server_pid=
(cd "$work" && "$hubd" verify --database-url "$database") >"$work/verify.txt" 2>&1 || {
    cat "$work/verify.txt" >&2
    die "hubd verify failed after the run"
}
say "$(tail -n 1 "$work/verify.txt")"

python3 - "$work/result.json" "$output_file" "$build" "$load_before" "$load_after" <<'PY'
import datetime, json, os, platform, sys
result = json.load(open(sys.argv[1]))
cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), platform.machine())
result.update({
    "benchmark": "EVM marketplace operations end to end on the hub's own chain (scripts/bench-evm-market.sh)",
    "measured_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    "machine": f"{os.cpu_count()} vCPU, {cpu}",
    "build": sys.argv[3],
    "load_average": {"before": float(sys.argv[4]), "after": float(sys.argv[5])},
    "database": "SQLite (the embedded default)",
    "load": "bench/evm-market/market.py (Python asyncio + aiohttp, one worker per member, on the same machine)",
})
json.dump(result, open(sys.argv[2], "w"), indent=2)
open(sys.argv[2], "a").write("\n")
print(f"{'phase':32} {'ops':>6} {'seconds':>8} {'ops/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'ratio':>6} errors")
for p in result["phases"]:
    print(f"{p['phase']:32} {p['operations']:>6} {p['seconds']:>8} {p['per_second']:>8} {p['p50_ms']!s:>8} {p['p99_ms']!s:>8} {p['ratio_to_baseline']!s:>6} {len(p['errors'])}")
    for error in p["errors"][:3]:
        print("   ", error)
PY
[[ $status == 0 ]] || die "market.py reported errors or missing operations (see the table)"
