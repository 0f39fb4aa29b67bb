"""What the Python load generators of bench/ share: a client session per loopback address, one
checked request, bounded gathering and latency percentiles. Standard library and aiohttp only.

Imported by bench/ble-sessions/flows.py and bench/substrate/load.py (each puts bench/lib on its
path).
"""
import asyncio
import json
import math

import aiohttp


class RequestError(Exception):
    """A request answered with a status its step does not want (or an answer that is wrong)."""

    def __init__(self, step, status, body):
        super().__init__(f"{step}: HTTP {status}: {str(body)[:300]}")
        self.step, self.status, self.body = step, status, body


def loopback(block: int, index: int) -> str:
    """The index-th loopback address of 127.<block>.0.0/16: 127.<block>.<index // 250>.<1 + index % 250>."""
    return f"127.{block}.{index // 250}.{1 + index % 250}"


def client(local_address=None, connections=4) -> aiohttp.ClientSession:
    connector = aiohttp.TCPConnector(limit=connections, local_addr=(local_address, 0) if local_address else None)
    # trust_env=False: requests to the hub on loopback never go through a proxy the environment names.
    return aiohttp.ClientSession(connector=connector, trust_env=False, timeout=aiohttp.ClientTimeout(total=30))


async def call(http, method, url, step, *, token=None, body=None, data=None, headers=None, want=(200, 201)):
    """The answer's JSON (or text), or RequestError when its status is not in `want`. `body` is
    sent as JSON, `data` as it is."""
    request_headers = dict(headers or {})
    if token:
        request_headers["Authorization"] = f"Bearer {token}"
    async with http.request(method, url, json=body, data=data, headers=request_headers) as response:
        text = await response.text()
        try:
            payload = json.loads(text) if text else None
        except ValueError:
            payload = text
        if response.status not in want:
            raise RequestError(step, response.status, payload)
        return payload


async def gather_bounded(limit, coroutines):
    semaphore = asyncio.Semaphore(limit)

    async def run(coroutine):
        async with semaphore:
            return await coroutine

    return await asyncio.gather(*(run(c) for c in coroutines))


async def sign_in_all(base, users, password, block):
    """Signs every user ({"email"}) in with `password`, setting its "token": ten per source address
    (the sign-in rate limit's burst), from 127.<block>.0.1 on."""

    async def sign_in(group, members):
        async with client(loopback(block, group), connections=2) as http:
            for user in members:
                answer = await call(http, "POST", f"{base}/v1/auth/login", "setup: login",
                                    body={"email": user["email"], "password": password}, want=(200,))
                user["token"] = answer["access_token"]

    groups = [users[i:i + 10] for i in range(0, len(users), 10)]
    await gather_bounded(8, [sign_in(g, members) for g, members in enumerate(groups)])


def latency_summary(seconds_list):
    """Count, nearest-rank p50 and p99, mean and max, in milliseconds."""
    if not seconds_list:
        return {"count": 0, "p50_ms": None, "p99_ms": None, "mean_ms": None, "max_ms": None}
    ordered = sorted(seconds_list)

    def rank(q):
        return round(ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))] * 1000, 3)

    return {"count": len(ordered), "p50_ms": rank(0.50), "p99_ms": rank(0.99),
            "mean_ms": round(sum(ordered) / len(ordered) * 1000, 3), "max_ms": round(ordered[-1] * 1000, 3)}
