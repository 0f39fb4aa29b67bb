"""hubd riding through the death of its PostgreSQL primary (pg_auto_failover).

  python failover_check.py [--planned] ADMIN_TOKEN COMMAND BASE_URL ...

Run by scripts/failover-test.sh, which starts the pg_auto_failover formation (monitor, primary,
synchronous secondary) and the hubd instances on its multi-host URL. Ledger transfers are sent to
every instance from several client threads, each with an Idempotency-Key and retried with the same
key until a definite answer (hubload.answered); /readyz of every instance is polled meanwhile.
Mid-load COMMAND (a shell command) kills the primary, or with --planned switches it over
(pg_autoctl perform switchover). Checks, each printed as `ok …` or `FAIL …` (exit status 1 on any
failure):
- /readyz turned 503 during the outage (after a crash; a switchover's is reported) and is 200
  after it, on every instance;
- every request was answered: none given up, and no 500 (a half-done write would be one);
- every acknowledged transfer is in the ledger exactly once (each worker's account holds exactly
  what was acknowledged to it), and the issuance account's debits are their sum;
- transfers were acknowledged after the failover;
- the local chain's JSON-RPC (eth_blockNumber, polled on every instance) never answered an
  internal error (-32603) or a 500 during the outage (a lost database is -32002
  `database_unavailable`, which a wallet may retry), and answers again after it.
Measured and printed: the seconds clients saw refusals or dropped connections, the attempts sent
again, and the time from the crash to every instance being ready again.
"""

import subprocess
import sys
import threading
import time
import uuid

import hubload
from hubload import answered, check, guarded, retries, stop, transfers

WORKERS_PER_INSTANCE = 4


def watch_readiness(base, samples):
    """(time, status) of GET /readyz every 100 ms until the load stops; None when unreachable."""
    while not stop.is_set():
        try:
            status, _ = hubload.request(base, "GET", "/readyz", timeout=2)
        except Exception:  # noqa: BLE001 - an unreachable instance is a sample too
            status = None
        samples.append((time.time(), status))
        time.sleep(0.1)


def watch_rpc(base, chain_id, samples):
    """(time, HTTP status, JSON-RPC error code or None) of the local chain's eth_blockNumber every
    100 ms until the load stops; status None when the instance was unreachable."""
    call = {"jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber", "params": []}
    while not stop.is_set():
        try:
            status, answer = hubload.request(base, "POST", f"/v1/rails/localchain/chains/{chain_id}/rpc", call, timeout=5)
            code = (answer.get("error") or {}).get("code") if isinstance(answer, dict) else None
        except Exception:  # noqa: BLE001 - an unreachable instance is a sample too
            status, code = None, None
        samples.append((time.time(), status, code))
        time.sleep(0.1)


def main(token, crash, bases, planned=False):
    base = bases[0]
    # Each run its own asset and chain: the script runs a switchover, then a crash, on one hub.
    label = "SWITCH" if planned else "CRASH"
    status, asset = answered(base, "POST", "/v1/assets", {"code": label, "scale": 0, "name": f"Load ({label.lower()})"}, token)
    check(status in (200, 201), f"an asset ({status})")
    issuance = asset["issuance_account_id"]
    workers = []  # (base, account id, acknowledged ids)
    for index in range(WORKERS_PER_INSTANCE * len(bases)):
        body = {"asset": label, "owner": {"kind": "system", "id": f"load-{index}"}, "code": "load"}
        status, account = answered(base, "POST", "/v1/ledger/accounts", body, token, {"Idempotency-Key": str(uuid.uuid4())})
        check(status in (200, 201), f"account {index} ({status})")
        workers.append((bases[index % len(bases)], account["id"], []))

    # The local chain's JSON-RPC (a rail on the same database) through the outage too.
    chain_id = 7001 if planned else 7002
    body = {"chain_id": chain_id, "name": "Failover", "currency_name": "Failover Token", "symbol": "FAIL", "decimals": 2}
    status, _ = answered(base, "POST", "/v1/rails/localchain/chains", body, token, {"Idempotency-Key": str(uuid.uuid4())})
    check(status in (200, 201), f"a local chain ({status})")

    unanswered = []
    readiness = {instance: [] for instance in bases}
    rpc = {instance: [] for instance in bases}
    threads = [threading.Thread(target=guarded(transfers, unanswered), args=(instance, token, issuance, account, acknowledged, unanswered, label))
               for instance, account, acknowledged in workers]
    threads += [threading.Thread(target=watch_readiness, args=(instance, readiness[instance])) for instance in bases]
    threads += [threading.Thread(target=watch_rpc, args=(instance, chain_id, rpc[instance])) for instance in bases]
    for thread in threads:
        thread.start()

    def acknowledged_count():
        return sum(len(acknowledged) for _, _, acknowledged in workers)

    time.sleep(5)
    before = acknowledged_count()
    crashed_at = time.time()
    result = subprocess.run(crash, shell=True)
    what, event = ("switched over", "switchover") if planned else ("crashed", "crash")
    check(result.returncode == 0, f"the primary {what} at {before} transfers ({crash}: exit status {result.returncode})")

    # Load until every instance has been ready again for a while, at most two minutes (a switchover
    # may show no outage at all: its command returned once the new primary took over).
    ready_again = {}
    deadline = crashed_at + 120
    while time.time() < deadline and len(ready_again) < len(bases) and not planned:
        time.sleep(0.5)
        for instance, samples in readiness.items():
            down = [at for at, status in samples if at > crashed_at and status != 200]
            up = [at for at, status in samples if down and at > down[0] and status == 200]
            if up and instance not in ready_again:
                ready_again[instance] = up[0]
    time.sleep(5)
    stop.set()
    for thread in threads:
        thread.join()

    for instance, samples in readiness.items():
        after = [(at, status) for at, status in samples if at > crashed_at]
        refused = [at for at, status in after if status == 503]
        if planned:
            # A switchover may be over between two polls: its outage is reported, not required.
            print(f"{instance}/readyz answered 503 {len(refused)} times during the switchover", flush=True)
        else:
            check(bool(refused), f"{instance}/readyz answered 503 during the outage ({len(refused)} times)")
        if planned:
            check(after[-1][1] == 200, f"{instance}/readyz is 200 after the switchover")
        else:
            check(instance in ready_again and after[-1][1] == 200,
                  f"{instance}/readyz is 200 again, {ready_again.get(instance, crashed_at) - crashed_at:.1f} s after the crash")
    for instance, samples in rpc.items():
        after = [(at, status, code) for at, status, code in samples if at > crashed_at]
        internal = [entry for entry in after if entry[2] == -32603 or entry[1] == 500]
        unavailable = [entry for entry in after if entry[2] == -32002]
        check(not internal, f"{instance}: JSON-RPC never answered an internal error in the outage ({len(internal)} did)")
        check(bool(after) and after[-1][1] == 200 and after[-1][2] is None,
              f"{instance}: JSON-RPC answers again after it ({len(unavailable)} answers were -32002 database_unavailable)")
    errors = [entry for entry in unanswered if len(entry) == 3 and entry[1] == 500]
    check(not errors, f"no 500 answered ({len(errors)}: {errors[:3]})")
    check(not unanswered, f"every request was answered ({len(unanswered)} not: {unanswered[:3]})")
    after_crash = [entry for entry in retries if entry[0] > crashed_at]
    if after_crash:
        outage = after_crash[-1][0] - after_crash[0][0]
        refused = sum(1 for entry in after_crash if entry[2] == 503)
        print(f"clients saw the outage for {outage:.1f} s: {len(after_crash)} attempts sent again "
              f"({refused} answered 503, {len(after_crash) - refused} dropped or 502/504), "
              f"first {after_crash[0][0] - crashed_at:.1f} s after the {event}", flush=True)
    print(f"{len(retries)} attempts were sent again in all", flush=True)
    check(acknowledged_count() > before, f"transfers acknowledged after the {event} ({acknowledged_count() - before} since)")

    total = 0
    for index, (_, account, acknowledged) in enumerate(workers):
        status, shown = answered(base, "GET", f"/v1/ledger/accounts/{account}", token=token)
        credited = int(shown["balances"]["credits_posted"])
        total += credited
        check(credited == len(acknowledged) and len(set(acknowledged)) == len(acknowledged),
              f"worker {index}: {len(acknowledged)} transfers acknowledged, {credited} in the ledger")
    status, shown = answered(base, "GET", f"/v1/ledger/accounts/{issuance}", token=token)
    check(int(shown["balances"]["debits_posted"]) == total, f"the issuance account issued {shown['balances']['debits_posted']} = {total}")

    print(f"{hubload.failures} failed")
    sys.exit(1 if hubload.failures else 0)


if __name__ == "__main__":
    arguments = sys.argv[1:]
    planned = arguments[:1] == ["--planned"]
    if planned:
        arguments = arguments[1:]
    main(arguments[0], arguments[1], arguments[2:], planned=planned)
