"""Sign-In with Ethereum against a live hub, with PyPI's `signinwithethereum` as the independent
implementation of EIP-4361 (pinned in requirements.txt beside this file).

  python siwe_check.py BASE_URL CHAIN_ID

Checks, each printed as `ok …` or `FAIL …` (exit status 1 on any failure):
- the hub's challenge message parses under the library's ABNF grammar, names the hub's domain, the
  address EIP-55 checksummed, the chain and the nonce, and the library verifies its signature;
- signed, it signs in; answered again, `challenge_used`;
- a message the library composes around a new challenge's nonce (its own statement, no expiry)
  signs in the same user;
- one for another domain or chain, or already expired, is refused with `message_mismatch` and
  leaves the challenge open.
"""

import json
import sys
import urllib.error
import urllib.request
from datetime import datetime, timedelta, timezone

from eth_account import Account
from eth_account.messages import encode_defunct
from siwe import SiweMessage

OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))
failures = 0


def post(base, path, body):
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST", headers={"Content-Type": "application/json"})
    try:
        with OPENER.open(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def check(condition, what):
    global failures
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures += 1


def sign(key, text):
    return "0x" + Account.sign_message(encode_defunct(text=text), private_key=key).signature.hex().removeprefix("0x")


def challenge(base, address):
    status, body = post(base, "/v1/auth/wallet/challenge", {"scheme": "siwe", "address": address.lower()})
    if status != 201:
        print(f"FAIL challenge: {status} {body}")
        sys.exit(1)
    return body


def main(base, chain_id):
    account = Account.create()
    key = account.key
    domain = base.split("://", 1)[1]

    # The hub's own message, read by the library's grammar.
    first = challenge(base, account.address)
    parsed = SiweMessage.from_message(first["message"], abnf=True)
    check(parsed.domain == domain, f"the hub's message names the domain {domain}")
    check(parsed.address == account.address, "it names the address EIP-55 checksummed")
    check(parsed.chain_id == chain_id, f"it names chain {chain_id}")
    check(parsed.nonce == first["nonce"], "it carries the challenge's nonce")
    signature = sign(key, first["message"])
    try:
        parsed.verify(signature, domain=domain, nonce=first["nonce"])
        check(True, "the library verifies a signature of the hub's message")
    except Exception as error:  # noqa: BLE001 - any verification error is a failure to report
        check(False, f"the library verifies a signature of the hub's message ({error!r})")
    status, body = post(base, "/v1/auth/wallet/login", {"nonce": first["nonce"], "signature": signature})
    check(status == 201, f"signed, it signs in a new member ({status})")
    user_id = (body or {}).get("user", {}).get("id")
    status, body = post(base, "/v1/auth/wallet/login", {"nonce": first["nonce"], "signature": signature})
    check(status == 401 and body.get("code") == "challenge_used", f"answered again: challenge_used ({status} {body.get('code')})")

    # The library's own message around a new nonce.
    second = challenge(base, account.address)
    hub = SiweMessage.from_message(second["message"])

    def composed(**changes):
        fields = dict(
            domain=hub.domain,
            address=account.address,
            uri=hub.uri,
            version="1",
            chain_id=hub.chain_id,
            nonce=second["nonce"],
            issued_at=datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z"),
            statement="Sign in to the marketplace with my wallet.",
        )
        fields.update(changes)
        return SiweMessage(**fields).prepare_message()

    past = (datetime.now(timezone.utc) - timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    for text, field in [
        (composed(domain="evil.example"), "message.domain"),
        (composed(chain_id=1), "message.chain_id"),
        (composed(expiration_time=past), "message.expiration_time"),
    ]:
        status, body = post(base, "/v1/auth/wallet/login", {"message": text, "signature": sign(key, text)})
        check(
            status == 422 and body.get("code") == "message_mismatch" and body.get("field") == field,
            f"a message with a wrong {field.split('.')[1]} is refused ({status} {body.get('code')} {body.get('field')})",
        )
    text = composed()
    status, body = post(base, "/v1/auth/wallet/login", {"message": text, "signature": sign(key, text)})
    check(status == 200, f"the library's message around the nonce signs in ({status} {(body or {}).get('code', '')})")
    check((body or {}).get("user", {}).get("id") == user_id, "as the same user")

    print(f"{failures} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
