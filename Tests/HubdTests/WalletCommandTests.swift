import Foundation
import HubTestSupport
import Testing

/// `hubd wallet` run as a user would, against known Substrate and Ethereum values.
@Suite("hubd wallet", .timeLimit(.minutes(4)))
struct WalletCommandTests {
    struct Run {
        var status: Int32
        var output: String
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(output.utf8))) as? [String: Any] ?? [:] }
    }

    func wallet(_ arguments: [String], stdin: String? = nil) throws -> Run {
        let run = try SpawnedChild.run(CommandLineTests.hubdPath, ["wallet"] + arguments, input: stdin)
        guard case .exited(let status) = run.termination else { return Run(status: -1, output: run.output) }
        return Run(status: status, output: run.output)
    }

    @Test("inspect: //Alice in sr25519 and ed25519, a soft path, a secp256k1 key, another SS58 prefix")
    func inspect() throws {
        let alice = try wallet(["inspect", "--mnemonic", "//Alice"]).json
        #expect(alice["ss58_address"] as? String == "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY")
        #expect(
            try wallet(["inspect", "--scheme", "ed25519", "--mnemonic", "//Alice"]).json["ss58_address"] as? String
                == "5FA9nQDVg267DEd8m1ZypXLBnvN7SFxYwV7ndqSYGiN9TTpu"
        )
        #expect(
            try wallet(["inspect", "--mnemonic", "bottom drive obey lake curtain smoke basket hold race lonely fit walk", "--path", "//Alice/0"])
                .json["ss58_address"] as? String
                == "5FKxrLQM24ZhLxcaQfJR3uMxMZh5gU6E4CP3yghPJLzCDnHN"
        )
        let ethereum = try wallet([
            "inspect", "--scheme", "secp256k1", "--secret", "0x4646464646464646464646464646464646464646464646464646464646464646",
        ]).json
        #expect(ethereum["address"] as? String == "0x9d8A62f656a8d1615C1294fd71e9CFb3E4855A4F")
        let peaq = try wallet(["inspect", "--mnemonic", "//Alice", "--ss58-prefix", "1221"]).json
        #expect((peaq["ss58_address"] as? String)?.hasPrefix("5") == false)
        #expect(peaq["public_key"] as? String == alice["public_key"] as? String)
    }

    @Test("sign then verify for every scheme; a changed message fails with exit 1", arguments: ["sr25519", "ed25519", "secp256k1"])
    func signVerify(scheme: String) throws {
        let secret = "0x" + String(repeating: "17", count: 32)
        let signed = try wallet(["sign", "--scheme", scheme, "--secret", secret, "--message", "0x68656c6c6f"])
        #expect(signed.status == 0, "\(signed.output)")
        let publicKey = try #require(signed.json["public_key"] as? String)
        let signature = try #require(signed.json["signature"] as? String)
        let good = try wallet(["verify", "--scheme", scheme, "--public-key", publicKey, "--message", "0x68656c6c6f", "--signature", signature])
        #expect(good.status == 0 && good.json["valid"] as? Bool == true)
        let bad = try wallet(["verify", "--scheme", scheme, "--public-key", publicKey, "--message", "0x68656c6c6e", "--signature", signature])
        #expect(bad.status == 1 && bad.json["valid"] as? Bool == false)
    }

    @Test("a secret can come from standard input and never appears in errors")
    func secretFromStdin() throws {
        let run = try wallet(["inspect", "--scheme", "ed25519", "--secret", "-"], stdin: String(repeating: "00", count: 32) + "\n")
        #expect(run.json["public_key"] as? String == "0x3b6a27bcceb6a42d62a3a8d02a6f0d73653215771de243a63ac048a18b59da29")
        let secret = "0x" + String(repeating: "ab", count: 31) + "zz"
        let bad = try wallet(["inspect", "--scheme", "ed25519", "--secret", secret])
        #expect(bad.status != 0)
        #expect(!bad.output.contains(String(repeating: "ab", count: 31)))
    }

    @Test("keystore encrypt then decrypt through the command line; a wrong password fails")
    func keystore() throws {
        let secret = "0x" + String(repeating: "42", count: 32)
        let written = try wallet(["keystore", "encrypt", "--secret", secret, "--kdf", "pbkdf2"], stdin: "correct horse\n")
        #expect(written.status == 0, "\(written.output)")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("keystore-\(UUID().uuidString).json")
        try Data(written.output.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let opened = try wallet(["keystore", "decrypt", "--file", file.path], stdin: "correct horse\n")
        #expect(opened.json["secret"] as? String == secret)
        let refused = try wallet(["keystore", "decrypt", "--file", file.path], stdin: "battery staple\n")
        #expect(refused.status != 0)
        #expect(refused.output.contains("MAC"))
    }

    @Test(
        "ss58 both ways, and bad input named",
        arguments: [
            (["ss58", "--address", "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQX"], "checksum"),
            (["inspect", "--mnemonic", "not a real phrase"], "words"),
            (["inspect", "--scheme", "ed25519", "--mnemonic", "//Alice/0"], "soft"),
            (["new", "--words", "13"], "--words"),
            (["inspect"], "--mnemonic"),
        ]
    )
    func badInput(arguments: [String], expected: String) throws {
        let run = try wallet(arguments)
        #expect(run.status != 0)
        #expect(run.output.contains(expected), "\(run.output)")
    }

    @Test("ss58 round trip and a new phrase that inspects to the same key")
    func ss58AndNew() throws {
        let encoded = try wallet(["ss58", "--public", "0xd43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d", "--prefix", "42"]).json
        #expect(encoded["ss58_address"] as? String == "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY")
        let created = try wallet(["new", "--scheme", "sr25519"]).json
        let phrase = try #require(created["mnemonic"] as? String)
        #expect(phrase.split(separator: " ").count == 12)
        #expect(try wallet(["inspect", "--mnemonic", phrase]).json["public_key"] as? String == created["public_key"] as? String)
    }
}
