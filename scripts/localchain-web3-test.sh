#!/usr/bin/env bash
# The local chain's JSON-RPC endpoint driven by a real Ethereum client library: starts the built
# `hubd serve` on a throwaway SQLite database with the localchain rail enabled, creates an admin,
# and runs tools/localchain/web3_check.py (web3.py + eth-account from the pinned
# tools/localchain/requirements.txt, in a venv under .build-localchain/): payments, then an ERC-20
# compiled by the pinned vyper (tools/localchain/contracts, re-checked here) deployed and used,
# its events read through eth_getLogs, a log filter and eth_subscribe (web3.py's WebSocketProvider
# on the API's port), an escrow holding and paying out the chain's currency, and every block
# replayed from genesis in revm (pyrevm) with its state root rebuilt by py-trie
# (tools/localchain/replay_check.py). Then `hubd verify` proves the chain's balances, contracts'
# included, are the ledger's.
# Usage: scripts/localchain-web3-test.sh
# Exits non-zero when a check fails. If PyPI cannot be reached to build the venv, it says so and
# fails (the test is the only live check of wallet compatibility; skipping silently would hide it).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
say() { echo "localchain-web3-test.sh: $*" >&2; }
die() {
    say "$*"
    exit 1
}
source "$root/scripts/lib/live-hubd.bash"
export no_proxy=127.0.0.1${no_proxy:+,$no_proxy} NO_PROXY=127.0.0.1${NO_PROXY:+,$NO_PROXY}

requirements=tools/localchain/requirements.txt
venv=$root/.build-localchain/venv
pinned_venv "$venv" "$requirements"
# The contract artifacts web3_check.py deploys must be what the pinned vyper (0.4.3, the EVM
# tools' venv) makes of their sources.
evm_venv=$root/.build-evm/venv
pinned_venv "$evm_venv" tools/evm/requirements.txt
"$evm_venv/bin/python" tools/localchain/contracts/compile.py --check || die "the committed contract artifacts are stale"

build_debug_hubd

work=$(mktemp -d "${TMPDIR:-/tmp}/hub-localchain.XXXXXX")
server_pid=
source "$root/scripts/lib/stop-process.bash"
cleanup() {
    stop_process "$server_pid"
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

cat >"$work/plugins.json" <<JSON
{ "plugins": [ { "id": "localchain", "config": { "key_file": "$work/localchain.key", "seal_tick_ms": 50 } } ] }
JSON
serve_sqlite_hubd "$work" "$work/plugins.json"

status=0
"$venv/bin/python" tools/localchain/web3_check.py "$base" "$token" 31337 || status=$?
if [[ $status != 0 ]]; then
    say "server log (last 40 lines):"
    tail -n 40 "$work/hubd.log" >&2 || true
    die "FAILED"
fi
stop_process "$server_pid"
server_pid=
"$hubd" verify --database-url "$database" >"$work/verify.log" 2>&1 || {
    cat "$work/verify.log" >&2
    die "hubd verify failed after the web3 checks"
}
grep -q "all match the ledger" "$work/verify.log" || {
    cat "$work/verify.log" >&2
    die "hubd verify did not check the local chain against the ledger"
}
# The secrets vault's key file (which seals the chain's validator keys) was created owner-only,
# beside the database; a new hub has no local chain key file of its own (that is a key of before
# the vault, adopted once when present).
[[ $(stat -c %a "$work/secrets.key") == 600 ]] || die "the secrets key file is not mode 600"
[[ ! -e $work/localchain.key ]] || die "a new hub wrote a local chain key file beside the vault's"
say "passed"
