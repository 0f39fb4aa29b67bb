"""Golden vectors for the Substrate rail's peaq DID document (`PeaqDIDDocument`): the protobuf
`document.Document` as peaq's own Python SDK writes and reads it.

The oracle is peaq-sdk 1.0.1's generated module `peaq_sdk/utils/peaq_proto.py` on protobuf 5.28.2
(the venv of tools/substrate/requirements-peaq.txt plus `peaq-sdk==1.0.1 --no-deps`, which
scripts/substrate-signin-test.sh builds; that script also checks the committed file against a
fresh run). The module is loaded from its file: importing the `peaq_sdk` package would import
web3, which the venv does not hold (it conflicts with substrate-interface's pins).
The multibase keys are base58 (the PyPI package) of the multicodec sr25519-pub varint `ef 01` and
the key, as the SDK's `generate_sr25519_public_key_multibase` computes them.

Writes Tests/Fixtures/vectors/peaq_did_document.json:
- `encode`: documents (fields as JSON, snake_case as the .proto) and the SDK's
  `SerializeToString()` bytes, with the attribute value the SDK stores (the bytes' hex as text);
- `decode`: hand-made bytes (fields out of order, unknown fields of every wire type, a known field
  with another wire type, a message field twice) and what the SDK's `ParseFromString` reads;
- `reject`: bytes the SDK's parser refuses (DecodeError).

  python gen_peaq_did.py [--out DIR]
"""

import importlib.util
import os
import sysconfig

import base58
from scalecodec.utils.ss58 import ss58_encode
from vectorlib import hx, parse_args, versions, write_vectors


def load_peaq_proto():
    path = os.path.join(sysconfig.get_paths()["purelib"], "peaq_sdk", "utils", "peaq_proto.py")
    spec = importlib.util.spec_from_file_location("peaq_proto", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


proto = load_peaq_proto()
from google.protobuf.message import DecodeError  # noqa: E402  (after the descriptor pool is filled)

SS58_ALICE_KEY = bytes.fromhex("d43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d")
ALICE = ss58_encode(SS58_ALICE_KEY, ss58_format=42)  # 5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY


def multibase(key: bytes) -> str:
    return "z" + base58.b58encode(bytes([0xEF, 0x01]) + key).decode()


def as_json(doc) -> dict:
    """A parsed Document as plain JSON, every field shown (presence of the optional ones kept)."""
    services = []
    for s in doc.services:
        service = {"id": s.id, "type": s.type}
        if s.HasField("service_endpoint"):
            service["service_endpoint"] = s.service_endpoint
        if s.HasField("data"):
            service["data"] = s.data
        services.append(service)
    return {
        "id": doc.id,
        "controller": doc.controller,
        "verification_methods": [
            {"id": m.id, "type": m.type, "controller": m.controller, "public_key_multibase": m.public_key_multibase}
            for m in doc.verification_methods
        ],
        "signature": (
            {"type": doc.signature.type, "issuer": doc.signature.issuer, "hash": doc.signature.hash} if doc.HasField("signature") else None
        ),
        "services": services,
        "authentications": list(doc.authentications),
    }


def build(fields: dict):
    doc = proto.Document()
    doc.id = fields.get("id", "")
    doc.controller = fields.get("controller", "")
    for m in fields.get("verification_methods", []):
        method = proto.VerificationMethod()
        method.id, method.type, method.controller, method.public_key_multibase = m["id"], m["type"], m["controller"], m["public_key_multibase"]
        doc.verification_methods.append(method)
    if fields.get("signature") is not None:
        s = fields["signature"]
        doc.signature.type, doc.signature.issuer, doc.signature.hash = s["type"], s["issuer"], s["hash"]
    for s in fields.get("services", []):
        service = proto.Services()
        service.id, service.type = s["id"], s["type"]
        if "service_endpoint" in s:
            service.service_endpoint = s["service_endpoint"]
        if "data" in s:
            service.data = s["data"]
        doc.services.append(service)
    doc.authentications.extend(fields.get("authentications", []))
    return doc


def hub_document(did, key, services=(), signature=None):
    """The document as the SDK's `create` builds it for a connected sr25519 pair (and the hub)."""
    method = {"id": did + "#keys-1", "type": "Sr25519VerificationKey2020", "controller": did, "public_key_multibase": multibase(key)}
    return {
        "id": did,
        "controller": did,
        "verification_methods": [method],
        "signature": signature,
        "services": list(services),
        "authentications": [method["id"]],
    }


def encode_vectors():
    alice = "did:peaq:" + ALICE
    cases = [
        ("empty document", {}),
        ("id and controller only", {"id": alice, "controller": alice}),
        ("the hub's document: one sr25519 key, authentication", hub_document(alice, SS58_ALICE_KEY)),
        (
            "services: endpoint, data, both, and an empty endpoint (proto3 optional: present)",
            hub_document(
                alice,
                SS58_ALICE_KEY,
                services=[
                    {"id": "#api", "type": "LinkedDomains", "service_endpoint": "https://example.com/api"},
                    {"id": "#owner", "type": "owner", "data": "machine-42"},
                    {"id": alice + "#both", "type": "DIDCommMessaging", "service_endpoint": "https://m.example", "data": "{\"k\":1}"},
                    {"id": "#empty", "type": "x", "service_endpoint": ""},
                ],
            ),
        ),
        (
            "signature and non-ASCII text",
            hub_document(
                alice,
                SS58_ALICE_KEY,
                services=[{"id": "#capteur-nº1", "type": "Capteur", "data": "température 21,5 °C ✓"}],
                signature={"type": "Sr25519VerificationKey2020", "issuer": alice, "hash": "0x" + "ab" * 32},
            ),
        ),
        ("an empty signature message is still present", {"id": alice, "signature": {"type": "", "issuer": "", "hash": ""}}),
        ("a long field (two-byte length)", {"id": alice, "controller": "did:peaq:" + "x" * 300}),
    ]
    vectors = []
    for name, fields in cases:
        doc = build(fields)
        data = doc.SerializeToString()
        check = proto.Document()
        check.ParseFromString(data)
        assert as_json(check) == as_json(doc), name
        vectors.append({"name": "encode: " + name, "document": as_json(doc), "protobuf": hx(data), "attribute_value_utf8": data.hex()})
    return vectors


def tag(number, wire):
    return varint(number << 3 | wire)


def varint(value):
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def ld(number, payload):
    payload = payload.encode() if isinstance(payload, str) else payload
    return tag(number, 2) + varint(len(payload)) + payload


def decode_vectors():
    method = ld(1, "did:peaq:x#keys-1") + ld(2, "Sr25519VerificationKey2020")
    cases = [
        ("fields in reverse order", ld(6, "a") + ld(5, ld(1, "s")) + ld(2, "c") + ld(1, "did:peaq:x")),
        (
            "unknown fields of every wire type are skipped",
            tag(9, 0) + varint(300) + ld(1, "did:peaq:x") + tag(10, 1) + bytes(8) + tag(11, 5) + bytes(4) + ld(12, b"\xff\x00") + ld(3, method + tag(7, 0) + b"\x01"),
        ),
        ("a known field with another wire type is an unknown field", tag(1, 0) + varint(5) + ld(2, "c")),
        ("a singular string twice: the last wins", ld(1, "first") + ld(1, "second")),
        ("the signature twice: merged", ld(4, ld(1, "t") + ld(2, "i")) + ld(4, ld(2, "j") + ld(3, "h"))),
        ("an over-long varint length is accepted", tag(1, 2) + b"\x83\x80\x00" + b"abc"),
        ("an unknown group is skipped", tag(9, 3) + tag(1, 0) + varint(1) + tag(9, 4) + ld(1, "did:peaq:x")),
        ("an empty optional endpoint is present", ld(5, ld(1, "s") + ld(2, "t") + ld(3, ""))),
    ]
    vectors = []
    for name, data in cases:
        doc = proto.Document()
        doc.ParseFromString(data)
        vectors.append({"name": "decode: " + name, "protobuf": hx(data), "document": as_json(doc)})
    return vectors


def reject_vectors():
    cases = [
        ("a truncated tag varint", b"\x8a"),
        ("a length past the end", tag(1, 2) + varint(10) + b"abc"),
        ("a truncated nested message", ld(3, tag(1, 2) + varint(5) + b"ab")),
        ("invalid UTF-8 in a string", ld(1, b"did:\xff")),
        ("invalid UTF-8 in a nested string", ld(5, ld(2, b"\xc3"))),
        ("field number 0", tag(0, 2) + varint(0)),
        ("a group never ended", tag(9, 3)),
        ("an end-group with no start", tag(9, 4)),
        ("a truncated fixed64", tag(9, 1) + bytes(3)),
        ("a varint over 10 bytes", tag(9, 0) + b"\xff" * 10 + b"\x01"),
        ("a reserved wire type 6", tag(9, 6)),
    ]
    vectors = []
    for name, data in cases:
        try:
            proto.Document().ParseFromString(data)
        except DecodeError:
            vectors.append({"name": "reject: " + name, "protobuf": hx(data)})
            continue
        print(f"note: the SDK's parser accepts {name!r}; left out of the reject set")
    return vectors


def main():
    args = parse_args(__doc__)
    vectors = encode_vectors() + decode_vectors() + reject_vectors()
    write_vectors(args.out, "peaq_did_document.json", "tools/vectors/gen_peaq_did.py", versions("peaq-sdk", "protobuf", "base58"), vectors)


if __name__ == "__main__":
    main()
