"""Prints EVM bytecode as one instruction a line (for reading minimised difftest cases).
Usage: disasm.py HEX"""

import sys

NAMES = {0x00: "STOP", 0x01: "ADD", 0x02: "MUL", 0x03: "SUB", 0x04: "DIV", 0x05: "SDIV", 0x06: "MOD", 0x07: "SMOD",
         0x08: "ADDMOD", 0x09: "MULMOD", 0x0A: "EXP", 0x0B: "SIGNEXTEND", 0x10: "LT", 0x11: "GT", 0x12: "SLT",
         0x13: "SGT", 0x14: "EQ", 0x15: "ISZERO", 0x16: "AND", 0x17: "OR", 0x18: "XOR", 0x19: "NOT", 0x1A: "BYTE",
         0x1B: "SHL", 0x1C: "SHR", 0x1D: "SAR", 0x20: "KECCAK256", 0x30: "ADDRESS", 0x31: "BALANCE", 0x32: "ORIGIN",
         0x33: "CALLER", 0x34: "CALLVALUE", 0x35: "CALLDATALOAD", 0x36: "CALLDATASIZE", 0x37: "CALLDATACOPY",
         0x38: "CODESIZE", 0x39: "CODECOPY", 0x3A: "GASPRICE", 0x3B: "EXTCODESIZE", 0x3C: "EXTCODECOPY",
         0x3D: "RETURNDATASIZE", 0x3E: "RETURNDATACOPY", 0x3F: "EXTCODEHASH", 0x40: "BLOCKHASH", 0x41: "COINBASE",
         0x42: "TIMESTAMP", 0x43: "NUMBER", 0x44: "PREVRANDAO", 0x45: "GASLIMIT", 0x46: "CHAINID",
         0x47: "SELFBALANCE", 0x48: "BASEFEE", 0x49: "BLOBHASH", 0x4A: "BLOBBASEFEE", 0x50: "POP", 0x51: "MLOAD",
         0x52: "MSTORE", 0x53: "MSTORE8", 0x54: "SLOAD", 0x55: "SSTORE", 0x56: "JUMP", 0x57: "JUMPI", 0x58: "PC",
         0x59: "MSIZE", 0x5A: "GAS", 0x5B: "JUMPDEST", 0x5C: "TLOAD", 0x5D: "TSTORE", 0x5E: "MCOPY", 0x5F: "PUSH0",
         0xF0: "CREATE", 0xF1: "CALL", 0xF2: "CALLCODE", 0xF3: "RETURN", 0xF4: "DELEGATECALL", 0xF5: "CREATE2",
         0xFA: "STATICCALL", 0xFD: "REVERT", 0xFE: "INVALID", 0xFF: "SELFDESTRUCT"}
NAMES.update({0x60 + i: f"PUSH{i + 1}" for i in range(32)})
NAMES.update({0x80 + i: f"DUP{i + 1}" for i in range(16)})
NAMES.update({0x90 + i: f"SWAP{i + 1}" for i in range(16)})
NAMES.update({0xA0 + i: f"LOG{i}" for i in range(5)})


def disassemble(code):
    lines, pc = [], 0
    while pc < len(code):
        op = code[pc]
        name = NAMES.get(op, f"0x{op:02x}?")
        if 0x60 <= op <= 0x7F:
            width = op - 0x5F
            lines.append(f"{pc:5d} {name} 0x{code[pc + 1:pc + 1 + width].hex()}")
            pc += width
        else:
            lines.append(f"{pc:5d} {name}")
        pc += 1
    return lines


if __name__ == "__main__":
    text = sys.argv[1]
    print("\n".join(disassemble(bytes.fromhex(text[2:] if text.startswith("0x") else text))))
