#!/usr/bin/env python3
"""Golden vectors for EVMKit's 256-bit word (U256): Python's integers are the oracle.

Writes Tests/Fixtures/vectors/evm_u256.json (or checks it with --check). Standard library only;
the seed is fixed, so the output is the same on every run and every machine.

Every vector is {"kind": <op>, "name", "a", "b"[, "c"], "result"} with operands in the order the
EVM pops them (a is the top of the stack: SHL's shift, BYTE's index, SIGNEXTEND's byte index,
EXP's base), each as 0x + 64 hex digits. Comparisons give 0 or 1.

    python3 tools/evm/gen_uint256_vectors.py           # write the file
    python3 tools/evm/gen_uint256_vectors.py --check   # exit 1 if the committed file differs
"""
import json
import os
import random
import sys

SEED = 0x17E7  # issue 17
PER_OP = 96
M = 1 << 256
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "Tests", "Fixtures", "vectors", "evm_u256.json")

EDGES = [0, 1, 2, 3, 31, 32, 63, 64, 255, 256, (1 << 64) - 1, 1 << 64, (1 << 128) - 1, 1 << 128,
         (1 << 192) + 7, 1 << 255, (1 << 255) - 1, M - 1, M - 2, M - 255]


def signed(x):
    return x - M if x >> 255 else x


def operand(rng):
    pick = rng.random()
    if pick < 0.15:
        return rng.choice(EDGES)
    if pick < 0.30:
        return rng.randrange(0, 300)
    if pick < 0.40:
        return (M - rng.randrange(1, 300)) % M  # small negatives
    if pick < 0.75:
        return rng.getrandbits(rng.randrange(1, 257))
    return rng.getrandbits(256)


def small_or_any(rng):
    return rng.randrange(0, 300) if rng.random() < 0.7 else operand(rng)


def sdiv(a, b):
    if b == 0:
        return 0
    sa, sb = signed(a), signed(b)
    q = abs(sa) // abs(sb)
    return (-q if (sa < 0) != (sb < 0) else q) % M


def smod(a, b):
    if b == 0:
        return 0
    sa, sb = signed(a), signed(b)
    r = abs(sa) % abs(sb)
    return (-r if sa < 0 else r) % M


def signextend(b, x):
    if b >= 31:
        return x
    bit = b * 8 + 7
    mask = (1 << (bit + 1)) - 1
    return (x | (M - 1 - mask)) if (x >> bit) & 1 else (x & mask)


def sar(shift, x):
    return (signed(x) >> min(shift, 256)) % M


OPS = {
    "add": (2, lambda a, b: (a + b) % M),
    "sub": (2, lambda a, b: (a - b) % M),
    "mul": (2, lambda a, b: (a * b) % M),
    "div": (2, lambda a, b: a // b if b else 0),
    "mod": (2, lambda a, b: a % b if b else 0),
    "sdiv": (2, sdiv),
    "smod": (2, smod),
    "addmod": (3, lambda a, b, n: (a + b) % n if n else 0),
    "mulmod": (3, lambda a, b, n: (a * b) % n if n else 0),
    "exp": (2, lambda a, b: pow(a, b, M)),
    "shl": (2, lambda s, x: (x << s) % M if s < 256 else 0),
    "shr": (2, lambda s, x: x >> s if s < 256 else 0),
    "sar": (2, sar),
    "signextend": (2, signextend),
    "byte": (2, lambda i, x: (x >> (8 * (31 - i))) & 0xFF if i < 32 else 0),
    "lt": (2, lambda a, b: int(a < b)),
    "gt": (2, lambda a, b: int(a > b)),
    "slt": (2, lambda a, b: int(signed(a) < signed(b))),
    "sgt": (2, lambda a, b: int(signed(a) > signed(b))),
    "eq": (2, lambda a, b: int(a == b)),
}
# Operands read as counts (shift, index, byte number) are mostly small, so the interesting range is hit.
SMALL_FIRST = {"shl", "shr", "sar", "signextend", "byte"}


def hx(x):
    return "0x%064x" % x


def generate():
    rng = random.Random(SEED)
    vectors = []
    for op, (arity, fn) in OPS.items():
        for i in range(PER_OP):
            args = [operand(rng) for _ in range(arity)]
            if op in SMALL_FIRST:
                args[0] = small_or_any(rng)
            if op == "exp" and rng.random() < 0.5:
                args[1] = rng.randrange(0, 600)
            if op in ("lt", "gt", "slt", "sgt", "eq") and rng.random() < 0.2:
                args[1] = args[0]
            v = {"kind": op, "name": "%s-%03d" % (op, i), "result": hx(fn(*args))}
            for key, value in zip("abc", args):
                v[key] = hx(value)
            vectors.append(v)
    doc = {"generator": "tools/evm/gen_uint256_vectors.py", "oracle_versions": {"python": "int (arbitrary precision)"},
           "seed": SEED, "vectors": vectors}
    return json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=True) + "\n"


def main():
    text = generate()
    if sys.argv[1:] == ["--check"]:
        with open(OUT) as f:
            if f.read() != text:
                print("evm_u256.json differs from the generator's output", file=sys.stderr)
                sys.exit(1)
        print("evm_u256.json matches")
        return
    with open(OUT, "w") as f:
        f.write(text)
    print("wrote %s (%d vectors)" % (os.path.relpath(OUT), len(json.loads(text)["vectors"])))


if __name__ == "__main__":
    main()
