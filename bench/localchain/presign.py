"""Pre-signs the local chain benchmark's transactions (scripts/bench-localchain.sh).

  presign.py CHAIN_ID SENDERS PER_SENDER OUT_DIR

Writes OUT_DIR/keys.txt (one sender address per line, for the grants) and OUT_DIR/raw.txt: one
line per transaction, `SENDER_INDEX<TAB>0x signed transaction`, each sender's transactions in
nonce order (send.lua wraps them in JSON-RPC calls). Legacy EIP-155 transfers of 1 unit, gas
price 0, signed with coincurve (libsecp256k1) directly: eth-account's per-call overhead (~8 ms)
would make signing the bottleneck of preparing the run. A sample is checked with eth-account's
recovery. `sign` and `sender` also serve erc20.py (the ERC-20 phase's token transfers).
"""

import os
import sys

import rlp
from coincurve import PrivateKey
from eth_account import Account
from eth_utils import keccak, to_checksum_address

def sign(key, chain_id, nonce, to, value, gas=21000, data=b""):
    """A legacy EIP-155 transaction, gas price 0, RLP-encoded (`to` b"" for a creation)."""
    unsigned = [nonce, 0, gas, to, value, data]
    digest = keccak(rlp.encode(unsigned + [chain_id, 0, 0]))
    signature = key.sign_recoverable(digest, hasher=None)
    r, s, recid = int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:64], "big"), signature[64]
    return rlp.encode(unsigned + [chain_id * 2 + 35 + recid, r, s])


def sender(index):
    """The benchmark's sender `index`: its key and checksummed address (the same on every chain)."""
    key = PrivateKey(keccak(f"hubd-bench-{index}".encode()))
    return key, to_checksum_address(keccak(key.public_key.format(compressed=False)[1:])[-20:])


def main(chain_id, senders, per_sender, out):
    os.makedirs(out, exist_ok=True)
    lines = []
    addresses = []
    recipient = bytes.fromhex("00000000000000000000000000000000000be4c4")
    for index in range(senders):
        key, address = sender(index)
        addresses.append(address)
        for nonce in range(per_sender):
            raw = sign(key, chain_id, nonce, recipient, 1)
            if index == 0 and nonce < 3 and Account.recover_transaction(raw) != address:
                sys.exit("presign.py: a pre-signed transaction does not recover to its sender")
            lines.append(f"{index}\t0x{raw.hex()}")
    with open(os.path.join(out, "keys.txt"), "w") as file:
        file.write("\n".join(addresses) + "\n")
    with open(os.path.join(out, "raw.txt"), "w") as file:
        file.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
