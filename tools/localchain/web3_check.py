"""Drives a live hubd's local chain JSON-RPC endpoint with web3.py and eth-account, as a wallet would.

Usage: web3_check.py BASE_URL TOKEN CHAIN_ID
  BASE_URL  e.g. http://127.0.0.1:8080
  TOKEN     a bearer token of an organiser or admin (creates the chain and grants funds)
  CHAIN_ID  an unused chain id

Nothing here knows hubd's internals: the chain is created and funded through the REST API, and
everything else goes through the standard client libraries with no special-casing. Exits non-zero
with a message on the first failed check.
"""

import asyncio
import json
import sys
import time
import os
import urllib.request

import rlp
from eth_account import Account
from eth_keys import keys
from eth_utils import keccak, to_checksum_address
from hexbytes import HexBytes
from web3.exceptions import ContractLogicError
from trie import HexaryTrie
from web3 import AsyncWeb3, Web3, WebSocketProvider
from web3.exceptions import Web3RPCError

import replay_check


def fail(message):
    print(f"web3_check.py: FAILED: {message}", file=sys.stderr)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


def rest(method, url, token, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Authorization", f"Bearer {token}")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def merkle_root(leaves):
    """hubd's local chain Merkle tree, rebuilt from its description: keccak(0x00 ‖ leaf) leaves,
    keccak(0x01 ‖ left ‖ right) nodes, an odd node moves up unchanged, keccak(b"") when empty."""
    if not leaves:
        return keccak(b"")
    level = [keccak(b"\x00" + leaf) for leaf in leaves]
    while len(level) > 1:
        level = [keccak(b"\x01" + level[i] + level[i + 1]) if i + 1 < len(level) else level[i] for i in range(0, len(level), 2)]
    return level[0]


def check_block_format(w3, base, chain_id, number):
    """Rebuilds a block's header and roots with rlp, eth-utils and eth-keys from what the JSON-RPC
    and the explorer show, independently of hubd's code."""
    block = w3.eth.get_block(number)
    header = [bytes(block["parentHash"]), block["number"], block["timestamp"], bytes(block["transactionsRoot"]),
              bytes(block["stateRoot"]), bytes(block["receiptsRoot"]), bytes.fromhex(block["miner"][2:]), chain_id, bytes(block["extraData"])]
    digest = keccak(rlp.encode(header))
    check(digest == bytes(block["hash"]), f"block {number}: keccak(RLP(header)) is not its hash")
    with urllib.request.urlopen(f"{base}/v1/rails/localchain/chains/{chain_id}/blocks/{number}", timeout=10) as response:
        shown = json.loads(response.read())
    signature = bytes.fromhex(shown["signature"][2:])
    signer = keys.Signature(vrs=(signature[64], int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:64], "big"))).recover_public_key_from_msg_hash(digest)
    check(signer.to_checksum_address() == block["miner"], f"block {number} is not signed by its validator")
    receipts = [w3.eth.get_transaction_receipt(h) for h in block["transactions"]]
    # Receipts since contracts run: [status, txHash, gasUsed, [[address, [topic…], data]…]].
    leaves = [
        rlp.encode([r["status"], bytes(r["transactionHash"]), r["gasUsed"],
                    [[bytes.fromhex(log["address"][2:]), [bytes(t) for t in log["topics"]], bytes(log["data"])] for log in r["logs"]]])
        for r in receipts
    ]
    check(merkle_root(leaves) == bytes(block["receiptsRoot"]), f"block {number}: the receipts root does not match its receipts")
    return block


ARTIFACT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "contracts", "EventToken.json")
ESCROW_ARTIFACT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "contracts", "Escrow.json")


def bloom_of(logs):
    """Ethereum's 2048-bit logs bloom, rebuilt from the Yellow Paper (§4.3.1): three bits per
    address and topic, from the low 11 bits of byte pairs 0-1, 2-3, 4-5 of its keccak-256."""
    bits = 0
    for log in logs:
        for value in [bytes.fromhex(log["address"][2:])] + [bytes(t) for t in log["topics"]]:
            digest = keccak(value)
            for i in (0, 2, 4):
                bits |= 1 << ((digest[i] << 8 | digest[i + 1]) & 0x7FF)
    return bits.to_bytes(256, "big")


def check_contracts(w3, chain_id, alice, bob):
    """An ERC-20 compiled by the pinned vyper (tools/localchain/contracts/EventToken.json, re-checked
    against its source by the script) deployed and used through web3.py's contract API, unmodified."""
    with open(ARTIFACT, encoding="utf-8") as f:
        artifact = json.load(f)
    factory = w3.eth.contract(abi=artifact["abi"], bytecode=artifact["bytecode"])
    supply = 10**6 * 10**18
    deploy = factory.constructor(supply).build_transaction({
        "from": alice.address, "nonce": w3.eth.get_transaction_count(alice.address, "pending"), "chainId": chain_id,
    })
    check(deploy["gas"] > 53000, f"the deployment's gas estimate is {deploy['gas']}")
    receipt = wait_receipt(w3, w3.eth.send_raw_transaction(Account.sign_transaction(deploy, alice.key).raw_transaction))
    check(receipt["status"] == 1 and receipt["contractAddress"], f"the deployment failed: {receipt}")
    check(receipt["to"] is None, "a creation's receipt names a recipient")
    check(bytes(receipt["logsBloom"]) == bloom_of(receipt["logs"]), "the deployment's logsBloom is not its logs'")
    token = w3.eth.contract(address=receipt["contractAddress"], abi=artifact["abi"])
    check(len(w3.eth.get_code(token.address)) > 100, "the contract has no code")
    check(token.functions.symbol().call() == "EVTK" and token.functions.totalSupply().call() == supply, "the token reads wrong")
    check(token.functions.balanceOf(alice.address).call() == supply, "the deployer does not hold the supply")

    # A transfer, gas estimated by the node (eth_estimateGas) as web3 does by default.
    estimate = token.functions.transfer(bob.address, 250).estimate_gas({"from": alice.address})
    # The estimate is the least gas that works: with one less, the same call runs out of gas
    # (checked before the transfer is sent: afterwards bob holds tokens and the same call is cheaper).
    data = token.functions.transfer(bob.address, 250)._encode_transaction_data()
    w3.eth.call({"from": alice.address, "to": token.address, "data": data, "gas": estimate})
    try:
        w3.eth.call({"from": alice.address, "to": token.address, "data": data, "gas": estimate - 1})
        fail(f"the transfer succeeded with {estimate - 1} gas, less than the estimate")
    except Web3RPCError as error:
        check("out of gas" in str(error), f"one gas short of the estimate: {error}")

    transfer = token.functions.transfer(bob.address, 250).build_transaction({
        "from": alice.address, "nonce": w3.eth.get_transaction_count(alice.address, "pending"), "chainId": chain_id, "gas": estimate,
    })
    receipt = wait_receipt(w3, w3.eth.send_raw_transaction(Account.sign_transaction(transfer, alice.key).raw_transaction))
    check(receipt["status"] == 1, f"the transfer failed with the estimated gas {estimate}: {receipt}")
    check(receipt["gasUsed"] <= estimate, f"the transfer used {receipt['gasUsed']}, more than the estimate {estimate}")
    check(bytes(receipt["logsBloom"]) == bloom_of(receipt["logs"]), "the transfer's logsBloom is not its logs'")
    events = token.events.Transfer().process_receipt(receipt)
    check(len(events) == 1 and events[0]["args"]["receiver"] == bob.address and events[0]["args"]["value"] == 250,
          f"the transfer's event: {events}")
    check(token.functions.balanceOf(bob.address).call() == 250, "bob's token balance is wrong")
    # Events through eth_getLogs: by address and topic, with an OR-list, by block range.
    logs = token.events.Transfer().get_logs(from_block=0)
    check([(e["args"]["sender"], e["args"]["receiver"], e["args"]["value"]) for e in logs]
          == [("0x" + "00" * 20, alice.address, supply), (alice.address, bob.address, 250)],
          f"eth_getLogs found {logs}")
    to_bob = w3.eth.get_logs({"fromBlock": 0, "address": token.address,
                              "topics": [None, None, ["0x" + "00" * 12 + bob.address[2:].lower(), "0x" + "00" * 32]]})
    check(len(to_bob) == 1, f"the topic OR-list found {to_bob}")
    check(w3.eth.get_logs({"fromBlock": 0, "address": bob.address}) == [], "logs of an address that emitted none")

    # A revert: the reason reaches web3 (code 3 with data, as geth answers), for a call and an estimate.
    for attempt in (lambda f: f.call({"from": bob.address}), lambda f: f.estimate_gas({"from": bob.address})):
        try:
            attempt(token.functions.transfer(alice.address, 10**30))
            fail("an overdraft did not revert")
        except ContractLogicError as error:
            check("transfer amount exceeds balance" in str(error), f"the revert says {error}")
    # Sent anyway (with enough gas), it is included as failed, its gas charged and its nonce used.
    nonce = w3.eth.get_transaction_count(bob.address, "pending")
    failing = token.functions.transfer(alice.address, 10**30).build_transaction({
        "from": bob.address, "nonce": nonce, "chainId": chain_id, "gas": 200000,
    })
    receipt = wait_receipt(w3, w3.eth.send_raw_transaction(Account.sign_transaction(failing, bob.key).raw_transaction))
    check(receipt["status"] == 0 and 21000 < receipt["gasUsed"] < 200000 and receipt["logs"] == [], f"the failed transfer: {receipt}")
    check(w3.eth.get_transaction_count(bob.address) == nonce + 1, "the failed transfer did not use its nonce")
    check(token.functions.balanceOf(bob.address).call() == 250, "a failed transfer moved tokens")
    check_proofs(w3, [token.address, alice.address, bob.address, Account.create().address])
    return token


def plain(value):
    """A JSON-RPC value in one comparable form, whether web3 formatted it or not: lowercase 0x hex
    for quantities (the hub writes them without leading zeros), bytes, hashes and addresses."""
    if isinstance(value, (bytes, bytearray)):
        return "0x" + bytes(value).hex()
    if isinstance(value, int) and not isinstance(value, bool):
        return hex(value)
    if isinstance(value, str) and value.startswith("0x"):
        return value.lower()
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def plain_log(entry):
    return {key: plain(entry[key]) for key in
            ("address", "topics", "data", "blockNumber", "blockHash", "transactionHash", "transactionIndex", "logIndex", "removed")}


async def check_subscriptions(ws_url, w3, chain_id, token, alice, bob):
    """eth_subscribe through web3.py's WebSocketProvider on the hub's own port (GET of the JSON-RPC
    path, upgraded): newHeads and the token's Transfer logs, for a transfer sent on the socket,
    match what eth_getBlockByNumber, eth_getLogs and a log filter (over HTTP) say of it."""
    transfers = token.events.Transfer.create_filter(from_block="latest")
    async with AsyncWeb3(WebSocketProvider(ws_url)) as socket:
        check(await socket.eth.chain_id == chain_id, "eth_chainId over the WebSocket")
        heads = await socket.eth.subscribe("newHeads")
        topic = "0x" + keccak(text="Transfer(address,address,uint256)").hex()
        logs = await socket.eth.subscribe("logs", {"address": token.address, "topics": [topic]})
        check(heads != logs, "two subscriptions share an id")
        try:
            await socket.eth.subscribe("newPendingTransactions")
            fail("a subscription type the hub does not offer was accepted")
        except Web3RPCError as error:
            check("unknown subscription type" in str(error), f"an unknown subscription type: {error}")
        data = token.functions.transfer(bob.address, 7)._encode_transaction_data()
        nonce = await socket.eth.get_transaction_count(alice.address, "pending")
        signed = Account.sign_transaction({"to": token.address, "data": data, "nonce": nonce, "gas": 200000, "gasPrice": 0,
                                           "chainId": chain_id, "value": 0}, alice.key)
        tx_hash = await socket.eth.send_raw_transaction(signed.raw_transaction)
        seen_heads, seen_logs = {}, []

        async def read():
            async for message in socket.socket.process_subscriptions():
                result = message["result"]
                if message["subscription"] == heads:
                    seen_heads[plain(result["number"])] = result
                elif message["subscription"] == logs:
                    seen_logs.append(result)
                if seen_logs and plain(seen_logs[0]["blockNumber"]) in seen_heads:
                    return

        await asyncio.wait_for(read(), 20)
        log = seen_logs[0]
        check(plain(log["transactionHash"]) == plain(tx_hash), f"the logs notification names another transaction: {log}")
        number = plain(log["blockNumber"])
        check([plain_log(e) for e in w3.eth.get_logs({"fromBlock": number, "toBlock": number, "address": token.address})]
              == [plain_log(log)], f"the logs notification {log} is not what eth_getLogs finds")
        # The contract's event filter hands over decoded events (args, no topics or data): compare where the log is.
        where = ("address", "blockNumber", "blockHash", "transactionHash", "transactionIndex", "logIndex")
        check([{k: plain(e[k]) for k in where} for e in transfers.get_new_entries()] == [{k: plain(log[k]) for k in where}],
              "the log filter disagrees with the notification")
        header, block = seen_heads[number], w3.eth.get_block(int(number, 16))
        for key in ("hash", "parentHash", "number", "timestamp", "stateRoot", "receiptsRoot", "transactionsRoot", "logsBloom", "miner",
                    "gasUsed", "gasLimit", "extraData"):
            check(plain(header[key]) == plain(block[key]), f"newHeads' {key} is {header[key]}, eth_getBlockByNumber's {block[key]}")
        check(await socket.eth.unsubscribe(heads) is True and await socket.eth.unsubscribe(logs) is True, "eth_unsubscribe")
    return int(number, 16)


def check_proofs(w3, addresses):
    """eth_getProof (EIP-1186) answers, verified with py-trie against the head's state root: each
    account's proof gives its RLP account, each storage proof its slot's value (or its absence)."""
    head = w3.eth.get_block("latest")
    for address in addresses:
        # Slots 0-7 (present or not) and one surely absent.
        keys = list(range(8)) + [2**255 + 12345]
        proof = w3.eth.get_proof(address, keys, head["number"])
        nodes = [rlp.decode(bytes(n)) for n in proof["accountProof"]]
        account = HexaryTrie.get_from_proof(bytes(head["stateRoot"]), keccak(bytes.fromhex(address[2:])), nodes)
        expected = rlp.encode([proof["nonce"], proof["balance"], bytes(proof["storageHash"]), bytes(proof["codeHash"])])
        empty = proof["nonce"] == 0 and proof["balance"] == 0 and bytes(proof["codeHash"]) == keccak(b"")
        check(account == (b"" if empty else expected), f"the account proof of {address} does not prove its account")
        check(proof["balance"] == w3.eth.get_balance(address), f"eth_getProof's balance of {address} is not eth_getBalance's")
        for entry in proof["storageProof"]:
            slot = int.from_bytes(bytes(entry["key"]), "big")
            # web3 hands the value over as bytes (geth sends a quantity, as hubd does).
            shown = entry["value"] if isinstance(entry["value"], int) else int.from_bytes(bytes(entry["value"]), "big")
            value = HexaryTrie.get_from_proof(bytes(proof["storageHash"]), keccak(slot.to_bytes(32, "big")), [rlp.decode(bytes(n)) for n in entry["proof"]])
            check(value == (rlp.encode(shown) if shown else b""), f"the storage proof of {address} slot {slot} does not prove it")
            stored = int.from_bytes(w3.eth.get_storage_at(address, slot), "big")
            check(stored == shown, f"eth_getProof's slot {slot} of {address} is {shown}, eth_getStorageAt says {stored}")


def check_state_root(base, chain_id, block):
    accounts, cursor = [], None
    while True:
        url = f"{base}/v1/rails/localchain/chains/{chain_id}/accounts?limit=100" + (f"&cursor={cursor}" if cursor else "")
        with urllib.request.urlopen(url, timeout=10) as response:
            page = json.loads(response.read())
        accounts += page["data"]
        cursor = page["next_cursor"]
        if not cursor:
            break
    # Ethereum's state root, rebuilt with py-trie: keccak(address) -> RLP([nonce, balance, storageRoot, codeHash]),
    # empty accounts left out.
    state = HexaryTrie(db={})
    for a in accounts:
        address = bytes.fromhex(a["address"][2:].lower())
        code_hash = bytes.fromhex(a["code_hash"][2:])
        if a["nonce"] or int(a["balance"]) or code_hash != keccak(b""):
            state[keccak(address)] = rlp.encode([a["nonce"], int(a["balance"]), bytes.fromhex(a["storage_root"][2:]), code_hash])
    check(state.root_hash == bytes(block["stateRoot"]), "the head's state root does not commit to the accounts the explorer lists")


def wait_receipt(w3, tx_hash):
    receipt = w3.eth.wait_for_transaction_receipt(tx_hash, timeout=30, poll_latency=0.1)
    check(receipt["transactionHash"] == HexBytes(tx_hash), "the receipt names another transaction")
    return receipt


def send(w3, account, transaction):
    """Signs `transaction` (nonce filled in from the pending count) with `account`, sends it and
    waits for its receipt."""
    transaction = {**transaction, "nonce": w3.eth.get_transaction_count(account.address, "pending")}
    return wait_receipt(w3, w3.eth.send_raw_transaction(Account.sign_transaction(transaction, account.key).raw_transaction))


def check_escrow(w3, chain_id, buyer, seller, arbiter):
    """An escrow of the chain's own currency (tools/localchain/contracts/Escrow.vy, pinned vyper):
    value paid into a contract, paid out of it by a CALL with value, and refused settlements, with
    every balance exact. The ledger's side of the same movements is proven by `hubd verify`, which
    the script runs on the database afterwards."""
    with open(ESCROW_ARTIFACT, encoding="utf-8") as f:
        artifact = json.load(f)
    factory = w3.eth.contract(abi=artifact["abi"], bytecode=artifact["bytecode"])
    receipt = send(w3, buyer, factory.constructor(arbiter.address).build_transaction({"from": buyer.address, "chainId": chain_id}))
    check(receipt["status"] == 1, f"the escrow's deployment failed: {receipt}")
    escrow = w3.eth.contract(address=receipt["contractAddress"], abi=artifact["abi"])
    check(escrow.functions.arbiter().call() == arbiter.address, "the escrow names another arbiter")

    def balances():
        return [w3.eth.get_balance(a) for a in (buyer.address, seller.address, arbiter.address, escrow.address)]

    amount = 3 * 10**17
    before = balances()
    receipt = send(w3, buyer, escrow.functions.deposit(seller.address).build_transaction(
        {"from": buyer.address, "value": amount, "chainId": chain_id}))
    check(receipt["status"] == 1, f"the deposit failed: {receipt}")
    deposited = escrow.events.Deposited().process_receipt(receipt)
    check(len(deposited) == 1 and deposited[0]["args"]["deal"] == 0 and deposited[0]["args"]["amount"] == amount,
          f"the deposit's event: {deposited}")
    check(balances() == [before[0] - amount, before[1], before[2], amount], f"after the deposit: {balances()}")

    # Only the arbiter settles: the reason reaches web3, and sent anyway the release fails and moves nothing.
    try:
        escrow.functions.release(0).call({"from": seller.address})
        fail("the seller released the escrow")
    except ContractLogicError as error:
        check("only the arbiter settles" in str(error), f"the seller's release says {error}")
    receipt = send(w3, seller, escrow.functions.release(0).build_transaction({"from": seller.address, "chainId": chain_id, "gas": 100000}))
    check(receipt["status"] == 0, f"the seller's release was not included as failed: {receipt}")
    check(balances() == [before[0] - amount, before[1], before[2], amount], f"a failed release moved money: {balances()}")

    # Released by the arbiter: the value leaves the contract for the seller.
    receipt = send(w3, arbiter, escrow.functions.release(0).build_transaction({"from": arbiter.address, "chainId": chain_id}))
    settled = escrow.events.Settled().process_receipt(receipt)
    check(receipt["status"] == 1 and len(settled) == 1 and settled[0]["args"]["payee"] == seller.address, f"the release: {receipt}")
    check(balances() == [before[0] - amount, before[1] + amount, before[2], 0], f"after the release: {balances()}")
    try:
        escrow.functions.release(0).call({"from": arbiter.address})
        fail("a deal was released twice")
    except ContractLogicError as error:
        check("the deal is not open" in str(error), f"a second release says {error}")

    # A second deal, refunded to the buyer.
    send(w3, buyer, escrow.functions.deposit(seller.address).build_transaction({"from": buyer.address, "value": amount, "chainId": chain_id}))
    receipt = send(w3, arbiter, escrow.functions.refund(1).build_transaction({"from": arbiter.address, "chainId": chain_id}))
    check(receipt["status"] == 1, f"the refund failed: {receipt}")
    check(balances() == [before[0] - amount, before[1] + amount, before[2], 0], f"after the refund: {balances()}")

    # Value sent to a function that is not payable: included as failed, the value stays with its sender.
    receipt = send(w3, arbiter, {"to": escrow.address, "data": escrow.encode_abi("refund", [1]), "value": 5, "gas": 100000,
                                 "gasPrice": 0, "chainId": chain_id})
    check(receipt["status"] == 0, f"value sent to a function that is not payable: {receipt}")
    check(balances() == [before[0] - amount, before[1] + amount, before[2], 0], f"a failed call with value moved money: {balances()}")
    check(escrow.functions.dealCount().call() == 2, "the escrow counts another number of deals")
    return escrow


def main(base, token, chain_id):
    chains = f"{base}/v1/rails/localchain/chains"
    status, chain = rest("POST", chains, token, {
        "chain_id": chain_id, "name": "web3 check", "currency_name": "Check Token", "symbol": "CHK",
        "decimals": 18, "block_interval_ms": 200,
    })
    check(status == 201, f"creating the chain answered {status}: {chain}")

    w3 = Web3(Web3.HTTPProvider(f"{base}{chain['rpc_path']}", request_kwargs={"timeout": 10}))
    check(w3.is_connected(), "web3 cannot connect")
    check(w3.eth.chain_id == chain_id, f"eth_chainId is {w3.eth.chain_id}")
    check(w3.net.version == str(chain_id), f"net_version is {w3.net.version}")
    check(w3.client_version.startswith("hubd"), f"web3_clientVersion is {w3.client_version}")
    check(w3.eth.syncing is False, "eth_syncing is not false")
    check(w3.eth.gas_price == 0, "gas is not free")

    alice = Account.create()
    bob = Account.create()
    carol = Account.create()
    check(w3.eth.get_balance(alice.address) == 0, "a new account has a balance")

    granted = 5 * 10**18
    status, grant = rest("POST", f"{chains}/{chain_id}/grants", token, {"to": alice.address, "amount": str(granted)})
    check(status == 202, f"the grant answered {status}: {grant}")
    grant_receipt = wait_receipt(w3, grant["hash"])
    check(grant_receipt["status"] == 1, "the grant failed")
    check(w3.eth.get_balance(alice.address) == granted, "the grant did not arrive")

    # A legacy (EIP-155) payment, gas estimated and priced by the node as a wallet does.
    legacy = {
        "to": bob.address, "value": 10**18, "nonce": w3.eth.get_transaction_count(alice.address, "pending"),
        "gasPrice": w3.eth.gas_price, "chainId": chain_id,
    }
    legacy["gas"] = w3.eth.estimate_gas({"from": alice.address, "to": bob.address, "value": 10**18})
    signed = Account.sign_transaction(legacy, alice.key)
    tx_hash = w3.eth.send_raw_transaction(signed.raw_transaction)
    check(tx_hash == signed.hash, "eth_sendRawTransaction returned another hash")
    # Known before it is sealed (pending) or after: never "not found".
    pending = w3.eth.get_transaction(tx_hash)
    check(pending["from"] == alice.address, "eth_getTransactionByHash names another sender")
    receipt = wait_receipt(w3, tx_hash)
    check(receipt["status"] == 1, "the legacy payment failed")
    check(receipt["from"] == alice.address and receipt["to"] == bob.address, "the receipt's from/to are wrong")

    # An EIP-1559 payment with the fees web3 suggests (zero here).
    dynamic = {
        "type": 2, "to": carol.address, "value": 2 * 10**18, "nonce": w3.eth.get_transaction_count(alice.address, "pending"),
        "maxPriorityFeePerGas": w3.eth.max_priority_fee, "maxFeePerGas": 0, "gas": 21000, "chainId": chain_id,
    }
    signed_1559 = Account.sign_transaction(dynamic, alice.key)
    hash_1559 = w3.eth.send_raw_transaction(signed_1559.raw_transaction)
    receipt_1559 = wait_receipt(w3, hash_1559)
    check(receipt_1559["status"] == 1 and receipt_1559["type"] == 2, f"the EIP-1559 payment: {receipt_1559}")

    check(w3.eth.get_balance(alice.address) == 2 * 10**18, f"alice has {w3.eth.get_balance(alice.address)}")
    check(w3.eth.get_balance(bob.address) == 10**18, "bob's balance is wrong")
    check(w3.eth.get_balance(carol.address) == 2 * 10**18, "carol's balance is wrong")
    check(w3.eth.get_transaction_count(alice.address) == 2, "alice's nonce is wrong")

    # Blocks: by number (with full transactions) and by hash, linked, transactions recoverable.
    block = w3.eth.get_block(receipt_1559["blockNumber"], full_transactions=True)
    check(any(t["hash"] == hash_1559 for t in block["transactions"]), "the block does not hold the transaction")
    by_hash = w3.eth.get_block(block["hash"])
    check(by_hash["number"] == block["number"], "eth_getBlockByHash disagrees")
    parent = w3.eth.get_block(block["number"] - 1)
    check(block["parentHash"] == parent["hash"], "the block does not link to its parent")
    latest = w3.eth.get_block("latest")
    check(latest["number"] == w3.eth.block_number, "latest is not the head")
    tx = w3.eth.get_transaction(hash_1559)
    check(tx["blockHash"] == block["hash"] and tx["from"] == alice.address, "eth_getTransactionByHash is wrong")
    history = w3.eth.fee_history(2, "latest", [50])
    check(all(fee == 0 for fee in history["baseFeePerGas"]), "fees are not zero")
    check(w3.eth.get_code(bob.address) == b"", "an account has code")

    # Refusals: another chain's signature, a replayed nonce, more than the balance.
    wrong_chain = Account.sign_transaction({**legacy, "nonce": 2, "chainId": chain_id + 1}, alice.key)
    for raw, what in [
        (wrong_chain.raw_transaction, "signed for chain"),
        (Account.sign_transaction({**legacy, "nonce": 0, "value": 1}, alice.key).raw_transaction, "nonce 0 is used"),
        (Account.sign_transaction({**legacy, "nonce": 2, "value": 10**21}, alice.key).raw_transaction, "the account holds"),
    ]:
        try:
            w3.eth.send_raw_transaction(raw)
            fail(f"a bad transaction was accepted (expected: {what})")
        except Web3RPCError as error:
            check(what in str(error), f"the refusal says {error}, expected '{what}'")
    check(w3.eth.get_balance(alice.address) == 2 * 10**18, "a refused transaction changed a balance")

    token = check_contracts(w3, chain_id, alice, bob)
    check_escrow(w3, chain_id, alice, bob, carol)
    ws_url = base.replace("http://", "ws://", 1) + chain["rpc_path"]
    notified = asyncio.run(check_subscriptions(ws_url, w3, chain_id, token, alice, bob))

    # The block format, rebuilt independently: header hash, validator signature, receipts root of
    # every block, and the head's state root over the explorer's accounts.
    head = w3.eth.block_number
    for number in range(0, head + 1):
        last = check_block_format(w3, base, chain_id, number)
    check_state_root(base, chain_id, last)
    # Every block replayed from genesis in revm, its receipts compared and its state root rebuilt.
    try:
        replayed_blocks, replayed_transactions = replay_check.replay(w3)
    except replay_check.ReplayMismatch as mismatch:
        fail(f"replay in revm: {mismatch}")

    # A JSON-RPC batch, straight over HTTP.
    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": []},
        {"jsonrpc": "2.0", "id": 2, "method": "eth_getBalance", "params": [bob.address, "latest"]},
        {"jsonrpc": "2.0", "id": 3, "method": "no_such_method", "params": []},
    ]
    request = urllib.request.Request(f"{base}{chain['rpc_path']}", data=json.dumps(batch).encode(), method="POST")
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=10) as response:
        answers = {a["id"]: a for a in json.loads(response.read())}
    check(answers[1]["result"] == hex(chain_id), f"batch eth_chainId: {answers[1]}")
    check(int(answers[2]["result"], 16) == w3.eth.get_balance(bob.address), f"batch eth_getBalance: {answers[2]}")
    check(answers[3]["error"]["code"] == -32601, f"batch unknown method: {answers[3]}")

    print(f"web3_check.py: passed (chain {chain_id}, head {w3.eth.block_number}; block {notified} seen through eth_subscribe; "
          f"{replayed_blocks} blocks and {replayed_transactions} transactions replayed in revm)")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    main(sys.argv[1].rstrip("/"), sys.argv[2], int(sys.argv[3]))
