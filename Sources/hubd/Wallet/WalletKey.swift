import ChainKit

/// The signature schemes `hubd wallet` handles.
enum WalletScheme: String, CaseIterable, Sendable {
    case sr25519
    case ed25519
    case secp256k1
}

/// A key the wallet command holds: its scheme, public key and (unless only the public side could
/// be derived) what it signs with.
struct WalletKey {
    enum Secret {
        case sr25519(Sr25519.KeyPair)
        case ed25519(Ed25519.KeyPair)
        case secp256k1([UInt8])
    }

    let scheme: WalletScheme
    let publicKey: [UInt8]
    /// `nil` after a soft sr25519 junction: only the public key follows a soft path reproducibly.
    let secret: Secret?

    /// A key from raw secret bytes: sr25519 a 32-byte mini secret or 64-byte secret key, ed25519 a
    /// 32-byte seed, secp256k1 a 32-byte private key.
    init(scheme: WalletScheme, secret bytes: [UInt8]) throws {
        self.scheme = scheme
        switch scheme {
        case .sr25519:
            let pair: Sr25519.KeyPair
            switch bytes.count {
            case 32: pair = try Sr25519.keyPair(miniSecret: bytes)
            case 64:
                // A stored secret key: the public key is the scalar times the base point.
                throw WalletError("a 64-byte sr25519 secret key needs its public key; pass the 32-byte mini secret instead")
            default: throw WalletError("an sr25519 secret is a 32-byte mini secret, got \(bytes.count) bytes")
            }
            publicKey = pair.publicKey
            secret = .sr25519(pair)
        case .ed25519:
            let pair = try Ed25519.keyPair(seed: bytes)
            publicKey = pair.publicKey
            secret = .ed25519(pair)
        case .secp256k1:
            publicKey = try Secp256k1.publicKey(privateKey: bytes)
            secret = .secp256k1(bytes)
        }
    }

    /// A key from a secret URI: a BIP39 phrase (or `0x` seed) with `//hard` and `/soft` junctions
    /// and an optional `///password`, as Substrate tools read them.
    init(scheme: WalletScheme, uri: SecretURI) throws {
        self.scheme = scheme
        let seed: [UInt8]
        if uri.phrase.hasPrefix("0x") {
            seed = try Hex.decode(uri.phrase, length: 32)
        } else {
            seed = try BIP39.substrateMiniSecret(mnemonic: uri.phrase, password: uri.password ?? "")
        }
        switch scheme {
        case .sr25519:
            var pair = try Sr25519.keyPair(miniSecret: seed)
            var publicKey = pair.publicKey
            var chainCodeOnlyPublic = false
            for junction in uri.junctions {
                if junction.isHard {
                    guard !chainCodeOnlyPublic else {
                        throw WalletError("a hard junction after a soft one cannot be derived without the soft secret key")
                    }
                    pair = try Sr25519.deriveHard(pair, chainCode: junction.chainCode).keyPair
                    publicKey = pair.publicKey
                } else {
                    publicKey = try Sr25519.deriveSoftPublic(publicKey, chainCode: junction.chainCode).publicKey
                    chainCodeOnlyPublic = true
                }
            }
            self.publicKey = publicKey
            secret = chainCodeOnlyPublic ? nil : .sr25519(pair)
        case .ed25519:
            let pair = try Ed25519.derive(Ed25519.keyPair(seed: seed), path: uri.junctions)
            publicKey = pair.publicKey
            secret = .ed25519(pair)
        case .secp256k1:
            guard uri.junctions.isEmpty else {
                throw WalletError("secp256k1 keys from a phrase take no derivation path here (BIP32 paths are not supported)")
            }
            // Substrate's ecdsa scheme: the mini secret is the private key.
            publicKey = try Secp256k1.publicKey(privateKey: seed)
            secret = .secp256k1(seed)
        }
    }

    func sign(_ message: [UInt8]) throws -> [UInt8] {
        switch secret {
        case .sr25519(let pair): return try Sr25519.sign(message, keyPair: pair)
        case .ed25519(let pair): return Ed25519.sign(message, keyPair: pair)
        case .secp256k1(let key): return try PersonalSign.sign(message, privateKey: key)
        case nil: throw WalletError("this key was derived along a soft path: only its public key is known")
        }
    }

    /// Verifies a signature by `publicKey` (for secp256k1: a 65-byte personal_sign signature
    /// whose recovered address must match the public key's).
    static func verify(scheme: WalletScheme, publicKey: [UInt8], message: [UInt8], signature: [UInt8]) throws -> Bool {
        switch scheme {
        case .sr25519: return Sr25519.verify(signature, message: message, publicKey: publicKey)
        case .ed25519: return Ed25519.verify(signature, message: message, publicKey: publicKey)
        case .secp256k1:
            let expected = try EthereumAddress(publicKey: publicKey.count == 64 ? publicKey : try Secp256k1.decompress(publicKey))
            guard let signer = try? PersonalSign.recover(message, signature: signature) else { return false }
            return signer == expected
        }
    }
}

/// A mistake in what was passed to `hubd wallet`.
struct WalletError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
