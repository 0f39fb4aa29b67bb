#!/usr/bin/env bash
# Sign-In with Ethereum against a live hubd, with PyPI's signinwithethereum (pinned in
# tools/evm/siwe/requirements.txt, venv under .build-evm-siwe/) as the independent EIP-4361
# implementation: the hub's messages parse under its ABNF grammar and verify, and messages it
# composes around the hub's nonce sign in (tools/evm/siwe/siwe_check.py). The golden vectors of
# Tests/Fixtures/siwe/ are regenerated and compared too.
# Usage: scripts/evm-siwe-test.sh
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
say() { echo "evm-siwe-test.sh: $*" >&2; }
die() {
    say "$*"
    exit 1
}
source "$root/scripts/lib/live-hubd.bash"
export no_proxy=127.0.0.1${no_proxy:+,$no_proxy} NO_PROXY=127.0.0.1${NO_PROXY:+,$NO_PROXY}

venv=$root/.build-evm-siwe/venv
pinned_venv "$venv" tools/evm/siwe/requirements.txt
"$venv/bin/python" tools/evm/siwe/make_vectors.py | cmp -s - Tests/Fixtures/siwe/vectors.json ||
    die "Tests/Fixtures/siwe/vectors.json is not what tools/evm/siwe/make_vectors.py makes now"

build_debug_hubd

work=$(mktemp -d "${TMPDIR:-/tmp}/hub-siwe.XXXXXX")
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
{ "plugins": [ { "id": "localchain", "config": { "seal_tick_ms": 50 } }, { "id": "evm", "config": {} } ] }
JSON
serve_sqlite_hubd "$work" "$work/plugins.json"

if ! "$venv/bin/python" tools/evm/siwe/siwe_check.py "$base" 1370000; then
    say "server log (last 40 lines):"
    tail -n 40 "$work/hubd.log" >&2 || true
    die "FAILED"
fi
