/// LOG0…LOG4: 375 + 375 per topic (static) + 8 per data byte + memory.
extension Machine {
    func log(_ f: inout Frame, topics count: Int) throws(HaltReason) {
        if f.message.isStatic { throw .staticStateChange }
        let offset = try f.expandMemory(offset: f.peek(), size: f.peek(1))
        let size = f.peek(1).int ?? 0
        try f.charge(Gas.logDataByte * size)
        _ = f.pop()
        _ = f.pop()
        var topics: [U256] = []
        topics.reserveCapacity(count)
        for _ in 0..<count { topics.append(f.pop()) }
        state.appendLog(Log(address: f.message.target, topics: topics, data: f.memorySlice(offset, size)))
    }
}
