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

# shellcheck source=scripts/throwaway-postgres.bash
source "$root/scripts/throwaway-postgres.bash"
if [[ -z ${HUB_BENCH_POSTGRES_URL:-} ]]; then
    # Port 54330, not the tests' 54329, so a benchmark and a test run can share a machine.
    start_throwaway_postgres 54330 bench
    HUB_BENCH_POSTGRES_URL=$THROWAWAY_POSTGRES_URL
fi

echo "bench-ledger.sh: benchmark uses PostgreSQL at $HUB_BENCH_POSTGRES_URL"
mkdir -p bench/results
.build/release/LedgerBench --postgres-url "$HUB_BENCH_POSTGRES_URL" \
    --output bench/results/ledger.json "$@"
