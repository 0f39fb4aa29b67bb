import ChainKit
import HubKernel
import Testing

@testable import HubLocalChain

/// The rail's pure parts: what a transaction must be before it reaches the pool, and what a
/// block does to the state.
@Suite("Local chain: validation and execution")
struct LocalChainValidationTests {
    static let chainID: UInt64 = 777
    static let alice = [UInt8](repeating: 0x11, count: 32)

    static func legacy(chainID: UInt64? = chainID, nonce: UInt64 = 0, value: UInt64 = 5, to: EthereumAddress? = bob, data: [UInt8] = [])
        throws -> [UInt8]
    {
        var tx = EthereumTransaction(
            envelope: .legacy,
            chainID: chainID ?? 1,
            nonce: nonce,
            gasLimit: 21_000,
            to: to,
            value: UInt256(value),
            data: data
        )
        if chainID == nil {
            // Pre-EIP-155: sign the six-field payload with v = 27/28 by hand (ChainKit refuses to make one).
            tx.chainID = nil
            let signature = try Secp256k1.sign(hash: tx.signingHash, privateKey: alice)
            return SignedEthereumTransaction(transaction: tx, signature: signature).raw
        }
        return try tx.signed(privateKey: alice).raw
    }

    static let bob = try! EthereumAddress("0x000000000000000000000000000000000000b0b0")
    static let aliceAddress = try! EthereumAddress(publicKey: try! Secp256k1.publicKey(privateKey: alice))

    func rejection(_ raw: [UInt8]) -> String? {
        do {
            _ = try ValidatedTransaction.validate(raw, chainID: Self.chainID)
            return nil
        } catch let rejection as TransactionRejection {
            return rejection.code
        } catch {
            return "unexpected: \(error)"
        }
    }

    @Test("EIP-155 legacy and EIP-1559 transactions for this chain pass, with the sender recovered")
    func accepted() throws {
        let legacy = try ValidatedTransaction.validate(try Self.legacy(), chainID: Self.chainID)
        #expect(legacy.sender == Self.aliceAddress)
        #expect(legacy.recipient == Self.bob)
        #expect(legacy.value == 5)
        #expect(legacy.hash == Keccak256.hash(try Self.legacy()))
        let dynamic = try EthereumTransaction(
            envelope: .dynamicFee,
            chainID: Self.chainID,
            nonce: 3,
            maxPriorityFeePerGas: .zero,
            maxFeePerGas: .zero,
            gasLimit: 21_000,
            to: Self.bob,
            value: UInt256(UInt64(1_000_000))
        ).signed(privateKey: Self.alice)
        let validated = try ValidatedTransaction.validate(dynamic.raw, chainID: Self.chainID)
        #expect(validated.sender == Self.aliceAddress)
        #expect(validated.nonce == 3)
        #expect(validated.envelope == .dynamicFee)
        // EIP-2930 (type 1), contract creation and calldata pass too; a creation's recipient is
        // the address its contract will have.
        let type1 = try EthereumTransaction(envelope: .accessList, chainID: Self.chainID, nonce: 0, gasLimit: 21_000, to: Self.bob, value: UInt256(1))
            .signed(privateKey: Self.alice)
        #expect(try ValidatedTransaction.validate(type1.raw, chainID: Self.chainID).envelope == .accessList)
        let creation = try EthereumTransaction(
            envelope: .legacy,
            chainID: Self.chainID,
            nonce: 4,
            gasLimit: 100_000,
            to: nil,
            value: .zero,
            data: [0x00]
        )
        .signed(privateKey: Self.alice)
        let created = try ValidatedTransaction.validate(creation.raw, chainID: Self.chainID)
        #expect(created.isCreation && created.carriesData)
        #expect(created.recipient == ValidatedTransaction.contractAddress(sender: Self.aliceAddress, nonce: 4))
    }

    @Test("wrong chain, pre-EIP-155, too little gas for the data, oversized initcode, garbage and oversized are refused with a reason")
    func refused() throws {
        #expect(rejection(try Self.legacy(chainID: 1)) == "wrong_chain_id")
        #expect(rejection(try Self.legacy(chainID: nil)) == "missing_chain_id")
        // Creation costs 53000 and each data byte more: 21000 is too little for either.
        #expect(rejection(try Self.legacy(to: nil)) == "intrinsic_gas_too_low")
        #expect(rejection(try Self.legacy(data: [1])) == "intrinsic_gas_too_low")
        let huge = try EthereumTransaction(
            envelope: .legacy,
            chainID: Self.chainID,
            nonce: 0,
            gasLimit: 10_000_000,
            to: nil,
            value: .zero,
            data: [UInt8](repeating: 0, count: ValidatedTransaction.maxInitcodeBytes + 1)
        ).signed(privateKey: Self.alice)
        #expect(rejection(huge.raw) == "initcode_too_large")
        #expect(rejection([0xde, 0xad, 0xbe, 0xef]) == "invalid_transaction")
        #expect(rejection([]) == "invalid_transaction")
        #expect(rejection([UInt8](repeating: 0xC0, count: TransactionRejection.maxRawBytes + 1)) == "oversized")
        // An unknown chain is not found (this constructor once called itself).
        let unknown = TransactionRejection.chainNotFound(77)
        #expect(unknown.code == "chain_not_found" && unknown.kind == .notFound && unknown.message.contains("77"))
        // r = 0 cannot be a signature.
        var raw = try Self.legacy()
        let signed = try SignedEthereumTransaction.decode(raw)
        var zeroR = signed
        zeroR.signature.r = [UInt8](repeating: 0, count: 32)
        #expect(rejection(zeroR.raw) == "invalid_signature")
        // High-s (the malleable twin) is refused.
        var highS = signed
        highS.signature.s = Secp256k1.order.subtractingReportingOverflow(try UInt256(bigEndian: signed.signature.s)).partialValue.bigEndianBytes
        highS.signature.recoveryID ^= 1
        #expect(rejection(highS.raw) == "invalid_signature")
        // A flipped signature byte recovers someone else (or nobody): never Alice.
        raw[raw.count - 5] ^= 0x01
        if let other = try? ValidatedTransaction.validate(raw, chainID: Self.chainID) { #expect(other.sender != Self.aliceAddress) }
    }

}

@Suite("Local chain: configuration")
struct LocalChainConfigurationTests {
    func field(_ json: String) -> String? {
        do {
            _ = try LocalChainConfiguration(PluginConfig(json: json), environment: [:])
            return nil
        } catch let error as PluginConfigError {
            return error.field
        } catch {
            return "unexpected: \(error)"
        }
    }

    @Test("defaults, relay settings and the fields a bad value is reported on")
    func configuration() throws {
        let defaults = try LocalChainConfiguration(PluginConfig(json: "{}"), environment: [:])
        #expect(defaults.keyFile == "var/localchain.key" && defaults.relay == nil && defaults.syncListen == nil)
        let relay = try LocalChainConfiguration(
            PluginConfig(
                json:
                    #"{"sync_listen": "127.0.0.1:9101", "relay": {"upstream": "http://a:1/", "upstream_sync": "ws://a:2", "chains": [5], "genesis": {"5": "0x\#(String(repeating: "AB", count: 32))"}}}"#
            ),
            environment: ["HUB_LOCALCHAIN_KEY_FILE": "/tmp/k"]
        )
        #expect(relay.keyFile == "/tmp/k")
        #expect(relay.syncListen?.port == 9101)
        #expect(relay.relay?.upstream == "http://a:1")
        #expect(relay.relay?.genesis[5] == "0x" + String(repeating: "ab", count: 32))
        #expect(field(#"{"seal_tick_ms": 1}"#) == "seal_tick_ms")
        #expect(field(#"{"unknown": 1}"#) == "unknown")
        #expect(field(#"{"sync_listen": "nope"}"#) == "sync_listen")
        #expect(field(#"{"relay": {"upstream": "ftp://a", "upstream_sync": "ws://a", "chains": [1]}}"#) == "relay.upstream")
        #expect(field(#"{"relay": {"upstream": "http://a", "upstream_sync": "ws://a", "chains": []}}"#) == "relay.chains")
        #expect(
            field(#"{"relay": {"upstream": "http://a", "upstream_sync": "ws://a", "chains": [1], "genesis": {"2": "0x00"}}}"#) == "relay.genesis.2"
        )
    }
}
