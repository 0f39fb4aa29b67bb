"""Several hubd instances on one PostgreSQL behind HAProxy, two of them killed mid-load.

  python instances_check.py LB_URL ADMIN_TOKEN NAME=PID=LOG ...

Run by scripts/instances-test.sh, which starts the instances and HAProxy. Through the load
balancer: ledger transfers (each with an Idempotency-Key, retried with the same key until a
definite answer), BLE session payments (open, lock, pay, each step with its own key) and local
chain payments (signed here with eth-account, the same raw
transaction sent again until the chain has it), from several client threads. Mid-load one
instance is killed with SIGKILL, then the instance leading the local chain's sealer. Checks, each
printed as `ok …` or `FAIL …` (exit status 1 on any failure):
- every request was answered (none given up after the retries);
- every acknowledged transfer is in the ledger exactly once: each worker's account holds exactly
  what was acknowledged to that worker; each BLE payee holds, and each payer has paid, exactly
  the sessions acknowledged paid, with nothing left held;
- every payment is in exactly one block; the blocks form one chain (each names its parent's hash),
  sealed on after the leader died; the senders' balances are what the payments left.
"""

import json
import os
import signal
import sys
import threading
import time
import uuid

from eth_account import Account

import hubload
from hubload import answered, check, guarded, retries, stop, transfers

CHAIN = 515151
PASSWORD = "instances-check-" + uuid.uuid4().hex
WORKERS = 6
FLOW_AMOUNT = 250


def rpc(base, method, params):
    status, payload = answered(base, "POST", f"/v1/rails/localchain/chains/{CHAIN}/rpc",
                               {"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    if status is None:
        raise RuntimeError(f"{method}: no answer")
    return payload


def flows(base, payee, payer, paid, unanswered):
    """One worker's BLE session payments: the payee opens a session, the payer locks and pays it;
    every step carries its own Idempotency-Key and is retried with it until answered."""
    while not stop.is_set():
        steps = [
            (payee["token"], "/v1/rails/ble-sessions/sessions", {"amount": str(FLOW_AMOUNT), "asset": "LOAD"}),
            (payer["token"], "/v1/rails/ble-sessions/sessions/{id}/lock", None),
            (payer["token"], "/v1/rails/ble-sessions/sessions/{id}/pay", None),
        ]
        session = None
        for token, path, body in steps:
            path = path.format(id=session["id"]) if session else path
            status, answer = answered(base, "POST", path, body, token, {"Idempotency-Key": str(uuid.uuid4())})
            if status not in (200, 201):
                unanswered.append((path, status, answer))
                return
            session = answer.get("session", answer)
        if session.get("status") != "paid":
            unanswered.append(("pay", session))
            return
        paid.append(session["id"])


def payments(base, key, sent, unanswered):
    """One worker's local chain payments, nonce after nonce; a raw transaction is sent again until
    the chain knows it (its hash makes the retry harmless)."""
    nonce = 0
    while not stop.is_set():
        raw = Account.sign_transaction(
            {"chainId": CHAIN, "nonce": nonce, "gas": 21000, "gasPrice": 0, "to": "0x000000000000000000000000000000000000dEaD", "value": 1},
            key.key,
        ).raw_transaction
        text = "0x" + raw.hex().removeprefix("0x")
        for _ in range(100):
            try:
                answer = rpc(base, "eth_sendRawTransaction", [text])
            except RuntimeError:
                answer = None
            if answer and ("result" in answer or "known" in json.dumps(answer.get("error", "")).lower()):
                break
            if answer and "nonce too low" in json.dumps(answer.get("error", "")).lower():
                break  # an earlier attempt of this one was taken: the nonce has moved on
            time.sleep(0.2)
        else:
            unanswered.append(("payment", nonce))
            return
        sent.append(text)
        nonce += 1


def leader(instances):
    """The live instance that last logged taking the local chain's sealer lease."""
    latest, who = "", None
    for name, (pid, log) in instances.items():
        try:
            os.kill(pid, 0)
        except OSError:
            continue
        with open(log, errors="replace") as file:
            for line in file:
                if "hub.lease=rail:localchain:sealer" in line and line.rstrip().endswith("] leading"):
                    stamp = line.split(" ", 1)[0]
                    if stamp > latest:
                        latest, who = stamp, name
    return who


def main(base, token, specs):
    instances = {}
    for spec in specs:
        name, pid, log = spec.split("=", 2)
        instances[name] = (int(pid), log)

    status, asset = answered(base, "POST", "/v1/assets", {"code": "LOAD", "scale": 0, "name": "Load"}, token)
    check(status in (200, 201), f"an asset through the load balancer ({status})")
    issuance = asset["issuance_account_id"]
    accounts = []
    for index in range(WORKERS):
        body = {"asset": "LOAD", "owner": {"kind": "system", "id": f"load-{index}"}, "code": "load"}
        status, account = answered(base, "POST", "/v1/ledger/accounts", body, token, {"Idempotency-Key": str(uuid.uuid4())})
        accounts.append(account["id"])
    people = []
    for index in range(2 * WORKERS):
        email = f"person{index}@example.test"
        status, user = answered(base, "POST", "/v1/users", {"email": email, "display_name": f"Person {index}", "password": PASSWORD}, token)
        status, wallet = answered(base, "PUT", f"/v1/users/{user['id']}/wallets/LOAD", None, token)
        status, login = answered(base, "POST", "/v1/auth/login", {"email": email, "password": PASSWORD})
        people.append({"token": login["access_token"], "wallet": wallet["id"]})
    payees, payers = people[:WORKERS], people[WORKERS:]
    for payer in payers:
        status, _ = answered(base, "POST", "/v1/ledger/transfers",
                             {"debit_account_id": issuance, "credit_account_id": payer["wallet"], "amount": "1000000", "asset": "LOAD"}, token,
                             {"Idempotency-Key": str(uuid.uuid4())})
    status, chain = answered(base, "POST", "/v1/rails/localchain/chains",
                             {"chain_id": CHAIN, "name": "Instances", "currency_name": "Load coin", "symbol": "LOAD", "decimals": 0,
                              "block_interval_ms": 250}, token)
    check(status in (200, 201), f"a local chain ({status} {chain if status not in (200, 201) else ''})")
    keys = [Account.create() for _ in range(WORKERS)]
    for key in keys:
        status, _ = answered(base, "POST", f"/v1/rails/localchain/chains/{CHAIN}/grants", {"to": key.address, "amount": "1000000"}, token)
    for key in keys:
        deadline = time.time() + 30
        while time.time() < deadline and int(rpc(base, "eth_getBalance", [key.address, "latest"]).get("result", "0x0"), 16) == 0:
            time.sleep(0.2)

    acknowledged = [[] for _ in range(WORKERS)]
    sent = [[] for _ in range(WORKERS)]
    unanswered = []
    threads = [threading.Thread(target=guarded(transfers, unanswered), args=(base, token, issuance, accounts[i], acknowledged[i], unanswered))
               for i in range(WORKERS)]
    threads += [threading.Thread(target=guarded(payments, unanswered), args=(base, keys[i], sent[i], unanswered)) for i in range(WORKERS)]
    paid = [[] for _ in range(WORKERS)]
    threads += [threading.Thread(target=guarded(flows, unanswered), args=(base, payees[i], payers[i], paid[i], unanswered))
                for i in range(WORKERS)]
    for thread in threads:
        thread.start()

    time.sleep(6)
    first_leader = leader(instances)
    check(first_leader is not None, f"one instance leads the sealer ({first_leader})")
    victim = next(name for name in instances if name != first_leader)
    os.kill(instances[victim][0], signal.SIGKILL)
    print(f"killed {victim} (SIGKILL) at {sum(map(len, acknowledged))} transfers, {sum(map(len, sent))} payments", flush=True)
    time.sleep(6)
    os.kill(instances[first_leader][0], signal.SIGKILL)
    print(f"killed the sealer's leader {first_leader} (SIGKILL) at {sum(map(len, acknowledged))} transfers, "
          f"{sum(map(len, sent))} payments", flush=True)
    killed_at = time.time()
    time.sleep(10)
    stop.set()
    for thread in threads:
        thread.join()
    survivor = next(name for name in instances if name not in (victim, first_leader))
    check(leader(instances) == survivor, f"the last instance, {survivor}, took the sealer over")

    check(not unanswered, f"every request was answered ({len(unanswered)} not: {unanswered[:3]})")
    print(f"{len(retries)} attempts were sent again after a dropped connection or 502/503/504", flush=True)
    total = 0
    for index, account in enumerate(accounts):
        status, shown = answered(base, "GET", f"/v1/ledger/accounts/{account}", token=token)
        credited = int(shown["balances"]["credits_posted"])
        total += credited
        check(credited == len(acknowledged[index]) and len(set(acknowledged[index])) == len(acknowledged[index]),
              f"worker {index}: {len(acknowledged[index])} transfers acknowledged, {credited} in the ledger")
    print(f"{total} transfers in all", flush=True)
    for index in range(WORKERS):
        payee = answered(base, "GET", f"/v1/ledger/accounts/{payees[index]['wallet']}", token=token)[1]["balances"]
        payer = answered(base, "GET", f"/v1/ledger/accounts/{payers[index]['wallet']}", token=token)[1]["balances"]
        expected = FLOW_AMOUNT * len(paid[index])
        check(int(payee["credits_posted"]) == expected and int(payer["debits_posted"]) == expected and payer["debits_pending"] == "0",
              f"BLE pair {index}: {len(paid[index])} sessions paid, payee credited {payee['credits_posted']}, payer debited "
              f"{payer['debits_posted']} ({payer['debits_pending']} held)")

    # Every payment sealed once, on one chain of blocks.
    deadline = time.time() + 30
    counts = {}
    while time.time() < deadline:
        counts = {key.address: int(rpc(base, "eth_getTransactionCount", [key.address, "latest"])["result"], 16) for key in keys}
        if all(counts[key.address] == len(sent[i]) for i, key in enumerate(keys)):
            break
        time.sleep(0.5)
    check(all(counts.get(key.address) == len(sent[i]) for i, key in enumerate(keys)),
          f"every payment sent is sealed ({sum(map(len, sent))} sent, nonces {sorted(counts.values())})")
    head = int(rpc(base, "eth_blockNumber", [])["result"], 16)
    parent, seen, sealed_after = None, {}, 0
    for number in range(head + 1):
        block = rpc(base, "eth_getBlockByNumber", [hex(number), False])["result"]
        if parent is not None and block["parentHash"] != parent:
            check(False, f"block {number} names its parent {parent}")
        parent = block["hash"]
        for transaction in block["transactions"]:
            seen[transaction] = seen.get(transaction, 0) + 1
        if int(block["timestamp"], 16) > killed_at:
            sealed_after += 1
    check(all(count == 1 for count in seen.values()), f"each of {len(seen)} transactions is in exactly one block")
    check(sealed_after > 0, f"{head + 1} blocks in one chain, {sealed_after} sealed after the leader died")
    for index, key in enumerate(keys):
        balance = int(rpc(base, "eth_getBalance", [key.address, "latest"])["result"], 16)
        check(balance == 1000000 - len(sent[index]), f"payer {index}: {len(sent[index])} payments, balance {balance}")

    print(f"{hubload.failures} failed")
    sys.exit(1 if hubload.failures else 0)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
