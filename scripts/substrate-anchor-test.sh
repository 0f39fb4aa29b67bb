#!/usr/bin/env bash
# The Substrate rail's anchoring of DID changes on a peaq node: a live hubd (SQLite) with the
# rail's node_url set, and tools/substrate/peaq_test_node.py, a test double for a peaq node (no
# Substrate node can run here) that verifies and applies PeaqDid extrinsics and serves storage.
# tools/substrate/anchor_check.py starts, kills and restarts the node and reads its storage back
# with substrate-interface; the node's own self-check (tools/substrate/node_selfcheck.py, the same
# node driven by substrate-interface alone) runs first.
# Usage: scripts/substrate-anchor-test.sh
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
say() { echo "substrate-anchor-test.sh: $*" >&2; }
die() {
    say "$*"
    exit 1
}
source "$root/scripts/lib/live-hubd.bash"
source "$root/scripts/lib/stop-process.bash"
export no_proxy=127.0.0.1${no_proxy:+,$no_proxy} NO_PROXY=127.0.0.1${NO_PROXY:+,$NO_PROXY}

venv=$root/.build-substrate-anchor/node
pinned_venv "$venv" tools/substrate/requirements-node.txt

"$venv/bin/python" tools/substrate/node_selfcheck.py || die "the test node's self-check failed"

build_debug_hubd

work=$(mktemp -d "${TMPDIR:-/tmp}/hub-substrate-anchor.XXXXXX")
server_pid=
cleanup() {
    stop_process "$server_pid"
    pkill -f "peaq_test_node.py --port $node_port" 2>/dev/null || true
    rm -rf "$work"
}
node_port=$(free_port)
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

cat >"$work/plugins.json" <<JSON
{ "plugins": [ { "id": "substrate", "config": { "ss58_prefix": 42,
  "node_url": "ws://127.0.0.1:$node_port", "node_retry_ms": 200, "node_poll_ms": 100 } } ] }
JSON
serve_sqlite_hubd "$work" "$work/plugins.json"

if ! "$venv/bin/python" tools/substrate/anchor_check.py "$base" "$node_port" "$work" "$token"; then
    say "server log (last 40 lines):"
    tail -n 40 "$work/hubd.log" >&2 || true
    say "node log (last 40 lines):"
    tail -n 40 "$work/node.log" >&2 || true
    die "FAILED"
fi
say "passed"
