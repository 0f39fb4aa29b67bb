import ChainKit
import Testing

@testable import HubLocalChain

/// The explorer's table of well-known ERC-20/ERC-721 signatures and its decoding of calls and
/// logs. Selectors and topics are recomputed here with keccak-256 from each entry's canonical
/// signature, so a mistyped constant in the table fails.
@Suite("well-known ABI decoding")
struct KnownSignaturesTests {
    static let alice = try! EthereumAddress("0x00000000000000000000000000000000000a11ce")
    static let bob = try! EthereumAddress("0x0000000000000000000000000000000000000b0b")

    static func hex(_ bytes: [UInt8]) -> String { Hex.encode(bytes) }

    @Test("every selector is keccak-256 of its signature (4 bytes for functions, 32 for events)")
    func selectors() {
        for function in KnownSignatures.functions {
            #expect(function.selector == Self.hex(Array(Keccak256.hash(Array(function.signature.utf8)).prefix(4))), "\(function.signature)")
        }
        for event in KnownSignatures.events {
            #expect(event.selector == Self.hex(Keccak256.hash(Array(event.signature.utf8))), "\(event.signature)")
        }
        let signatures = Set(KnownSignatures.functions.map(\.signature))
        #expect(signatures.isSuperset(of: ["transfer(address,uint256)", "transferFrom(address,address,uint256)", "approve(address,uint256)"]))
        #expect(
            Set(KnownSignatures.events.map(\.signature)) == [
                "Transfer(address,address,uint256)", "Approval(address,address,uint256)", "ApprovalForAll(address,address,bool)",
            ]
        )
    }

    @Test("an ERC-20 transfer's calldata decodes to its recipient and exact amount")
    func transferCall() throws {
        // 2^200: far beyond a Double's exact integers, so a float anywhere would show.
        let amount = UInt256(high: 1 << 72, low: 0)
        let data = try ABI.calldata("transfer(address,uint256)", types: [.address, .uint(bits: 256)], values: [.address(Self.bob), .uint(amount)])
        let call = try #require(KnownSignatures.decodeCall(data))
        #expect(call.name == "transfer")
        #expect(call.standard == "ERC-20")
        #expect(call.signature == "transfer(address,uint256)")
        #expect(call.args == ["to": Self.bob.checksummed, "value": "1606938044258990275541962092341162602522202993782792835301376"])
    }

    @Test("ERC-721 calls: safeTransferFrom with data, setApprovalForAll")
    func erc721Calls() throws {
        let data = try ABI.calldata(
            "safeTransferFrom(address,address,uint256,bytes)",
            types: [.address, .address, .uint(bits: 256), .bytes],
            values: [.address(Self.alice), .address(Self.bob), .uint(UInt256(7)), .bytes([0xCA, 0xFE])]
        )
        let call = try #require(KnownSignatures.decodeCall(data))
        #expect(call.args == ["from": Self.alice.checksummed, "to": Self.bob.checksummed, "token_id": "7", "data": "0xcafe"])
        let approval = try ABI.calldata("setApprovalForAll(address,bool)", types: [.address, .bool], values: [.address(Self.bob), .bool(true)])
        #expect(KnownSignatures.decodeCall(approval)?.args == ["operator": Self.bob.checksummed, "approved": "true"])
    }

    @Test("unknown selectors, short data and arguments that do not decode strictly give no call")
    func notDecoded() throws {
        #expect(KnownSignatures.decodeCall([]) == nil)
        #expect(KnownSignatures.decodeCall([0xa9, 0x05, 0x9c]) == nil)
        #expect(KnownSignatures.decodeCall(ABI.selector("mint(address,uint256)") + [UInt8](repeating: 0, count: 64)) == nil)
        // transfer's selector with a truncated argument, and with dirty address padding.
        #expect(KnownSignatures.decodeCall(ABI.selector("transfer(address,uint256)") + [UInt8](repeating: 0, count: 40)) == nil)
        #expect(KnownSignatures.decodeCall(ABI.selector("transfer(address,uint256)") + [0xFF] + [UInt8](repeating: 0, count: 63)) == nil)
    }

    static func topic(_ address: EthereumAddress) -> String { Hex.encode([UInt8](repeating: 0, count: 12) + address.bytes) }

    @Test("Transfer logs: ERC-20 (amount in data) and ERC-721 (token id indexed) told apart by their topics")
    func transferEvents() throws {
        let transfer = Self.hex(ABI.eventTopic("Transfer(address,address,uint256)"))
        let erc20 = try #require(
            KnownSignatures.decodeEvent(
                topics: [transfer, Self.topic(Self.alice), Self.topic(Self.bob)],
                data: try ABI.encode([.uint(bits: 256)], [.uint(UInt256(1_250))])
            )
        )
        #expect(erc20.standard == "ERC-20")
        #expect(erc20.args == ["from": Self.alice.checksummed, "to": Self.bob.checksummed, "value": "1250"])
        let erc721 = try #require(
            KnownSignatures.decodeEvent(
                topics: [transfer, Self.topic(Self.alice), Self.topic(Self.bob), Hex.encode(UInt256(42).bigEndianBytes)],
                data: []
            )
        )
        #expect(erc721.standard == "ERC-721")
        #expect(erc721.args == ["from": Self.alice.checksummed, "to": Self.bob.checksummed, "token_id": "42"])
    }

    @Test("Approval and ApprovalForAll logs; unknown or malformed logs give no event")
    func otherEvents() throws {
        let approval = Self.hex(ABI.eventTopic("Approval(address,address,uint256)"))
        let decoded = KnownSignatures.decodeEvent(
            topics: [approval, Self.topic(Self.alice), Self.topic(Self.bob)],
            data: try ABI.encode([.uint(bits: 256)], [.uint(UInt256(5))])
        )
        #expect(decoded?.args == ["owner": Self.alice.checksummed, "spender": Self.bob.checksummed, "value": "5"])
        let forAll = Self.hex(ABI.eventTopic("ApprovalForAll(address,address,bool)"))
        let all = KnownSignatures.decodeEvent(
            topics: [forAll, Self.topic(Self.alice), Self.topic(Self.bob)],
            data: try ABI.encode([.bool], [.bool(false)])
        )
        #expect(all?.args == ["owner": Self.alice.checksummed, "operator": Self.bob.checksummed, "approved": "false"])

        #expect(KnownSignatures.decodeEvent(topics: [], data: []) == nil)
        #expect(KnownSignatures.decodeEvent(topics: [Hex.encode(UInt256(42).bigEndianBytes)], data: []) == nil)
        // A Transfer with two topics fits neither standard; one whose address topic has dirty padding neither.
        #expect(KnownSignatures.decodeEvent(topics: [approval, Self.topic(Self.alice)], data: []) == nil)
        let dirty = "0x" + String(repeating: "f", count: 24) + Self.topic(Self.bob).suffix(40)
        #expect(
            KnownSignatures.decodeEvent(topics: [approval, dirty, Self.topic(Self.bob)], data: try ABI.encode([.uint(bits: 256)], [.uint(.zero)]))
                == nil
        )
    }
}
