/// One entry of an EIP-2930 access list.
public struct AccessListEntry: Sendable, Hashable {
    public var address: EthereumAddress
    /// 32-byte storage slots.
    public var storageKeys: [[UInt8]]

    public init(address: EthereumAddress, storageKeys: [[UInt8]]) {
        self.address = address
        self.storageKeys = storageKeys
    }
}

/// An unsigned Ethereum transaction in one of the three envelopes wallets send.
public struct EthereumTransaction: Sendable, Hashable {
    public enum Envelope: UInt8, Sendable, Hashable {
        /// Untyped (`gasPrice`), EIP-155 protected when `chainID` is set.
        case legacy = 0
        /// EIP-2930 (`0x01`): `gasPrice` and an access list.
        case accessList = 1
        /// EIP-1559 (`0x02`): priority fee and fee cap.
        case dynamicFee = 2
    }

    public var envelope: Envelope
    /// `nil` only for a pre-EIP-155 legacy transaction, which hubd decodes but never produces.
    public var chainID: UInt64?
    public var nonce: UInt64
    /// Legacy and EIP-2930.
    public var gasPrice: UInt256
    /// EIP-1559.
    public var maxPriorityFeePerGas: UInt256
    /// EIP-1559.
    public var maxFeePerGas: UInt256
    public var gasLimit: UInt64
    /// `nil` creates a contract.
    public var to: EthereumAddress?
    public var value: UInt256
    public var data: [UInt8]
    public var accessList: [AccessListEntry]

    public init(
        envelope: Envelope,
        chainID: UInt64?,
        nonce: UInt64,
        gasPrice: UInt256 = .zero,
        maxPriorityFeePerGas: UInt256 = .zero,
        maxFeePerGas: UInt256 = .zero,
        gasLimit: UInt64,
        to: EthereumAddress?,
        value: UInt256,
        data: [UInt8] = [],
        accessList: [AccessListEntry] = []
    ) {
        self.envelope = envelope
        self.chainID = chainID
        self.nonce = nonce
        self.gasPrice = gasPrice
        self.maxPriorityFeePerGas = maxPriorityFeePerGas
        self.maxFeePerGas = maxFeePerGas
        self.gasLimit = gasLimit
        self.to = to
        self.value = value
        self.data = data
        self.accessList = accessList
    }

    /// The fields before the signature, in the envelope's RLP order.
    func fieldItems() -> [RLPItem] {
        let to = RLPItem.bytes(self.to?.bytes ?? [])
        switch envelope {
        case .legacy:
            return [.uint(nonce), .uint(gasPrice), .uint(gasLimit), to, .uint(value), .bytes(data)]
        case .accessList:
            return [.uint(chainID ?? 0), .uint(nonce), .uint(gasPrice), .uint(gasLimit), to, .uint(value), .bytes(data), accessListItem]
        case .dynamicFee:
            return [
                .uint(chainID ?? 0), .uint(nonce), .uint(maxPriorityFeePerGas), .uint(maxFeePerGas), .uint(gasLimit), to, .uint(value),
                .bytes(data), accessListItem,
            ]
        }
    }

    var accessListItem: RLPItem {
        .list(accessList.map { .list([.bytes($0.address.bytes), .list($0.storageKeys.map(RLPItem.bytes))]) })
    }

    /// What is signed: for legacy, RLP of the fields (plus `chainID, 0, 0` under EIP-155); for
    /// typed envelopes, the type byte followed by RLP of the fields.
    public var signingPayload: [UInt8] {
        switch envelope {
        case .legacy:
            var items = fieldItems()
            if let chainID { items += [.uint(chainID), .bytes([]), .bytes([])] }
            return RLP.encode(.list(items))
        case .accessList, .dynamicFee:
            return [envelope.rawValue] + RLP.encode(.list(fieldItems()))
        }
    }

    public var signingHash: [UInt8] { Keccak256.hash(signingPayload) }

    /// Signs with a 32-byte private key.
    /// - Throws: `invalid_transaction` for a legacy transaction without a chain id (replayable on
    ///   every chain; hubd never makes one), `invalid_key` for a bad key.
    public func signed(privateKey: [UInt8]) throws -> SignedEthereumTransaction {
        guard chainID != nil else {
            throw ChainKitError(.invalidTransaction, "refusing to sign without a chain id (pre-EIP-155 transactions replay on every chain)")
        }
        let signature = try Secp256k1.sign(hash: signingHash, privateKey: privateKey)
        return SignedEthereumTransaction(transaction: self, signature: signature)
    }
}

/// A signed transaction: its raw bytes, hash and sender.
public struct SignedEthereumTransaction: Sendable, Hashable {
    public var transaction: EthereumTransaction
    public var signature: Secp256k1.Signature

    public init(transaction: EthereumTransaction, signature: Secp256k1.Signature) {
        self.transaction = transaction
        self.signature = signature
    }

    /// The legacy `v`: 27/28 before EIP-155, `recid + 35 + 2·chainID` after. For typed
    /// envelopes, the y-parity (0 or 1).
    public var v: UInt256 {
        let recid = UInt256(signature.recoveryID)
        guard transaction.envelope == .legacy else { return recid }
        guard let chainID = transaction.chainID else { return UInt256(27 + UInt64(signature.recoveryID)) }
        return UInt256(chainID).multipliedReportingOverflow(by: 2).partialValue
            .addingReportingOverflow(UInt256(35)).partialValue.addingReportingOverflow(recid).partialValue
    }

    /// The bytes a wallet broadcasts (`eth_sendRawTransaction`).
    public var raw: [UInt8] {
        let signatureItems: [RLPItem] = [
            .uint(v), .uint(try! UInt256(bigEndian: signature.r)), .uint(try! UInt256(bigEndian: signature.s)),
        ]
        let body = RLP.encode(.list(transaction.fieldItems() + signatureItems))
        return transaction.envelope == .legacy ? body : [transaction.envelope.rawValue] + body
    }

    /// The transaction hash: keccak-256 of the raw bytes.
    public var hash: [UInt8] { Keccak256.hash(raw) }

    /// Recovers the sender from the signature (low-s required, per EIP-2).
    public func sender() throws -> EthereumAddress {
        let publicKey = try Secp256k1.recover(hash: transaction.signingHash, signature: signature, requireLowS: true)
        return try EthereumAddress(publicKey: publicKey)
    }

    /// Decodes raw transaction bytes of any of the three envelopes.
    /// - Throws: `invalid_transaction` naming the field at fault, or `invalid_rlp`.
    public static func decode(_ raw: [UInt8]) throws -> SignedEthereumTransaction {
        guard let first = raw.first else { throw ChainKitError(.invalidTransaction, "no bytes") }
        if first >= 0xC0 { return try decodeLegacy(raw) }
        guard let envelope = EthereumTransaction.Envelope(rawValue: first), envelope != .legacy else {
            throw ChainKitError(.invalidTransaction, "unknown transaction type 0x\(String(first, radix: 16))")
        }
        let fields = try RLP.decode(Array(raw.dropFirst())).list("a typed transaction")
        let expected = envelope == .accessList ? 11 : 12
        guard fields.count == expected else {
            throw ChainKitError(.invalidTransaction, "a type-\(first) transaction has \(expected) fields, got \(fields.count)")
        }
        var index = 0
        func next() -> RLPItem {
            defer { index += 1 }
            return fields[index]
        }
        let chainID = try next().uint64("chainId")
        let nonce = try next().uint64("nonce")
        var transaction = EthereumTransaction(envelope: envelope, chainID: chainID, nonce: nonce, gasLimit: 0, to: nil, value: .zero)
        if envelope == .accessList {
            transaction.gasPrice = try next().uint256("gasPrice")
        } else {
            transaction.maxPriorityFeePerGas = try next().uint256("maxPriorityFeePerGas")
            transaction.maxFeePerGas = try next().uint256("maxFeePerGas")
        }
        transaction.gasLimit = try next().uint64("gasLimit")
        transaction.to = try decodeTo(next())
        transaction.value = try next().uint256("value")
        transaction.data = try next().bytes("data")
        transaction.accessList = try decodeAccessList(next())
        let yParity = try next().uint256("yParity")
        guard yParity <= UInt256(1) else { throw ChainKitError(.invalidTransaction, "yParity must be 0 or 1") }
        let signature = try decodeSignature(r: next(), s: next(), recoveryID: UInt8(yParity.low))
        return SignedEthereumTransaction(transaction: transaction, signature: signature)
    }

    private static func decodeLegacy(_ raw: [UInt8]) throws -> SignedEthereumTransaction {
        let fields = try RLP.decode(raw).list("a legacy transaction")
        guard fields.count == 9 else { throw ChainKitError(.invalidTransaction, "a legacy transaction has 9 fields, got \(fields.count)") }
        var transaction = EthereumTransaction(
            envelope: .legacy,
            chainID: nil,
            nonce: try fields[0].uint64("nonce"),
            gasPrice: try fields[1].uint256("gasPrice"),
            gasLimit: try fields[2].uint64("gasLimit"),
            to: try decodeTo(fields[3]),
            value: try fields[4].uint256("value"),
            data: try fields[5].bytes("data")
        )
        let v = try fields[6].uint256("v")
        let recoveryID: UInt8
        if v == UInt256(27) || v == UInt256(28) {
            recoveryID = UInt8(v.low - 27)
        } else {
            guard v >= UInt256(35), v.high == 0, v.low - 35 <= UInt128(UInt64.max) * 2 + 1 else {
                throw ChainKitError(.invalidTransaction, "v = \(v) is neither 27/28 nor an EIP-155 value (≥ 35)")
            }
            transaction.chainID = UInt64((v.low - 35) / 2)
            recoveryID = UInt8((v.low - 35) % 2)
        }
        let signature = try decodeSignature(r: fields[7], s: fields[8], recoveryID: recoveryID)
        return SignedEthereumTransaction(transaction: transaction, signature: signature)
    }

    private static func decodeTo(_ item: RLPItem) throws -> EthereumAddress? {
        let bytes = try item.bytes("to")
        if bytes.isEmpty { return nil }
        guard bytes.count == 20 else { throw ChainKitError(.invalidTransaction, "to must be empty or 20 bytes, got \(bytes.count)") }
        return try EthereumAddress(bytes: bytes)
    }

    private static func decodeAccessList(_ item: RLPItem) throws -> [AccessListEntry] {
        try item.list("accessList").enumerated().map { index, entry in
            let pair = try entry.list("accessList[\(index)]")
            guard pair.count == 2 else { throw ChainKitError(.invalidTransaction, "accessList[\(index)] must be [address, storageKeys]") }
            let address = try pair[0].bytes("accessList[\(index)].address")
            guard address.count == 20 else { throw ChainKitError(.invalidTransaction, "accessList[\(index)].address must be 20 bytes") }
            let keys = try pair[1].list("accessList[\(index)].storageKeys").map { key in
                let bytes = try key.bytes("a storage key")
                guard bytes.count == 32 else {
                    throw ChainKitError(.invalidTransaction, "accessList[\(index)] has a storage key that is not 32 bytes")
                }
                return bytes
            }
            return AccessListEntry(address: try EthereumAddress(bytes: address), storageKeys: keys)
        }
    }

    private static func decodeSignature(r: RLPItem, s: RLPItem, recoveryID: UInt8) throws -> Secp256k1.Signature {
        let rValue = try r.uint256("r")
        let sValue = try s.uint256("s")
        guard !rValue.isZero, !sValue.isZero, rValue < Secp256k1.order, sValue < Secp256k1.order else {
            throw ChainKitError(.invalidSignature, "r and s must be in 1…n-1")
        }
        return Secp256k1.Signature(r: rValue.bigEndianBytes, s: sValue.bigEndianBytes, recoveryID: recoveryID)
    }
}
