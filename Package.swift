// swift-tools-version:6.2
import PackageDescription

// Upcoming features as in Hummingbird: explicit `any`, imports internal unless said `public import`,
// and members visible only through modules this file imports itself.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "hubd",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "hubd", targets: ["hubd"]),
        .library(name: "HubKernel", targets: ["HubKernel"]),
        .library(name: "HubServer", targets: ["HubServer"]),
        .library(name: "ChainKit", targets: ["ChainKit"]),
        .library(name: "EVMKit", targets: ["EVMKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
    ],
    targets: [
        // System C libraries (Debian -dev packages; scripts/install-deps.sh installs them).
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
        .systemLibrary(name: "CSecp256k1", pkgConfig: "libsecp256k1", providers: [.apt(["libsecp256k1-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CXXHash", pkgConfig: "libxxhash", providers: [.apt(["libxxhash-dev"])]),

        // Pure, I/O-free chain formats and cryptography (DESIGN §2). Imports no kernel and no plugin.
        .target(
            name: "ChainKit",
            dependencies: ["CSecp256k1", "CSodium", "COpenSSL", "CXXHash", "CZstd"],
            swiftSettings: swiftSettings
        ),

        // The EVM (Cancun), pure: interpreter, gas, precompiles, transactions over a state interface (DESIGN §2).
        // Optimised even in debug builds: the conformance suite runs ~10^10 gas of loops through `hubd evm
        // blocktest` in `make test`, which unoptimised takes tens of minutes instead of a few (measured:
        // 9.2 G gas of vmPerformance/loopMul in 530 s at -Onone, 60 s at -O). No package depends on this one,
        // so its unsafe flag costs nothing.
        .target(
            name: "EVMKit",
            dependencies: ["ChainKit"],
            swiftSettings: swiftSettings + [.unsafeFlags(["-O"])]
        ),

        .target(
            name: "HubKernel",
            dependencies: [
                "CSQLite",
                "CLibPQ",
                "CSodium",
                "COpenSSL",
                "CCurl",
                .product(name: "Hummingbird", package: "hummingbird"),
                // The request context serves WebSocket upgrades too (a rail's `group.ws(...)` route).
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // Rail plugins (DESIGN §2): each imports the kernel (and ChainKit where it speaks a chain), never
        // another rail.
        .target(
            name: "HubBLESessions",
            dependencies: [
                "HubKernel",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/Plugins/BLESessions",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HubLocalChain",
            dependencies: [
                // No C shim (DESIGN §2): zstd comes through ChainKit, key sealing through the kernel.
                "HubKernel",
                "ChainKit",
                // Contracts run in the EVM (DESIGN §2 allows the rail this import).
                "EVMKit",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/Plugins/LocalChain",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HubEVM",
            dependencies: [
                // The hub's own chain is reached through the kernel's HostedChainRegistry, never by
                // importing the local chain rail (DESIGN §2).
                "HubKernel",
                "ChainKit",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/Plugins/EVM",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HubSubstrate",
            dependencies: [
                "HubKernel",
                "ChainKit",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                // Sensor uploads collect their body (ByteBuffer, NIOTooManyBytesError).
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/Plugins/Substrate",
            // peaq mainnet's runtime metadata (a copy of Tests/Fixtures/substrate's, whose README
            // says where it comes from): DIDs work offline with no configuration.
            resources: [.copy("Resources/peaq-runtime-v14.scale")],
            swiftSettings: swiftSettings
        ),

        // The admin console: server-side Mustache templates and hand-written JS/CSS, versioned here.
        .target(
            name: "HubConsole",
            dependencies: [
                "HubKernel",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Resources")],
            swiftSettings: swiftSettings
        ),

        // The hub as a library: the assembly of kernel and rails, the router, the configuration,
        // the plugins file and the OpenAPI document. `hubd` is its command line; tests and
        // embedding programs build a hub through it without importing the executable.
        .target(
            name: "HubServer",
            dependencies: [
                "HubKernel",
                "HubBLESessions",
                "HubLocalChain",
                "HubEVM",
                "HubSubstrate",
                "HubConsole",
                .product(name: "Hummingbird", package: "hummingbird"),
                // The hub's one HTTP server also upgrades WebSocket routes (the chains' eth_subscribe).
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                // HTTPServerBuilder, the type of the server buildServer(router:) answers.
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            resources: [.copy("Resources/openapi.json")],
            swiftSettings: swiftSettings
        ),

        .executableTarget(
            name: "hubd",
            dependencies: [
                "HubServer",
                "HubKernel",
                "ChainKit",
                "EVMKit",
                "HubLocalChain",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),

        // Benchmarks (release builds only; `make bench-ledger`).
        .executableTarget(
            name: "LedgerBench",
            dependencies: [
                "HubKernel",
                "CSQLite",
                "CLibPQ",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "bench/LedgerBench",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "ChainKitBench",
            dependencies: ["ChainKit"],
            path: "bench/ChainKitBench",
            swiftSettings: swiftSettings
        ),
        // The API's JSON coder beside Foundation's (`make bench-json`, scripts/bench-json.sh).
        .executableTarget(
            name: "JSONBench",
            dependencies: ["HubKernel"],
            path: "bench/JSONBench",
            swiftSettings: swiftSettings
        ),
        // EVMKit in gas per second beside revm (`make bench-evm`, scripts/bench-evm.sh).
        .executableTarget(
            name: "EVMBench",
            dependencies: ["EVMKit"],
            path: "bench/EVMBench",
            swiftSettings: swiftSettings
        ),
        // A child process for the crash test: writes transfers and reports each acknowledged one.
        .executableTarget(
            name: "LedgerCrashWriter",
            dependencies: [
                "HubKernel",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/Support/LedgerCrashWriter",
            swiftSettings: swiftSettings
        ),

        // What the test targets share: per-test databases on both backends, a manual clock.
        .target(
            name: "HubTestSupport",
            dependencies: [
                "HubKernel",
                "CSodium",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/Support/HubTestSupport",
            swiftSettings: swiftSettings
        ),
        // A whole hub in-process for the API tests: HubServer's assembly with a test authenticator,
        // and each rail's harness (its plugins.json entry and HTTP calls), shared by the rails'
        // test targets and HubdTests' cross-rail suites. Separate from HubTestSupport so that the
        // kernel's tests do not depend on the server or any rail.
        .target(
            name: "HubServerTestSupport",
            dependencies: [
                "HubServer",
                "HubKernel",
                "HubBLESessions",
                "HubLocalChain",
                "ChainKit",
                "HubTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/Support/HubServerTestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HubKernelTests",
            dependencies: [
                "HubKernel",
                "HubTestSupport",
                "LedgerCrashWriter",
                "CSodium",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HubdTests",
            dependencies: [
                // Built beside the tests, which run it as a user would (CommandLineTests).
                "hubd",
                "HubServer",
                "HubKernel",
                "HubBLESessions",
                "HubLocalChain",
                "HubConsole",
                "ChainKit",
                "HubTestSupport",
                "HubServerTestSupport",
                "CSodium",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HubBLESessionsTests",
            dependencies: [
                "HubBLESessions",
                "HubKernel",
                "HubServer",
                "HubTestSupport",
                "HubServerTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HubLocalChainTests",
            dependencies: [
                "HubLocalChain",
                "HubKernel",
                "ChainKit",
                "EVMKit",
                "HubServer",
                "HubTestSupport",
                "HubServerTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                // A WebSocket client for eth_subscribe on the hub's own port.
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HubEVMTests",
            dependencies: [
                "HubEVM",
                // The default chain is the local chain's: the tests run both rails.
                "HubLocalChain",
                "HubKernel",
                "ChainKit",
                "HubServer",
                "HubTestSupport",
                "HubServerTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/HubEVMTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HubSubstrateTests",
            dependencies: [
                "HubSubstrate",
                "HubKernel",
                "ChainKit",
                "HubServer",
                "HubTestSupport",
                "HubServerTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/HubSubstrateTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ChainKitTests",
            dependencies: ["ChainKit"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EVMKitTests",
            dependencies: ["EVMKit", "ChainKit"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CShimTests",
            dependencies: ["CSQLite", "CLibPQ", "COpenSSL", "CSodium", "CZstd"],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
