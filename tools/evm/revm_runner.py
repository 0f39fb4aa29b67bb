"""Runs a standalone case (the JSON `hubd evm run` reads) in revm through pyrevm and returns the
outcome in EVMKit's shape (StandaloneOutcome.swift), so the two can be compared as dicts.

pyrevm 0.3.7's `message_call` and `deploy` run a whole transaction (intrinsic gas, refunds, EIP-161)
but charge no fees, and `message_call` leaves the sender's nonce alone: the cases use a zero gas
price, and the sender's nonce is raised here after each call, as a real transaction would.
"""

import re

from pyrevm import EVM, AccountInfo, BlockEnv, CfgEnv, Env

from evmgen import SLOTS

KECCAK_EMPTY = "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"


def _bytes(text):
    return bytes.fromhex(text[2:] if text.startswith("0x") else text)


def _hex(value):
    return hex(value)


def new_evm(case):
    block = case["block"]
    env = Env(
        cfg=CfgEnv(chain_id=block["chainId"]),
        block=BlockEnv(
            number=block["number"],
            coinbase=block["coinbase"],
            timestamp=block["timestamp"],
            prevrandao=int(block["prevRandao"], 16).to_bytes(32, "big"),
            basefee=int(block["baseFee"], 16),
            gas_limit=block["gasLimit"],
            excess_blob_gas=0,
        ),
    )
    # pyrevm puts its own gas_limit into the block of every call (and a zero base fee, which the
    # cases use anyway).
    evm = EVM(env=env, gas_limit=block["gasLimit"], spec_id="CANCUN")
    # The pre-state must go into revm's database, not its journal: pyrevm's setters load an account
    # into the journal (which makes it warm for the coming transaction), and a slot stored there is
    # a write whose original value is zero (which changes SSTORE's gas). `insert_account_info` of an
    # account not loaded yet writes the database only; `insert_account_storage` writes the database
    # and then loads the account, which a revert to a checkpoint taken just before undoes.
    for address, account in case["pre"].items():
        info = AccountInfo(balance=int(account["balance"], 16), nonce=account["nonce"], code=_bytes(account["code"]))
        evm.insert_account_info(address, info)
        for slot, value in account["storage"].items():
            checkpoint = evm.snapshot()
            evm.insert_account_storage(address, int(slot, 16), int(value, 16))
            evm.revert(checkpoint)
    assert evm.journal_depth == 0
    return evm


_REVERT = re.compile(r"Revert \{ gas_used: (\d+), output: (0x[0-9a-fA-F]*) \}")
_HALT = re.compile(r"Halt \{ reason: (\w+).*gas_used: (\d+)")


def run_tx(evm, tx):
    value = int(tx["value"], 16)
    data = _bytes(tx["data"])
    result = {"status": "success", "output": "0x", "gasUsed": 0, "logs": [], "contractAddress": None, "error": None}
    try:
        if tx["to"] is None:
            address = evm.deploy(tx["sender"], data, value=value, gas=tx["gasLimit"])
            result["contractAddress"] = address.lower()
        else:
            result["output"] = "0x" + bytes(evm.message_call(tx["sender"], tx["to"], data, value=value, gas=tx["gasLimit"])).hex()
    except RuntimeError as error:
        text = str(error)
        if match := _REVERT.search(text):
            result.update(status="revert", gasUsed=int(match[1]), output=match[2].lower())
        elif match := _HALT.search(text):
            result.update(status="halt", gasUsed=int(match[2]), error=match[1])
        else:
            result.update(status="invalid", error=text)
            return result
    else:
        outcome = evm.result
        result["gasUsed"] = outcome.gas_used
        result["logs"] = [
            {"address": log.address.lower(), "topics": [_hex(int(t, 16)) for t in log.topics], "data": "0x" + log.data[1].hex()}
            for log in outcome.logs
        ]
    if tx["to"] is not None:
        sender = tx["sender"]
        balance = evm.get_balance(sender)
        evm.insert_account_info(sender, AccountInfo(nonce=evm.basic(sender).nonce + 1))
        evm.set_balance(sender, balance)
    return result


_ACCOUNT = re.compile(r"(0x[0-9a-fA-F]{40}): Account \{")
_STATUS = re.compile(r"status: AccountStatus\(([^)]*)\)")


def self_destructed(evm):
    """Accounts the transaction destroyed (EIP-6780: created and self-destructed in it). Ending the
    transaction would delete them; pyrevm never ends it, so they are read from its journal."""
    text = evm.journal_str
    gone = set()
    for match in _ACCOUNT.finditer(text):
        status = _STATUS.search(text, match.end())
        if status and "SelfDestructed" in status[1]:
            gone.add(match[1].lower())
    return gone


_SLOT = re.compile(r"(\d+): StorageSlot \{")


def touched_slots(evm):
    """Every storage slot the transaction read or wrote, of any account (from pyrevm's journal), so
    a slot only revm wrote is compared too."""
    return {int(match[1]) for match in _SLOT.finditer(evm.journal_str)}


def accounts(evm, case, extra_accounts=(), extra_slots=()):
    addresses = {a.lower() for a in case["pre"]} | {case["block"]["coinbase"].lower()}
    addresses |= {a.lower() for a in evm.journal_state} | {a.lower() for a in extra_accounts}
    slots = set(SLOTS) | set(extra_slots) | touched_slots(evm)
    for account in case["pre"].values():
        slots |= {int(s, 16) for s in account["storage"]}
    out = {}
    for address in sorted(addresses - self_destructed(evm)):
        info = evm.basic(address)
        balance = evm.get_balance(address)
        code_hash = "0x" + info.code_hash.hex() if info.code_hash else KECCAK_EMPTY
        if code_hash == "0x" + "00" * 32:
            code_hash = KECCAK_EMPTY
        storage = {}
        for slot in sorted(slots):
            value = evm.storage(address, slot)
            if value:
                storage[_hex(slot)] = _hex(value)
        if info.nonce == 0 and balance == 0 and code_hash == KECCAK_EMPTY and not storage:
            continue
        out[address] = {"balance": _hex(balance), "nonce": info.nonce, "codeHash": code_hash, "storage": storage}
    return out


def run_case(case, swift_outcome=None):
    """The outcome of a one-transaction `case` in revm. `swift_outcome` (EVMKit's) names accounts
    and slots to read beyond the case's own, so an account or slot only one engine wrote shows up on
    both sides. pyrevm never finalises a transaction (accounts stay warm, transient storage stays),
    so a chain of transactions is run as one case per transaction (difftest.run_chain)."""
    assert len(case["txs"]) == 1, "pyrevm runs one transaction per EVM faithfully"
    evm = new_evm(case)
    results = [run_tx(evm, tx) for tx in case["txs"]]
    extra_accounts, extra_slots = [], []
    if swift_outcome:
        extra_accounts = list(swift_outcome["accounts"])
        extra_slots = [int(s, 16) for a in swift_outcome["accounts"].values() for s in a["storage"]]
    extra_accounts += [r["contractAddress"] for r in results if r["contractAddress"]]
    return {"name": case["name"], "results": results, "accounts": accounts(evm, case, extra_accounts, extra_slots)}
