"""JSON calls to a live hub for the Substrate rail's live checks (did_check.py, anchor_check.py,
signin_check.py): never through a proxy, the answer's status and parsed body back whatever the
status."""

import json
import urllib.error
import urllib.request

OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def call(base, method, path, body=None, token=None, accept=None):
    """The answer's status and parsed body."""
    status, answer, _ = exchange(base, method, path, body, token, accept)
    return status, answer


def exchange(base, method, path, body=None, token=None, accept=None):
    """The answer's status, parsed body and headers."""
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if accept:
        headers["Accept"] = accept
    if token:
        headers["Authorization"] = "Bearer " + token
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    try:
        with OPENER.open(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null"), dict(response.headers)
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null"), dict(error.headers)
