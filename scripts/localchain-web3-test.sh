#!/usr/bin/env bash
# The local chain's JSON-RPC endpoint driven by a real Ethereum client library: starts the built
# `hubd serve` on a throwaway SQLite database with the localchain rail enabled, creates an admin,
# and runs tools/localchain/web3_check.py (web3.py + eth-account from the pinned
# tools/localchain/requirements.txt, in a venv under .build-localchain/).
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
export no_proxy=127.0.0.1${no_proxy:+,$no_proxy} NO_PROXY=127.0.0.1${NO_PROXY:+,$NO_PROXY}

requirements=tools/localchain/requirements.txt
venv=$root/.build-localchain/venv
if [[ ! -x $venv/bin/python ]] || ! cmp -s "$requirements" "$venv/requirements.txt"; then
    say "installing the pinned web3.py and eth-account into $venv"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check --only-binary :all: -r "$requirements" ||
        die "could not install $requirements from PyPI"
    cp "$requirements" "$venv/requirements.txt"
fi

say "building hubd (debug)"
swift build --product hubd
hubd=$root/.build/debug/hubd
[[ -x $hubd ]] || die "$hubd was not built"

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
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
base=http://127.0.0.1:$port
database=sqlite:$work/hub.sqlite
HUB_LOG_LEVEL=notice "$hubd" serve --database-url "$database" --listen "127.0.0.1:$port" --plugins "$work/plugins.json" \
    >"$work/hubd.log" 2>&1 &
server_pid=$!
if ! python3 tools/contract/hubapi.py wait-ready "$base" 60; then
    tail -n 30 "$work/hubd.log" >&2 || true
    die "hubd did not become ready"
fi
email=admin@example.test
password=$(python3 -c 'import secrets; print(secrets.token_urlsafe(24))')
printf '%s\n' "$password" | "$hubd" admin create --database-url "$database" --email "$email" --password-stdin >/dev/null ||
    die "hubd admin create failed"
token=$(printf '%s\n' "$password" | python3 tools/contract/hubapi.py login "$base" "$email") || die "could not log in"

status=0
"$venv/bin/python" tools/localchain/web3_check.py "$base" "$token" 31337 || status=$?
if [[ $status != 0 ]]; then
    say "server log (last 40 lines):"
    tail -n 40 "$work/hubd.log" >&2 || true
    die "FAILED"
fi
# The key file was created owner-only.
[[ $(stat -c %a "$work/localchain.key") == 600 ]] || die "the key-encryption key file is not mode 600"
say "passed"
