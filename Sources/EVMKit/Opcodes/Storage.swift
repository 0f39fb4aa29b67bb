/// SLOAD and SSTORE with EIP-2929 access costs and EIP-2200/3529 metering and refunds.
extension Machine {
    func sload(_ f: inout Frame) throws(HaltReason) {
        let slot = f.peek()
        let cold = state.warmSlot(f.message.target, slot)
        try f.charge(cold ? Gas.coldSload : Gas.warmAccess)
        f.setTop(state.storage(f.message.target, slot))
    }

    func sstore(_ f: inout Frame) throws(HaltReason) {
        if f.message.isStatic { throw .staticStateChange }
        // EIP-2200: a frame left with the call stipend or less cannot store (reentrancy guard).
        if f.gas <= Gas.sstoreSentry { throw .outOfGas }
        let address = f.message.target
        let slot = f.pop(), new = f.pop()
        var cost = state.warmSlot(address, slot) ? Gas.coldSload : 0
        let current = state.storage(address, slot)
        var refund = 0
        if current == new {
            cost += Gas.warmAccess
        } else {
            let original = state.originalStorage(address, slot)
            if original == current {
                cost += original.isZero ? Gas.sstoreSet : Gas.sstoreReset
                if new.isZero { refund += Gas.sstoreClearsRefund }
            } else {
                cost += Gas.warmAccess
                if !original.isZero {
                    if current.isZero {
                        refund -= Gas.sstoreClearsRefund
                    } else if new.isZero {
                        refund += Gas.sstoreClearsRefund
                    }
                }
                if original == new {
                    refund += original.isZero ? Gas.sstoreSet - Gas.warmAccess : Gas.sstoreReset - Gas.warmAccess
                }
            }
        }
        try f.charge(cost)
        if refund != 0 { state.addRefund(refund) }
        state.setStorage(address, slot, new)
    }
}
