#!/usr/bin/env bash
# Benchmark of complete BLE session flows over HTTP (bench/ble-sessions): a release hubd with the
# ble-sessions rail on SQLite and, when a PostgreSQL server is installed, on a throwaway PostgreSQL
# cluster; through the API as an admin: the asset EUR, payee and payer users, the payers' wallets
# funded from the issuance account; then bench/ble-sessions/flows.py runs concurrent workers, each
# doing whole flows (create → resolve → lock → pay) with its own payer, and reports flows/s and
# p50/p99 of a flow and of each step. hubd verify checks the ledger afterwards.
# Load: closed loop (each worker starts its next flow when the last one finished), Python asyncio
# and aiohttp on the same machine as hubd, taking CPU from it.
# The rail runs with resolves_per_minute = BENCH_RESOLVES_PER_MINUTE (100000, the highest it
# accepts) so the per-client rate limit of the unauthenticated resolve does not cap the flows.
# Then, on the same hubd, one load tool (wrk, C) drives in turn (a) the rail's write steps alone
# (create → lock → pay per connection, bench/ble-sessions/steps.lua; the unauthenticated resolve,
# rate-limited per address, is left out) and (b) single ledger transfers (bench/http/transfers.lua),
# so write steps/s compare with transfers/s under equal load: the ratio is issue #13's measure. Both
# phases run wrk with one thread per connection, the shape the steps' per-connection flow needs.
# The CPU time hubd, PostgreSQL and wrk itself spend in each wrk phase is recorded per request too: with the
# two cores saturated it moves less from run to run than the rates do.
# Prints a table and writes bench/results/ble-sessions.json (or BENCH_RESULTS); fails on any error.
# Each row records the machine's load average before and after its run: the machine may be shared.
# Usage: scripts/bench-ble-sessions.sh
# Environment: BENCH_SECONDS (20), BENCH_WARMUP (3), BENCH_WORKERS (64), BENCH_PAYEES (16),
#   BENCH_BACKENDS ("sqlite postgres"), BENCH_RESOLVES_PER_MINUTE (100000), BENCH_RESULTS (the output file),
#   HUB_BENCH_POSTGRES_URL (an existing database instead of a throwaway cluster), BENCH_HUBD (a hubd
#   built elsewhere, measured as it is: two builds compared in one sitting).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

say() { echo "bench-ble-sessions.sh: $*" >&2; }
die() {
    say "$*"
    exit 1
}

seconds=${BENCH_SECONDS:-20}
warmup=${BENCH_WARMUP:-3}
workers=${BENCH_WORKERS:-64}
payees=${BENCH_PAYEES:-16}
backends=${BENCH_BACKENDS:-sqlite postgres}
resolves_per_minute=${BENCH_RESOLVES_PER_MINUTE:-100000}
output_file=${BENCH_RESULTS:-bench/results/ble-sessions.json}
# Requests to the hub on loopback never go through a proxy the environment may name.
export no_proxy=127.0.0.1${no_proxy:+,$no_proxy} NO_PROXY=127.0.0.1${NO_PROXY:+,$NO_PROXY}

source "$root/scripts/lib/bench-server.bash"
# The load generator's venv (aiohttp, pinned), rebuilt when its requirements change.
venv=$root/.build-bench/ble-sessions-venv
pinned_venv "$venv" bench/ble-sessions/requirements.txt

# wrk from Debian, when missing.
source "$root/scripts/lib/ensure-wrk.bash"
source "$root/scripts/lib/process-cpu.bash"
ensure_wrk

bash scripts/install-deps.sh
bench_hubd

bench_work ble

cat >"$work/plugins.json" <<EOF
{
  "plugins": [
    {
      "id": "ble-sessions",
      "enabled": true,
      "config": { "default_asset": "EUR", "resolves_per_minute": $resolves_per_minute }
    }
  ]
}
EOF

results=$work/results.jsonl
: >"$results"

# cpu_ticks PID: CPU time (in clock ticks) used so far by hubd (PID) and by every PostgreSQL server
# process on the machine, as "HUBD POSTGRES".
cpu_ticks() {
    local postgres_ticks=0 pid
    for pid in $(pgrep -x postgres || true); do
        postgres_ticks=$((postgres_ticks + $(process_cpu_ticks "$pid")))
    done
    echo "$(process_cpu_ticks "$1") $postgres_ticks"
}

# timed_wrk TIMES_FILE WRK_ARGS...: runs wrk and writes the CPU time it used to TIMES_FILE, as
# bash's `times` prints it: the subshell's own line, then its children's (wrk), "XmY.YYYs XmZ.ZZZs".
timed_wrk() {
    local times_file=$1
    shift
    (
        wrk "$@"
        times >"$times_file" # (not piped: a pipe's `times` would run in a shell with no children)
    )
}

# run_backend NAME DATABASE_URL: one hubd, its setup through the API, the flows; appends to $results.
run_backend() {
    local backend=$1 database=$2 port base password token output status load_before load_after
    port=$(free_port)
    base=http://127.0.0.1:$port
    say "[$backend] starting hubd on $base"
    HUB_PLUGINS=$work/plugins.json HUB_LOG_LEVEL=warning \
        "$hubd" serve --database-url "$database" --listen "127.0.0.1:$port" >"$work/hubd-$backend.log" 2>&1 &
    server_pid=$!
    python3 tools/contract/hubapi.py wait-ready "$base" 60 || {
        tail -n 30 "$work/hubd-$backend.log" >&2
        die "[$backend] hubd did not become ready"
    }
    password=$(python3 -c 'import secrets; print(secrets.token_urlsafe(24))')
    printf '%s\n' "$password" | "$hubd" admin create --database-url "$database" --email bench@example.test --password-stdin >/dev/null
    token=$(printf '%s\n' "$password" | python3 tools/contract/hubapi.py login "$base" bench@example.test)

    say "[$backend] setup ($payees payees, $workers payers) and $workers workers for ${seconds} s after ${warmup} s warm-up"
    output=$work/flows-$backend.json
    status=0
    load_before=$(cut -d' ' -f1-3 /proc/loadavg)
    "$venv/bin/python" bench/ble-sessions/flows.py run "$base" "$token" --asset EUR --workers "$workers" \
        --payees "$payees" --seconds "$seconds" --warmup "$warmup" >"$output" || status=$?
    load_after=$(cut -d' ' -f1-3 /proc/loadavg)
    [[ -s $output ]] || {
        tail -n 30 "$work/hubd-$backend.log" >&2
        die "[$backend] flows.py failed before it measured anything"
    }
    python3 - "$output" "$backend" "$resolves_per_minute" "$load_before" "$load_after" >>"$results" <<'EOF'
import json, sys
path, backend, per_minute, before, after = sys.argv[1:]
row = json.load(open(path))
row.update(backend=backend, resolves_per_minute=int(per_minute), load_average_before=before, load_average_after=after)
print(json.dumps(row))
EOF
    [[ $status == 0 ]] || say "[$backend] flows.py reported errors or a wrong payee total (see the table)"

    say "[$backend] write steps alone (create → lock → pay), wrk, $workers connections, ${seconds} s"
    "$venv/bin/python" bench/ble-sessions/flows.py setup "$base" "$token" "$work/tokens-$backend.txt" --asset STEP \
        --workers "$workers" --payees "$payees" >"$work/steps-setup-$backend.json" || die "[$backend] setup of the write steps failed"
    cpu_steps_before=$(cpu_ticks "$server_pid")
    timed_wrk "$work/wrk-steps-times-$backend.txt" --threads "$workers" --connections "$workers" --duration "${seconds}s" --timeout 10s --latency \
        --script bench/ble-sessions/steps.lua "$base" -- "$work/tokens-$backend.txt" STEP 2500 >"$work/wrk-steps-$backend.txt"
    cpu_steps_after=$(cpu_ticks "$server_pid")
    "$venv/bin/python" bench/ble-sessions/flows.py received "$base" "$token" "$work/steps-setup-$backend.json" >"$work/steps-received-$backend.txt"
    say "[$backend] single transfers, wrk, 64 connections, ${seconds} s"
    python3 tools/contract/hubapi.py bench-setup "$base" "$token" BENCH 1000 1000000000000 >"$work/accounts-$backend.txt"
    cpu_single_before=$(cpu_ticks "$server_pid")
    # The same wrk shape as the steps (a thread per connection): wrk shares the two cores with
    # hubd, and 2 threads serving 64 connections cost it less CPU per request than 64 threads do,
    # which would weigh the ratio against the steps by the client's cost, not the hub's.
    timed_wrk "$work/wrk-single-times-$backend.txt" --threads "$workers" --connections "$workers" --duration "${seconds}s" --timeout 10s --latency \
        --script bench/http/transfers.lua "$base" -- "$work/accounts-$backend.txt" "$token" BENCH 1 >"$work/wrk-single-$backend.txt"
    cpu_single_after=$(cpu_ticks "$server_pid")
    python3 - "$results" "$work/wrk-steps-$backend.txt" "$work/steps-received-$backend.txt" "$work/wrk-single-$backend.txt" "$workers" \
        "$cpu_steps_before" "$cpu_steps_after" "$cpu_single_before" "$cpu_single_after" \
        "$work/wrk-steps-times-$backend.txt" "$work/wrk-single-times-$backend.txt" <<'EOF'
import json, os, re, sys
results_path, steps_path, received_path, single_path, workers = sys.argv[1:6]
tick = 1 / os.sysconf("SC_CLK_TCK")
cpu_steps_before, cpu_steps_after, cpu_single_before, cpu_single_after = ([int(x) * tick for x in a.split()] for a in sys.argv[6:10])
def wrk_seconds(path):
    """wrk's CPU seconds (user + system): the children's line bash's `times` printed after it."""
    children = open(path).read().strip().splitlines()[-1]
    return sum(int(m) * 60 + float(sec) for m, sec in re.findall(r"(\d+)m([\d.]+)s", children))
wrk_steps_seconds, wrk_single_seconds = wrk_seconds(sys.argv[10]), wrk_seconds(sys.argv[11])
def cpu_ms_each(before, after, wrk, count):
    """CPU milliseconds per request of hubd, of PostgreSQL and of the client (wrk) during one wrk phase."""
    return {"hubd": round(1000 * (after[0] - before[0]) / count, 3), "postgres": round(1000 * (after[1] - before[1]) / count, 3),
            "wrk": round(1000 * wrk / count, 3)}
def bench_json(path):
    line = next(l for l in open(path) if l.startswith("BENCH_JSON "))
    return json.loads(line[len("BENCH_JSON "):])
steps, single = bench_json(steps_path), bench_json(single_path)
received = int(open(received_path).read())
rows = [json.loads(l) for l in open(results_path) if l.strip()]
row = rows[-1]
steps_per_sec = steps["steps"] / (steps["duration_us"] / 1e6)
single_per_sec = (single["requests"] - single["refused_transfers"]) / (single["duration_us"] / 1e6)
# wrk stops with requests in flight: a pay the hub committed may have no counted answer.
received_ok = 2500 * steps["flows"] <= received <= 2500 * (steps["flows"] + int(workers))
row["write_steps"] = dict(steps, steps_per_sec=round(steps_per_sec, 1), payees_received=str(received), payees_received_ok=received_ok,
                         cpu_ms_per_step=cpu_ms_each(cpu_steps_before, cpu_steps_after, wrk_steps_seconds, steps["steps"]))
row["single_transfers"] = dict(single, transfers_per_sec=round(single_per_sec, 1),
                               cpu_ms_per_transfer=cpu_ms_each(cpu_single_before, cpu_single_after, wrk_single_seconds, single["requests"]))
row["write_steps_per_single_transfer"] = round(steps_per_sec / single_per_sec, 3)
rows[-1] = row
open(results_path, "w").write("".join(json.dumps(r) + "\n" for r in rows))
EOF

    stop_server
    say "[$backend] hubd verify"
    "$hubd" verify --database-url "$database" >"$work/verify-$backend.txt" 2>&1 || {
        cat "$work/verify-$backend.txt" >&2
        die "[$backend] hubd verify failed after the benchmark"
    }
}

for_each_backend

mkdir -p "$(dirname "$output_file")"
python3 - "$results" "$output_file" <<'EOF'
import json, sys, time
sys.path.insert(0, "bench/lib")
from machine import machine
results_path, output_path = sys.argv[1:]
rows = [json.loads(line) for line in open(results_path) if line.strip()]


def ms(summary):
    return f"{summary['p50_ms']:.1f} / {summary['p99_ms']:.1f}" if summary["count"] else "-"


print()
header = f"{'backend':<9} {'workers':>7} {'flows':>7} {'flows/s':>8} {'req/s':>7} {'flow p50/p99 ms':>16} " + " ".join(
    f"{step + ' p50/p99':>16}" for step in ("create", "resolve", "lock", "pay")) + f" {'errors':>6}"
print(header)
print("-" * len(header))
for r in rows:
    print(f"{r['backend']:<9} {r['workers']:>7} {r['flows']:>7} {r['flows_per_sec']:>8.1f} {r['requests_per_sec']:>7.0f} {ms(r['flow']):>16} "
          + " ".join(f"{ms(r['steps'][s]):>16}" for s in ("create", "resolve", "lock", "pay")) + f" {r['errors']:>6}")
    if r["errors"]:
        print(f"  errors: {r['errors_by_kind']}; first: {r['error_samples'][:2]}")
    w = r["write_steps"]
    print(f"  write steps alone (wrk): {w['steps_per_sec']:,.0f}/s, p50/p99 {w['p50_ms']:.1f}/{w['p99_ms']:.1f} ms, errors {w['errors'] + w['socket_errors']}"
          f"{'' if w['payees_received_ok'] else ', WRONG PAYEE TOTAL'}; single transfers (wrk): {r['single_transfers']['transfers_per_sec']:,.0f}/s;"
          f" ratio {r['write_steps_per_single_transfer']:.2f}")
    cs, ct = w["cpu_ms_per_step"], r["single_transfers"]["cpu_ms_per_transfer"]
    print(f"  CPU ms per write step: hubd {cs['hubd']:.3f}, PostgreSQL {cs['postgres']:.3f}; per single transfer: hubd {ct['hubd']:.3f},"
          f" PostgreSQL {ct['postgres']:.3f}; wrk per step {cs['wrk']:.3f}, per transfer {ct['wrk']:.3f}")
    print(f"  load average (1, 5, 15 min) before: {r['load_average_before']}, after: {r['load_average_after']} (2 cores)")
    if not r["payees_received_ok"]:
        print(f"  the payees received {r['payees_received']}, not 2500 x {r['completed_flows_including_warmup']}")
print()
print("flow = create (payee) -> resolve (advertisement, no auth) -> lock (hold) -> pay (Idempotency-Key), one payer per worker;")
print(f"closed loop on the same machine; resolves_per_minute = {rows[0]['resolves_per_minute'] if rows else '?'} so the resolve rate limit does not cap the flows.")
json.dump({
    "generated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    "machine": machine(),
    "load": "bench/ble-sessions/flows.py (Python asyncio + aiohttp, closed loop, one payer per worker, each worker from its own loopback address) on the same machine",
    "results": rows,
}, open(output_path, "w"), indent=2)
open(output_path, "a").write("\n")
EOF
say "wrote $output_file"
python3 -c '
import json, sys
bad = [r for r in json.load(open(sys.argv[1]))["results"] if r["errors"] or not r["payees_received_ok"]
       or r["write_steps"]["errors"] or r["write_steps"]["socket_errors"] or not r["write_steps"]["payees_received_ok"]
       or r["single_transfers"]["refused_transfers"] or r["single_transfers"]["socket_errors"] or r["single_transfers"]["non_2xx"]]
sys.exit(1 if bad else 0)' "$output_file" || die "some flows failed or the payees' total is wrong (see the table)"
