"""Load through live hubd instances, shared by instances_check.py and failover_check.py.

Clients retry the way a careful client of the hub does: a request whose answer is not definite
(a dropped connection, 502/503/504) is sent again, with the same Idempotency-Key, until it is.
Every result is printed as `ok …` or `FAIL …` and counted in `failures`.
"""

import http.client
import json
import threading
import time
import urllib.error
import urllib.request
import uuid

OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))
failures = 0
stop = threading.Event()
# (time, path, status or None for a transport failure) of every attempt sent again.
retries = []


def check(condition, what):
    global failures
    print(("ok   " if condition else "FAIL ") + what, flush=True)
    if not condition:
        failures += 1


def request(base, method, path, body=None, token=None, headers=None, timeout=10):
    """(status, JSON) or raises on a transport failure (a killed instance's dropped connection)."""
    data = None if body is None else json.dumps(body).encode()
    all_headers = dict(headers or {})
    if data is not None:
        all_headers["Content-Type"] = "application/json"
    if token:
        all_headers["Authorization"] = f"Bearer {token}"
    call = urllib.request.Request(base + path, data=data, method=method, headers=all_headers)
    try:
        with OPENER.open(call, timeout=timeout) as response:
            return response.status, parsed(response.read())
    except urllib.error.HTTPError as error:
        return error.code, parsed(error.read())


def parsed(body):
    """JSON, or the text itself (HAProxy's own 502/503 pages are HTML)."""
    try:
        return json.loads(body or b"null")
    except ValueError:
        return body.decode(errors="replace")


def answered(base, method, path, body=None, token=None, headers=None, seconds=60):
    """Sends until a definite answer (not a transport error, 502/503/504): the client's retry."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            status, payload = request(base, method, path, body, token, headers)
        except (OSError, urllib.error.URLError, http.client.HTTPException):
            retries.append((time.time(), path, None))
            time.sleep(0.2)
            continue
        if status in (502, 503, 504):
            retries.append((time.time(), path, status))
            time.sleep(0.2)
            continue
        return status, payload
    return None, None


def guarded(work, unanswered):
    """A worker that dies of an exception is reported, never silently stopped."""
    def run(*arguments):
        try:
            work(*arguments)
        except Exception as error:  # noqa: BLE001 - any failure of a worker fails the check
            unanswered.append((work.__name__, repr(error)))
    return run


def transfers(base, token, issuance, account, acknowledged, unanswered, asset="LOAD"):
    """One worker's transfers of 1 unit of `asset` into its own account, each with a fresh key."""
    while not stop.is_set():
        key = str(uuid.uuid4())
        body = {"debit_account_id": issuance, "credit_account_id": account, "amount": "1", "asset": asset}
        status, payload = answered(base, "POST", "/v1/ledger/transfers", body, token, {"Idempotency-Key": key})
        if status in (200, 201):
            acknowledged.append(payload["id"])
        else:
            unanswered.append((key, status, payload))
