"""Live cross-check of `hubd wallet` against independent implementations, both directions.

  substrate mode (venv with py-sr25519-bindings): sr25519 signatures made by hubd verify under the
      oracle, and the oracle's verify under hubd; a tampered one is rejected by both.
  eth mode (venv with eth-account): keystores written by hubd decrypt with eth-account, and
      keystores written by eth-account decrypt with hubd; personal_sign signatures recover alike.

Usage: python crosscheck.py substrate|eth PATH_TO_HUBD [ROUNDS]
Exits 1 on the first disagreement; prints what was checked.
"""
import json
import os
import subprocess
import sys
import tempfile


def hubd(binary, *args, stdin=None, expect_ok=True):
    run = subprocess.run([binary, "wallet", *args], input=stdin, capture_output=True, text=True, timeout=120)
    if expect_ok and run.returncode != 0:
        sys.exit(f"hubd wallet {' '.join(args)} failed: {run.stderr.strip()}")
    return run


def substrate(binary, rounds):
    import sr25519

    for i in range(rounds):
        seed = os.urandom(32)
        message = os.urandom(i * 37 % 300)
        public, secret = sr25519.pair_from_seed(seed)
        ours = json.loads(hubd(binary, "sign", "--scheme", "sr25519", "--secret", "0x" + seed.hex(), "--message", "0x" + message.hex()).stdout)
        assert ours["public_key"] == "0x" + bytes(public).hex(), "public keys differ"
        signature = bytes.fromhex(ours["signature"][2:])
        assert sr25519.verify(signature, message, public), f"oracle rejects hubd's signature (round {i})"
        assert not sr25519.verify(signature, message + b"x", public), "oracle accepts a signature over another message"
        theirs = bytes(sr25519.sign((public, secret), message))
        check = hubd(binary, "verify", "--scheme", "sr25519", "--public-key", "0x" + bytes(public).hex(),
                     "--message", "0x" + message.hex(), "--signature", "0x" + theirs.hex(), expect_ok=False)
        assert check.returncode == 0 and json.loads(check.stdout)["valid"], f"hubd rejects the oracle's signature (round {i})"
        tampered = bytearray(theirs)
        tampered[5] ^= 1
        check = hubd(binary, "verify", "--scheme", "sr25519", "--public-key", "0x" + bytes(public).hex(),
                     "--message", "0x" + message.hex(), "--signature", "0x" + tampered.hex(), expect_ok=False)
        assert check.returncode == 1, "hubd accepts a tampered signature"
    print(f"crosscheck substrate: {rounds} sr25519 rounds agree in both directions")


def eth(binary, rounds):
    from eth_account import Account
    from eth_account.messages import encode_defunct

    with tempfile.TemporaryDirectory() as folder:
        for i in range(rounds):
            key = os.urandom(32)
            password = f"pässword {i}"
            kdf = "scrypt" if i == 0 else "pbkdf2"
            written = hubd(binary, "keystore", "encrypt", "--secret", "0x" + key.hex(), "--kdf", kdf, stdin=password + "\n").stdout
            assert Account.decrypt(json.loads(written), password) == key, f"eth-account cannot open hubd's keystore ({kdf})"
            theirs = Account.encrypt(key, password, kdf="pbkdf2", iterations=1000 + i)
            path = os.path.join(folder, f"theirs-{i}.json")
            with open(path, "w") as handle:
                json.dump(theirs, handle)
            opened = json.loads(hubd(binary, "keystore", "decrypt", "--file", path, stdin=password + "\n").stdout)
            assert opened["secret"] == "0x" + key.hex(), "hubd cannot open eth-account's keystore"
            assert opened["address"] == Account.from_key(key).address, "addresses differ"
            message = os.urandom(40)
            ours = json.loads(hubd(binary, "sign", "--scheme", "secp256k1", "--secret", "0x" + key.hex(), "--message", "0x" + message.hex()).stdout)
            recovered = Account.recover_message(encode_defunct(primitive=message), signature=bytes.fromhex(ours["signature"][2:]))
            assert recovered == Account.from_key(key).address, "eth-account recovers another signer from hubd's personal_sign"
    print(f"crosscheck eth: {rounds} keystore and personal_sign rounds agree in both directions")


if __name__ == "__main__":
    mode, binary = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    {"substrate": substrate, "eth": eth}[mode](binary, rounds)
