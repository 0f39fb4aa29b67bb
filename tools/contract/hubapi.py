#!/usr/bin/env python3
"""Small HTTP helpers for scripts/contract-test.sh and scripts/bench-http.sh (standard library only).

  hubapi.py check-format FILE          the file is JSON in the repository's form (2-space indent, one
                                       trailing newline); prints the difference otherwise
  hubapi.py wait-ready BASE_URL SECS   polls GET /readyz until 200 or SECS pass
  hubapi.py login BASE_URL EMAIL       reads the password on stdin, prints an access token
  hubapi.py contract-seed BASE_URL TOKEN
                                       creates what the document's examples name: asset USD, accounts
                                       ACCOUNT_A (funded) and ACCOUNT_B, and the hold HOLD between them
  hubapi.py status-summary BASE_URL    the responses the hub counted (GET /metrics), per route and status
  hubapi.py bench-setup BASE_URL TOKEN ASSET ACCOUNTS AMOUNT
                                       creates ASSET, ACCOUNTS wallet accounts each funded with AMOUNT
                                       from the issuance account; prints the account ids, one a line

Exits 1 with a message on stderr when the server answers something unexpected.
"""

import difflib
import json
import re
import sys
import time
import urllib.error
import urllib.request
import uuid


def die(message):
    print(f"hubapi.py: {message}", file=sys.stderr)
    sys.exit(1)


# The hub is on loopback: never send these requests through a proxy from the environment.
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def request(method, url, body=None, token=None, headers=None):
    """(status, parsed JSON or text) of one request; never raises on an HTTP error status."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method)
    if body is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    for name, value in (headers or {}).items():
        req.add_header(name, value)
    try:
        with OPENER.open(req, timeout=30) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, raw = error.code, error.read()
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, raw.decode(errors="replace")


def expect(status, payload, wanted, what):
    if status not in wanted:
        die(f"{what}: HTTP {status}: {payload}")
    return payload


def check_format(path):
    with open(path, encoding="utf-8") as file:
        text = file.read()
    try:
        document = json.loads(text)
    except ValueError as error:
        die(f"{path} is not valid JSON: {error}")
    canonical = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    if text != canonical:
        diff = difflib.unified_diff(text.splitlines(True), canonical.splitlines(True), path, "expected", n=1)
        sys.stderr.writelines(list(diff)[:60])
        die(f"{path} is not formatted with a 2-space indent and one trailing newline (see the diff above)")


def wait_ready(base, seconds):
    deadline = time.monotonic() + float(seconds)
    while True:
        try:
            status, _ = request("GET", f"{base}/readyz")
            if status == 200:
                return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        if time.monotonic() > deadline:
            die(f"{base}/readyz did not answer 200 within {seconds} s")
        time.sleep(0.2)


def login(base, email):
    password = sys.stdin.readline().rstrip("\n")
    status, payload = request("POST", f"{base}/v1/auth/login", {"email": email, "password": password})
    payload = expect(status, payload, {200}, "POST /v1/auth/login")
    token = payload.get("access_token") if isinstance(payload, dict) else None
    if not token:
        die(f"POST /v1/auth/login: no access_token in {payload}")
    print(token)


# The ids the examples in Sources/HubServer/Resources/openapi.json use (keep them in step).
ACCOUNT_A = "0190f5c2-7b7e-7cc1-9a4e-2f1d3c4b5a69"
ACCOUNT_B = "0190f5c2-7b7e-7cc1-9a4e-2f1d3c4b5a6a"
HOLD = "0190f5c2-8000-7abc-8def-000000000001"


def contract_seed(base, token):
    status, payload = request("POST", f"{base}/v1/assets", {"code": "USD", "scale": 2, "name": "US dollar"}, token)
    issuance = expect(status, payload, {200, 201}, "POST /v1/assets (USD)")["issuance_account_id"]
    for account in (ACCOUNT_A, ACCOUNT_B):
        body = {"id": account, "asset": "USD", "owner": {"kind": "system", "id": "examples"}, "code": "wallet"}
        status, payload = request("POST", f"{base}/v1/ledger/accounts", body, token)
        expect(status, payload, {200, 201}, f"POST /v1/ledger/accounts ({account})")
    funding = {"id": "0190f5c2-8000-7abc-8def-0000000000f0", "debit_account_id": issuance, "credit_account_id": ACCOUNT_A,
               "amount": "100000000", "asset": "USD"}
    status, payload = request("POST", f"{base}/v1/ledger/transfers", funding, token)
    expect(status, payload, {200, 201}, "POST /v1/ledger/transfers (funding)")
    hold = {"id": HOLD, "action": "hold", "debit_account_id": ACCOUNT_A, "credit_account_id": ACCOUNT_B, "amount": "100",
            "asset": "USD", "timeout_seconds": 0}
    status, payload = request("POST", f"{base}/v1/ledger/transfers", hold, token)
    expect(status, payload, {200, 201}, "POST /v1/ledger/transfers (hold)")


def status_summary(base):
    status, text = request("GET", f"{base}/metrics")
    expect(status, text, {200}, "GET /metrics")
    counts = {}
    pattern = re.compile(r'^hub_http_requests_total\{route="([^"]*)",method="([^"]*)",status="([0-9]+)"\} ([0-9.e+]+)$')
    for line in text.splitlines():
        match = pattern.match(line)
        if match:
            route, method, code, value = match.groups()
            counts.setdefault((route, method), {})[code] = int(float(value))
    print(f"{'route':<42} {'method':<7} responses by status")
    for (route, method), by_status in sorted(counts.items()):
        statuses = ", ".join(f"{code}: {n}" for code, n in sorted(by_status.items()))
        print(f"{route:<42} {method:<7} {statuses}")


def bench_setup(base, token, asset, count, amount):
    status, payload = request("POST", f"{base}/v1/assets", {"code": asset, "scale": 2, "name": f"Benchmark {asset}"}, token)
    issuance = expect(status, payload, {200, 201}, f"POST /v1/assets ({asset})")["issuance_account_id"]
    ids = [str(uuid.uuid4()) for _ in range(int(count))]
    for index, account in enumerate(ids):
        status, payload = request(
            "POST",
            f"{base}/v1/ledger/accounts",
            {"id": account, "asset": asset, "owner": {"kind": "system", "id": f"bench-{index}"}, "code": "bench", "flags": ["debits_must_not_exceed_credits"]},
            token,
        )
        expect(status, payload, {200, 201}, "POST /v1/ledger/accounts")
    # Fund every account from the issuance account in one batch (chunks of 1000 for large N).
    for start in range(0, len(ids), 1000):
        transfers = [
            {"id": str(uuid.uuid4()), "debit_account_id": issuance, "credit_account_id": account, "amount": amount, "asset": asset}
            for account in ids[start : start + 1000]
        ]
        status, payload = request("POST", f"{base}/v1/ledger/transfers/batch", {"transfers": transfers}, token)
        results = expect(status, payload, {200}, "POST /v1/ledger/transfers/batch (funding)")["results"]
        failed = [r for r in results if r["status"] == "failed"]
        if failed:
            die(f"funding failed: {failed[:3]}")
    print("\n".join(ids))


def main(argv):
    commands = {
        "check-format": (check_format, 1),
        "wait-ready": (wait_ready, 2),
        "login": (login, 2),
        "contract-seed": (contract_seed, 2),
        "status-summary": (status_summary, 1),
        "bench-setup": (bench_setup, 5),
    }
    if len(argv) < 2 or argv[1] not in commands or len(argv) - 2 != commands[argv[1]][1]:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    function, _ = commands[argv[1]]
    function(*argv[2:])


if __name__ == "__main__":
    main(sys.argv)
