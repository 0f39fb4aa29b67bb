#!/usr/bin/env bash
# Relays over WebSocket with three hubd processes on loopback (issue 6):
#   A validates a chain; B relays A; C relays B (host ← relay ← relay).
#   1. A transaction sent to C (the far relay) is forwarded C → B → A, sealed by A, and its block
#      reaches all three.
#   2. B is stopped; A seals more blocks; B is restarted and catches up, and C with it.
#   3. A fourth hub D follows a fake upstream that serves the real genesis and then a forged
#      block 1 (re-signed by another key, or with a changed receipt): D stores the genesis and
#      refuses the forgery.
# Tools: the venv of scripts/localchain-web3-test.sh (web3.py, eth-account, rlp, websockets).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
say() { echo "localchain-relay-test.sh: $*" >&2; }
source "$root/scripts/lib/die-with-logs.bash"
die() { die_with_logs "$*" "${work:-/nonexistent}"; }
source "$root/scripts/lib/live-hubd.bash"
export no_proxy=127.0.0.1${no_proxy:+,$no_proxy} NO_PROXY=127.0.0.1${NO_PROXY:+,$NO_PROXY}

requirements=tools/localchain/requirements.txt
venv=$root/.build-localchain/venv
pinned_venv "$venv" "$requirements"
py=$venv/bin/python
check() { "$py" tools/localchain/relay_check.py "$@"; }

build_debug_hubd
work=$(mktemp -d "${TMPDIR:-/tmp}/hub-relay.XXXXXX")
source "$root/scripts/lib/stop-process.bash"
declare -A pids=()
cleanup() {
    for name in "${!pids[@]}"; do stop_process "${pids[$name]}"; done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

chain=4242
declare -A http sync
for name in a b c d; do
    http[$name]=$(free_port)
    sync[$name]=$(free_port)
done
forger_port=$(free_port)

# plugins.json of hub NAME, relaying UPSTREAM (a hub name, or "ws://…" for the forger), or none.
plugins() {
    local name=$1 upstream=${2:-} relay=""
    if [[ -n $upstream ]]; then
        local upstream_http=http://127.0.0.1:${http[$upstream]:-1} upstream_sync=ws://127.0.0.1:${sync[$upstream]:-1}
        [[ $upstream == ws://* ]] && upstream_sync=$upstream && upstream_http=http://127.0.0.1:9
        relay=", \"relay\": { \"upstream\": \"$upstream_http\", \"upstream_sync\": \"$upstream_sync\", \"chains\": [$chain], \"reconnect_delay_ms\": 200 }"
    fi
    cat >"$work/$name.plugins.json" <<JSON
{ "plugins": [ { "id": "localchain", "config": { "key_file": "$work/$name.key", "seal_tick_ms": 50, "sync_listen": "127.0.0.1:${sync[$name]}"$relay } } ] }
JSON
}
start() {
    local name=$1
    HUB_LOG_LEVEL=info "$hubd" serve --database-url "sqlite:$work/$name.sqlite" --listen "127.0.0.1:${http[$name]}" \
        --plugins "$work/$name.plugins.json" >>"$work/$name.log" 2>&1 &
    pids[$name]=$!
    python3 tools/contract/hubapi.py wait-ready "http://127.0.0.1:${http[$name]}" 60 || die "hub $name did not start"
}
url() { echo "http://127.0.0.1:${http[$1]}"; }

plugins a
plugins b a
plugins c b
start a
start b
start c
say "A :${http[a]} (sync ${sync[a]}), B relays A :${http[b]}, C relays B :${http[c]}"

password=$(new_admin "sqlite:$work/a.sqlite" admin@example.test)
token=$(printf '%s\n' "$password" | python3 tools/contract/hubapi.py login "$(url a)" admin@example.test)
alice_key=0x$(printf 'a1%.0s' {1..32})
alice=$("$py" -c "from eth_account import Account; print(Account.from_key('$alice_key').address)")
"$py" - "$(url a)" "$token" "$chain" "$alice" <<'PY' || die "could not create and fund the chain on A"
import json, sys, urllib.request
base, token, chain, alice = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
def post(path, body):
    request = urllib.request.Request(base + "/v1/rails/localchain/chains" + path, data=json.dumps(body).encode(), method="POST")
    request.add_header("Authorization", "Bearer " + token)
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())
post("", {"chain_id": chain, "name": "Relay test", "currency_name": "Relay Token", "symbol": "RLY", "decimals": 0, "block_interval_ms": 200})
post(f"/{chain}/grants", {"to": alice, "amount": "1000"})
PY
check wait-synced "$chain" "$(url a)" "$(url b)" "$(url c)" || die "B and C did not sync from A"

# 1. A payment sent to the far relay.
hash=$(check pay "$chain" "$alice_key" 0x000000000000000000000000000000000000b0b0 "$(url c)") || die "C did not forward the payment"
check wait-receipt "$chain" "$hash" "$(url a)" "$(url b)" "$(url c)" || die "the payment sent to C was not sealed everywhere"
# The same transaction sent again through B is recognised, not stored twice.
again=$(check pay "$chain" "$alice_key" 0x000000000000000000000000000000000000b0b0 "$(url b)")
check wait-receipt "$chain" "$again" "$(url a)" "$(url b)" "$(url c)" || die "a payment through B was not sealed everywhere"

# 2. B stops; A goes on; B comes back and catches up, C follows.
stop_process "${pids[b]}"
unset 'pids[b]'
for _ in 1 2 3; do
    tx=$(check pay "$chain" "$alice_key" 0x000000000000000000000000000000000000b0b0 "$(url a)")
done
check wait-receipt "$chain" "$tx" "$(url a)" || die "A did not seal while B was down"
[[ $(check head "$(url b)" "$chain") == -1 ]] || die "B still answers while stopped"
start b
check wait-synced "$chain" "$(url a)" "$(url b)" "$(url c)" || die "B and C did not catch up after B's restart"
check wait-receipt "$chain" "$tx" "$(url b)" "$(url c)" || die "the payments made while B was down did not reach B and C"

# 3. Forged blocks are refused.
for mode in resign tamper; do
    "$py" tools/localchain/relay_check.py forger "$forger_port" "ws://127.0.0.1:${sync[a]}" "$chain" "$mode" >"$work/forger-$mode.log" 2>&1 &
    pids[forger]=$!
    sleep 1
    rm -f "$work/d.sqlite"*
    plugins d "ws://127.0.0.1:$forger_port"
    start d
    sleep 3
    [[ $(check head "$(url d)" "$chain") == 0 ]] || die "D took a forged block ($mode)"
    grep -q "relay sync of chain $chain stopped" "$work/d.log" || die "D did not report refusing the forged block ($mode)"
    stop_process "${pids[d]}"
    stop_process "${pids[forger]}"
    unset 'pids[d]' 'pids[forger]'
    say "forged block ($mode) refused"
done

# Every hub's books still check out.
for name in a b c; do
    stop_process "${pids[$name]}"
    unset "pids[$name]"
    "$hubd" verify --database-url "sqlite:$work/$name.sqlite" >"$work/$name.verify" 2>&1 || { cat "$work/$name.verify" >&2; die "hubd verify failed on $name"; }
done
say "passed"
