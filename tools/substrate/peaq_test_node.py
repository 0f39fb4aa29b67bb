#!/usr/bin/env python3
"""peaq JSON-RPC TEST NODE: a test double for a peaq (Substrate) node. Not a blockchain node.

It lets the hub's Substrate rail anchor peaq DID changes against something that behaves like a peaq
node over WebSocket JSON-RPC, on a machine where no real node can run. It is one asyncio process
with one author, no peers, no forks and a timer for finality.

    python peaq_test_node.py [--host 127.0.0.1] [--port 9944] [--state FILE]
        [--chain-name NAME] [--metadata FILE] [--endow SS58=PLANCK ...]
        [--finality-ms 300] [--pool-ms 0] [--block-ms 0] [--crash-after-inclusions K]
        [--log-level INFO]

`--port 0` picks a free port. When ready it prints one line, `peaq-test-node listening on
ws://HOST:PORT`, to stdout; everything else is logged to stderr.

What it implements
- Runtime: the V14 metadata of peaq's genesis runtime (default
  Tests/Fixtures/substrate/peaq-mainnet-genesis-v14.scale). Its `System.Version` constant is the
  runtime version served (spec `peaq-node` 1, transaction version 1); scalecodec decodes each
  extrinsic against it.
- Signed extrinsics, v4. Signature: sr25519 (MultiSignature 01) or ed25519 (00). The signer must be
  `MultiAddress::Id`. The signing payload is `call ‖ extra ‖ additional`, blake2b-256-hashed when
  longer than 256 bytes. `extra` is the extrinsic's own bytes between the signature and the call.
  `additional` comes from the metadata's signed extensions, in their order: spec_version u32,
  transaction_version u32, genesis hash, era block hash (the genesis hash when the era is immortal).
  A wrong genesis hash, spec version or transaction version is therefore a bad signature, as on a
  real node.
- Era. The extrinsic is checked for block N = best + 1, where it would be included. An immortal era
  is always valid. A mortal (period, phase) era has its birth at
  ((N - phase) / period) * period + phase. If that block does not exist yet, or the signature only
  verifies with the hash of an earlier birth block (the era has expired), the answer is "ancient
  birth block". This is checked before "bad signature".
- Nonce. Below the account's nonce is "outdated"; this includes an exact extrinsic that is already
  in a block. Above the account's next index is "will be valid in the future" and is rejected; a
  real pool would keep it in its future queue. The same nonce as a different extrinsic already in
  the pool gives 1014.
- PeaqDid (pallet 100), as peaq-pallet-did at the genesis runtime (2022-10):
  add_attribute/update_attribute/read_attribute/remove_attribute, checked in that pallet's order:
  - the name may be at most 64 bytes (`AttributeNameExceedMax64`; read_attribute has no such check);
  - add needs the attribute to be absent (`AttributeAlreadyExist`), then makes the caller an owner
    of the DID;
  - update and remove need the caller to own the DID (`AttributeAuthorizationFailed`), then the
    attribute (`AttributeNotFound`);
  - valid_for None is u32::MAX; Some(n) is block + n, and overflow is `MaxBlockNumberExceeded`;
  - update keeps `created`, which is the including block's timestamp in ms.
  A dispatch error does not reject the extrinsic. It is included, the signer's nonce goes up, the
  DID storage stays as it was, and the block records `System.ExtrinsicFailed` with
  `DispatchError::Module{index: 100, error: [i, 0, 0, 0]}`. Other pallets' calls are rejected as
  "Transaction call is not expected".
- Storage, with a snapshot per block, so `state_getStorage(key, at)` answers at any block:
  - `PeaqDid.AttributeStore` (Blake2_128Concat of id = blake2_256(did_account ‖ name)) holds
    SCALE `Attribute{name, value, validity u32, created u64}`;
  - `PeaqDid.OwnerStore` has the key (owner, blake2_256(owner ‖ did_account)) and the value
    did_account;
  - `System.Account` holds the 80-byte AccountInfo (nonce, consumers, providers, sufficients,
    free, reserved, frozen, flags);
  - `System.Number`, `Timestamp.Now` and `System.Events` (SCALE EventRecords encoded by scalecodec
    from the metadata: the PeaqDid event, then ExtrinsicSuccess or ExtrinsicFailed; weight 0, no
    fee events).
  `--endow SS58=PLANCK` (repeatable) sets free balances in the genesis storage.
- Blocks. The header is parentHash, compact number, stateRoot, extrinsicsRoot and an empty digest.
  The block hash is blake2_256 of the SCALE header. Each accepted extrinsic is included alone in
  a new block: right away, or `--pool-ms` after submission. `--block-ms` also makes empty blocks
  on a timer. Each block is finalized `--finality-ms` after it was made, in order.
- JSON-RPC 2.0 over WebSocket, one object per text frame (no batches), with Substrate's result
  shapes. The methods are those of `rpc_methods`; `python peaq_test_node.py --list-methods` prints
  them. The watch statuses are "ready", {"inBlock": hash} and {"finalized": hash}. A pooled
  extrinsic that stops being valid before inclusion (its era expired) gets "invalid"; one left
  behind a nonce gap by that gets "dropped". The subscription ends after "finalized", "invalid" or
  "dropped". `author_unwatchExtrinsic` is true for any id the connection was given.
- Errors:
  - 1010 "Invalid Transaction", with data "Transaction has a bad signature" |
    "Transaction is outdated" | "Transaction will be valid in the future" |
    "Transaction has an ancient birth block" | "Transaction call is not expected" |
    "Could not decode: …";
  - 1011 "Unknown Transaction Validity", data "NoUnsignedValidator" (an unsigned extrinsic) or
    "CannotLookup" (an address that is not an Id);
  - 1013 "Transaction Already Imported" (the same bytes already in the pool);
  - 1014 "Priority is too low: (0 vs 0)" (another extrinsic with that nonce is in the pool);
  - 4003 "Client error: …" (an unknown block for state queries, an unsupported state_call);
  - -32601 for an unknown method, -32602 for bad params.
- `--state FILE`: JSON, written atomically (temp file, fsync, rename) after every change and read
  at start, so a node killed with SIGKILL and started again continues the same chain. The file
  holds:
  - the blocks: header fields, extrinsics, storage changes, and `events` including the
    `ExtrinsicFailed` records with their error names;
  - the finalized number;
  - `accounts` (nonce and free balance by SS58; informative, rebuilt from storage);
  - `submissions`: how many times each extrinsic hash was submitted, accepted or not.
  The pool is not saved. A state file's chain name, metadata and genesis storage win over the
  command line.
- `--crash-after-inclusions K`: once this process has included its K-th extrinsic, it saves the
  state and calls `os._exit(3)` before sending any status for that inclusion.

What it simplifies (do not rely on these)
- No fees and no deposits: balances never change. Tips are accepted and ignored.
- No trie. stateRoot is blake2_256 over the sorted storage items (compact-length-prefixed key and
  value pairs). extrinsicsRoot is blake2_256 over the concatenated extrinsics. The genesis
  stateRoot is derived from the chain name alone, so the genesis hash is the same in every run
  with the same `--chain-name`, whatever `--endow` says.
- No inherents: a block holds only the signed extrinsics. A block's timestamp is the wall clock in
  ms (at least the parent's + 1). Genesis has timestamp 0.
- An account is created with zero providers when a nonce is first bumped. There is no
  existential deposit and no BlockHashCount pruning: every block's hash stays usable as an era
  block.
- ecdsa signatures and addresses other than `Id` are not supported. Only the PeaqDid pallet
  dispatches.
- No forks, so there is no retracted, usurped or finalityTimeout. No peers, so there is no
  "broadcast". A "future" extrinsic is rejected instead of being queued.
"""

import argparse
import asyncio
import hashlib
import json
import logging
import os
import secrets
import string
import sys
import time
from dataclasses import dataclass, field

import ed25519_zebra
import sr25519
import xxhash
from scalecodec.base import RuntimeConfigurationObject, ScaleBytes
from scalecodec.type_registry import load_type_registry_preset
from scalecodec.utils.ss58 import ss58_decode, ss58_encode
from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosed

log = logging.getLogger("peaq-test-node")

U32_MAX = 2**32 - 1
SS58_FORMAT = 42
DEFAULT_METADATA = os.path.normpath(os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..",
    "Tests", "Fixtures", "substrate", "peaq-mainnet-genesis-v14.scale"))
STATE_FORMAT = "peaq-test-node-state/1"

# Substrate's InvalidTransaction texts (sp-runtime transaction_validity.rs).
BAD_PROOF = "Transaction has a bad signature"
STALE = "Transaction is outdated"
FUTURE = "Transaction will be valid in the future"
ANCIENT = "Transaction has an ancient birth block"
CALL = "Transaction call is not expected"

# peaq-pallet-did's Error enum, in order (the index is the ModuleError's first byte).
DID_ERRORS = ["AttributeNameExceedMax64", "AttributeAlreadyExist", "AttributeCreationFailed",
              "AttributeUpdateFailed", "AttributeNotFound", "AttributeAuthorizationFailed",
              "MaxBlockNumberExceeded", "InvalidSuppliedValue", "ParseError"]


# ---------------------------------------------------------------- hashing and SCALE helpers

def blake2_256(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=32).digest()


def blake2_128(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


def twox128(data: bytes) -> bytes:
    return b"".join(xxhash.xxh64(data, seed=seed).intdigest().to_bytes(8, "little") for seed in (0, 1))


def compact(n: int) -> bytes:
    if n < 1 << 6:
        return bytes([n << 2])
    if n < 1 << 14:
        return ((n << 2) | 1).to_bytes(2, "little")
    if n < 1 << 30:
        return ((n << 2) | 2).to_bytes(4, "little")
    raw = n.to_bytes((n.bit_length() + 7) // 8, "little")
    return bytes([((len(raw) - 4) << 2) | 3]) + raw


def read_compact(data: bytes, offset: int = 0) -> tuple[int, int]:
    """(value, offset after it)"""
    mode = data[offset] & 3
    if mode == 0:
        return data[offset] >> 2, offset + 1
    if mode == 1:
        return int.from_bytes(data[offset:offset + 2], "little") >> 2, offset + 2
    if mode == 2:
        return int.from_bytes(data[offset:offset + 4], "little") >> 2, offset + 4
    size = (data[offset] >> 2) + 4
    return int.from_bytes(data[offset + 1:offset + 1 + size], "little"), offset + 1 + size


def scale_bytes(b: bytes) -> bytes:
    return compact(len(b)) + b


def hx(b: bytes) -> str:
    return "0x" + b.hex()


def unhex(s: str) -> bytes:
    if not isinstance(s, str) or not s.startswith("0x"):
        raise ValueError(f"not a 0x-hex string: {s!r}")
    return bytes.fromhex(s[2:])


def storage_prefix(pallet: str, item: str) -> bytes:
    return twox128(pallet.encode()) + twox128(item.encode())


def blake2_128_concat_key(pallet: str, item: str, key: bytes) -> bytes:
    return storage_prefix(pallet, item) + blake2_128(key) + key


def account_key(account: bytes) -> bytes:
    return blake2_128_concat_key("System", "Account", account)


def attribute_id(did_account: bytes, name: bytes) -> bytes:
    return blake2_256(did_account + name)


def attribute_key(did_account: bytes, name: bytes) -> bytes:
    return blake2_128_concat_key("PeaqDid", "AttributeStore", attribute_id(did_account, name))


def owner_key(owner: bytes, did_account: bytes) -> bytes:
    return blake2_128_concat_key("PeaqDid", "OwnerStore", owner + blake2_256(owner + did_account))


NUMBER_KEY = storage_prefix("System", "Number")
EVENTS_KEY = storage_prefix("System", "Events")
NOW_KEY = storage_prefix("Timestamp", "Now")


def storage_root(storage: dict[bytes, bytes]) -> bytes:
    """Not a trie: blake2_256 over the sorted (key, value) pairs, each compact-length-prefixed."""
    return blake2_256(b"".join(scale_bytes(k) + scale_bytes(v) for k, v in sorted(storage.items())))


def account_of(address: str) -> bytes:
    """An SS58 address (any prefix) or 0x-hex AccountId32 as 32 bytes."""
    if isinstance(address, str) and address.startswith("0x"):
        raw = unhex(address)
    else:
        raw = bytes.fromhex(ss58_decode(address))
    if len(raw) != 32:
        raise ValueError("an account id has 32 bytes")
    return raw


@dataclass
class AccountInfo:
    nonce: int = 0
    consumers: int = 0
    providers: int = 0
    sufficients: int = 0
    free: int = 0
    reserved: int = 0
    frozen: int = 0
    flags: int = 0

    def encode(self) -> bytes:
        return (b"".join(x.to_bytes(4, "little") for x in (self.nonce, self.consumers, self.providers, self.sufficients))
                + b"".join(x.to_bytes(16, "little") for x in (self.free, self.reserved, self.frozen, self.flags)))

    @classmethod
    def decode(cls, b: bytes) -> "AccountInfo":
        ints = [int.from_bytes(b[i:i + 4], "little") for i in range(0, 16, 4)]
        bigs = [int.from_bytes(b[i:i + 16], "little") for i in range(16, 80, 16)]
        return cls(*ints, *bigs)

    @classmethod
    def load(cls, storage: dict[bytes, bytes], account: bytes) -> "AccountInfo":
        raw = storage.get(account_key(account))
        return cls.decode(raw) if raw else cls()


def encode_attribute(name: bytes, value: bytes, validity: int, created: int) -> bytes:
    return scale_bytes(name) + scale_bytes(value) + validity.to_bytes(4, "little") + created.to_bytes(8, "little")


def decode_attribute(b: bytes) -> dict:
    n, o = read_compact(b)
    name = b[o:o + n]
    o += n
    n, o = read_compact(b, o)
    value = b[o:o + n]
    o += n
    return {"name": name, "value": value, "validity": int.from_bytes(b[o:o + 4], "little"),
            "created": int.from_bytes(b[o + 4:o + 12], "little")}


class RpcError(Exception):
    def __init__(self, code: int, message: str, data=None):
        super().__init__(message)
        self.code, self.message, self.data = code, message, data

    def to_json(self) -> dict:
        err = {"code": self.code, "message": self.message}
        if self.data is not None:
            err["data"] = self.data
        return err


def invalid(reason: str) -> RpcError:
    return RpcError(1010, "Invalid Transaction", reason)


# ---------------------------------------------------------------- runtime (metadata)

@dataclass
class Extrinsic:
    raw: bytes
    hash: bytes
    signer: bytes
    sig_kind: str            # "Sr25519" | "Ed25519"
    signature: bytes
    era: object              # scalecodec GenericEra
    nonce: int
    tip: int
    call: bytes
    extra: bytes
    pallet: str
    function: str
    args: dict


class Runtime:
    """The metadata, scalecodec's decoder built from it, and the runtime version it declares."""

    def __init__(self, path: str):
        blob = open(path, "rb").read()
        if blob[:4] != b"meta" or blob[4] != 14:
            raise SystemExit(f"{path}: not V14 runtime metadata (magic 6d657461, version 0e)")
        self.blob = blob
        self.config = RuntimeConfigurationObject()
        self.config.update_type_registry(load_type_registry_preset("core"))
        self.metadata = self.config.create_scale_object("MetadataVersioned", data=ScaleBytes(blob))
        self.metadata.decode()
        self.config.add_portable_registry(self.metadata)
        v14 = self.metadata.value[1]["V14"]
        self.types = {t["id"]: t["type"] for t in v14["types"]["types"]}

        system = self.metadata.get_metadata_pallet("System")
        constant = next(c for c in system.value["constants"] if c["name"] == "Version")
        version_obj = self.config.create_scale_object(f"scale_info::{constant['type']}",
                                                      data=ScaleBytes(unhex(constant["value"])))
        self.version_scale = unhex(constant["value"])
        v = version_obj.decode()
        self.version = {"specName": v["spec_name"], "implName": v["impl_name"],
                        "authoringVersion": v["authoring_version"], "specVersion": v["spec_version"],
                        "implVersion": v["impl_version"], "apis": [],
                        "transactionVersion": v["transaction_version"], "stateVersion": v.get("state_version", 0)}

        self.extensions = []
        for ext in v14["extrinsic"]["signed_extensions"]:
            ident = ext["identifier"]
            if ident not in ("CheckSpecVersion", "CheckTxVersion", "CheckGenesis", "CheckMortality", "CheckEra") \
                    and not self._is_empty(ext["additional_signed"]):
                raise SystemExit(f"signed extension {ident} has additional signed data this node does not know")
            self.extensions.append(ident)

        did = self.metadata.get_metadata_pallet("PeaqDid")
        if did is None or did.value["index"] != 100:
            raise SystemExit("the metadata has no PeaqDid pallet at index 100")
        self.events_type = f"scale_info::{system.get_storage_function('Events').value['type']['Plain']}"

    def _is_empty(self, type_id: int) -> bool:
        definition = self.types[type_id]["def"]
        if "tuple" in definition:
            return all(self._is_empty(t) for t in definition["tuple"])
        if "composite" in definition:
            return all(self._is_empty(f["type"]) for f in definition["composite"]["fields"])
        return False

    def additional_signed(self, genesis: bytes, era_block: bytes) -> bytes:
        parts = {"CheckSpecVersion": self.version["specVersion"].to_bytes(4, "little"),
                 "CheckTxVersion": self.version["transactionVersion"].to_bytes(4, "little"),
                 "CheckGenesis": genesis, "CheckMortality": era_block, "CheckEra": era_block}
        return b"".join(parts.get(ident, b"") for ident in self.extensions)

    def decode_extrinsic(self, raw: bytes) -> Extrinsic:
        """Decodes a signed extrinsic (with its compact length prefix); RpcError if it cannot."""
        try:
            length, body_at = read_compact(raw)
            if length != len(raw) - body_at:
                raise ValueError(f"length prefix {length}, body {len(raw) - body_at} bytes")
            obj = self.config.create_scale_object("Extrinsic", data=ScaleBytes(bytearray(raw)), metadata=self.metadata)
            obj.decode()
        except Exception as e:  # scalecodec raises many kinds
            raise invalid(f"Could not decode: {e}") from None
        if raw[body_at] & 0x7F != 4:
            raise invalid(f"Could not decode: extrinsic version {raw[body_at] & 0x7F}")
        fields = obj.value_object
        if "signature" not in fields:
            raise RpcError(1011, "Unknown Transaction Validity", "NoUnsignedValidator")
        address_kind, address = fields["address"].value_object
        if address_kind != "Id":
            raise RpcError(1011, "Unknown Transaction Validity", "CannotLookup")
        sig_kind, sig = fields["signature"].value_object
        call_obj = fields["call"]
        call = bytes(call_obj.get_used_bytes())
        extra_at = body_at + 1 + len(fields["address"].get_used_bytes()) + len(fields["signature"].get_used_bytes())
        if not raw.endswith(call):
            raise invalid("Could not decode: the call is not at the end")
        era = self.config.create_scale_object("Era", data=ScaleBytes(bytearray(fields["era"].get_used_bytes())))
        era.decode()
        args = {}
        for f in call_obj.call_args:
            value = f.value_object["value"]
            if isinstance(value.value_object, (bytes, bytearray)):
                args[f.value["name"]] = bytes(value.value_object)
            elif f.value["name"] == "did_account":
                args["did_account"] = unhex(value.value)
            else:
                args[f.value["name"]] = value.value
        return Extrinsic(raw=raw, hash=blake2_256(raw), signer=unhex(address.value), sig_kind=sig_kind,
                         signature=unhex(sig.value), era=era, nonce=fields["nonce"].value,
                         tip=fields["tip"].value, call=call, extra=raw[extra_at:len(raw) - len(call)],
                         pallet=call_obj.call_module.name, function=call_obj.call_function.name, args=args)

    def encode_events(self, records: list) -> bytes:
        obj = self.config.create_scale_object(self.events_type)
        return bytes(obj.encode(records).data)


def verify_signature(xt: Extrinsic, message: bytes) -> bool:
    try:
        if xt.sig_kind == "Sr25519":
            return sr25519.verify(xt.signature, message, xt.signer)
        if xt.sig_kind == "Ed25519":
            return ed25519_zebra.ed_verify(xt.signature, message, xt.signer)
    except (ValueError, TypeError):
        return False
    return False  # ecdsa: not supported by this test node


# ---------------------------------------------------------------- chain

@dataclass
class Block:
    number: int
    parent_hash: bytes
    state_root: bytes
    extrinsics_root: bytes
    timestamp: int
    extrinsics: list
    events: list
    changes: dict            # key -> value or None (deleted), relative to the parent's storage
    hash: bytes = b""

    def header_scale(self) -> bytes:
        return self.parent_hash + compact(self.number) + self.state_root + self.extrinsics_root + compact(0)

    def header_json(self) -> dict:
        return {"parentHash": hx(self.parent_hash), "number": hex(self.number), "stateRoot": hx(self.state_root),
                "extrinsicsRoot": hx(self.extrinsics_root), "digest": {"logs": []}}

    def to_json(self) -> dict:
        return {"number": self.number, "hash": hx(self.hash), "parentHash": hx(self.parent_hash),
                "stateRoot": hx(self.state_root), "extrinsicsRoot": hx(self.extrinsics_root),
                "timestamp": self.timestamp, "extrinsics": [hx(x) for x in self.extrinsics], "events": self.events,
                "changes": {hx(k): (hx(v) if v is not None else None) for k, v in sorted(self.changes.items())}}

    @classmethod
    def from_json(cls, d: dict) -> "Block":
        return cls(number=d["number"], parent_hash=unhex(d["parentHash"]), state_root=unhex(d["stateRoot"]),
                   extrinsics_root=unhex(d["extrinsicsRoot"]), timestamp=d["timestamp"],
                   extrinsics=[unhex(x) for x in d["extrinsics"]], events=d["events"],
                   changes={unhex(k): (unhex(v) if v is not None else None) for k, v in d["changes"].items()},
                   hash=unhex(d["hash"]))


@dataclass
class PoolEntry:
    xt: Extrinsic
    ready_at: float                  # monotonic seconds
    announced: bool                  # "ready" sent (or nothing to send): may be included
    watchers: list = field(default_factory=list)    # (Connection, subscription id)


class Chain:
    def __init__(self, runtime: Runtime, args):
        self.runtime = runtime
        self.args = args
        self.blocks: list[Block] = []
        self.by_hash: dict[bytes, int] = {}
        self.snapshots: list[dict[bytes, bytes]] = []
        self.finalized = 0
        self.submissions: dict[str, int] = {}
        self.pool: list[PoolEntry] = []
        self.included_here = 0
        self.block_watchers: dict[int, list] = {}  # block number -> [(conn, sub id)] waiting for finality
        self.wakeup = asyncio.Event()
        self.last_block_at = time.monotonic()
        self.server = None  # set by the server: notifications
        self.metadata_hash = hashlib.sha256(runtime.blob).hexdigest()
        if args.state and os.path.exists(args.state):
            self._load(args.state)
        else:
            self._genesis()
            self.persist()

    # ---- genesis, load, persist

    def _genesis(self):
        storage = {NUMBER_KEY: (0).to_bytes(4, "little"), NOW_KEY: (0).to_bytes(8, "little")}
        for spec in self.args.endow:
            address, _, planck = spec.partition("=")
            account = account_of(address)
            info = AccountInfo.load(storage, account)
            info.free, info.providers = int(planck), 1
            storage[account_key(account)] = info.encode()
        genesis = Block(number=0, parent_hash=bytes(32),
                        state_root=blake2_256(b"peaq-test-node genesis state:" + self.args.chain_name.encode()),
                        extrinsics_root=blake2_256(b""), timestamp=0, extrinsics=[], events=[],
                        changes=dict(storage))
        genesis.hash = blake2_256(genesis.header_scale())
        self._append(genesis, storage)
        log.info("genesis %s (%s)", hx(genesis.hash), self.args.chain_name)

    def _load(self, path: str):
        with open(path) as f:
            state = json.load(f)
        if state.get("format") != STATE_FORMAT:
            raise SystemExit(f"{path}: not a {STATE_FORMAT} file")
        if state["chain_name"] != self.args.chain_name:
            log.warning("state file chain name %r wins over --chain-name %r", state["chain_name"], self.args.chain_name)
            self.args.chain_name = state["chain_name"]
        if state["metadata_sha256"] != self.metadata_hash:
            raise SystemExit(f"{path} was made with other metadata")
        storage: dict[bytes, bytes] = {}
        for d in state["blocks"]:
            block = Block.from_json(d)
            for k, v in block.changes.items():
                if v is None:
                    storage.pop(k, None)
                else:
                    storage[k] = v
            if block.number != len(self.blocks):
                raise SystemExit(f"{path}: block {block.number} out of order")
            if block.number > 0 and (block.parent_hash != self.blocks[-1].hash or block.state_root != storage_root(storage)):
                raise SystemExit(f"{path}: block {block.number} does not follow from its parent")
            if blake2_256(block.header_scale()) != block.hash:
                raise SystemExit(f"{path}: block {block.number} hash mismatch")
            self._append(block, dict(storage))
        self.finalized = state["finalized"]
        self.submissions = state["submissions"]
        log.info("loaded %s: best #%d, finalized #%d, genesis %s", path, len(self.blocks) - 1, self.finalized,
                 hx(self.blocks[0].hash))

    def _append(self, block: Block, storage: dict):
        self.blocks.append(block)
        self.by_hash[block.hash] = block.number
        self.snapshots.append(storage)

    def persist(self):
        if not self.args.state:
            return
        storage = self.snapshots[-1]
        accounts = {}
        prefix = storage_prefix("System", "Account")
        for k, v in storage.items():
            if k.startswith(prefix):
                info = AccountInfo.decode(v)
                accounts[ss58_encode(k[-32:], SS58_FORMAT)] = {"nonce": info.nonce, "free": str(info.free)}
        state = {"format": STATE_FORMAT, "chain_name": self.args.chain_name, "metadata_sha256": self.metadata_hash,
                 "genesis_hash": hx(self.blocks[0].hash), "best": len(self.blocks) - 1, "finalized": self.finalized,
                 "accounts": accounts, "submissions": self.submissions,
                 "blocks": [b.to_json() for b in self.blocks]}
        tmp = f"{self.args.state}.tmp.{os.getpid()}"
        with open(tmp, "w") as f:
            json.dump(state, f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.args.state)

    # ---- reading

    @property
    def best(self) -> Block:
        return self.blocks[-1]

    def block_at(self, at) -> int:
        """The block number for an optional `at` hash; RpcError if unknown."""
        if at is None:
            return self.best.number
        try:
            return self.by_hash[unhex(at)]
        except (KeyError, ValueError):
            raise RpcError(4003, f"Client error: UnknownBlock: Header was not found in the database: {at}") from None

    def next_index(self, account: bytes) -> int:
        nonce = AccountInfo.load(self.snapshots[-1], account).nonce
        return nonce + sum(1 for e in self.pool if e.xt.signer == account)

    # ---- validation

    def era_block_hash(self, xt: Extrinsic, number: int) -> bytes:
        if xt.era.is_immortal():
            return self.blocks[0].hash
        birth = xt.era.birth(number)
        if birth >= len(self.blocks):
            raise invalid(ANCIENT)
        return self.blocks[birth].hash

    def signature_ok(self, xt: Extrinsic, era_hash: bytes) -> bool:
        payload = xt.call + xt.extra + self.runtime.additional_signed(self.blocks[0].hash, era_hash)
        if len(payload) > 256:
            payload = blake2_256(payload)
        return verify_signature(xt, payload)

    def validate(self, xt: Extrinsic):
        """Checks `xt` for inclusion in the next block (era, signature, call, nonce not stale)."""
        number = self.best.number + 1
        era_hash = self.era_block_hash(xt, number)
        if not self.signature_ok(xt, era_hash):
            if not xt.era.is_immortal():
                birth = xt.era.birth(number)
                for k in range(1, 65):
                    earlier = birth - k * xt.era.period
                    if earlier < 0:
                        break
                    if self.signature_ok(xt, self.blocks[earlier].hash):
                        raise invalid(ANCIENT)
            raise invalid(BAD_PROOF)
        if xt.pallet != "PeaqDid":
            raise invalid(CALL)
        if xt.nonce < AccountInfo.load(self.snapshots[-1], xt.signer).nonce:
            raise invalid(STALE)

    def submit(self, raw: bytes, watcher_conn=None) -> PoolEntry:
        """Pool admission. Raises RpcError; returns the new pool entry."""
        xt_hash = hx(blake2_256(raw))
        self.submissions[xt_hash] = self.submissions.get(xt_hash, 0) + 1
        self.persist()
        if any(hx(e.xt.hash) == xt_hash for e in self.pool):
            raise RpcError(1013, "Transaction Already Imported")
        xt = self.runtime.decode_extrinsic(raw)
        self.validate(xt)
        next_index = self.next_index(xt.signer)
        if xt.nonce > next_index:
            raise invalid(FUTURE)
        if xt.nonce < next_index:
            raise RpcError(1014, "Priority is too low: (0 vs 0)",
                           "The transaction has too low priority to replace another transaction already in the pool.")
        entry = PoolEntry(xt=xt, ready_at=time.monotonic() + self.args.pool_ms / 1000, announced=watcher_conn is None)
        self.pool.append(entry)
        log.info("pooled %s from %s nonce %d (%s.%s)", xt_hash, ss58_encode(xt.signer, SS58_FORMAT), xt.nonce,
                 xt.pallet, xt.function)
        return entry

    # ---- block production

    def apply_did(self, storage: dict, signer: bytes, function: str, args: dict, number: int, now: int):
        """peaq-pallet-did (2022-10) dispatch: (event name, event fields) or raises ValueError(error name)."""
        did, name = args["did_account"], args["name"]
        if function != "read_attribute" and len(name) > 64:
            raise ValueError("AttributeNameExceedMax64")

        def validity():
            if args["valid_for"] is None:
                return U32_MAX
            if number + args["valid_for"] > U32_MAX:
                raise ValueError("MaxBlockNumberExceeded")
            return number + args["valid_for"]

        key = attribute_key(did, name)
        if function == "add_attribute":
            if key in storage:
                raise ValueError("AttributeAlreadyExist")
            storage[key] = encode_attribute(name, args["value"], validity(), now)
            storage[owner_key(signer, did)] = did
            return "AttributeAdded", [hx(signer), hx(did), hx(name), hx(args["value"]), args["valid_for"]]
        if function == "read_attribute":
            if key not in storage:
                raise ValueError("AttributeNotFound")
            a = decode_attribute(storage[key])
            return "AttributeRead", {"name": hx(a["name"]), "value": hx(a["value"]), "validity": a["validity"],
                                     "created": a["created"]}
        if owner_key(signer, did) not in storage:
            raise ValueError("AttributeAuthorizationFailed")
        if function == "update_attribute":
            new_validity = validity()
            if key not in storage:
                raise ValueError("AttributeNotFound")
            created = decode_attribute(storage[key])["created"]
            storage[key] = encode_attribute(name, args["value"], new_validity, created)
            return "AttributeUpdated", [hx(signer), hx(did), hx(name), hx(args["value"]), args["valid_for"]]
        if function == "remove_attribute":
            if key not in storage:
                raise ValueError("AttributeNotFound")
            del storage[key]
            return "AttributeRemoved", [hx(signer), hx(did), hx(name)]
        raise ValueError("ParseError")

    def make_block(self, entries: list[PoolEntry]) -> Block:
        parent = self.best
        number = parent.number + 1
        now = max(int(time.time() * 1000), parent.timestamp + 1)
        storage = dict(self.snapshots[-1])
        events, records = [], []
        for index, entry in enumerate(entries):
            xt = entry.xt
            info = AccountInfo.load(storage, xt.signer)
            info.nonce += 1
            storage[account_key(xt.signer)] = info.encode()
            scratch = dict(storage)
            dispatch_info = {"weight": {"ref_time": 0}, "class": "Normal", "pays_fee": "Yes"}
            try:
                event, event_fields = self.apply_did(scratch, xt.signer, xt.function, xt.args, number, now)
            except ValueError as e:
                error = str(e)
                events.append({"extrinsic_index": index, "extrinsic_hash": hx(xt.hash), "event": "ExtrinsicFailed",
                               "module": "PeaqDid", "error": error, "call": f"{xt.pallet}.{xt.function}"})
                records.append({"phase": {"ApplyExtrinsic": index}, "topics": [], "event": {"System": {
                    "ExtrinsicFailed": {"dispatch_error": {"Module": {"index": 100, "error": hx(bytes([DID_ERRORS.index(error), 0, 0, 0]))}},
                                        "dispatch_info": dispatch_info}}}})
                log.info("#%d %s: ExtrinsicFailed PeaqDid.%s", number, hx(xt.hash), error)
                continue
            storage = scratch
            events.append({"extrinsic_index": index, "extrinsic_hash": hx(xt.hash), "event": "ExtrinsicSuccess",
                           "pallet_event": f"PeaqDid.{event}", "call": f"{xt.pallet}.{xt.function}"})
            records.append({"phase": {"ApplyExtrinsic": index}, "topics": [], "event": {"PeaqDid": {event: event_fields}}})
            records.append({"phase": {"ApplyExtrinsic": index}, "topics": [],
                            "event": {"System": {"ExtrinsicSuccess": {"dispatch_info": dispatch_info}}}})
            log.info("#%d %s: PeaqDid.%s", number, hx(xt.hash), event)
        storage[NUMBER_KEY] = number.to_bytes(4, "little")
        storage[NOW_KEY] = now.to_bytes(8, "little")
        storage[EVENTS_KEY] = self.runtime.encode_events(records)
        before = self.snapshots[-1]
        changes = {k: v for k, v in storage.items() if before.get(k) != v}
        changes.update({k: None for k in before if k not in storage})
        extrinsics = [e.xt.raw for e in entries]
        block = Block(number=number, parent_hash=parent.hash, state_root=storage_root(storage),
                      extrinsics_root=blake2_256(b"".join(extrinsics)), timestamp=now, extrinsics=extrinsics,
                      events=events, changes=changes)
        block.hash = blake2_256(block.header_scale())
        self._append(block, storage)
        self.persist()
        log.info("block #%d %s (%d extrinsics)", number, hx(block.hash), len(extrinsics))
        if entries:
            self.included_here += len(entries)
            if self.args.crash_after_inclusions and self.included_here >= self.args.crash_after_inclusions:
                log.warning("--crash-after-inclusions %d reached: exiting with status 3", self.args.crash_after_inclusions)
                logging.shutdown()
                os._exit(3)
        return block

    def next_includable(self, now: float):
        """The first pool entry that may go into a block now; drops entries that became invalid."""
        for entry in list(self.pool):
            if not entry.announced or entry.ready_at > now:
                continue
            try:
                self.validate(entry.xt)
            except RpcError as e:
                self.pool.remove(entry)
                log.info("dropping %s from the pool: %s", hx(entry.xt.hash), e.data)
                return ("invalid", entry)
            account_nonce = AccountInfo.load(self.snapshots[-1], entry.xt.signer).nonce
            if entry.xt.nonce == account_nonce:
                return ("include", entry)
            waiting_before = sum(1 for e in self.pool if e.xt.signer == entry.xt.signer and e.xt.nonce < entry.xt.nonce)
            if entry.xt.nonce > account_nonce + waiting_before:
                self.pool.remove(entry)
                log.info("dropping %s from the pool: a nonce gap (an earlier one was invalid)", hx(entry.xt.hash))
                return ("dropped", entry)
        return None

    def next_wake(self, now: float):
        times = [e.ready_at for e in self.pool if e.announced]
        if self.args.block_ms:
            times.append(self.last_block_at + self.args.block_ms / 1000)
        return min(times) - now if times else None

    async def produce(self):
        """The block author: one block per includable extrinsic, plus empty blocks every --block-ms."""
        self.last_block_at = time.monotonic()
        loop = asyncio.get_running_loop()
        for number in range(self.finalized + 1, len(self.blocks)):
            loop.call_later(self.args.finality_ms / 1000, self.finalize, number)
        while True:
            now = time.monotonic()
            found = self.next_includable(now)
            if found and found[0] in ("invalid", "dropped"):
                for conn, sub in found[1].watchers:
                    await conn.notify("author_extrinsicUpdate", sub, found[0], final=True)
                continue
            if found:
                entry = found[1]
                self.pool.remove(entry)
                block = self.make_block([entry])
                self.last_block_at = time.monotonic()
                await self.server.new_block(block)
                for conn, sub in entry.watchers:
                    if conn.watching(sub):
                        await conn.notify("author_extrinsicUpdate", sub, {"inBlock": hx(block.hash)})
                        self.block_watchers.setdefault(block.number, []).append((conn, sub))
                loop.call_later(self.args.finality_ms / 1000, self.finalize, block.number)
                continue
            if self.args.block_ms and now - self.last_block_at >= self.args.block_ms / 1000:
                block = self.make_block([])
                self.last_block_at = time.monotonic()
                await self.server.new_block(block)
                loop.call_later(self.args.finality_ms / 1000, self.finalize, block.number)
                continue
            self.wakeup.clear()
            try:
                await asyncio.wait_for(self.wakeup.wait(), timeout=self.next_wake(now))
            except asyncio.TimeoutError:
                pass

    def finalize(self, number: int):
        if number <= self.finalized:
            return
        newly = list(range(self.finalized + 1, number + 1))
        self.finalized = number
        self.persist()
        asyncio.get_running_loop().create_task(self._announce_finalized(newly))

    async def _announce_finalized(self, numbers: list[int]):
        for n in numbers:
            block = self.blocks[n]
            log.info("finalized #%d %s", n, hx(block.hash))
            for conn, sub in self.block_watchers.pop(n, []):
                if conn.watching(sub):
                    await conn.notify("author_extrinsicUpdate", sub, {"finalized": hx(block.hash)}, final=True)
            await self.server.finalized_block(block)


# ---------------------------------------------------------------- JSON-RPC server

class Connection:
    def __init__(self, ws):
        self.ws = ws
        self.subscriptions: dict[str, str] = {}   # id -> kind
        self.issued: set[str] = set()             # every id given out on this connection

    def watching(self, sub: str) -> bool:
        return sub in self.subscriptions

    async def send(self, obj: dict):
        try:
            await self.ws.send(json.dumps(obj))
        except ConnectionClosed:
            pass

    async def notify(self, method: str, sub: str, result, final: bool = False):
        if sub not in self.subscriptions:
            return
        if final:
            del self.subscriptions[sub]
        await self.send({"jsonrpc": "2.0", "method": method, "params": {"subscription": sub, "result": result}})


@dataclass
class Subscribed:
    """A subscribe method's answer: the id to send, then `after()` (its first notification)."""
    id: str
    after: object


def new_subscription_id() -> str:
    return "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(16))


class Server:
    SUBSCRIPTIONS = {  # subscribe method -> (kind, notification method, unsubscribe method)
        "chain_subscribeNewHeads": ("newHeads", "chain_newHead", "chain_unsubscribeNewHeads"),
        "chain_subscribeAllHeads": ("allHeads", "chain_allHead", "chain_unsubscribeAllHeads"),
        "chain_subscribeFinalizedHeads": ("finalizedHeads", "chain_finalizedHead", "chain_unsubscribeFinalizedHeads"),
    }

    def __init__(self, chain):
        self.chain = chain
        if chain is not None:
            chain.server = self
        self.connections: set[Connection] = set()
        self.methods = {
            "rpc_methods": self.rpc_methods,
            "system_chain": lambda c, p: self.chain.args.chain_name,
            "system_name": lambda c, p: "peaq-test-node",
            "system_version": lambda c, p: "0.1.0-test-double",
            "system_chainType": lambda c, p: "Development",
            "system_properties": lambda c, p: {"ss58Format": SS58_FORMAT, "tokenDecimals": 18, "tokenSymbol": "PEAQ"},
            "system_health": lambda c, p: {"peers": 0, "isSyncing": False, "shouldHavePeers": False},
            "system_accountNextIndex": self.account_next_index,
            "chain_getBlockHash": self.get_block_hash,
            "chain_getHead": self.get_block_hash,
            "chain_getHeader": self.get_header,
            "chain_getBlock": self.get_block,
            "chain_getFinalizedHead": lambda c, p: hx(self.chain.blocks[self.chain.finalized].hash),
            "chain_getFinalisedHead": lambda c, p: hx(self.chain.blocks[self.chain.finalized].hash),
            "chain_getRuntimeVersion": lambda c, p: self.chain.runtime.version,
            "state_getRuntimeVersion": lambda c, p: self.chain.runtime.version,
            "state_getMetadata": self.get_metadata,
            "state_getStorage": self.get_storage,
            "state_getStorageHash": self.get_storage_hash,
            "state_getStorageSize": self.get_storage_size,
            "state_queryStorageAt": self.query_storage_at,
            "state_getKeysPaged": self.get_keys_paged,
            "state_call": self.state_call,
            "author_submitExtrinsic": self.submit_extrinsic,
            "author_submitAndWatchExtrinsic": self.submit_and_watch,
            "author_unwatchExtrinsic": self.unsubscribe,
            "author_pendingExtrinsics": lambda c, p: [hx(e.xt.raw) for e in self.chain.pool],
        }
        for subscribe, (kind, notification, unsubscribe) in self.SUBSCRIPTIONS.items():
            self.methods[subscribe] = self._head_subscriber(kind, notification)
            self.methods[unsubscribe] = self.unsubscribe

    # ---- transport

    async def handle(self, ws):
        conn = Connection(ws)
        self.connections.add(conn)
        try:
            async for message in ws:
                await self.handle_message(conn, message)
        except ConnectionClosed:
            pass
        finally:
            self.connections.discard(conn)
            conn.subscriptions.clear()

    async def handle_message(self, conn: Connection, message):
        try:
            request = json.loads(message)
        except (ValueError, TypeError):
            await conn.send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
            return
        if not isinstance(request, dict) or not isinstance(request.get("method"), str):
            await conn.send({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid request"}})
            return
        request_id, method = request.get("id"), request["method"]
        params = request.get("params") or []
        handler = self.methods.get(method)
        log.debug("rpc %s %s", method, json.dumps(params)[:200])
        after = None
        try:
            if handler is None:
                log.info("unknown method %s", method)
                raise RpcError(-32601, "Method not found")
            if not isinstance(params, list):
                raise RpcError(-32602, "Invalid params", "positional params only")
            result = handler(conn, params)
            if isinstance(result, Subscribed):
                result, after = result.id, result.after
            response = {"jsonrpc": "2.0", "id": request_id, "result": result}
        except RpcError as e:
            response = {"jsonrpc": "2.0", "id": request_id, "error": e.to_json()}
            log.debug("%s -> error %s", method, e.to_json())
        except (ValueError, TypeError, IndexError, KeyError) as e:
            response = {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32602, "message": "Invalid params", "data": str(e)}}
        except Exception as e:  # a bug here must not drop the connection
            log.exception("%s failed", method)
            response = {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32603, "message": "Internal error", "data": str(e)}}
        await conn.send(response)
        if after is not None:
            await after()

    # ---- notifications from the chain

    async def new_block(self, block: Block):
        for conn in list(self.connections):
            for sub, kind in list(conn.subscriptions.items()):
                if kind in ("newHeads", "allHeads"):
                    method = "chain_newHead" if kind == "newHeads" else "chain_allHead"
                    await conn.notify(method, sub, block.header_json())

    async def finalized_block(self, block: Block):
        for conn in list(self.connections):
            for sub, kind in list(conn.subscriptions.items()):
                if kind == "finalizedHeads":
                    await conn.notify("chain_finalizedHead", sub, block.header_json())

    # ---- methods

    def rpc_methods(self, conn, params):
        return {"methods": sorted(self.methods)}

    def account_next_index(self, conn, params):
        return self.chain.next_index(account_of(params[0]))

    def get_block_hash(self, conn, params):
        def one(n):
            if n is None:
                return hx(self.chain.best.hash)
            if isinstance(n, str):
                n = int(n, 16) if n.startswith("0x") else int(n)
            if not isinstance(n, int) or isinstance(n, bool) or n < 0:
                raise RpcError(-32602, "Invalid params", "a block number")
            return hx(self.chain.blocks[n].hash) if n < len(self.chain.blocks) else None
        arg = params[0] if params else None
        return [one(n) for n in arg] if isinstance(arg, list) else one(arg)

    def _known(self, params):
        at = params[0] if params else None
        if at is None:
            return self.chain.best
        try:
            return self.chain.blocks[self.chain.by_hash[unhex(at)]]
        except (KeyError, ValueError):
            return None

    def get_header(self, conn, params):
        block = self._known(params)
        return block.header_json() if block else None

    def get_block(self, conn, params):
        block = self._known(params)
        if block is None:
            return None
        return {"block": {"header": block.header_json(), "extrinsics": [hx(x) for x in block.extrinsics]},
                "justifications": None}

    def get_metadata(self, conn, params):
        self.chain.block_at(params[0] if params else None)
        return hx(self.chain.runtime.blob)

    def _storage(self, params, at_index=1):
        number = self.chain.block_at(params[at_index] if len(params) > at_index else None)
        return self.chain.snapshots[number], number

    def get_storage(self, conn, params):
        storage, _ = self._storage(params)
        value = storage.get(unhex(params[0]))
        return hx(value) if value is not None else None

    def get_storage_hash(self, conn, params):
        storage, _ = self._storage(params)
        value = storage.get(unhex(params[0]))
        return hx(blake2_256(value)) if value is not None else None

    def get_storage_size(self, conn, params):
        storage, _ = self._storage(params)
        value = storage.get(unhex(params[0]))
        return len(value) if value is not None else None

    def query_storage_at(self, conn, params):
        storage, number = self._storage(params)
        changes = []
        for key in params[0]:
            value = storage.get(unhex(key))
            changes.append([key, hx(value) if value is not None else None])
        return [{"block": hx(self.chain.blocks[number].hash), "changes": changes}]

    def get_keys_paged(self, conn, params):
        prefix = unhex(params[0]) if params and params[0] else b""
        count = params[1]
        start = unhex(params[2]) if len(params) > 2 and params[2] else b""
        storage, _ = self._storage(params, at_index=3)
        keys = sorted(k for k in storage if k.startswith(prefix) and k > start)
        return [hx(k) for k in keys[:count]]

    def state_call(self, conn, params):
        method, data = params[0], unhex(params[1])
        storage, _ = self._storage(params, at_index=2)
        runtime = self.chain.runtime
        if method == "AccountNonceApi_account_nonce":
            return hx(AccountInfo.load(storage, data[:32]).nonce.to_bytes(4, "little"))
        if method == "Core_version":
            return hx(runtime.version_scale)
        if method == "Metadata_metadata":
            return hx(scale_bytes(runtime.blob))
        if method == "Metadata_metadata_versions":
            return hx(compact(1) + (14).to_bytes(4, "little"))
        if method == "Metadata_metadata_at_version":
            version = int.from_bytes(data[:4], "little")
            return hx(b"\x01" + scale_bytes(runtime.blob)) if version == 14 else "0x00"
        raise RpcError(4003, f"Client error: Execution failed: Other: Exported method {method} is not found")

    def submit_extrinsic(self, conn, params):
        entry = self.chain.submit(unhex(params[0]))
        self.chain.wakeup.set()
        return hx(entry.xt.hash)

    def submit_and_watch(self, conn, params):
        entry = self.chain.submit(unhex(params[0]), watcher_conn=conn)
        sub = new_subscription_id()
        conn.subscriptions[sub] = "extrinsic"
        conn.issued.add(sub)
        entry.watchers.append((conn, sub))

        async def after():
            await conn.notify("author_extrinsicUpdate", sub, "ready")
            entry.announced = True
            self.chain.wakeup.set()
        return Subscribed(sub, after)

    def _head_subscriber(self, kind: str, notification: str):
        def subscribe(conn, params):
            sub = new_subscription_id()
            conn.subscriptions[sub] = kind
            conn.issued.add(sub)
            chain = self.chain
            block = chain.blocks[chain.finalized] if kind == "finalizedHeads" else chain.best

            async def after():  # Substrate sends the current head first
                await conn.notify(notification, sub, block.header_json())
            return Subscribed(sub, after)
        return subscribe

    def unsubscribe(self, conn, params):
        """true for any id this connection was given, also one that has ended (after "finalized")."""
        conn.subscriptions.pop(params[0], None)
        return params[0] in conn.issued


# ---------------------------------------------------------------- main

def parse_args(argv=None):
    p = argparse.ArgumentParser(description="peaq JSON-RPC test node (a test double, not a real node)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=9944, help="0 picks a free port")
    p.add_argument("--state", help="JSON state file, loaded at start and rewritten after every change")
    p.add_argument("--chain-name", default="peaq test node", help="system_chain; determines the genesis hash")
    p.add_argument("--metadata", default=DEFAULT_METADATA, help="V14 runtime metadata (raw SCALE)")
    p.add_argument("--endow", action="append", default=[], metavar="SS58=PLANCK", help="genesis free balance")
    p.add_argument("--finality-ms", type=int, default=300)
    p.add_argument("--pool-ms", type=int, default=0, help="time an accepted extrinsic waits in the pool")
    p.add_argument("--block-ms", type=int, default=0, help="also make empty blocks this often (0: off)")
    p.add_argument("--crash-after-inclusions", type=int, default=0, metavar="K",
                   help="exit with status 3 right after including this process's K-th extrinsic")
    p.add_argument("--log-level", default="INFO")
    p.add_argument("--list-methods", action="store_true", help="print the JSON-RPC methods and exit")
    args = p.parse_args(argv)
    for spec in args.endow:
        address, sep, planck = spec.partition("=")
        try:
            account_of(address)
            if not sep or int(planck) < 0:
                raise ValueError
        except ValueError:
            p.error(f"--endow {spec!r}: want SS58=PLANCK")
    return args


async def run(args):
    runtime = Runtime(args.metadata)
    chain = Chain(runtime, args)
    Server(chain)
    async with serve(chain.server.handle, args.host, args.port, max_size=16 * 2**20, ping_interval=None,
                     compression=None) as ws_server:
        port = ws_server.sockets[0].getsockname()[1]
        print(f"peaq-test-node listening on ws://{args.host}:{port}", flush=True)
        log.info("spec %s/%d tx %d, genesis %s, best #%d", runtime.version["specName"], runtime.version["specVersion"],
                 runtime.version["transactionVersion"], hx(chain.blocks[0].hash), chain.best.number)
        await chain.produce()


def main(argv=None):
    args = parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=args.log_level.upper(),
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    if logging.getLogger().level > logging.DEBUG:
        logging.getLogger("websockets").setLevel(logging.WARNING)
    if args.list_methods:
        print("\n".join(sorted(Server(None).methods)))
        return
    try:
        asyncio.run(run(args))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
