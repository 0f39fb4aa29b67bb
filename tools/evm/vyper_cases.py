"""The Vyper contracts in tools/evm/contracts/, compiled by the pinned vyper (cancun), as multi-
transaction standalone cases: deployment, then the calls a wallet or a marketplace makes. Shared by
the differential test and the benchmark."""

import functools
import os

from Crypto.Hash import keccak
import vyper
from vyper.compiler.settings import Settings

from evmgen import BLOCK, COINBASE, SENDER

HERE = os.path.dirname(os.path.abspath(__file__))
ALICE = "0x" + "00" * 18 + "a11c"
BOB = "0x" + "00" * 18 + "b0b0"


@functools.cache
def compile_contract(name):
    """(initcode, {signature: selector bytes}) of tools/evm/contracts/NAME.vy."""
    with open(os.path.join(HERE, "contracts", name + ".vy")) as handle:
        source = handle.read()
    out = vyper.compile_code(source, output_formats=["bytecode", "method_identifiers"], settings=Settings(evm_version="cancun"))
    selectors = {sig: int(sel, 16).to_bytes(4, "big") for sig, sel in out["method_identifiers"].items()}
    return bytes.fromhex(out["bytecode"][2:]), selectors


def word(value):
    """One ABI word: an int, an address (0x hex) or a bool."""
    if isinstance(value, str):
        value = int(value, 16)
    return int(value).to_bytes(32, "big")


def calldata(contract, signature, *args):
    return compile_contract(contract)[1][signature] + b"".join(word(a) for a in args)


def rlp_create_address(sender, nonce):
    """CREATE's address: keccak256(rlp([sender, nonce]))[12:]."""
    sender_bytes = bytes.fromhex(sender[2:])
    if nonce == 0:
        nonce_rlp = b"\x80"
    elif nonce < 0x80:
        nonce_rlp = bytes([nonce])
    else:
        raw = nonce.to_bytes((nonce.bit_length() + 7) // 8, "big")
        nonce_rlp = bytes([0x80 + len(raw)]) + raw
    payload = bytes([0x80 + 20]) + sender_bytes + nonce_rlp
    encoded = bytes([0xC0 + len(payload)]) + payload
    return "0x" + keccak.new(data=encoded, digest_bits=256).digest()[12:].hex()


class Script:
    """Builds a case's transactions, tracking each sender's nonce as the engines will."""

    def __init__(self, name, gas=10_000_000):
        self.name = name
        self.gas = gas
        self.pre = {address: {"balance": hex(10**24), "nonce": 0, "code": "0x", "storage": {}} for address in (SENDER, ALICE, BOB)}
        self.nonces = {SENDER: 0, ALICE: 0, BOB: 0}
        self.txs = []
        self.expect_failure = []

    def _tx(self, sender, to, data, fails=False):
        if fails:
            self.expect_failure.append(len(self.txs))
        self.txs.append({"sender": sender, "to": to, "nonce": self.nonces[sender], "value": "0x0",
                         "data": "0x" + data.hex(), "gasLimit": self.gas, "gasPrice": "0x0"})
        self.nonces[sender] += 1

    def deploy(self, contract, *args, sender=SENDER):
        address = rlp_create_address(sender, self.nonces[sender])
        self._tx(sender, None, compile_contract(contract)[0] + b"".join(word(a) for a in args))
        return address

    def call(self, address, contract, signature, *args, sender=SENDER, fails=False):
        self._tx(sender, address, calldata(contract, signature, *args), fails)

    def case(self):
        return {"name": self.name, "pre": self.pre, "block": BLOCK, "txs": self.txs, "expectFailure": self.expect_failure}


def token_case():
    s = Script("vyper-erc20")
    token = s.deploy("Token", 10**24)
    s.call(token, "Token", "transfer(address,uint256)", ALICE, 1000)
    s.call(token, "Token", "transfer(address,uint256)", BOB, 1)
    s.call(token, "Token", "transfer(address,uint256)", BOB, 2000, sender=ALICE, fails=True)  # overdraft
    s.call(token, "Token", "approve(address,uint256)", BOB, 300, sender=ALICE)
    s.call(token, "Token", "transferFrom(address,address,uint256)", ALICE, COINBASE, 250, sender=BOB)
    s.call(token, "Token", "transferFrom(address,address,uint256)", ALICE, COINBASE, 51, sender=BOB, fails=True)
    s.call(token, "Token", "transfer(address,uint256)", "0x" + "00" * 20, 1, fails=True)
    s.call(token, "Token", "balanceOf(address)", ALICE)
    s.call(token, "Token", "name()")
    return s.case()


def collectible_case():
    s = Script("vyper-erc721")
    nft = s.deploy("Collectible", SENDER)
    for receiver in (ALICE, ALICE, BOB):
        s.call(nft, "Collectible", "mint(address)", receiver)
    s.call(nft, "Collectible", "mint(address)", ALICE, sender=ALICE, fails=True)  # not the minter
    s.call(nft, "Collectible", "transferFrom(address,address,uint256)", ALICE, BOB, 1, sender=ALICE)
    s.call(nft, "Collectible", "transferFrom(address,address,uint256)", ALICE, BOB, 1, sender=ALICE, fails=True)
    s.call(nft, "Collectible", "approve(address,uint256)", SENDER, 2, sender=ALICE)
    s.call(nft, "Collectible", "transferFrom(address,address,uint256)", ALICE, SENDER, 2)
    s.call(nft, "Collectible", "setApprovalForAll(address,bool)", ALICE, 1, sender=BOB)
    s.call(nft, "Collectible", "transferFrom(address,address,uint256)", BOB, ALICE, 3, sender=ALICE)
    s.call(nft, "Collectible", "supportsInterface(bytes4)", 0x80AC58CD << 224)
    s.call(nft, "Collectible", "ownerOf(uint256)", 2)
    return s.case()


def batch_case(count=40):
    """The benchmark's workloads, small: batched transfers and mints, and the compute loop."""
    s = Script("vyper-batch")
    batch = s.deploy("Batch")
    token = s.deploy("Token", 10**24)
    nft = s.deploy("Collectible", batch)
    s.call(token, "Token", "transfer(address,uint256)", batch, 10**20)
    s.call(batch, "Batch", "transfers(address,uint256)", token, count)
    s.call(batch, "Batch", "mints(address,uint256)", nft, count)
    s.call(batch, "Batch", "compute(uint256)", count)
    s.call(batch, "Batch", "copies(address,uint256)", token, 3)
    return s.case()


def cases():
    return [token_case(), collectible_case(), batch_case()]
