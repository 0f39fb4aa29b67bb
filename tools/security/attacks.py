#!/usr/bin/env python3
"""Replays the attacks of issue #12 against a live hubd and expects each to be refused.

  attacks.py BASE_URL ADMIN_TOKEN

Black-box: only the public HTTP API, as an attacker or a careless client would use it (users,
tokens and keys made through the API itself; transactions signed with eth-account). Every attack
prints one line, `refused` or `ACCEPTED`, with what the hub answered; the script exits 1 when any
attack got through. Run by scripts/security-attacks.sh (in .ci/run).
"""

import json
import os
import secrets
import sys
import time

from eth_account import Account

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "contract"))
from hubapi import expect, request  # noqa: E402  (the scripts' one HTTP helper: no proxy, JSON in and out)

RESULTS = []


def attack(item, what, status, payload, refused_statuses, code=None):
    """Records one attack: refused when the status is one of `refused_statuses` (and, if given,
    the problem code is `code`)."""
    got_code = payload.get("code") if isinstance(payload, dict) else None
    refused = status in refused_statuses and (code is None or got_code == code)
    RESULTS.append(refused)
    verdict = "refused " if refused else "ACCEPTED"
    print(f"#{item:<3} {verdict} {what}: {status} {got_code or ''}".rstrip())
    if not refused:
        print(f"      answer: {json.dumps(payload)[:400]}")


class Hub:
    def __init__(self, base, admin_token):
        self.base = base
        self.admin = admin_token

    def __call__(self, method, path, body=None, token=None):
        return request(method, self.base + path, body, token)

    def user(self, name, roles):
        email = f"{name}-{secrets.token_hex(4)}@example.test"
        password = secrets.token_urlsafe(18)
        status, user = self("POST", "/v1/users", {"email": email, "display_name": name.title(), "roles": roles, "password": password}, self.admin)
        expect(status, user, {201}, f"create {name}")
        status, tokens = self("POST", "/v1/auth/login", {"email": email, "password": password})
        tokens = expect(status, tokens, {200}, f"log in {name}")
        return user["id"], tokens["access_token"], tokens.get("refresh_token")


def main(base, admin_token):
    hub = Hub(base, admin_token)
    org_id, org, _ = hub.user("organiser", ["organiser"])
    alice_id, alice, alice_refresh = hub.user("alice", ["member"])
    bob_id, bob, _ = hub.user("bob", ["member"])

    # A kernel asset the organiser runs, with member wallets.
    code = "FEST" + secrets.token_hex(2).upper()
    asset = expect(*hub("POST", "/v1/assets", {"code": code, "scale": 2, "name": "Fest money"}, org), {201}, "create asset")
    issuance = asset["issuance_account_id"]
    wallets = {}
    for user_id, token in [(alice_id, alice), (bob_id, bob), (org_id, org)]:
        wallets[user_id] = expect(*hub("PUT", f"/v1/users/{user_id}/wallets/{code}", None, token), {201, 200}, "wallet")["id"]
    expect(*hub("POST", "/v1/ledger/transfers", {"debit_account_id": issuance, "credit_account_id": wallets[alice_id], "amount": "4500", "asset": code}, org), {201}, "mint")

    # 4. An organiser moves a member's money.
    status, payload = hub(
        "POST", "/v1/ledger/transfers",
        {"debit_account_id": wallets[alice_id], "credit_account_id": wallets[org_id], "amount": "100", "asset": code}, org,
    )
    attack(4, "organiser debits a member's wallet", status, payload, {403, 404, 422})
    status, payload = hub("POST", "/v1/ledger/accounts", {"asset": code, "flags": []}, org)
    attack(4, "organiser opens an account that may go negative", status, payload, {403, 422})

    # 1, 2. A local chain's money moved from outside the chain; its asset squatted.
    chain_id = 900_000 + secrets.randbelow(90_000)
    status, payload = hub("POST", "/v1/assets", {"code": f"EVT-{chain_id + 1}", "scale": 2, "name": "Squat"}, org)
    attack(2, "organiser creates the asset of a future chain", status, payload, {409, 422}, "asset_code_reserved")
    chain = {"chain_id": chain_id, "name": "Fest", "currency_name": "Fest Token", "symbol": "FEST", "decimals": 2, "block_interval_ms": 100}
    expect(*hub("POST", "/v1/rails/localchain/chains", chain, org), {201}, "create chain")
    holder = Account.create()
    expect(*hub("POST", f"/v1/rails/localchain/chains/{chain_id}/grants", {"to": holder.address, "amount": "1000"}, org), {202}, "grant")
    mirror = None
    for _ in range(200):
        status, account = hub("GET", f"/v1/rails/localchain/chains/{chain_id}/accounts/{holder.address}", None, org)
        # The mirror account exists in the ledger once the grant is sealed.
        if status == 200 and account.get("ledger_account_id"):
            if hub("GET", f"/v1/ledger/accounts/{account['ledger_account_id']}", None, admin_token)[0] == 200:
                mirror = account["ledger_account_id"]
                break
        time.sleep(0.05)
    if mirror is None:
        print("setup failed: the grant was not sealed within 10 s", file=sys.stderr)
        sys.exit(2)
    chain_asset = expect(*hub("GET", f"/v1/assets/EVT-{chain_id}", None, admin_token), {200}, "chain asset")
    status, payload = hub(
            "POST", "/v1/ledger/transfers",
        {"debit_account_id": mirror, "credit_account_id": chain_asset["issuance_account_id"], "amount": "400", "asset": f"EVT-{chain_id}"},
        admin_token,
    )
    attack(1, "admin debits a chain's mirror account", status, payload, {422}, "owned_by_rail")
    status, payload = hub(
        "POST", "/v1/ledger/transfers",
        {"debit_account_id": chain_asset["issuance_account_id"], "credit_account_id": mirror, "amount": "400", "asset": f"EVT-{chain_id}"},
        org,
    )
    attack(1, "organiser mints a chain's currency off-chain", status, payload, {422}, "owned_by_rail")
    status, payload = hub(
        "POST", "/v1/ledger/accounts", {"asset": f"EVT-{chain_id}"}, admin_token,
    )
    attack(1, "admin opens an account of a chain's asset", status, payload, {422}, "owned_by_rail")
    status, payload = hub(
        "POST", "/v1/ledger/transfers",
        {"debit_account_id": issuance, "credit_account_id": wallets[bob_id], "amount": "1", "asset": code, "ref": {"rail": "localchain", "type": "transaction", "id": "x"}},
        org,
    )
    attack(1, "a kernel client names a rail in ref.rail", status, payload, {422}, "owned_by_rail")

    # 5. A chain with a public network's id (its transactions would replay there).
    status, payload = hub("POST", "/v1/rails/localchain/chains", {**chain, "chain_id": 1, "symbol": "ETH", "decimals": 18}, org)
    attack(5, "a chain with Ethereum mainnet's id", status, payload, {422}, "public_chain_id")

    # 6. Gas below the intrinsic 21000.
    rpc = f"/v1/rails/localchain/chains/{chain_id}/rpc"
    short = Account.sign_transaction(
        {"nonce": 0, "gasPrice": 0, "gas": 20_000, "to": Account.create().address, "value": 1, "chainId": chain_id}, holder.key
    )
    status, payload = hub("POST", rpc, {"jsonrpc": "2.0", "id": 1, "method": "eth_sendRawTransaction", "params": ["0x" + short.raw_transaction.hex().removeprefix("0x")]})
    refused = isinstance(payload, dict) and "intrinsic gas too low" in str(payload.get("error", {}).get("message", ""))
    attack(6, "a transaction with gas 20000", 422 if refused else status, payload, {422})
    status, payload = hub("POST", rpc, {"jsonrpc": "2.0", "id": 2, "method": "eth_estimateGas", "params": [{"from": holder.address, "to": holder.address, "value": hex(10**9)}]})
    refused = isinstance(payload, dict) and "insufficient funds" in str(payload.get("error", {}).get("message", ""))
    attack(6, "eth_estimateGas for more than the balance", 422 if refused else status, payload, {422})

    # 3. A cash-out submitted by somebody else, for their own payout account.
    usd = "USD" + secrets.token_hex(2).upper()
    expect(*hub("POST", "/v1/assets", {"code": usd, "scale": 2, "name": "Dollars"}, org), {201}, "payout asset")
    collection = expect(*hub("PUT", f"/v1/users/{org_id}/wallets/{usd}", None, org), {201, 200}, "collection")["id"]
    carol_id, carol, _ = hub.user("carol", ["member"])
    carol_wallet = expect(*hub("PUT", f"/v1/users/{carol_id}/wallets/{usd}", None, carol), {201, 200}, "carol's wallet")["id"]
    expect(*hub("PUT", f"/v1/rails/localchain/chains/{chain_id}/topup-rate", {"asset": usd, "pay": "1", "receive": "1", "collection_account_id": collection}, org), {200}, "rate")
    validator = expect(*hub("GET", f"/v1/rails/localchain/chains/{chain_id}", None, org), {200}, "chain")["validator"]
    burn = Account.sign_transaction({"nonce": 0, "gasPrice": 0, "gas": 21_000, "to": validator, "value": 100, "chainId": chain_id}, holder.key)
    status, payload = hub(
        "POST", f"/v1/rails/localchain/chains/{chain_id}/cashouts",
        {"raw": "0x" + burn.raw_transaction.hex().removeprefix("0x"), "payout_account_id": carol_wallet, "payout_signature": "0x" + "00" * 65}, carol,
    )
    attack(3, "somebody else's burn cashed out to my account", status, payload, {422}, "payout_not_authorised")

    # 8. An admin's narrow key: works for what it names.
    key = expect(*hub("POST", "/v1/api-keys", {"name": "events only", "scopes": ["events:read"]}, admin_token), {201}, "narrow key")["key"]
    status, payload = hub("GET", "/v1/events?limit=1", None, key)
    attack(8, "an events:read key refused the event log", 403 if status == 403 else 200, payload, {200})
    status, payload = hub("GET", "/v1/webhooks", None, key)
    attack(8, "an events:read key reading webhooks", status, payload, {403})

    # 11. A grant retried with its id.
    grant = {"id": "attack-grant", "to": holder.address, "amount": "5"}
    first = hub("POST", f"/v1/rails/localchain/chains/{chain_id}/grants", grant, org)
    second = hub("POST", f"/v1/rails/localchain/chains/{chain_id}/grants", grant, org)
    same = first[0] == 202 and second[0] == 200 and first[1].get("hash") == second[1].get("hash")
    attack(11, "a grant retried with its id granted twice", 200 if same else 201, second[1], {200})

    # 17. Secret rotation keeps the old secret signing for the overlap.
    hook = expect(*hub("POST", "/v1/webhooks", {"url": "https://hooks.example.com/hub"}, admin_token), {201}, "webhook")
    rotated = expect(*hub("POST", f"/v1/webhooks/{hook['id']}/rotate-secret", None, admin_token), {200}, "rotate")
    attack(17, "a rotation without an overlap window", 200 if rotated.get("previous_secret_expires_at") else 0, rotated, {200})

    # 19. Unknown members are refused, not ignored.
    status, payload = hub("POST", "/v1/users", {"email": f"x{secrets.token_hex(3)}@example.test", "display_name": "X", "role": "organiser"}, admin_token)
    attack(19, "`role` instead of `roles` when creating a user", status, payload, {422})

    # 16. Numbers of the wrong kind name the field.
    status, payload = hub("POST", "/v1/assets", {"code": "NEG" + secrets.token_hex(2).upper(), "scale": -1, "name": "Negative"}, admin_token)
    attack(16, "scale -1", status, payload, {422})

    # 10. Names that spoof the reader.
    status, payload = hub("POST", "/v1/users", {"email": f"rlo{secrets.token_hex(3)}@example.test", "display_name": "\u202eevil\u202c"}, admin_token)
    attack(10, "display name with a right-to-left override", status, payload, {422})

    # 9. Webhooks to the cloud metadata service.
    status, payload = hub("POST", "/v1/webhooks", {"url": "http://169.254.169.254/latest/meta-data"}, admin_token)
    attack(9, "webhook to 169.254.169.254", status, payload, {422})

    # 7. Logout logs out.
    expect(*hub("POST", "/v1/auth/logout", {"refresh_token": alice_refresh}, alice), {200, 204}, "logout")
    status, payload = hub("GET", "/v1/users/me", None, alice)
    attack(7, "access token used after logout", status, payload, {401})

    refused = sum(RESULTS)
    print(f"{refused} passed, {len(RESULTS) - refused} failed")
    return 0 if all(RESULTS) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
