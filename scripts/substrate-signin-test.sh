#!/usr/bin/env bash
# Substrate wallet sign-in against a live hubd, with PyPI's reference packages (the pins of
# tools/vectors/requirements-substrate.txt, venv under .build-substrate-signin/) as the independent
# implementation: py-sr25519-bindings and PyNaCl sign the hub's challenges (raw and
# <Bytes>-wrapped), substrate-interface derives a custodial wallet's key from the hub's mnemonic
# and signs in with it, scalecodec writes and reads SS58 (tools/substrate/signin_check.py); then
# DID changes: scalecodec decodes each stored PeaqDid extrinsic with the same runtime metadata and
# py-sr25519-bindings verifies its signature (tools/substrate/did_check.py); then sensors: the
# device's signed multipart uploads written from docs/substrate-sensors.md alone, with Python's
# blake2b and py-sr25519-bindings (tools/substrate/sensor_check.py).
# Usage: scripts/substrate-signin-test.sh
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
say() { echo "substrate-signin-test.sh: $*" >&2; }
die() {
    say "$*"
    exit 1
}
source "$root/scripts/lib/live-hubd.bash"
export no_proxy=127.0.0.1${no_proxy:+,$no_proxy} NO_PROXY=127.0.0.1${NO_PROXY:+,$NO_PROXY}

venv=$root/.build-substrate-signin/venv
pinned_venv "$venv" tools/vectors/requirements-substrate.txt

build_debug_hubd

work=$(mktemp -d "${TMPDIR:-/tmp}/hub-substrate.XXXXXX")
server_pid=
source "$root/scripts/lib/stop-process.bash"
cleanup() {
    stop_process "$server_pid"
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# hubd builds DID changes from the peaq metadata it bundles (no metadata_file); the Python check
# decodes them with the same bytes, from the fixture the bundle copies.
metadata=$root/Tests/Fixtures/substrate/peaq-mainnet-genesis-v14.scale
cmp -s "$metadata" Sources/Plugins/Substrate/Resources/peaq-runtime-v14.scale || die "the bundled peaq metadata differs from $metadata"
cat >"$work/plugins.json" <<JSON
{ "plugins": [ { "id": "substrate", "config": { "ss58_prefix": 42, "chain": "peaq", "dataunion_compatible": true } } ] }
JSON
serve_sqlite_hubd "$work" "$work/plugins.json"

if ! "$venv/bin/python" tools/substrate/signin_check.py "$base" || ! "$venv/bin/python" tools/substrate/did_check.py "$base" "$metadata" \
    || ! "$venv/bin/python" tools/substrate/sensor_check.py "$base"; then
    say "server log (last 40 lines):"
    tail -n 40 "$work/hubd.log" >&2 || true
    die "FAILED"
fi
