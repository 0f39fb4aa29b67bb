"""The Substrate rail's anchoring of DID changes on a peaq node, against a live hub configured
with `node_url` and tools/substrate/peaq_test_node.py (a test double for a peaq node: no
Substrate node can run here), which this script starts, kills and starts again on NODE_PORT with
its state in WORK_DIR. Chain storage is read back with substrate-interface, independently of the hub.

  python anchor_check.py BASE_URL NODE_PORT WORK_DIR ADMIN_TOKEN

Checks, each printed as `ok …` or `FAIL …` (exit status 1 on any failure):
- made while the node is down, a custodial wallet's changes (add, update, add, remove) and a
  custodial sensor's attribute are queued (`pending`); once the node is up they are all
  `finalized`, in a block the node finalized, and an external wallet's change (signed by its
  holder for the offline registry) is `holder_signature_required` until the holder signs the
  node's payload (`…/anchors/{proof}/prepare`, then `…/signature`; another key's signature, a
  wrong nonce, another user and a second submission refused), then `finalized` too;
- the node included each anchored extrinsic exactly once, signed by the DID's key; its chain
  storage (substrate-interface `query('PeaqDid', 'AttributeStore')`) holds what the hub's registry
  holds, and the removed attribute is gone; the wallet's nonce on chain is its anchors' count;
- `GET /node`, `GET /node/accounts/{address}` (an endowed account's balance, exact) and
  `GET /node/dids/{did}/attributes/{name}` read the node;
- an attribute someone else added first on chain: the hub's change is included, the pallet
  refuses it (ExtrinsicFailed), and the anchor is `failed` saying so, with
  `substrate.did.anchor_failed` in the event log;
- the node killed (SIGKILL) and started again from its state: changes made meanwhile (a DID
  document among them) are anchored once it is back, none twice, and the DID's resolution
  metadata names the block (`anchoredBlock`);
- the node includes an extrinsic and dies before telling the hub (`--crash-after-inclusions`):
  started again, the hub sends the same bytes, learns they are outdated, finds them in their
  block, and does not sign again (one signing, included once).
"""

import json
import os
import signal
import subprocess
import sys
import time

import sr25519
from scalecodec.utils.ss58 import ss58_encode
from hubhttp import call
from substrateinterface import Keypair, SubstrateInterface

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ENDOWMENT = 123456789012345678901234567  # more than 2^64 planck: exact through the hub
failures = 0


def check(condition, what):
    global failures
    print(("ok   " if condition else "FAIL ") + what, flush=True)
    if not condition:
        failures += 1
    return condition


class Node:
    """The test node's process, on a fixed port with a state file that outlives it."""

    def __init__(self, port, work, endow):
        self.port, self.state_file, self.endow = port, os.path.join(work, "node-state.json"), endow
        self.log = open(os.path.join(work, "node.log"), "a")
        self.process = None

    def start(self, *extra):
        command = [sys.executable, os.path.join(ROOT, "tools/substrate/peaq_test_node.py"), "--port", str(self.port),
                   "--state", self.state_file, "--finality-ms", "150", "--endow", f"{self.endow}={ENDOWMENT}", *extra]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.process.stdout.readline()
        if "listening" not in line:
            raise SystemExit(f"the test node did not start: {line!r} (see node.log)")

    def kill(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()

    def state(self):
        with open(self.state_file) as f:
            return json.load(f)

    def inclusions(self):
        """How many times each extrinsic hash was included (one event per included extrinsic)."""
        counts = {}
        for block in self.state()["blocks"]:
            for event in block["events"]:
                if event["event"] in ("ExtrinsicSuccess", "ExtrinsicFailed"):
                    counts[event["extrinsic_hash"]] = counts.get(event["extrinsic_hash"], 0) + 1
        return counts

    def failed_errors(self):
        return [event["error"] for block in self.state()["blocks"] for event in block["events"]
                if event["event"] == "ExtrinsicFailed"]


def sign_in(base, keypair):
    address = ss58_encode(keypair[0], ss58_format=42)
    status, body = call(base, "POST", "/v1/auth/wallet/challenge", {"scheme": "sr25519", "address": address})
    if status != 201:
        raise SystemExit(f"challenge: {status} {body}")
    signature = sr25519.sign(keypair, body["message"].encode())
    status, body = call(base, "POST", "/v1/auth/wallet/login", {"nonce": body["nonce"], "signature": signature.hex()})
    check(status in (200, 201), f"signs in with sr25519 ({status})")
    return body["access_token"]


def anchors(base, token, **query):
    path = "/v1/rails/substrate/anchors?limit=500" + "".join(f"&{k}={v}" for k, v in query.items())
    status, body = call(base, "GET", path, token=token)
    assert status == 200, (status, body)
    return body["data"]


def wait_settled(base, token, what, timeout=60):
    """Waits until no anchor of the caller is pending, submitted or in a block; returns them all."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        rows = anchors(base, token)
        if rows and all(row["status"] in ("finalized", "failed", "holder_signature_required") for row in rows):
            return rows
        time.sleep(0.2)
    rows = anchors(base, token)
    check(False, f"{what}: every anchor settled within {timeout} s " + json.dumps([(r["name"], r["status"], r["error"]) for r in rows]))
    return rows


def attribute_on_chain(substrate, account_hex, name):
    """The attribute as the node's storage holds it, read with substrate-interface alone."""
    key_id = bytes.fromhex(account_hex[2:]) + name.encode()
    import hashlib
    digest = "0x" + hashlib.blake2b(key_id, digest_size=32).hexdigest()
    result = substrate.query("PeaqDid", "AttributeStore", [digest])
    value = result.value if result is not None else None
    if not value or not value.get("name"):
        return None
    return value


def main(base, node_port, work, admin_token):
    alice = Keypair.create_from_uri("//Alice", ss58_format=42)
    node = Node(node_port, work, alice.ss58_address)
    token = sign_in(base, sr25519.pair_from_seed(os.urandom(32)))

    # Made while the node is down (never started yet): queued, the hub answers as usual.
    status, wallet = call(base, "POST", "/v1/rails/substrate/wallets", {"kind": "custodial"}, token)
    check(status == 201, f"a custodial wallet ({status})")
    address, did = wallet["address"], "did:peaq:" + wallet["address"]
    account_hex = wallet["public_key"]
    dids = f"/v1/rails/substrate/dids/{did}/attributes"
    steps = [("POST", dids, {"name": "email", "value": "a@example.test"}), ("PUT", dids + "/email", {"value": "b@example.test"}),
             ("POST", dids, {"name": "phone", "value": "+1 555"}), ("DELETE", dids + "/phone", None)]
    for method, path, body in steps:
        status, answer = call(base, method, path, body, token)
        check(status in (200, 201), f"{method} {path.rsplit('/', 1)[-1]} answered while the node is down ({status})")
    status, sensor = call(base, "POST", "/v1/rails/substrate/sensors",
                          {"name": "anchored sensor", "attributes": [{"name": "type", "value": "temperature"}]}, token)
    check(status == 201, f"a custodial sensor with an attribute ({status})")
    sensor_hex = sensor.get("public_key", "")

    # An external wallet: its holder signs its changes for the offline registry only.
    external = Keypair.create_from_uri("//anchor-external", ss58_format=42)
    status, challenge = call(base, "POST", "/v1/auth/wallet/challenge", {"scheme": "sr25519", "address": external.ss58_address})
    status, _ = call(base, "POST", "/v1/rails/substrate/wallets",
                     {"kind": "external", "address": external.ss58_address, "nonce": challenge["nonce"],
                      "signature": "0x" + external.sign(challenge["message"].encode()).hex()}, token)
    check(status == 201, f"an external wallet registered ({status})")
    change = {"call": "add_attribute", "name": "site", "value": "example.test"}
    external_did = "did:peaq:" + external.ss58_address
    status, prepared = call(base, "POST", f"/v1/rails/substrate/dids/{external_did}/changes/prepare", change, token)
    status, _ = call(base, "POST", f"/v1/rails/substrate/dids/{external_did}/changes",
                     {**change, "nonce": prepared["nonce"], "signature": "0x" + external.sign(bytes.fromhex(prepared["message"][2:])).hex()}, token)
    check(status == 201, f"the external wallet's holder-signed change ({status})")

    queued = anchors(base, token)
    check(len(queued) == 6 and all(row["status"] == "pending" for row in queued),
          f"6 changes queued, all pending while the node is down ({[r['status'] for r in queued]})")
    status, body = call(base, "GET", "/v1/rails/substrate/node", token=token)
    check(status == 503 and body.get("code") == "node_unavailable", f"GET /node is 503 node_unavailable while it is down ({status})")

    node.start()
    rows = wait_settled(base, token, "after the node came up")
    by_name = {(row["did"], row["call"], row["name"]): row for row in rows}
    custodial = [row for row in rows if row["did"] != external_did]
    check(len(custodial) == 5 and all(row["status"] == "finalized" for row in custodial),
          f"the custodial wallet's and sensor's 5 changes are finalized ({[(r['name'], r['status'], r.get('error')) for r in custodial]})")
    external_row = by_name.get((external_did, "PeaqDid.add_attribute", "site"))
    check(external_row is not None and external_row["status"] == "holder_signature_required",
          f"the external wallet's change is holder_signature_required ({external_row and external_row['status']})")
    # The external wallet's holder signs the node's payload for it.
    proof = external_row["proof_hash"] if external_row else "0x" + "00" * 32
    status, prepared = call(base, "POST", f"/v1/rails/substrate/anchors/{proof}/prepare", {}, token)
    check(status == 200 and prepared["signer"] == external.ss58_address and prepared["era_period"] >= 4,
          f"prepare answers the node's payload for the holder ({status})")
    signature = "0x" + external.sign(bytes.fromhex(prepared["message"][2:])).hex()
    signed = {"nonce": prepared["nonce"], "era_period": prepared["era_period"], "era_birth": prepared["era_birth"]}
    status, refused = call(base, "POST", f"/v1/rails/substrate/anchors/{proof}/signature",
                           {**signed, "signature": "0x" + alice.sign(bytes.fromhex(prepared["message"][2:])).hex()}, token)
    check(status == 422 and refused["code"] == "invalid_signature", f"another key's signature is refused ({status})")
    status, refused = call(base, "POST", f"/v1/rails/substrate/anchors/{proof}/signature", {**signed, "nonce": prepared["nonce"] + 1,
                           "signature": signature}, token)
    check(status == 422 and refused["code"] == "invalid_signature", f"the signature with another nonce is refused ({status})")
    other_token = sign_in(base, sr25519.pair_from_seed(os.urandom(32)))
    status, refused = call(base, "POST", f"/v1/rails/substrate/anchors/{proof}/prepare", {}, other_token)
    check(status == 404 and refused["code"] == "anchor_not_found", f"another user cannot prepare it ({status})")
    status, submitted = call(base, "POST", f"/v1/rails/substrate/anchors/{proof}/signature", {**signed, "signature": signature}, token)
    check(status == 200 and submitted["status"] == "submitted", f"the holder's signature is taken ({status} {submitted.get('status')})")
    status, refused = call(base, "POST", f"/v1/rails/substrate/anchors/{proof}/signature", {**signed, "signature": signature}, token)
    check(status == 409 and refused["code"] == "anchor_not_awaiting_signature", f"a second submission is 409 ({status})")
    rows = wait_settled(base, token, "after the holder signed")
    external_row = [row for row in rows if row["did"] == external_did][0]
    check(external_row["status"] == "finalized", f"the holder-signed change is finalized ({external_row['status']} {external_row.get('error')})")
    site = attribute_on_chain(substrate_for(node_port), "0x" + external.public_key.hex(), "site")
    check(site is not None and site["value"] == "example.test", f"its attribute is in chain storage ({site})")
    status, refused = call(base, "POST", f"/v1/rails/substrate/anchors/{queued[-1]['proof_hash']}/prepare", {}, token)
    check(status == 409, f"prepare for a change the hub signs itself is 409 ({status})")

    state = node.state()
    finalized_number = state["finalized"]
    check(all(row["block_number"] is not None and row["block_number"] <= finalized_number for row in custodial),
          "each is in a block the node finalized")
    inclusions = node.inclusions()
    check(all(inclusions.get(row["extrinsic_hash"]) == 1 for row in custodial), "the node included each exactly once")

    substrate = SubstrateInterface(url=f"ws://127.0.0.1:{node_port}", ss58_format=42)
    email = attribute_on_chain(substrate, account_hex, "email")
    check(email is not None and bytes.fromhex(email["value"][2:]) == b"b@example.test" if email and str(email["value"]).startswith("0x")
          else email is not None and email["value"] == "b@example.test",
          f"chain storage (substrate-interface) has the updated email ({email})")
    check(attribute_on_chain(substrate, account_hex, "phone") is None, "the removed phone is not in chain storage")
    check(attribute_on_chain(substrate, sensor_hex, "type") is not None, "the sensor's attribute is in chain storage")
    chain_nonce = substrate.query("System", "Account", [address]).value["nonce"]
    check(chain_nonce == 4, f"the wallet signed 4 extrinsics on chain (nonce {chain_nonce})")

    # Reads through the hub.
    status, shown = call(base, "GET", "/v1/rails/substrate/node", token=token)
    check(status == 200 and shown["genesis_hash"] == substrate.get_block_hash(0) and shown["finalized_number"] >= 1
          and shown["anchors"]["finalized"] >= 5, f"GET /node reads the node's chain ({status} {shown})")
    status, account = call(base, "GET", f"/v1/rails/substrate/node/accounts/{alice.ss58_address}", token=token)
    # peaq's genesis runtime (the node's metadata) predates pallet-balances' 2023 rework.
    check(status == 200 and account["free"] == str(ENDOWMENT) and account["transferable"] == str(ENDOWMENT)
          and account["layout"] == "legacy", f"GET /node/accounts reads an endowed balance exactly ({status} {account})")
    status, account = call(base, "GET", f"/v1/rails/substrate/node/accounts/{address}", token=token)
    check(status == 200 and account["nonce"] == 4 and account["free"] == "0", f"and the wallet's nonce ({status} {account})")
    status, attribute = call(base, "GET", f"/v1/rails/substrate/node/dids/{did}/attributes/email", token=token)
    check(status == 200 and attribute["value"] == "b@example.test", f"GET /node/dids/…/attributes reads chain storage ({status} {attribute})")
    status, missing = call(base, "GET", f"/v1/rails/substrate/node/dids/{did}/attributes/phone", token=token)
    check(status == 404 and missing["code"] == "attribute_not_found", f"a removed attribute is 404 there ({status})")

    # Someone else adds the attribute first on chain: the pallet refuses the hub's change there.
    taken_call = substrate.compose_call("PeaqDid", "add_attribute",
                                        {"did_account": account_hex, "name": "taken", "value": "alice was here", "valid_for": None})
    receipt = substrate.submit_extrinsic(substrate.create_signed_extrinsic(taken_call, alice, era={"period": 64}), wait_for_inclusion=True)
    check(receipt.is_success, "Alice adds 'taken' to the wallet's DID on chain first")
    status, _ = call(base, "POST", dids, {"name": "taken", "value": "mine"}, token)
    check(status == 201, f"the hub's registry takes its own 'taken' ({status})")
    rows = wait_settled(base, token, "after the conflicting change")
    taken = [row for row in rows if row["name"] == "taken"]
    check(len(taken) == 1 and taken[0]["status"] == "failed" and "refused" in (taken[0].get("error") or ""),
          f"its anchor is failed: included, refused by the pallet ({taken and (taken[0]['status'], taken[0].get('error'))})")
    check("AttributeAlreadyExist" in node.failed_errors(), "the node recorded ExtrinsicFailed AttributeAlreadyExist")
    status, events = call(base, "GET", "/v1/events?type=substrate.did.anchor_failed", token=admin_token)
    check(status == 200 and any(e.get("subject") == did for e in events.get("data", [])),
          f"substrate.did.anchor_failed is in the event log ({status})")

    # The node dies (SIGKILL) and comes back from its state: nothing lost, nothing sent twice.
    node.kill()
    for name in ("k1", "k2"):
        status, _ = call(base, "POST", dids, {"name": name, "value": name}, token)
        check(status == 201, f"{name} added while the node is dead ({status})")
    status, _ = call(base, "POST", "/v1/rails/substrate/dids", {"address": address}, token)
    check(status == 201, f"a DID document written while the node is dead ({status})")
    status, resolved = call(base, "GET", f"/v1/rails/substrate/dids/{did}?format=did-resolution", token=token)
    check(status == 200 and resolved["didDocumentMetadata"]["anchoredBlock"] is None, "its anchoredBlock is null until anchored")
    time.sleep(1)
    node.start()
    rows = wait_settled(base, token, "after the node came back")
    later = [row for row in rows if row["name"] in ("k1", "k2", did)]
    check(len(later) == 3 and all(row["status"] == "finalized" for row in later), "k1, k2 and the document anchored once the node is back")
    document = [row for row in rows if row["name"] == did]
    status, resolved = call(base, "GET", f"/v1/rails/substrate/dids/{did}?format=did-resolution", token=token)
    check(status == 200 and document and resolved["didDocumentMetadata"]["anchoredBlock"] == document[0]["block_number"],
          f"the resolution's anchoredBlock is the document's block ({resolved.get('didDocumentMetadata', {}).get('anchoredBlock')})")

    # The node includes an extrinsic and dies before it says so.
    node.kill()
    node.start("--crash-after-inclusions", "1")
    status, _ = call(base, "POST", dids, {"name": "k3", "value": "k3"}, token)
    check(status == 201, f"k3 added ({status})")
    try:
        code = node.process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        code = None
    check(code == 3, f"the node included k3 and exited before telling ({code})")
    node.start()
    rows = wait_settled(base, token, "after the crash")
    k3 = [row for row in rows if row["name"] == "k3"]
    inclusions = node.inclusions()
    submissions = node.state()["submissions"]
    check(len(k3) == 1 and k3[0]["status"] == "finalized" and k3[0]["signings"] == 1,
          f"k3 finalized, signed once ({k3 and (k3[0]['status'], k3[0]['signings'], k3[0].get('error'))})")
    check(k3 and inclusions.get(k3[0]["extrinsic_hash"]) == 1 and submissions.get(k3[0]["extrinsic_hash"], 0) >= 2,
          f"sent again after the crash, included once ({k3 and submissions.get(k3[0]['extrinsic_hash'])} submissions)")
    wallet_anchors = [row for row in rows if row["did"] == did]
    chain_nonce = substrate_nonce(node_port, address)
    check(chain_nonce == len(wallet_anchors), f"the wallet's nonce on chain ({chain_nonce}) is its anchors' count ({len(wallet_anchors)})")
    check(all(count == 1 for count in node.inclusions().values()), "no extrinsic was included twice")
    node.kill()
    print("anchor_check: " + ("all passed" if failures == 0 else f"{failures} FAILED"))
    return 0 if failures == 0 else 1


def substrate_for(port):
    return SubstrateInterface(url=f"ws://127.0.0.1:{port}", ss58_format=42)


def substrate_nonce(port, address):
    substrate = SubstrateInterface(url=f"ws://127.0.0.1:{port}", ss58_format=42)
    return substrate.query("System", "Account", [address]).value["nonce"]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]))
