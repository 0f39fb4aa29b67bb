#!/usr/bin/env bash
# The EVM rail against an independent EVM node: the py-evm test node (tools/evmnode, a test double
# for geth/Kaia, which cannot run offline here) configured as the rail's chain `testnode` with 2
# confirmations, and a live hubd; tools/evm/external_check.py mints there, through a
# reorganisation and a node that goes down and comes back, runs a paid course to settlement and an
# escrow sale, an auction and a direct sale with the ledger following, and has a transaction the
# node does not mine replaced.
# Usage: scripts/evm-external-test.sh
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
say() { echo "evm-external-test.sh: $*" >&2; }
die() {
    say "$*"
    exit 1
}
source "$root/scripts/lib/live-hubd.bash"
export no_proxy=127.0.0.1${no_proxy:+,$no_proxy} NO_PROXY=127.0.0.1${NO_PROXY:+,$NO_PROXY}

venv=$root/.build-evmnode/venv
pinned_venv "$venv" tools/evmnode/requirements.txt
build_debug_hubd

work=$(mktemp -d "${TMPDIR:-/tmp}/hub-evm-external.XXXXXX")
server_pid=
node_pid=
source "$root/scripts/lib/stop-process.bash"
cleanup() {
    stop_process "$server_pid"
    stop_process "$node_pid"
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The funding key of external_check.py (0x11…11) holds 1000 ether at genesis.
funder=$("$venv/bin/python" -c 'from eth_account import Account; print(Account.from_key("0x" + "11" * 32).address)')
"$venv/bin/python" tools/evmnode/node.py --port 0 --chain-id 31337 --fund "$funder=1000000000000000000000" >"$work/node.out" 2>"$work/node.log" &
node_pid=$!
for _ in $(seq 1 100); do
    grep -q "^listening on" "$work/node.out" 2>/dev/null && break
    sleep 0.2
done
node=$(sed -n 's/^listening on //p' "$work/node.out")
[[ -n $node ]] || {
    cat "$work/node.log" >&2
    die "the test node did not start"
}

cat >"$work/plugins.json" <<JSON
{ "plugins": [
  { "id": "localchain", "config": { "seal_tick_ms": 50 } },
  { "id": "evm", "config": { "chains": [
      { "id": "hub", "chain_id": 1370000, "rpc": "hub" },
      { "id": "testnode", "chain_id": 31337, "rpc": "$node", "confirmations": 2, "native_asset": "Ether", "symbol": "ETH", "replace_after_seconds": 3 } ] } }
] }
JSON
serve_sqlite_hubd "$work" "$work/plugins.json"

if ! "$venv/bin/python" tools/evm/external_check.py "$base" "$token" "$node"; then
    say "server log (last 40 lines):"
    tail -n 40 "$work/hubd.log" >&2 || true
    say "node log (last 20 lines):"
    tail -n 20 "$work/node.log" >&2 || true
    die "FAILED"
fi
# The ledger mirror of the contracts' money keeps every invariant.
"$hubd" verify --database-url "$database" >"$work/verify.txt" 2>&1 || {
    cat "$work/verify.txt" >&2
    die "hubd verify failed after the check"
}
say "hubd verify: $(tail -n 1 "$work/verify.txt")"
