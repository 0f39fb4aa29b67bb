#!/usr/bin/env python3
"""Load generator for `make bench-evm-market`: marketplace operations end to end on the hub's own
chain (the EVM rail's default), against plain payments on the same chain as the baseline.

  market.py BASE_URL ADMIN_TOKEN --users U --per-user K

Setup, through the API as the admin: U members (signed in from distinct loopback addresses, as
phones at a venue would), each with a custodial account on the rail's chain and 1 coin granted;
U client-held keys (eth-account) with coins too, and K plain transfers each, signed beforehand.

Phases, each U × K operations from U workers at once (worker i sends as user i, one request at a
time, then waits for its operations to be final); an operation counts when its block is sealed:
  transfers  the baseline: `eth_sendRawTransaction` of a plain payment (no contract, no rail), final
             when the sender's nonce has moved past it;
  mint       `POST /v1/rails/evm/items`: the rail signs with the user's key, the chain runs the
             ERC-721's mint, the tracker indexes the item;
  list       `POST /v1/rails/evm/listings` (direct sale) of each minted token (the first one also
             approves the marketplace);
  buy        `POST /v1/rails/evm/listings/hub/{id}/buy` of the next user's listings, paying the
             price into the contract;
  transfers  the baseline again, so a drift of the machine during the run shows.
A rail operation is final when `GET /v1/rails/evm/operations/{id}` leaves `pending`; every one
must be `confirmed`. Prints one JSON object: per phase the operations, seconds (first request to
the last one final), operations per second, p50/p99 of one operation (request to final), and the
errors; the ratio of each marketplace phase to the mean of the two baselines.

Standard library, aiohttp and eth-account (pinned: tools/localchain/requirements-bench.txt). The
client runs on the machine it measures and takes CPU from hubd: the rates are floors.
"""

import argparse
import asyncio
import json
import secrets
import statistics
import sys
import time

import aiohttp
from eth_account import Account

RAIL = "/v1/rails/evm"
COIN = 10**18
PRICE = 1000
SINK = "0x000000000000000000000000000000000000dEaD"


class BenchError(Exception):
    pass


def loopback(index):
    """The index-th address of 127.1.0.0/16: sign-ins are limited per client address."""
    return f"127.1.{index // 250}.{1 + index % 250}"


def session(local_address=None, connections=64):
    connector = aiohttp.TCPConnector(limit=connections, local_addr=(local_address, 0) if local_address else None)
    # trust_env=False: requests to the hub on loopback never go through a proxy the environment names.
    return aiohttp.ClientSession(connector=connector, trust_env=False, timeout=aiohttp.ClientTimeout(total=60))


async def call(http, method, url, *, token=None, body=None, want=(200, 201, 202)):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with http.request(method, url, json=body, headers=headers) as response:
        text = await response.text()
        if response.status not in want:
            raise BenchError(f"{method} {url}: HTTP {response.status}: {text[:300]}")
        return json.loads(text) if text else None


async def rpc(http, url, method, params):
    answer = await call(http, "POST", url, body={"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    if "error" in answer:
        raise BenchError(f"{method}: {answer['error']}")
    return answer["result"]


async def setup(base, admin, users):
    async with session() as http:
        for _ in range(600):
            chains = (await call(http, "GET", base + RAIL + "/chains", token=admin))["data"]
            if chains and chains[0]["status"] == "ready":
                break
            await asyncio.sleep(0.1)
        else:
            raise BenchError("the rail's chain never became ready")
        chain_id = chains[0]["chain_id"]
        rpc_url = f"{base}/v1/rails/localchain/chains/{chain_id}/rpc"
        password = secrets.token_urlsafe(18)
        tokens = []
        for i in range(users):
            email = f"bench{i}@example.test"
            await call(http, "POST", base + "/v1/users", token=admin,
                       body={"email": email, "display_name": f"Bench {i}", "password": password})
        for i in range(users):
            async with session(loopback(i // 10)) as phone:
                login = await call(phone, "POST", base + "/v1/auth/login", body={"email": f"bench{i}@example.test", "password": password})
            tokens.append(login["access_token"])
        addresses = [(await call(http, "POST", base + RAIL + "/accounts", token=t, body={}))["address"] for t in tokens]
        keys = [Account.create() for _ in range(users)]
        funded = addresses + [key.address for key in keys]
        for address in funded:
            await call(http, "POST", f"{base}/v1/rails/localchain/chains/{chain_id}/grants", token=admin,
                       body={"to": address, "amount": str(COIN)})
        for address in funded:
            for _ in range(600):
                if int(await rpc(http, rpc_url, "eth_getBalance", [address, "latest"]), 16) > 0:
                    break
                await asyncio.sleep(0.05)
            else:
                raise BenchError(f"the grant to {address} was never sealed")
        return chain_id, rpc_url, tokens, keys


def signed_transfers(keys, per_user, chain_id, first_nonce):
    """K plain payments per key, nonces from `first_nonce`, signed before any clock starts."""
    return [
        [
            Account.sign_transaction(
                {"chainId": chain_id, "nonce": first_nonce + n, "gas": 21000, "gasPrice": 0, "to": SINK, "value": 1}, key.key
            ).raw_transaction.hex()
            for n in range(per_user)
        ]
        for key in keys
    ]


def summary(name, latencies, seconds, errors):
    done = len(latencies)
    ordered = sorted(latencies)
    return {
        "phase": name,
        "operations": done,
        "seconds": round(seconds, 3),
        "per_second": round(done / seconds, 1) if seconds > 0 else 0,
        "p50_ms": round(ordered[len(ordered) // 2] * 1000, 1) if ordered else None,
        "p99_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000, 1) if ordered else None,
        "errors": errors,
    }


async def transfers(rpc_url, keys, batches, name):
    """Each worker sends its key's signed payments, then waits until its nonce has passed them."""
    latencies, errors = [], []

    async def worker(key, raws):
        async with session(connections=1) as http:
            sent = []
            for raw in raws:
                sent.append(time.perf_counter())
                try:
                    await rpc(http, rpc_url, "eth_sendRawTransaction", ["0x" + raw.removeprefix("0x")])
                except BenchError as error:
                    errors.append(str(error))
                    return  # a later nonce of this key can never be sealed
            seen = 0
            while seen < len(raws):
                nonce = int(await rpc(http, rpc_url, "eth_getTransactionCount", [key.address, "latest"]), 16)
                final = nonce - first_nonce[key.address]
                now = time.perf_counter()
                while seen < min(final, len(raws)):
                    latencies.append(now - sent[seen])
                    seen += 1
                if seen < len(raws):
                    await asyncio.sleep(0.02)

    first_nonce = {}
    async with session() as http:
        for key in keys:
            first_nonce[key.address] = int(await rpc(http, rpc_url, "eth_getTransactionCount", [key.address, "latest"]), 16)
    start = time.perf_counter()
    await asyncio.gather(*(worker(key, raws) for key, raws in zip(keys, batches)))
    return summary(name, latencies, time.perf_counter() - start, errors)


async def operations(base, tokens, requests, name):
    """Each worker sends its requests (method, path, body) as its user, one at a time, then waits
    for each operation to leave `pending`; answers the summary and each worker's results."""
    latencies, errors = [], []
    results = [[] for _ in tokens]

    async def worker(index, token, jobs):
        async with session(connections=1) as http:
            sent = []
            for method, path, body in jobs:
                began = time.perf_counter()
                try:
                    answer = await call(http, method, base + RAIL + path, token=token, body=body, want=(202,))
                    sent.append((began, answer["id"]))
                except BenchError as error:
                    errors.append(str(error))
            for began, operation in sent:
                while True:
                    state = await call(http, "GET", f"{base}{RAIL}/operations/{operation}", token=token)
                    if state["state"] != "pending":
                        break
                    await asyncio.sleep(0.02)
                if state["state"] == "confirmed":
                    latencies.append(time.perf_counter() - began)
                    results[index].append(state.get("result") or {})
                else:
                    errors.append(f"{operation}: {state['state']}: {state.get('error')}")

    start = time.perf_counter()
    await asyncio.gather(*(worker(i, token, jobs) for i, (token, jobs) in enumerate(zip(tokens, requests))))
    return summary(name, latencies, time.perf_counter() - start, errors), results


async def main(base, admin, users, per_user):
    chain_id, rpc_url, tokens, keys = await setup(base, admin, users)
    phases = []
    phases.append(await transfers(rpc_url, keys, signed_transfers(keys, per_user, chain_id, 0), "transfers (baseline)"))
    mint_jobs = [[("POST", "/items", {"title": f"Bench {i}-{k}", "category": "bench"}) for k in range(per_user)] for i in range(users)]
    mint, minted = await operations(base, tokens, mint_jobs, "mint")
    phases.append(mint)
    list_jobs = [[("POST", "/listings", {"kind": "sale", "token_id": int(r["token_id"]), "price": str(PRICE)}) for r in own] for own in minted]
    listing, listed = await operations(base, tokens, list_jobs, "list (direct sale)")
    phases.append(listing)
    buy_jobs = [[("POST", f"/listings/hub/{r['listing_id']}/buy", {}) for r in listed[(i + 1) % users]] for i in range(users)]
    buy, _ = await operations(base, tokens, buy_jobs, "buy")
    phases.append(buy)
    phases.append(await transfers(rpc_url, keys, signed_transfers(keys, per_user, chain_id, per_user), "transfers (baseline, again)"))
    baseline = statistics.mean(p["per_second"] for p in phases if p["phase"].startswith("transfers"))
    for phase in phases:
        phase["ratio_to_baseline"] = round(phase["per_second"] / baseline, 3) if baseline else None
    errors = sum(len(p["errors"]) for p in phases)
    print(json.dumps({"users": users, "per_user": per_user, "chain_id": chain_id, "phases": phases, "errors": errors}))
    return 1 if errors or any(p["operations"] != users * per_user for p in phases) else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("base")
    parser.add_argument("token")
    parser.add_argument("--users", type=int, default=32)
    parser.add_argument("--per-user", type=int, default=20)
    arguments = parser.parse_args()
    sys.exit(asyncio.run(main(arguments.base, arguments.token, arguments.users, arguments.per_user)))
