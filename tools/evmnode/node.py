"""A test double for an Ethereum node: JSON-RPC 2.0 over HTTP on top of py-evm (through eth-tester).

No real Ethereum node (geth, Kaia, ...) can run offline on these machines, so the hub's EVM rail is
tested against this stand-in. It answers the methods a wallet or a payment rail uses the way geth
does (hex quantities, lower-case hex addresses, geth's error codes and messages), and adds the
test-only controls of Hardhat and Ganache (`evm_*`) plus its own (`testnode_*`) to hold transactions
unmined, reorganise the chain and play a node that is down. It is not a node: no peers, no
persistence, one process, state in memory.

Usage:
    python tools/evmnode/node.py [--port 0] [--chain-id 31337] [--no-automine]
                                 [--fund 0xADDRESS=WEI ...] [--accounts 10] [--verbose]

With `--port 0` (the default) a free port is picked. Either way, once the socket listens, the
first line on stdout is `listening on http://127.0.0.1:PORT` (flushed): a harness reads it to learn
where to connect. SIGTERM or SIGINT stops the node cleanly (exit status 0).

Methods
-------
Standard (as geth): web3_clientVersion, net_version, net_listening, eth_chainId, eth_syncing,
eth_blockNumber, eth_accounts, eth_gasPrice, eth_maxPriorityFeePerGas, eth_feeHistory,
eth_getBalance, eth_getTransactionCount (`latest`, `pending`, ...), eth_getCode, eth_getStorageAt,
eth_call, eth_estimateGas, eth_sendRawTransaction (legacy EIP-155, EIP-2930, EIP-1559),
eth_getTransactionByHash, eth_getTransactionReceipt, eth_getBlockByNumber, eth_getBlockByHash,
eth_getBlockTransactionCountByNumber, eth_getBlockTransactionCountByHash, eth_getLogs,
txpool_status, txpool_content.

Errors have geth's shapes: -32700 parse error, -32600 invalid request, -32601 unknown method,
-32602 invalid argument, -32000 for refused transactions and missing state ("nonce too low: next
nonce 1, tx nonce 0", "insufficient funds for gas * price + value: balance ..., tx cost ...,
overshot ...", "replacement transaction underpriced", "already known", "intrinsic gas too low: ...",
"invalid sender: invalid chain id for signer: have 1 want 31337", "only replay-protected (EIP-155)
transactions allowed over RPC", "exceeds block gas limit", "max priority fee per gas higher than max
fee per gas", "transaction type not supported"), and code 3 "execution reverted[: reason]" with the
revert data in `data` for eth_call and eth_estimateGas.

Transaction pool (as geth's): a transaction whose nonce is ahead of the account's, or whose max fee
is below the next block's base fee, is accepted and waits. A transaction with the nonce of one that
waits replaces it only when both its fee cap and its tip are at least 10 % higher; else "replacement
transaction underpriced". Transactions that a reorganisation removes are not put back (see below).

Mining control (Hardhat/Ganache conventions)
--------------------------------------------
- automine (default; `--no-automine` to start in manual mode): every accepted transaction that can
  run is mined at once in a block of its own, before eth_sendRawTransaction answers.
- `evm_setAutomine(false)` / `evm_setAutomine(true)`: switch. In manual mode transactions wait in
  the pool: eth_getTransactionByHash shows them with a null blockHash, their receipt is null, and
  `eth_getTransactionCount(addr, "pending")` counts them.
- `evm_mine()` mines one block holding every pool transaction that can run (highest tip first,
  each sender's in nonce order); `evm_mine(TIMESTAMP)` gives it that timestamp;
  `evm_mine({"blocks": N, "timestamp": T})` mines N blocks (the first takes the pool). Returns "0x0".
- `evm_increaseTime(SECONDS)` moves the clock of the next blocks forward: the next block is at least
  SECONDS after the head, and later ones follow the wall clock plus the total offset (returned);
  `evm_setNextBlockTimestamp(T)` fixes the next block's timestamp.
- `evm_snapshot()` returns an id ("0x1", ...); `evm_revert(ID)` goes back to the head block and
  pool of that snapshot and returns true (false for an unknown id). As in Hardhat, the snapshot and
  all later ones are used up.

Reorganisations (two ways)
--------------------------
1. Snapshot and revert, as with Hardhat: at head N call `evm_snapshot()`; send transactions (mined
   into N+1, ...); `evm_revert(id)`: the head is N again and those transactions are unknown
   (receipt null, eth_getTransactionByHash null). Then mine another branch with `evm_mine` and,
   if a test wants some of them back, eth_sendRawTransaction of the same raw bytes. Blocks N+1...
   of the new branch have other hashes (every block gets a fresh random prevRandao).
2. `testnode_reorg({"depth": D, "drop": ["0xTXHASH", ...], "blocks": B})` in one call: the last D
   blocks are replaced by B new ones (default B = D, so the head number stays the same). The
   transactions of the removed blocks, except those in `drop`, are mined again in the first new
   block (one whose nonce no longer follows, because an earlier one of its sender was dropped,
   waits in the pool); dropped ones are gone. Returns {"removed": [old block hashes],
   "dropped": [...], "reincluded": [...], "head": "0x..."}.
   As on geth, eth_getBlockByHash still finds a removed block by its hash; eth_getBlockByNumber,
   receipts, transactions and logs only follow the canonical chain.

A node that is down
-------------------
`testnode_setDown(SECONDS)`: for that long every HTTP request is answered `503 Service
Unavailable` (not JSON-RPC), except a request whose only call is testnode_setDown, so that
`testnode_setDown(0)` brings it back early.
"""

import argparse
import json
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.metadata import version as package_version

from eth._utils.address import generate_contract_address
from eth.exceptions import (
    InsufficientStack,
    InvalidInstruction,
    InvalidJumpDestination,
    OutOfGas,
    Revert,
    StackDepthLimit,
    WriteProtection,
)
from eth.vm.spoof import SpoofTransaction
from eth_abi import decode as abi_decode
from eth_tester import PyEVMBackend
from eth_utils import ValidationError
import rlp

DEFAULT_CHAIN_ID = 31337
DEFAULT_PRIORITY_FEE = 10**9  # what eth_maxPriorityFeePerGas suggests: 1 gwei
PRICE_BUMP_PERCENT = 10  # geth's txpool.pricebump
MAX_TX_SIZE = 128 * 1024  # geth's txMaxSize
MAX_INITCODE_SIZE = 2 * 24576  # EIP-3860
ERROR_SELECTOR = bytes.fromhex("08c379a0")  # Error(string)
SUPPORTED_TX_TYPES = (0, 1, 2)
ZERO_ADDRESS = b"\x00" * 20


class RPCError(Exception):
    """A JSON-RPC error object: code, message and optional data."""

    def __init__(self, code, message, data=None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def as_json(self):
        error = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


def refused(message):
    """A refusal as geth words it: code -32000 and a plain message."""
    return RPCError(-32000, message)


def invalid_argument(index, message):
    return RPCError(-32602, f"invalid argument {index}: {message}")


# -- hex encoding of the JSON-RPC values ---------------------------------------------------------


def quantity(value):
    return hex(value)


def data_hex(value):
    return "0x" + bytes(value).hex()


def address_hex(value):
    return None if value in (None, b"") else "0x" + bytes(value).hex()


def word_hex(value):
    """A 32-byte word (hash, topic, storage key) from an int or bytes."""
    if isinstance(value, int):
        value = value.to_bytes(32, "big")
    return "0x" + bytes(value).rjust(32, b"\x00").hex()


def parse_quantity(value, index):
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if not isinstance(value, str) or not value.startswith(("0x", "0X")) or len(value) < 3:
        raise invalid_argument(index, f"hex string without 0x prefix or not a quantity: {value!r}")
    try:
        return int(value, 16)
    except ValueError:
        raise invalid_argument(index, f"invalid hex quantity {value!r}") from None


def parse_data(value, index):
    if not isinstance(value, str) or not value.startswith(("0x", "0X")):
        raise invalid_argument(index, f"hex string without 0x prefix: {value!r}")
    text = value[2:]
    if len(text) % 2:
        raise invalid_argument(index, "hex string of odd length")
    try:
        return bytes.fromhex(text)
    except ValueError:
        raise invalid_argument(index, f"invalid hex string {value!r}") from None


def parse_address(value, index):
    raw = parse_data(value, index)
    if len(raw) != 20:
        raise invalid_argument(index, f"hex string has length {len(raw) * 2}, want 40 for common.Address")
    return raw


def parse_hash(value, index):
    raw = parse_data(value, index)
    if len(raw) != 32:
        raise invalid_argument(index, f"hex string has length {len(raw) * 2}, want 64 for common.Hash")
    return raw


def param(params, index, default=None, required=False):
    if index < len(params) and params[index] is not None:
        return params[index]
    if required:
        raise RPCError(-32602, f"missing value for required argument {index}")
    return default


# -- the pool --------------------------------------------------------------------------------------


class PoolTx:
    """A transaction waiting in the pool: the decoded py-evm transaction, its raw bytes and when it
    arrived (the order of arrival breaks ties between equal tips)."""

    __slots__ = ("tx", "raw", "sender", "nonce", "hash", "seq")

    def __init__(self, tx, raw, seq):
        self.tx = tx
        self.raw = raw
        self.sender = tx.sender
        self.nonce = tx.nonce
        self.hash = tx.hash
        self.seq = seq


def tx_type(tx):
    return getattr(tx, "type_id", None) or 0


def tx_cost(tx):
    """What geth's pool requires the sender to hold: gas * fee cap + value."""
    return tx.gas * tx.max_fee_per_gas + tx.value


def effective_tip(tx, base_fee):
    return min(tx.max_priority_fee_per_gas, tx.max_fee_per_gas - base_fee)


def effective_gas_price(tx, base_fee):
    if tx_type(tx) == 2:
        return min(tx.max_fee_per_gas, base_fee + tx.max_priority_fee_per_gas)
    return tx.max_fee_per_gas  # gasPrice


class Node:
    """The chain (an eth-tester PyEVMBackend), the pool, the snapshots and the test controls.

    Not thread-safe: the HTTP server serialises every call with `lock`.
    """

    def __init__(self, chain_id=DEFAULT_CHAIN_ID, automine=True, fund=None, accounts=10):
        self.lock = threading.Lock()
        self.chain_id = chain_id
        self.automine = automine
        genesis_state = PyEVMBackend.generate_genesis_state(num_accounts=accounts)
        for address, wei in (fund or {}).items():
            genesis_state[address] = {"balance": wei, "nonce": 0, "code": b"", "storage": {}}
        self.backend = PyEVMBackend(genesis_state=genesis_state)
        # eth-tester derives the number of keys from the genesis state; only the first `accounts`
        # are the funded test accounts.
        self.backend.account_keys = self.backend.account_keys[:accounts]
        # eth-tester's chain class is made afresh for each backend: its chain id (the CHAINID
        # opcode's answer) is ours to set, and it survives a revert to genesis, which makes a new
        # chain object of the same class.
        type(self.backend.chain).chain_id = chain_id
        self.pool = {}  # tx hash -> PoolTx
        self.seq = 0
        self.tx_blocks = {}  # tx hash -> [hash of each block that included it, on any branch]
        self.snapshots = {}  # id -> (block hash, pool, time offset)
        self.next_snapshot = 1
        self.time_offset = 0
        self.next_timestamp = None
        self.next_floor = 0
        self.down_until = 0.0
        self.client_version = (
            f"hubd-evmnode/v0.1.0-testnode/py-evm-{package_version('py-evm')}"
            f"/eth-tester-{package_version('eth-tester')}/python{sys.version_info[0]}.{sys.version_info[1]}"
        )

    # -- chain access ------------------------------------------------------------------------

    @property
    def chain(self):
        return self.backend.chain  # replaced by a revert to genesis: never keep it

    def head(self):
        return self.chain.get_canonical_head()

    def canonical_hash(self, number):
        """The hash of the canonical block at `number`, or None above the head (py-evm keeps the
        number-to-hash entries of a reverted branch, so the head bounds them)."""
        if number < 0 or number > self.head().block_number:
            return None
        return self.chain.get_canonical_block_hash(number)

    def is_canonical(self, header):
        return self.canonical_hash(header.block_number) == header.hash

    def header_for(self, tag, index):
        """The header whose post-state a state query reads: a block tag, a number, or an EIP-1898
        object ({"blockHash": ...} or {"blockNumber": ...})."""
        if isinstance(tag, dict):
            if "blockHash" in tag:
                block_hash = parse_hash(tag["blockHash"], index)
                try:
                    return self.chain.get_block_header_by_hash(block_hash)
                except Exception:
                    raise refused(f"header for hash {word_hex(block_hash)} not found") from None
            tag = tag.get("blockNumber", "latest")
        if tag in (None, "latest", "safe", "finalized", "pending"):
            return self.head()
        if tag == "earliest":
            return self.chain.get_canonical_block_header_by_number(0)
        number = parse_quantity(tag, index)
        block_hash = self.canonical_hash(number)
        if block_hash is None:
            raise refused("header not found")
        return self.chain.get_block_header_by_hash(block_hash)

    def state_at(self, header):
        return self.chain.get_vm(at_header=header).state

    def pending_base_fee(self):
        return self.chain.header.base_fee_per_gas

    # -- lookups -------------------------------------------------------------------------------

    def find_mined(self, tx_hash):
        """(block, index) of a transaction on the canonical chain, or None."""
        for block_hash in self.tx_blocks.get(tx_hash, ()):
            header = self.chain.get_block_header_by_hash(block_hash)
            if self.is_canonical(header):
                block = self.chain.get_block_by_hash(block_hash)
                for index, tx in enumerate(block.transactions):
                    if tx.hash == tx_hash:
                        return block, index
        return None

    def pending_nonce(self, sender):
        nonce = self.state_at(self.head()).get_nonce(sender)
        nonces = {p.nonce for p in self.pool.values() if p.sender == sender}
        while nonce in nonces:
            nonce += 1
        return nonce

    # -- mining --------------------------------------------------------------------------------

    def prune_pool(self):
        """Drops pool transactions whose nonce the chain has used."""
        state = self.state_at(self.head())
        for tx_hash, p in list(self.pool.items()):
            if p.nonce < state.get_nonce(p.sender):
                del self.pool[tx_hash]

    def executable(self, limit=None):
        """Pool transactions that can go into the next block, in the order to apply them: among
        each sender's next transaction the highest effective tip first (then the earliest), each
        sender's in nonce order without gaps, none whose fee cap is below the base fee."""
        self.prune_pool()
        state = self.state_at(self.head())
        base_fee = self.pending_base_fee()
        by_sender = {}
        for p in self.pool.values():
            by_sender.setdefault(p.sender, {})[p.nonce] = p
        next_nonce = {sender: state.get_nonce(sender) for sender in by_sender}
        gas_left = self.chain.header.gas_limit
        chosen = []
        while limit is None or len(chosen) < limit:
            heads = []
            for sender, txs in by_sender.items():
                p = txs.get(next_nonce[sender])
                if p is not None and p.tx.max_fee_per_gas >= base_fee and p.tx.gas <= gas_left:
                    heads.append(p)
            if not heads:
                break
            best = min(heads, key=lambda p: (-effective_tip(p.tx, base_fee), p.seq))
            chosen.append(best)
            next_nonce[best.sender] += 1
            gas_left -= best.tx.gas
        return chosen

    def mine_block(self, candidates=(), timestamp=None, coinbase=ZERO_ADDRESS):
        """Mines one block holding those of `candidates` that apply (each is removed from the pool
        either way: one that no longer applies is dropped, as geth's pool drops it)."""
        chain = self.chain
        parent = self.head()
        if timestamp is None:
            timestamp = self.next_timestamp
        self.next_timestamp = None
        if timestamp is None:
            timestamp = int(time.time()) + self.time_offset
        timestamp = max(timestamp, parent.timestamp + 1, self.next_floor)
        self.next_floor = 0
        chain.header = chain.header.copy(timestamp=timestamp)
        for p in candidates:
            self.pool.pop(p.hash, None)
            try:
                chain.apply_transaction(p.tx)
            except ValidationError as error:
                print(f"evmnode: dropped {word_hex(p.hash)}: {error}", file=sys.stderr, flush=True)
        block = chain.mine_block(coinbase=coinbase, mix_hash=os.urandom(32))
        for tx in block.transactions:
            self.tx_blocks.setdefault(tx.hash, []).append(block.hash)
        return block

    def automine_pool(self):
        """Automine: each transaction that can run goes into a block of its own."""
        while True:
            batch = self.executable(limit=1)
            if not batch:
                return
            self.mine_block(batch)

    # -- transactions ------------------------------------------------------------------------

    def decode_raw(self, raw):
        if not raw:
            raise refused("typed transaction too short")
        if raw[0] < 0x7F and raw[0] not in SUPPORTED_TX_TYPES:
            raise refused("transaction type not supported")
        try:
            tx = self.chain.get_vm().get_transaction_builder().decode(raw)
        except Exception as error:
            raise refused(f"rlp: {error}") from None
        if tx_type(tx) not in SUPPORTED_TX_TYPES:
            raise refused("transaction type not supported")
        return tx

    def add_transaction(self, raw):
        """Validates a signed transaction as geth's pool does, in geth's order, then pools it."""
        tx = self.decode_raw(raw)
        if tx.hash in self.pool:
            raise refused("already known")
        kind = tx_type(tx)
        if kind == 0 and tx.v in (27, 28):
            raise refused("only replay-protected (EIP-155) transactions allowed over RPC")
        if tx.chain_id != self.chain_id:
            raise refused(f"invalid sender: invalid chain id for signer: have {tx.chain_id} want {self.chain_id}")
        try:
            tx.check_signature_validity()
            sender = tx.sender
        except Exception:
            raise refused("invalid sender") from None
        if len(raw) > MAX_TX_SIZE:
            raise refused(f"oversized data: transaction size {len(raw)}, limit {MAX_TX_SIZE}")
        if tx.to == b"" and len(tx.data) > MAX_INITCODE_SIZE:
            raise refused(f"max initcode size exceeded: code size {len(tx.data)}, limit {MAX_INITCODE_SIZE}")
        if tx.gas > self.chain.header.gas_limit:
            raise refused("exceeds block gas limit")
        if tx.max_priority_fee_per_gas > tx.max_fee_per_gas:
            raise refused(
                f"max priority fee per gas higher than max fee per gas: address {address_hex(sender)}, "
                f"maxPriorityFeePerGas: {tx.max_priority_fee_per_gas}, maxFeePerGas: {tx.max_fee_per_gas}"
            )
        if tx.gas < tx.intrinsic_gas:
            raise refused(f"intrinsic gas too low: gas {tx.gas}, minimum needed {tx.intrinsic_gas}")
        state = self.state_at(self.head())
        next_nonce = state.get_nonce(sender)
        if tx.nonce < next_nonce:
            raise refused(f"nonce too low: next nonce {next_nonce}, tx nonce {tx.nonce}")
        balance = state.get_balance(sender)
        cost = tx_cost(tx)
        if balance < cost:
            raise refused(
                f"insufficient funds for gas * price + value: balance {balance}, tx cost {cost}, overshot {cost - balance}"
            )
        replaced = None
        queued = 0
        for p in self.pool.values():
            if p.sender != sender:
                continue
            if p.nonce == tx.nonce:
                replaced = p
            else:
                queued += tx_cost(p.tx)
        if balance < queued + cost:
            raise refused(
                f"insufficient funds for gas * price + value: balance {balance}, queued cost {queued}, "
                f"tx cost {cost}, overshot {queued + cost - balance}"
            )
        if replaced is not None:
            old = replaced.tx
            fee_floor = old.max_fee_per_gas * (100 + PRICE_BUMP_PERCENT) // 100
            tip_floor = old.max_priority_fee_per_gas * (100 + PRICE_BUMP_PERCENT) // 100
            if (
                tx.max_fee_per_gas <= old.max_fee_per_gas
                or tx.max_priority_fee_per_gas <= old.max_priority_fee_per_gas
                or tx.max_fee_per_gas < fee_floor
                or tx.max_priority_fee_per_gas < tip_floor
            ):
                raise refused("replacement transaction underpriced")
            del self.pool[replaced.hash]
        self.seq += 1
        self.pool[tx.hash] = PoolTx(tx, raw, self.seq)
        if self.automine:
            self.automine_pool()
        return tx.hash

    # -- calls -------------------------------------------------------------------------------

    def call_transaction(self, call, header, gas=None):
        """Runs a call object on the post-state of `header` as geth's eth_call does (no base fee
        unless the caller gives a fee, so an account without funds can call) and returns the
        computation. Nothing is kept."""
        if not isinstance(call, dict):
            raise invalid_argument(0, "transaction call object expected")
        sender = parse_address(call["from"], 0) if call.get("from") else ZERO_ADDRESS
        to = parse_address(call["to"], 0) if call.get("to") else b""
        data = call.get("input") or call.get("data") or "0x"
        data = parse_data(data, 0)
        value = parse_quantity(call["value"], 0) if call.get("value") else 0
        if gas is None:
            gas = parse_quantity(call["gas"], 0) if call.get("gas") else header.gas_limit
        gas_price = parse_quantity(call["gasPrice"], 0) if call.get("gasPrice") else None
        max_fee = parse_quantity(call["maxFeePerGas"], 0) if call.get("maxFeePerGas") else None
        tip = parse_quantity(call["maxPriorityFeePerGas"], 0) if call.get("maxPriorityFeePerGas") else None
        vm = self.chain.get_vm(at_header=header.copy(base_fee_per_gas=0))
        state = vm.state
        nonce = state.get_nonce(sender)
        if max_fee is not None or tip is not None:
            max_fee = max_fee if max_fee is not None else (tip or 0)
            unsigned = vm.get_transaction_builder().new_unsigned_dynamic_fee_transaction(
                chain_id=self.chain_id, nonce=nonce, max_priority_fee_per_gas=tip or 0, max_fee_per_gas=max_fee,
                gas=gas, to=to, value=value, data=data, access_list=(),
            )
        else:
            unsigned = vm.create_unsigned_transaction(nonce=nonce, gas_price=gas_price or 0, gas=gas, to=to, value=value, data=data)
        spoofed = SpoofTransaction(unsigned, from_=sender)
        snapshot = state.snapshot()
        try:
            return state.apply_transaction(spoofed)
        except ValidationError as error:
            text = str(error)
            if "balance" in text:
                have = state.get_balance(sender)
                want = value + gas * (gas_price or max_fee or 0)
                raise refused(
                    f"insufficient funds for gas * price + value: address {address_hex(sender)} have {have} want {want}"
                ) from None
            raise refused(text) from None
        finally:
            state.revert(snapshot)

    @staticmethod
    def raise_for(computation):
        """Raises geth's error for a failed call."""
        error = computation.error
        if isinstance(error, Revert):
            output = bytes(computation.output)
            message = "execution reverted"
            if output[:4] == ERROR_SELECTOR:
                try:
                    message += ": " + abi_decode(["string"], output[4:])[0]
                except Exception:
                    pass
            raise RPCError(3, message, data_hex(output))
        if isinstance(error, OutOfGas):
            raise refused("out of gas")
        if isinstance(error, InvalidInstruction):
            raise refused(f"invalid opcode: {error}")
        if isinstance(error, InvalidJumpDestination):
            raise refused("invalid jump destination")
        if isinstance(error, InsufficientStack):
            raise refused(f"stack underflow ({error})")
        if isinstance(error, StackDepthLimit):
            raise refused("max call depth exceeded")
        if isinstance(error, WriteProtection):
            raise refused("write protection")
        raise refused(str(error) or type(error).__name__)

    # -- JSON shapes ---------------------------------------------------------------------------

    def tx_json(self, tx, block=None, index=None):
        kind = tx_type(tx)
        out = {
            "blockHash": word_hex(block.hash) if block else None,
            "blockNumber": quantity(block.number) if block else None,
            "from": address_hex(tx.sender),
            "gas": quantity(tx.gas),
            "hash": word_hex(tx.hash),
            "input": data_hex(tx.data),
            "nonce": quantity(tx.nonce),
            "to": address_hex(tx.to),
            "transactionIndex": quantity(index) if block else None,
            "value": quantity(tx.value),
            "type": quantity(kind),
        }
        if kind == 0:
            out["gasPrice"] = quantity(tx.gas_price)
            out["v"] = quantity(tx.v)
            if tx.chain_id is not None:
                out["chainId"] = quantity(tx.chain_id)
        else:
            out["chainId"] = quantity(tx.chain_id)
            out["accessList"] = [
                {"address": address_hex(address), "storageKeys": [word_hex(slot) for slot in slots]}
                for address, slots in tx.access_list
            ]
            if kind == 1:
                out["gasPrice"] = quantity(tx.max_fee_per_gas)
            else:
                out["maxFeePerGas"] = quantity(tx.max_fee_per_gas)
                out["maxPriorityFeePerGas"] = quantity(tx.max_priority_fee_per_gas)
                price = effective_gas_price(tx, block.header.base_fee_per_gas) if block else tx.max_fee_per_gas
                out["gasPrice"] = quantity(price)
            out["v"] = quantity(tx.y_parity)
            out["yParity"] = quantity(tx.y_parity)
        out["r"] = quantity(tx.r)
        out["s"] = quantity(tx.s)
        return out

    def block_json(self, block, full, pending_txs=None):
        header = block.header
        pending = pending_txs is not None
        out = {
            "number": quantity(header.block_number),
            "hash": None if pending else word_hex(header.hash),
            "parentHash": word_hex(header.parent_hash),
            "nonce": None if pending else data_hex(header.nonce),
            "mixHash": word_hex(header.mix_hash),
            "sha3Uncles": word_hex(header.uncles_hash),
            "logsBloom": data_hex(header.bloom.to_bytes(256, "big")),
            "transactionsRoot": word_hex(header.transaction_root),
            "stateRoot": word_hex(header.state_root),
            "receiptsRoot": word_hex(header.receipt_root),
            "miner": address_hex(header.coinbase),
            "difficulty": quantity(header.difficulty),
            "totalDifficulty": quantity(header.difficulty),
            "extraData": data_hex(header.extra_data),
            "size": quantity(len(rlp.encode(block))),
            "gasLimit": quantity(header.gas_limit),
            "gasUsed": quantity(header.gas_used),
            "timestamp": quantity(header.timestamp),
            "baseFeePerGas": quantity(header.base_fee_per_gas),
            "uncles": [],
        }
        if getattr(header, "withdrawals_root", None) is not None:
            out["withdrawalsRoot"] = word_hex(header.withdrawals_root)
            out["withdrawals"] = []
        for field, name in (
            ("blob_gas_used", "blobGasUsed"),
            ("excess_blob_gas", "excessBlobGas"),
        ):
            if getattr(header, field, None) is not None:
                out[name] = quantity(getattr(header, field))
        for field, name in (("parent_beacon_block_root", "parentBeaconBlockRoot"), ("requests_hash", "requestsHash")):
            if getattr(header, field, None) is not None:
                out[name] = word_hex(getattr(header, field))
        if pending:
            txs = [(p.tx, None, None) for p in pending_txs]
        else:
            txs = [(tx, block, i) for i, tx in enumerate(block.transactions)]
        if full:
            out["transactions"] = [self.tx_json(tx, b, i) for tx, b, i in txs]
        else:
            out["transactions"] = [word_hex(tx.hash) for tx, _, _ in txs]
        return out

    def receipts_json(self, block):
        """The receipts of a mined block, in order, with their logs numbered across the block."""
        receipts = block.get_receipts(self.chain.chaindb)
        out = []
        previous = 0
        log_index = 0
        base_fee = block.header.base_fee_per_gas
        for index, (tx, receipt) in enumerate(zip(block.transactions, receipts)):
            logs = []
            for log in receipt.logs:
                logs.append({
                    "address": address_hex(log.address),
                    "topics": [word_hex(topic) for topic in log.topics],
                    "data": data_hex(log.data),
                    "blockNumber": quantity(block.number),
                    "blockHash": word_hex(block.hash),
                    "blockTimestamp": quantity(block.header.timestamp),
                    "transactionHash": word_hex(tx.hash),
                    "transactionIndex": quantity(index),
                    "logIndex": quantity(log_index),
                    "removed": False,
                })
                log_index += 1
            created = generate_contract_address(tx.sender, tx.nonce) if tx.to == b"" else None
            out.append({
                "transactionHash": word_hex(tx.hash),
                "transactionIndex": quantity(index),
                "blockHash": word_hex(block.hash),
                "blockNumber": quantity(block.number),
                "from": address_hex(tx.sender),
                "to": address_hex(tx.to),
                "cumulativeGasUsed": quantity(receipt.gas_used),
                "gasUsed": quantity(receipt.gas_used - previous),
                "effectiveGasPrice": quantity(effective_gas_price(tx, base_fee)),
                "contractAddress": address_hex(created),
                "logs": logs,
                "logsBloom": data_hex(receipt.bloom.to_bytes(256, "big")),
                "type": quantity(tx_type(tx)),
                "status": quantity(1 if receipt.state_root == b"\x01" else 0),
            })
            previous = receipt.gas_used
        return out

    def block_by_tag(self, tag, index):
        """(block, pending_txs): the canonical block for a tag or number (None if there is none)."""
        if tag == "pending":
            return self.chain.get_block(), self.executable()
        if tag in ("latest", "safe", "finalized"):
            return self.chain.get_block_by_hash(self.head().hash), None
        if tag == "earliest":
            return self.chain.get_canonical_block_by_number(0), None
        block_hash = self.canonical_hash(parse_quantity(tag, index))
        if block_hash is None:
            return None, None
        return self.chain.get_block_by_hash(block_hash), None

    def block_by_hash(self, block_hash):
        """Any known block, canonical or not (as geth's eth_getBlockByHash)."""
        try:
            return self.chain.get_block_by_hash(block_hash)
        except Exception:
            return None

    # -- the methods ---------------------------------------------------------------------------

    def dispatch(self, method, params):
        handler = METHODS.get(method)
        if handler is None:
            raise RPCError(-32601, f"the method {method} does not exist/is not available")
        if params is None:
            params = []
        if not isinstance(params, list):
            raise RPCError(-32602, "non-array args")
        return handler(self, params)

    def web3_clientVersion(self, params):
        return self.client_version

    def net_version(self, params):
        return str(self.chain_id)

    def net_listening(self, params):
        return True

    def eth_chainId(self, params):
        return quantity(self.chain_id)

    def eth_syncing(self, params):
        return False

    def eth_blockNumber(self, params):
        return quantity(self.head().block_number)

    def eth_accounts(self, params):
        return [address_hex(a) for a in self.backend.get_accounts()]

    def eth_gasPrice(self, params):
        return quantity(self.pending_base_fee() + DEFAULT_PRIORITY_FEE)

    def eth_maxPriorityFeePerGas(self, params):
        return quantity(DEFAULT_PRIORITY_FEE)

    def eth_feeHistory(self, params):
        count = parse_quantity(param(params, 0, required=True), 0)
        newest, _ = self.block_by_tag(param(params, 1, "latest"), 1)
        if newest is None:
            raise refused("header not found")
        if newest.number == self.chain.header.block_number:  # pending: the head is the newest mined
            newest = self.chain.get_block_by_hash(self.head().hash)
        percentiles = param(params, 2)
        count = max(0, min(count, 1024, newest.number + 1))
        blocks = [self.chain.get_canonical_block_by_number(n) for n in range(newest.number - count + 1, newest.number + 1)]
        base_fees = [quantity(b.header.base_fee_per_gas) for b in blocks]
        base_fees.append(quantity(self.pending_base_fee() if newest.number == self.head().block_number else
                                  self.chain.get_canonical_block_by_number(newest.number + 1).header.base_fee_per_gas))
        out = {
            "oldestBlock": quantity(newest.number - count + 1),
            "baseFeePerGas": base_fees,
            "gasUsedRatio": [b.header.gas_used / b.header.gas_limit for b in blocks],
        }
        if percentiles:
            rewards = []
            for b in blocks:
                tips = sorted(effective_tip(tx, b.header.base_fee_per_gas) for tx in b.transactions)
                row = []
                for pct in percentiles:
                    row.append(quantity(tips[min(len(tips) - 1, int(len(tips) * pct / 100))] if tips else 0))
                rewards.append(row)
            out["reward"] = rewards
        return out

    def eth_getBalance(self, params):
        address = parse_address(param(params, 0, required=True), 0)
        return quantity(self.state_at(self.header_for(param(params, 1, "latest"), 1)).get_balance(address))

    def eth_getTransactionCount(self, params):
        address = parse_address(param(params, 0, required=True), 0)
        tag = param(params, 1, "latest")
        if tag == "pending":
            return quantity(self.pending_nonce(address))
        return quantity(self.state_at(self.header_for(tag, 1)).get_nonce(address))

    def eth_getCode(self, params):
        address = parse_address(param(params, 0, required=True), 0)
        return data_hex(self.state_at(self.header_for(param(params, 1, "latest"), 1)).get_code(address))

    def eth_getStorageAt(self, params):
        address = parse_address(param(params, 0, required=True), 0)
        slot = param(params, 1, required=True)
        slot = int.from_bytes(parse_data(slot, 1), "big") if len(slot) == 66 else parse_quantity(slot, 1)
        value = self.state_at(self.header_for(param(params, 2, "latest"), 2)).get_storage(address, slot)
        return word_hex(value)

    def eth_call(self, params):
        call = param(params, 0, required=True)
        header = self.header_for(param(params, 1, "latest"), 1)
        computation = self.call_transaction(call, header)
        if computation.is_error:
            self.raise_for(computation)
        return data_hex(computation.output)

    def eth_estimateGas(self, params):
        call = param(params, 0, required=True)
        header = self.header_for(param(params, 1, "latest"), 1)
        cap = parse_quantity(call["gas"], 0) if isinstance(call, dict) and call.get("gas") else header.gas_limit
        # A plain transfer to an account without code costs 21000, as geth short-cuts it.
        to = parse_address(call["to"], 0) if isinstance(call, dict) and call.get("to") else b""
        data = (call.get("input") or call.get("data") or "0x") if isinstance(call, dict) else "0x"
        first = self.call_transaction(call, header, gas=cap)
        if first.is_error:
            if isinstance(first.error, OutOfGas):
                raise refused(f"gas required exceeds allowance ({cap})")
            self.raise_for(first)
        if to and data in ("0x", "") and not self.state_at(header).get_code(to):
            return quantity(21000)
        low = cap - first.get_gas_remaining() - 1  # used before refunds: less never works
        high = cap
        while low + 1 < high:
            middle = (low + high) // 2
            if self.call_transaction(call, header, gas=middle).is_error:
                low = middle
            else:
                high = middle
        return quantity(high)

    def eth_sendRawTransaction(self, params):
        raw = parse_data(param(params, 0, required=True), 0)
        return word_hex(self.add_transaction(raw))

    def eth_getTransactionByHash(self, params):
        tx_hash = parse_hash(param(params, 0, required=True), 0)
        found = self.find_mined(tx_hash)
        if found is not None:
            block, index = found
            return self.tx_json(block.transactions[index], block, index)
        p = self.pool.get(tx_hash)
        return self.tx_json(p.tx) if p else None

    def eth_getTransactionReceipt(self, params):
        tx_hash = parse_hash(param(params, 0, required=True), 0)
        found = self.find_mined(tx_hash)
        if found is None:
            return None
        block, index = found
        return self.receipts_json(block)[index]

    def eth_getBlockByNumber(self, params):
        block, pending = self.block_by_tag(param(params, 0, required=True), 0)
        if block is None:
            return None
        return self.block_json(block, bool(param(params, 1, False)), pending)

    def eth_getBlockByHash(self, params):
        block = self.block_by_hash(parse_hash(param(params, 0, required=True), 0))
        if block is None:
            return None
        return self.block_json(block, bool(param(params, 1, False)))

    def eth_getBlockTransactionCountByNumber(self, params):
        block, pending = self.block_by_tag(param(params, 0, required=True), 0)
        if block is None:
            return None
        return quantity(len(pending) if pending is not None else len(block.transactions))

    def eth_getBlockTransactionCountByHash(self, params):
        block = self.block_by_hash(parse_hash(param(params, 0, required=True), 0))
        return None if block is None else quantity(len(block.transactions))

    def eth_getLogs(self, params):
        criteria = param(params, 0, required=True)
        if not isinstance(criteria, dict):
            raise invalid_argument(0, "filter object expected")
        head = self.head().block_number
        if criteria.get("blockHash") is not None:
            if criteria.get("fromBlock") is not None or criteria.get("toBlock") is not None:
                raise invalid_argument(0, "cannot specify both BlockHash and FromBlock/Choose either")
            block = self.block_by_hash(parse_hash(criteria["blockHash"], 0))
            if block is None:
                raise refused("unknown block")
            blocks = [block]
        else:
            def number(tag):
                if tag is None or tag in ("latest", "safe", "finalized", "pending"):
                    return head
                if tag == "earliest":
                    return 0
                return parse_quantity(tag, 0)

            first = number(criteria.get("fromBlock"))
            last = number(criteria.get("toBlock"))
            # As geth: two explicit numbers the wrong way round are an error; a range that starts
            # after the head ("from the next block to latest") is empty.
            explicit = all(isinstance(criteria.get(k), str) and criteria[k].startswith("0x") for k in ("fromBlock", "toBlock"))
            if explicit and first > last:
                raise refused("invalid block range params")
            blocks = [self.chain.get_canonical_block_by_number(n) for n in range(first, min(last, head) + 1)]
        addresses = criteria.get("address")
        if isinstance(addresses, str):
            addresses = [addresses]
        wanted = {parse_address(a, 0) for a in addresses} if addresses else None
        topics = []
        for position in criteria.get("topics") or []:
            if position is None:
                topics.append(None)
            elif isinstance(position, str):
                topics.append({parse_hash(position, 0)})
            else:
                topics.append({parse_hash(t, 0) for t in position if t is not None} or None)
        out = []
        for block in blocks:
            for receipt in self.receipts_json(block) if block.transactions else []:
                for log in receipt["logs"]:
                    if wanted is not None and bytes.fromhex(log["address"][2:]) not in wanted:
                        continue
                    log_topics = [bytes.fromhex(t[2:]) for t in log["topics"]]
                    if len(topics) > len(log_topics):
                        continue
                    if all(choice is None or log_topics[i] in choice for i, choice in enumerate(topics)):
                        out.append(log)
        return out

    def txpool_status(self, params):
        pending = len(self.executable())
        return {"pending": quantity(pending), "queued": quantity(len(self.pool) - pending)}

    def txpool_content(self, params):
        runnable = {p.hash for p in self.executable()}
        content = {"pending": {}, "queued": {}}
        for p in sorted(self.pool.values(), key=lambda p: (p.sender, p.nonce)):
            part = "pending" if p.hash in runnable else "queued"
            content[part].setdefault(address_hex(p.sender), {})[str(p.nonce)] = self.tx_json(p.tx)
        return content

    # -- test controls -----------------------------------------------------------------------

    def evm_setAutomine(self, params):
        self.automine = bool(param(params, 0, required=True))
        return True

    def evm_mine(self, params):
        options = param(params, 0)
        blocks, timestamp = 1, None
        if isinstance(options, dict):
            blocks = options.get("blocks", 1)
            blocks = parse_quantity(blocks, 0) if isinstance(blocks, str) else int(blocks)
            timestamp = options.get("timestamp")
        elif options is not None:
            timestamp = options
        if isinstance(timestamp, str):
            timestamp = parse_quantity(timestamp, 0)
        for n in range(blocks):
            self.mine_block(self.executable() if n == 0 else (), timestamp if n == 0 else None)
        return "0x0"

    def evm_increaseTime(self, params):
        seconds = param(params, 0, required=True)
        seconds = parse_quantity(seconds, 0) if isinstance(seconds, str) else int(seconds)
        self.time_offset += seconds
        # Blocks mined quickly run ahead of the wall clock; the next one is `seconds` after the head
        # at least.
        self.next_floor = max(self.next_floor, self.head().timestamp + seconds)
        return self.time_offset

    def evm_setNextBlockTimestamp(self, params):
        timestamp = param(params, 0, required=True)
        timestamp = parse_quantity(timestamp, 0) if isinstance(timestamp, str) else int(timestamp)
        if timestamp <= self.head().timestamp:
            raise refused(f"timestamp {timestamp} is not after the head's {self.head().timestamp}")
        self.next_timestamp = timestamp
        return True

    def evm_snapshot(self, params):
        snapshot_id = self.next_snapshot
        self.next_snapshot += 1
        self.snapshots[snapshot_id] = (self.head().hash, dict(self.pool), self.time_offset)
        return quantity(snapshot_id)

    def evm_revert(self, params):
        value = param(params, 0, required=True)
        snapshot_id = parse_quantity(value, 0) if isinstance(value, str) else int(value)
        if snapshot_id not in self.snapshots:
            return False
        block_hash, pool, offset = self.snapshots[snapshot_id]
        for later in [i for i in self.snapshots if i >= snapshot_id]:
            del self.snapshots[later]
        self.backend.revert_to_snapshot(block_hash)
        self.pool = dict(pool)
        self.time_offset = offset
        self.next_timestamp = None
        self.next_floor = 0
        return True

    def testnode_reorg(self, params):
        options = param(params, 0, required=True)
        if not isinstance(options, dict):
            raise invalid_argument(0, "object {depth, drop, blocks} expected")
        depth = options.get("depth", 1)
        depth = parse_quantity(depth, 0) if isinstance(depth, str) else int(depth)
        head = self.head().block_number
        if not 1 <= depth <= head:
            raise invalid_argument(0, f"depth must be from 1 to the head number {head}")
        blocks = options.get("blocks", depth)
        blocks = parse_quantity(blocks, 0) if isinstance(blocks, str) else int(blocks)
        if blocks < 1:
            raise invalid_argument(0, "blocks must be at least 1")
        drop = {parse_hash(h, 0) for h in options.get("drop") or []}
        removed = [self.chain.get_canonical_block_by_number(n) for n in range(head - depth + 1, head + 1)]
        removed_txs = [tx for block in removed for tx in block.transactions]
        missing = drop - {tx.hash for tx in removed_txs}
        if missing:
            raise invalid_argument(0, f"not in the last {depth} blocks: {', '.join(word_hex(h) for h in sorted(missing))}")
        self.backend.revert_to_snapshot(self.chain.get_canonical_block_hash(head - depth))
        again = []
        for tx in removed_txs:
            if tx.hash in drop:
                self.pool.pop(tx.hash, None)
                continue
            self.seq += 1
            again.append(PoolTx(tx, tx.encode(), self.seq))
        # The re-included transactions go first, in their old order; one that no longer applies
        # (its sender's earlier transaction was dropped) waits in the pool.
        state = self.state_at(self.head())
        nonces = {}
        first_block, waiting = [], []
        for p in again:
            expected = nonces.get(p.sender, state.get_nonce(p.sender))
            if p.nonce == expected:
                first_block.append(p)
                nonces[p.sender] = expected + 1
            else:
                waiting.append(p)
        for p in waiting:
            self.pool[p.hash] = p
        new_blocks = [self.mine_block(first_block)]
        for _ in range(blocks - 1):
            new_blocks.append(self.mine_block())
        return {
            "removed": [word_hex(b.hash) for b in removed],
            "dropped": [word_hex(h) for h in sorted(drop)],
            "reincluded": [word_hex(tx.hash) for tx in new_blocks[0].transactions],
            "head": quantity(self.head().block_number),
        }

    def testnode_setDown(self, params):
        seconds = param(params, 0, 0)
        seconds = parse_quantity(seconds, 0) if isinstance(seconds, str) else float(seconds)
        self.down_until = time.monotonic() + seconds if seconds > 0 else 0.0
        return True


METHODS = {name: getattr(Node, name) for name in dir(Node) if name.split("_", 1)[0] in ("eth", "net", "web3", "evm", "txpool", "testnode")}


# -- HTTP ----------------------------------------------------------------------------------------


def handle_call(node, request):
    """One JSON-RPC request object to its response object (None for a notification)."""
    if not isinstance(request, dict) or request.get("jsonrpc") != "2.0" or not isinstance(request.get("method"), str):
        return {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "invalid request"}}
    request_id = request.get("id")
    try:
        with node.lock:
            result = node.dispatch(request["method"], request.get("params"))
        response = {"jsonrpc": "2.0", "id": request_id, "result": result}
    except RPCError as error:
        response = {"jsonrpc": "2.0", "id": request_id, "error": error.as_json()}
    except Exception as error:  # a bug here, not the caller's: say what it was
        print(f"evmnode: internal error in {request['method']}: {error!r}", file=sys.stderr, flush=True)
        response = {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32603, "message": f"internal error: {error}"}}
    return response if "id" in request else None


def make_handler(node, verbose):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "evmnode"

        def log_message(self, format, *args):
            if verbose:
                super().log_message(format, *args)

        def reply(self, status, body, content_type="application/json"):
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            self.reply(405, b"method not allowed: JSON-RPC takes POST\n", "text/plain")

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            try:
                message = json.loads(body)
            except ValueError:
                message = None
                parse_failed = True
            else:
                parse_failed = False
            calls = message if isinstance(message, list) else [message]
            only_set_down = (
                not parse_failed and calls
                and all(isinstance(c, dict) and c.get("method") == "testnode_setDown" for c in calls)
            )
            if time.monotonic() < node.down_until and not only_set_down:
                self.reply(503, b"503 Service Unavailable: the test node is down (testnode_setDown)\n", "text/plain")
                return
            if parse_failed:
                response = {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse error"}}
            elif isinstance(message, list):
                if not message:
                    response = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "empty batch"}}
                else:
                    response = [r for r in (handle_call(node, c) for c in message) if r is not None]
            else:
                response = handle_call(node, message)
            if verbose:
                names = [c.get("method") for c in calls if isinstance(c, dict)]
                print(f"evmnode: {names}", file=sys.stderr, flush=True)
            self.reply(200, json.dumps(response).encode() if response is not None else b"")

    return Handler


def parse_fund(text):
    address, _, wei = text.partition("=")
    raw = bytes.fromhex(address[2:]) if address.startswith("0x") else b""
    if len(raw) != 20 or not wei:
        raise argparse.ArgumentTypeError(f"expected 0xADDRESS=WEI, got {text!r}")
    return raw, int(wei, 0)


def main(argv=None):
    parser = argparse.ArgumentParser(description="A test double for an Ethereum node (py-evm through eth-tester).")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port (default)")
    parser.add_argument("--chain-id", type=int, default=DEFAULT_CHAIN_ID)
    parser.add_argument("--automine", dest="automine", action="store_true", default=True,
                        help="mine each transaction in a block of its own (default)")
    parser.add_argument("--no-automine", dest="automine", action="store_false",
                        help="keep transactions in the pool until evm_mine")
    parser.add_argument("--fund", type=parse_fund, action="append", default=[], metavar="0xADDRESS=WEI",
                        help="give an address a balance at genesis (repeatable)")
    parser.add_argument("--accounts", type=int, default=10, help="funded test accounts of eth_accounts")
    parser.add_argument("--verbose", action="store_true", help="log each request on stderr")
    args = parser.parse_args(argv)

    node = Node(chain_id=args.chain_id, automine=args.automine, fund=dict(args.fund), accounts=args.accounts)
    server = ThreadingHTTPServer((args.host, args.port), make_handler(node, args.verbose))
    server.daemon_threads = True

    def stop(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(f"listening on http://{args.host}:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
