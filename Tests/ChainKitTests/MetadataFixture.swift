import ChainKit
import Foundation

/// The runtime metadata blobs in `Tests/Fixtures/substrate/` (see the README there).
enum MetadataFixture: String, CaseIterable, Sendable, CustomStringConvertible {
    case substrateNodeV14 = "py-scale-codec-v14.scale"
    case peaqAgungV14 = "peaq-js-types-v14.scale"
    case peaqMainnetGenesisV14 = "peaq-mainnet-genesis-v14.scale"
    case rococoV15 = "subxt-polkadot-small-v15.scale"
    case frontierV15 = "subxt-frontier-small-v15.scale"

    var description: String { rawValue }

    /// The fixture named `file`.
    init(file: String) throws {
        guard let fixture = MetadataFixture(rawValue: file) else {
            throw ChainKitError(.invalidSCALE, "no metadata fixture \(file)")
        }
        self = fixture
    }

    /// The raw bytes of the blob.
    var bytes: [UInt8] {
        get throws {
            let url = URL(fileURLWithPath: #filePath)
                .deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Fixtures/substrate/\(rawValue)")
            return Array(try Data(contentsOf: url))
        }
    }

    /// The decoded metadata, decoded once per process and shared by the tests.
    var metadata: RuntimeMetadata {
        get throws { try decodedFixtures[self]!.get() }
    }
}

/// Every fixture decoded once (a global `let` initialises lazily and exactly once, thread-safely).
private let decodedFixtures: [MetadataFixture: Result<RuntimeMetadata, any Error>] = Dictionary(
    uniqueKeysWithValues: MetadataFixture.allCases.map { fixture in
        (fixture, Result { try RuntimeMetadata(bytes: try fixture.bytes) })
    }
)
