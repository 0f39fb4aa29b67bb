"""Golden vectors for the hub's Sign-In with Ethereum (EIP-4361) parsing and signature check:
messages made by PyPI's `signinwithethereum` (pinned in requirements.txt beside this file) and
signed with eth-account's personal_sign, written to Tests/Fixtures/siwe/vectors.json.

Usage: python tools/evm/siwe/make_vectors.py > Tests/Fixtures/siwe/vectors.json
The keys are fixed test keys; the output is deterministic (eth-account signs with RFC 6979).
"""

import json
import sys

from eth_account import Account
from eth_account.messages import encode_defunct
from siwe import SiweMessage

KEYS = ["0x" + "a1" * 32, "0x" + "b0" * 32, "0x" + "c3" * 32]


def vector(key, **fields):
    account = Account.from_key(key)
    message = SiweMessage(address=account.address, **fields)
    text = message.prepare_message()
    signature = Account.sign_message(encode_defunct(text=text), private_key=key).signature.hex()
    parsed = SiweMessage.from_message(text)
    return {
        "message": text,
        "address": account.address,
        "signature": "0x" + signature.removeprefix("0x"),
        "fields": {
            "scheme": parsed.scheme,
            "domain": parsed.domain,
            "statement": parsed.statement,
            "uri": str(parsed.uri),
            "version": str(parsed.version),
            "chain_id": parsed.chain_id,
            "nonce": parsed.nonce,
            "issued_at": parsed.issued_at,
            "expiration_time": parsed.expiration_time,
            "not_before": parsed.not_before,
            "request_id": parsed.request_id,
            "resources": [str(r) for r in parsed.resources] if parsed.resources is not None else None,
        },
    }


def main():
    vectors = [
        vector(
            KEYS[0],
            domain="localhost",
            uri="http://localhost",
            version="1",
            chain_id=1370000,
            nonce="9f86d081884c7d659a2feaa0c55ad015",
            issued_at="2026-11-27T10:00:00.000Z",
            expiration_time="2026-11-27T10:05:00.000Z",
            statement="Sign in to the marketplace.",
        ),
        vector(
            KEYS[1],
            domain="pay.example.org",
            uri="https://pay.example.org/login",
            version="1",
            chain_id=1,
            nonce="abcdef0123456789",
            issued_at="2026-11-27T10:00:00.123Z",
        ),
        vector(
            KEYS[2],
            scheme="https",
            domain="pay.example.org:8443",
            uri="https://pay.example.org:8443",
            version="1",
            chain_id=11155111,
            nonce="Zz9AAbbCCdd",
            issued_at="2026-11-27T10:00:00Z",
            expiration_time="2026-11-28T10:00:00Z",
            not_before="2026-11-27T09:00:00Z",
            request_id="request-42",
            resources=["ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/", "https://example.com/my-web2-claim.json"],
            statement="A statement with: colons, and punctuation!",
        ),
    ]
    json.dump(vectors, sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
