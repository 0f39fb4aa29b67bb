#!/usr/bin/env bash
# The EVM differential test: random programs and the Vyper contracts of tools/evm/contracts/ run in
# EVMKit (`hubd evm run`) and in revm (pyrevm, pinned in tools/evm/requirements.txt, in a venv under
# .build-evm/); status, return data, gas used, logs, balances, nonces, code and storage must agree.
# Bounded: HUB_EVM_DIFF_CASES programs (default 3000) for the fixed seed and for each of
# HUB_EVM_DIFF_SEEDS further random seeds (default 2, printed so a failure can be rerun).
# Usage: scripts/evm-difftest.sh [difftest.py options, e.g. --seed 5 --random-seeds 0]
#   HUB_HUBD=PATH  the hubd binary (default: .build/debug/hubd, built if missing)
# Exits 1 on any disagreement, after printing the case cut down to what still disagrees; the cut
# case is also written to .build-evm/failures/ (tools/evm/make_fixture.py turns it into a
# regression fixture under Tests/Fixtures/evm-difftest/).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
say() { echo "evm-difftest.sh: $*" >&2; }
die() {
    say "$*"
    exit 1
}
source "$root/scripts/lib/live-hubd.bash"

venv=$root/.build-evm/venv
pinned_venv "$venv" tools/evm/requirements.txt

hubd=${HUB_HUBD:-}
if [[ -z $hubd ]]; then
    hubd=$root/.build/debug/hubd
    [[ -x $hubd ]] || build_debug_hubd
fi

cd tools/evm
exec "$venv/bin/python" difftest.py --hubd "$hubd" \
    --cases "${HUB_EVM_DIFF_CASES:-3000}" --random-seeds "${HUB_EVM_DIFF_SEEDS:-2}" \
    --failures "$root/.build-evm/failures" "$@"
