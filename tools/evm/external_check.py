"""The EVM rail on an external chain: a live hubd whose `evm` rail is configured with the EVM test
node (tools/evmnode, py-evm standing in for geth/Kaia) as chain `testnode`, driven over REST, with
the node driven over its own JSON-RPC (web3.py/eth-account pinned with the node's tools).

  python external_check.py HUB_BASE TOKEN NODE_URL

Checks, each printed as `ok …` or `FAIL …` (exit status 1 on any failure):
- the chain is ready and names a platform account; funded from the node's accounts, the first mint
  deploys the contracts there and confirms only after the configured 2 confirmations;
- a mint whose block a reorganisation drops is sent again and confirmed once: one token, the same
  transaction hash, one nonce;
- while the node is down a mint is refused with 503 chain_unavailable and nothing is recorded;
  when it is back, mints work again;
- a paid course there: created (deploying the courses contract), a seat bought (its price held in
  the ledger from the student), attendance, one evaluation, settlement after the end with the
  contract's split (the hold posted, the teacher's share credited), the teacher's earnings
  withdrawn (debited to the chain's outside account); a cancelled re-run refunded (the hold voided);
- an escrow sale there with the ledger following the marketplace: deposit and payment held,
  then each party's account equal to what the contract owes them;
- an auction there: each highest bid held from its bidder, the outbid bid released and withdrawn,
  the end giving the token to the winner and every party's account what the contract owes;
- a direct sale there: the price paid into the contract in the ledger, the token moved, the
  seller's proceeds withdrawn;
- a transaction the node holds but does not mine is replaced (same nonce, higher gas price) and
  its operation confirms once, on the replacement.
"""

import contextlib
import json
import sys
import threading
import time
import urllib.error
import urllib.request

from eth_account import Account

OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))
failures = 0


def call(url, method, params=None):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params or []}).encode()
    request = urllib.request.Request(url, data=body, method="POST", headers={"Content-Type": "application/json"})
    with OPENER.open(request, timeout=30) as response:
        answer = json.loads(response.read())
    if "error" in answer:
        raise RuntimeError(f"{method}: {answer['error']}")
    return answer["result"]


def hub(base, token, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    headers = {"Authorization": f"Bearer {token}"}
    if data is not None:
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(base + "/v1/rails/evm" + path, data=data, method=method, headers=headers)
    try:
        with OPENER.open(request, timeout=60) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def check(condition, what):
    global failures
    print(("ok   " if condition else "FAIL ") + what, flush=True)
    if not condition:
        failures += 1


def wait(predicate, seconds=30, step=0.1):
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    return None


@contextlib.contextmanager
def mining(node, every=0.2):
    """The test node mines only when a transaction arrives; a real chain keeps making blocks,
    which confirmations wait for: a thread plays that part while the block runs."""
    running = threading.Event()
    running.set()

    def miner():
        while running.is_set():
            call(node, "evm_mine")
            time.sleep(every)

    thread = threading.Thread(target=miner, daemon=True)
    thread.start()
    try:
        yield
    finally:
        running.clear()
        thread.join()


def fund(node, address, wei):
    """Sends `wei` from the key the node funded at genesis (`--fund`, see evm-external-test.sh)."""
    key = "0x" + "11" * 32
    source = Account.from_key(key)
    nonce = int(call(node, "eth_getTransactionCount", [source.address, "pending"]), 16)
    transaction = {"chainId": 31337, "nonce": nonce, "gas": 21000, "gasPrice": int(call(node, "eth_gasPrice"), 16) * 2, "to": address, "value": wei}
    raw = Account.sign_transaction(transaction, key).raw_transaction.hex()
    call(node, "eth_sendRawTransaction", ["0x" + raw.removeprefix("0x")])


def operation(base, token, operation_id):
    return hub(base, token, "GET", f"/operations/{operation_id}")[1]


def ledger_account(base, token, asset="EVM-31337"):
    """The caller's own ledger account of `asset` (the external chain's), or {}."""
    request = urllib.request.Request(base + "/v1/ledger/accounts?limit=100", headers={"Authorization": f"Bearer {token}"})
    with OPENER.open(request, timeout=30) as response:
        accounts = json.loads(response.read())["data"]
    return next((a for a in accounts if a["asset"] == asset), {}).get("balances", {})


def settled_operation(base, token, answer, seconds=60):
    """Waits for the operation of a 202 answer to leave `pending`; returns it (or the refusal)."""
    status, sent = answer
    if status != 202:
        return sent
    return wait(lambda: (lambda op: op["state"] != "pending" and op)(operation(base, token, sent["id"])), seconds) or {"state": "pending"}


def user_token(base, admin_token, email):
    """A new member, logged in: their access token."""
    password = "course-check-" + "x" * 12
    body = json.dumps({"email": email, "display_name": email.split("@")[0], "password": password}).encode()
    headers = {"Authorization": f"Bearer {admin_token}", "Content-Type": "application/json"}
    OPENER.open(urllib.request.Request(base + "/v1/users", data=body, method="POST", headers=headers), timeout=30).read()
    login = json.dumps({"email": email, "password": password}).encode()
    request = urllib.request.Request(base + "/v1/auth/login", data=login, method="POST", headers={"Content-Type": "application/json"})
    with OPENER.open(request, timeout=30) as response:
        return json.loads(response.read())["access_token"]


def course(base, teacher, node):
    """A lecture on the external chain: deployed on first use, bought, attended, evaluated, settled
    after the end with the fee and incentive, the teacher's earnings withdrawn; every step confirmed
    only after 2 blocks (a miner thread keeps making them)."""
    student = user_token(base, teacher, "student@example.test")
    status, account = hub(base, student, "POST", "/accounts", {"chain": "testnode"})
    check(status == 201, f"the student opens an account on the external chain ({status})")
    fund(node, account["address"], 10**18)
    with mining(node):
        price = 10**16
        head = call(node, "eth_getBlockByNumber", ["latest", False])
        end = int(head["timestamp"], 16) + 3600
        created = settled_operation(base, teacher, hub(base, teacher, "POST", "/lectures", {
            "chain": "testnode", "title": "External pottery", "kind": "workshop", "price": str(price), "capacity": 1,
            "sessions": 1, "min_attendance": 1, "end_time": end}))
        check(created.get("state") == "confirmed", f"a lecture is created after deploying the courses contract ({created.get('state') or created})")
        lecture = (created.get("result") or {}).get("lecture_id")
        path = f"/lectures/testnode/{lecture}"
        bought = settled_operation(base, student, hub(base, student, "POST", path + "/purchase", {}))
        check(bought.get("state") == "confirmed", f"the student buys the only seat ({bought.get('state') or bought})")
        held = ledger_account(base, student)
        check(held.get("debits_pending") == str(price) and held.get("credits_posted") == str(price) and held.get("available") == "0",
              f"the seat's price is held in the ledger from the student's account ({held})")
        status, again = hub(base, student, "POST", path + "/purchase", {})
        check(status == 422 and again.get("code") == "call_reverted", f"a second seat is refused before sending ({status})")
        attended = settled_operation(base, teacher, hub(base, teacher, "POST", path + "/attendance", {"session": 0, "student": account["address"]}))
        check(attended.get("state") == "confirmed", "the teacher records the attendance")
        evaluated = settled_operation(base, student, hub(base, student, "POST", path + "/evaluate", {"scores": [90, 90, 90, 90, 90]}))
        check(evaluated.get("state") == "confirmed", "the student evaluates once")
        status, early = hub(base, teacher, "POST", path + "/settle", {})
        check(status == 422 and early.get("code") == "call_reverted", f"settling before the end is refused ({status})")
        call(node, "evm_increaseTime", [3700])
        call(node, "evm_mine")
        settled = settled_operation(base, teacher, hub(base, teacher, "POST", path + "/settle", {}))
        check(settled.get("state") == "confirmed", f"after the end the run is settled ({settled.get('state') or settled})")
        status, shown = hub(base, teacher, "GET", path)
        run = (shown.get("runs") or [{}])[0]
        fee, incentive = price // 10, price // 10 * 10 // 100
        check(
            run.get("state") == "settled" and run.get("average") == 90 and run.get("fee") == str(fee) and run.get("incentive") == str(incentive)
            and run.get("teacher_amount") == str(price - fee + incentive),
            f"the split is the contract's: fee 10 %, incentive 10 % of it for an average of 90 ({run})",
        )
        paid = ledger_account(base, student)
        check(paid.get("debits_posted") == str(price) and paid.get("debits_pending") == "0", f"settled, the student's hold is posted ({paid})")
        owed = ledger_account(base, teacher)
        check(owed.get("credits_posted") == str(price - fee + incentive), f"and the teacher's share credited ({owed})")
        status, earnings = hub(base, teacher, "GET", "/lectures/earnings?chain=testnode")
        check(earnings.get("pending") == str(price - fee + incentive), f"the teacher's earnings wait in the contract ({earnings})")
        withdrawn = settled_operation(base, teacher, hub(base, teacher, "POST", "/lectures/earnings", {"chain": "testnode"}))
        check(withdrawn.get("state") == "confirmed", "and are withdrawn")
        status, earnings = hub(base, teacher, "GET", "/lectures/earnings?chain=testnode")
        check(earnings.get("pending") == "0", "leaving nothing owed")
        owed = ledger_account(base, teacher)
        check(owed.get("available") == "0" and owed.get("debits_posted") == str(price - fee + incentive), f"in the ledger too ({owed})")

        # A re-run, cancelled: the refund releases the hold back to the student's wallet.
        head = call(node, "eth_getBlockByNumber", ["latest", False])
        rerun = settled_operation(base, teacher, hub(base, teacher, "POST", path + "/rerun", {"price": str(price), "capacity": 1, "end_time": int(head["timestamp"], 16) + 3600}))
        bought = settled_operation(base, student, hub(base, student, "POST", path + "/purchase", {}))
        cancelled = settled_operation(base, teacher, hub(base, teacher, "POST", path + "/cancel", {}))
        refunded = settled_operation(base, student, hub(base, student, "POST", path + "/refund", {"run": 1}))
        check([o.get("state") for o in (rerun, bought, cancelled, refunded)] == ["confirmed"] * 4, "a re-run is bought, cancelled and refunded")
        back = ledger_account(base, student)
        check(back.get("debits_pending") == "0" and back.get("debits_posted") == str(2 * price) and back.get("credits_posted") == str(2 * price),
              f"the refund voids the hold and returns the price to the student's wallet ({back})")


def market_account(base, token):
    """The caller's ledger account at the marketplace contract (code evm-wallet, metadata contract)."""
    request = urllib.request.Request(base + "/v1/ledger/accounts?limit=100", headers={"Authorization": f"Bearer {token}"})
    with OPENER.open(request, timeout=30) as response:
        accounts = json.loads(response.read())["data"]
    market = [a for a in accounts if a["asset"] == "EVM-31337" and a["metadata"].get("contract") and a["metadata"]["contract"] == MARKET[0]]
    return market[0] if market else {}


MARKET = [None]


def escrow(base, seller, node):
    """An escrow sale on the external chain with the ledger following it: the seller's deposit and
    the buyer's payment held while locked; once completed every party's account at the
    marketplace shows exactly what the contract owes them; a withdrawal empties it."""
    buyer = user_token(base, seller, "buyer@example.test")
    status, account = hub(base, buyer, "POST", "/accounts", {"chain": "testnode"})
    fund(node, account["address"], 10**18)
    with mining(node):
        price = 10**16
        listed = settled_operation(base, seller, hub(base, seller, "POST", "/listings", {"chain": "testnode", "kind": "escrow", "token_id": 1, "price": str(price)}))
        check(listed.get("state") == "confirmed", f"an escrow is listed on the external chain ({listed.get('state') or listed})")
        MARKET[0] = listed.get("subject")
        listing = (listed.get("result") or {}).get("listing_id")
        path = f"/listings/testnode/{listing}"
        deposit = market_account(base, seller).get("balances", {})
        check(deposit.get("debits_pending") == str(price), f"the seller's deposit is held in the ledger ({deposit})")
        bought = settled_operation(base, buyer, hub(base, buyer, "POST", path + "/purchase", {}))
        check(bought.get("state") == "confirmed", "the buyer pays price and deposit")
        paid = market_account(base, buyer).get("balances", {})
        check(paid.get("debits_pending") == str(2 * price), f"held from the buyer ({paid})")
        moved = settled_operation(base, seller, hub(base, seller, "POST", path + "/transfer", {}))
        received = settled_operation(base, buyer, hub(base, buyer, "POST", path + "/confirm", {}))
        check(moved.get("state") == "confirmed" and received.get("state") == "confirmed", "the seller transfers the token, the buyer confirms receipt")
        for who, token in (("seller", seller), ("buyer", buyer)):
            owed = hub(base, token, "GET", "/withdrawals?chain=testnode")[1].get("amount")
            shown = market_account(base, token).get("balances", {})
            check(shown.get("debits_pending") == "0" and shown.get("available") == owed,
                  f"the {who}'s account at the marketplace shows what the contract owes them ({owed}: {shown})")
        # The rail's ledger accounts move by the rail alone: an admin's transfer through the
        # kernel API between two of them is refused and changes nothing.
        seller_account, buyer_account = market_account(base, seller), market_account(base, buyer)
        body = json.dumps({"debit_account_id": seller_account["id"], "credit_account_id": buyer_account["id"], "amount": "1", "asset": "EVM-31337"}).encode()
        request = urllib.request.Request(base + "/v1/ledger/transfers", data=body, method="POST",
                                         headers={"Authorization": f"Bearer {seller}", "Content-Type": "application/json"})
        try:
            with OPENER.open(request, timeout=30) as response:
                refused = (response.status, json.loads(response.read()))
        except urllib.error.HTTPError as error:
            refused = (error.code, json.loads(error.read() or b"null"))
        check(refused[0] >= 400 and refused[1].get("code") == "owned_by_rail" and market_account(base, seller) == seller_account,
              f"an admin cannot move the rail's ledger money through the kernel API ({refused[0]} {refused[1].get('code')})")
        withdrawn = settled_operation(base, buyer, hub(base, buyer, "POST", "/withdrawals", {"chain": "testnode"}))
        check(withdrawn.get("state") == "confirmed" and market_account(base, buyer).get("balances", {}).get("available") == "0", "the buyer withdraws the deposit; nothing left owed")


def owed_matches(base, token, who):
    """The caller's account at the marketplace shows exactly what the contract owes them."""
    owed = hub(base, token, "GET", "/withdrawals?chain=testnode")[1].get("amount")
    shown = market_account(base, token).get("balances", {})
    check(shown.get("debits_pending") == "0" and shown.get("available") == owed,
          f"the {who}'s account at the marketplace shows what the contract owes them ({owed}: {shown})")


def bidder(base, admin, node, name):
    token = user_token(base, admin, f"{name}@example.test")
    status, account = hub(base, token, "POST", "/accounts", {"chain": "testnode"})
    check(status == 201, f"{name} opens an account on the external chain ({status})")
    fund(node, account["address"], 10**18)
    return token, account["address"]


def auction(base, seller, node):
    """An English auction on the external chain: each highest bid held in the ledger from its
    bidder, an outbid bid released to be withdrawn, the end (after the chain's time passes it)
    gives the token to the winner and the seller their proceeds, all as the contract says."""
    first, _ = bidder(base, seller, node, "bidder1")
    second, second_address = bidder(base, seller, node, "bidder2")
    with mining(node):
        price = 10**16
        head = call(node, "eth_getBlockByNumber", ["latest", False])
        end = int(head["timestamp"], 16) + 900
        listed = settled_operation(base, seller, hub(base, seller, "POST", "/listings", {
            "chain": "testnode", "kind": "auction", "token_id": 2, "price": str(price), "end_time": end}))
        check(listed.get("state") == "confirmed", f"an auction is listed on the external chain ({listed.get('state') or listed})")
        path = f"/listings/testnode/{(listed.get('result') or {}).get('listing_id')}"
        status, low = hub(base, first, "POST", path + "/bid", {"amount": "1"})
        check(status == 422 and low.get("code") == "call_reverted", f"a bid below the reserve is refused before sending ({status})")
        bid = settled_operation(base, first, hub(base, first, "POST", path + "/bid", {"amount": str(price)}))
        check(bid.get("state") == "confirmed", "the first bidder bids the reserve")
        held = market_account(base, first).get("balances", {})
        check(held.get("debits_pending") == str(price), f"the bid is held in the ledger from the first bidder ({held})")
        outbid = settled_operation(base, second, hub(base, second, "POST", path + "/bid", {"amount": str(2 * price)}))
        check(outbid.get("state") == "confirmed", "the second bidder bids twice as much")
        held = market_account(base, second).get("balances", {})
        check(held.get("debits_pending") == str(2 * price), f"the new highest bid is held from the second bidder ({held})")
        owed_matches(base, first, "outbid bidder")
        status, early = hub(base, first, "POST", path + "/end", {})
        check(status == 422 and early.get("code") == "call_reverted", f"ending before the end is refused ({status})")
        call(node, "evm_increaseTime", [1000])
        call(node, "evm_mine")
        ended = settled_operation(base, first, hub(base, first, "POST", path + "/end", {}))
        check(ended.get("state") == "confirmed", f"after the end anyone ends it ({ended.get('state') or ended})")
        status, item = hub(base, seller, "GET", "/items/testnode/2")
        check(item.get("item", {}).get("owner") == second_address, "the token goes to the highest bidder")
        won = market_account(base, second).get("balances", {})
        check(won.get("debits_pending") == "0" and won.get("debits_posted") == str(2 * price), f"the winning bid is paid from the hold ({won})")
        owed_matches(base, seller, "seller")
        owed_matches(base, first, "outbid bidder")
        withdrawn = settled_operation(base, first, hub(base, first, "POST", "/withdrawals", {"chain": "testnode"}))
        check(withdrawn.get("state") == "confirmed" and market_account(base, first).get("balances", {}).get("available") == "0",
              "the outbid bidder withdraws the bid; nothing left owed")
    return first


def direct_sale(base, seller, buyer, node):
    """A direct sale on the external chain: the price paid into the contract, the token moved,
    the seller's proceeds owed as the contract says."""
    with mining(node):
        price = 10**16
        listed = settled_operation(base, seller, hub(base, seller, "POST", "/listings", {
            "chain": "testnode", "kind": "sale", "token_id": 3, "price": str(price)}))
        check(listed.get("state") == "confirmed", f"a direct sale is listed on the external chain ({listed.get('state') or listed})")
        path = f"/listings/testnode/{(listed.get('result') or {}).get('listing_id')}"
        before = int(market_account(base, buyer).get("balances", {}).get("debits_posted", "0"))
        bought = settled_operation(base, buyer, hub(base, buyer, "POST", path + "/buy", {}))
        check(bought.get("state") == "confirmed", f"a buyer buys it ({bought.get('state') or bought})")
        status, item = hub(base, seller, "GET", "/items/testnode/3")
        status, account = hub(base, buyer, "GET", "/accounts?chain=testnode")
        address = next((a["address"] for a in account.get("data", []) if a["chain"] == "testnode"), None)
        check(item.get("item", {}).get("owner") == address, "the token goes to the buyer")
        paid = market_account(base, buyer).get("balances", {})
        check(int(paid.get("debits_posted", "0")) - before == price, f"the price is paid into the contract in the ledger ({paid})")
        status, again = hub(base, buyer, "POST", path + "/buy", {})
        check(status == 422 and again.get("code") == "call_reverted", f"buying it again is refused before sending ({status})")
        owed_matches(base, seller, "seller")
        withdrawn = settled_operation(base, seller, hub(base, seller, "POST", "/withdrawals", {"chain": "testnode"}))
        check(withdrawn.get("state") == "confirmed" and market_account(base, seller).get("balances", {}).get("available") == "0",
              "the seller withdraws the proceeds; nothing left owed")


def stuck(base, token, node):
    """A transaction the node holds but does not mine (the hub's chain setting
    replace_after_seconds is 3 here) is replaced: same nonce, a gas price at least 10 % higher,
    and the operation confirms once, on the replacement."""
    call(node, "evm_setAutomine", [False])
    try:
        status, sent = hub(base, token, "POST", "/items", {"chain": "testnode", "title": "Slow vase", "category": "ceramics"})
        check(status == 202, f"a mint is sent while the node mines nothing ({status})")
        original = sent["tx_hash"]
        first = call(node, "eth_getTransactionByHash", [original])
        replaced = wait(lambda: (lambda op: op["tx_hash"] != original and op)(operation(base, token, sent["id"])), 20)
        check(bool(replaced), "after 3 s in the pool the hub replaces it")
        if not replaced:
            return
        # The hub records the replacement before it sends it (a failed send is retried from the
        # record), so the operation may name it a moment before the node holds it.
        again = wait(lambda: call(node, "eth_getTransactionByHash", [replaced["tx_hash"]]), 10)
        check(
            bool(first) and bool(again) and again["nonce"] == first["nonce"] and int(again["gasPrice"], 16) * 10 >= int(first["gasPrice"], 16) * 11,
            f"with the same nonce and a gas price at least 10 % higher ({first and first['gasPrice']} -> {again and again['gasPrice']})",
        )
        call(node, "evm_mine", [{"blocks": 3}])
        settled = wait(lambda: (lambda op: op["state"] != "pending" and op)(operation(base, token, sent["id"])))
        check(
            bool(settled) and settled["state"] == "confirmed" and settled["tx_hash"] != original
            and call(node, "eth_getTransactionReceipt", [settled["tx_hash"]]) is not None
            and call(node, "eth_getTransactionReceipt", [original]) is None,
            f"the replacement is mined and the operation confirms on it, once ({settled and settled['state']})",
        )
    finally:
        call(node, "evm_setAutomine", [True])


def main(base, token, node):
    chains = wait(lambda: [c for c in hub(base, token, "GET", "/chains")[1]["data"] if c["id"] == "testnode" and c["status"] == "ready"])
    check(bool(chains), "the external chain is ready (its node reports chain id 31337)")
    if not chains:
        sys.exit(1)
    platform = chains[0]["platform_address"]
    status, account = hub(base, token, "POST", "/accounts", {"chain": "testnode"})
    check(status == 201, f"a custodial account opens on the external chain ({status})")
    fund(node, platform, 10**19)
    fund(node, account["address"], 10**18)

    # The contracts' deployment waits for 2 confirmations: blocks keep coming meanwhile.
    with mining(node, every=0.3):
        status, first = hub(base, token, "POST", "/items", {"chain": "testnode", "title": "External vase", "category": "ceramics"})
    check(status == 202, f"the first mint is sent after deploying the contracts ({status} {first.get('state') or first})")
    included = wait(lambda: call(node, "eth_getTransactionReceipt", [first["tx_hash"]]))
    check(bool(included), "the node includes the mint")
    head = int(call(node, "eth_blockNumber"), 16)
    if head - int(included["blockNumber"], 16) < 2:
        time.sleep(1.0)
        check(operation(base, token, first["id"])["state"] == "pending", "with fewer than 2 confirmations it stays pending")
    call(node, "evm_mine", [{"blocks": 2}])
    settled = wait(lambda: operation(base, token, first["id"])["state"] != "pending" and operation(base, token, first["id"]))
    check(bool(settled) and settled["state"] == "confirmed" and settled["result"] == {"token_id": "1"}, f"after 2 blocks it is confirmed ({settled and settled['state']})")

    # A reorganisation drops the next mint's block: the hub sends the same transaction again.
    call(node, "evm_setAutomine", [False])
    snapshot = call(node, "evm_snapshot")
    status, second = hub(base, token, "POST", "/items", {"chain": "testnode", "title": "Reorged vase", "category": "ceramics"})
    check(status == 202, f"a second mint is sent ({status})")
    call(node, "evm_mine")
    check(bool(call(node, "eth_getTransactionReceipt", [second["tx_hash"]])), "it is mined in a block")
    call(node, "evm_revert", [snapshot])
    check(call(node, "eth_getTransactionReceipt", [second["tx_hash"]]) is None, "a reorganisation drops that block")
    resent = wait(lambda: call(node, "eth_getTransactionByHash", [second["tx_hash"]]))
    check(bool(resent), "the hub sends the same signed transaction again")
    call(node, "evm_mine", [{"blocks": 3}])
    call(node, "evm_setAutomine", [True])
    settled = wait(lambda: operation(base, token, second["id"])["state"] != "pending" and operation(base, token, second["id"]))
    check(bool(settled) and settled["state"] == "confirmed" and settled["result"] == {"token_id": "2"}, f"and confirms it once, as token 2 ({settled and settled['state']})")
    status, item = hub(base, token, "GET", "/items/testnode/2")
    check(status == 200 and [p["tx_hash"] for p in item["provenance"]] == [second["tx_hash"]], "its provenance is that one transaction")
    status, listed = hub(base, token, "GET", "/items?category=ceramics")
    check(len([i for i in listed["data"] if i["chain"] == "testnode"]) == 2, "two items exist on the external chain, not three")

    # The node goes down: refused, nothing recorded; back up: mints again.
    call(node, "testnode_setDown", [4])
    status, refused = hub(base, token, "POST", "/items", {"chain": "testnode", "title": "Offline vase", "category": "ceramics"})
    check(status == 503 and refused.get("code") == "chain_unavailable", f"with the node down a mint is refused ({status} {refused.get('code')})")
    time.sleep(4.5)
    status, third = hub(base, token, "POST", "/items", {"chain": "testnode", "title": "Back again", "category": "ceramics"})
    check(status == 202 and third["nonce"] == second["nonce"] + 1, f"when it is back a mint takes the next nonce ({status})")
    call(node, "evm_mine", [{"blocks": 2}])
    settled = wait(lambda: operation(base, token, third["id"])["state"] != "pending" and operation(base, token, third["id"]))
    check(bool(settled) and settled["result"] == {"token_id": "3"}, "and confirms as token 3")

    course(base, token, node)
    escrow(base, token, node)
    outbid = auction(base, token, node)
    direct_sale(base, token, outbid, node)
    stuck(base, token, node)

    print(f"{failures} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3])
