#!/usr/bin/env python3
"""Load generator for scripts/bench-fanout.sh: the event stream (GET /v1/events/stream) fanned out
to many Server-Sent Events clients spread over several hubd instances on one PostgreSQL.

  fanout.py run BASE_URLS ADMIN_TOKEN [--clients 1000] [--events 200] [--rate 20] [--output FILE]

BASE_URLS is a comma-separated list of instances. Two phases, one after the other, each with its own
streams: a baseline with 1 client, then --clients clients, client i on instance i mod N. Each phase:

  1. reads the log's last sequence S (GET /v1/events) and opens every stream with
     `Last-Event-ID: S`, so a client that subscribes late still gets every event after S;
  2. posts a marker transfer and waits until every client has received it: only then is every
     client known to be subscribed and caught up, so connection set-up stays out of the timings;
  3. posts --events ledger transfers at a steady --rate (open loop: each at its scheduled time,
     whatever the previous one's latency), round-robin over the instances;
  4. waits until every client has received the last of them, then closes the streams.

Latency of a delivery: from the moment the POST's response was read to the moment the event's
message was read by that client. Under load the stream can beat the POST's own response (the
latency is then negative), so the latency from the POST's request and the POSTs' own latency are
reported too. An instance learns of another's commit through PostgreSQL NOTIFY, so with several
instances most deliveries cross instances; the two kinds are also reported apart. Every client must see every event exactly once and in order: the log's sequences
are gapless, so each stream's `id:`s must run S+1, S+2, ... with nothing skipped or repeated.

Everything runs in this one asyncio process; at high fan-out the client's own CPU can delay
reading, which the report shows as client_cpu_percent. Standard library, the pinned aiohttp
(bench/ble-sessions/requirements.txt) and bench/lib (httpload.py, machine.py) only. Exits 1 when
any delivery is missing, repeated or out of order, or any request failed.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import sys
import time
import uuid
from dataclasses import dataclass, field

import aiohttp

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from httpload import call, client, latency_summary  # noqa: E402
from machine import machine  # noqa: E402

TRANSFER_POSTED = "ledger.transfer.posted"
# Streams opened at once: a burst of a thousand connects can overflow an instance's accept queue.
CONNECT_CONCURRENCY = 50
# Violations kept as examples per stream; the counts are always complete.
SAMPLES = 3


@dataclass
class Posted:
    """One transfer posted during the measured part of a phase."""
    transfer_id: str
    instance: int
    sent: float  # time.perf_counter() before the request
    answered: float  # time.perf_counter() once the response was read


@dataclass
class Stream:
    """One SSE client: what it received, in order, and what was wrong with it."""
    index: int
    instance: int
    last: int  # the last sequence received (the phase's start until the first message)
    arrivals: list[tuple[int, float]] = field(default_factory=list)
    gaps: int = 0
    repeats: int = 0  # a sequence at or below one already received: a duplicate or out of order
    samples: list[str] = field(default_factory=list)
    error: str | None = None

    def receive(self, sequence: int, at: float) -> None:
        if sequence != self.last + 1 and len(self.samples) < SAMPLES:
            self.samples.append(f"client {self.index}: id {sequence} after {self.last}")
        if sequence <= self.last:
            self.repeats += 1
            return
        if sequence > self.last + 1:
            self.gaps += 1
        self.last = sequence
        self.arrivals.append((sequence, at))


class Progress:
    """How many streams have reached a sequence; wakes a waiter when all have."""

    def __init__(self, streams: list[Stream]) -> None:
        self.streams = streams
        self.target = 0
        self.reached = 0
        self.done = asyncio.Event()

    def advanced(self, stream: Stream, before: int) -> None:
        if before < self.target <= stream.last:
            self.reached += 1
            if self.reached == len(self.streams):
                self.done.set()

    def failed(self) -> None:
        """A stream that failed will never reach the target: stop waiting for it."""
        self.done.set()

    async def wait(self, sequence: int, seconds: float) -> bool:
        self.target = sequence
        self.reached = sum(s.last >= sequence for s in self.streams)
        self.done = asyncio.Event()
        if self.reached < len(self.streams) and not any(s.error for s in self.streams):
            try:
                await asyncio.wait_for(self.done.wait(), seconds)
            except asyncio.TimeoutError:
                pass
        return self.reached == len(self.streams)


def raise_fd_limit(needed: int) -> None:
    """One socket per stream: a soft limit of 1024, common by default, is too low for 1,000."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed if hard == resource.RLIM_INFINITY else min(hard, needed), hard))


def stream_session() -> aiohttp.ClientSession:
    """httpload.client's 30 s total timeout would end every stream: none here, and no pool limit."""
    connector = aiohttp.TCPConnector(limit=0, limit_per_host=0)
    return aiohttp.ClientSession(connector=connector, trust_env=False,
                                 timeout=aiohttp.ClientTimeout(total=None, connect=30, sock_read=None))


def message_id(message: bytes) -> int | None:
    """The `id:` of one SSE message, or None for a comment or the `retry:` preamble."""
    for line in message.split(b"\n"):
        if line.startswith(b"id:"):
            return int(line[3:].strip())
    return None


async def listen(http: aiohttp.ClientSession, base: str, token: str, stream: Stream, progress: Progress,
                 opened: asyncio.Semaphore) -> None:
    """Reads one stream until cancelled; its end or any failure before that is the stream's error."""
    headers = {"Authorization": f"Bearer {token}", "Accept": "text/event-stream", "Last-Event-ID": str(stream.last)}
    try:
        async with opened:
            response = await http.get(f"{base}/v1/events/stream", headers=headers)
        async with response:
            if response.status != 200:
                stream.error = f"HTTP {response.status}: {(await response.text())[:200]}"
                return
            buffer = b""
            # Chunks rather than lines: one await per read keeps a thousand streams cheap.
            async for chunk in response.content.iter_any():
                at = time.perf_counter()
                *messages, buffer = (buffer + chunk).split(b"\n\n")
                before = stream.last
                for message in messages:
                    sequence = message_id(message)
                    if sequence is not None:
                        stream.receive(sequence, at)
                progress.advanced(stream, before)
            stream.error = "the stream ended"
    except (aiohttp.ClientError, ValueError, OSError) as error:
        stream.error = f"{type(error).__name__}: {error}"[:300]
    finally:
        if stream.error:
            progress.failed()


async def log_after(http: aiohttp.ClientSession, base: str, token: str, after: int,
                    event_type: str | None = None) -> list[dict]:
    """The event log after `after`, oldest first, every page."""
    events: list[dict] = []
    cursor = after
    while True:
        query = f"after={cursor}&limit=1000" + (f"&type={event_type}" if event_type else "")
        page = await call(http, "GET", f"{base}/v1/events?{query}", "events", token=token, want=(200,))
        events += page["data"]
        if page["next_cursor"] is None:
            return events
        cursor = int(page["next_cursor"])


async def last_sequence(http: aiohttp.ClientSession, base: str, token: str, after: int) -> int:
    events = await log_after(http, base, token, after)
    return events[-1]["sequence"] if events else after


async def setup(http: aiohttp.ClientSession, base: str, token: str, asset: str) -> tuple[str, str]:
    """The asset's issuance account (debited: it may go negative) and a new account to credit."""
    created = await call(http, "POST", f"{base}/v1/assets", "setup: asset", token=token,
                         body={"code": asset, "scale": 2, "name": f"Fan-out benchmark {asset}"}, want=(200, 201))
    account = str(uuid.uuid4())
    await call(http, "POST", f"{base}/v1/ledger/accounts", "setup: account", token=token,
               body={"id": account, "asset": asset, "owner": {"kind": "system", "id": "fanout"}, "code": "bench"})
    return created["issuance_account_id"], account


async def post_transfer(http: aiohttp.ClientSession, base: str, token: str, instance: int,
                        accounts: tuple[str, str], asset: str) -> Posted:
    body = {"id": str(uuid.uuid4()), "debit_account_id": accounts[0], "credit_account_id": accounts[1],
            "amount": "1", "asset": asset}
    sent = time.perf_counter()
    answer = await call(http, "POST", f"{base}/v1/ledger/transfers", "transfer", token=token, body=body, want=(201,))
    return Posted(answer["id"], instance, sent, time.perf_counter())


async def post_steadily(posters: list[aiohttp.ClientSession], bases: list[str], token: str, count: int,
                        rate: float, accounts: tuple[str, str], asset: str) -> tuple[list[Posted], list[str]]:
    """`count` transfers, the i-th at start + i / rate through instance i mod N; (posted, errors)."""
    start = time.perf_counter()
    tasks = []
    for i in range(count):
        delay = start + i / rate - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        instance = i % len(bases)
        tasks.append(asyncio.create_task(post_transfer(posters[instance], bases[instance], token, instance, accounts, asset)))
    results = await asyncio.gather(*tasks, return_exceptions=True)
    posted = [r for r in results if isinstance(r, Posted)]
    errors = [str(r)[:300] for r in results if not isinstance(r, Posted)]
    return posted, errors


def sequences_of(events: list[dict], posted: list[Posted]) -> dict[int, Posted]:
    """Sequence -> transfer, from the log itself: a posting's event has its transfer's id as subject."""
    by_id = {p.transfer_id: p for p in posted}
    return {e["sequence"]: by_id[e["subject"]] for e in events if e["subject"] in by_id}


def delivery_stats(streams: list[Stream], measured: dict[int, Posted], window_start: float) -> dict:
    """Latencies of every (client, measured event): from the POST's response (the measure), also
    split by whether the client's instance took the POST, and from the POST's request."""
    answered, sent, local, remote = [], [], [], []
    by_instance: dict[int, list[float]] = {}
    last_arrival = window_start
    for stream in streams:
        for sequence, at in stream.arrivals:
            posted = measured.get(sequence)
            if posted is None:
                continue
            answered.append(at - posted.answered)
            sent.append(at - posted.sent)
            (local if posted.instance == stream.instance else remote).append(at - posted.answered)
            by_instance.setdefault(stream.instance, []).append(at - posted.answered)
            last_arrival = max(last_arrival, at)
    window = last_arrival - window_start
    return {
        "deliveries_received": len(answered),
        "latency": latency_summary(answered),
        "latency_same_instance": latency_summary(local),
        "latency_other_instance": latency_summary(remote),
        "latency_by_client_instance": [latency_summary(by_instance[i]) for i in sorted(by_instance)],
        "latency_from_request": latency_summary(sent),
        # The stream can beat the POST's own response: those latencies are negative.
        "delivered_before_post_answered": sum(latency < 0 for latency in answered),
        "post_latency": latency_summary([p.answered - p.sent for p in measured.values()]),
        "window_seconds": round(window, 3),
        "deliveries_per_sec": round(len(answered) / window, 1) if window > 0 else None,
    }


class Streams:
    """A phase's clients, client i on instance i mod N, open from `__aenter__` to `__aexit__`."""

    def __init__(self, bases: list[str], token: str, clients: int, after: int) -> None:
        self.bases, self.token = bases, token
        self.streams = [Stream(index=i, instance=i % len(bases), last=after) for i in range(clients)]
        self.progress = Progress(self.streams)
        self.sessions: list[aiohttp.ClientSession] = []
        self.tasks: list[asyncio.Task] = []

    async def __aenter__(self) -> Streams:
        opened = asyncio.Semaphore(CONNECT_CONCURRENCY)
        self.sessions = [stream_session() for _ in self.bases]
        self.tasks = [asyncio.create_task(listen(self.sessions[s.instance], self.bases[s.instance], self.token, s,
                                                 self.progress, opened)) for s in self.streams]
        return self

    async def __aexit__(self, *_: object) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        for session in self.sessions:
            await session.close()


async def subscribed(streams: Streams, admin: aiohttp.ClientSession, args: argparse.Namespace,
                     accounts: tuple[str, str], after: int) -> int | None:
    """Posts a marker and waits until every client has it: its sequence, or None on timeout."""
    marker = await post_transfer(admin, args.bases[0], args.token, 0, accounts, args.asset)
    events = await log_after(admin, args.bases[0], args.token, after, TRANSFER_POSTED)
    sequence = next((e["sequence"] for e in events if e["subject"] == marker.transfer_id), None)
    if sequence is None:
        raise RuntimeError(f"the marker transfer {marker.transfer_id} was acknowledged but is not in the event log")
    return sequence if await streams.progress.wait(sequence, args.settle) else None


async def measure(streams: Streams, posters: list[aiohttp.ClientSession], args: argparse.Namespace,
                  accounts: tuple[str, str], marker: int) -> tuple[dict[int, Posted], float, dict]:
    """Posts the phase's transfers and waits for every client to receive the last of them: the
    transfers by sequence, when posting began, and what the report says of it."""
    cpu_began, window_start = time.process_time(), time.perf_counter()
    posted, errors = await post_steadily(posters, args.bases, args.token, args.events, args.rate, accounts, args.asset)
    log = await log_after(posters[0], args.bases[0], args.token, marker, TRANSFER_POSTED)
    measured = sequences_of(log, posted)
    settled = await streams.progress.wait(max(measured, default=marker), args.settle)
    wall, cpu = time.perf_counter() - window_start, time.process_time() - cpu_began
    return measured, window_start, {
        "all_caught_up": settled, "events_posted": len(posted), "events_in_log": len(measured),
        "post_errors": len(errors), "post_error_samples": errors[:5],
        "client_cpu_percent": round(100 * cpu / wall, 1),
    }


def load_average() -> list[str]:
    with open("/proc/loadavg") as file:
        return file.read().split()[:3]


async def run_phase(name: str, clients: int, args: argparse.Namespace, accounts: tuple[str, str],
                    posters: list[aiohttp.ClientSession], after: int) -> dict:
    """One phase on the log after sequence `after`: open, subscribe, measure, close, check."""
    before = load_average()
    began = time.perf_counter()
    async with Streams(args.bases, args.token, clients, after) as streams:
        marker = await subscribed(streams, posters[0], args, accounts, after)
        connect_seconds = time.perf_counter() - began
        measured, window_start, run = ({}, time.perf_counter(), {"all_caught_up": False, "events_in_log": 0, "post_errors": 0})
        if marker is not None:
            measured, window_start, run = await measure(streams, posters, args, accounts, marker)
    failed = [s.error for s in streams.streams if s.error]
    result = {
        "phase": name, "clients": clients, "instances": len(args.bases), "events": args.events,
        "rate_per_sec": args.rate, "deliveries_expected": clients * args.events,
        **delivery_stats(streams.streams, measured, window_start), **run,
        "gaps": sum(s.gaps for s in streams.streams),
        "duplicates_or_out_of_order": sum(s.repeats for s in streams.streams),
        "order_samples": [x for s in streams.streams for x in s.samples][:10],
        "streams_failed": len(failed), "stream_errors": sorted(set(failed))[:5],
        "all_subscribed": marker is not None, "connect_seconds": round(connect_seconds, 3),
        "load_average_before": before, "load_average_after": load_average(),
        "last_sequence": max(s.last for s in streams.streams),
    }
    result["ok"] = (result["all_subscribed"] and result["all_caught_up"] and not failed and not result["post_errors"]
                    and result["gaps"] == 0 and result["duplicates_or_out_of_order"] == 0
                    and result["events_in_log"] == args.events and result["deliveries_received"] == result["deliveries_expected"])
    return result


def table(phases: list[dict], ratio: float | None) -> str:
    header = (f"{'phase':<9} {'clients':>7} {'events':>6} {'expected':>9} {'received':>9} {'p50 ms':>8} {'p99 ms':>8}"
              f" {'max ms':>8} {'deliv/s':>9} {'req p99':>8} {'POST p99':>9} {'cpu %':>6}  ok")
    lines = [header, "-" * len(header)]
    for p in phases:
        latency = p["latency"]
        lines.append(f"{p['phase']:<9} {p['clients']:>7} {p['events']:>6} {p['deliveries_expected']:>9}"
                     f" {p['deliveries_received']:>9} {latency['p50_ms'] or 0:>8.1f} {latency['p99_ms'] or 0:>8.1f}"
                     f" {latency['max_ms'] or 0:>8.1f} {p['deliveries_per_sec'] or 0:>9.0f}"
                     f" {p['latency_from_request']['p99_ms'] or 0:>8.1f} {p['post_latency']['p99_ms'] or 0:>9.1f}"
                     f" {p.get('client_cpu_percent') or 0:>6.0f}"
                     f"  {'yes' if p['ok'] else 'NO'}")
        if not p["ok"]:
            lines.append(f"  gaps {p['gaps']}, duplicates/out of order {p['duplicates_or_out_of_order']},"
                         f" failed streams {p['streams_failed']} {p['stream_errors']}, post errors {p['post_errors']}"
                         f" {p.get('post_error_samples', [])[:2]}, subscribed {p['all_subscribed']}, caught up {p['all_caught_up']}")
            lines += [f"  {s}" for s in p["order_samples"][:5]]
    lines.append(f"p99 at {phases[-1]['clients']} clients / p99 at 1 client: {ratio if ratio is not None else 'n/a'}")
    lines.append("p50/p99/max: from the POST's response to the event read by a client; req p99: from the POST's request;")
    lines.append("POST p99: the POSTs' own latency; deliv/s: deliveries over the phase's window; cpu %: this client process's.")
    return "\n".join(lines)


async def run(args: argparse.Namespace) -> int:
    raise_fd_limit(args.clients + 256)
    posters = [client(connections=16) for _ in args.bases]
    try:
        accounts = await setup(posters[0], args.bases[0], args.token, args.asset)
        after = await last_sequence(posters[0], args.bases[0], args.token, 0)
        phases = [await run_phase("baseline", 1, args, accounts, posters, after)]
        if phases[0]["ok"]:
            after = await last_sequence(posters[0], args.bases[0], args.token, phases[0]["last_sequence"])
            phases.append(await run_phase("fan-out", args.clients, args, accounts, posters, after))
    finally:
        for poster in posters:
            await poster.close()
    p99s = [p["latency"]["p99_ms"] for p in phases]
    ratio = round(p99s[-1] / p99s[0], 2) if len(p99s) == 2 and p99s[0] and p99s[1] is not None else None
    output = {
        "generated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": machine(),
        "load": ("bench/scale/fanout.py: one Python asyncio + aiohttp process on the same machine holds every SSE "
                 "stream (client i on instance i mod N) and posts the transfers, open loop, round-robin"),
        "instances": args.bases,
        "phases": phases,
        "p99_ratio": ratio,
        "ok": all(p["ok"] for p in phases) and len(phases) == 2,
    }
    if args.output:
        with open(args.output, "w") as file:
            json.dump(output, file, indent=2)
            file.write("\n")
    print(table(phases, ratio))
    return 0 if output["ok"] else 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    go = sub.add_parser("run", help="the baseline and the fan-out phase; prints a table")
    go.add_argument("bases", help="the instances' base URLs, comma-separated")
    go.add_argument("token", help="an admin's access token (the stream and the log are for admins)")
    go.add_argument("--clients", type=int, default=1000, help="streams in the fan-out phase")
    go.add_argument("--events", type=int, default=200, help="transfers posted and timed per phase")
    go.add_argument("--rate", type=float, default=20, help="transfers per second")
    go.add_argument("--settle", type=float, default=60, help="seconds to wait for every client to catch up")
    go.add_argument("--asset", default="FANOUT")
    go.add_argument("--output", help="write the results here as JSON")
    args = parser.parse_args()
    args.bases = [b.rstrip("/") for b in args.bases.split(",") if b]
    if not args.bases or args.clients < 1 or args.events < 1 or args.rate <= 0:
        parser.error("need at least one base URL, --clients and --events >= 1, --rate > 0")
    sys.exit(asyncio.run(run(args)))


if __name__ == "__main__":
    main()
