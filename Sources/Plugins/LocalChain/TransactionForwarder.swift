import ChainKit
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// On a relay, hands a transaction to the upstream hub (which may itself be a relay) through its
/// REST intake, and returns the upstream's answer: the transaction is durable once the validator's
/// hub has stored it, which is when the hash comes back. Deduplication is the upstream's: a
/// transaction sent through two relays is stored once and answered `known` the second time.
enum TransactionForwarder {
    struct Answer: Decodable {
        var hash: String?
        var status: String?
        var code: String?
        var detail: String?
    }

    static func forward(_ raw: [UInt8], chainID: UInt64, upstream: String) async throws -> TransactionIntake.Outcome {
        guard let url = URL(string: "\(upstream)/v1/rails/localchain/chains/\(chainID)/transactions") else {
            throw LocalChainFailure("the relay's upstream \(upstream) is not a URL")
        }
        var request = URLRequest(url: url, timeoutInterval: 10)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: ["raw": Hex.encode(raw)])
        let (data, response): (Data, URLResponse)
        do {
            (data, response) = try await URLSession.shared.data(for: request)
        } catch {
            throw TransactionRejection(
                "upstream_unavailable",
                "the upstream hub cannot be reached to forward the transaction: \(error.localizedDescription)"
            )
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let answer = try? JSONDecoder().decode(Answer.self, from: data)
        switch status {
        case 202: if let hash = answer?.hash { return .accepted(hash) }
        case 200: if let hash = answer?.hash { return .known(hash) }
        case 422, 404: throw TransactionRejection(answer?.code ?? "rejected_upstream", answer?.detail ?? "the upstream hub refused the transaction")
        default: break
        }
        throw TransactionRejection("upstream_unavailable", "the upstream hub answered HTTP \(status)")
    }
}
