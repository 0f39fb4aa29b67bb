"""Sends the pre-signed transactions of scripts/bench-localchain.sh through JSON-RPC, each once.

  send.py RPC_URL DIR CONNECTIONS BATCH

CONNECTIONS workers (aiohttp, keep-alive), each owning a share of the senders and sending each
sender's transactions in nonce order: one eth_sendRawTransaction per request (BATCH 1), or up to
BATCH calls per JSON-RPC batch request (an array, as wallets and relays send many), which the hub
answers in order. Every request body is built before the clock starts. Prints one JSON line:
requests, transactions, accepted, errors, seconds (first request to last answer), p50/p99 latency
of a request (ms) and the first error. The client shares the machine with hubd and takes CPU
from it; the rate is a floor.
"""

import asyncio
import json
import sys
import time

import aiohttp


def call(raw, number):
    return f'{{"jsonrpc":"2.0","id":{number},"method":"eth_sendRawTransaction","params":["{raw}"]}}'


async def main(url, directory, connections, batch):
    queues = [[] for _ in range(connections)]
    transactions = 0
    with open(f"{directory}/raw.txt") as file:
        for line in file:
            if not line.strip():
                continue
            sender, raw = line.rstrip("\n").split("\t", 1)
            # One sender's transactions all go to one worker, in nonce order.
            queues[int(sender) % connections].append(raw)
            transactions += 1
    requests = []
    for queue in queues:
        bodies = []
        for start in range(0, len(queue), batch):
            chunk = queue[start:start + batch]
            if batch == 1:
                bodies.append(call(chunk[0], 1))
            else:
                bodies.append("[" + ",".join(call(raw, number) for number, raw in enumerate(chunk)) + "]")
        requests.append(bodies)
    latencies = []
    results = {"accepted": 0, "errors": 0, "first_error": ""}

    def count(answer):
        if "result" in answer:
            results["accepted"] += 1
        else:
            results["errors"] += 1
            results["first_error"] = results["first_error"] or json.dumps(answer)

    async def worker(session, bodies):
        for body in bodies:
            began = time.perf_counter()
            async with session.post(url, data=body, headers={"Content-Type": "application/json"}) as response:
                answer = await response.json()
            latencies.append(time.perf_counter() - began)
            for one in answer if isinstance(answer, list) else [answer]:
                count(one)

    connector = aiohttp.TCPConnector(limit=connections)
    async with aiohttp.ClientSession(connector=connector) as session:
        start = time.perf_counter()
        await asyncio.gather(*(worker(session, bodies) for bodies in requests))
        seconds = time.perf_counter() - start
    latencies.sort()
    print(json.dumps({
        "requests": len(latencies), "transactions": transactions, "accepted": results["accepted"], "errors": results["errors"],
        "seconds": round(seconds, 3),
        "p50_ms": round(latencies[len(latencies) // 2] * 1000, 2), "p99_ms": round(latencies[int(len(latencies) * 0.99)] * 1000, 2),
        "first_error": results["first_error"],
    }))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))
