# pragma version 0.4.3
# Drives many token calls in one transaction, so a benchmark measures the EVM rather than the cost of
# starting a transaction (pyrevm's Python call overhead): `count` real external calls per call.

interface Token:
    def transfer(receiver: address, amount: uint256) -> bool: nonpayable

interface Collectible:
    def mint(receiver: address) -> uint256: nonpayable


@external
def transfers(token: Token, count: uint256):
    # Recipients cycle through 256 addresses, so most transfers write to a slot already non-zero.
    for i: uint256 in range(count, bound=1000000):
        extcall token.transfer(convert(convert(4096 + i % 256, uint160), address), 1)


@external
def mints(collectible: Collectible, count: uint256):
    for i: uint256 in range(count, bound=1000000):
        extcall collectible.mint(convert(convert(4096 + i % 256, uint160), address))


@external
def compute(rounds: uint256) -> bytes32:
    # Arithmetic and keccak: a hash chain mixed with multiplications, divisions and modular ops.
    h: bytes32 = keccak256(convert(rounds, bytes32))
    x: uint256 = rounds
    for i: uint256 in range(rounds, bound=10000000):
        x = unsafe_add(unsafe_mul(x, 6364136223846793005), 1442695040888963407)
        x = uint256_addmod(x, convert(h, uint256), 2**255 - 19) ^ unsafe_div(x, i + 1)
        h = keccak256(concat(h, convert(x, bytes32)))
    return h


@external
def copies(target: address, count: uint256):
    # Contract creation: CREATE of a copy of `target`'s code, `count` times (code deposit and hashing).
    for i: uint256 in range(count, bound=100000):
        created: address = create_copy_of(target)
