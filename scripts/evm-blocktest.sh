#!/usr/bin/env bash
# The EVM conformance suite: every Cancun case of the Ethereum BlockchainTests in
# Tests/Fixtures/ethereum-tests/BlockchainTests.tar.xz through `hubd evm blocktest`.
# Usage: scripts/evm-blocktest.sh [hubd evm blocktest options...]
#   HUB_EVM_FIXTURES=DIR  run the BlockchainTests folder DIR instead of the committed archive
#   HUB_HUBD=PATH         the hubd binary (default: .build/debug/hubd, built if missing)
# Prints one JSON line per failing case and a summary per category; exits 1 on any failure.
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
"$hubd" evm blocktest --quiet "$@" "$fixtures"
