"""The Substrate rail's DID proofs against a live hub, read by PyPI's reference packages (the pins
of tools/vectors/requirements-substrate.txt): scalecodec decodes each stored extrinsic with the
same runtime metadata the hub built it from, and py-sr25519-bindings (schnorrkel) verifies its
signature over the signing payload scalecodec encodes again from the decoded call.

  python did_check.py BASE_URL METADATA_FILE

Checks, each printed as `ok …` or `FAIL …` (exit status 1 on any failure):
- a user signs in (sr25519) and makes a custodial wallet; substrate-interface derives the same
  public key from the mnemonic;
- add (UTF-8 value, forever), update (hex value, valid_for 100) and remove an attribute of the
  DID `did:peaq:<address>`: each answers a proof whose extrinsic decodes in scalecodec as a signed
  `PeaqDid` call with the arguments asked for, signed by the wallet's key with nonces 0, 1, 2;
- its hash is blake2b-256 of the extrinsic; its sr25519 signature verifies over
  `call ‖ era ‖ nonce ‖ tip ‖ spec_version ‖ transaction_version ‖ genesis ‖ era block` (the
  offline registry's genesis: 32 zero bytes), and not once a byte of the call is changed;
- a name over 64 bytes is `attribute_name_exceed_max64`;
- an external wallet (substrate-interface's key, registered with a challenge) changes its DID
  itself: for add, update and remove, `…/changes/prepare` answers the message scalecodec encodes
  for that call and nonce, substrate-interface's `Keypair.sign` signs it, `…/changes` takes it, and
  the proof passes the checks above; a used nonce is `nonce_stale`;
- the DID document (POST /dids, then a service added): peaq's own SDK (peaq-sdk 1.0.1, its
  generated protobuf `document.Document`, loaded from its file as tools/vectors/gen_peaq_did.py
  does) reads the attribute value as its `read` does (the value's UTF-8 text is hex of the
  protobuf) and finds the id, controller, `#keys-1` Sr25519VerificationKey2020 key (multibase:
  base58 of `ef 01` + the key), authentication and services the hub was asked for; the
  add_attribute proof carries exactly that value; the W3C views (`Accept:
  application/did+ld+json`, `?format=did-resolution`) show the same document.
"""

import hashlib
import importlib.util
import json
import os
import sys
import sysconfig
import urllib.parse

import base58
import sr25519
from scalecodec.base import RuntimeConfigurationObject, ScaleBytes
from scalecodec.type_registry import load_type_registry_preset
from scalecodec.utils.ss58 import ss58_encode
from hubhttp import call
from substrateinterface import Keypair

GENESIS = bytes(32)
failures = 0


def check(condition, what):
    global failures
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures += 1


class Runtime:
    """The metadata file decoded by scalecodec, and what the signing payload needs from it."""

    def __init__(self, path):
        self.config = RuntimeConfigurationObject()
        self.config.update_type_registry(load_type_registry_preset("core"))
        with open(path, "rb") as file:
            self.metadata = self.config.create_scale_object("MetadataVersioned", data=ScaleBytes(file.read()))
        self.metadata.decode()
        self.config.add_portable_registry(self.metadata)
        version = next(c for c in self.metadata.get_metadata_pallet("System").constants if c.name == "Version")
        decoded = self.config.create_scale_object(version.type, data=ScaleBytes(version.value["value"])).decode()
        self.spec_version = decoded["spec_version"]
        self.transaction_version = decoded["transaction_version"]

    def decode(self, extrinsic: bytes):
        value = self.config.create_scale_object("Extrinsic", data=ScaleBytes(extrinsic), metadata=self.metadata)
        return value.decode()

    def encode(self, type_string, value) -> bytes:
        return bytes(self.config.create_scale_object(type_string, metadata=self.metadata).encode(value).data)

    def payload(self, decoded, call_bytes: bytes) -> bytes:
        extra = bytes.fromhex("00") + self.encode("Compact<u32>", decoded["nonce"]) + self.encode("Compact<u128>", decoded.get("tip", 0))
        additional = self.encode("u32", self.spec_version) + self.encode("u32", self.transaction_version) + GENESIS + GENESIS
        payload = call_bytes + extra + additional
        return hashlib.blake2b(payload, digest_size=32).digest() if len(payload) > 256 else payload


def sign_in(base, key_public, key_secret):
    address = ss58_encode(key_public, ss58_format=42)
    status, body = call(base, "POST", "/v1/auth/wallet/challenge", {"scheme": "sr25519", "address": address})
    if status != 201:
        print(f"FAIL challenge: {status} {body}")
        sys.exit(1)
    signature = sr25519.sign((key_public, key_secret), body["message"].encode())
    status, body = call(base, "POST", "/v1/auth/wallet/login", {"nonce": body["nonce"], "signature": signature.hex()})
    check(status in (200, 201), f"signs in with sr25519 ({status})")
    return body["access_token"]


def check_proof(runtime, proof, function, public_key, nonce, arguments):
    """`arguments` as scalecodec shows them: byte vectors that are UTF-8 text as the text, others as 0x hex."""
    extrinsic = bytes.fromhex(proof["extrinsic"][2:])
    check(proof["hash"] == "0x" + hashlib.blake2b(extrinsic, digest_size=32).hexdigest(), f"{function}: the hash is blake2b-256 of the extrinsic")
    decoded = runtime.decode(extrinsic)
    call_value = decoded["call"]
    check(call_value["call_module"] == "PeaqDid" and call_value["call_function"] == function, f"{function}: scalecodec reads PeaqDid.{function}")
    given = {argument["name"]: argument["value"] for argument in call_value["call_args"]}
    check(given == arguments, f"{function}: its arguments are the ones asked for ({given})")
    address = decoded["address"]
    signer = address if isinstance(address, str) else address.get("Id")
    check(signer == "0x" + public_key.hex(), f"{function}: signed by the wallet's key")
    check(decoded["nonce"] == nonce, f"{function}: nonce {nonce} (era {decoded.get('era')})")
    signature = bytes.fromhex(decoded["signature"]["Sr25519"][2:])
    call_bytes = runtime.encode("Call", {"call_module": "PeaqDid", "call_function": function, "call_args": given})
    check(extrinsic.endswith(call_bytes), f"{function}: scalecodec encodes the call to the extrinsic's bytes")
    message = runtime.payload(decoded, call_bytes)
    check(sr25519.verify(signature, message, public_key), f"{function}: py-sr25519-bindings verifies the signature")
    tampered = bytearray(call_bytes)
    tampered[-1] ^= 1
    check(not sr25519.verify(signature, runtime.payload(decoded, bytes(tampered)), public_key), f"{function}: not over a changed call")


def main(base, metadata_file):
    runtime = Runtime(metadata_file)
    public, secret = sr25519.pair_from_seed(os.urandom(32))
    token = sign_in(base, public, secret)

    status, wallet = call(base, "POST", "/v1/rails/substrate/wallets", {"kind": "custodial"}, token)
    check(status == 201, f"a custodial wallet ({status})")
    keypair = Keypair.create_from_mnemonic(wallet["mnemonic"], ss58_format=42)
    check(keypair.ss58_address == wallet["address"], "substrate-interface derives the wallet's address from its mnemonic")
    key = bytes(keypair.public_key)
    did = "did:peaq:" + wallet["address"]
    did_account = "0x" + key.hex()
    prefix = "/v1/rails/substrate/dids/" + did

    status, added = call(base, "POST", prefix + "/attributes", {"name": "type", "value": "sensor"}, token)
    check(status == 201, f"adds an attribute ({status} {added.get('code')})")
    check_proof(runtime, added["proof"], "add_attribute", key, 0, {"did_account": did_account, "name": "type", "value": "sensor", "valid_for": None})

    status, updated = call(base, "PUT", prefix + "/attributes/type", {"value_hex": "0x00ff", "valid_for": 100}, token)
    check(status == 200 and updated["created"] == added["created"], f"updates it, keeping created ({status})")
    check_proof(runtime, updated["proof"], "update_attribute", key, 1, {"did_account": did_account, "name": "type", "value": "0x00ff", "valid_for": 100})

    status, removed = call(base, "DELETE", prefix + "/attributes/" + urllib.parse.quote("type"), None, token)
    check(status == 200, f"removes it ({status})")
    check_proof(runtime, removed["proof"], "remove_attribute", key, 2, {"did_account": did_account, "name": "type"})

    status, body = call(base, "POST", prefix + "/attributes", {"name": "n" * 65, "value": "x"}, token)
    check(status == 422 and body.get("code") == "attribute_name_exceed_max64", f"a 65-byte name is attribute_name_exceed_max64 ({status} {body.get('code')})")

    check_document(base, runtime, token, wallet["address"], key)
    check_holder_signed(base, runtime, token)

    print("all DID checks passed" if failures == 0 else f"{failures} DID check(s) failed")
    return 1 if failures else 0


def check_holder_signed(base, runtime, token):
    """An external wallet's DID changed by its holder: substrate-interface's key, registered with a
    challenge, signs what `…/changes/prepare` answers; scalecodec rebuilds that message on its own."""
    keypair = Keypair.create_from_mnemonic(Keypair.generate_mnemonic(), ss58_format=42)
    key = bytes(keypair.public_key)
    status, issued = call(base, "POST", "/v1/auth/wallet/challenge", {"scheme": "sr25519", "address": keypair.ss58_address})
    check(status == 201, f"holder: a challenge for the external wallet ({status})")
    body = {"kind": "external", "address": keypair.ss58_address, "nonce": issued["nonce"],
            "signature": keypair.sign(issued["message"].encode()).hex()}
    status, registered = call(base, "POST", "/v1/rails/substrate/wallets", body, token)
    check(status == 201, f"holder: substrate-interface's key registers as an external wallet ({status} {registered.get('code')})")
    prefix = "/v1/rails/substrate/dids/did:peaq:" + keypair.ss58_address
    status, refused = call(base, "POST", prefix + "/attributes", {"name": "type", "value": "sensor"}, token)
    check(status == 422 and refused.get("code") == "custodial_key_required", f"holder: the custodial route refuses it ({status})")
    did_account = "0x" + key.hex()
    for nonce, change, arguments in [
        (0, {"call": "add_attribute", "name": "type", "value": "sensor"},
         {"did_account": did_account, "name": "type", "value": "sensor", "valid_for": None}),
        (1, {"call": "update_attribute", "name": "type", "value_hex": "0x00ff", "valid_for": 100},
         {"did_account": did_account, "name": "type", "value": "0x00ff", "valid_for": 100}),
        (2, {"call": "remove_attribute", "name": "type"}, {"did_account": did_account, "name": "type"}),
    ]:
        function = change["call"]
        status, prepared = call(base, "POST", prefix + "/changes/prepare", change, token)
        check(status == 200 and prepared["nonce"] == nonce, f"holder: {function} prepared at nonce {nonce} ({status})")
        call_bytes = runtime.encode("Call", {"call_module": "PeaqDid", "call_function": function, "call_args": arguments})
        expected = runtime.payload({"nonce": nonce}, call_bytes)
        check(prepared["message"] == "0x" + expected.hex(), f"holder: {function}: the message is the payload scalecodec encodes")
        check(prepared["call_data"] == "0x" + call_bytes.hex(), f"holder: {function}: the call data is scalecodec's")
        signature = keypair.sign(bytes.fromhex(prepared["message"][2:]))
        status, done = call(base, "POST", prefix + "/changes", {**change, "nonce": nonce, "signature": signature.hex()}, token)
        check(status in (200, 201), f"holder: {function} submitted with substrate-interface's signature ({status} {done.get('code')})")
        check_proof(runtime, done["proof"], function, key, nonce, arguments)
    status, stale = call(base, "POST", prefix + "/changes", {"call": "add_attribute", "name": "x", "value": "y", "nonce": 0,
                                                             "signature": keypair.sign(b"x").hex()}, token)
    check(status == 409 and stale.get("code") == "nonce_stale", f"holder: a used nonce is nonce_stale ({status})")


def peaq_proto():
    """peaq-sdk's generated protobuf module, from its file (the package's __init__ imports web3)."""
    path = os.path.join(sysconfig.get_paths()["purelib"], "peaq_sdk", "utils", "peaq_proto.py")
    spec = importlib.util.spec_from_file_location("peaq_proto", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check_document(base, runtime, token, address, key):
    proto = peaq_proto()
    did = "did:peaq:" + address
    keys = did + "#keys-1"
    multibase = "z" + base58.b58encode(bytes([0xEF, 0x01]) + key).decode()
    api = {"id": "#api", "type": "LinkedDomains", "service_endpoint": "https://example.com/api"}
    signature = {"type": "Sr25519VerificationKey2020", "issuer": did, "hash": "0x" + "ab" * 32}
    status, created = call(base, "POST", "/v1/rails/substrate/dids", {"address": address, "services": [api], "signature": signature}, token)
    check(status == 201, f"document: POST /dids writes it ({status} {created.get('code') if isinstance(created, dict) else ''})")
    status, added = call(base, "POST", f"/v1/rails/substrate/dids/{did}/services", {"id": "#owner", "type": "owner", "data": "machine-42"}, token)
    check(status == 201, f"document: a service added ({status})")

    # As peaq's SDK reads it (Did._read_from_substrate): the value's bytes as UTF-8, that as hex, parsed.
    status, attribute = call(base, "GET", f"/v1/rails/substrate/dids/{did}/attributes/" + urllib.parse.quote(did, safe=""), None, token)
    check(status == 200, f"document: the attribute named after the DID ({status})")
    value_text = bytes.fromhex(attribute["value_hex"][2:]).decode("utf-8")
    document = proto.Document()
    document.ParseFromString(bytes.fromhex(value_text))
    check(document.id == did and document.controller == did, f"document: peaq-sdk reads id and controller {document.id}")
    methods = [(m.id, m.type, m.controller, m.public_key_multibase) for m in document.verification_methods]
    check(methods == [(keys, "Sr25519VerificationKey2020", did, multibase)], f"document: peaq-sdk reads the sr25519 key {methods}")
    check(list(document.authentications) == [keys], "document: authentication is the key")
    services = [(s.id, s.type, s.service_endpoint if s.HasField("service_endpoint") else None, s.data if s.HasField("data") else None) for s in document.services]
    check(
        services == [("#api", "LinkedDomains", "https://example.com/api", None), ("#owner", "owner", None, "machine-42")],
        f"document: peaq-sdk reads both services {services}",
    )
    check(
        document.HasField("signature") and (document.signature.type, document.signature.issuer, document.signature.hash) == tuple(signature.values()),
        "document: peaq-sdk reads the issuer's signature",
    )

    # The first version is in its add_attribute proof, byte for byte.
    proof = created["didDocumentMetadata"]["proof"]
    first = proto.Document()
    first.id, first.controller = did, did
    method = first.verification_methods.add()
    method.id, method.type, method.controller, method.public_key_multibase = keys, "Sr25519VerificationKey2020", did, multibase
    service = first.services.add()
    service.id, service.type, service.service_endpoint = api["id"], api["type"], api["service_endpoint"]
    first.signature.type, first.signature.issuer, first.signature.hash = signature["type"], signature["issuer"], signature["hash"]
    first.authentications.append(keys)
    first_value = first.SerializeToString().hex()
    check_proof(runtime, proof, "add_attribute", key, proof["nonce"], {"did_account": "0x" + key.hex(), "name": did, "value": first_value, "valid_for": None})

    # W3C DID Core views.
    status, ld = call(base, "GET", f"/v1/rails/substrate/dids/{did}", None, token, accept="application/did+ld+json")
    check(status == 200 and ld["id"] == did and ld["@context"][0] == "https://www.w3.org/ns/did/v1", f"document: the JSON-LD view ({status})")
    check(ld["verificationMethod"] == [{"id": keys, "type": "Sr25519VerificationKey2020", "controller": did, "publicKeyMultibase": multibase}], "document: JSON-LD verificationMethod")
    check(ld["authentication"] == [keys] and [s["id"] for s in ld["service"]] == ["#api", "#owner"], "document: JSON-LD authentication and service")
    status, resolution = call(base, "GET", f"/v1/rails/substrate/dids/{did}?format=did-resolution", None, token)
    metadata = resolution.get("didDocumentMetadata", {}) if isinstance(resolution, dict) else {}
    check(status == 200 and resolution["didDocument"] == ld and metadata.get("anchoredBlock", 0) is None, f"document: the resolution result ({status})")
    check(metadata.get("versionId") == added["didDocumentMetadata"]["proof"]["hash"], "document: versionId is the last change's proof")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1].rstrip("/"), sys.argv[2]))
