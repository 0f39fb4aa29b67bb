"""Self-test of the EVM test node (tools/evmnode/node.py) driven by web3.py and eth-account.

Usage: test_node.py   (run by `scripts/evm-testnode.sh --self-test`, in the node's pinned venv)

Starts the node on a free port (read from its `listening on ...` line), then: deploys a tiny
contract from hand-assembled initcode, sends legacy (EIP-155), EIP-2930 and EIP-1559 transactions,
checks receipts, logs, blocks and balances, has a transaction of each refused kind refused with
geth's words, holds a transaction in the pool and replaces it, reorganises the chain both ways
(snapshot/revert and testnode_reorg), and plays a node that is down. The last line is
`N passed, N failed`; the exit status is non-zero when a check fails.
"""

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

import rlp
from eth_account import Account
from eth_utils import keccak
from web3 import Web3

HERE = os.path.dirname(os.path.abspath(__file__))
CHAIN_ID = 31337
GWEI = 10**9

passed = 0


def check(condition, message):
    global passed
    if not condition:
        print(f"test_node.py: FAILED: {message}", file=sys.stderr, flush=True)
        print(f"{passed} passed, 1 failed")
        sys.exit(1)
    passed += 1


# -- the contract --------------------------------------------------------------------------------

OPCODES = {
    "STOP": 0x00, "ISZERO": 0x15, "CALLER": 0x33, "CALLDATALOAD": 0x35, "CALLDATASIZE": 0x36, "CODECOPY": 0x39,
    "MSTORE": 0x52, "SLOAD": 0x54, "SSTORE": 0x55, "JUMPI": 0x57, "JUMPDEST": 0x5B, "DUP1": 0x80, "LOG2": 0xA2,
    "RETURN": 0xF3, "REVERT": 0xFD,
}


def assemble(program):
    """Opcode names, ("push", value, size), ("label", name) and ("to", name) (a PUSH1 of a label's
    offset) to bytecode, in two passes."""
    labels, offset = {}, 0
    for item in program:
        if isinstance(item, str):
            offset += 1
        elif item[0] == "label":
            labels[item[1]] = offset
        elif item[0] == "push":
            offset += 1 + item[2]
        else:
            offset += 2
    code = bytearray()
    for item in program:
        if isinstance(item, str):
            code.append(OPCODES[item])
        elif item[0] == "push":
            code.append(0x5F + item[2])
            code += item[1].to_bytes(item[2], "big")
        elif item[0] == "to":
            code += bytes([0x60, labels[item[1]]])
    return bytes(code)


def push(value, size=1):
    return ("push", value, size)


STORED_TOPIC = keccak(text="Stored(address,uint256)")
ZERO_REASON = b"zero"
# No calldata: returns the stored word. A word x != 0: stores it and logs Stored(caller, x).
# x == 0: reverts with Error("zero").
RUNTIME = assemble([
    "CALLDATASIZE", ("to", "store"), "JUMPI",
    push(0), "SLOAD", push(0), "MSTORE", push(32), push(0), "RETURN",
    ("label", "store"), "JUMPDEST",
    push(0), "CALLDATALOAD", "DUP1", ("to", "ok"), "JUMPI",
    push(0x08C379A0 << 224, 32), push(0), "MSTORE",
    push(0x20), push(4), "MSTORE",
    push(len(ZERO_REASON)), push(36), "MSTORE",
    push(int.from_bytes(ZERO_REASON.ljust(32, b"\x00"), "big"), 32), push(68), "MSTORE",
    push(100), push(0), "REVERT",
    ("label", "ok"), "JUMPDEST",
    "DUP1", push(0), "SSTORE",
    push(0), "MSTORE",
    "CALLER", push(int.from_bytes(STORED_TOPIC, "big"), 32), push(32), push(0), "LOG2",
    "STOP",
])
INITCODE = assemble([push(len(RUNTIME)), "DUP1", push(11), push(0), "CODECOPY", push(0), "RETURN"]) + RUNTIME


def word(value):
    return "0x" + value.to_bytes(32, "big").hex()


# -- talking to the node -------------------------------------------------------------------------


class NodeProcess:
    def __init__(self, *args):
        self.process = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "node.py"), "--port", "0", *args],
            stdout=subprocess.PIPE, text=True,
        )
        line = self.process.stdout.readline().strip()
        if not line.startswith("listening on http://"):
            self.process.kill()
            raise SystemExit(f"test_node.py: the node did not start: {line!r}")
        self.url = line.removeprefix("listening on ")
        self.w3 = Web3(Web3.HTTPProvider(self.url, request_kwargs={"timeout": 30}))
        self.next_id = 0

    def post(self, method, *params):
        """(HTTP status, JSON-RPC response or the body's text) of one call, without web3.py."""
        self.next_id += 1
        body = json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": list(params)}).encode()
        request = urllib.request.Request(self.url, data=body, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    def rpc(self, method, *params):
        status, response = self.post(method, *params)
        check(status == 200 and "result" in response, f"{method}{list(params)} failed: {status} {response}")
        return response["result"]

    def rpc_error(self, method, *params):
        status, response = self.post(method, *params)
        check(status == 200 and "error" in response, f"{method} was not refused: {status} {response}")
        return response["error"]

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=10)


def signed(account, **fields):
    return "0x" + bytes(Account.sign_transaction(fields, account.key).raw_transaction).hex()


def fees(w3):
    tip = w3.eth.max_priority_fee
    return {"maxFeePerGas": 2 * w3.eth.get_block("pending")["baseFeePerGas"] + tip, "maxPriorityFeePerGas": tip}


def create_address(sender, nonce):
    return "0x" + keccak(rlp.encode([bytes.fromhex(sender[2:]), nonce]))[12:].hex()


def refused_like(node, raw, prefix, what):
    error = node.rpc_error("eth_sendRawTransaction", raw)
    check(error["code"] == -32000 and error["message"].startswith(prefix), f"{what}: got {error}, want -32000 {prefix!r}")


# -- the checks ----------------------------------------------------------------------------------


def main():
    started = time.monotonic()
    alice, bob, carol = Account.create(), Account.create(), Account.create()
    funded = 10 * 10**18
    node = NodeProcess("--chain-id", str(CHAIN_ID), "--fund", f"{alice.address}={funded}", "--fund", f"{carol.address}={funded}")
    try:
        run(node, alice, bob, carol, funded)
        check(node.stop() == 0, "the node did not stop cleanly on SIGTERM")
        other_chain(alice)
    finally:
        if node.process.poll() is None:
            node.process.kill()
    print(f"test_node.py: all checks passed in {time.monotonic() - started:.1f} s", file=sys.stderr)
    print(f"{passed} passed, 0 failed")


def run(node, alice, bob, carol, funded):
    w3 = node.w3
    # Identity and genesis.
    check(w3.is_connected(), "web3 cannot connect")
    check(w3.eth.chain_id == CHAIN_ID, f"eth_chainId is {w3.eth.chain_id}")
    check(w3.net.version == str(CHAIN_ID), f"net_version is {w3.net.version}")
    check("testnode" in w3.client_version, f"web3_clientVersion is {w3.client_version}")
    check(w3.eth.block_number == 0, "a new chain is not at block 0")
    accounts = w3.eth.accounts
    check(len(accounts) == 10 and w3.eth.get_balance(accounts[0]) == 10**24, "eth_accounts are not the funded test accounts")
    check(w3.eth.get_balance(alice.address) == funded, "--fund did not fund alice")
    check(w3.eth.get_balance(bob.address) == 0, "bob has money")
    check(w3.eth.max_priority_fee == GWEI, "eth_maxPriorityFeePerGas is not 1 gwei")
    check(w3.eth.gas_price > GWEI, "eth_gasPrice is not base fee + tip")
    history = w3.eth.fee_history(1, "latest", [50])
    check(len(history["baseFeePerGas"]) == 2 and len(history["reward"]) == 1, f"eth_feeHistory: {history}")

    # EIP-1559: deploy the contract.
    nonce = w3.eth.get_transaction_count(alice.address, "pending")
    gas = w3.eth.estimate_gas({"from": alice.address, "data": "0x" + INITCODE.hex()})
    deploy = signed(alice, type=2, chainId=CHAIN_ID, nonce=nonce, gas=gas, data=INITCODE, value=0, **fees(w3))
    deploy_hash = w3.eth.send_raw_transaction(deploy)
    receipt = w3.eth.get_transaction_receipt(deploy_hash)
    contract = receipt["contractAddress"]
    check(receipt["status"] == 1 and receipt["type"] == 2, f"deploy receipt: {receipt}")
    check(contract.lower() == create_address(alice.address, nonce), "contractAddress is not keccak(rlp([sender, nonce]))")
    check(receipt["gasUsed"] <= gas, "the deploy used more gas than estimated")
    check(bytes(w3.eth.get_code(contract)) == RUNTIME, "eth_getCode is not the runtime code")
    check(w3.eth.block_number == 1 and receipt["blockNumber"] == 1, "automine did not mine the deploy in block 1")

    # Legacy EIP-155: store 7.
    before = w3.eth.get_balance(alice.address)
    legacy = signed(alice, chainId=CHAIN_ID, nonce=nonce + 1, gas=100_000, gasPrice=w3.eth.gas_price, to=contract,
                    value=0, data=(7).to_bytes(32, "big"))
    receipt = w3.eth.get_transaction_receipt(w3.eth.send_raw_transaction(legacy))
    check(receipt["status"] == 1 and receipt["type"] == 0, f"legacy receipt: {receipt}")
    check(len(receipt["logs"]) == 1, "the legacy call logged nothing")
    log = receipt["logs"][0]
    check(log["address"] == contract and bytes(log["topics"][0]) == STORED_TOPIC, f"log: {log}")
    check(bytes(log["topics"][1])[12:].hex() == alice.address[2:].lower(), "the log's topic is not the caller")
    check(int.from_bytes(bytes(log["data"]), "big") == 7, "the log's data is not 7")
    spent = receipt["gasUsed"] * receipt["effectiveGasPrice"]
    check(w3.eth.get_balance(alice.address) == before - spent, "alice did not pay exactly gasUsed * effectiveGasPrice")
    check(int.from_bytes(bytes(w3.eth.call({"to": contract})), "big") == 7, "eth_call does not read 7")
    tx = w3.eth.get_transaction(receipt["transactionHash"])
    check(tx["chainId"] == CHAIN_ID and tx["v"] in (CHAIN_ID * 2 + 35, CHAIN_ID * 2 + 36), f"legacy transaction: {tx}")
    legacy_block = receipt["blockNumber"]

    # EIP-2930: store 9 with an access list.
    access_list = [{"address": contract, "storageKeys": [word(0)]}]
    access = signed(alice, type=1, chainId=CHAIN_ID, nonce=nonce + 2, gas=100_000, gasPrice=w3.eth.gas_price, to=contract,
                    value=0, data=(9).to_bytes(32, "big"), accessList=access_list)
    receipt = w3.eth.get_transaction_receipt(w3.eth.send_raw_transaction(access))
    check(receipt["status"] == 1 and receipt["type"] == 1, f"EIP-2930 receipt: {receipt}")
    tx = w3.eth.get_transaction(receipt["transactionHash"])
    check(tx["type"] == 1 and len(tx["accessList"]) == 1, f"EIP-2930 transaction: {tx}")
    check(int.from_bytes(bytes(w3.eth.call({"to": contract})), "big") == 9, "eth_call does not read 9")

    # EIP-1559 value transfer, the block it is in, and balances.
    before = w3.eth.get_balance(alice.address)
    check(w3.eth.estimate_gas({"from": alice.address, "to": bob.address, "value": 12345}) == 21000, "a transfer does not estimate 21000")
    transfer = signed(alice, type=2, chainId=CHAIN_ID, nonce=nonce + 3, gas=21000, to=bob.address, value=12345, **fees(w3))
    receipt = w3.eth.get_transaction_receipt(w3.eth.send_raw_transaction(transfer))
    check(w3.eth.get_balance(bob.address) == 12345, "bob did not get 12345 wei")
    check(w3.eth.get_balance(alice.address) == before - 12345 - 21000 * receipt["effectiveGasPrice"], "alice's balance after the transfer")
    block = w3.eth.get_block(receipt["blockNumber"], full_transactions=True)
    check(block["hash"] == receipt["blockHash"] and block["transactions"][0]["hash"] == receipt["transactionHash"], "the block does not hold the transfer")
    check(w3.eth.get_block(block["hash"])["number"] == block["number"], "eth_getBlockByHash disagrees with eth_getBlockByNumber")
    check(block["transactions"][0]["gasPrice"] == receipt["effectiveGasPrice"], "a mined EIP-1559 transaction's gasPrice is not the effective one")
    check(w3.eth.get_transaction_count(alice.address) == nonce + 4, "alice's nonce")

    # Reverts: eth_call and eth_estimateGas answer code 3 with the revert data; a mined revert has status 0.
    zero = "0x" + (0).to_bytes(32, "big").hex()
    for method in ("eth_call", "eth_estimateGas"):
        error = node.rpc_error(method, {"from": alice.address, "to": contract, "data": zero}, "latest")
        check(error["code"] == 3 and error["message"] == "execution reverted: zero", f"{method} revert: {error}")
        check(error["data"].startswith("0x08c379a0"), f"{method} revert data: {error}")
    failing = signed(alice, type=2, chainId=CHAIN_ID, nonce=nonce + 4, gas=100_000, to=contract, value=0, data=bytes(32), **fees(w3))
    receipt = w3.eth.get_transaction_receipt(w3.eth.send_raw_transaction(failing))
    check(receipt["status"] == 0 and receipt["logs"] == [], "a reverted transaction is not status 0")
    check(w3.eth.get_transaction_count(alice.address) == nonce + 5, "a reverted transaction did not use its nonce")

    # eth_getLogs by address, topics and block range.
    alice_topic = "0x" + bytes(12).hex() + alice.address[2:].lower()
    check(len(w3.eth.get_logs({"fromBlock": 0, "address": contract})) == 2, "eth_getLogs by address")
    check(len(w3.eth.get_logs({"fromBlock": 0, "topics": ["0x" + STORED_TOPIC.hex(), alice_topic]})) == 2, "eth_getLogs by topics")
    check(w3.eth.get_logs({"fromBlock": 0, "topics": [None, "0x" + bytes(12).hex() + bob.address[2:].lower()]}) == [], "eth_getLogs of no match")
    ranged = w3.eth.get_logs({"fromBlock": legacy_block, "toBlock": legacy_block, "address": [contract]})
    check(len(ranged) == 1 and int.from_bytes(bytes(ranged[0]["data"]), "big") == 7, "eth_getLogs by block range")

    # Refusals in geth's words.
    next_nonce = nonce + 5
    refused_like(node, signed(alice, type=2, chainId=CHAIN_ID, nonce=0, gas=21000, to=bob.address, value=1, **fees(w3)),
                 "nonce too low", "a used nonce")
    refused_like(node, signed(bob, type=2, chainId=CHAIN_ID, nonce=0, gas=21000, to=alice.address, value=10**18, **fees(w3)),
                 "insufficient funds for gas * price + value", "a transfer bob cannot pay")
    refused_like(node, signed(alice, type=2, chainId=1, nonce=next_nonce, gas=21000, to=bob.address, value=1, **fees(w3)),
                 "invalid sender", "another chain's transaction")
    refused_like(node, signed(alice, type=2, chainId=CHAIN_ID, nonce=next_nonce, gas=20000, to=bob.address, value=1, **fees(w3)),
                 "intrinsic gas too low", "too little gas")
    refused_like(node, signed(alice, chainId=CHAIN_ID, nonce=next_nonce, gas=21000, gasPrice=GWEI, to=bob.address, value=1)[:-2],
                 "rlp", "a truncated transaction")
    error = node.rpc_error("eth_getBalance", "0x1234", "latest")
    check(error["code"] == -32602, f"a bad address: {error}")
    error = node.rpc_error("eth_signTransaction", {})
    check(error["code"] == -32601, f"an unknown method: {error}")

    manual_mining(node, alice, bob, next_nonce)
    reorg_by_snapshot(node, alice, bob, contract)
    reorg_in_one_call(node, alice, bob, carol)

    # evm_increaseTime moves the next blocks' clock.
    last = w3.eth.get_block("latest")["timestamp"]
    node.rpc("evm_increaseTime", 3600)
    node.rpc("evm_mine")
    check(w3.eth.get_block("latest")["timestamp"] >= last + 3600, "evm_increaseTime did not move the clock")

    # A node that is down answers 503 until it comes back.
    check(node.rpc("testnode_setDown", 30) is True, "testnode_setDown")
    status, body = node.post("eth_blockNumber")
    check(status == 503, f"a down node answered {status}")
    check(node.rpc("testnode_setDown", 0) is True, "testnode_setDown(0)")
    check(node.post("eth_blockNumber")[0] == 200, "the node did not come back")
    node.rpc("testnode_setDown", 1)
    check(node.post("eth_chainId")[0] == 503, "a node down for a second answered")
    time.sleep(1.2)
    check(node.post("eth_chainId")[0] == 200, "the node did not come back after a second")


def manual_mining(node, alice, bob, nonce):
    """A transaction held in the pool, replaced with a higher fee, then mined."""
    w3 = node.w3
    check(node.rpc("evm_setAutomine", False) is True, "evm_setAutomine(false)")
    head = w3.eth.block_number
    base = {"type": 2, "chainId": CHAIN_ID, "nonce": nonce, "gas": 21000, "to": bob.address, "value": 1000}
    first = signed(alice, maxFeePerGas=10 * GWEI, maxPriorityFeePerGas=GWEI, **base)
    first_hash = node.rpc("eth_sendRawTransaction", first)
    check(node.rpc("eth_getTransactionReceipt", first_hash) is None, "a pending transaction has a receipt")
    pending = node.rpc("eth_getTransactionByHash", first_hash)
    check(pending is not None and pending["blockHash"] is None and pending["blockNumber"] is None, f"pending transaction: {pending}")
    check(w3.eth.get_transaction_count(alice.address, "pending") == nonce + 1, "the pending nonce does not count the pool")
    check(w3.eth.get_transaction_count(alice.address, "latest") == nonce, "the latest nonce counts the pool")
    check(w3.eth.block_number == head, "manual mode mined")
    check(node.rpc("txpool_status") == {"pending": "0x1", "queued": "0x0"}, "txpool_status")
    refused_like(node, first, "already known", "the same transaction again")
    refused_like(node, signed(alice, maxFeePerGas=10_500_000_000, maxPriorityFeePerGas=1_100_000_000, **base),
                 "replacement transaction underpriced", "a replacement 5 % dearer")
    refused_like(node, signed(alice, maxFeePerGas=11 * GWEI, maxPriorityFeePerGas=1_050_000_000, **base),
                 "replacement transaction underpriced", "a replacement whose tip is 5 % higher")
    second_hash = node.rpc("eth_sendRawTransaction", signed(alice, maxFeePerGas=11 * GWEI, maxPriorityFeePerGas=1_100_000_000, **base))
    check(node.rpc("eth_getTransactionByHash", first_hash) is None, "the replaced transaction is still known")
    # Two more of alice's in the pool, one with a nonce gap (queued).
    third = node.rpc("eth_sendRawTransaction", signed(alice, **{**base, "nonce": nonce + 1}, maxFeePerGas=10 * GWEI, maxPriorityFeePerGas=GWEI))
    gapped = node.rpc("eth_sendRawTransaction", signed(alice, **{**base, "nonce": nonce + 3}, maxFeePerGas=10 * GWEI, maxPriorityFeePerGas=GWEI))
    check(node.rpc("txpool_status") == {"pending": "0x2", "queued": "0x1"}, "txpool_status with a gap")
    check(node.rpc("evm_mine") == "0x0", "evm_mine")
    receipt = node.rpc("eth_getTransactionReceipt", second_hash)
    check(receipt is not None and receipt["status"] == "0x1", "the replacement was not mined")
    check(node.rpc("eth_getTransactionReceipt", third)["blockNumber"] == receipt["blockNumber"], "evm_mine did not take the whole pool")
    check(int(receipt["blockNumber"], 16) == head + 1, "evm_mine mined more than one block")
    check(node.rpc("eth_getTransactionReceipt", first_hash) is None, "the replaced transaction was mined")
    check(node.rpc("eth_getTransactionReceipt", gapped) is None, "a transaction after a nonce gap was mined")
    check(node.rpc("evm_setAutomine", True) is True, "evm_setAutomine(true)")
    # Filling the gap mines both (automine: a block each).
    filler = node.rpc("eth_sendRawTransaction", signed(alice, **{**base, "nonce": nonce + 2}, maxFeePerGas=10 * GWEI, maxPriorityFeePerGas=GWEI))
    check(node.rpc("eth_getTransactionReceipt", filler) is not None and node.rpc("eth_getTransactionReceipt", gapped) is not None,
          "filling the nonce gap did not mine the waiting transaction")
    check(w3.eth.block_number == head + 3, "automine did not mine one block per transaction")


def reorg_by_snapshot(node, alice, bob, contract):
    """evm_snapshot at N, a transaction mined in N+1, evm_revert to N, another branch mined."""
    w3 = node.w3
    n = w3.eth.block_number
    snapshot = node.rpc("evm_snapshot")
    nonce = w3.eth.get_transaction_count(alice.address)
    raw = signed(alice, type=2, chainId=CHAIN_ID, nonce=nonce, gas=100_000, to=contract, value=0, data=(11).to_bytes(32, "big"), **fees(w3))
    tx_hash = node.rpc("eth_sendRawTransaction", raw)
    old = w3.eth.get_block(n + 1)
    check(old["transactions"] == [bytes.fromhex(tx_hash[2:])], "the transaction is not in block N+1")
    check(len(w3.eth.get_logs({"fromBlock": n + 1, "address": contract})) == 1, "no log in N+1")
    check(node.rpc("evm_revert", snapshot) is True, "evm_revert")
    check(node.rpc("evm_revert", snapshot) is False, "a snapshot was reverted to twice")
    check(w3.eth.block_number == n, "evm_revert did not go back to N")
    check(node.rpc("eth_getTransactionReceipt", tx_hash) is None, "a reverted transaction has a receipt")
    check(node.rpc("eth_getTransactionByHash", tx_hash) is None, "a reverted transaction is known")
    check(w3.eth.get_transaction_count(alice.address) == nonce, "evm_revert did not give the nonce back")
    check(node.rpc("eth_getBlockByNumber", hex(n + 1), False) is None, "block N+1 is still there")
    node.rpc("evm_mine", {"blocks": 2})
    new = w3.eth.get_block(n + 1)
    check(new["hash"] != old["hash"] and new["transactions"] == [], "block N+1 of the new branch is the old one")
    check(w3.eth.get_logs({"fromBlock": n + 1, "address": contract}) == [], "a log of the old branch is still found")
    check(w3.eth.get_block(old["hash"])["number"] == n + 1, "the old block is not found by hash (geth keeps side blocks)")
    # Re-including the transaction on the new branch.
    node.rpc("eth_sendRawTransaction", raw)
    receipt = node.rpc("eth_getTransactionReceipt", tx_hash)
    check(receipt is not None and int(receipt["blockNumber"], 16) == n + 3, "the re-sent transaction was not mined on the new branch")


def reorg_in_one_call(node, alice, bob, carol):
    """testnode_reorg: the last two blocks replaced, one transaction dropped, the other re-mined."""
    w3 = node.w3
    m = w3.eth.block_number
    dropped_hash = w3.eth.send_raw_transaction(signed(alice, type=2, chainId=CHAIN_ID, nonce=w3.eth.get_transaction_count(alice.address),
                                                      gas=21000, to=bob.address, value=5, **fees(w3)))
    kept_hash = w3.eth.send_raw_transaction(signed(carol, type=2, chainId=CHAIN_ID, nonce=0, gas=21000, to=bob.address, value=7, **fees(w3)))
    old = [w3.eth.get_block(m + 1)["hash"], w3.eth.get_block(m + 2)["hash"]]
    bob_before = w3.eth.get_balance(bob.address)
    result = node.rpc("testnode_reorg", {"depth": 2, "drop": [dropped_hash.to_0x_hex()]})
    check(result["removed"] == [h.to_0x_hex() for h in old], f"testnode_reorg removed {result}")
    check(result["reincluded"] == [kept_hash.to_0x_hex()] and result["head"] == hex(m + 2), f"testnode_reorg: {result}")
    check(node.rpc("eth_getTransactionReceipt", dropped_hash.to_0x_hex()) is None, "the dropped transaction has a receipt")
    check(node.rpc("eth_getTransactionByHash", dropped_hash.to_0x_hex()) is None, "the dropped transaction is known")
    receipt = w3.eth.get_transaction_receipt(kept_hash)
    check(receipt["blockNumber"] == m + 1 and receipt["blockHash"] != old[0], "the kept transaction is not in the new block M+1")
    check(w3.eth.get_block(m + 1)["hash"] != old[0] and w3.eth.get_block(m + 2)["hash"] != old[1], "the blocks' hashes did not change")
    check(w3.eth.get_balance(bob.address) == bob_before - 5, "the dropped transfer still counts")
    error = node.rpc_error("testnode_reorg", {"depth": 1, "drop": ["0x" + "ab" * 32]})
    check(error["code"] == -32602, f"dropping an unknown transaction: {error}")


def other_chain(alice):
    """--chain-id and --no-automine: Kaia's testnet id, transactions wait for evm_mine."""
    node = NodeProcess("--chain-id", "1001", "--no-automine", "--fund", f"{alice.address}={10**18}")
    try:
        w3 = node.w3
        check(w3.eth.chain_id == 1001 and w3.net.version == "1001", "--chain-id 1001")
        raw = signed(alice, chainId=1001, nonce=0, gas=21000, gasPrice=w3.eth.gas_price, to=alice.address, value=1)
        tx_hash = node.rpc("eth_sendRawTransaction", raw)
        check(node.rpc("eth_getTransactionReceipt", tx_hash) is None and w3.eth.block_number == 0, "--no-automine mined")
        node.rpc("evm_mine")
        check(node.rpc("eth_getTransactionReceipt", tx_hash)["blockNumber"] == "0x1", "evm_mine after --no-automine")
        check(node.stop() == 0, "the second node did not stop cleanly")
    finally:
        if node.process.poll() is None:
            node.process.kill()


if __name__ == "__main__":
    main()
