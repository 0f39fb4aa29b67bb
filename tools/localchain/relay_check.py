"""Checks for the three-process relay test (scripts/localchain-relay-test.sh drives the processes).

  relay_check.py wait-synced CHAIN_ID URL...           every hub reaches the same head (60 s)
  relay_check.py pay CHAIN_ID KEY_HEX TO RPC_URL        signs a transfer of 1 unit, sends it to RPC_URL,
                                                        prints the hash
  relay_check.py wait-receipt CHAIN_ID HASH URL...      the transaction is sealed and seen on every hub
  relay_check.py head URL CHAIN_ID                      prints the block number a hub serves
  relay_check.py forger PORT UPSTREAM_SYNC CHAIN_ID MODE
      a fake upstream: relays the genesis as it is, then offers block 1 forged (MODE `resign`: signed
      by another key; `tamper`: a changed receipt under the validator's own signature), forever.

URLs are hub base URLs (http://127.0.0.1:PORT). Exits non-zero with a message on failure.
"""

import asyncio
import json
import sys
import time
import urllib.request

import rlp
from eth_account import Account
from eth_keys import keys
from eth_utils import keccak
from websockets.asyncio.client import connect
from websockets.asyncio.server import serve


def fail(message):
    print(f"relay_check.py: FAILED: {message}", file=sys.stderr)
    sys.exit(1)


def rpc(base, chain_id, method, params):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    request = urllib.request.Request(f"{base}/v1/rails/localchain/chains/{chain_id}/rpc", data=body, method="POST")
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=10) as response:
        answer = json.loads(response.read())
    if "error" in answer:
        raise RuntimeError(answer["error"])
    return answer["result"]


def head(base, chain_id):
    try:
        return int(rpc(base, chain_id, "eth_blockNumber", []), 16)
    except Exception:
        return -1


def wait_synced(chain_id, urls):
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        heads = [head(url, chain_id) for url in urls]
        hashes = set()
        if min(heads) >= 0 and len(set(heads)) == 1:
            for url in urls:
                hashes.add(rpc(url, chain_id, "eth_getBlockByNumber", ["latest", False])["hash"])
            if len(hashes) == 1:
                print(f"relay_check.py: all at block {heads[0]}")
                return
        time.sleep(0.2)
    fail(f"the hubs did not converge: heads {[head(url, chain_id) for url in urls]}")


def pay(chain_id, key_hex, to, url):
    account = Account.from_key(key_hex)
    nonce = int(rpc(url, chain_id, "eth_getTransactionCount", [account.address, "pending"]), 16)
    signed = Account.sign_transaction(
        {"to": to, "value": 1, "nonce": nonce, "gas": 21000, "gasPrice": 0, "chainId": chain_id}, key_hex
    )
    tx_hash = rpc(url, chain_id, "eth_sendRawTransaction", ["0x" + signed.raw_transaction.hex()])
    if tx_hash != "0x" + signed.hash.hex():
        fail(f"the hub answered {tx_hash} for {signed.hash.hex()}")
    print(tx_hash)


def wait_receipt(chain_id, tx_hash, urls):
    deadline = time.monotonic() + 60
    pending = list(urls)
    while pending and time.monotonic() < deadline:
        for url in list(pending):
            try:
                receipt = rpc(url, chain_id, "eth_getTransactionReceipt", [tx_hash])
            except Exception:
                receipt = None
            if receipt:
                if receipt["status"] != "0x1":
                    fail(f"{tx_hash} failed on {url}")
                pending.remove(url)
        time.sleep(0.1)
    if pending:
        fail(f"{tx_hash} never reached {pending}")
    print(f"relay_check.py: {tx_hash} sealed and seen on {len(urls)} hubs")


def resign(header, key):
    unsigned = header[:9]
    signature = key.sign_msg_hash(keccak(rlp.encode(unsigned)))
    return unsigned + [rlp.sedes.big_endian_int.serialize(signature.v), rlp.sedes.big_endian_int.serialize(signature.r),
                       rlp.sedes.big_endian_int.serialize(signature.s)]


async def forger(port, upstream_sync, chain_id, mode):
    async with connect(f"{upstream_sync}/chains/{chain_id}/sync?from=0", max_size=16 << 20) as upstream:
        genesis = await upstream.recv()
        block1 = rlp.decode(await upstream.recv())
    header, transactions, receipts = block1
    if mode == "resign":
        header = resign(header, keys.PrivateKey(b"\x77" * 32))
    else:
        # Flip the first receipt's status and fix the receipts root would need the validator's key:
        # keep its signature, so the header no longer matches what it signs.
        first = receipts[0]
        receipts = [[b"" if first[0] == b"\x01" else b"\x01", first[1]]] + list(receipts[1:])
    forged = rlp.encode([header, transactions, receipts])

    async def handler(connection):
        query = connection.request.path.split("from=")[-1]
        start = int(query) if query.isdigit() else 0
        if start == 0:
            await connection.send(genesis)
        while True:
            await connection.send(forged)
            await asyncio.sleep(0.5)

    async with serve(handler, "127.0.0.1", port, max_size=16 << 20):
        print(f"relay_check.py: forger on {port} ({mode})", flush=True)
        await asyncio.Future()


def main(argv):
    command = argv[1] if len(argv) > 1 else ""
    if command == "wait-synced":
        wait_synced(int(argv[2]), argv[3:])
    elif command == "pay":
        pay(int(argv[2]), argv[3], argv[4], argv[5])
    elif command == "wait-receipt":
        wait_receipt(int(argv[2]), argv[3], argv[4:])
    elif command == "head":
        print(head(argv[2], int(argv[3])))
    elif command == "forger":
        asyncio.run(forger(int(argv[2]), argv[3], int(argv[4]), argv[5]))
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main(sys.argv)
