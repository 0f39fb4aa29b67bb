#!/usr/bin/env python3
"""Golden vectors for Ethereum's state root (ChainKit's EthereumStateRoot, the local chain's
state commitment since contracts run).

Run with the trie venv (tools/vectors/.venv-trie, pinned by requirements-trie.txt); normally
through `bash tools/vectors/generate.sh`.

Writes eth_state_root.json: sets of accounts (address, nonce, balance, code, storage) with each
account's storage root and the state root, computed by py-trie's HexaryTrie (the Ethereum
Foundation's Python Merkle Patricia trie), with keys hashed as Ethereum's secure trie does and
accounts encoded with pyrlp as RLP([nonce, balance, storageRoot, codeHash]). The account sets
come from a fixed seed, so a regeneration is byte-identical.
"""
import random

import rlp
from eth_utils import keccak
from trie import HexaryTrie

from vectorlib import dec, hx, parse_args, versions, write_vectors

GENERATOR = "tools/vectors/gen_state_root.py"
ORACLES = versions("trie", "rlp", "eth-utils", "eth-hash", "pycryptodome")
BLANK_ROOT = keccak(rlp.encode(b""))
EMPTY_CODE_HASH = keccak(b"")


def storage_root(storage):
    t = HexaryTrie(db={})
    for slot, value in storage.items():
        if value:
            t[keccak(slot.to_bytes(32, "big"))] = rlp.encode(value)
    return t.root_hash


def state_root(accounts):
    t = HexaryTrie(db={})
    for a in accounts:
        code_hash = keccak(a["code"])
        if a["nonce"] == 0 and a["balance"] == 0 and code_hash == EMPTY_CODE_HASH:
            continue  # EIP-161: empty accounts are not in the trie
        t[keccak(a["address"])] = rlp.encode([a["nonce"], a["balance"], storage_root(a["storage"]), code_hash])
    return t.root_hash


def account_set(rng, count, contracts, big=False):
    accounts = []
    for i in range(count):
        storage = {}
        code = b""
        if i < contracts:
            code = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
            for _ in range(rng.randrange(0, 12)):
                slot = rng.choice([rng.randrange(8), rng.getrandbits(256)])
                storage[slot] = rng.choice([0, 1, rng.getrandbits(64), rng.getrandbits(256)])
        balance = rng.getrandbits(127) if big else rng.choice([0, 0, 1, rng.getrandbits(40)])
        accounts.append({
            "address": bytes(rng.randrange(256) for _ in range(20)),
            "nonce": rng.choice([0, 1, rng.randrange(1, 1000)]),
            "balance": balance,
            "code": code,
            "storage": storage,
        })
    return accounts


def vector(name, accounts):
    return {
        "name": name,
        "accounts": [
            {
                "address": hx(a["address"]),
                "nonce": a["nonce"],
                "balance": dec(a["balance"]),
                "code": hx(a["code"]),
                "storage": [[hx(s.to_bytes(32, "big")), hx(v.to_bytes(32, "big"))] for s, v in sorted(a["storage"].items())],
                "storage_root": hx(storage_root(a["storage"])),
            }
            for a in accounts
        ],
        "state_root": hx(state_root(accounts)),
    }


def main():
    args = parse_args(__doc__)
    rng = random.Random(20261125)
    assert state_root([]) == BLANK_ROOT
    vectors = [
        vector("empty", []),
        vector("one_eoa", [{"address": bytes(range(20)), "nonce": 1, "balance": 10**18, "code": b"", "storage": {}}]),
        vector("empty_accounts_left_out", [
            {"address": bytes([1] * 20), "nonce": 0, "balance": 0, "code": b"", "storage": {}},
            {"address": bytes([2] * 20), "nonce": 0, "balance": 5, "code": b"", "storage": {}},
        ]),
        vector("contract_with_zero_slot", [
            {"address": bytes([3] * 20), "nonce": 1, "balance": 0, "code": b"\x60\x00", "storage": {0: 7, 1: 0, 2**255: 2**256 - 1}},
        ]),
        vector("small_mixed", account_set(rng, 6, 2)),
        vector("medium_mixed", account_set(rng, 40, 8)),
        vector("large_balances", account_set(rng, 25, 3, big=True)),
        vector("many_accounts", account_set(rng, 300, 20)),
    ]
    write_vectors(args.out, "eth_state_root.json", GENERATOR, ORACLES, vectors)


if __name__ == "__main__":
    main()
