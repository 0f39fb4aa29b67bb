#!/usr/bin/env bash
# How cost grows with the ledger (issue 16): `LedgerBench --scale-steps` grows a migrated hub's
# ledger step by step (funded accounts, then ten transfers per account) and at each step
# measures 64 concurrent callers' single transfers between random accounts of the whole ledger
# (rate, p50, p99; the first step is the baseline) and `hubd verify` in its own process (seconds
# and peak resident memory, which must stay flat: verify streams). On SQLite and, when a PostgreSQL
# server is installed, on a throwaway cluster (bench/results/scale-growth-BACKEND.json). Then
# scripts/bench-fanout.sh measures the event stream's fan-out to 1,000 SSE clients across three
# instances (bench/results/fanout.json), and bench/scale/plot.py merges the latest results of each
# part into bench/results/scale.json and draws bench/results/scale.png: a run of one backend
# (BENCH_BACKENDS=postgres) or without the fan-out keeps the other parts' last results in the plot.
# SQLite grows in the benchmark's process through the kernel's batched writes; PostgreSQL by SQL
# (`--bulk-growth`, bench/LedgerBench/BulkGrowth.swift: the same rows, written server-side), because
# tens of millions of transfers through the kernel take hours on 2 cores. What is measured goes
# through the kernel on both. On PostgreSQL each step is measured twice: right after growth, then
# again once pg_prewarm has read what a transfer touches at random into the cache (`--prewarm`).
# Usage: scripts/bench-scale.sh
# Environment: BENCH_SQLITE_STEPS (10000,100000,1000000), BENCH_POSTGRES_STEPS
#   (10000,100000,1000000,10000000), BENCH_TRANSFERS_PER_ACCOUNT (10), BENCH_POSTGRES_MAX_TRANSFERS
#   (50000000: a transfer takes about 1 KB of PostgreSQL with its event and indexes, so the ten
#   million accounts' hundred million transfers need about 100 GB of disk; the cap keeps the last
#   step to about 50 GB), BENCH_MEASURED (20000 transfers per step), BENCH_BACKENDS
#   ("sqlite postgres"), BENCH_SKIP_FANOUT (1 skips the fan-out), HUB_BENCH_POSTGRES_URL.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

say() { echo "bench-scale.sh: $*" >&2; }
die() {
    say "$*"
    exit 1
}

backends=${BENCH_BACKENDS:-sqlite postgres}
per_account=${BENCH_TRANSFERS_PER_ACCOUNT:-10}
measured=${BENCH_MEASURED:-20000}
export no_proxy=127.0.0.1${no_proxy:+,$no_proxy} NO_PROXY=127.0.0.1${NO_PROXY:+,$NO_PROXY}

source "$root/scripts/lib/bench-server.bash"
venv=$root/.build-bench/scale-venv
pinned_venv "$venv" bench/scale/plot-requirements.txt

bash scripts/install-deps.sh
say "building hubd and LedgerBench (release; several minutes the first time)"
swift build -c release --product hubd
swift build -c release --product LedgerBench
hubd=$root/.build/release/hubd

bench_work scale
# verify reads no secret, but hubd's start-up makes the key file when it is missing: keep it here.
export HUB_SECRETS_KEY_FILE=$work/secrets.key

# run_backend NAME DATABASE_URL: the growth steps on one fresh database; writes
# bench/results/scale-growth-NAME.json.
run_backend() {
    local backend=$1 database=$2 steps growth=()
    case $backend in
        sqlite) steps=${BENCH_SQLITE_STEPS:-10000,100000,1000000} ;;
        postgres)
            steps=${BENCH_POSTGRES_STEPS:-10000,100000,1000000,10000000}
            growth=(--bulk-growth --prewarm --max-transfers "${BENCH_POSTGRES_MAX_TRANSFERS:-50000000}")
            ;;
    esac
    say "[$backend] steps of $steps accounts, $per_account transfers per account"
    "$hubd" migrate --database-url "$database" >"$work/migrate-$backend.log" 2>&1 ||
        die "[$backend] hubd migrate failed: $(tail -n 5 "$work/migrate-$backend.log")"
    .build/release/LedgerBench --scale-steps "$steps" --database-url "$database" \
        --transfers-per-account "$per_account" "${growth[@]}" --measured "$measured" --hubd "$hubd" \
        --output "bench/results/scale-growth-$backend.json" || die "[$backend] LedgerBench failed"
    # The database can be tens of GB: gone before the next backend grows its own.
    if [[ $backend == sqlite ]]; then rm -f "$work"/hub.sqlite*; fi
    if [[ -n $pg_dir ]]; then
        bash "$root/scripts/pg-throwaway.sh" stop "$pg_dir" || true
        rm -rf "$pg_dir"
        pg_dir=
    fi
}
for_each_backend

if [[ ${BENCH_SKIP_FANOUT:-0} != 1 ]]; then
    HUB_BENCH_SKIP_BUILD=1 bash scripts/bench-fanout.sh || die "the fan-out benchmark failed"
fi

fanout=()
[[ -f bench/results/fanout.json ]] && fanout=(--fanout bench/results/fanout.json)
"$venv/bin/python" bench/scale/plot.py \
    --growth bench/results/scale-growth-*.json "${fanout[@]}" \
    --output bench/results/scale.json --plot bench/results/scale.png
