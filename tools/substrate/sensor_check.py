"""The Substrate rail's sensors against a live hub, with PyPI's reference packages as the
independent implementation (the pins of tools/vectors/requirements-substrate.txt): the device's
side written from docs/substrate-sensors.md alone, with Python's own blake2b and
py-sr25519-bindings (schnorrkel, context "substrate").

  python sensor_check.py BASE_URL

Checks, each printed as `ok …` or `FAIL …` (exit status 1 on any failure):
- a user signs in (sr25519) and registers a sensor whose key the hub makes: substrate-interface
  derives the same address from the mnemonic, py-sr25519-bindings from the mini secret;
- the sensor uploads a JSON reading as multipart (urllib, no user token), signed as the docs lay
  out the message: 201, the hash is blake2b-256 of the content; the owner downloads it back
  byte for byte with its type; the hub's stored signature verifies in py-sr25519-bindings;
- a signature by another key is 401 `invalid_signature`, the same counter with other content
  409 `counter_replayed`; after revoking, an upload is 410 `sensor_revoked`;
- anchoring writes the hash as a DID attribute whose PeaqDid proof is signed by the sensor's key
  (py-sr25519-bindings checks the public key it names).
"""

import hashlib
import json
import os
import struct
import sys
import urllib.error
import urllib.request

import sr25519
from scalecodec.utils.ss58 import ss58_encode
from substrateinterface import Keypair

OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))
TAG = b"hubd-sensor-upload-v1\x00"
failures = 0


def request(base, method, path, body=None, token=None, headers=None):
    headers = dict(headers or {})
    data = body
    if isinstance(body, (dict, list)):
        headers["Content-Type"] = "application/json"
        data = json.dumps(body).encode()
    if token:
        headers["Authorization"] = "Bearer " + token
    req = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    try:
        with OPENER.open(req, timeout=30) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def call(base, method, path, body=None, token=None):
    status, _, raw = request(base, method, path, body, token)
    return status, json.loads(raw or b"null")


def check(condition, what):
    global failures
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures += 1


def sign_in(base):
    public, secret = sr25519.pair_from_seed(os.urandom(32))
    address = ss58_encode(public, ss58_format=42)
    status, body = call(base, "POST", "/v1/auth/wallet/challenge", {"scheme": "sr25519", "address": address})
    if status != 201:
        print(f"FAIL challenge: {status} {body}")
        sys.exit(1)
    signature = sr25519.sign((public, secret), body["message"].encode())
    status, body = call(base, "POST", "/v1/auth/wallet/login", {"nonce": body["nonce"], "signature": signature.hex()})
    check(status in (200, 201), f"signs in with sr25519 ({status})")
    return body["access_token"]


def message(public, counter, content, content_type):
    """The signed bytes, as docs/substrate-sensors.md lays them out."""
    return (TAG + public + struct.pack("<Q", counter) + hashlib.blake2b(content, digest_size=32).digest()
            + bytes([len(content_type)]) + content_type.encode())


def upload(base, address, keypair, counter, content, content_type, signer=None):
    signature = sr25519.sign(signer or keypair, message(keypair[0], counter, content, content_type))
    boundary = "py-" + os.urandom(8).hex()
    parts = []
    for name, value in (("file-type", content_type), ("counter", str(counter)), ("signature", signature.hex())):
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="reading.json"\r\n'
                 f"Content-Type: {content_type}\r\n\r\n".encode() + content + b"\r\n")
    body = b"".join(parts) + f"--{boundary}--\r\n".encode()
    status, _, raw = request(base, "POST", f"/v1/rails/substrate/sensors/{address}/uploads", body,
                             headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
    return status, json.loads(raw or b"null")


def main(base):
    token = sign_in(base)
    status, sensor = call(base, "POST", "/v1/rails/substrate/sensors",
                          {"name": "py sensor", "attributes": [{"name": "type", "value": "temperature"}]}, token)
    check(status == 201, f"registers a sensor with a key the hub makes ({status})")
    address = sensor["address"]
    check(Keypair.create_from_mnemonic(sensor["mnemonic"], ss58_format=42).ss58_address == address,
          "substrate-interface derives the sensor's address from its mnemonic")
    keypair = sr25519.pair_from_seed(bytes.fromhex(sensor["mini_secret"][2:]))
    check(ss58_encode(keypair[0], ss58_format=42) == address, "py-sr25519-bindings derives it from the mini secret")

    reading = json.dumps({"t": 21.5, "unit": "C", "samples": list(range(200))}).encode()
    status, kept = upload(base, address, keypair, 1, reading, "application/json")
    check(status == 201, f"a signed multipart upload is kept ({status} {kept if status != 201 else ''})")
    digest = "0x" + hashlib.blake2b(reading, digest_size=32).hexdigest()
    check(kept.get("hash") == digest, "its hash is blake2b-256 of the content")
    check(kept.get("stored_size", 1 << 30) < len(reading), f"kept compressed ({kept.get('stored_size')} of {len(reading)} bytes)")
    stored = bytes.fromhex(kept["signature"][2:])
    check(sr25519.verify(stored, message(keypair[0], 1, reading, "application/json"), keypair[0]),
          "the stored signature verifies in py-sr25519-bindings")
    status, headers, raw = request(base, "GET", f"/v1/rails/substrate/sensors/{address}/uploads/{digest}", token=token)
    check(status == 200 and raw == reading and headers.get("Content-Type") == "application/json",
          f"the owner downloads it back, byte for byte, with its type ({status})")

    other = sr25519.pair_from_seed(os.urandom(32))
    status, body = upload(base, address, keypair, 2, reading, "application/json", signer=other)
    check(status == 401 and body.get("code") == "invalid_signature", f"another key's signature is refused ({status} {body.get('code')})")
    status, body = upload(base, address, keypair, 1, b"{}", "application/json")
    check(status == 409 and body.get("code") == "counter_replayed", f"a used counter is refused ({status} {body.get('code')})")

    status, attribute = call(base, "POST", f"/v1/rails/substrate/sensors/{address}/uploads/{digest}/anchor", None, token)
    check(status == 201 and attribute.get("name") == digest[2:], f"the hash is anchored as a DID attribute ({status})")
    check(attribute.get("proof", {}).get("signer") == "0x" + keypair[0].hex(), "its proof is signed by the sensor's key")

    status, body = call(base, "DELETE", f"/v1/rails/substrate/sensors/{address}", None, token)
    check(status == 200 and body.get("status") == "revoked", f"the owner revokes the sensor ({status})")
    status, body = upload(base, address, keypair, 3, reading, "application/json")
    check(status == 410 and body.get("code") == "sensor_revoked", f"a revoked sensor's upload is refused ({status})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1].rstrip("/")))
