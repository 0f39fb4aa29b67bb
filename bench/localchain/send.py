"""Sends the pre-signed transactions of scripts/bench-localchain.sh through JSON-RPC, each once.

  send.py RPC_URL DIR CONNECTIONS

CONNECTIONS workers (aiohttp, keep-alive), each owning a share of the senders and sending each
sender's transactions in nonce order. Prints one JSON line: requests, accepted, errors, seconds
(first request to last answer), p50/p99 latency (ms) and the first error. The client shares the
machine with hubd and takes CPU from it; the rate is a floor.
"""

import asyncio
import json
import sys
import time

import aiohttp


async def main(url, directory, connections):
    queues = [[] for _ in range(connections)]
    bodies = 0
    with open(f"{directory}/bodies.txt") as file:
        for line in file:
            if not line.strip():
                continue
            sender, body = line.rstrip("\n").split("\t", 1)
            # One sender's transactions all go to one worker, in nonce order.
            queues[int(sender) % connections].append(body)
            bodies += 1
    latencies = []
    results = {"accepted": 0, "errors": 0, "first_error": ""}

    async def worker(session, queue):
        for body in queue:
            began = time.perf_counter()
            async with session.post(url, data=body, headers={"Content-Type": "application/json"}) as response:
                answer = await response.json()
            latencies.append(time.perf_counter() - began)
            if "result" in answer:
                results["accepted"] += 1
            else:
                results["errors"] += 1
                results["first_error"] = results["first_error"] or json.dumps(answer)

    connector = aiohttp.TCPConnector(limit=connections)
    async with aiohttp.ClientSession(connector=connector) as session:
        start = time.perf_counter()
        await asyncio.gather(*(worker(session, queue) for queue in queues))
        seconds = time.perf_counter() - start
    latencies.sort()
    print(json.dumps({
        "requests": bodies, "accepted": results["accepted"], "errors": results["errors"], "seconds": round(seconds, 3),
        "p50_ms": round(latencies[len(latencies) // 2] * 1000, 2), "p99_ms": round(latencies[int(len(latencies) * 0.99)] * 1000, 2),
        "first_error": results["first_error"],
    }))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
