#!/usr/bin/env bash
# Issue #12's attacks replayed against a live hub: starts the built `hubd serve` on a throwaway
# SQLite database with every built-in rail, creates an admin, and runs tools/security/attacks.py
# (standard library + eth-account from tools/localchain/requirements.txt, the venv the local
# chain's web3 test uses). Every attack must be refused.
# Usage: scripts/security-attacks.sh
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
say() { echo "security-attacks.sh: $*" >&2; }
die() {
    say "$*"
    exit 1
}
source "$root/scripts/lib/live-hubd.bash"
export no_proxy=127.0.0.1${no_proxy:+,$no_proxy} NO_PROXY=127.0.0.1${NO_PROXY:+,$NO_PROXY}

venv=$root/.build-localchain/venv
pinned_venv "$venv" tools/localchain/requirements.txt

build_debug_hubd

work=$(mktemp -d "${TMPDIR:-/tmp}/hub-attacks.XXXXXX")
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
{ "plugins": [
  { "id": "localchain", "config": { "key_file": "$work/localchain.key", "seal_tick_ms": 50 } },
  { "id": "ble-sessions", "config": {} }
] }
JSON
serve_sqlite_hubd "$work" "$work/plugins.json"

status=0
"$venv/bin/python" tools/security/attacks.py "$base" "$token" || status=$?
if [[ $status != 0 ]]; then
    say "server log (last 40 lines):"
    tail -n 40 "$work/hubd.log" >&2 || true
    die "FAILED: an attack was not refused (or the setup failed)"
fi
say "passed: every attack refused"
