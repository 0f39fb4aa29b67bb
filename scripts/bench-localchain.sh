#!/usr/bin/env bash
# Local chain benchmark: signed transactions accepted per second through the JSON-RPC endpoint
# (eth_sendRawTransaction) and sealed per second, against the raw secp256k1 recovery rate of this
# machine (ChainKitBench) as the ceiling, since every accepted transaction costs one recovery.
#   1. a release hubd on a throwaway SQLite database with the local chain rail;
#   2. SENDERS accounts funded by grants; SENDERS × PER_SENDER transfers pre-signed (coincurve);
#   3. bench/localchain/send.py sends each exactly once through JSON-RPC (CONNECTIONS keep-alive
#      connections, one sender's transactions in order on one), then the script waits until every one
#      is sealed. The client runs on the same machine and takes CPU from hubd.
# Prints a table and writes bench/results/localchain.json.
# Environment: BENCH_SENDERS (64), BENCH_PER_SENDER (150), BENCH_CONNECTIONS (64), BENCH_INTERVAL_MS (1000),
#   BENCH_BUILD (release; `debug` only to smoke-test this script: its numbers mean nothing),
#   BENCH_NO_BUILD (set: use the binaries already built).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
say() { echo "bench-localchain.sh: $*" >&2; }
die() {
    say "$*"
    exit 1
}
export no_proxy=127.0.0.1${no_proxy:+,$no_proxy} NO_PROXY=127.0.0.1${NO_PROXY:+,$NO_PROXY}
senders=${BENCH_SENDERS:-64}
per_sender=${BENCH_PER_SENDER:-150}
connections=${BENCH_CONNECTIONS:-64}
interval=${BENCH_INTERVAL_MS:-1000}
chain=777001

requirements=tools/localchain/requirements-bench.txt
venv=$root/.build-localchain/bench-venv
if [[ ! -x $venv/bin/python ]] || ! cmp -s "$requirements" "$venv/requirements.txt"; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check --only-binary :all: -r "$requirements" || die "could not install $requirements"
    cp "$requirements" "$venv/requirements.txt"
fi
py=$venv/bin/python

build=${BENCH_BUILD:-release}
say "building hubd and ChainKitBench ($build)"
if [[ -z ${BENCH_NO_BUILD:-} ]]; then
    swift build -c "$build" --product hubd
    swift build -c "$build" --product ChainKitBench
fi
hubd=$root/.build/$build/hubd

work=$(mktemp -d "${TMPDIR:-/tmp}/hub-bench-localchain.XXXXXX")
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
{ "plugins": [ { "id": "localchain", "config": { "key_file": "$work/kek.key", "seal_tick_ms": 20, "max_pool_per_chain": 1000000 } } ] }
JSON
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
base=http://127.0.0.1:$port
database=sqlite:$work/hub.sqlite
HUB_LOG_LEVEL=notice "$hubd" serve --database-url "$database" --listen "127.0.0.1:$port" --plugins "$work/plugins.json" >"$work/hubd.log" 2>&1 &
server_pid=$!
python3 tools/contract/hubapi.py wait-ready "$base" 60 || die "hubd did not start"
password=$(python3 -c 'import secrets; print(secrets.token_urlsafe(24))')
printf '%s\n' "$password" | "$hubd" admin create --database-url "$database" --email admin@example.test --password-stdin >/dev/null
token=$(printf '%s\n' "$password" | python3 tools/contract/hubapi.py login "$base" admin@example.test)

say "pre-signing $((senders * per_sender)) transactions from $senders senders"
"$py" bench/localchain/presign.py "$chain" "$senders" "$per_sender" "$work/tx"

"$py" - "$base" "$token" "$chain" "$work/tx/keys.txt" "$interval" <<'PY' || die "could not set up the chain"
import json, sys, time, urllib.request
base, token, chain, keys, interval = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
def call(path, body=None, rpc=None):
    data = json.dumps(rpc if rpc is not None else body).encode() if (body is not None or rpc is not None) else None
    request = urllib.request.Request(base + path, data=data, method="POST" if data else "GET")
    request.add_header("Authorization", "Bearer " + token)
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())
chains = "/v1/rails/localchain/chains"
call(chains, {"chain_id": chain, "name": "bench", "currency_name": "Bench", "symbol": "BNC", "decimals": 0, "block_interval_ms": interval})
addresses = [line.strip() for line in open(keys) if line.strip()]
for address in addresses:
    call(f"{chains}/{chain}/grants", {"to": address, "amount": "1000000000"})
deadline = time.time() + 120
while time.time() < deadline:
    page = call(f"{chains}/{chain}/transactions?limit=1")
    if call(f"{chains}/{chain}/accounts/{addresses[-1]}")["balance"] != "0" and \
       int(call(f"{chains}/{chain}/rpc", rpc={"jsonrpc": "2.0", "id": 1, "method": "eth_getBalance", "params": [addresses[0], "latest"]})["result"], 16) > 0:
        break
    time.sleep(0.2)
else:
    sys.exit("the grants were not sealed")
PY

say "sending through JSON-RPC ($connections connections, aiohttp)"
start=$(date +%s.%N)
sent_json=$("$py" bench/localchain/send.py "$base/v1/rails/localchain/chains/$chain/rpc" "$work/tx" "$connections") || die "sending failed"
"$py" - "$base" "$chain" "$work/tx/keys.txt" "$per_sender" <<'PY' || die "not every transaction was sealed"
import json, sys, time, urllib.request
base, chain, keys, per_sender = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
addresses = [line.strip() for line in open(keys) if line.strip()]
deadline = time.time() + 600
while time.time() < deadline:
    batch = [{"jsonrpc": "2.0", "id": i, "method": "eth_getTransactionCount", "params": [a, "latest"]} for i, a in enumerate(addresses)]
    request = urllib.request.Request(f"{base}/v1/rails/localchain/chains/{chain}/rpc", data=json.dumps(batch).encode(), method="POST")
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=30) as response:
        counts = [int(a["result"], 16) for a in json.loads(response.read())]
    if all(c == per_sender for c in counts):
        sys.exit(0)
    time.sleep(0.05)
sys.exit(1)
PY
sealed=$(date +%s.%N)
blocks=$(curl -s "$base/v1/rails/localchain/chains/$chain" | python3 -c 'import json,sys; print(json.load(sys.stdin)["head"]["number"])')
stop_process "$server_pid"
server_pid=
"$hubd" verify --database-url "$database" >"$work/verify.txt" 2>&1 || { cat "$work/verify.txt" >&2; die "hubd verify failed after the run"; }
recover=$(.build/$build/ChainKitBench | grep '"secp256k1_recover"' | python3 -c 'import json,sys; print(json.load(sys.stdin)["value"])')

SENT="$sent_json" START="$start" SEALED="$sealed" RECOVER="$recover" BLOCKS="$blocks" TOTAL=$((senders * per_sender)) \
    CONNECTIONS="$connections" INTERVAL="$interval" BUILD="$build" python3 - <<'PY'
import json, os, platform
sent = json.loads(os.environ["SENT"])
total = int(os.environ["TOTAL"])
if sent["accepted"] != total or sent["errors"]:
    raise SystemExit(f"bench-localchain.sh: {sent['accepted']} of {total} accepted, {sent['errors']} errors: {sent['first_error']}")
accepted_rate = total / sent["seconds"]
sealed_rate = total / (float(os.environ["SEALED"]) - float(os.environ["START"]))
recover = float(os.environ["RECOVER"])
results = {
    "machine": f"{os.cpu_count()} cores, {platform.platform()}",
    "transactions": total, "connections": int(os.environ["CONNECTIONS"]), "block_interval_ms": int(os.environ["INTERVAL"]),
    "blocks": int(os.environ["BLOCKS"]), "database": "sqlite",
    "accepted_per_second": round(accepted_rate, 1), "accept_p50_ms": sent["p50_ms"], "accept_p99_ms": sent["p99_ms"],
    "sealed_per_second": round(sealed_rate, 1), "secp256k1_recover_per_second": recover,
    "accepted_vs_recover": round(accepted_rate / recover, 3), "sealed_vs_recover": round(sealed_rate / recover, 3),
}
os.makedirs("bench/results", exist_ok=True)
with open("bench/results/localchain.json" if os.environ["BUILD"] == "release" else os.devnull, "w") as file:
    json.dump(results, file, indent=1)
    file.write("\n")
print(f"{'measure':<40}{'value':>14}")
for key in ["transactions", "accepted_per_second", "accept_p50_ms", "accept_p99_ms", "sealed_per_second", "secp256k1_recover_per_second", "accepted_vs_recover", "sealed_vs_recover", "blocks"]:
    print(f"{key:<40}{results[key]:>14}")
PY
