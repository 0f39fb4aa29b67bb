#!/usr/bin/env python3
"""Load generator for `make bench-ble-sessions`: complete BLE session flows over HTTP.

One flow is four dependent requests, the way a payee's phone and a payer's phone drive the rail:

  create   POST /v1/rails/ble-sessions/sessions            as the payee  {"amount": "2500", "asset": ASSET}
  resolve  POST /v1/rails/ble-sessions/resolve             no auth       {"advertisement": <the session's advertising data>}
  lock     POST /v1/rails/ble-sessions/sessions/{id}/lock  as the payer  (a ledger hold on the payer's wallet)
  pay      POST /v1/rails/ble-sessions/sessions/{id}/pay   as the payer  with a fresh Idempotency-Key

`flows.py run BASE_URL ADMIN_TOKEN` sets up through the API as the admin (the asset, the payee
and payer users, the payers' wallets funded from the asset's issuance account, one sign-in per
user), then runs WORKERS concurrent workers for SECONDS after a short warm-up. Worker i pays as
payer i (distinct payers, so no two workers hold on one wallet) to payee i mod PAYEES, and sends
from its own loopback address (127.2.0.1 on), as distinct phones would. Each worker starts its next
flow when the last one finished (closed loop). It prints one JSON object: flows/s, requests/s,
p50/p99/mean of a flow and of each step, and the errors by step and status (there must be none).
At the end the payees' wallets must hold exactly 2500 × every flow completed, warm-up included.

Sign-ins are rate-limited per client address (a burst of 10), so the setup signs users in from
127.1.0.x, ten per address. Standard library, the pinned aiohttp (requirements.txt) and
bench/lib/httpload.py only.
"""
import argparse
import asyncio
import json
import os
import secrets
import sys
import time
import uuid

import aiohttp

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from httpload import RequestError, call, client, gather_bounded, latency_summary, loopback, sign_in_all  # noqa: E402

RAIL = "/v1/rails/ble-sessions"
AMOUNT = 2500
STEPS = ("create", "resolve", "lock", "pay")


async def setup(base, admin_token, asset, payee_count, payer_count, funding, login_block=1):
    password = secrets.token_urlsafe(18)
    run_tag = secrets.token_hex(4)
    async with client(connections=16) as admin:
        created = await call(admin, "POST", f"{base}/v1/assets", "setup: asset", token=admin_token,
                             body={"code": asset, "scale": 2, "name": "Euro"})
        issuance = created["issuance_account_id"]

        async def new_user(role, index):
            email = f"{role}-{index}-{run_tag}@bench.example.test"
            user = await call(admin, "POST", f"{base}/v1/users", f"setup: user {email}", token=admin_token,
                              body={"email": email, "display_name": f"Bench {role} {index}", "password": password})
            wallet = await call(admin, "PUT", f"{base}/v1/users/{user['id']}/wallets/{asset}", "setup: wallet", token=admin_token)
            return {"id": user["id"], "email": email, "wallet": wallet["id"]}

        payees = await gather_bounded(16, [new_user("payee", i) for i in range(payee_count)])
        payers = await gather_bounded(16, [new_user("payer", i) for i in range(payer_count)])

        async def fund(payer):
            await call(admin, "POST", f"{base}/v1/ledger/transfers", "setup: funding", token=admin_token,
                       body={"id": str(uuid.uuid4()), "debit_account_id": issuance, "credit_account_id": payer["wallet"],
                             "amount": str(funding), "asset": asset})

        await gather_bounded(16, [fund(p) for p in payers])

    await sign_in_all(base, payees + payers, password, login_block)
    return payees, payers


class Recorder:
    def __init__(self):
        self.recording = False
        self.flows = []  # seconds per completed flow
        self.steps = {step: [] for step in STEPS}
        self.errors = {}  # "step HTTP status" -> count
        self.samples = []  # first few error messages
        self.completed_total = 0  # warm-up included: what the payees must have received

    def error(self, error):
        key = f"{error.step} HTTP {error.status}" if isinstance(error, RequestError) else f"{type(error).__name__}"
        self.errors[key] = self.errors.get(key, 0) + 1
        if len(self.samples) < 5:
            self.samples.append(str(error)[:400])


async def worker(index, base, asset, payee, payer, recorder, stop_at, phase_switch):
    async with client(loopback(2, index), connections=1) as http:
        while True:
            now = time.monotonic()
            if now >= stop_at:
                return
            if not recorder.recording and now >= phase_switch:
                recorder.recording = True
            recording = recorder.recording
            marks = [time.perf_counter()]
            try:
                session = await call(http, "POST", f"{base}{RAIL}/sessions", "create", token=payee["token"],
                                     body={"amount": str(AMOUNT), "asset": asset}, want=(201,))
                marks.append(time.perf_counter())
                resolved = await call(http, "POST", f"{base}{RAIL}/resolve", "resolve",
                                      body={"advertisement": session["advertisement"]["data"]}, want=(200,))
                if resolved.get("session_id") != session["id"]:
                    raise RequestError("resolve", 200, f"resolved {resolved.get('session_id')}, created {session['id']}")
                marks.append(time.perf_counter())
                await call(http, "POST", f"{base}{RAIL}/sessions/{session['id']}/lock", "lock", token=payer["token"], want=(200,))
                marks.append(time.perf_counter())
                paid = await call(http, "POST", f"{base}{RAIL}/sessions/{session['id']}/pay", "pay", token=payer["token"],
                                  headers={"Idempotency-Key": str(uuid.uuid4())}, want=(200,))
                if paid["session"]["status"] != "paid":
                    raise RequestError("pay", 200, f"session status {paid['session']['status']}")
                marks.append(time.perf_counter())
            except (RequestError, aiohttp.ClientError, asyncio.TimeoutError, KeyError, TypeError) as error:
                recorder.error(error)
                continue
            recorder.completed_total += 1
            if recording:
                recorder.flows.append(marks[-1] - marks[0])
                for step, start, end in zip(STEPS, marks, marks[1:]):
                    recorder.steps[step].append(end - start)


async def payee_total(base, admin_token, payees):
    async with client(connections=8) as admin:
        total = 0
        for payee in payees:
            account = await call(admin, "GET", f"{base}/v1/ledger/accounts/{payee['wallet']}", "check: payee wallet", token=admin_token, want=(200,))
            total += int(account["balances"]["credits_posted"]) - int(account["balances"]["debits_posted"])
        return total


async def run(args):
    payees, payers = await setup(args.base, args.token, args.asset, args.payees, args.workers, args.funding)
    recorder = Recorder()
    start = time.monotonic()
    phase_switch = start + args.warmup
    stop_at = phase_switch + args.seconds
    tasks = [worker(i, args.base, args.asset, payees[i % len(payees)], payers[i], recorder, stop_at, phase_switch)
             for i in range(args.workers)]
    await asyncio.gather(*tasks)
    measured = time.monotonic() - max(phase_switch, start)
    received = await payee_total(args.base, args.token, payees)
    flows = len(recorder.flows)
    result = {
        "workers": args.workers,
        "payers": len(payers),
        "payees": len(payees),
        "amount": str(AMOUNT),
        "warmup_seconds": args.warmup,
        "seconds": round(measured, 3),
        "flows": flows,
        "flows_per_sec": round(flows / measured, 2),
        "requests_per_sec": round(4 * flows / measured, 2),
        "flow": latency_summary(recorder.flows),
        "steps": {step: latency_summary(values) for step, values in recorder.steps.items()},
        "errors": sum(recorder.errors.values()),
        "errors_by_kind": recorder.errors,
        "error_samples": recorder.samples,
        "completed_flows_including_warmup": recorder.completed_total,
        "payees_received": str(received),
        "payees_received_ok": received == AMOUNT * recorder.completed_total,
    }
    print(json.dumps(result))
    return 0 if result["errors"] == 0 and result["payees_received_ok"] else 1


async def setup_only(args):
    """For `steps.lua`: the same setup, then one line per worker: payee token, payer token."""
    # Sign-ins from 127.3.x.x: `run` used 127.1.x.x, whose per-address sign-in budget it spent.
    payees, payers = await setup(args.base, args.token, args.asset, args.payees, args.workers, args.funding, login_block=3)
    with open(args.output, "w") as out:
        for i, payer in enumerate(payers):
            out.write(f"{payees[i % len(payees)]['token']} {payer['token']}\n")
    print(json.dumps({"payee_wallets": [p["wallet"] for p in payees]}))
    return 0


async def received(args):
    """What the payees' wallets hold now (minor units), as one JSON number."""
    wallets = json.load(open(args.wallets))["payee_wallets"]
    print(await payee_total(args.base, args.token, [{"wallet": w} for w in wallets]))
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    prepare = sub.add_parser("setup", help="only the setup; writes 'payee-token payer-token' per worker to OUTPUT")
    prepare.add_argument("base")
    prepare.add_argument("token")
    prepare.add_argument("output")
    prepare.add_argument("--asset", default="EUR")
    prepare.add_argument("--workers", type=int, default=64)
    prepare.add_argument("--payees", type=int, default=16)
    prepare.add_argument("--funding", type=int, default=10**12)
    total = sub.add_parser("received", help="the payees' total, from the JSON that `setup` printed")
    total.add_argument("base")
    total.add_argument("token")
    total.add_argument("wallets")
    go = sub.add_parser("run", help="set up, then run the flows; prints one JSON object")
    go.add_argument("base", help="the hub's base URL, e.g. http://127.0.0.1:8080")
    go.add_argument("token", help="an admin's access token")
    go.add_argument("--asset", default="EUR")
    go.add_argument("--workers", type=int, default=64, help="concurrent workers, one distinct payer each")
    go.add_argument("--payees", type=int, default=16)
    go.add_argument("--seconds", type=float, default=20)
    go.add_argument("--warmup", type=float, default=3)
    go.add_argument("--funding", type=int, default=10**12, help="minor units minted to each payer")
    args = parser.parse_args()
    if getattr(args, "workers", 1) and not 1 <= getattr(args, "workers", 1) <= 2500:
        parser.error("--workers must be 1 to 2500")
    args.base = args.base.rstrip("/")
    command = {"run": run, "setup": setup_only, "received": received}[args.command]
    sys.exit(asyncio.run(command(args)))


if __name__ == "__main__":
    main()
