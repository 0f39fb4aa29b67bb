#!/usr/bin/env bash
# Ledger benchmark against PostgreSQL; writes bench/results/ledger.json.
# Usage: scripts/bench-ledger.sh [LedgerBench arguments...]
# Set HUB_BENCH_POSTGRES_URL to use an existing database instead of a throwaway cluster.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

bash scripts/install-deps.sh

# Build before starting PostgreSQL: a failed build then costs no cluster, and the cluster is not idle for minutes.
swift build -c release --product LedgerBench

if [[ -z ${HUB_BENCH_POSTGRES_URL:-} ]]; then
    pgdir=$(mktemp -d "${TMPDIR:-/tmp}/hub-bench-pg.XXXXXX")
    trap 'bash "$root/scripts/pg-throwaway.sh" stop "$pgdir" || true' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    # Port 54330, not the tests' 54329, so a benchmark and a test run can share a machine.
    HUB_BENCH_POSTGRES_URL=$(bash scripts/pg-throwaway.sh start "$pgdir" 54330)
fi

echo "bench-ledger.sh: benchmark uses PostgreSQL at $HUB_BENCH_POSTGRES_URL"
mkdir -p bench/results
.build/release/LedgerBench --postgres-url "$HUB_BENCH_POSTGRES_URL" \
    --output bench/results/ledger.json "$@"
