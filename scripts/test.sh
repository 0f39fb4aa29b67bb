#!/usr/bin/env bash
# The whole test suite: installs dependencies, provides PostgreSQL, runs `swift test`.
# Usage: scripts/test.sh [swift test arguments...]
# Set HUB_TEST_POSTGRES_URL to use an existing database instead of a throwaway cluster.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

bash scripts/install-deps.sh

# shellcheck source=scripts/throwaway-postgres.bash
source "$root/scripts/throwaway-postgres.bash"
if [[ -z ${HUB_TEST_POSTGRES_URL:-} ]]; then
    start_throwaway_postgres 54329 test
    HUB_TEST_POSTGRES_URL=$THROWAWAY_POSTGRES_URL
    export HUB_TEST_POSTGRES_URL
fi

echo "test.sh: tests use PostgreSQL at $HUB_TEST_POSTGRES_URL"

# Keep a copy of the output to end with a plain "N passed, N failed" line: swift test prints an
# XCTest summary ("Executed 0 tests") before Swift Testing's, which would otherwise read as no tests.
log=$(mktemp "${TMPDIR:-/tmp}/hub-test-log.XXXXXX")
status=0
swift test "$@" 2>&1 | tee "$log" || status=${PIPESTATUS[0]}
echo "test.sh: swift test exited with status $status"
# The EVM conformance suite (Ethereum BlockchainTests through `hubd evm blocktest`), counted as one
# test; a filtered run (arguments given) skips it unless HUB_EVM_BLOCKTEST=1.
evm_status=0
if [[ $# == 0 || ${HUB_EVM_BLOCKTEST:-} == 1 ]]; then
    bash scripts/evm-blocktest.sh || evm_status=$?
    echo "test.sh: EVM blocktest suite exited with status $evm_status"
fi
total=$(grep -oE 'Test run with [0-9]+ tests?' "$log" | grep -oE '[0-9]+' | tail -n 1 || true)
failed=$(grep -cE '^✘ Test .* failed after' "$log" || true)
# The project's code stays free of compiler warnings (one hid an infinite recursion once): any
# warning in a file this run compiled fails it. A fresh clone, as in CI, compiles every file.
warnings=$(grep -E "^$root/(Sources|Tests|bench|fuzz)/[^:]+:[0-9]+:[0-9]+: warning:" "$log" | sort -u || true)
rm -f "$log"
if [[ -n $warnings ]]; then
    echo "test.sh: compiler warnings in the project's code (fix them; the build must stay warning-free):"
    echo "$warnings"
    [[ $status == 0 ]] && status=1
fi
if [[ -n $total ]]; then
    total=$((total + 1))
    [[ $evm_status != 0 ]] && failed=$((failed + 1))
    [[ -n $warnings ]] && failed=$((failed + 1))
fi
[[ $status == 0 ]] && status=$evm_status
if [[ -n $total ]]; then
    summary="$((total - failed)) passed, $failed failed"
elif [[ $status != 0 ]]; then
    summary="0 passed, 1 failed"  # the build or the runner failed before any test ran
else
    summary="0 passed, 0 failed"
fi
[[ -n ${HUB_TEST_SUMMARY_FILE:-} ]] && echo "$summary" > "$HUB_TEST_SUMMARY_FILE"
echo "$summary"
exit "$status"
