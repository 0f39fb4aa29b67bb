"""The ERC-20 phase of the local chain benchmark (scripts/bench-localchain.sh): its untimed set-up
and its checks. The timed part is send.lua's, as for the plain transfers.

  erc20.py setup BASE_URL TOKEN CHAIN_ID INTERVAL_MS SENDERS PER_SENDER RECIPIENTS OUT_DIR
  erc20.py check RPC_URL OUT_DIR

setup creates the chain (REST, as the organiser), deploys tools/localchain/contracts/EventToken.json
(the committed artifact of EventToken.vy: bytecode and ABI, not recompiled) from a deployer key,
signed off-line and sent with eth_sendRawTransaction, and waits for its receipt (status 1). The
deployer then pays each sender exactly the tokens it will send, in JSON-RPC batches of at most 64
(`max_nonce_gap`), each sealed before the next. One `transfer` from sender 0 to a recipient that
holds nothing yet (the dearest case: a new storage slot) is estimated with eth_estimateGas; that
estimate is every transfer's gas limit. Then SENDERS x PER_SENDER `transfer(to, amount)` calls are
signed off-line (legacy EIP-155, gas price 0, nonces 0..PER_SENDER-1): sender i's transfer n pays
n + 1 tokens to recipient (i * PER_SENDER + n) mod RECIPIENTS, as attendees pay a few stalls.
Writes OUT_DIR/keys.txt and raw.txt in presign.py's format (for send.lua and the sealing wait),
hashes.txt (one transaction hash a line) and erc20.json (token, gas, expected balances); prints a
JSON line of what it set up.

check reads every transfer's receipt (status 1, one Transfer log of the token) and every
recipient's and sender's balanceOf (eth_call): each recipient holds what was sent to it, each
sender nothing. Prints a JSON line (gas used, blocks the transfers went into). Exits non-zero with
a message on the first failed check.
"""

import json
import os
import sys
import time
import urllib.request

from eth_account import Account
from eth_utils import keccak, to_checksum_address

from presign import sender, sign

ARTIFACT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "localchain", "contracts", "EventToken.json")
TRANSFER = keccak(text="transfer(address,uint256)")[:4]
BALANCE_OF = keccak(text="balanceOf(address)")[:4]
TRANSFER_TOPIC = "0x" + keccak(text="Transfer(address,address,uint256)").hex()
NONCE_GAP = 64


def fail(message):
    sys.exit(f"erc20.py: {message}")


def post(url, body, token=None, timeout=60):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST")
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read())


def rpc(url, method, *params):
    answer = post(url, {"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)})
    if "error" in answer:
        fail(f"{method} answered {answer['error']}")
    return answer["result"]


def rpc_batch(url, method, params_list, size=100):
    """The results of `method` for each params, in order, through JSON-RPC batches of `size`."""
    results = []
    for start in range(0, len(params_list), size):
        chunk = params_list[start:start + size]
        answers = post(url, [{"jsonrpc": "2.0", "id": i, "method": method, "params": p} for i, p in enumerate(chunk)])
        for answer in sorted(answers, key=lambda a: a["id"]):
            if "error" in answer:
                fail(f"{method} {chunk[answer['id']]} answered {answer['error']}")
            results.append(answer["result"])
    return results


def word(value):
    return value.to_bytes(32, "big")


def address_word(address):
    return bytes(12) + bytes.fromhex(address[2:])


def transfer_data(recipient, amount):
    return TRANSFER + address_word(recipient) + word(amount)


def balance_call(token, address):
    return [{"to": token, "data": "0x" + (BALANCE_OF + address_word(address)).hex()}, "latest"]


def wait_receipt(url, tx_hash, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        receipt = rpc(url, "eth_getTransactionReceipt", tx_hash)
        if receipt is not None:
            return receipt
        time.sleep(0.1)
    fail(f"no receipt for {tx_hash} after {timeout} s")


def wait_nonce(url, address, nonce, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if int(rpc(url, "eth_getTransactionCount", address, "latest"), 16) >= nonce:
            return
        time.sleep(0.05)
    fail(f"{address}'s nonce did not reach {nonce} in {timeout} s")


def send_batch(url, raws):
    hashes = rpc_batch(url, "eth_sendRawTransaction", [["0x" + raw.hex()] for raw in raws])
    for raw, tx_hash in zip(raws, hashes):
        if tx_hash != "0x" + keccak(raw).hex():
            fail(f"eth_sendRawTransaction returned {tx_hash}, not the transaction's hash")
    return hashes


def setup(base, token, chain_id, interval, senders, per_sender, recipient_count, out):
    os.makedirs(out, exist_ok=True)
    created = post(f"{base}/v1/rails/localchain/chains", {
        "chain_id": chain_id, "name": f"bench {chain_id} (ERC-20)", "currency_name": "Bench", "symbol": "BNC", "decimals": 0,
        "block_interval_ms": interval,
    }, token=token)
    url = f"{base}{created['rpc_path']}"
    with open(ARTIFACT, encoding="utf-8") as file:
        artifact = json.load(file)
    deployer_key, deployer = sender("erc20-deployer")
    amounts = [n + 1 for n in range(per_sender)]
    per_sender_total = sum(amounts)
    supply = senders * per_sender_total

    # The deployment: estimated, signed off-line, sent raw, receipt with status 1.
    initcode = bytes.fromhex(artifact["bytecode"].removeprefix("0x")) + word(supply)
    deploy_gas = int(rpc(url, "eth_estimateGas", {"from": deployer, "data": "0x" + initcode.hex()}), 16)
    raw = sign(deployer_key, chain_id, 0, b"", 0, gas=deploy_gas, data=initcode)
    deployed = wait_receipt(url, send_batch(url, [raw])[0])
    if deployed["status"] != "0x1" or not deployed["contractAddress"]:
        fail(f"the deployment failed: {deployed}")
    contract = to_checksum_address(deployed["contractAddress"])
    if int(rpc(url, "eth_call", *balance_call(contract, deployer)), 16) != supply:
        fail("the deployer does not hold the supply")

    # Funding: the deployer pays each sender what it will send, at most NONCE_GAP transactions
    # ahead of its sealed nonce.
    addresses = [sender(index)[1] for index in range(senders)]
    funding = []
    nonce = 1
    for start in range(0, senders, NONCE_GAP):
        raws = []
        for address in addresses[start:start + NONCE_GAP]:
            raws.append(sign(deployer_key, chain_id, nonce, bytes.fromhex(contract[2:]), 0, gas=200000,
                             data=transfer_data(address, per_sender_total)))
            nonce += 1
        funding += send_batch(url, raws)
        wait_nonce(url, deployer, nonce)
    for tx_hash, receipt in zip(funding, rpc_batch(url, "eth_getTransactionReceipt", [[h] for h in funding])):
        if receipt is None or receipt["status"] != "0x1":
            fail(f"funding transaction {tx_hash}: {receipt}")
    balances = rpc_batch(url, "eth_call", [balance_call(contract, a) for a in addresses])
    if any(int(b, 16) != per_sender_total for b in balances):
        fail("a sender's token balance is not what it was paid")

    # The gas limit: the node's estimate for a transfer to a recipient that holds nothing yet.
    recipients = [to_checksum_address(keccak(f"hubd-bench-erc20-recipient-{r}".encode())[-20:]) for r in range(recipient_count)]
    gas_limit = int(rpc(url, "eth_estimateGas", {"from": addresses[0], "to": contract,
                                                 "data": "0x" + transfer_data(recipients[0], amounts[-1]).hex()}), 16)

    lines, hashes = [], []
    expected = {r: 0 for r in recipients}
    token_address = bytes.fromhex(contract[2:])
    for index in range(senders):
        key, address = sender(index)
        for nonce in range(per_sender):
            recipient = recipients[(index * per_sender + nonce) % recipient_count]
            raw = sign(key, chain_id, nonce, token_address, 0, gas=gas_limit, data=transfer_data(recipient, amounts[nonce]))
            if index == 0 and nonce < 3 and Account.recover_transaction(raw) != address:
                fail("a pre-signed transfer does not recover to its sender")
            expected[recipient] += amounts[nonce]
            lines.append(f"{index}\t0x{raw.hex()}")
            hashes.append("0x" + keccak(raw).hex())
    with open(os.path.join(out, "keys.txt"), "w") as file:
        file.write("\n".join(addresses) + "\n")
    with open(os.path.join(out, "raw.txt"), "w") as file:
        file.write("\n".join(lines) + "\n")
    with open(os.path.join(out, "hashes.txt"), "w") as file:
        file.write("\n".join(hashes) + "\n")
    summary = {
        "token": contract, "deployer": deployer, "deploy_gas_used": int(deployed["gasUsed"], 16), "gas_limit": gas_limit,
        "recipients": recipient_count, "funding_transactions": len(funding),
    }
    with open(os.path.join(out, "erc20.json"), "w") as file:
        json.dump({**summary, "rpc_url": url, "senders": addresses, "expected": expected}, file)
    print(json.dumps(summary))


def check(url, out):
    with open(os.path.join(out, "erc20.json")) as file:
        setup = json.load(file)
    token = setup["token"]
    hashes = [line.strip() for line in open(os.path.join(out, "hashes.txt")) if line.strip()]
    gas, blocks = [], {}
    for tx_hash, receipt in zip(hashes, rpc_batch(url, "eth_getTransactionReceipt", [[h] for h in hashes])):
        if receipt is None:
            fail(f"transfer {tx_hash} has no receipt")
        if receipt["status"] != "0x1":
            fail(f"transfer {tx_hash} failed: {receipt}")
        logs = receipt["logs"]
        if len(logs) != 1 or logs[0]["address"].lower() != token.lower() or logs[0]["topics"][0] != TRANSFER_TOPIC:
            fail(f"transfer {tx_hash} logged {logs}")
        gas.append(int(receipt["gasUsed"], 16))
        number = int(receipt["blockNumber"], 16)
        blocks[number] = blocks.get(number, 0) + 1
    recipients = list(setup["expected"])
    held = rpc_batch(url, "eth_call", [balance_call(token, r) for r in recipients])
    for recipient, value in zip(recipients, held):
        if int(value, 16) != setup["expected"][recipient]:
            fail(f"recipient {recipient} holds {int(value, 16)} tokens, {setup['expected'][recipient]} were sent to it")
    left = rpc_batch(url, "eth_call", [balance_call(token, s) for s in setup["senders"]])
    if any(int(value, 16) != 0 for value in left):
        fail("a sender still holds tokens after sending all it was paid")
    print(json.dumps({
        "receipts_checked": len(gas), "recipients_checked": len(recipients), "senders_checked": len(setup["senders"]),
        "gas_limit": setup["gas_limit"], "deploy_gas_used": setup["deploy_gas_used"],
        "gas_used_per_transaction": round(sum(gas) / len(gas), 1), "gas_used_min": min(gas), "gas_used_max": max(gas),
        "transfer_blocks": len(blocks), "largest_block_transfers": max(blocks.values()),
    }))


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "setup" and len(sys.argv) == 10:
        a = sys.argv
        setup(a[2].rstrip("/"), a[3], int(a[4]), int(a[5]), int(a[6]), int(a[7]), int(a[8]), a[9])
    elif len(sys.argv) == 4 and sys.argv[1] == "check":
        check(sys.argv[2], sys.argv[3])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
