#!/usr/bin/env bash
# The EVM conformance suite: every Cancun case of the Ethereum BlockchainTests in
# Tests/Fixtures/ethereum-tests/BlockchainTests.tar.xz through `hubd evm blocktest`.
# Usage: scripts/evm-blocktest.sh [hubd evm blocktest options...]
#   HUB_EVM_FIXTURES=DIR  run the BlockchainTests folder DIR instead of the committed archive
#   HUB_HUBD=PATH         the hubd binary (default: .build/debug/hubd, built if missing)
# Prints one JSON line per failing case and a summary per category. Exits 1 on any failure not
# listed in Tests/Fixtures/ethereum-tests/known-failures.txt (each listed there with its reason).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

hubd=${HUB_HUBD:-$root/.build/debug/hubd}
if [[ ! -x $hubd ]]; then
    swift build --product hubd
fi

fixtures=${HUB_EVM_FIXTURES:-}
if [[ -z $fixtures ]]; then
    work=$(mktemp -d "${TMPDIR:-/tmp}/hub-evm-blocktest.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    tar -xJf Tests/Fixtures/ethereum-tests/BlockchainTests.tar.xz -C "$work"
    fixtures=$work/BlockchainTests
fi

echo "evm-blocktest.sh: $hubd evm blocktest $fixtures"
out=$(mktemp "${TMPDIR:-/tmp}/hub-evm-blocktest-out.XXXXXX")
status=0
"$hubd" evm blocktest --quiet "$@" "$fixtures" | tee "$out" || status=${PIPESTATUS[0]}

known=$root/Tests/Fixtures/ethereum-tests/known-failures.txt
failing=$(grep '"pass":false' "$out" | grep -oE '"name":"[^"]*"' | cut -d'"' -f4 | sort -u || true)
rm -f "$out"
listed=$(grep -vE '^(#|$)' "$known" | sort -u)
unexpected=$(comm -23 <(printf '%s\n' "$failing" | sed '/^$/d') <(printf '%s\n' "$listed"))
fixed=$(comm -13 <(printf '%s\n' "$failing" | sed '/^$/d') <(printf '%s\n' "$listed"))
[[ -n $fixed ]] && printf 'evm-blocktest.sh: listed as known failures but not failing in this run (remove them if fixed): %s\n' $fixed
if [[ -n $unexpected ]]; then
    printf 'evm-blocktest.sh: unexpected failure: %s\n' $unexpected
    exit 1
fi
if [[ $status != 0 && -z $failing ]]; then
    echo "evm-blocktest.sh: hubd exited with $status without a failing case" >&2
    exit "$status"
fi
echo "evm-blocktest.sh: no failure beyond the $(printf '%s\n' "$listed" | sed '/^$/d' | wc -l) known ones"
