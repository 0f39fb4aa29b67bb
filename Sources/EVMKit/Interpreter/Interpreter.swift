/// The dispatch loop: one `switch` over the opcode, after the checks every instruction shares
/// (defined, stack room, static gas). The simple instructions are written inline here; the ones with
/// dynamic gas or state access live in `Opcodes/`.
extension Machine {
    enum Outcome {
        case stop
        case returned([UInt8])
        case reverted([UInt8])
        case halted(HaltReason)
    }

    func run(_ f: inout Frame) -> Outcome {
        let table = OpcodeInfo.table
        let codeCount = f.code.count
        do throws(HaltReason) {
            while true {
                if f.pc >= codeCount { return .stop }
                let op = f.code[f.pc]
                let info = table[Int(op)]
                guard info.defined else { throw HaltReason.invalidOpcode(op) }
                if f.sp < info.pops { throw HaltReason.stackUnderflow }
                if f.sp + info.growth > Gas.stackLimit { throw HaltReason.stackOverflow }
                try f.charge(info.gas)
                f.pc &+= 1

                switch op {
                case 0x00: return .stop
                case 0x01: let a = f.pop(); f.setTop(a &+ f.peek())
                case 0x02: let a = f.pop(); f.setTop(a &* f.peek())
                case 0x03: let a = f.pop(); f.setTop(a &- f.peek())
                case 0x04: let a = f.pop(); f.setTop(a / f.peek())
                case 0x05: let a = f.pop(); f.setTop(a.signedDivided(by: f.peek()))
                case 0x06: let a = f.pop(); f.setTop(a % f.peek())
                case 0x07: let a = f.pop(); f.setTop(a.signedRemainder(dividingBy: f.peek()))
                case 0x08: let a = f.pop(), b = f.pop(); f.setTop(a.addMod(b, f.peek()))
                case 0x09: let a = f.pop(), b = f.pop(); f.setTop(a.mulMod(b, f.peek()))
                case 0x0A:
                    let base = f.pop(), exponent = f.peek()
                    try f.charge(Gas.expByte * exponent.byteWidth)
                    f.setTop(base.power(exponent))
                case 0x0B: let b = f.pop(); f.setTop(f.peek().signExtended(fromByte: b))

                case 0x10: let a = f.pop(); f.setTop(a < f.peek() ? .one : .zero)
                case 0x11: let a = f.pop(); f.setTop(a > f.peek() ? .one : .zero)
                case 0x12: let a = f.pop(); f.setTop(a.signedLessThan(f.peek()) ? .one : .zero)
                case 0x13: let a = f.pop(); f.setTop(f.peek().signedLessThan(a) ? .one : .zero)
                case 0x14: let a = f.pop(); f.setTop(a == f.peek() ? .one : .zero)
                case 0x15: f.setTop(f.peek().isZero ? .one : .zero)
                case 0x16: let a = f.pop(); f.setTop(a & f.peek())
                case 0x17: let a = f.pop(); f.setTop(a | f.peek())
                case 0x18: let a = f.pop(); f.setTop(a ^ f.peek())
                case 0x19: f.setTop(~f.peek())
                case 0x1A: let i = f.pop(); f.setTop(f.peek().byte(at: i))
                case 0x1B: let s = f.pop(); f.setTop(f.peek().shiftedLeft(by: s))
                case 0x1C: let s = f.pop(); f.setTop(f.peek().shiftedRight(by: s))
                case 0x1D: let s = f.pop(); f.setTop(f.peek().arithmeticShiftedRight(by: s))

                case 0x20: try keccak256(&f)

                case 0x30: f.push(f.message.target.word)
                case 0x31: try balance(&f)
                case 0x32: f.push(transaction.origin.word)
                case 0x33: f.push(f.message.caller.word)
                case 0x34: f.push(f.message.value)
                case 0x35: f.setTop(Self.callDataLoad(f.message.input, f.peek()))
                case 0x36: f.push(U256(f.message.input.count))
                case 0x37: try copy(&f, from: f.message.input)
                case 0x38: f.push(U256(codeCount))
                case 0x39: try copy(&f, from: f.code)
                case 0x3A: f.push(transaction.gasPrice)
                case 0x3B: try extCodeSize(&f)
                case 0x3C: try extCodeCopy(&f)
                case 0x3D: f.push(U256(f.returnData.count))
                case 0x3E: try returnDataCopy(&f)
                case 0x3F: try extCodeHash(&f)

                case 0x40: f.setTop(blockHash(f.peek()))
                case 0x41: f.push(block.coinbase.word)
                case 0x42: f.push(U256(block.timestamp))
                case 0x43: f.push(U256(block.number))
                case 0x44: f.push(block.prevRandao)
                case 0x45: f.push(U256(block.gasLimit))
                case 0x46: f.push(block.chainID)
                case 0x47: f.push(state.balance(f.message.target))
                case 0x48: f.push(block.baseFee)
                case 0x49:
                    let index = f.peek()
                    let hashes = transaction.blobHashes
                    f.setTop(index.int.flatMap { $0 < hashes.count ? hashes[$0] : nil } ?? .zero)
                case 0x4A: f.push(block.blobBaseFee)

                case 0x50: _ = f.pop()
                case 0x51:
                    let offset = try f.expandMemory(offset: f.peek(), size: U256(32))
                    f.setTop(f.loadWord(offset))
                case 0x52:
                    let offset = try f.expandMemory(offset: f.peek(), size: U256(32))
                    _ = f.pop()
                    f.storeWord(f.pop(), at: offset)
                case 0x53:
                    let offset = try f.expandMemory(offset: f.peek(), size: .one)
                    _ = f.pop()
                    f.memory[offset] = UInt8(truncatingIfNeeded: f.pop().w0)
                case 0x54: try sload(&f)
                case 0x55: try sstore(&f)
                case 0x56:
                    guard let target = f.isValidJump(f.pop()) else { throw HaltReason.invalidJump }
                    f.pc = target
                case 0x57:
                    let destination = f.pop(), condition = f.pop()
                    if !condition.isZero {
                        guard let target = f.isValidJump(destination) else { throw HaltReason.invalidJump }
                        f.pc = target
                    }
                case 0x58: f.push(U256(f.pc - 1))
                case 0x59: f.push(U256(f.memory.count))
                case 0x5A: f.push(U256(f.gas))
                case 0x5B: break
                case 0x5C: f.setTop(state.transientStorage(f.message.target, f.peek()))
                case 0x5D:
                    if f.message.isStatic { throw HaltReason.staticStateChange }
                    let slot = f.pop(), value = f.pop()
                    state.setTransientStorage(f.message.target, slot, value)
                case 0x5E: try mcopy(&f)
                case 0x5F: f.push(.zero)
                case 0x60...0x7F: f.pushImmediate(Int(op) - 0x5F)
                case 0x80...0x8F: f.push(f.peek(Int(op) - 0x80))
                case 0x90...0x9F:
                    let depth = Int(op) - 0x8F
                    let top = f.peek()
                    f.setTop(f.peek(depth))
                    f.stack[f.sp - 1 - depth] = top
                case 0xA0...0xA4: try log(&f, topics: Int(op) - 0xA0)

                case 0xF0: try create(&f, isCreate2: false)
                case 0xF1: try call(&f, kind: .call)
                case 0xF2: try call(&f, kind: .callCode)
                case 0xF3:
                    let offset = try f.expandMemory(offset: f.peek(), size: f.peek(1))
                    let size = f.peek(1).int ?? 0
                    return .returned(f.memorySlice(offset, size))
                case 0xF4: try call(&f, kind: .delegateCall)
                case 0xF5: try create(&f, isCreate2: true)
                case 0xFA: try call(&f, kind: .staticCall)
                case 0xFD:
                    let offset = try f.expandMemory(offset: f.peek(), size: f.peek(1))
                    let size = f.peek(1).int ?? 0
                    return .reverted(f.memorySlice(offset, size))
                case 0xFF:
                    try selfDestruct(&f)
                    return .stop
                default: throw HaltReason.invalidOpcode(op)
                }
            }
        } catch {
            return .halted(error)
        }
    }
}

extension Frame {
    /// PUSH1…PUSH32: the next `count` code bytes, zero-padded past the end of the code.
    @inline(__always)
    mutating func pushImmediate(_ count: Int) {
        var value = U256.zero
        let start = pc
        let available = Swift.max(0, Swift.min(count, code.count - start))
        code.withUnsafeBufferPointer { bytes in
            for k in 0..<available {
                let position = count - 1 - k  // byte position from the least significant end
                value[limb: position >> 3] |= UInt64(bytes[start + k]) << UInt64((position & 7) * 8)
            }
        }
        push(value)
        pc = start + count
    }
}
