/// SELFDESTRUCT as EIP-6780 has it: the balance always moves to the beneficiary, but the account is
/// deleted only if it was created in this same transaction.
extension Machine {
    func selfDestruct(_ f: inout Frame) throws(HaltReason) {
        if f.message.isStatic { throw .staticStateChange }
        let beneficiary = Address(f.pop())
        let address = f.message.target
        if state.warmAccount(beneficiary) { try f.charge(Gas.coldAccountAccess) }
        let balance = state.balance(address)
        if !balance.isZero && state.isDead(beneficiary) { try f.charge(Gas.newAccount) }

        state.subtractBalance(address, balance)
        state.addBalance(beneficiary, balance)
        if state.createdInTransaction.contains(address) {
            // The account goes at the end of the transaction, and with it any balance sent to itself.
            state.setBalance(address, .zero)
            state.markSelfDestructed(address)
        }
    }
}
