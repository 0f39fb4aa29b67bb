#!/usr/bin/env python3
"""Golden vectors for the kernel's Standard Webhooks signer (HubKernel StandardWebhookSigner).

Run with the webhooks venv (tools/vectors/.venv-webhooks, pinned by requirements-webhooks.txt);
normally through `bash tools/vectors/generate.sh`.

Writes standard_webhooks.json:
  * kind "sign": secret, webhook-id, webhook-timestamp, payload -> the `webhook-signature` value,
    made by the `standardwebhooks` package's Webhook.sign and re-derived here with hmac/hashlib;
    the library's own published test vector is asserted.
  * kind "verify": a `webhook-signature` header (space-separated list) and whether any v1 entry
    in it matches, decided here with the library's signature for the same inputs.
Everything is fixed (secrets, ids, timestamps): no randomness, so --check is exact.
"""
import base64
import hashlib
import hmac
from datetime import datetime, timezone

from standardwebhooks import Webhook

from vectorlib import hx, parse_args, versions, write_vectors

GENERATOR = "tools/vectors/gen_webhooks.py"
ORACLES = versions("standardwebhooks")

# The library's published test vector (libraries/python/tests/test_webhooks.py, test_sign_function).
PUBLISHED = {
    "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    "id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
    "timestamp": 1614265330,
    "payload": '{"test": 2432232314}',
    "signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
}


def secret_of(key: bytes, padded: bool = True) -> str:
    text = base64.b64encode(key).decode()
    return "whsec_" + (text if padded else text.rstrip("="))


def oracle_sign(secret: str, msg_id: str, timestamp: int, payload: str) -> str:
    return Webhook(secret).sign(msg_id=msg_id, timestamp=datetime.fromtimestamp(timestamp, tz=timezone.utc), data=payload)


def own_sign(secret: str, msg_id: str, timestamp: int, payload: str) -> str:
    """Independent derivation from the spec's text: base64(HMAC-SHA256(key, "id.ts.body"))."""
    encoded = secret[len("whsec_"):] if secret.startswith("whsec_") else secret
    key = base64.b64decode(encoded + "=" * (-len(encoded) % 4))
    mac = hmac.new(key, f"{msg_id}.{timestamp}.{payload}".encode("utf-8"), hashlib.sha256).digest()
    return "v1," + base64.b64encode(mac).decode()


def pattern(n: int, step: int = 1) -> bytes:
    return bytes((i * step) % 256 for i in range(n))


CLOUD_EVENT = (
    '{"specversion":"1.0","id":"0b6f3a52-8c1e-4d7a-9f2b-5e4c3d2a1b00","source":"/ledger",'
    '"type":"ledger.transfer.posted","subject":"9c1d7e2f-3a4b-4c5d-8e6f-7a8b9c0d1e2f",'
    '"time":"2027-01-15T08:30:00.123456789Z","datacontenttype":"application/json","sequence":42,'
    '"data":{"amount":"5000","asset":"EUR"}}'
)

SIGN_CASES = [
    # name, secret, id, timestamp, payload, note
    ("library_published_vector", PUBLISHED["secret"], PUBLISHED["id"], PUBLISHED["timestamp"], PUBLISHED["payload"],
     "the standardwebhooks library's own test vector"),
    ("published_secret_without_prefix", PUBLISHED["secret"][len("whsec_"):], PUBLISHED["id"], PUBLISHED["timestamp"],
     PUBLISHED["payload"], "the same secret without whsec_: libraries accept both"),
    ("secret_24_bytes_cloudevent", secret_of(pattern(24)), "0b6f3a52-8c1e-4d7a-9f2b-5e4c3d2a1b00", 1800000000, CLOUD_EVENT,
     "the smallest secret the scheme allows; a hub-shaped CloudEvents body"),
    ("secret_32_bytes_unpadded", secret_of(pattern(32, 7), padded=False), "0b6f3a52-8c1e-4d7a-9f2b-5e4c3d2a1b01", 1800000001,
     '{"type":"example.event","data":{"foo":"bar"}}', "base64 padding left off the secret"),
    ("secret_64_bytes_non_ascii", secret_of(pattern(64, 13)), "0b6f3a52-8c1e-4d7a-9f2b-5e4c3d2a1b02", 1800000002,
     '{"memo":"caf\u00e9 \u2013 \u6771\u4eac \U0001f680","name":"Zo\u00eb"}', "non-ASCII body: signed as its UTF-8 bytes"),
    ("empty_body", secret_of(pattern(32, 3)), "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W", 1674087231, "",
     "an empty body still signs id and timestamp"),
    ("pretty_json_with_newlines", secret_of(pattern(40, 5)), "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W", 1674087231,
     '{\n  "type": "contact.created",\n  "timestamp": "2022-11-03T20:26:10.344522Z",\n  "data": {\n    "id": "1f81eb52-5198-4599-803e-771906343485"\n  }\n}',
     "the spec's example payload, unminified: whitespace is signed as sent"),
    ("large_body_2k", secret_of(pattern(48, 11)), "0b6f3a52-8c1e-4d7a-9f2b-5e4c3d2a1b03", 4102444800,
     '{"blob":"' + "ab" * 1024 + '"}', "a 2 KiB body and a timestamp in 2100"),
    ("timestamp_zero", secret_of(pattern(24, 17)), "evt_0", 0, '{"n":0}', "the epoch itself"),
]


def sign_vectors():
    out = []
    for name, secret, msg_id, timestamp, payload, note in SIGN_CASES:
        signature = oracle_sign(secret, msg_id, timestamp, payload)
        if signature != own_sign(secret, msg_id, timestamp, payload):
            raise SystemExit(f"{name}: the library and the spec derivation disagree")
        out.append({
            "kind": "sign",
            "name": name,
            "note": note,
            "secret": secret,
            "id": msg_id,
            "timestamp": str(timestamp),
            "payload": payload,
            "payload_hex": hx(payload.encode("utf-8")),
            "signature": signature,
        })
    published = out[0]
    if published["signature"] != PUBLISHED["signature"] or out[1]["signature"] != PUBLISHED["signature"]:
        raise SystemExit("the published library vector no longer reproduces")
    return out


def verify_vectors(signed):
    base = next(v for v in signed if v["name"] == "secret_24_bytes_cloudevent")
    right = base["signature"]
    right_b64 = right.split(",", 1)[1]
    wrong_mac = base64.b64decode(right_b64)
    wrong = "v1," + base64.b64encode(bytes([wrong_mac[0] ^ 1]) + wrong_mac[1:]).decode()
    other_secret = oracle_sign(secret_of(pattern(24, 99)), base["id"], int(base["timestamp"]), base["payload"])
    tampered_body = oracle_sign(base["secret"], base["id"], int(base["timestamp"]), base["payload"] + " ")
    cases = [
        ("single_valid", right, True, "the one signature"),
        ("rotation_list_valid_last", f"{other_secret} {wrong} {right}", True, "old-secret and wrong entries before the right one"),
        ("other_versions_ignored", f"v1a,{right_b64} v2,{right_b64} {right}", True, "v1a/v2 entries are skipped, the v1 one matches"),
        ("only_other_versions", f"v1a,{right_b64} v2,{right_b64}", False, "the right MAC under another version label does not count"),
        ("one_bit_flipped", wrong, False, "a MAC with one bit changed"),
        ("other_secret", other_secret, False, "signed with a different secret"),
        ("signature_of_tampered_body", tampered_body, False, "a valid signature of a different body"),
        ("truncated_mac", "v1," + base64.b64encode(wrong_mac[:16]).decode(), False, "half a MAC"),
        ("not_base64", "v1,%%%not-base64%%%", False, "garbage after v1,"),
        ("empty_header", "", False, "no signatures at all"),
    ]
    out = []
    for name, header, valid, note in cases:
        entries = [e.split(",", 1) for e in header.split(" ") if e]
        decided = any(len(e) == 2 and e[0] == "v1" and e[1] == right_b64 for e in entries)
        if decided != valid:
            raise SystemExit(f"verify case {name}: expected {valid}, derived {decided}")
        out.append({
            "kind": "verify",
            "name": name,
            "note": note,
            "secret": base["secret"],
            "id": base["id"],
            "timestamp": base["timestamp"],
            "payload": base["payload"],
            "signature_header": header,
            "valid": valid,
        })
    return out


def main():
    args = parse_args(__doc__)
    signed = sign_vectors()
    write_vectors(args.out, "standard_webhooks.json", GENERATOR, ORACLES, signed + verify_vectors(signed))


if __name__ == "__main__":
    main()
