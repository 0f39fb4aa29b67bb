"""Substrate wallet sign-in against a live hub, with PyPI's reference packages as the independent
implementation (the pins of tools/vectors/requirements-substrate.txt): py-sr25519-bindings
(schnorrkel) signs and verifies sr25519, PyNaCl ed25519, substrate-interface's Keypair makes keys
from a BIP39 mnemonic exactly as Substrate wallets do, and scalecodec writes SS58.

  python signin_check.py BASE_URL

Checks, each printed as `ok …` or `FAIL …` (exit status 1 on any failure):
- a challenge for a Polkadot (prefix 0) address answers the address in the hub's prefix (42),
  the message names a Substrate account on chain `peaq`, and py-sr25519-bindings verifies the
  signature it made over the message;
- signed raw with sr25519, it signs in (201); answered again, `challenge_used`;
- a new challenge signed `<Bytes>`-wrapped (what polkadot.js extensions' signRaw signs) signs in
  the same user (200);
- ed25519 (PyNaCl) signs in a user of its own, raw and wrapped;
- a wrong signature is `invalid_signature` and leaves the challenge open; an address with a bad
  SS58 checksum is `invalid_address`;
- a custodial wallet made by the hub: its mnemonic gives, in substrate-interface, the address and
  public key the hub answered, and signs in with that key as the user who made it;
- an external wallet made here registers with a `<Bytes>`-wrapped signature over its challenge
  (not with one over other bytes); the list shows both wallets and no mnemonic;
- DataUnion's login (the Brainstem app's flow): substrate-interface's key from a 12-word mnemonic
  signs the nonce's digits and signs in; another key, a replay, a second register are refused;
  refresh rotates the tokens.
"""

import json
import os
import sys
import urllib.request

import base58
import nacl.signing
import sr25519
from scalecodec.utils.ss58 import ss58_decode, ss58_encode
from hubhttp import OPENER, call, exchange
from substrateinterface import Keypair, KeypairType

failures = 0


def user_id(base, token):
    """The id of the user `token` belongs to."""
    return call(base, "GET", "/v1/users/me", None, token)[1]["id"]


def check(condition, what):
    global failures
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures += 1


def wrap(message: bytes) -> bytes:
    return b"<Bytes>" + message + b"</Bytes>"


class Sr25519Key:
    scheme = "sr25519"

    def __init__(self, seed: bytes):
        self.public, self.secret = sr25519.pair_from_seed(seed)

    def sign(self, message: bytes) -> bytes:
        return sr25519.sign((self.public, self.secret), message)


class Ed25519Key:
    scheme = "ed25519"

    def __init__(self, seed: bytes):
        self.signing = nacl.signing.SigningKey(seed)
        self.public = bytes(self.signing.verify_key)

    def sign(self, message: bytes) -> bytes:
        return self.signing.sign(message).signature


def challenge(base, scheme, address):
    status, body = call(base, "POST", "/v1/auth/wallet/challenge", {"scheme": scheme, "address": address})
    if status != 201:
        print(f"FAIL challenge {scheme} {address}: {status} {body}")
        sys.exit(1)
    return body


def login(base, nonce, signature: bytes):
    return call(base, "POST", "/v1/auth/wallet/login", {"nonce": nonce, "signature": signature.hex()})


def header(message: str, name: str) -> str:
    for line in message.splitlines():
        if line.startswith(name + ": "):
            return line[len(name) + 2 :]
    return ""


def main(base):
    key = Sr25519Key(os.urandom(32))
    polkadot = ss58_encode(key.public, ss58_format=0)
    generic = ss58_encode(key.public, ss58_format=42)

    first = challenge(base, "sr25519", polkadot)
    message = first["message"]
    check(first["address"] == generic, f"a prefix-0 address is answered in prefix 42 ({generic})")
    check("sign in with your Substrate account:" in message.splitlines()[0], "the message names a Substrate account")
    check(message.splitlines()[1] == generic, "the message names the address in prefix 42")
    check(header(message, "Chain ID") == "peaq", "the message names chain peaq")
    check(header(message, "Nonce") == first["nonce"], "the message carries the nonce")
    signature = key.sign(message.encode())
    check(sr25519.verify(signature, message.encode(), key.public), "py-sr25519-bindings verifies its own signature (context substrate)")

    wrong = Sr25519Key(os.urandom(32)).sign(message.encode())
    status, body = login(base, first["nonce"], wrong)
    check(status == 401 and body.get("code") == "invalid_signature", f"another key's signature is invalid_signature ({status} {body.get('code')})")

    status, body = login(base, first["nonce"], signature)
    check(status == 201, f"sr25519, raw: signs in and creates the user ({status})")
    user = (body or {}).get("user", {}).get("id")
    status, body = login(base, first["nonce"], signature)
    check(status == 401 and body.get("code") == "challenge_used", f"the same answer again is challenge_used ({status} {body.get('code')})")

    second = challenge(base, "sr25519", generic)
    status, body = login(base, second["nonce"], key.sign(wrap(second["message"].encode())))
    check(status == 200 and (body or {}).get("user", {}).get("id") == user, f"sr25519, <Bytes>-wrapped: signs in the same user ({status})")

    ed = Ed25519Key(os.urandom(32))
    for wrapped in (False, True):
        issued = challenge(base, "ed25519", "0x" + ed.public.hex())
        signed = issued["message"].encode()
        status, _ = login(base, issued["nonce"], ed.sign(wrap(signed) if wrapped else signed))
        check(status == (200 if wrapped else 201), f"ed25519 (PyNaCl), {'wrapped' if wrapped else 'raw'}: signs in ({status})")

    # A bad checksum: the same payload with its last checksum byte changed.
    raw = bytearray(base58.b58decode(generic))
    raw[-1] ^= 0x01
    status, body = call(base, "POST", "/v1/auth/wallet/challenge", {"scheme": "sr25519", "address": base58.b58encode(bytes(raw)).decode()})
    check(status == 422 and body.get("code") == "invalid_address", f"a bad SS58 checksum is invalid_address ({status} {body.get('code')})")

    # A custodial wallet: the hub's mnemonic, read by substrate-interface, is the wallet it answered.
    third = challenge(base, "sr25519", generic)
    status, body = login(base, third["nonce"], key.sign(third["message"].encode()))
    token = body["access_token"]
    status, wallet, headers = exchange(base, "POST", "/v1/rails/substrate/wallets", {"kind": "custodial"}, token)
    check(status == 201, f"a custodial wallet is created ({status})")
    check(headers.get("Cache-Control") == "no-store", "answered with Cache-Control: no-store")
    pair = Keypair.create_from_mnemonic(wallet["mnemonic"], ss58_format=42, crypto_type=KeypairType.SR25519)
    check(pair.ss58_address == wallet["address"], f"substrate-interface derives the same address from the mnemonic ({pair.ss58_address})")
    check("0x" + pair.public_key.hex() == wallet["public_key"], "and the same public key")
    check(ss58_decode(wallet["address"]) == pair.public_key.hex(), "scalecodec decodes the hub's address to that key")
    issued = challenge(base, "sr25519", pair.ss58_address)
    status, signed_in = login(base, issued["nonce"], pair.sign(issued["message"].encode()))
    check(status == 200 and signed_in["user"]["id"] == user_id(base, token),
          f"the custodial wallet's key, in substrate-interface, signs in as the user who made it ({status})")

    # An external wallet made here, registered with a <Bytes>-wrapped signature over a challenge.
    own = Sr25519Key(os.urandom(32))
    issued = challenge(base, "sr25519", ss58_encode(own.public, ss58_format=0))
    body = {"kind": "external", "address": "0x" + own.public.hex(), "nonce": issued["nonce"]}
    status, registered = call(base, "POST", "/v1/rails/substrate/wallets", {**body, "signature": own.sign(wrap(b"x")).hex()}, token)
    check(status == 401 and registered.get("code") == "invalid_signature", f"registering with a signature over other bytes is refused ({status})")
    signature = own.sign(wrap(issued["message"].encode())).hex()
    status, registered = call(base, "POST", "/v1/rails/substrate/wallets", {**body, "signature": signature}, token)
    check(status == 201 and registered.get("address") == ss58_encode(own.public, ss58_format=42), f"an external wallet registers ({status})")

    status, listed = call(base, "GET", "/v1/rails/substrate/wallets", token=token)
    check(status == 200 and len(listed["data"]) == 2, "the list shows both wallets")
    check(all("mnemonic" not in row for row in listed["data"]), "the list never shows the mnemonic")

    dataunion(base)
    print(f"{failures} failure(s)")
    return 1 if failures else 0


def dataunion(base):
    """The Brainstem app's DataUnion login (`dataunion_compatible: true`): a wallet from a 12-word
    mnemonic, as the app makes it, signs the nonce's decimal digits; the signature goes as hex
    without 0x."""
    pair = Keypair.create_from_mnemonic(Keypair.generate_mnemonic(12), ss58_format=42, crypto_type=KeypairType.SR25519)
    register = {"public_address": pair.ss58_address, "source": "brainstem", "referral_id": "", "wallet": "peaq"}
    status, registered = call(base, "POST", "/v1/rails/substrate/dataunion/register", register)
    check(status == 200 and registered.get("status") == "success" and isinstance(registered.get("nonce"), int),
          f"DataUnion: register answers a numeric nonce ({status} {registered})")
    nonce = registered["nonce"]
    status, again = call(base, "GET", "/v1/rails/substrate/dataunion/get-nonce?public_address=" + pair.ss58_address)
    check(status == 200 and again.get("nonce") == nonce, "DataUnion: get-nonce answers the same nonce until it is used")
    wrong = Sr25519Key(os.urandom(32)).sign(str(nonce).encode()).hex()
    status, refused = call(base, "POST", "/v1/rails/substrate/dataunion/login", {"public_address": pair.ss58_address, "signature": wrong})
    check(status == 401 and refused.get("status") == "failed", f"DataUnion: another key's signature is refused ({status})")
    signature = pair.sign(str(nonce).encode())
    check(sr25519.verify(signature, str(nonce).encode(), pair.public_key), "py-sr25519-bindings verifies substrate-interface's signature of the digits")
    login_body = {"public_address": pair.ss58_address, "source": "brainstem", "signature": signature.hex()}
    status, tokens = call(base, "POST", "/v1/rails/substrate/dataunion/login", login_body)
    check(status == 200 and tokens.get("status") == "success", f"DataUnion: the signed digits sign in ({status} {tokens.get('status') or tokens})")
    if status != 200:
        return
    me = call(base, "GET", "/v1/users/me", None, tokens["access_token"])
    check(me[0] == 200, "DataUnion: the access token is the kernel's (GET /v1/users/me)")
    status, _ = call(base, "POST", "/v1/rails/substrate/dataunion/login", login_body)
    check(status == 401, f"DataUnion: the same signature again is refused, the nonce is used up ({status})")
    status, registered = call(base, "POST", "/v1/rails/substrate/dataunion/register", register)
    check(status == 400 and registered.get("message") == "already exists", f"DataUnion: registering again is `already exists` ({status})")
    request = urllib.request.Request(base + "/v1/rails/substrate/dataunion/refresh", data=b"", method="POST",
                                     headers={"Authorization": "Bearer " + tokens["refresh_token"]})
    with OPENER.open(request, timeout=30) as response:
        refreshed = json.loads(response.read())
    check(refreshed.get("access_token") and refreshed.get("refresh_token") != tokens["refresh_token"], "DataUnion: refresh answers a new pair")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1].rstrip("/")))
