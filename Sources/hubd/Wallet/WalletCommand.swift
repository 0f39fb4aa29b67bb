import ArgumentParser
import ChainKit
import Foundation

/// `hubd wallet`: keys, addresses, signatures and keystores for the chains the hub speaks, printing JSON.
struct Wallet: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make and inspect keys, sign and verify, convert SS58 addresses and keystores (JSON output).",
        discussion: """
            Schemes: sr25519 and ed25519 (Substrate, peaq), secp256k1 (Ethereum, Kaia, the local chain).
            Secrets and passwords are never logged. Give a secret as "-" to read it from standard input, or
            with --secret-file. Keystore passwords are read from standard input (the first line).
            """,
        subcommands: [New.self, Inspect.self, Sign.self, Verify.self, KeystoreCommand.self, SS58Command.self]
    )
}

extension WalletScheme: ExpressibleByArgument {}

/// How a command gets its key: a secret URI / mnemonic or raw secret bytes.
struct KeyOptions: ParsableArguments {
    @Option(help: "sr25519, ed25519 or secp256k1.")
    var scheme: WalletScheme = .sr25519

    @Option(help: "A BIP39 phrase or secret URI (PHRASE//hard/soft///password), or - for standard input.")
    var mnemonic: String?

    @Option(help: "A derivation path appended to --mnemonic, e.g. //Alice.")
    var path: String?

    @Option(help: "The secret as hex (sr25519: 32-byte mini secret; ed25519: seed; secp256k1: private key), or -.")
    var secret: String?

    @Option(help: "Read the secret hex from this file.")
    var secretFile: String?

    func key() throws -> WalletKey {
        switch (mnemonic, secret ?? secretFile.map { _ in "" }) {
        case (let phrase?, nil):
            let text = try readIfDash(phrase, what: "the mnemonic")
            return try WalletKey(scheme: scheme, uri: SecretURI(text + (path ?? "")))
        case (nil, _?):
            return try WalletKey(scheme: scheme, secret: readSecret(secret, file: secretFile))
        case (nil, nil): throw ValidationError("give --mnemonic, --secret or --secret-file")
        default: throw ValidationError("give only one of --mnemonic and --secret")
        }
    }
}

/// Secret bytes from `--secret HEX`, `--secret -` (standard input) or `--secret-file PATH`.
func readSecret(_ secret: String?, file: String?) throws -> [UInt8] {
    let text: String
    switch (secret, file) {
    case (let value?, nil): text = try readIfDash(value, what: "the secret")
    case (nil, let path?):
        guard let data = FileManager.default.contents(atPath: path) else { throw WalletError("cannot read \(path)") }
        text = String(decoding: data, as: UTF8.self)
    default: throw ValidationError("give exactly one of --secret and --secret-file")
    }
    do {
        return try Hex.decode(text.trimmingCharacters(in: .whitespacesAndNewlines))
    } catch {
        // Never echo the secret itself.
        throw WalletError("the secret is not hex: \(error)")
    }
}

func readIfDash(_ value: String, what: String) throws -> String {
    guard value == "-" else { return value }
    guard let line = readLine(strippingNewline: true), !line.isEmpty else { throw WalletError("expected \(what) on standard input") }
    return line
}

/// Prints a JSON object with sorted keys.
func printJSON(_ object: [String: Any]) throws {
    let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
    print(String(decoding: data, as: UTF8.self))
}

/// The public description of a key: hex public key, and its address.
func describe(_ key: WalletKey, ss58Prefix: UInt16) throws -> [String: Any] {
    var out: [String: Any] = ["scheme": key.scheme.rawValue, "public_key": Hex.encode(key.publicKey)]
    switch key.scheme {
    case .sr25519, .ed25519:
        out["account_id"] = Hex.encode(key.publicKey)
        out["ss58_address"] = try SS58.encode(key.publicKey, prefix: ss58Prefix)
        out["ss58_prefix"] = Int(ss58Prefix)
    case .secp256k1:
        let address = try EthereumAddress(publicKey: key.publicKey)
        out["address"] = address.checksummed
        out["public_key_compressed"] = Hex.encode(try Secp256k1.compress(publicKey: key.publicKey))
    }
    return out
}

extension Wallet {
    struct New: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a new key: a BIP39 phrase for sr25519/ed25519, a random private key for secp256k1."
        )

        @Option(help: "sr25519, ed25519 or secp256k1.") var scheme: WalletScheme = .sr25519
        @Option(help: "12 or 24 words.") var words: Int = 12
        @Option(help: "SS58 network prefix (42 generic Substrate, 0 Polkadot, 1221 peaq).") var ss58Prefix: UInt16 = 42

        func run() throws {
            guard words == 12 || words == 24 else { throw ValidationError("--words must be 12 or 24") }
            var generator = SystemRandomNumberGenerator()
            if scheme == .secp256k1 {
                var privateKey: [UInt8]
                repeat {
                    privateKey = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
                } while (try? Secp256k1.publicKey(privateKey: privateKey)) == nil
                var out = try describe(WalletKey(scheme: scheme, secret: privateKey), ss58Prefix: ss58Prefix)
                out["secret"] = Hex.encode(privateKey)
                try printJSON(out)
                return
            }
            let entropy = (0..<(words == 12 ? 16 : 32)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let phrase = try BIP39.mnemonic(fromEntropy: entropy)
            var out = try describe(WalletKey(scheme: scheme, uri: SecretURI(phrase)), ss58Prefix: ss58Prefix)
            out["mnemonic"] = phrase
            try printJSON(out)
        }
    }

    struct Inspect: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the public key and address of a phrase, secret URI or secret.")
        @OptionGroup var key: KeyOptions
        @Option(help: "SS58 network prefix.") var ss58Prefix: UInt16 = 42

        func run() throws { try printJSON(describe(key.key(), ss58Prefix: ss58Prefix)) }
    }

    struct Sign: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sign a message (hex). secp256k1 signs as personal_sign (EIP-191), 65 bytes r‖s‖v."
        )
        @OptionGroup var key: KeyOptions
        @Option(help: "The message as hex.") var message: String

        func run() throws {
            let signer = try key.key()
            let signature = try signer.sign(Hex.decode(message))
            try printJSON(["scheme": signer.scheme.rawValue, "public_key": Hex.encode(signer.publicKey), "signature": Hex.encode(signature)])
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Verify a signature; exits 1 when it does not verify.")
        @Option(help: "sr25519, ed25519 or secp256k1.") var scheme: WalletScheme = .sr25519
        @Option(help: "The signer's public key as hex (secp256k1: 64 or 33 bytes).") var publicKey: String
        @Option(help: "The message as hex.") var message: String
        @Option(help: "The signature as hex.") var signature: String

        func run() throws {
            let valid = try WalletKey.verify(
                scheme: scheme,
                publicKey: Hex.decode(publicKey),
                message: Hex.decode(message),
                signature: Hex.decode(signature)
            )
            try printJSON(["valid": valid])
            if !valid { throw ExitCode(1) }
        }
    }

    struct SS58Command: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ss58",
            abstract: "Public key to SS58 address (--public, --prefix) or back (--address)."
        )
        @Option(name: .customLong("public"), help: "A 32-byte public key as hex.") var publicKey: String?
        @Option(help: "SS58 network prefix.") var prefix: UInt16 = 42
        @Option(help: "An SS58 address to decode.") var address: String?

        func run() throws {
            switch (publicKey, address) {
            case (let key?, nil):
                try printJSON(["ss58_address": try SS58.encode(Hex.decode(key), prefix: prefix), "ss58_prefix": Int(prefix)])
            case (nil, let text?):
                let (decodedPrefix, account) = try SS58.decode(text)
                try printJSON(["public_key": Hex.encode(account), "ss58_prefix": Int(decodedPrefix)])
            default: throw ValidationError("give exactly one of --public and --address")
            }
        }
    }

    struct KeystoreCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "keystore",
            abstract: "Web3 Secret Storage (keystore v3) files for secp256k1 keys.",
            subcommands: [Encrypt.self, Decrypt.self]
        )

        struct Encrypt: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Encrypt a secp256k1 private key; the password is read from standard input."
            )
            @Option(help: "The private key as hex, or - to read it from standard input before the password.") var secret: String?
            @Option(help: "Read the private key hex from this file.") var secretFile: String?
            @Option(help: "scrypt (default, n=262144) or pbkdf2 (262144 rounds).") var kdf: String = "scrypt"

            func run() throws {
                let privateKey = try readSecret(secret, file: secretFile)
                _ = try WalletKey(scheme: .secp256k1, secret: privateKey)
                let password = try readIfDash("-", what: "the password")
                let choice: Keystore.KDF
                switch kdf {
                case "scrypt": choice = .standard
                case "pbkdf2": choice = .pbkdf2(iterations: 262_144)
                default: throw ValidationError("--kdf must be scrypt or pbkdf2")
                }
                print(try Keystore.encrypt(privateKey: privateKey, password: password, kdf: choice))
            }
        }

        struct Decrypt: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Decrypt a keystore file; the password is read from standard input. Prints the address and the secret."
            )
            @Option(help: "The keystore file.") var file: String

            func run() throws {
                guard let data = FileManager.default.contents(atPath: file) else { throw WalletError("cannot read \(file)") }
                let password = try readIfDash("-", what: "the password")
                let privateKey = try Keystore.decrypt(String(decoding: data, as: UTF8.self), password: password)
                var out = try describe(WalletKey(scheme: .secp256k1, secret: privateKey), ss58Prefix: 42)
                out["secret"] = Hex.encode(privateKey)
                try printJSON(out)
            }
        }
    }
}
