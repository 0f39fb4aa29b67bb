#!/usr/bin/env bash
# Benchmark of the Substrate rail's writes over HTTP (bench/substrate): a release hubd with the
# substrate rail on SQLite and, when a PostgreSQL server is installed, on a throwaway PostgreSQL
# cluster. bench/substrate/load.py drives three phases on the same hubd with the same workers, one
# after another: ledger transfers (the baseline: the kernel's write path alone), DID attribute
# writes (each a PeaqDid extrinsic the hub signs and verifies with sr25519) and signed sensor
# uploads (each an sr25519 signature the hub verifies, then compressed and stored). It reports
# requests/s and p50/p99 per phase, and each rail phase's rate as a ratio of the transfers' measured
# in the same run; hubd verify checks the ledger afterwards.
# Load: closed loop, Python asyncio and aiohttp on the same machine as hubd, taking CPU from it.
# Prints a table and writes bench/results/substrate.json (or BENCH_RESULTS); fails on any error.
# Usage: scripts/bench-substrate.sh
# Environment: BENCH_SECONDS (20), BENCH_WARMUP (3), BENCH_WORKERS (16), BENCH_BACKENDS
#   ("sqlite postgres"), BENCH_RESULTS (the output file), HUB_BENCH_POSTGRES_URL (an existing
#   database instead of a throwaway cluster), BENCH_HUBD (a hubd built elsewhere, measured as it
#   is: two builds compared in one sitting).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

say() { echo "bench-substrate.sh: $*" >&2; }
die() {
    say "$*"
    exit 1
}

seconds=${BENCH_SECONDS:-20}
warmup=${BENCH_WARMUP:-3}
workers=${BENCH_WORKERS:-16}
backends=${BENCH_BACKENDS:-sqlite postgres}
output_file=${BENCH_RESULTS:-bench/results/substrate.json}
export no_proxy=127.0.0.1${no_proxy:+,$no_proxy} NO_PROXY=127.0.0.1${NO_PROXY:+,$NO_PROXY}

source "$root/scripts/lib/bench-server.bash"
# The load generator's venv (aiohttp, py-sr25519-bindings; pinned), rebuilt when its requirements change.
venv=$root/.build-bench/substrate-venv
pinned_venv "$venv" bench/substrate/requirements.txt

bash scripts/install-deps.sh
bench_hubd

bench_work substrate

# The rail alone, with its defaults: peaq's bundled metadata for DIDs, sensors on.
cat >"$work/plugins.json" <<EOF
{ "plugins": [ { "id": "substrate", "enabled": true, "config": { "ss58_prefix": 42 } } ] }
EOF

results=$work/results.jsonl
: >"$results"

# run_backend NAME DATABASE_URL: one hubd, the accounts of the baseline, the three phases; appends to $results.
run_backend() {
    local backend=$1 database=$2 port base password token output status load_before load_after
    port=$(free_port)
    base=http://127.0.0.1:$port
    say "[$backend] starting hubd on $base"
    HUB_PLUGINS=$work/plugins.json HUB_SECRETS_KEY_FILE=$work/secrets-$backend.key HUB_LOG_LEVEL=warning \
        "$hubd" serve --database-url "$database" --listen "127.0.0.1:$port" >"$work/hubd-$backend.log" 2>&1 &
    server_pid=$!
    python3 tools/contract/hubapi.py wait-ready "$base" 60 || {
        tail -n 30 "$work/hubd-$backend.log" >&2
        die "[$backend] hubd did not become ready"
    }
    password=$(python3 -c 'import secrets; print(secrets.token_urlsafe(24))')
    printf '%s\n' "$password" | HUB_SECRETS_KEY_FILE=$work/secrets-$backend.key \
        "$hubd" admin create --database-url "$database" --email bench@example.test --password-stdin >/dev/null
    token=$(printf '%s\n' "$password" | python3 tools/contract/hubapi.py login "$base" bench@example.test)
    python3 tools/contract/hubapi.py bench-setup "$base" "$token" BENCH $((2 * workers)) 1000000 >"$work/accounts-$backend.txt"

    say "[$backend] $workers workers: transfers, DID writes, sensor uploads, each ${seconds} s after ${warmup} s warm-up"
    output=$work/load-$backend.json
    status=0
    load_before=$(cut -d' ' -f1-3 /proc/loadavg)
    "$venv/bin/python" bench/substrate/load.py run "$base" "$token" "$work/accounts-$backend.txt" --workers "$workers" \
        --seconds "$seconds" --warmup "$warmup" >"$output" || status=$?
    load_after=$(cut -d' ' -f1-3 /proc/loadavg)
    [[ -s $output ]] || {
        tail -n 30 "$work/hubd-$backend.log" >&2
        die "[$backend] load.py failed before it measured anything"
    }
    python3 - "$output" "$backend" "$load_before" "$load_after" >>"$results" <<'EOF'
import json, sys
path, backend, before, after = sys.argv[1:]
row = json.load(open(path))
row.update(backend=backend, load_average_before=before, load_average_after=after)
print(json.dumps(row))
EOF
    [[ $status == 0 ]] || say "[$backend] load.py reported errors or a wrong attribute count (see the table)"

    stop_server
    say "[$backend] hubd verify"
    HUB_SECRETS_KEY_FILE=$work/secrets-$backend.key "$hubd" verify --database-url "$database" >"$work/verify-$backend.txt" 2>&1 || {
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

print()
header = f"{'backend':<9} {'phase':<10} {'workers':>7} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'ratio':>6} {'errors':>6}"
print(header)
print("-" * len(header))
for r in rows:
    for phase in ("transfers", "did", "upload"):
        p = r["phases"][phase]
        ratio = {"transfers": 1.0, "did": r["did_writes_per_transfer"], "upload": r["uploads_per_transfer"]}[phase]
        print(f"{r['backend']:<9} {phase:<10} {r['workers']:>7} {p['per_sec']:>8.1f} {p['p50_ms'] or 0:>8.1f} {p['p99_ms'] or 0:>8.1f}"
              f" {ratio or 0:>6.2f} {p['errors']:>6}")
        if p["errors"]:
            print(f"  errors: {p['errors_by_kind']}; first: {p['error_samples'][:2]}")
    if not r["attributes_ok"]:
        print(f"  attributes stored {r['attributes_stored']}, acknowledged {r['attributes_acknowledged']}")
    print(f"  load average (1, 5, 15 min) before: {r['load_average_before']}, after: {r['load_average_after']}")
print()
print("ratio = the phase's requests/s over the transfers' on the same hubd, same workers, same run.")
json.dump({
    "generated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    "machine": machine(),
    "load": "bench/substrate/load.py (Python asyncio + aiohttp, closed loop, each worker its own user, DID, sensor, accounts and loopback address) on the same machine",
    "results": rows,
}, open(output_path, "w"), indent=2)
open(output_path, "a").write("\n")
EOF
say "wrote $output_file"
python3 -c '
import json, sys
bad = [r for r in json.load(open(sys.argv[1]))["results"]
       if not r["attributes_ok"] or any(p["errors"] for p in r["phases"].values())]
sys.exit(1 if bad else 0)' "$output_file" || die "some requests failed or the attribute count is wrong (see the table)"
