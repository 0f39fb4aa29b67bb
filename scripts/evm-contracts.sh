#!/usr/bin/env bash
# The EVM rail's contracts (contracts/evm/*.vy): compiles them with the pinned vyper into what is
# committed from them (contracts/evm/build/*.json, Sources/Plugins/EVM/Contracts/CompiledContracts.swift
# and the function and event tables of contracts/evm/README.md), then runs their contract tests
# (tools/evm/contract_tests, pytest with titanoboa). The tools come from the pinned
# tools/evm/contract_tests/requirements.txt, in a venv under .build-evm-contracts/.
# Usage: scripts/evm-contracts.sh           regenerate the artifacts in place, then test
#        scripts/evm-contracts.sh --check   fail (showing the difference) when the committed artifacts
#                                           are not what the sources compile to, then test
#        extra arguments after the option go to pytest (e.g. -k auction)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
say() { echo "evm-contracts.sh: $*" >&2; }
die() {
    say "$*"
    exit 1
}
source "$root/scripts/lib/live-hubd.bash"

check=false
if [[ ${1:-} == --check ]]; then
    check=true
    shift
fi

venv=$root/.build-evm-contracts/venv
pinned_venv "$venv" tools/evm/contract_tests/requirements.txt
python=$venv/bin/python

generated=(contracts/evm/build Sources/Plugins/EVM/Contracts/CompiledContracts.swift contracts/evm/README.md)
if $check; then
    fresh=$(mktemp -d "${TMPDIR:-/tmp}/hub-evm-contracts.XXXXXX")
    trap 'rm -rf "$fresh"' EXIT
    "$python" tools/evm/build_contracts.py --out "$fresh"
    stale=false
    for path in "${generated[@]}"; do
        if ! diff -ru "$path" "$fresh/$path" >"$fresh/diff" 2>&1; then
            stale=true
            say "$path differs from what the sources compile to:"
            head -c 4000 "$fresh/diff" >&2
            echo >&2
        fi
    done
    $stale && die "the committed contract artifacts are stale: run scripts/evm-contracts.sh (make evm-contracts) and commit"
    say "the committed artifacts are what vyper makes of contracts/evm/*.vy"
else
    "$python" tools/evm/build_contracts.py
    say "wrote ${generated[*]}"
fi

cd tools/evm/contract_tests
PYTHONDONTWRITEBYTECODE=1 exec "$python" -m pytest -q -p no:cacheprovider "$@"
