"""The ChainKit benchmark's operations done by the PyPI reference implementations, on the same
machine, printing the same JSON lines as bench/ChainKitBench. Run in the venv for its mode:
  eth:        keccak-256 (pycryptodome, C), secp256k1 recover and sign (coincurve, libsecp256k1), RLP decode (rlp)
  substrate:  sr25519 sign and verify (py-sr25519-bindings, Rust), SCALE decode (scalecodec)
"""
import json
import sys
import time


def rate(body, seconds=1.5):
    body()
    calls, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(16):
            body()
        calls += 16
    return calls / (time.perf_counter() - start)


def report(operation, unit, value):
    print(json.dumps({"operation": operation, "unit": unit, "value": round(value, 1)}))


def eth():
    from Crypto.Hash import keccak
    import coincurve
    import rlp
    from eth_account import Account

    megabyte = bytes([0xA5]) * (1 << 20)
    report("keccak256", "MB/s", rate(lambda: keccak.new(digest_bits=256, data=megabyte).digest()))
    key = coincurve.PrivateKey(bytes([0x46]) * 32)
    digest = keccak.new(digest_bits=256, data=b"hubd").digest()
    signature = key.sign_recoverable(digest, hasher=None)
    report("secp256k1_recover", "ops/s", rate(lambda: coincurve.PublicKey.from_signature_and_message(signature, digest, hasher=None)))
    report("secp256k1_sign", "ops/s", rate(lambda: key.sign_recoverable(digest, hasher=None)))
    tx = Account.sign_transaction({"type": 2, "chainId": 1, "nonce": 7, "maxPriorityFeePerGas": 10**9, "maxFeePerGas": 30 * 10**9,
                                   "gas": 21000, "to": "0x" + "35" * 20, "value": 10**18, "data": b""}, bytes([0x46]) * 32)
    block = rlp.encode([bytes(tx.raw_transaction)] * 1000)
    report("rlp_decode", "MB/s", rate(lambda: rlp.decode(block)) * len(block) / 1e6)


def substrate():
    import sr25519
    from scalecodec.base import RuntimeConfiguration, ScaleBytes
    from scalecodec.type_registry import load_type_registry_preset

    public, secret = sr25519.pair_from_seed(bytes([7]) * 32)
    message = bytes([0x5A]) * 64
    signature = sr25519.sign((public, secret), message)
    report("sr25519_sign", "ops/s", rate(lambda: sr25519.sign((public, secret), message)))
    report("sr25519_verify", "ops/s", rate(lambda: sr25519.verify(signature, message, public)))
    config = RuntimeConfiguration()
    config.update_type_registry(load_type_registry_preset("legacy"))
    data = [(i * 1_000_000_007, f"account-{i}") for i in range(1000)]
    encoded = config.create_scale_object("Vec<(Compact<u128>, Text)>").encode(data).data
    def decode():
        config.create_scale_object("Vec<(Compact<u128>, Text)>", data=ScaleBytes(encoded)).decode()
    report("scale_decode", "MB/s", rate(decode) * len(encoded) / 1e6)


if __name__ == "__main__":
    {"eth": eth, "substrate": substrate}[sys.argv[1]]()
