#!/usr/bin/env bash
# HTTP benchmark of the ledger through hubd's API (bench/http): a release hubd on SQLite and, when a
# PostgreSQL server is installed, on a throwaway PostgreSQL cluster; an admin, an asset and N funded
# accounts; then wrk drives
#   (a) single transfers, POST /v1/ledger/transfers, one fresh id per request;
#   (a') the same with a fresh `Idempotency-Key` per request, as careful clients send them (the key
#        and the reply are recorded in the transfer's own unit of work);
#   (b) batches of 100, POST /v1/ledger/transfers/batch.
# Load: plain wrk (Debian has no wrk2), i.e. a closed loop with a fixed number of connections for a
# fixed time; each connection sends its next request when the previous answer arrives. wrk runs on
# the same machine as hubd and takes CPU from it.
# Before each backend's HTTP load, the ledger is measured directly (bench/LedgerBench, no HTTP) in
# the same shapes on the same machine in the same run: 64 concurrent single-transfer callers, and
# 16 concurrent callers of batches of 100. Prints a table with transfers/s, p50/p99 latency and the
# ratio HTTP / direct, and writes bench/results/http.json.
# Usage: scripts/bench-http.sh
# Environment: BENCH_SECONDS (20), BENCH_ACCOUNTS (1000), BENCH_SINGLE_CONNECTIONS (64),
#   BENCH_BATCH_CONNECTIONS (16), BENCH_BATCH_SIZE (100), BENCH_BACKENDS ("sqlite postgres"),
#   HUB_BENCH_POSTGRES_URL (an existing database instead of a throwaway cluster), BENCH_WORKLOADS
#   ("single keyed batch"), BENCH_HUBD (a hubd built elsewhere, measured as it is: an A/B of two
#   builds in one sitting).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

say() { echo "bench-http.sh: $*" >&2; }
die() {
    say "$*"
    exit 1
}

seconds=${BENCH_SECONDS:-20}
account_count=${BENCH_ACCOUNTS:-1000}
single_connections=${BENCH_SINGLE_CONNECTIONS:-64}
batch_connections=${BENCH_BATCH_CONNECTIONS:-16}
batch_size=${BENCH_BATCH_SIZE:-100}
workloads=${BENCH_WORKLOADS:-single keyed batch}
backends=${BENCH_BACKENDS:-sqlite postgres}
# Requests to the hub on loopback never go through a proxy the environment may name.
export no_proxy=127.0.0.1${no_proxy:+,$no_proxy} NO_PROXY=127.0.0.1${NO_PROXY:+,$NO_PROXY}

# wrk from Debian, when missing.
source "$root/scripts/lib/ensure-wrk.bash"
ensure_wrk

bash scripts/install-deps.sh
source "$root/scripts/lib/bench-server.bash"
bench_hubd
swift build -c release --product LedgerBench
ledger_bench=$root/.build/release/LedgerBench
[[ -x $ledger_bench ]] || die "LedgerBench was not built"

bench_work http

results=$work/results.jsonl
: >"$results"

direct=$work/direct.jsonl
: >"$direct"

# run_direct NAME [POSTGRES_URL]: the ledger without HTTP in the HTTP workloads' shapes (one run
# each, on an empty database of its own); appends its rows to $direct.
run_direct() {
    local backend=$1 url=${2:-} arguments=()
    [[ -n $url ]] && arguments=(--postgres-url "$url")
    say "[$backend] the ledger directly (LedgerBench, same shapes)"
    "$ledger_bench" --backend "$backend" --runs 1 --only "hub-single-$single_connections,hub-batches-$batch_size-$batch_connections" \
        --output "$work/direct-$backend.json" "${arguments[@]}" >"$work/direct-$backend.log" 2>&1 || {
        tail -n 30 "$work/direct-$backend.log" >&2
        die "[$backend] LedgerBench failed"
    }
    python3 -c 'import json, sys; [print(json.dumps(r)) for r in json.load(open(sys.argv[1]))["results"]]' "$work/direct-$backend.json" >>"$direct"
}

# run_backend NAME DATABASE_URL: one hubd, its setup, both workloads; appends to $results.
run_backend() {
    local backend=$1 database=$2 port base password token accounts_file workload connections batch output
    port=$(free_port)
    base=http://127.0.0.1:$port
    say "[$backend] starting hubd on $base"
    HUB_LOG_LEVEL=warning "$hubd" serve --database-url "$database" --listen "127.0.0.1:$port" >"$work/hubd-$backend.log" 2>&1 &
    server_pid=$!
    python3 tools/contract/hubapi.py wait-ready "$base" 60 || {
        tail -n 30 "$work/hubd-$backend.log" >&2
        die "[$backend] hubd did not become ready"
    }
    password=$(python3 -c 'import secrets; print(secrets.token_urlsafe(24))')
    printf '%s\n' "$password" | "$hubd" admin create --database-url "$database" --email bench@example.test --password-stdin >/dev/null
    token=$(printf '%s\n' "$password" | python3 tools/contract/hubapi.py login "$base" bench@example.test)

    accounts_file=$work/accounts-$backend.txt
    say "[$backend] creating asset BENCH and $account_count funded accounts"
    python3 tools/contract/hubapi.py bench-setup "$base" "$token" BENCH "$account_count" 1000000000000 >"$accounts_file"

    for workload in $workloads; do
        case $workload in
            single | keyed) connections=$single_connections batch=1 ;;
            batch) connections=$batch_connections batch=$batch_size ;;
            *) die "unknown workload '$workload' in BENCH_WORKLOADS" ;;
        esac
        say "[$backend] $workload: wrk, $connections connections, ${seconds} s"
        output=$work/wrk-$backend-$workload.txt
        wrk --threads 2 --connections "$connections" --duration "${seconds}s" --timeout 10s --latency \
            --script bench/http/transfers.lua "$base" -- "$accounts_file" "$token" BENCH "$batch" \
            "$([[ $workload == keyed ]] && echo keyed || echo plain)" >"$output"
        python3 - "$output" "$backend" "$workload" "$connections" "$batch" >>"$results" <<'EOF'
import json, sys
path, backend, workload, connections, batch = sys.argv[1:]
line = next(l for l in open(path) if l.startswith("BENCH_JSON "))
stats = json.loads(line[len("BENCH_JSON "):])
seconds = stats["duration_us"] / 1e6
stats.update(backend=backend, workload=workload, connections=int(connections), batch=int(batch), seconds=seconds,
             requests_per_sec=stats["requests"] / seconds,
             transfers_per_sec=(stats["requests"] * int(batch) - stats["refused_transfers"]) / seconds)
print(json.dumps(stats))
EOF
    done

    stop_server
    # The ledger's invariants after the load: balances sum to zero, flags hold, replay matches.
    say "[$backend] hubd verify"
    "$hubd" verify --database-url "$database" >"$work/verify-$backend.txt" 2>&1 || {
        cat "$work/verify-$backend.txt" >&2
        die "[$backend] hubd verify failed after the benchmark"
    }
}

for backend in $backends; do
    case $backend in
        sqlite)
            run_direct sqlite
            run_backend sqlite "sqlite:$work/hub.sqlite"
            ;;
        postgres)
            bench_postgres_url || continue
            # The direct measurement empties its database's schema: give it a database of its own.
            psql -q "$url" -c "DROP DATABASE IF EXISTS hub_bench_direct" -c "CREATE DATABASE hub_bench_direct" ||
                die "[postgres] could not create the database hub_bench_direct"
            run_direct postgres "${url%/*}/hub_bench_direct"
            run_backend postgres "$url"
            ;;
        *) die "unknown backend '$backend' in BENCH_BACKENDS" ;;
    esac
done

mkdir -p bench/results
python3 - "$results" "$direct" bench/results/http.json "$single_connections" "$batch_connections" "$batch_size" <<'EOF'
import json, sys, time
sys.path.insert(0, "bench/lib")
from machine import machine
results_path, direct_path, output_path, single_connections, batch_connections, batch_size = sys.argv[1:]
rows = [json.loads(line) for line in open(results_path) if line.strip()]


# The ledger measured directly (no HTTP) in the same run, in each workload's shape.
direct = {}
for line in open(direct_path):
    if line.strip():
        r = json.loads(line)
        shape = "single" if r["mode"].startswith("hub-single-") else "batch"
        direct[(r["backend"], shape)] = r["transfers_per_sec"]
print()
header = f"{'backend':<9} {'workload':<20} {'conns':>5} {'requests/s':>11} {'transfers/s':>12} {'p50 ms':>8} {'p99 ms':>8} {'refused':>8} {'direct/s':>10} {'HTTP / direct':>14}"
print(header)
print("-" * len(header))
for r in rows:
    shape = "single" if r["batch"] == 1 else "batch"
    name = {"single": "single transfers", "keyed": "single, with key"}.get(r["workload"], f"batches of {r['batch']}")
    same = direct.get((r["backend"], shape))
    r["direct_same_shape_per_sec"] = same
    print(f"{r['backend']:<9} {name:<20} {r['connections']:>5} {r['requests_per_sec']:>11,.0f} {r['transfers_per_sec']:>12,.0f} "
          f"{r['p50_ms']:>8.2f} {r['p99_ms']:>8.2f} {r['refused_transfers'] + r['socket_errors']:>8} "
          f"{(same or float('nan')):>10,.0f} {(r['transfers_per_sec'] / same if same else float('nan')):>13.2f}x")
print()
print(f"direct = the ledger without HTTP (bench/LedgerBench), measured just before in the same shape: {single_connections} concurrent")
print(f"single-transfer callers for (a) and (a'), {batch_connections} concurrent callers of batches of {batch_size} for (b). Load: wrk closed loop on the same cores.")
print("single, with key = (a) with a fresh Idempotency-Key per request.")
json.dump({
    "generated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    "machine": machine(),
    "load": "wrk (closed loop): fixed connections and duration, 2 wrk threads on the same machine",
    "results": rows,
}, open(output_path, "w"), indent=2)
open(output_path, "a").write("\n")
EOF
say "wrote bench/results/http.json"
# A refused transfer or a socket error means the numbers are not what they claim.
python3 -c '
import json, sys
bad = [r for r in json.load(open("bench/results/http.json"))["results"] if r["refused_transfers"] or r["socket_errors"] or r["non_2xx"]]
sys.exit(1 if bad else 0)' || die "some requests failed or transfers were refused (see the table)"
