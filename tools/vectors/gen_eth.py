#!/usr/bin/env python3
"""Golden vectors for the Ethereum/Kaia half of ChainKit.

Run with the eth venv (tools/vectors/.venv-eth, pinned by requirements-eth.txt);
normally through `bash tools/vectors/generate.sh`.

Writes keccak.json, rlp.json, secp256k1.json, eth_transactions.json, abi.json,
eip191_eip712.json and keystore.json. Every value comes from an oracle package and,
where it is cheap, is re-derived here independently (a tiny RLP encoder, the
pure-Python secp256k1 backend of eth-keys, hashlib) or checked against a value
published in the relevant EIP/spec; any disagreement aborts the run.
"""
import copy
import hashlib
import json
import uuid

import coincurve
import eth_abi
import eth_keyfile
import eth_keyfile.keyfile as keyfile_mod
import rlp
from eth_account import Account
from eth_account._utils.legacy_transactions import serializable_unsigned_transaction_from_dict
from eth_account.messages import _hash_eip191_message, encode_defunct, encode_typed_data
from eth_account.typed_transactions import TypedTransaction
from eth_keys import KeyAPI
from eth_keys.backends import NativeECCBackend
from eth_utils import keccak, to_checksum_address
from rlp.sedes import big_endian_int

from vectorlib import dec, hx, parse_args, unhex, versions, write_vectors

GENERATOR = "tools/vectors/gen_eth.py"
ORACLES = versions("eth-account", "eth-abi", "eth-keyfile", "eth-keys", "eth-hash", "eth-utils", "rlp", "coincurve", "pycryptodome")
NATIVE = KeyAPI(NativeECCBackend)  # pure-Python secp256k1, independent of coincurve's C library
SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141

# Fixed private keys (never use them for anything real).
KEY_ONE = (1).to_bytes(32, "big")                      # public key = generator G
KEY_46 = bytes.fromhex("46" * 32)                      # EIP-155 example key
KEY_COW = keccak(b"cow")                               # EIP-712 example key
KEY_N_MINUS_1 = (SECP256K1_N - 1).to_bytes(32, "big")  # largest valid key


def pattern(n: int) -> bytes:
    return bytes(i % 256 for i in range(n))


# ---------------------------------------------------------------- independent RLP
def my_rlp(item) -> bytes:
    def length_prefix(length, short_base, long_base):
        if length <= 55:
            return bytes([short_base + length])
        lb = length.to_bytes((length.bit_length() + 7) // 8, "big")
        return bytes([long_base + len(lb)]) + lb

    if isinstance(item, int):
        item = item.to_bytes((item.bit_length() + 7) // 8, "big") if item else b""
    if isinstance(item, (bytes, bytearray)):
        item = bytes(item)
        if len(item) == 1 and item[0] < 0x80:
            return item
        return length_prefix(len(item), 0x80, 0xB7) + item
    payload = b"".join(my_rlp(x) for x in item)
    return length_prefix(len(payload), 0xC0, 0xF7) + payload


def addr_of_key(key: bytes) -> bytes:
    return keccak(NATIVE.PrivateKey(key).public_key.to_bytes())[12:]


# ---------------------------------------------------------------- keccak.json
def gen_keccak():
    cases = [("empty", b""), ("abc", b"abc")]
    for n in (1, 32, 135, 136, 137, 271, 272, 273, 1024):
        cases.append((f"pattern_{n}_bytes", pattern(n)))
    cases.append(("ff_136_bytes", b"\xff" * 136))
    known = {
        "empty": "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470",
        "abc": "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45",
    }
    out = []
    for name, data in cases:
        h = keccak(data)
        from Crypto.Hash import keccak as ck  # pycryptodome direct, as a second path

        assert ck.new(data=data, digest_bits=256).digest() == h
        assert hashlib.sha3_256(data).digest() != h  # keccak-256 is not FIPS SHA3-256
        if name in known:
            assert h.hex() == known[name], name
        v = {"name": name, "input": hx(data), "input_length": len(data), "keccak256": hx(h)}
        if name == "abc":
            v["input_utf8"] = "abc"
        out.append(v)
    return out


# ---------------------------------------------------------------- rlp.json
def _rlp_json(item):
    if isinstance(item, list):
        return [_rlp_json(x) for x in item]
    return hx(item)


def gen_rlp():
    out = []

    def add_uint(name, n):
        enc = rlp.encode(n)
        assert enc == my_rlp(n), name
        assert rlp.decode(enc, sedes=big_endian_int) == n
        out.append({"name": name, "kind": "uint", "value": dec(n), "encoded": hx(enc), "valid": True})

    def add_bytes(name, b):
        enc = rlp.encode(b)
        assert enc == my_rlp(b), name
        assert rlp.decode(enc) == b
        out.append({"name": name, "kind": "bytes", "value": hx(b), "value_length": len(b), "encoded": hx(enc), "valid": True})

    def add_list(name, lst, payload_len=None):
        enc = rlp.encode(lst)
        assert enc == my_rlp(lst), name
        assert rlp.decode(enc) == lst
        if payload_len is not None:
            assert len(enc) - (1 if payload_len <= 55 else 2) == payload_len, name
        v = {"name": name, "kind": "list", "value": _rlp_json(lst), "encoded": hx(enc), "valid": True}
        out.append(v)

    for n in (0, 1, 127, 128, 255, 256, 1024, 0xFFFFFF, 2**64 - 1, 2**64, 2**256 - 1):
        add_uint(f"uint_{n}", n)
    add_bytes("bytes_empty", b"")
    add_bytes("bytes_1_00", b"\x00")
    add_bytes("bytes_1_7f", b"\x7f")
    add_bytes("bytes_1_80", b"\x80")
    add_bytes("bytes_1_ff", b"\xff")
    add_bytes("bytes_dog", b"dog")
    for n in (55, 56, 255, 256, 1024):
        add_bytes(f"bytes_{n}", pattern(n))
    add_list("list_empty", [])
    add_list("list_cat_dog", [b"cat", b"dog"])
    assert rlp.encode([b"cat", b"dog"]).hex() == "c88363617483646f67"
    add_list("list_set_theoretic_3", [[], [[]], [[], [[]]]])
    add_list("list_nested_mixed", [b"\x01", [b"\x02", [b""]], b"\x80" * 3])
    add_list("list_payload_55", [pattern(54)], payload_len=55)
    add_list("list_payload_56", [pattern(55)], payload_len=56)
    add_list("list_long_1024_item", [pattern(1024)])
    add_list("list_of_uints", [b"", b"\x01", b"\x7f", b"\x80", b"\x01\x00"])

    invalid = [
        ("single_byte_as_short_string", "8100", None, "byte < 0x80 encoded with a 0x81 prefix (non-canonical)"),
        ("single_byte_7f_as_short_string", "817f", None, "byte < 0x80 encoded with a 0x81 prefix (non-canonical)"),
        ("long_string_form_for_short", "b805" + "61" * 5, None, "long-string prefix used for a string of <= 55 bytes"),
        ("string_length_leading_zero", "b90038" + "61" * 56, None, "length-of-length has a leading zero byte"),
        ("list_length_leading_zero", "f90038" + "80" * 56, None, "list length has a leading zero byte"),
        ("long_list_form_for_short", "f80580808080" + "80", None, "long-list prefix used for a payload of <= 55 bytes"),
        ("string_length_exceeds_input", "8501", None, "declared string length exceeds the input"),
        ("long_string_length_exceeds_input", "b838" + "61" * 10, None, "declared string length exceeds the input"),
        ("list_length_exceeds_input", "c580", None, "declared list length exceeds the input"),
        ("item_overruns_list_payload", "c384616263", None, "an item runs past the end of its list's payload"),
        ("trailing_bytes", "8000", None, "extra bytes after a complete item"),
        ("trailing_bytes_after_list", "c0c0", None, "extra bytes after a complete item"),
        ("empty_input", "", None, "no item at all"),
        ("uint_leading_zero", "820001", "uint", "integer with a leading zero byte (not minimal)"),
        ("uint_zero_as_00", "00", "uint", "integer zero must be encoded as 0x80, not 0x00"),
    ]
    for name, h, decode_as, reason in invalid:
        data = bytes.fromhex(h)
        try:
            if decode_as == "uint":
                rlp.decode(data, sedes=big_endian_int)
            else:
                rlp.decode(data, strict=True)
        except rlp.exceptions.RLPException:
            pass
        else:
            raise AssertionError(f"rlp accepted invalid vector {name}")
        out.append({"name": f"invalid_{name}", "kind": decode_as or "any", "encoded": hx(data), "valid": False, "reason": reason})
    return out


# ---------------------------------------------------------------- secp256k1.json
def gen_secp256k1():
    out = []
    keys = [("key_one", KEY_ONE), ("key_46", KEY_46), ("key_cow", KEY_COW), ("key_n_minus_1", KEY_N_MINUS_1)]
    for kname, key in keys:
        cc = coincurve.PrivateKey(key)
        pub65 = cc.public_key.format(compressed=False)
        pub33 = cc.public_key.format(compressed=True)
        assert pub65[1:] == NATIVE.PrivateKey(key).public_key.to_bytes()
        addr = keccak(pub65[1:])[12:]
        acct = Account.from_key(key)
        assert acct.address == to_checksum_address(addr)
        out.append(
            {
                "name": f"{kname}_public",
                "kind": "public_key",
                "private_key": hx(key),
                "public_key": hx(pub65[1:]),
                "public_key_compressed": hx(pub33),
                "address": hx(addr),
                "address_checksummed": acct.address,
            }
        )
    assert out[0]["address"] == "0x7e5f4552091a69125d5dfcb7b8c2659029395bdf"  # key 1
    assert out[1]["address"] == "0x9d8a62f656a8d1615c1294fd71e9cfb3e4855a4f"  # EIP-155 example sender

    half_n = SECP256K1_N // 2
    recids_seen = set()
    for kname, key in keys[:3]:
        cc = coincurve.PrivateKey(key)
        have = {0: 0, 1: 0}
        i = 0
        while min(have.values()) < 1 or sum(have.values()) < 3:
            msg = f"hubd secp256k1 vector {kname} {i}".encode()
            h = keccak(msg)
            i += 1
            sig = cc.sign_recoverable(h, hasher=None)
            r, s, recid = int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:64], "big"), sig[64]
            if have[recid] >= 2:
                continue
            have[recid] += 1
            recids_seen.add(recid)
            ns = NATIVE.PrivateKey(key).sign_msg_hash(h)
            assert (ns.r, ns.s, ns.v) == (r, s, recid), "coincurve and pure-Python RFC 6979 disagree"
            assert s <= half_n
            pub = NATIVE.Signature(vrs=(recid, r, s)).recover_public_key_from_msg_hash(h)
            assert pub.to_bytes() == coincurve.PrivateKey(key).public_key.format(compressed=False)[1:]
            out.append(
                {
                    "name": f"{kname}_sig_{i - 1}",
                    "kind": "signature",
                    "private_key": hx(key),
                    "message_utf8": msg.decode(),
                    "message_hash": hx(h),
                    "r": hx(r.to_bytes(32, "big")),
                    "s": hx(s.to_bytes(32, "big")),
                    "recid": recid,
                    "v": 27 + recid,
                    "signature_rsv": hx(sig[:64] + bytes([27 + recid])),
                    "low_s": True,
                    "public_key": hx(pub.to_bytes()),
                    "address": hx(keccak(pub.to_bytes())[12:]),
                }
            )
    assert recids_seen == {0, 1}
    # One malleated (high-s) twin: valid ECDSA, but Ethereum (EIP-2) and low-s verifiers reject it.
    base = next(v for v in out if v["kind"] == "signature")
    s_high = SECP256K1_N - int(base["s"], 16)
    assert s_high > half_n
    sig_high = unhex(base["r"]) + s_high.to_bytes(32, "big")
    flipped = base["recid"] ^ 1
    pub = NATIVE.Signature(vrs=(flipped, int(base["r"], 16), s_high)).recover_public_key_from_msg_hash(unhex(base["message_hash"]))
    assert pub.to_bytes() == unhex(base["public_key"])  # same signer, recid flips with s
    out.append(
        {
            "name": "high_s_twin_of_first_signature",
            "kind": "high_s",
            "private_key": base["private_key"],
            "message_hash": base["message_hash"],
            "r": base["r"],
            "s": hx(s_high.to_bytes(32, "big")),
            "recid": flipped,
            "v": 27 + flipped,
            "low_s": False,
            "public_key": base["public_key"],
            "address": base["address"],
            "note": "mathematically valid ECDSA (recovers the same key with the flipped recid); "
            "must be rejected where low-s is required (EIP-2 transactions, low-s-only verifiers)",
            "low_s_form_s": base["s"],
        }
    )
    return out


# ---------------------------------------------------------------- eth_transactions.json
TO_35 = "0x" + "35" * 20
ERC20_TOKEN = "0x" + "c0ffee00" * 5
TRANSFER_CALLDATA = bytes.fromhex("a9059cbb") + eth_abi.encode(["address", "uint256"], ["0x" + "ab" * 20, 12345 * 10**18])
INITCODE = bytes.fromhex("6080604052348015600f57600080fd5b50603f80601d6000396000f3fe6080604052600080fdfea164736f6c6343000818000a")


def _tx_fields(tx):
    t = tx.get("type", 0)
    to = unhex(tx["to"]) if tx.get("to") else b""
    al = [[unhex(e["address"]), [unhex(k) for k in e["storageKeys"]]] for e in tx.get("accessList", [])]
    if t == 0:
        f = [tx["nonce"], tx["gasPrice"], tx["gas"], to, tx["value"], tx["data"]]
        return f + ([tx["chainId"], 0, 0] if "chainId" in tx else [])
    if t == 1:
        return [tx["chainId"], tx["nonce"], tx["gasPrice"], tx["gas"], to, tx["value"], tx["data"], al]
    return [tx["chainId"], tx["nonce"], tx["maxPriorityFeePerGas"], tx["maxFeePerGas"], tx["gas"], to, tx["value"], tx["data"], al]


def _sign_tx(name, tx, key):
    t = tx.get("type", 0)
    fields = _tx_fields(tx)
    payload = my_rlp(fields) if t == 0 else bytes([t]) + my_rlp(fields)
    sighash = keccak(payload)
    oracle_tx = {k: v for k, v in tx.items() if not (k == "type" and v == 0)}
    if oracle_tx.get("to"):
        oracle_tx["to"] = to_checksum_address(oracle_tx["to"])
    if "accessList" in oracle_tx:
        oracle_tx["accessList"] = [{"address": to_checksum_address(e["address"]), "storageKeys": e["storageKeys"]} for e in oracle_tx["accessList"]]
    if t == 0:
        assert serializable_unsigned_transaction_from_dict(oracle_tx).hash() == sighash, name
    else:
        assert TypedTransaction.from_dict(oracle_tx).hash() == sighash, name
    signed = Account.sign_transaction(oracle_tx, key)
    raw = bytes(signed.raw_transaction)
    r, s, v = signed.r, signed.s, signed.v
    if t == 0:
        recid = v - 27 if "chainId" not in tx else v - 35 - 2 * tx["chainId"]
        assert raw == my_rlp(fields[:6] + [v, r, s]), name
    else:
        recid = v
        assert raw == bytes([t]) + my_rlp(fields + [v, r, s]), name
    assert recid in (0, 1) and s <= SECP256K1_N // 2
    assert keccak(raw) == bytes(signed.hash)
    sender = NATIVE.Signature(vrs=(recid, r, s)).recover_public_key_from_msg_hash(sighash).to_canonical_address()
    assert sender == addr_of_key(key)
    assert Account.recover_transaction(raw) == to_checksum_address(sender)
    vec = {
        "name": name,
        "type": t,
        "chain_id": dec(tx["chainId"]) if "chainId" in tx else None,
        "eip155": t == 0 and "chainId" in tx,
        "nonce": dec(tx["nonce"]),
        "gas": dec(tx["gas"]),
        "to": tx.get("to", "0x").lower() if tx.get("to") else "0x",
        "contract_creation": not tx.get("to"),
        "value": dec(tx["value"]),
        "data": hx(tx["data"]),
        "private_key": hx(key),
        "signing_payload": hx(payload),
        "signing_hash": hx(sighash),
        "raw": hx(raw),
        "hash": hx(signed.hash),
        "sender": hx(sender),
        "sender_checksummed": to_checksum_address(sender),
        "v": dec(v),
        "recid": recid,
        "r": hx(r.to_bytes(32, "big")),
        "s": hx(s.to_bytes(32, "big")),
    }
    if t in (0, 1):
        vec["gas_price"] = dec(tx["gasPrice"])
    else:
        vec["max_priority_fee_per_gas"] = dec(tx["maxPriorityFeePerGas"])
        vec["max_fee_per_gas"] = dec(tx["maxFeePerGas"])
    if t in (1, 2):
        vec["access_list"] = [{"address": e["address"].lower(), "storage_keys": [k.lower() for k in e["storageKeys"]]} for e in tx["accessList"]]
    return vec


def _with_recid(name_prefix, template, key, want_recid, start_nonce=0):
    for nonce in range(start_nonce, start_nonce + 64):
        tx = dict(template, nonce=nonce)
        v = _sign_tx(f"{name_prefix}_recid{want_recid}", tx, key)
        if v["recid"] == want_recid:
            return v
    raise AssertionError("no nonce gave the wanted recid")


def gen_transactions():
    out = []
    gwei = 10**9
    # EIP-155's own example (chainId 1, key 0x46..46).
    eip = _sign_tx("legacy_eip155_example_chain1", dict(type=0, chainId=1, nonce=9, gasPrice=20 * gwei, gas=21000, to=TO_35, value=10**18, data=b""), KEY_46)
    assert eip["raw"].startswith("0xf86c098504a817c800825208943535") and eip["raw"].endswith("6d83")
    assert eip["hash"] == "0x33469b22e9f636356c4160a87eb19df52b7412e8eac32a4a55ffe88ea8350788"
    assert eip["signing_hash"] == "0xdaf5a779ae972f972197303d7b574746c7ef83eadac0f2791ad23db92e4c8e53"  # EIP-155 signing hash
    out.append(eip)

    for chain in (1, 8217, 1001):
        template = dict(type=0, chainId=chain, gasPrice=25 * gwei, gas=21000, to=TO_35, value=10**18, data=b"")
        for recid in (0, 1):
            out.append(_with_recid(f"legacy_eip155_chain{chain}_transfer", template, KEY_COW, recid))
        erc20 = dict(type=0, chainId=chain, nonce=7, gasPrice=25 * gwei, gas=60000, to=ERC20_TOKEN, value=0, data=TRANSFER_CALLDATA)
        out.append(_sign_tx(f"legacy_eip155_chain{chain}_erc20_transfer", erc20, KEY_46))
    out.append(_sign_tx("legacy_eip155_chain1001_contract_creation", dict(type=0, chainId=1001, nonce=0, gasPrice=25 * gwei, gas=200000, value=0, data=INITCODE), KEY_COW))

    # Pre-EIP-155 (v = 27/28), for decode/recover-only tests.
    pre = dict(type=0, gasPrice=20 * gwei, gas=21000, to=TO_35, value=10**18, data=b"")
    for recid in (0, 1):
        v = _with_recid("legacy_pre_eip155", pre, KEY_46, recid, start_nonce=9)
        assert v["v"] == str(27 + recid)
        v["note"] = "unprotected (no chain id); decode and recover only, never produce"
        out.append(v)

    al_two = [
        {"address": "0x" + "de" * 20, "storageKeys": ["0x" + "00" * 32, "0x" + "00" * 31 + "01"]},
        {"address": "0x" + "be" * 20, "storageKeys": []},
    ]
    # EIP-2930 (type 1).
    out.append(_sign_tx("eip2930_chain1_access_list", dict(type=1, chainId=1, nonce=3, gasPrice=30 * gwei, gas=50000, to=TO_35, value=1, data=b"\x12\x34", accessList=al_two), KEY_46))
    out.append(_sign_tx("eip2930_chain8217_empty_access_list", dict(type=1, chainId=8217, nonce=4, gasPrice=25 * gwei, gas=21000, to=TO_35, value=2, data=b"", accessList=[]), KEY_COW))

    # EIP-1559 (type 2).
    k1559 = _sign_tx("eip1559_chain8217_simple", dict(type=2, chainId=8217, nonce=0, maxPriorityFeePerGas=25 * gwei, maxFeePerGas=50 * gwei, gas=21000, to=TO_35, value=1, data=b"", accessList=[]), KEY_46)
    assert k1559["raw"].startswith("0x02f86e822019808505d21dba00850ba43b7400825208943535") and k1559["raw"].endswith("3b82")
    out.append(k1559)
    t1 = dict(type=2, chainId=1, maxPriorityFeePerGas=2 * gwei, maxFeePerGas=100 * gwei, gas=21000, to=TO_35, value=10**17, data=b"", accessList=[])
    for recid in (0, 1):
        out.append(_with_recid("eip1559_chain1_no_access_list", t1, KEY_COW, recid))
    out.append(_sign_tx("eip1559_chain1001_access_list", dict(type=2, chainId=1001, nonce=12, maxPriorityFeePerGas=25 * gwei, maxFeePerGas=75 * gwei, gas=80000, to=ERC20_TOKEN, value=0, data=TRANSFER_CALLDATA, accessList=al_two), KEY_46))
    out.append(_sign_tx("eip1559_chain8217_contract_creation", dict(type=2, chainId=8217, nonce=1, maxPriorityFeePerGas=25 * gwei, maxFeePerGas=50 * gwei, gas=200000, value=0, data=INITCODE, accessList=[]), KEY_COW))
    out.append(_sign_tx("eip1559_chain1_big_values", dict(type=2, chainId=1, nonce=2**64 - 2, maxPriorityFeePerGas=2**256 - 1, maxFeePerGas=2**256 - 1, gas=30_000_000, to=TO_35, value=2**256 - 1, data=b"", accessList=[]), KEY_ONE))

    for v in out:
        if v["name"].startswith("legacy_eip155_chain"):
            assert v["eip155"]
    assert {v["recid"] for v in out if v["type"] == 0 and v["eip155"]} == {0, 1}
    assert {v["recid"] for v in out if v["type"] == 2} == {0, 1}
    return out


# ---------------------------------------------------------------- abi.json
def _abi_json(value):
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return dec(value)
    if isinstance(value, (bytes, bytearray)):
        return hx(value)
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        return [_abi_json(x) for x in value]
    raise TypeError(value)


def gen_abi():
    out = []
    known_selectors = {
        "transfer(address,uint256)": "a9059cbb",
        "approve(address,uint256)": "095ea7b3",
        "transferFrom(address,address,uint256)": "23b872dd",
        "balanceOf(address)": "70a08231",
        "totalSupply()": "18160ddd",
        "Error(string)": "08c379a0",
        "Panic(uint256)": "4e487b71",
        "baz(uint32,bool)": "cdcd77c0",
        "sam(bytes,bool,uint256[])": "a5643bf2",
        "f(uint256,uint32[],bytes10,bytes)": "8be65246",
    }
    for sig, sel in known_selectors.items():
        h = keccak(text=sig)
        assert h[:4].hex() == sel, sig
        out.append({"name": f"selector_{sig.split('(')[0]}", "kind": "selector", "signature": sig, "selector": hx(h[:4]), "keccak256": hx(h)})
    known_topics = {
        "Transfer(address,address,uint256)": "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef",
        "Approval(address,address,uint256)": "8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925",
    }
    for sig, topic in known_topics.items():
        assert keccak(text=sig).hex() == topic
        out.append({"name": f"event_{sig.split('(')[0]}", "kind": "event_topic", "signature": sig, "topic0": "0x" + topic})
    for sig in ("Deposited(address,uint256,bytes32)", "Released(address,uint256)"):
        out.append({"name": f"event_{sig.split('(')[0]}", "kind": "event_topic", "signature": sig, "topic0": hx(keccak(text=sig))})

    addr_a = "0xcd2a3d9f938e13cd947ec05abc7fe734df8dd826"
    addr_b = "0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
    cases = [
        ("uint256_zero", ["uint256"], [0]),
        ("uint256_one", ["uint256"], [1]),
        ("uint256_max", ["uint256"], [2**256 - 1]),
        ("uint8_max", ["uint8"], [255]),
        ("uint32_value", ["uint32"], [69]),
        ("int256_minus_one", ["int256"], [-1]),
        ("int256_min", ["int256"], [-(2**255)]),
        ("int256_max", ["int256"], [2**255 - 1]),
        ("int8_min", ["int8"], [-128]),
        ("int64_negative", ["int64"], [-1234567890123]),
        ("address", ["address"], [addr_a]),
        ("bool_true_false", ["bool", "bool"], [True, False]),
        ("bytes32", ["bytes32"], [pattern(32)]),
        ("bytes10", ["bytes10"], [b"1234567890"]),
        ("bytes1", ["bytes1"], [b"\xff"]),
        ("bytes_empty", ["bytes"], [b""]),
        ("bytes_short", ["bytes"], [b"dave"]),
        ("bytes_32", ["bytes"], [pattern(32)]),
        ("bytes_33", ["bytes"], [pattern(33)]),
        ("string_empty", ["string"], [""]),
        ("string_ascii", ["string"], ["Hello, world!"]),
        ("string_utf8", ["string"], ["h\u00e9llo \u2713"]),
        ("uint256_dynamic_array", ["uint256[]"], [[1, 2, 3]]),
        ("uint256_dynamic_array_empty", ["uint256[]"], [[]]),
        ("uint256_fixed_array_3", ["uint256[3]"], [[1, 2, 3]]),
        ("address_dynamic_array", ["address[]"], [[addr_a, addr_b]]),
        ("string_array", ["string[]"], [["one", "two", "three"]]),
        ("bytes_array", ["bytes[]"], [[b"", b"\x01\x02", pattern(40)]]),
        ("nested_dynamic_uint256", ["uint256[][]"], [[[1, 2], [3]]]),
        ("nested_static_in_dynamic", ["uint8[2][]"], [[[1, 2], [3, 4]]]),
        ("nested_fixed_static", ["uint8[2][3]"], [[[1, 2], [3, 4], [5, 6]]]),
        ("nested_dynamic_in_fixed", ["string[2]"], [["a", "bc"]]),
        ("tuple_static", ["(uint256,address,bool)"], [(7, addr_a, True)]),
        ("tuple_dynamic_members", ["(uint256,string,bytes)"], [(1, "memo", b"\xde\xad\xbe\xef")]),
        ("tuple_array", ["(address,uint256)[]"], [[(addr_a, 1), (addr_b, 2)]]),
        ("tuple_nested", ["(uint256,(bool,string)[])"], [(9, [(True, "x"), (False, "yz")])]),
        ("mixed_head_tail", ["address", "bytes", "uint256", "string[]"], [addr_a, b"\x01\x02\x03", 42, ["p", "q"]]),
    ]
    for name, types, values in cases:
        enc = eth_abi.encode(types, values)
        dec_vals = eth_abi.decode(types, enc)
        assert _abi_tuple_to_list(dec_vals) == _abi_tuple_to_list(values), name
        out.append({"name": f"encode_{name}", "kind": "encode", "types": types, "values": _abi_json(values), "encoded": hx(enc)})

    # Calldata examples (selector || arguments), including the Solidity ABI spec's own examples.
    calls = [
        ("transfer(address,uint256)", ["address", "uint256"], [addr_b, 12345 * 10**18]),
        ("baz(uint32,bool)", ["uint32", "bool"], [69, True]),
        ("sam(bytes,bool,uint256[])", ["bytes", "bool", "uint256[]"], [b"dave", True, [1, 2, 3]]),
        ("f(uint256,uint32[],bytes10,bytes)", ["uint256", "uint32[]", "bytes10", "bytes"], [0x123, [0x456, 0x789], b"1234567890", b"Hello, world!"]),
        ("g(uint256[][],string[])", ["uint256[][]", "string[]"], [[[1, 2], [3]], ["one", "two", "three"]]),
    ]
    for sig, types, values in calls:
        data = keccak(text=sig)[:4] + eth_abi.encode(types, values)
        out.append({"name": f"calldata_{sig.split('(')[0]}", "kind": "calldata", "signature": sig, "types": types, "values": _abi_json(values), "calldata": hx(data)})
    baz = next(v for v in out if v["name"] == "calldata_baz")["calldata"]
    assert baz == "0xcdcd77c0" + "00" * 31 + "45" + "00" * 31 + "01"

    def word(n: int) -> str:
        return f"{n:064x}"

    sam = next(v for v in out if v["name"] == "calldata_sam")["calldata"]
    dave = b"dave".hex().ljust(64, "0")
    assert sam == "0xa5643bf2" + word(0x60) + word(1) + word(0xA0) + word(4) + dave + word(3) + word(1) + word(2) + word(3)

    # Revert payloads.
    for reason in ("Not enough Ether provided.", ""):
        payload = bytes.fromhex("08c379a0") + eth_abi.encode(["string"], [reason])
        out.append({"name": f"revert_error_string_{'empty' if not reason else 'text'}", "kind": "revert_error", "reason": reason, "payload": hx(payload)})
    for code, meaning in ((0x01, "assert failed"), (0x11, "arithmetic overflow"), (0x12, "division by zero")):
        payload = bytes.fromhex("4e487b71") + eth_abi.encode(["uint256"], [code])
        out.append({"name": f"revert_panic_0x{code:02x}", "kind": "revert_panic", "code": code, "note": meaning, "payload": hx(payload)})

    # A Transfer event log as a node returns it (indexed from/to in topics, amount in data).
    topics = [keccak(text="Transfer(address,address,uint256)"), eth_abi.encode(["address"], [addr_a]), eth_abi.encode(["address"], [addr_b])]
    out.append(
        {
            "name": "log_erc20_transfer",
            "kind": "event_log",
            "signature": "Transfer(address,address,uint256)",
            "from": addr_a,
            "to": addr_b,
            "value": dec(10**18),
            "topics": [hx(t) for t in topics],
            "data": hx(eth_abi.encode(["uint256"], [10**18])),
        }
    )
    return out


def _abi_tuple_to_list(v):
    if isinstance(v, (list, tuple)):
        return [_abi_tuple_to_list(x) for x in v]
    if isinstance(v, str) and v.startswith("0x") and len(v) == 42:
        return v.lower()
    return v


# ---------------------------------------------------------------- eip191_eip712.json
MAIL_TYPED_DATA = {
    "types": {
        "EIP712Domain": [
            {"name": "name", "type": "string"},
            {"name": "version", "type": "string"},
            {"name": "chainId", "type": "uint256"},
            {"name": "verifyingContract", "type": "address"},
        ],
        "Person": [{"name": "name", "type": "string"}, {"name": "wallet", "type": "address"}],
        "Mail": [{"name": "from", "type": "Person"}, {"name": "to", "type": "Person"}, {"name": "contents", "type": "string"}],
    },
    "primaryType": "Mail",
    "domain": {"name": "Ether Mail", "version": "1", "chainId": 1, "verifyingContract": "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC"},
    "message": {
        "from": {"name": "Cow", "wallet": "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"},
        "to": {"name": "Bob", "wallet": "0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"},
        "contents": "Hello, Bob!",
    },
}

PAYMENT_TYPED_DATA = {
    "types": {
        "EIP712Domain": [{"name": "name", "type": "string"}, {"name": "chainId", "type": "uint256"}],
        "Payment": [
            {"name": "payee", "type": "address"},
            {"name": "amounts", "type": "uint256[]"},
            {"name": "reference", "type": "bytes32"},
            {"name": "memo", "type": "string"},
            {"name": "extra", "type": "bytes"},
            {"name": "deadline", "type": "uint64"},
        ],
    },
    "primaryType": "Payment",
    "domain": {"name": "hubd", "chainId": 1001},
    "message": {
        "payee": "0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB",
        "amounts": ["1", str(2**255), "3"],  # decimal strings, as eth_signTypedData_v4 JSON allows
        "reference": "0x" + "ab" * 32,
        "memo": "order #42",
        "extra": "0x0102",
        "deadline": 1700000000,
    },
}


def gen_eip191_eip712():
    out = []
    messages = [
        ("hello", b"hello", "hello"),
        ("empty", b"", ""),
        ("utf8", "Hello, hubd! \u2713".encode(), "Hello, hubd! \u2713"),
        ("binary_32_bytes", keccak(b"hubd"), None),
        ("long_200_bytes", b"x" * 200, "x" * 200),
    ]
    for key_name, key in (("key_cow", KEY_COW), ("key_46", KEY_46)):
        for mname, msg, text in messages:
            preimage = b"\x19Ethereum Signed Message:\n" + str(len(msg)).encode() + msg
            digest = keccak(preimage)
            sm = encode_defunct(primitive=msg)
            assert _hash_eip191_message(sm) == digest
            signed = Account.sign_message(sm, key)
            sig = bytes(signed.signature)
            assert sig[64] in (27, 28)
            recid = sig[64] - 27
            pub = NATIVE.Signature(vrs=(recid, int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:64], "big"))).recover_public_key_from_msg_hash(digest)
            assert pub.to_canonical_address() == addr_of_key(key)
            v = {
                "name": f"personal_sign_{mname}_{key_name}",
                "kind": "personal_sign",
                "private_key": hx(key),
                "address": hx(addr_of_key(key)),
                "message": hx(msg),
                "preimage": hx(preimage),
                "signing_hash": hx(digest),
                "signature": hx(sig),
                "r": hx(sig[:32]),
                "s": hx(sig[32:64]),
                "v": sig[64],
            }
            if text is not None:
                v["message_utf8"] = text
            out.append(v)
    hello = next(v for v in out if v["name"] == "personal_sign_hello_key_cow")
    assert hello["preimage"] == "0x19457468657265756d205369676e6564204d6573736167653a0a3568656c6c6f"

    mail_8217 = copy.deepcopy(MAIL_TYPED_DATA)
    mail_8217["domain"]["chainId"] = 8217
    for name, td, key, enc_type in (
        ("eip712_mail_spec_example", MAIL_TYPED_DATA, KEY_COW, "Mail(Person from,Person to,string contents)Person(string name,address wallet)"),
        ("eip712_mail_chain8217_key46", mail_8217, KEY_46, "Mail(Person from,Person to,string contents)Person(string name,address wallet)"),
        ("eip712_payment_minimal_domain", PAYMENT_TYPED_DATA, KEY_COW, "Payment(address payee,uint256[] amounts,bytes32 reference,string memo,bytes extra,uint64 deadline)"),
    ):
        sm = encode_typed_data(full_message=copy.deepcopy(td))
        assert sm.version == b"\x01"
        domain_sep, struct_hash = bytes(sm.header), bytes(sm.body)
        digest = keccak(b"\x19\x01" + domain_sep + struct_hash)
        assert _hash_eip191_message(sm) == digest
        signed = Account.sign_message(sm, key)
        sig = bytes(signed.signature)
        recid = sig[64] - 27
        pub = NATIVE.Signature(vrs=(recid, int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:64], "big"))).recover_public_key_from_msg_hash(digest)
        assert pub.to_canonical_address() == addr_of_key(key)
        domain_fields = ",".join(f"{f['type']} {f['name']}" for f in td["types"]["EIP712Domain"])
        out.append(
            {
                "name": name,
                "kind": "eip712",
                "typed_data": td,
                "private_key": hx(key),
                "address": hx(addr_of_key(key)),
                "domain_encode_type": f"EIP712Domain({domain_fields})",
                "domain_type_hash": hx(keccak(text=f"EIP712Domain({domain_fields})")),
                "primary_encode_type": enc_type,
                "primary_type_hash": hx(keccak(text=enc_type)),
                "domain_separator": hx(domain_sep),
                "struct_hash": hx(struct_hash),
                "signing_hash": hx(digest),
                "signature": hx(sig),
                "r": hx(sig[:32]),
                "s": hx(sig[32:64]),
                "v": sig[64],
            }
        )
    spec = next(v for v in out if v["name"] == "eip712_mail_spec_example")
    assert spec["primary_type_hash"] == "0xa0cedeb2dc280ba39b857546d74f5549c3a1d7bdc2dd96bf881f76108e23dac2"
    assert spec["domain_separator"] == "0xf2cee375fa42b42143804025fc449deafd50cc031ca257e0b194a650a912090f"
    assert spec["struct_hash"] == "0xc52c0ee5d84264471806290a3f2c4cecfc5490626bf912d01f240d7a274b371e"
    assert spec["signing_hash"] == "0xbe609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2"
    assert spec["v"] == 28
    assert spec["r"] == "0x4355c47d63924e8a72e509b65029052eb6c299d53a04e167c5775fd466751c9d"
    assert spec["s"] == "0x07299936d304c153f6443dfa05f40ff007d72911b6f72307f996231605b91562"
    return out


# ---------------------------------------------------------------- keystore.json
SPEC_KEY = bytes.fromhex("7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d")
SPEC_PBKDF2 = {
    "crypto": {
        "cipher": "aes-128-ctr",
        "cipherparams": {"iv": "6087dab2f9fdbbfaddc31a909735c1e6"},
        "ciphertext": "5318b4d5bcd28de64ee5559e671353e16f075ecae9f99c7a79a38af5f869aa46",
        "kdf": "pbkdf2",
        "kdfparams": {"c": 262144, "dklen": 32, "prf": "hmac-sha256", "salt": "ae3cd4e7013836a3df6bd7241b12db061dbe2c6785853cce422d148a624ce0bd"},
        "mac": "517ead924a9d0dc3124507e3393d175ce3ff7c1e96529c6c555ce9e51205e9b2",
    },
    "id": "3198bc9c-6672-5ab3-d995-4942343ae5b6",
    "version": 3,
}
SPEC_SCRYPT = {
    "crypto": {
        "cipher": "aes-128-ctr",
        "cipherparams": {"iv": "83dbcc02d8ccb40e466191a123791e0e"},
        "ciphertext": "d172bf743a674da9cdad04534d56926ef8358534d458fffccd4e6ad2fbde479c",
        "kdf": "scrypt",
        "kdfparams": {"dklen": 32, "n": 262144, "p": 8, "r": 1, "salt": "ab0c7876052600dd703518d6fc3fe8984592145b591fc8fb5c6d43190334ba19"},
        "mac": "2103ac29920d71da29f15d75b4a16dbe95cfd7ff8faea1056c33131d846e3097",
    },
    "id": "3198bc9c-6672-5ab3-d995-4942343ae5b6",
    "version": 3,
}


def _derive(ks, password: bytes) -> bytes:
    p = ks["crypto"]["kdfparams"]
    salt = bytes.fromhex(p["salt"])
    if ks["crypto"]["kdf"] == "pbkdf2":
        return hashlib.pbkdf2_hmac("sha256", password, salt, p["c"], p["dklen"])
    from Crypto.Protocol.KDF import scrypt

    return scrypt(password, salt, key_len=p["dklen"], N=p["n"], r=p["r"], p=p["p"])


def _keystore_vector(name, source, ks, password, key):
    c = ks["crypto"]
    dk = _derive(ks, password.encode())
    ct = bytes.fromhex(c["ciphertext"])
    assert keccak(dk[16:32] + ct).hex() == c["mac"], name
    assert eth_keyfile.decode_keyfile_json(copy.deepcopy(ks), password.encode()) == key, name
    from Crypto.Cipher import AES
    from Crypto.Util import Counter

    ctr = Counter.new(128, initial_value=int(c["cipherparams"]["iv"], 16))
    assert AES.new(dk[:16], AES.MODE_CTR, counter=ctr).encrypt(key) == ct
    p = c["kdfparams"]
    v = {
        "name": name,
        "kind": "decrypt",
        "source": source,
        "password": password,
        "private_key": hx(key),
        "address": hx(addr_of_key(key)),
        "kdf": c["kdf"],
        "dklen": p["dklen"],
        "salt": "0x" + p["salt"],
        "cipher": c["cipher"],
        "iv": "0x" + c["cipherparams"]["iv"],
        "ciphertext": "0x" + c["ciphertext"],
        "mac": "0x" + c["mac"],
        "mac_body": hx(dk[16:32] + ct),
        "derived_key": hx(dk),
        "keystore": ks,
    }
    if c["kdf"] == "pbkdf2":
        v.update(prf=p["prf"], c=p["c"])
    else:
        v.update(n=p["n"], r=p["r"], p=p["p"])
    return v


def gen_keystore():
    out = [
        _keystore_vector("spec_pbkdf2_sha256", "web3-secret-storage-spec", SPEC_PBKDF2, "testpassword", SPEC_KEY),
        _keystore_vector("spec_scrypt_n262144_r1_p8", "web3-secret-storage-spec", SPEC_SCRYPT, "testpassword", SPEC_KEY),
    ]
    assert out[0]["derived_key"] == "0xf06d69cdc7da0faffb1008270bca38f5e31891a3a773950e6d0fea48a7188551"
    assert out[1]["derived_key"] == "0xfac192ceb5fd772906bea3e118a69e8bbb5cc24229e20d8766fd298291bba6bd"

    # Generated ones: eth-account's Account.encrypt with salt/iv/uuid pinned by monkeypatching.
    orig_random, orig_uuid4 = keyfile_mod.Random.get_random_bytes, keyfile_mod.uuid4
    orig_r, orig_p = keyfile_mod.SCRYPT_R, keyfile_mod.SCRYPT_P
    generated = [
        ("generated_scrypt_n1024_r8_p1", "scrypt", 1024, 8, 1, "hubd-password", KEY_COW, bytes(range(16)), bytes(range(16, 32))),
        ("generated_scrypt_n1024_r1_p8", "scrypt", 1024, 1, 8, "hubd-password", KEY_46, bytes(range(32, 48)), bytes(range(64, 80))),
        ("generated_pbkdf2_c1000", "pbkdf2", 1000, None, None, "hubd-password", KEY_COW, bytes(range(16)), bytes(range(16, 32))),
        ("generated_pbkdf2_c1000_unicode_password", "pbkdf2", 1000, None, None, "p\u00e4ssw\u00f6rd \u2713", KEY_46, b"\xaa" * 16, b"\x55" * 16),
    ]
    try:
        for name, kdf, work, r, p, password, key, salt, iv in generated:
            queue = [salt, iv]

            def fake_random(n, _q=queue):
                b = _q.pop(0)
                assert len(b) == n, (n, len(b))
                return b

            keyfile_mod.Random.get_random_bytes = fake_random
            keyfile_mod.uuid4 = lambda: uuid.UUID("00000000-0000-4000-8000-000000000000")
            if r is not None:
                keyfile_mod.SCRYPT_R, keyfile_mod.SCRYPT_P = r, p
            ks = Account.encrypt(key, password, kdf=kdf, iterations=work)
            keyfile_mod.SCRYPT_R, keyfile_mod.SCRYPT_P = orig_r, orig_p
            assert not queue
            assert ks["crypto"]["kdfparams"]["salt"] == salt.hex() and ks["crypto"]["cipherparams"]["iv"] == iv.hex()
            ks = json_roundtrip(ks)
            v = _keystore_vector(name, "generated", ks, password, key)
            out.append(v)
    finally:
        keyfile_mod.Random.get_random_bytes, keyfile_mod.uuid4 = orig_random, orig_uuid4
        keyfile_mod.SCRYPT_R, keyfile_mod.SCRYPT_P = orig_r, orig_p

    # Must-fail cases: wrong password, and a tampered ciphertext (MAC mismatch).
    base = next(v for v in out if v["name"] == "generated_pbkdf2_c1000")
    bad_ct = copy.deepcopy(base["keystore"])
    ct = bytearray(bytes.fromhex(bad_ct["crypto"]["ciphertext"]))
    ct[0] ^= 1
    bad_ct["crypto"]["ciphertext"] = ct.hex()
    for name, ks, password, reason in (
        ("wrong_password", base["keystore"], "hubd-passwore", "MAC mismatch (wrong password)"),
        ("tampered_ciphertext", bad_ct, "hubd-password", "MAC mismatch (ciphertext changed)"),
    ):
        try:
            eth_keyfile.decode_keyfile_json(copy.deepcopy(ks), password.encode())
        except ValueError:
            pass
        else:
            raise AssertionError(name)
        out.append({"name": name, "kind": "reject", "password": password, "keystore": ks, "reason": reason})
    return out


def json_roundtrip(obj):
    return json.loads(json.dumps(obj))


# ---------------------------------------------------------------- main
def main():
    args = parse_args(__doc__.splitlines()[0])
    for filename, fn in (
        ("keccak.json", gen_keccak),
        ("rlp.json", gen_rlp),
        ("secp256k1.json", gen_secp256k1),
        ("eth_transactions.json", gen_transactions),
        ("abi.json", gen_abi),
        ("eip191_eip712.json", gen_eip191_eip712),
        ("keystore.json", gen_keystore),
    ):
        write_vectors(args.out, filename, GENERATOR, ORACLES, fn())


if __name__ == "__main__":
    main()
