#!/usr/bin/env bash
# Local chain benchmark: signed transactions accepted per second through the JSON-RPC endpoint
# (eth_sendRawTransaction) and sealed per second, against this machine's single-core secp256k1
# recovery rate (ChainKitBench secp256k1_recover, measured in the same run, before and after the
# hub's load) as the ceiling, since every accepted transaction costs one recovery.
#   1. a release hubd on a throwaway SQLite database with the local chain rail;
#   2. two chains for plain payments; SENDERS accounts funded by grants on each; transfers
#      pre-signed (coincurve); a third chain for ERC-20 transfers, set up untimed by
#      bench/localchain/erc20.py: the token (tools/localchain/contracts/EventToken.json, the
#      committed artifact) deployed by a raw transaction and sealed with status 1, each sender paid
#      the tokens it will send (deployer transfers, JSON-RPC batches of 64), one transfer estimated
#      with eth_estimateGas (to a recipient holding nothing: a new storage slot, the dearest case)
#      and that estimate used as every transfer's gas limit, then SENDERS × PER_SENDER
#      `transfer(to, amount)` calls pre-signed (gas price 0) to ERC20_RECIPIENTS recipients (stalls);
#   3. the floor of a single call: wrk drives eth_chainId (bench/localchain/chain-id.lua) through
#      the same endpoint for 5 s with CONNECTIONS connections: every call's own cost and no work;
#   4. wrk (bench/localchain/send.lua) sends each transaction exactly once, one sender's in nonce
#      order on one connection, then the script waits until every one is sealed:
#      - single calls: SENDERS × PER_SENDER plain transfers, one eth_sendRawTransaction per
#        request, from CONNECTIONS keep-alive connections (a wallet's way);
#      - ERC-20 transfers: SENDERS × PER_SENDER token transfers, sent exactly as the single calls
#        (one call per request, CONNECTIONS connections): a wallet sends its owner's token payment
#        alone, as it sends a plain one, so the two differ only in what the hub executes; after
#        the wait every receipt must have status 1 and one Transfer log, every recipient's
#        balanceOf (eth_call) must be what was sent to it and every sender's zero;
#      - batches: SENDERS × BATCH_PER_SENDER plain transfers, BATCH calls per JSON-RPC batch
#        request, from BATCH_CONNECTIONS connections (a relay's or a busy wallet backend's way).
#   The client (wrk, C and LuaJIT) runs on the same machine and takes CPU from hubd. Every transaction, plain or
#   ERC-20, costs one recovery, so the recovery rate is the ceiling of both. A block holds at most
#   `max_block_transactions` (2000) and the chain's block gas limit (30,000,000): 1,428 plain
#   transfers (21,000 gas) or ~880 of these ERC-20 transfers (29,000-51,000 gas used, and the next
#   one must fit with its whole gas limit), so at one block a second the sealed rates may be those
#   caps rather than the hub's; `largest_block_gas_used` shows when blocks were full, and a shorter
#   BENCH_INTERVAL_MS lifts the caps.
# Prints a table and writes bench/results/localchain.json (its `erc20_transfers` and
# `erc20_vs_single_sealed` next to `single_calls` and `batches`). Each phase also records the CPU
# time hubd and the client (wrk) spent while sending, per transaction, from /proc: the machine's
# cores are saturated then, so these move less between runs than the rates do.
# A sender's transactions wait in the pool at most `max_nonce_gap` (64) ahead of its sealed nonce,
# so each sender sends at most 64 and the load comes from many senders, as at an event.
# Environment: BENCH_SENDERS (512), BENCH_PER_SENDER (20), BENCH_CONNECTIONS (64),
#   BENCH_BATCH_PER_SENDER (64), BENCH_BATCH (100), BENCH_BATCH_CONNECTIONS (16),
#   BENCH_ERC20_RECIPIENTS (64: the token transfers' distinct recipients), BENCH_INTERVAL_MS
#   (1000), BENCH_SEAL_TIMEOUT (600 s), BENCH_BUILD (release; `debug` only to smoke-test this
#   script: its numbers mean nothing), BENCH_NO_BUILD (set: use the binaries already built),
#   BENCH_HUBD (a hubd built elsewhere, with BENCH_NO_BUILD: two builds compared in one sitting),
#   BENCH_RECOVER_BIN (the ChainKitBench that measures the ceiling: .build/BUILD/ChainKitBench
#   unless set; its path is recorded in the results), BENCH_RESULTS (the results file instead of
#   bench/results/localchain.json: runs compared elsewhere), BENCH_DATABASE (sqlite; `postgres`
#   runs the hub on a throwaway PostgreSQL cluster on this machine instead, fsync on),
#   HUB_BENCH_POSTGRES_URL (with BENCH_DATABASE=postgres: an empty database of an existing server
#   instead, e.g. one that loads pg_stat_statements).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
say() { echo "bench-localchain.sh: $*" >&2; }
die() {
    say "$*"
    exit 1
}
# live-hubd.bash and stop-process.bash, and bench_postgres_url for BENCH_DATABASE=postgres.
source "$root/scripts/lib/bench-server.bash"
source "$root/scripts/lib/ensure-wrk.bash"
source "$root/scripts/lib/process-cpu.bash"
export no_proxy=127.0.0.1${no_proxy:+,$no_proxy} NO_PROXY=127.0.0.1${NO_PROXY:+,$NO_PROXY}
senders=${BENCH_SENDERS:-512}
per_sender=${BENCH_PER_SENDER:-20}
connections=${BENCH_CONNECTIONS:-64}
batch_per_sender=${BENCH_BATCH_PER_SENDER:-64}
batch=${BENCH_BATCH:-100}
batch_connections=${BENCH_BATCH_CONNECTIONS:-16}
erc20_recipients=${BENCH_ERC20_RECIPIENTS:-64}
interval=${BENCH_INTERVAL_MS:-1000}
single_chain=777001
batch_chain=777002
erc20_chain=777003

venv=$root/.build-localchain/bench-venv
pinned_venv "$venv" tools/localchain/requirements-bench.txt
ensure_wrk
py=$venv/bin/python

build=${BENCH_BUILD:-release}
if [[ -z ${BENCH_NO_BUILD:-} ]]; then
    say "building hubd and ChainKitBench ($build)"
    swift build -c "$build" --product hubd
    swift build -c "$build" --product ChainKitBench
fi
hubd=${BENCH_HUBD:-$root/.build/$build/hubd}
recover_bin=${BENCH_RECOVER_BIN:-.build/$build/ChainKitBench}
[[ -x $hubd ]] || die "$hubd is missing (build it, or unset BENCH_NO_BUILD)"
[[ -x $recover_bin ]] || die "$recover_bin is missing (build ChainKitBench -c $build, or point BENCH_RECOVER_BIN at one)"
recover_rate() { "$recover_bin" secp256k1_recover | python3 -c 'import json,sys; print(json.load(sys.stdin)["value"])'; }

backend=${BENCH_DATABASE:-sqlite}
[[ $backend == sqlite || $backend == postgres ]] || die "BENCH_DATABASE must be sqlite or postgres, not '$backend'"
work=$(mktemp -d "${TMPDIR:-/tmp}/hub-bench-localchain.XXXXXX")
server_pid=
pg_dir=
cleanup() {
    stop_process "$server_pid"
    if [[ -n $pg_dir ]]; then bash "$root/scripts/pg-throwaway.sh" stop "$pg_dir" || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

say "pre-signing $((senders * per_sender)) + $((senders * batch_per_sender)) transactions from $senders senders"
"$py" bench/localchain/presign.py "$single_chain" "$senders" "$per_sender" "$work/single"
"$py" bench/localchain/presign.py "$batch_chain" "$senders" "$batch_per_sender" "$work/batch"

say "measuring secp256k1 recovery on one core (before)"
recover_before=$(recover_rate)

cat >"$work/plugins.json" <<JSON
{ "plugins": [ { "id": "localchain", "config": { "key_file": "$work/kek.key", "seal_tick_ms": 20, "max_pool_per_chain": 1000000 } } ] }
JSON
if [[ $backend == postgres ]]; then
    bench_name=localchain
    bench_postgres_url || die "BENCH_DATABASE=postgres needs a PostgreSQL server"
    serve_hubd "$work" "$work/plugins.json" "$url"
else
    serve_sqlite_hubd "$work" "$work/plugins.json"
fi

"$py" - "$base" "$token" "$work/single/keys.txt" "$interval" "$single_chain" "$batch_chain" <<'PY' || die "could not set up the chains"
import json, sys, time, urllib.request
base, token, keys, interval, chain_ids = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), [int(c) for c in sys.argv[5:]]
def call(path, body=None, rpc=None):
    data = json.dumps(rpc if rpc is not None else body).encode() if (body is not None or rpc is not None) else None
    request = urllib.request.Request(base + path, data=data, method="POST" if data else "GET")
    request.add_header("Authorization", "Bearer " + token)
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())
chains = "/v1/rails/localchain/chains"
addresses = [line.strip() for line in open(keys) if line.strip()]
for chain in chain_ids:
    call(chains, {"chain_id": chain, "name": f"bench {chain}", "currency_name": "Bench", "symbol": "BNC", "decimals": 0, "block_interval_ms": interval})
    for address in addresses:
        call(f"{chains}/{chain}/grants", {"to": address, "amount": "1000000000"})
deadline = time.time() + 120
for chain in chain_ids:
    while time.time() < deadline:
        if call(f"{chains}/{chain}/accounts/{addresses[-1]}")["balance"] != "0" and \
           int(call(f"{chains}/{chain}/rpc", rpc={"jsonrpc": "2.0", "id": 1, "method": "eth_getBalance", "params": [addresses[0], "latest"]})["result"], 16) > 0:
            break
        time.sleep(0.2)
    else:
        sys.exit("the grants were not sealed")
PY
say "ERC-20: deploying the token and paying $senders senders; pre-signing $((senders * per_sender)) token transfers"
erc20_setup=$("$py" bench/localchain/erc20.py setup "$base" "$token" "$erc20_chain" "$interval" "$senders" "$per_sender" \
    "$erc20_recipients" "$work/erc20") || die "could not set up the ERC-20 phase"

# phase NAME CHAIN DIR PER_SENDER CONNECTIONS BATCH: sends DIR's transactions, waits until all are
# sealed, and prints one JSON object (send.lua's, plus the seconds from the first send to the last
# seal and the blocks the chain sealed meanwhile).
# send_once URL DIR CONNECTIONS BATCH: wrk sends DIR's transactions once each (bench/localchain/send.lua)
# and prints its JSON line. Each of its threads stops after its last answer and leaves a file in a
# directory of its own; wrk is interrupted once all are there (it would otherwise wait out -d).
send_once() {
    local url=$1 dir=$2 conns=$3 size=$4 done_dir wrk_pid hubd_before hubd_after client
    done_dir=$(mktemp -d "$work/done.XXXXXX")
    hubd_before=$(process_cpu_ticks "$server_pid")
    wrk -t "$conns" -c "$conns" -d 3600s --timeout 60s -s bench/localchain/send.lua "$url" -- "$dir" "$size" "$done_dir" "$conns" >"$done_dir.out" 2>&1 &
    wrk_pid=$!
    # Polled with builtins only, 5 times a second: the timing is wrk's own, and a fork per poll would take CPU from hubd.
    local finished=()
    while shopt -s nullglob && finished=("$done_dir"/*) && ((${#finished[@]} < conns)) && kill -0 "$wrk_pid" 2>/dev/null; do sleep 0.2; done
    # The CPU both sides spent sending: hubd's includes the sealing that ran meanwhile.
    client=$(process_cpu_ticks "$wrk_pid")
    hubd_after=$(process_cpu_ticks "$server_pid")
    kill -INT "$wrk_pid" 2>/dev/null || true
    wait "$wrk_pid" || true
    grep '^BENCH_JSON ' "$done_dir.out" | sed 's/^BENCH_JSON //' | grep . |
        python3 -c 'import json, os, sys; tick = 1000 / os.sysconf("SC_CLK_TCK"); sent = json.loads(sys.stdin.read()); hubd, client = (int(x) * tick for x in sys.argv[1:]); print(json.dumps({**sent, "hubd_cpu_ms": hubd, "client_cpu_ms": client}))' \
            "$((hubd_after - hubd_before))" "$client" || { cat "$done_dir.out" >&2; return 1; }
}
head_number() { curl -s "$base/v1/rails/localchain/chains/$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["head"]["number"])'; }
phase() {
    local name=$1 chain=$2 dir=$3 count=$4 conns=$5 size=$6 start sent sealed blocks head
    say "$name: $((senders * count)) transactions through JSON-RPC ($conns connections, $size per request)"
    head=$(head_number "$chain")
    start=$(date +%s.%N)
    sent=$(send_once "$base/v1/rails/localchain/chains/$chain/rpc" "$dir" "$conns" "$size") || die "sending failed"
    SENT="$sent" python3 -c 'import json, os; s = json.loads(os.environ["SENT"]); assert s["errors"] == 0, s' || die "$name: not every transaction was accepted"
    "$py" - "$base" "$chain" "$dir/keys.txt" "$count" "${BENCH_SEAL_TIMEOUT:-600}" <<'PY' || { tail -n 20 "$work/hubd.log" >&2; die "not every transaction was sealed"; }
import json, sys, time, urllib.request
base, chain, keys, per_sender = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
addresses = [line.strip() for line in open(keys) if line.strip()]
deadline = time.time() + float(sys.argv[5])
while time.time() < deadline:
    counts = []
    for start in range(0, len(addresses), 100):
        batch = [{"jsonrpc": "2.0", "id": i, "method": "eth_getTransactionCount", "params": [a, "latest"]} for i, a in enumerate(addresses[start:start + 100])]
        request = urllib.request.Request(f"{base}/v1/rails/localchain/chains/{chain}/rpc", data=json.dumps(batch).encode(), method="POST")
        request.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(request, timeout=30) as response:
            counts += [int(a["result"], 16) for a in json.loads(response.read())]
    if all(c == per_sender for c in counts):
        sys.exit(0)
    time.sleep(0.05)
sys.exit(f"nonces after the wait (expected {per_sender} each): {counts}")
PY
    sealed=$(date +%s.%N)
    SENT="$sent" python3 - "$base/v1/rails/localchain/chains/$chain/rpc" "$head" "$(head_number "$chain")" "$sealed" "$start" "$conns" "$size" <<'PY'
import json, os, sys, urllib.request
url, first, last = sys.argv[1], int(sys.argv[2]) + 1, int(sys.argv[3])
# The phase's blocks: how full the largest is, in transactions and gas.
batch = [{"jsonrpc": "2.0", "id": n, "method": "eth_getBlockByNumber", "params": [hex(n), False]} for n in range(first, last + 1)]
request = urllib.request.Request(url, data=json.dumps(batch).encode(), method="POST")
request.add_header("Content-Type", "application/json")
with urllib.request.urlopen(request, timeout=30) as response:
    blocks = [a["result"] for a in json.loads(response.read())]
print(json.dumps({
    **json.loads(os.environ["SENT"]), "sealed_seconds": float(sys.argv[4]) - float(sys.argv[5]), "blocks": len(blocks),
    "largest_block_transactions": max(len(b["transactions"]) for b in blocks), "largest_block_gas_used": max(int(b["gasUsed"], 16) for b in blocks),
    "block_gas_limit": int(blocks[-1]["gasLimit"], 16), "connections": int(sys.argv[6]), "batch": int(sys.argv[7]),
}))
PY
}
# The floor of a single call: eth_chainId through the same endpoint and client, for 5 s.
say "floor: eth_chainId, one per request ($connections connections, 5 s)"
floor=$(wrk -t "$connections" -c "$connections" -d 5s -s bench/localchain/chain-id.lua "$base/v1/rails/localchain/chains/$single_chain/rpc" |
    awk '/unexpected answer/ { bad = 1 } /^Requests\/sec:/ { rate = $2 } END { if (bad || rate == "") exit 1; print rate }') ||
    die "eth_chainId failed"
# The ERC-20 phase runs right after the single calls it is compared with.
single=$(phase "single calls" "$single_chain" "$work/single" "$per_sender" "$connections" 1)
erc20=$(phase "ERC-20 transfers" "$erc20_chain" "$work/erc20" "$per_sender" "$connections" 1)
erc20_check=$("$py" bench/localchain/erc20.py check "$base/v1/rails/localchain/chains/$erc20_chain/rpc" "$work/erc20") ||
    die "ERC-20 transfers: the receipts or balances are wrong"
batched=$(phase "batches" "$batch_chain" "$work/batch" "$batch_per_sender" "$batch_connections" "$batch")

stop_process "$server_pid"
server_pid=
"$hubd" verify --database-url "$database" >"$work/verify.txt" 2>&1 || {
    cat "$work/verify.txt" >&2
    die "hubd verify failed after the run"
}
say "measuring secp256k1 recovery on one core (after)"
recover_after=$(recover_rate)

BACKEND="$backend" FLOOR="$floor" SINGLE="$single" BATCHED="$batched" ERC20="$erc20" ERC20_SETUP="$erc20_setup" ERC20_CHECK="$erc20_check" RECOVER_BEFORE="$recover_before" RECOVER_AFTER="$recover_after" RECOVER_BIN="$recover_bin" INTERVAL="$interval" BUILD="$build" python3 - <<'PY'
import json, os, platform
# The ceiling is the faster of the two measurements, so that a busy moment cannot flatter the ratio.
recover = max(float(os.environ["RECOVER_BEFORE"]), float(os.environ["RECOVER_AFTER"]))
def summary(sent):
    if sent["accepted"] != sent["transactions"] or sent["errors"]:
        raise SystemExit(f"bench-localchain.sh: {sent['accepted']} of {sent['transactions']} accepted, {sent['errors']} errors: {sent['first_error']}")
    accepted = sent["transactions"] / sent["seconds"]
    sealed = sent["transactions"] / sent["sealed_seconds"]
    return {
        "transactions": sent["transactions"], "connections": sent["connections"], "calls_per_request": sent["batch"], "requests": sent["requests"],
        "blocks": sent["blocks"], "accepted_per_second": round(accepted, 1), "request_p50_ms": sent["p50_ms"], "request_p99_ms": sent["p99_ms"],
        "sealed_per_second": round(sealed, 1), "accepted_vs_recover": round(accepted / recover, 3), "sealed_vs_recover": round(sealed / recover, 3),
        "largest_block_transactions": sent["largest_block_transactions"], "largest_block_gas_used": sent["largest_block_gas_used"],
        "block_gas_limit": sent["block_gas_limit"],
        # CPU per transaction while sending (hubd's includes the sealing that ran meanwhile): steadier than the rates on a busy machine.
        "hubd_cpu_ms_per_transaction": round(sent["hubd_cpu_ms"] / sent["transactions"], 4),
        "client_cpu_ms_per_transaction": round(sent["client_cpu_ms"] / sent["transactions"], 4),
    }
results = {
    "machine": f"{os.cpu_count()} cores, {platform.platform()}", "database": os.environ["BACKEND"], "block_interval_ms": int(os.environ["INTERVAL"]),
    "secp256k1_recover_per_second": recover,
    "secp256k1_recover_per_second_before_after": [float(os.environ["RECOVER_BEFORE"]), float(os.environ["RECOVER_AFTER"])],
    "secp256k1_recover_binary": os.environ["RECOVER_BIN"],
    "single_calls": summary(json.loads(os.environ["SINGLE"])), "batches": summary(json.loads(os.environ["BATCHED"])),
}
erc20_setup, erc20_check = json.loads(os.environ["ERC20_SETUP"]), json.loads(os.environ["ERC20_CHECK"])
results["erc20_transfers"] = {
    **summary(json.loads(os.environ["ERC20"])), "recipients": erc20_setup["recipients"], "gas_limit": erc20_setup["gas_limit"],
    **{key: erc20_check[key] for key in ["gas_used_per_transaction", "gas_used_min", "gas_used_max", "deploy_gas_used", "receipts_checked",
                                         "recipients_checked"]},
}
results["chain_id_calls_per_second"] = float(os.environ["FLOOR"])
results["single_calls"]["accepted_vs_chain_id_calls"] = round(results["single_calls"]["accepted_per_second"] / results["chain_id_calls_per_second"], 3)
results["erc20_vs_single_sealed"] = round(results["erc20_transfers"]["sealed_per_second"] / results["single_calls"]["sealed_per_second"], 3)
os.makedirs("bench/results", exist_ok=True)
with open(os.environ.get("BENCH_RESULTS") or "bench/results/localchain.json" if os.environ["BUILD"] == "release" else os.devnull, "w") as file:
    json.dump(results, file, indent=1)
    file.write("\n")
print(f"secp256k1 recoveries per second, one core: {recover:,.0f} (before {float(os.environ['RECOVER_BEFORE']):,.0f}, after {float(os.environ['RECOVER_AFTER']):,.0f})")
phases = [("single calls", "single_calls"), ("ERC-20 transfers", "erc20_transfers"), ("batches", "batches")]
print(f"{'measure':<28}" + "".join(f"{title:>18}" for title, _ in phases))
for key in ["transactions", "connections", "calls_per_request", "accepted_per_second", "request_p50_ms", "request_p99_ms", "sealed_per_second", "blocks",
            "largest_block_transactions", "largest_block_gas_used", "accepted_vs_recover", "sealed_vs_recover", "hubd_cpu_ms_per_transaction",
            "client_cpu_ms_per_transaction"]:
    print(f"{key:<28}" + "".join(f"{results[phase][key]:>18}" for _, phase in phases))
erc20 = results["erc20_transfers"]
print(f"eth_chainId calls per second (the floor of a single call): {results['chain_id_calls_per_second']:,.0f}; "
      f"single eth_sendRawTransaction calls accepted per second / that: {results['single_calls']['accepted_vs_chain_id_calls']}")
print(f"ERC-20 transfers / plain single calls, sealed per second: {results['erc20_vs_single_sealed']}; gas per transfer "
      f"{erc20['gas_used_per_transaction']:,.0f} used ({erc20['gas_used_min']:,}-{erc20['gas_used_max']:,}), limit {erc20['gas_limit']:,} "
      f"(eth_estimateGas); block gas limit {erc20['block_gas_limit']:,}; {erc20['recipients']} recipients")
PY
