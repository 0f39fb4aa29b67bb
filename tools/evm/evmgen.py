"""Random but valid EVM programs for the differential test against revm.

A program is a list of snippets; each snippet is a list of tokens that leaves the stack as it found
it, so any subset of a program's snippets is still a program (the minimiser relies on that).
Tokens are opcode bytes (ints), raw byte strings (push data), ("label", name) for a JUMPDEST and
("ref", name) for a PUSH2 of a label's offset. Labels are unique per snippet.
"""

import itertools

# Accounts every case uses (lowercase hex, as EVMKit prints addresses).
SENDER = "0x" + "00" * 18 + "5e4d"
CONTRACT_A = "0x" + "00" * 18 + "aaaa"
CONTRACT_B = "0x" + "00" * 18 + "bbbb"
COINBASE = "0x" + "00" * 17 + "c0ffee"
# An account that does not exist before the transaction (a call with value creates it).
FRESH = "0x" + "00" * 18 + "dead"

# Storage slots programs touch; the pyrevm side reads exactly these (plus any EVMKit reports).
SLOTS = list(range(16)) + [2**255, 2**256 - 1]

BINARY = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x0A, 0x0B, 0x10, 0x11, 0x12, 0x13, 0x14,
          0x16, 0x17, 0x18, 0x1A, 0x1B, 0x1C, 0x1D]
TERNARY = [0x08, 0x09]
UNARY = [0x15, 0x19]
# Zero-argument environment opcodes whose values both engines derive from the same case.
ENVIRONMENT = [0x30, 0x32, 0x33, 0x34, 0x36, 0x38, 0x3A, 0x3D, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46,
               0x47, 0x48, 0x4A, 0x58, 0x59, 0x5A]

_labels = itertools.count()


def push(value):
    """The shortest PUSH of `value` (PUSH0 for zero)."""
    value %= 2**256
    if value == 0:
        return [0x5F]
    data = value.to_bytes((value.bit_length() + 7) // 8, "big")
    return [0x5F + len(data), data]


def assemble(snippets):
    """Bytecode of a list of snippets, labels resolved."""
    tokens = [token for snippet in snippets for token in snippet]
    offsets, position = {}, 0
    for token in tokens:
        if isinstance(token, tuple):
            if token[0] == "label":
                offsets[token[1]] = position
                position += 1
            else:
                position += 3
        elif isinstance(token, bytes):
            position += len(token)
        else:
            position += 1
    code = bytearray()
    for token in tokens:
        if isinstance(token, tuple):
            if token[0] == "label":
                code.append(0x5B)
            else:
                code += bytes([0x61]) + offsets[token[1]].to_bytes(2, "big")
        elif isinstance(token, bytes):
            code += token
        else:
            code.append(token)
    return bytes(code)


class Generator:
    def __init__(self, rng):
        self.rng = rng

    # Operands -------------------------------------------------------------------------------

    def word(self):
        r = self.rng
        return r.choice([
            lambda: 0, lambda: 1, lambda: 2, lambda: 31, lambda: 32, lambda: 255, lambda: 256,
            lambda: 2**255, lambda: 2**256 - 1, lambda: 2**128, lambda: 2**64 - 1,
            lambda: 2**256 - r.randrange(1, 100), lambda: r.randrange(0, 300),
            lambda: r.getrandbits(256), lambda: r.getrandbits(r.randrange(1, 256)),
        ])()

    def offset(self):
        """A memory offset: mostly small, sometimes far enough to cost real gas."""
        r = self.rng
        return r.choice([0, 32, 64, r.randrange(0, 512), r.randrange(0, 512), r.randrange(0, 0x3000)])

    def size(self):
        r = self.rng
        return r.choice([0, 1, 32, 64, r.randrange(0, 200)])

    def slot(self):
        return self.rng.choice(SLOTS)

    def sink(self):
        """Tokens that consume the top of the stack where the engines' results can be compared."""
        r = self.rng
        kind = r.random()
        if kind < 0.45:
            return push(self.slot()) + [0x55]  # SSTORE(slot, value)
        if kind < 0.8:
            return push(r.randrange(0, 320)) + [0x52]  # MSTORE(offset, value)
        if kind < 0.9:
            return push(self.slot()) + [0x5D]  # TSTORE
        return [0x50]

    # Snippets -------------------------------------------------------------------------------

    def arithmetic(self):
        r = self.rng
        kind = r.random()
        if kind < 0.7:
            out = push(self.word()) + push(self.word()) + [r.choice(BINARY)]
        elif kind < 0.85:
            out = push(self.word()) + push(self.word()) + push(self.word()) + [r.choice(TERNARY)]
        else:
            out = push(self.word()) + [r.choice(UNARY)]
        return out + self.sink()

    def environment(self):
        r = self.rng
        kind = r.random()
        if kind < 0.6:
            return [r.choice(ENVIRONMENT)] + self.sink()
        if kind < 0.7:
            return push(self.word() if r.random() < 0.3 else r.randrange(0, 80)) + [0x35] + self.sink()
        address = r.choice([CONTRACT_A, CONTRACT_B, SENDER, COINBASE, "0x" + "00" * 19 + "07"])
        op = r.choice([0x31, 0x3B, 0x3F])  # BALANCE, EXTCODESIZE, EXTCODEHASH
        return push(int(address, 16)) + [op] + self.sink()

    def memory(self):
        r = self.rng
        kind = r.random()
        if kind < 0.3:
            return push(self.word()) + push(self.offset()) + [r.choice([0x52, 0x53])]
        if kind < 0.5:
            return push(self.offset()) + [0x51] + self.sink()
        if kind < 0.65:  # MCOPY(dest, src, size)
            return push(self.size()) + push(self.offset()) + push(self.offset()) + [0x5E]
        if kind < 0.8:  # CALLDATACOPY / CODECOPY / RETURNDATACOPY(dest, src, size)
            op = r.choice([0x37, 0x39, 0x3E])
            return push(self.size() if op != 0x3E else r.choice([0, 1, 32])) + push(r.randrange(0, 40)) + push(self.offset()) + [op]
        if kind < 0.9:  # EXTCODECOPY(address, dest, src, size)
            return push(self.size()) + push(r.randrange(0, 40)) + push(self.offset()) + push(int(CONTRACT_B, 16)) + [0x3C]
        return push(self.size()) + push(self.offset()) + [0x20] + self.sink()  # KECCAK256

    def storage(self):
        r = self.rng
        kind = r.random()
        if kind < 0.4:
            return push(r.choice([0, 0, 1, self.word()])) + push(self.slot()) + [0x55]
        if kind < 0.7:
            return push(self.slot()) + [0x54] + self.sink()
        if kind < 0.85:
            return push(self.word()) + push(self.slot()) + [0x5D]
        return push(self.slot()) + [0x5C] + self.sink()

    def log(self):
        r = self.rng
        topics = r.randrange(0, 5)
        out = []
        for _ in range(topics):
            out += push(self.word())
        return out + push(self.size()) + push(self.offset()) + [0xA0 + topics]

    def call(self, allow_value=True):
        r = self.rng
        op = r.choice([0xF1, 0xF1, 0xFA, 0xF4, 0xF2])
        target = r.choice([CONTRACT_B, CONTRACT_B, CONTRACT_B, SENDER, FRESH,
                           "0x" + "00" * 19 + r.choice(["01", "02", "03", "04", "05", "09"])])
        gas = r.choice([None, None, r.randrange(0, 30000), r.randrange(0, 300000)])
        out = push(r.choice([0, 32, 64])) + push(r.randrange(0, 256))  # retSize, retOffset
        out += push(self.size()) + push(r.randrange(0, 256))  # argsSize, argsOffset
        if op in (0xF1, 0xF2):
            out += push(r.choice([0, 0, 1, 1000]) if allow_value else 0)
        out += push(int(target, 16))
        out += [0x5A] if gas is None else push(gas)
        out += [op] + self.sink()
        if r.random() < 0.5:
            out += [0x3D] + self.sink()  # RETURNDATASIZE
        return out

    def create(self):
        r = self.rng
        initcode = self.initcode()
        out = []
        for index in range(0, len(initcode), 32):
            chunk = initcode[index:index + 32].ljust(32, b"\x00")
            out += push(int.from_bytes(chunk, "big")) + push(index) + [0x52]
        value = r.choice([0, 0, 5])
        if r.random() < 0.5:
            out += push(len(initcode)) + push(0) + push(value) + [0xF0]
        else:
            out += push(r.choice([0, 1, self.word()])) + push(len(initcode)) + push(0) + push(value) + [0xF5]
        if r.random() < 0.5:  # call what was created: address on the stack is the call target
            out += [0x80]
            out += push(32) + push(0) + push(0) + push(0) + push(0) + [0x85] + [0x5A, 0xF1] + self.sink()
        return out + self.sink()

    def initcode(self):
        """Creation code: usually deploys a small runtime; sometimes reverts, fails or deploys 0xEF."""
        r = self.rng
        runtime = assemble(self.body(r.randrange(0, 4), allow_calls=False) + [self.ending()])
        kind = r.random()
        if kind < 0.1:
            runtime = b"\xef" + runtime
        prologue = []
        for _ in range(r.randrange(0, 3)):
            prologue.append(self.storage())
        copy = push(len(runtime)) + [("ref", "runtime_data")] + push(0) + [0x39] + push(len(runtime)) + push(0)
        if kind < 0.15:
            ending = copy + [0xFD]
        elif kind < 0.2:
            ending = [0xFE]
        else:
            ending = copy + [0xF3]
        # The runtime follows the creation code as data: the label marks its offset, and its
        # JUMPDEST byte is dropped so the runtime starts right there.
        code = assemble(prologue + [ending, [("label", "runtime_data")]])[:-1]
        return code + runtime

    def loop(self, allow_calls):
        """A bounded loop: a counter on the stack counts down from n to zero around a body."""
        r = self.rng
        name = next(_labels)
        head, done = f"loop{name}", f"done{name}"
        body = [t for s in self.body(r.randrange(1, 3), allow_calls=allow_calls, allow_loops=False) for t in s]
        return (push(r.randrange(1, 12)) + [("label", head), 0x80, 0x15, ("ref", done), 0x57] + body
                + push(1) + [0x90, 0x03, ("ref", head), 0x56, ("label", done), 0x50])

    def self_call(self):
        """B calls itself with what gas is left: recursion until the 63/64 rule or the depth stops it."""
        return push(0) + push(0) + push(0) + push(0) + push(0) + [0x30, 0x5A, 0xF1] + self.sink()

    def body(self, count, allow_calls=True, allow_loops=True, allow_self_call=False):
        r = self.rng
        makers = [self.arithmetic] * 4 + [self.environment, self.memory, self.memory, self.storage, self.storage, self.log]
        if allow_calls:
            makers += [self.call, self.call, self.create]
        if allow_self_call:
            makers += [self.self_call]
        if allow_loops:
            makers += [lambda: self.loop(allow_calls)]
        return [r.choice(makers)() for _ in range(count)]

    def ending(self):
        r = self.rng
        kind = r.random()
        if kind < 0.45:
            return push(r.choice([0, 32, 64, 100])) + push(r.randrange(0, 64)) + [0xF3]
        if kind < 0.65:
            return [0x00]
        if kind < 0.85:
            return push(r.choice([0, 32, 64])) + push(r.randrange(0, 64)) + [0xFD]
        if kind < 0.9:
            return push(int(SENDER, 16)) + [0xFF]  # SELFDESTRUCT (EIP-6780: only sends the balance)
        return [r.choice([0xFE, 0x0C])]  # INVALID, an undefined opcode


def program(rng, count, allow_calls=True, allow_self_call=False):
    """A program as its snippets (the last is the ending)."""
    generator = Generator(rng)
    return generator.body(count, allow_calls=allow_calls, allow_self_call=allow_self_call) + [generator.ending()]


def case(rng, name):
    """A structured case: programs as snippets (so the minimiser can cut them) and the rest."""
    a = program(rng, rng.randrange(1, 14))
    b = program(rng, rng.randrange(0, 6), allow_calls=False, allow_self_call=rng.random() < 0.1)
    storage = {}
    for account in ("a", "b"):
        storage[account] = {slot: rng.choice([1, rng.getrandbits(256)]) for slot in rng.sample(SLOTS, rng.randrange(0, 4))}
    gas = rng.choice([3_000_000, 3_000_000, 1_000_000, rng.randrange(22_000, 120_000)])
    return {
        "name": name,
        "a": a,
        "b": b,
        "storage": storage,
        "calldata": bytes(rng.getrandbits(8) for _ in range(rng.choice([0, 4, 36, rng.randrange(0, 100)]))),
        "value": rng.choice([0, 0, 1, 10**18]),
        "gas": gas,
        "nonce": rng.randrange(0, 3),
        "create": rng.random() < 0.1,
    }


def to_json(structured):
    """The case as `hubd evm run` reads it (see StandaloneCase.swift)."""
    a_code = assemble(structured["a"])
    b_code = assemble(structured["b"])
    storage = structured["storage"]
    pre = {
        SENDER: {"balance": hex(10**24), "nonce": structured["nonce"], "code": "0x", "storage": {}},
        CONTRACT_B: {"balance": hex(10**6), "nonce": 1, "code": "0x" + b_code.hex(),
                     "storage": {hex(k): hex(v) for k, v in storage["b"].items()}},
    }
    tx = {"sender": SENDER, "nonce": structured["nonce"], "value": hex(structured["value"]),
          "gasLimit": structured["gas"], "gasPrice": "0x0"}
    if structured["create"]:
        tx["to"] = None
        tx["data"] = "0x" + a_code.hex()
    else:
        pre[CONTRACT_A] = {"balance": hex(10**6), "nonce": 1, "code": "0x" + a_code.hex(),
                           "storage": {hex(k): hex(v) for k, v in storage["a"].items()}}
        tx["to"] = CONTRACT_A
        tx["data"] = "0x" + structured["calldata"].hex()
    return {"name": structured["name"], "pre": pre, "block": BLOCK, "txs": [tx]}


BLOCK = {"number": 1_000, "timestamp": 1_700_000_000, "coinbase": COINBASE, "gasLimit": 30_000_000,
         "baseFee": "0x0", "prevRandao": hex(0x1234), "chainId": 1}
