#!/usr/bin/env python3
"""Self-check of the peaq JSON-RPC test node (peaq_test_node.py), driven by an independent client.

    /tmp/node-venv/bin/python tools/substrate/node_selfcheck.py

(the venv from tools/substrate/requirements-node.txt). It starts the node as a subprocess on a
free port with a temporary `--state` file and talks to it with substrate-interface 1.8.1, plus
raw websocket-client frames where the exact JSON-RPC exchange matters. Storage keys, header
hashes and signing payloads are also computed here from hashlib and xxhash, not taken from the
node. Prints `ok - …` or `FAIL - …` for each check and a closing `N passed, M failed`; exits 0
only if every check passed.

Nodes started:
1. The main node (`--endow`):
   - chain, runtime version and genesis;
   - add, update, remove and read as the owner, each signed by //Alice with a mortal era and
     followed to finality;
   - the attribute read back through substrate-interface's query, raw state_getStorage and
     state_queryStorageAt;
   - dispatch errors: //Bob's update, a missing attribute, a 65-byte name, valid_for overflow.
     Each is included with ExtrinsicFailed in System.Events and in the state file, and the
     storage is left unchanged;
   - pool errors: a bad signature, a wrong genesis and a wrong spec version in a hand-made
     payload (next to a right-payload control), stale and future nonces, the same bytes again;
   - an ed25519 signer;
   - System.Account of endowed accounts;
   - the block and header shapes;
   - kill -9 and a restart on the same port and state: same chain, nonces go on.
2. `--pool-ms 1500`: 1013 while pooled, 1014 for another extrinsic with the same nonce, the
   pool-aware system_accountNextIndex, the watch statuses in order, then "outdated", and the
   `submissions` counts in the state file.
3. `--crash-after-inclusions 1`: the watcher sees only "ready", the process exits with status 3,
   and after a restart on the same state the block is there and the same bytes are "outdated".
4. `--block-ms 100 --pool-ms 1500`: new and finalized head subscriptions; a mortal era that expired is "ancient birth block", one that
   expires in the pool gets "invalid" (and the extrinsic with the next nonce "dropped"), a live
   one is included.
"""

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

import xxhash
from scalecodec.base import RuntimeConfigurationObject, ScaleBytes
from scalecodec.type_registry import load_type_registry_preset
from substrateinterface import Keypair, KeypairType, SubstrateInterface
from substrateinterface.exceptions import SubstrateRequestException
from websocket import create_connection

HERE = os.path.dirname(os.path.abspath(__file__))
NODE = os.path.join(HERE, "peaq_test_node.py")
METADATA = os.path.normpath(os.path.join(HERE, "..", "..", "Tests", "Fixtures", "substrate",
                                         "peaq-mainnet-genesis-v14.scale"))
U32_MAX = 2**32 - 1
passed = failed = 0


def check(name, condition, detail=""):
    global passed, failed
    if condition:
        passed += 1
        print(f"ok - {name}", flush=True)
    else:
        failed += 1
        print(f"FAIL - {name}: {detail}", flush=True)
    return condition


def blake2_256(b):
    return hashlib.blake2b(b, digest_size=32).digest()


def twox128(b):
    return xxhash.xxh64(b, seed=0).intdigest().to_bytes(8, "little") + xxhash.xxh64(b, seed=1).intdigest().to_bytes(8, "little")


def map_key(pallet, item, key):
    return twox128(pallet.encode()) + twox128(item.encode()) + hashlib.blake2b(key, digest_size=16).digest() + key


def compact(n):
    if n < 64:
        return bytes([n << 2])
    if n < 1 << 14:
        return ((n << 2) | 1).to_bytes(2, "little")
    return ((n << 2) | 2).to_bytes(4, "little")


class Node:
    """The test node as a subprocess; `url` once it has printed its listening line."""

    def __init__(self, state, *extra, port=0, name="node"):
        self.state, self.extra, self.name = state, list(extra), name
        self.log = open(f"{state}.{name}.log", "a")
        self.start(port)

    def start(self, port):
        cmd = [sys.executable, NODE, "--host", "127.0.0.1", "--port", str(port), "--state", self.state,
               "--chain-name", "peaq-selfcheck", *self.extra]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.proc.stdout.readline()
        m = re.fullmatch(r"peaq-test-node listening on (ws://127\.0\.0\.1:(\d+))\n", line)
        if not m:
            raise SystemExit(f"{self.name} did not start: {line!r} (log {self.log.name})")
        self.url, self.port = m.group(1), int(m.group(2))

    def kill9(self):
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def restart(self):
        self.start(self.port)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill9()

    def read_state(self):
        with open(self.state) as f:
            return json.load(f)


def rpc(url, method, params):
    """One raw JSON-RPC exchange on a fresh connection; the whole response object."""
    ws = create_connection(url, timeout=15)
    try:
        ws.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
        return json.loads(ws.recv())
    finally:
        ws.close()


def start_watch(url, xt_hex, timeout=15):
    """Sends author_submitAndWatchExtrinsic on a new connection: (connection, response)."""
    ws = create_connection(url, timeout=timeout)
    ws.send(json.dumps({"jsonrpc": "2.0", "id": 7, "method": "author_submitAndWatchExtrinsic", "params": [xt_hex]}))
    return ws, json.loads(ws.recv())


def collect(ws, response, until=("finalized", "invalid", "dropped")):
    """The statuses of a watch until a final one: ([statuses], closed_by_peer)."""
    statuses, closed = [], False
    try:
        if "error" in response:
            return statuses, closed
        while True:
            try:
                raw = ws.recv()
            except Exception:   # the node went away
                closed = True
                break
            if not raw:
                closed = True
                break
            message = json.loads(raw)
            if message.get("params", {}).get("subscription") != response["result"]:
                continue
            status = message["params"]["result"]
            statuses.append(status)
            if (status if isinstance(status, str) else next(iter(status))) in until:
                break
    finally:
        ws.close()
    return statuses, closed


def watch(url, xt_hex):
    """author_submitAndWatchExtrinsic on its own connection: (response, [statuses], closed_by_peer)."""
    ws, response = start_watch(url, xt_hex)
    return (response, *collect(ws, response))


def connect(url):
    return SubstrateInterface(url=url, ss58_format=42, ws_options={"timeout": 15})


def submit_error(substrate, xt):
    """The JSON-RPC error dict a submission is refused with, or None if it was accepted."""
    try:
        substrate.submit_extrinsic(xt, wait_for_inclusion=True)
    except SubstrateRequestException as e:
        return e.args[0]
    return None


def wait_until(predicate, timeout=10.0, step=0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    return predicate()


def header_hash(header):
    """blake2_256 of the SCALE header, computed here from the JSON header."""
    raw = (bytes.fromhex(header["parentHash"][2:]) + compact(int(header["number"], 16))
           + bytes.fromhex(header["stateRoot"][2:]) + bytes.fromhex(header["extrinsicsRoot"][2:]) + b"\x00")
    return "0x" + blake2_256(raw).hex()


def metadata_version():
    rc = RuntimeConfigurationObject()
    rc.update_type_registry(load_type_registry_preset("core"))
    md = rc.create_scale_object("MetadataVersioned", data=ScaleBytes(open(METADATA, "rb").read()))
    md.decode()
    rc.add_portable_registry(md)
    constant = next(c for c in md.get_metadata_pallet("System").value["constants"] if c["name"] == "Version")
    return rc.create_scale_object(f"scale_info::{constant['type']}", data=ScaleBytes(bytes.fromhex(constant["value"][2:]))).decode()


ALICE = Keypair.create_from_uri("//Alice", ss58_format=42)
BOB = Keypair.create_from_uri("//Bob", ss58_format=42)
DAVE = Keypair.create_from_uri("//Dave", ss58_format=42)
EVE_ED = Keypair.create_from_seed("0x" + "ee" * 32, ss58_format=42, crypto_type=KeypairType.ED25519)


def did_call(s, function, did, name, value=None, valid_for=None):
    params = {"did_account": did.ss58_address, "name": name}
    if function in ("add_attribute", "update_attribute"):
        params.update(value=value, valid_for=valid_for)
    return s.compose_call("PeaqDid", function, params)


def signed(s, keypair, call, **kw):
    kw.setdefault("era", {"period": 64})
    return s.create_signed_extrinsic(call=call, keypair=keypair, **kw)


def attribute_storage(url, did, name, at=None):
    key = "0x" + map_key("PeaqDid", "AttributeStore", blake2_256(did.public_key + name.encode())).hex()
    return rpc(url, "state_getStorage", [key] + ([at] if at else []))["result"]


def decode_attribute(hexvalue):
    b = bytes.fromhex(hexvalue[2:])
    out, o = [], 0
    for _ in range(2):
        mode = b[o] & 3
        n, o = (b[o] >> 2, o + 1) if mode == 0 else (int.from_bytes(b[o:o + 2], "little") >> 2, o + 2)
        out.append(b[o:o + n])
        o += n
    return {"name": out[0].decode(), "value": out[1].decode(), "validity": int.from_bytes(b[o:o + 4], "little"),
            "created": int.from_bytes(b[o + 4:o + 12], "little")}


def failed_records(state, block_hash):
    block = next(b for b in state["blocks"] if b["hash"] == block_hash)
    return [e for e in block["events"] if e["event"] == "ExtrinsicFailed"]


# ------------------------------------------------------------------------------------------

def main_node(tmp):
    state = os.path.join(tmp, "main.json")
    node = Node(state, "--endow", f"{ALICE.ss58_address}={10**21}", "--endow", f"{DAVE.ss58_address}=123456789",
                name="main")
    try:
        s = connect(node.url)
        check("system_chain is the --chain-name", s.chain == "peaq-selfcheck", s.chain)
        version = rpc(node.url, "state_getRuntimeVersion", [])["result"]
        want = metadata_version()
        check("state_getRuntimeVersion is the metadata's System.Version",
              (version["specName"], version["specVersion"], version["transactionVersion"], version["implName"],
               version["authoringVersion"], version["implVersion"], version["stateVersion"], version["apis"])
              == (want["spec_name"], want["spec_version"], want["transaction_version"], want["impl_name"],
                  want["authoring_version"], want["impl_version"], want["state_version"], []), f"{version} vs {want}")
        check("chain_getRuntimeVersion answers the same", rpc(node.url, "chain_getRuntimeVersion", [])["result"] == version)
        check("system_properties", rpc(node.url, "system_properties", [])["result"]
              == {"ss58Format": 42, "tokenDecimals": 18, "tokenSymbol": "PEAQ"})
        metadata = rpc(node.url, "state_getMetadata", [])["result"]
        check("state_getMetadata is the fixture", metadata == "0x" + open(METADATA, "rb").read().hex(), metadata[:20])
        genesis = s.get_block_hash(0)
        check("genesis header hash is blake2_256(SCALE header)",
              header_hash(rpc(node.url, "chain_getHeader", [genesis])["result"]) == genesis)
        other = Node(os.path.join(tmp, "genesis2.json"), name="genesis2")
        other_genesis = rpc(other.url, "chain_getBlockHash", [0])["result"]
        other.stop()
        check("same --chain-name, same genesis hash (in another run, without --endow)", other_genesis == genesis,
              f"{other_genesis} vs {genesis}")
        unknown = rpc(node.url, "chain_nonsense", [])
        check("an unknown method is -32601", unknown.get("error", {}).get("code") == -32601, unknown)

        # --- add (mortal era, to finality) and read back
        before = int(time.time() * 1000)
        add = signed(s, ALICE, did_call(s, "add_attribute", ALICE, "anchor", "v1"))
        receipt = s.submit_extrinsic(add, wait_for_inclusion=True, wait_for_finalization=True)
        after = int(time.time() * 1000)
        check("add_attribute (//Alice, era period 64) is finalized", receipt.finalized and receipt.is_success,
              f"finalized={receipt.finalized} success={receipt.is_success} {receipt.error_message}")
        check("add's extrinsic hash is blake2_256 of its bytes",
              receipt.extrinsic_hash == "0x" + blake2_256(bytes(add.data.data)).hex(), receipt.extrinsic_hash)
        final_head = rpc(node.url, "chain_getFinalizedHead", [])["result"]
        check("the finalized head is add's block", final_head == receipt.block_hash, f"{final_head} {receipt.block_hash}")
        block = rpc(node.url, "chain_getBlock", [receipt.block_hash])["result"]
        check("chain_getBlock holds exactly the extrinsic, justifications null",
              block["block"]["extrinsics"] == [str(add.data)] and block["justifications"] is None, block)
        check("the block's hash is blake2_256 of its SCALE header", header_hash(block["block"]["header"]) == receipt.block_hash)
        check("add was signed with a mortal era", add.value["era"] != "00", add.value["era"])
        attr = s.query("PeaqDid", "AttributeStore", ["0x" + blake2_256(ALICE.public_key + b"anchor").hex()]).value
        check("query(PeaqDid.AttributeStore, blake2_256(did ‖ name)): name, value, validity u32::MAX",
              (attr["name"], attr["value"], attr["validity"]) == ("anchor", "v1", U32_MAX), attr)
        check("created is the block's wall-clock ms", before <= attr["created"] <= after, (before, attr["created"], after))
        raw = attribute_storage(node.url, ALICE, "anchor")
        check("raw state_getStorage with the spec's key decodes the same", raw and decode_attribute(raw) == attr, raw)
        key = "0x" + map_key("PeaqDid", "AttributeStore", blake2_256(ALICE.public_key + b"anchor")).hex()
        check("substrate-interface's storage key is the spec's key",
              s.create_storage_key("PeaqDid", "AttributeStore", ["0x" + blake2_256(ALICE.public_key + b"anchor").hex()]).to_hex() == key)
        q = rpc(node.url, "state_queryStorageAt", [[key]])["result"]
        check("state_queryStorageAt answers [{block, changes}]", q == [{"block": final_head, "changes": [[key, raw]]}], q)
        owner = "0x" + map_key("PeaqDid", "OwnerStore", ALICE.public_key + blake2_256(ALICE.public_key + ALICE.public_key)).hex()
        check("OwnerStore((owner, blake2_256(owner ‖ did))) = did", rpc(node.url, "state_getStorage", [owner])["result"]
              == "0x" + ALICE.public_key.hex())
        created = attr["created"]
        add_block = receipt.block_hash

        # --- update (valid_for) keeps created
        upd = signed(s, ALICE, did_call(s, "update_attribute", ALICE, "anchor", "v2", valid_for=100))
        receipt = s.submit_extrinsic(upd, wait_for_inclusion=True)
        number = int(rpc(node.url, "chain_getHeader", [receipt.block_hash])["result"]["number"], 16)
        attr = decode_attribute(attribute_storage(node.url, ALICE, "anchor"))
        check("update_attribute by the owner: value, validity = block + 100, created kept",
              receipt.is_success and (attr["value"], attr["validity"], attr["created"]) == ("v2", number + 100, created),
              (attr, number, created))
        check("state_getStorage at add's block still answers v1",
              decode_attribute(attribute_storage(node.url, ALICE, "anchor", at=add_block))["value"] == "v1")

        # --- dispatch errors: included, nonce bumped, storage unchanged, ExtrinsicFailed recorded
        def failing(keypair, call, error, label):
            nonce_before = rpc(node.url, "system_accountNextIndex", [keypair.ss58_address])["result"]
            storage_before = attribute_storage(node.url, ALICE, "anchor")
            xt = signed(s, keypair, call, era=None)
            r = s.submit_extrinsic(xt, wait_for_inclusion=True)
            records = failed_records(node.read_state(), r.block_hash)
            check(f"{label}: included, ExtrinsicFailed {error} (events and state file), nonce +1, storage unchanged",
                  not r.is_success and r.error_message and r.error_message["name"] == error
                  and [x["error"] for x in records] == [error]
                  and rpc(node.url, "system_accountNextIndex", [keypair.ss58_address])["result"] == nonce_before + 1
                  and attribute_storage(node.url, ALICE, "anchor") == storage_before,
                  (r.error_message, records))

        failing(BOB, did_call(s, "update_attribute", ALICE, "anchor", "bob"), "AttributeAuthorizationFailed",
                "update by //Bob (immortal era)")
        failing(BOB, did_call(s, "remove_attribute", ALICE, "anchor"), "AttributeAuthorizationFailed", "remove by //Bob")
        failing(ALICE, did_call(s, "update_attribute", ALICE, "missing", "x"), "AttributeNotFound",
                "update of a missing attribute by the owner")
        failing(ALICE, did_call(s, "add_attribute", ALICE, "anchor", "again"), "AttributeAlreadyExist", "add of an existing name")
        failing(ALICE, did_call(s, "add_attribute", ALICE, "n" * 65, "x"), "AttributeNameExceedMax64", "a 65-byte name")
        failing(ALICE, did_call(s, "add_attribute", ALICE, "overflow", "x", valid_for=U32_MAX), "MaxBlockNumberExceeded",
                "valid_for overflowing u32")
        r = s.submit_extrinsic(signed(s, ALICE, did_call(s, "add_attribute", ALICE, "n" * 64, "x")), wait_for_inclusion=True)
        check("a 64-byte name is fine", r.is_success, r.error_message)

        # --- pool refusals
        good = signed(s, ALICE, did_call(s, "add_attribute", ALICE, "refused", "x"))
        bad = bytearray(good.data.data)
        sig_at = bad.find(bytes.fromhex(good.value["signature"]["Sr25519"][2:]))
        bad[sig_at + 5] ^= 0x01
        e = rpc(node.url, "author_submitExtrinsic", ["0x" + bad.hex()]).get("error")
        check("a flipped signature byte: 1010 bad signature",
              e == {"code": 1010, "message": "Invalid Transaction", "data": "Transaction has a bad signature"}, e)

        nonce = rpc(node.url, "system_accountNextIndex", [ALICE.ss58_address])["result"]
        call = did_call(s, "add_attribute", ALICE, "handmade", "x")
        spec, txv = version["specVersion"], version["transactionVersion"]

        def handmade(genesis_hash, spec_version):
            payload = (bytes(call.data.data) + b"\x00" + compact(nonce) + compact(0) + spec_version.to_bytes(4, "little")
                       + txv.to_bytes(4, "little") + bytes.fromhex(genesis_hash[2:]) + bytes.fromhex(genesis[2:]))
            return s.create_signed_extrinsic(call=call, keypair=ALICE, era=None, nonce=nonce,
                                             signature=ALICE.sign(payload))

        e = rpc(node.url, "author_submitExtrinsic", [str(handmade("0x" + "ab" * 32, spec).data)]).get("error")
        check("payload with a wrong genesis hash: 1010 bad signature", e and e.get("data") == "Transaction has a bad signature", e)
        e = rpc(node.url, "author_submitExtrinsic", [str(handmade(genesis, spec + 1).data)]).get("error")
        check("payload with a wrong spec version: 1010 bad signature", e and e.get("data") == "Transaction has a bad signature", e)
        r = s.submit_extrinsic(handmade(genesis, spec), wait_for_inclusion=True)
        check("control: the same hand-made payload with the right values is included", r.is_success, r.error_message)

        e = submit_error(s, signed(s, ALICE, did_call(s, "add_attribute", ALICE, "stale", "x"), nonce=0))
        check("nonce 0 again: 1010 outdated", e == {"code": 1010, "message": "Invalid Transaction", "data": "Transaction is outdated"}, e)
        e = submit_error(s, add)
        check("add's exact bytes again: 1010 outdated", e and e.get("data") == "Transaction is outdated", e)
        future = rpc(node.url, "system_accountNextIndex", [ALICE.ss58_address])["result"] + 3
        e = submit_error(s, signed(s, ALICE, did_call(s, "add_attribute", ALICE, "future", "x"), nonce=future))
        check("a nonce above the next index: 1010 future", e and e.get("data") == "Transaction will be valid in the future", e)
        e = rpc(node.url, "author_submitExtrinsic", ["0x1234"]).get("error")
        check("undecodable bytes: 1010 Could not decode", e and e["code"] == 1010 and e["data"].startswith("Could not decode"), e)
        balances = s.compose_call("Balances", "transfer", {"dest": BOB.ss58_address, "value": 1})
        e = submit_error(s, signed(s, ALICE, balances))
        check("a call outside PeaqDid: 1010 call not expected", e and e.get("data") == "Transaction call is not expected", e)

        # --- ed25519, remove, read
        r = s.submit_extrinsic(signed(s, EVE_ED, did_call(s, "add_attribute", EVE_ED, "ed", "x")), wait_for_inclusion=True)
        check("an ed25519 (MultiSignature 00) signer's add is included", r.is_success and attribute_storage(node.url, EVE_ED, "ed"),
              r.error_message)
        r = s.submit_extrinsic(signed(s, BOB, did_call(s, "read_attribute", ALICE, "anchor")), wait_for_inclusion=True)
        read_events = [e.value["event"]["event_id"] for e in r.triggered_events]
        check("read_attribute by anyone emits AttributeRead", r.is_success and "AttributeRead" in read_events, read_events)
        r = s.submit_extrinsic(signed(s, ALICE, did_call(s, "remove_attribute", ALICE, "anchor")),
                               wait_for_inclusion=True, wait_for_finalization=True)
        check("remove_attribute by the owner: finalized, the key is gone",
              r.is_success and attribute_storage(node.url, ALICE, "anchor") is None, r.error_message)
        failing(ALICE, did_call(s, "remove_attribute", ALICE, "anchor"), "AttributeNotFound", "remove again")

        # --- System.Account
        dave = s.query("System", "Account", [DAVE.ss58_address]).value
        check("System.Account of an --endow'ed account: free 123456789, nonce 0",
              (dave["data"]["free"], dave["nonce"], dave["providers"]) == (123456789, 0, 1), dave)
        raw = rpc(node.url, "state_getStorage", ["0x" + map_key("System", "Account", ALICE.public_key).hex()])["result"]
        raw_b = bytes.fromhex(raw[2:])
        alice_nonce = rpc(node.url, "system_accountNextIndex", [ALICE.ss58_address])["result"]
        check("System.Account(//Alice): 80 bytes, nonce = next index, free untouched (no fees)",
              len(raw_b) == 80 and int.from_bytes(raw_b[:4], "little") == alice_nonce
              and int.from_bytes(raw_b[16:32], "little") == 10**21, raw)

        # --- kill -9 and restart
        best_before = s.get_chain_head()
        s.close()
        node.kill9()
        node.restart()
        s = connect(node.url)
        check("after kill -9 and restart: same genesis, same best block",
              (s.get_block_hash(0), s.get_chain_head()) == (genesis, best_before))
        check("after restart: storage served (the 64-byte name's attribute)", attribute_storage(node.url, ALICE, "n" * 64))
        check("after restart: the finalized head catches up", wait_until(
            lambda: rpc(node.url, "chain_getFinalizedHead", [])["result"] == best_before, 5))
        r = s.submit_extrinsic(signed(s, ALICE, did_call(s, "add_attribute", ALICE, "after-restart", "x")), wait_for_inclusion=True)
        check("after restart: //Alice goes on with the next nonce", r.is_success and
              rpc(node.url, "system_accountNextIndex", [ALICE.ss58_address])["result"] == alice_nonce + 1)
        s.close()
    finally:
        node.stop()


def pool_node(tmp):
    node = Node(os.path.join(tmp, "pool.json"), "--pool-ms", "1500", name="pool")
    try:
        s = connect(node.url)
        xt = signed(s, ALICE, did_call(s, "add_attribute", ALICE, "pooled", "x"))
        xt_hex, xt_hash = str(xt.data), "0x" + blake2_256(bytes(xt.data.data)).hex()
        r = rpc(node.url, "author_submitExtrinsic", [xt_hex])
        check("author_submitExtrinsic answers the extrinsic hash", r.get("result") == xt_hash, r)
        e = rpc(node.url, "author_submitExtrinsic", [xt_hex]).get("error")
        check("the same bytes while pooled: 1013 Already Imported", e == {"code": 1013, "message": "Transaction Already Imported"}, e)
        e = submit_error(s, signed(s, ALICE, did_call(s, "add_attribute", ALICE, "rival", "x"), nonce=0))
        check("another extrinsic with the pooled nonce: 1014", e and e["code"] == 1014, e)
        check("system_accountNextIndex counts the pooled extrinsic",
              rpc(node.url, "system_accountNextIndex", [ALICE.ss58_address])["result"] == 1)
        check("the pooled extrinsic is included after --pool-ms", wait_until(
            lambda: rpc(node.url, "chain_getBlock", [])["result"]["block"]["extrinsics"] == [xt_hex], 5))
        e = rpc(node.url, "author_submitExtrinsic", [xt_hex]).get("error")
        check("the same bytes once included: 1010 outdated", e and e.get("data") == "Transaction is outdated", e)
        check("the state file counts 3 submissions of it", node.read_state()["submissions"].get(xt_hash) == 3,
              node.read_state()["submissions"])

        xt2 = signed(s, ALICE, did_call(s, "add_attribute", ALICE, "watched", "x"))
        response, statuses, _ = watch(node.url, str(xt2.data))
        kinds = [st if isinstance(st, str) else next(iter(st)) for st in statuses]
        check("watch statuses: ready, inBlock, finalized (same block)",
              kinds == ["ready", "inBlock", "finalized"] and statuses[1]["inBlock"] == statuses[2]["finalized"]
              and isinstance(response.get("result"), str), (response, statuses))
        s.close()
    finally:
        node.stop()


def crash_node(tmp):
    state = os.path.join(tmp, "crash.json")
    node = Node(state, "--crash-after-inclusions", "1", name="crash")
    s = connect(node.url)
    xt = signed(s, ALICE, did_call(s, "add_attribute", ALICE, "crash", "x"))
    s.close()
    xt_hex = str(xt.data)
    response, statuses, closed = watch(node.url, xt_hex)
    check("crash: the watcher saw only ready, then the connection closed", statuses == ["ready"] and closed, (response, statuses, closed))
    code = node.proc.wait(10)
    check("crash: the node exited with status 3", code == 3, code)
    node.extra = []
    node.restart()
    try:
        block1 = rpc(node.url, "chain_getBlock", [rpc(node.url, "chain_getBlockHash", [1])["result"]])["result"]
        check("crash, restarted: block 1 holds the extrinsic", block1 and block1["block"]["extrinsics"] == [xt_hex], block1)
        check("crash, restarted: block 1 gets finalized", wait_until(
            lambda: rpc(node.url, "chain_getFinalizedHead", [])["result"] == rpc(node.url, "chain_getBlockHash", [1])["result"], 5))
        e = rpc(node.url, "author_submitExtrinsic", [xt_hex]).get("error")
        check("crash, restarted: the same bytes are outdated", e and e.get("data") == "Transaction is outdated", e)
        check("crash: the state file counts 2 submissions", node.read_state()["submissions"].get("0x" + blake2_256(bytes(xt.data.data)).hex()) == 2)
    finally:
        node.stop()


def era_node(tmp):
    node = Node(os.path.join(tmp, "era.json"), "--block-ms", "100", "--pool-ms", "1500", name="era")
    try:
        s = connect(node.url)
        best = s.get_block_number(s.get_chain_head())
        old = signed(s, ALICE, did_call(s, "add_attribute", ALICE, "old", "x"), era={"period": 4, "current": best})
        wait_until(lambda: s.get_block_number(s.get_chain_head()) >= best + 6, 5)
        e = rpc(node.url, "author_submitExtrinsic", [str(old.data)]).get("error")
        check("an expired mortal era: 1010 ancient birth block", e and e.get("data") == "Transaction has an ancient birth block", e)
        for finalized_only in (False, True):
            numbers = []

            def on_header(message, update_nr, subscription_id):
                numbers.append(message["header"]["number"])
                return numbers if update_nr >= 2 else None
            s.subscribe_block_headers(on_header, finalized_only=finalized_only)
            check(f"subscribe_block_headers(finalized_only={finalized_only}): consecutive heads",
                  len(numbers) == 3 and numbers[1] == numbers[0] + 1 and numbers[2] == numbers[1] + 1, numbers)

        nonce = rpc(node.url, "system_accountNextIndex", [ALICE.ss58_address])["result"]
        best = s.get_block_number(s.get_chain_head())
        short = signed(s, ALICE, did_call(s, "add_attribute", ALICE, "short", "x"), era={"period": 8, "current": best},
                       nonce=nonce)
        ws1, r1 = start_watch(node.url, str(short.data))
        behind = signed(s, ALICE, did_call(s, "add_attribute", ALICE, "behind", "x"), era=None, nonce=nonce + 1)
        ws2, r2 = start_watch(node.url, str(behind.data))
        statuses, _ = collect(ws1, r1)
        check("an era that expires while pooled: ready, then invalid", statuses == ["ready", "invalid"], (r1, statuses))
        statuses, _ = collect(ws2, r2)
        check("the next nonce, left behind a gap: ready, then dropped", statuses == ["ready", "dropped"], (r2, statuses))
        check("both gone: system_accountNextIndex is back to the account nonce",
              rpc(node.url, "system_accountNextIndex", [ALICE.ss58_address])["result"] == nonce)
        best = s.get_block_number(s.get_chain_head())
        live = signed(s, ALICE, did_call(s, "add_attribute", ALICE, "live", "x"), era={"period": 64, "current": best})
        response, statuses, _ = watch(node.url, str(live.data))
        check("a live mortal era with empty blocks around: included and finalized",
              [st if isinstance(st, str) else next(iter(st)) for st in statuses] == ["ready", "inBlock", "finalized"], statuses)
        s.close()
    finally:
        node.stop()


def main():
    signal.alarm(300)
    with tempfile.TemporaryDirectory(prefix="peaq-node-selfcheck-") as tmp:
        for part in (main_node, pool_node, crash_node, era_node):
            try:
                part(tmp)
            except Exception as e:  # a part that blew up is a failed check, and the others still run
                check(f"{part.__name__} ran to its end", False, f"{type(e).__name__}: {e}")
                for log in sorted(os.listdir(tmp)):
                    if log.endswith(".log"):
                        print(f"--- {log} (tail)\n" + "".join(open(os.path.join(tmp, log)).readlines()[-15:]), end="")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed or not passed else 0)


if __name__ == "__main__":
    main()
