"""Replays a local chain from its genesis in revm (pyrevm, pinned) and rebuilds every block's state
root with py-trie, so what the hub executed and committed to is checked by two implementations
that share nothing with it.

Only JSON-RPC answers are read (blocks with their transactions, and receipts). The state starts
empty, as a new chain's does, and each block's transactions run in order:
- a transaction of a sender runs in revm (Cancun, base fee zero, the block's validator as
  coinbase, the parent hash as PREVRANDAO, as the chain's blocks define them); its status, gas used,
  logs and created contract must be the receipt's;
- the validator's own transfers issue money (a grant or top-up creates the value, a payment to it
  destroys the value), as the chain's rules say, so its balance stays zero.
After each block the replayed state's root (secure Merkle Patricia trie of RLP accounts with their
storage tries) must be the block's `stateRoot`.

pyrevm never ends a transaction (accounts stay warm into the next one), so each transaction runs
in a fresh revm over the state the one before left (tools/evm/revm_runner.py, as the EVM
differential test does it). Fees are not modelled: the check refuses a transaction with a
non-zero effective gas price, which a chain on its default (free gas) never has.
"""

import os
import sys

import rlp
from eth_utils import keccak
from trie import HexaryTrie

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "evm"))
import revm_runner  # noqa: E402  (tools/evm, beside this folder)

EMPTY_CODE_HASH = keccak(b"")


class ReplayMismatch(Exception):
    pass


def _hex(data):
    return "0x" + bytes(data).hex()


def _address(value):
    return value.lower() if isinstance(value, str) else _hex(value)


def state_root(state):
    """Ethereum's state root of `state` ({address: {balance, nonce, code, storage}}, hex strings as
    revm_runner takes them), built with py-trie; empty accounts are left out (EIP-161)."""
    accounts = HexaryTrie(db={})
    for address, account in state.items():
        code = bytes.fromhex(account["code"][2:])
        balance = int(account["balance"], 16)
        if account["nonce"] == 0 and balance == 0 and not code and not account["storage"]:
            continue
        storage = HexaryTrie(db={})
        for slot, value in account["storage"].items():
            storage[keccak(int(slot, 16).to_bytes(32, "big"))] = rlp.encode(int(value, 16))
        accounts[keccak(bytes.fromhex(address[2:]))] = rlp.encode([account["nonce"], balance, storage.root_hash, keccak(code)])
    return accounts.root_hash


def _account(state, address):
    return state.setdefault(address, {"balance": "0x0", "nonce": 0, "code": "0x", "storage": {}})


def _issue(state, tx, receipt, validator):
    """The validator's side of the chain: a transfer from it mints, one to it burns."""
    sender, recipient, value = _address(tx["from"]), _address(tx["to"]), tx["value"]
    _account(state, sender)["nonce"] += 1
    _account(state, recipient)
    payer = state[sender]
    status = 1
    if sender != validator and int(payer["balance"], 16) < value:
        status = 0
    elif sender != recipient:
        if sender != validator:
            payer["balance"] = hex(int(payer["balance"], 16) - value)
        if recipient != validator:
            state[recipient]["balance"] = hex(int(state[recipient]["balance"], 16) + value)
    if receipt["status"] != status or receipt["gasUsed"] != 21000 or receipt["logs"]:
        raise ReplayMismatch(f"the validator's transfer {_hex(tx['hash'])}: the receipt says status {receipt['status']}, "
                             f"gas {receipt['gasUsed']}; issuing gives status {status}, gas 21000")


def _run(state, tx, receipt, block_env):
    """A sender's transaction in revm; returns the state after it."""
    to = None if tx["to"] is None else _address(tx["to"])
    case = {
        "name": _hex(tx["hash"]),
        "pre": state,
        "block": block_env,
        "txs": [{"sender": _address(tx["from"]), "to": to, "value": hex(tx["value"]), "data": _hex(tx["input"]), "gasLimit": tx["gas"]}],
    }
    evm = revm_runner.new_evm(case)
    result = revm_runner.run_tx(evm, case["txs"][0])
    if result["status"] == "invalid":
        raise ReplayMismatch(f"{case['name']}: revm refuses the transaction ({result['error']}); the hub included it")
    expected = {
        "status": 1 if result["status"] == "success" else 0,
        "gasUsed": result["gasUsed"],
        "logs": [(log["address"], [int(t, 16) for t in log["topics"]], log["data"]) for log in result["logs"]],
        "contractAddress": result["contractAddress"],
    }
    actual = {
        "status": receipt["status"],
        "gasUsed": receipt["gasUsed"],
        "logs": [(_address(log["address"]), [int.from_bytes(bytes(t), "big") for t in log["topics"]], _hex(log["data"])) for log in receipt["logs"]],
        "contractAddress": _address(receipt["contractAddress"]) if receipt["contractAddress"] else None,
    }
    if expected != actual:
        differing = {key: (actual[key], expected[key]) for key in expected if expected[key] != actual[key]}
        raise ReplayMismatch(f"{case['name']}: the receipt differs from revm's (hub, revm): {differing}")
    created = [result["contractAddress"]] if result["contractAddress"] else []
    after = {}
    for address, account in revm_runner.accounts(evm, case, extra_accounts=created).items():
        code = _original_code(evm.basic(address).code or b"", account["codeHash"])
        if code is None:
            raise ReplayMismatch(f"{case['name']}: revm's code of {address} does not hash to its code hash")
        after[address] = {"balance": account["balance"], "nonce": account["nonce"], "code": code, "storage": account["storage"]}
    return after


def _original_code(analysed, code_hash):
    """The code whose hash is `code_hash`, from revm's analysed copy: revm pads a program with up to
    33 zero bytes (an account without code reads as one STOP byte). `None` when no cut matches."""
    for cut in range(0, min(33, len(analysed)) + 1):
        code = analysed[: len(analysed) - cut]
        if _hex(keccak(code)) == code_hash:
            return _hex(code)
    return None


def replay(w3):
    """Replays every block of the chain behind `w3` (web3.py); returns (blocks, transactions)
    replayed. Raises ReplayMismatch at the first receipt or state root that differs."""
    chain_id = w3.eth.chain_id
    head = w3.eth.block_number
    state = {}
    transactions = 0
    for number in range(0, head + 1):
        block = w3.eth.get_block(number, full_transactions=True)
        validator = _address(block["miner"])
        block_env = {
            "chainId": chain_id,
            "number": number,
            "coinbase": validator,
            "timestamp": block["timestamp"],
            "prevRandao": _hex(block["parentHash"]),
            "baseFee": "0x0",
            "gasLimit": block["gasLimit"],
        }
        for tx in block["transactions"]:
            receipt = w3.eth.get_transaction_receipt(tx["hash"])
            if receipt["effectiveGasPrice"] != 0:
                raise ReplayMismatch(f"{_hex(tx['hash'])} pays gas at {receipt['effectiveGasPrice']}: the replay models free gas only")
            if validator in (_address(tx["from"]), _address(tx["to"]) if tx["to"] else None):
                _issue(state, tx, receipt, validator)
            else:
                state = _run(state, tx, receipt, block_env)
                # Money that reached the validator (a contract paying it) is destroyed.
                if validator in state:
                    state[validator]["balance"] = "0x0"
            transactions += 1
        if state_root(state) != bytes(block["stateRoot"]):
            raise ReplayMismatch(f"block {number}: its state root {_hex(block['stateRoot'])} is not the replayed state's {_hex(state_root(state))}")
    return head + 1, transactions
