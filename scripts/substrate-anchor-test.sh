#!/usr/bin/env bash
# The Substrate rail's anchoring of DID changes on a peaq node: a live hubd (SQLite) with the
# rail's node_url set, and tools/substrate/peaq_test_node.py, a test double for a peaq node (no
# Substrate node can run here) that verifies and applies PeaqDid extrinsics and serves storage.
# tools/substrate/anchor_check.py starts, kills and restarts the node and reads its storage back
# with substrate-interface; the node's own self-check (tools/substrate/node_selfcheck.py, the same
# node driven by substrate-interface alone) runs first. Once on SQLite, once on a throwaway PostgreSQL.
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
pg_dir=
cleanup() {
    stop_process "$server_pid"
    # The test nodes anchor_check.py left running if it failed (their arguments name $work).
    pkill -f "peaq_test_node.py .*$work/" 2>/dev/null || true
    if [[ -n $pg_dir ]]; then
        bash "$root/scripts/pg-throwaway.sh" stop "$pg_dir" 2>/dev/null || true
        rm -rf "$pg_dir"
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# run_backend NAME DATABASE_URL: a hubd on that database with its own test node's port, then the check.
run_backend() {
    local name=$1 database=$2 dir=$work/$1 node_port port base password token
    mkdir -p "$dir"
    node_port=$(free_port)
    cat >"$dir/plugins.json" <<JSON
{ "plugins": [ { "id": "substrate", "config": { "ss58_prefix": 42,
  "node_url": "ws://127.0.0.1:$node_port", "node_retry_ms": 200, "node_poll_ms": 100 } } ] }
JSON
    port=$(free_port)
    base=http://127.0.0.1:$port
    (cd "$dir" && HUB_LOG_LEVEL=notice exec "$hubd" serve --database-url "$database" --listen "127.0.0.1:$port" \
        --plugins "$dir/plugins.json") >"$dir/hubd.log" 2>&1 &
    server_pid=$!
    wait_ready "$base" "$dir/hubd.log"
    password=$(cd "$dir" && new_admin "$database" admin@example.test)
    token=$(printf '%s\n' "$password" | python3 tools/contract/hubapi.py login "$base" admin@example.test) || die "could not log in"
    say "[$name] anchoring against the test node"
    if ! "$venv/bin/python" tools/substrate/anchor_check.py "$base" "$node_port" "$dir" "$token"; then
        say "[$name] server log (last 40 lines):"
        tail -n 40 "$dir/hubd.log" >&2 || true
        say "[$name] node log (last 40 lines):"
        tail -n 40 "$dir/node.log" >&2 || true
        die "[$name] FAILED"
    fi
    stop_process "$server_pid"
    server_pid=
}

run_backend sqlite "sqlite:$work/sqlite/hub.sqlite"
# The same on PostgreSQL, where the anchorer's lease fences its writes with a row lock.
# (Its own folder: the cluster runs as the postgres user, who cannot enter $work.)
pg_dir=$(mktemp -d "${TMPDIR:-/tmp}/hub-anchor-pg.XXXXXX")
database=$(bash scripts/pg-throwaway.sh start "$pg_dir" "$(free_port)") || die "could not start PostgreSQL"
run_backend postgres "$database"
say "passed"
