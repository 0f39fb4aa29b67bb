#!/usr/bin/env python3
"""Load generator for `make bench-substrate`: the Substrate rail's writes over HTTP, measured
against ledger transfers driven the same way on the same hubd.

  load.py run BASE_URL ADMIN_TOKEN ACCOUNTS_FILE [--workers N] [--seconds S] [--warmup W]

Three phases, one after another, each with WORKERS concurrent workers in a closed loop (a worker
sends its next request when the last one was answered), W seconds of warm-up then S measured:

  transfers  POST /v1/ledger/transfers as the admin: worker i moves 1 unit between its own two
             funded accounts (ACCOUNTS_FILE, from `hubapi.py bench-setup`), a fresh id each time.
             The baseline: the kernel's write path alone.
  did        POST /v1/rails/substrate/dids/{did}/attributes as worker i's own user, on the DID of
             its own custodial wallet, a new attribute name each time: the hub opens the wallet's
             key, signs a PeaqDid extrinsic with sr25519, verifies it again and records the proof,
             the attribute and the event in one unit of work.
  upload     POST /v1/rails/substrate/sensors/{address}/uploads with no token, as worker i's own
             sensor (a key the hub made): a 200-byte JSON reading, multipart, signed with
             py-sr25519-bindings over the message docs/substrate-sensors.md lays out, the counter
             one more each time. The hub verifies the sr25519 signature, compresses and stores it.

The setup (through the API as the admin) makes one user per worker, signs each in (ten per
loopback address: the sign-in limit's burst), and has each make a custodial wallet and register a
sensor. Prints one JSON object: per phase the requests/s, p50/p99/mean latency and the errors by
status (there must be none), and each rail phase's rate as a ratio of the transfers'. Checks at the
end that every worker's DID holds exactly the attributes acknowledged to it, warm-up included.
Standard library, the pinned aiohttp and py-sr25519-bindings (requirements.txt) and
bench/lib/httpload.py only.
"""
import argparse
import asyncio
import hashlib
import json
import os
import secrets
import struct
import sys
import time
import uuid

import aiohttp
import sr25519

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from httpload import RequestError, call, client, gather_bounded, latency_summary, loopback, sign_in_all  # noqa: E402

RAIL = "/v1/rails/substrate"
# The upload message's tag (docs/substrate-sensors.md).
TAG = b"hubd-sensor-upload-v1\x00"
PHASES = ("transfers", "did", "upload")


def time_ordered_id() -> str:
    """A UUIDv7-shaped id: the ledger's indexes favour ids that grow with time."""
    milliseconds = int(time.time() * 1000)
    raw = bytearray(milliseconds.to_bytes(6, "big") + os.urandom(10))
    raw[6] = 0x70 | (raw[6] & 0x0F)
    raw[8] = 0x80 | (raw[8] & 0x3F)
    return str(uuid.UUID(bytes=bytes(raw)))


def upload_message(public, counter, content, content_type):
    return (TAG + public + struct.pack("<Q", counter) + hashlib.blake2b(content, digest_size=32).digest()
            + bytes([len(content_type)]) + content_type.encode())


def multipart(counter, content, content_type, signature):
    boundary = "bench-" + secrets.token_hex(8)
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
             for name, value in (("file-type", content_type), ("counter", str(counter)), ("signature", signature.hex()))]
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="reading.json"\r\n'
                 f"Content-Type: {content_type}\r\n\r\n".encode() + content + b"\r\n")
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


async def setup(base, admin_token, count):
    password = secrets.token_urlsafe(18)
    tag = secrets.token_hex(4)
    async with client(connections=16) as admin:
        async def new_user(index):
            email = f"substrate-{index}-{tag}@bench.example.test"
            await call(admin, "POST", f"{base}/v1/users", "setup: user", token=admin_token,
                       body={"email": email, "display_name": f"Bench {index}", "password": password})
            return {"email": email}

        users = await gather_bounded(16, [new_user(i) for i in range(count)])

    await sign_in_all(base, users, password, 1)

    async with client(connections=16) as http:
        async def equip(index, user):
            wallet = await call(http, "POST", f"{base}{RAIL}/wallets", "setup: wallet", token=user["token"], body={"kind": "custodial"})
            user["did"] = "did:peaq:" + wallet["address"]
            sensor = await call(http, "POST", f"{base}{RAIL}/sensors", "setup: sensor", token=user["token"],
                                body={"name": f"bench sensor {index}"})
            user["sensor"] = sensor["address"]
            user["keypair"] = sr25519.pair_from_seed(bytes.fromhex(sensor["mini_secret"][2:]))

        await gather_bounded(16, [equip(i, u) for i, u in enumerate(users)])
    return users


class Phase:
    def __init__(self):
        self.recording = False
        self.latencies = []
        self.errors = {}
        self.samples = []
        self.acknowledged = 0  # warm-up included

    def error(self, error):
        key = f"HTTP {error.status}" if isinstance(error, RequestError) else type(error).__name__
        self.errors[key] = self.errors.get(key, 0) + 1
        if len(self.samples) < 5:
            self.samples.append(str(error)[:400])


async def drive(phase, index, send, warmup, seconds):
    """Worker `index` of a phase: `send(http, n)` in a closed loop, recording after the warm-up."""
    start = time.monotonic()
    record_at, stop_at = start + warmup, start + warmup + seconds
    sent = 0
    async with client(loopback(2, index), connections=1) as http:
        while (now := time.monotonic()) < stop_at:
            if not phase.recording and now >= record_at:
                phase.recording = True
            recording = phase.recording
            began = time.perf_counter()
            try:
                await send(http, sent)
            except (RequestError, aiohttp.ClientError, asyncio.TimeoutError, KeyError, TypeError) as error:
                phase.error(error)
                continue
            finally:
                sent += 1
            phase.acknowledged += 1
            if recording:
                phase.latencies.append(time.perf_counter() - began)


def summary(phase, seconds):
    latency = latency_summary(phase.latencies)
    return {
        "requests": latency["count"],
        "per_sec": round(latency["count"] / seconds, 2),
        "p50_ms": latency["p50_ms"],
        "p99_ms": latency["p99_ms"],
        "mean_ms": latency["mean_ms"],
        "errors": sum(phase.errors.values()),
        "errors_by_kind": phase.errors,
        "error_samples": phase.samples,
    }


async def run(args):
    accounts = [line.strip() for line in open(args.accounts) if line.strip()]
    if len(accounts) < 2 * args.workers:
        raise SystemExit(f"load.py: {args.accounts} holds {len(accounts)} accounts; {2 * args.workers} are needed")
    users = await setup(args.base, args.token, args.workers)
    reading = json.dumps({"t": 21.5, "unit": "C", "samples": list(range(40))}).encode()[:200]
    content_type = "application/json"

    def transfer(index):
        debit, credit = accounts[2 * index], accounts[2 * index + 1]

        async def send(http, n):
            # Back and forth, so neither account runs dry.
            source, target = (debit, credit) if n % 2 == 0 else (credit, debit)
            await call(http, "POST", f"{args.base}/v1/ledger/transfers", "transfer", token=args.token,
                       body={"id": time_ordered_id(), "debit_account_id": source, "credit_account_id": target,
                             "amount": "1", "asset": args.asset}, want=(201,))
        return send

    def did_write(index):
        user = users[index]

        async def send(http, n):
            await call(http, "POST", f"{args.base}{RAIL}/dids/{user['did']}/attributes", "did", token=user["token"],
                       body={"name": f"reading-{n}", "value": "21.5"}, want=(201,))
        return send

    def upload(index):
        user = users[index]
        public = user["keypair"][0]

        async def send(http, n):
            counter = n + 1
            signature = sr25519.sign(user["keypair"], upload_message(public, counter, reading, content_type))
            body, header = multipart(counter, reading, content_type, signature)
            await call(http, "POST", f"{args.base}{RAIL}/sensors/{user['sensor']}/uploads", "upload", data=body,
                       headers={"Content-Type": header}, want=(201,))
        return send

    results = {}
    phases = {}
    for name, make in (("transfers", transfer), ("did", did_write), ("upload", upload)):
        phase = Phase()
        phases[name] = phase
        await asyncio.gather(*(drive(phase, i, make(i), args.warmup, args.seconds) for i in range(args.workers)))
        results[name] = summary(phase, args.seconds)

    # Every acknowledged attribute is there, once.
    async with client(connections=8) as http:
        stored = 0
        for user in users:
            shown = await call(http, "GET", f"{args.base}{RAIL}/dids/{user['did']}", "check", token=user["token"], want=(200,))
            stored += len(shown["attributes"])
    baseline = results["transfers"]["per_sec"] or None
    output = {
        "workers": args.workers,
        "warmup_seconds": args.warmup,
        "seconds": args.seconds,
        "reading_bytes": len(reading),
        "phases": results,
        "did_writes_per_transfer": round(results["did"]["per_sec"] / baseline, 3) if baseline else None,
        "uploads_per_transfer": round(results["upload"]["per_sec"] / baseline, 3) if baseline else None,
        "attributes_acknowledged": phases["did"].acknowledged,
        "attributes_stored": stored,
        "attributes_ok": stored == phases["did"].acknowledged,
    }
    print(json.dumps(output))
    clean = all(r["errors"] == 0 for r in results.values()) and output["attributes_ok"]
    return 0 if clean else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    go = sub.add_parser("run", help="set up, then run the three phases; prints one JSON object")
    go.add_argument("base", help="the hub's base URL, e.g. http://127.0.0.1:8080")
    go.add_argument("token", help="an admin's access token")
    go.add_argument("accounts", help="funded account ids, one a line (hubapi.py bench-setup), two per worker")
    go.add_argument("--asset", default="BENCH")
    go.add_argument("--workers", type=int, default=16)
    go.add_argument("--seconds", type=float, default=20)
    go.add_argument("--warmup", type=float, default=3)
    args = parser.parse_args()
    if not 1 <= args.workers <= 1000:
        parser.error("--workers must be 1 to 1000")
    args.base = args.base.rstrip("/")
    sys.exit(asyncio.run(run(args)))


if __name__ == "__main__":
    main()
