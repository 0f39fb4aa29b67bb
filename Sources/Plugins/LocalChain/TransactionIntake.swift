import ChainKit
import Foundation
import HubKernel

/// Takes signed transactions into a chain's pool. A transaction is stored (and its
/// `localchain.transaction.accepted` event appended) in one committed write before its hash is
/// returned, so an acknowledged transaction survives a restart and is sealed afterwards.
///
/// The work is split where it costs least: everything that needs no state (decoding, the
/// signature's recovery, the hash, the event's JSON) runs on the callers' tasks, in parallel, and
/// the kernel's one writer only checks nonces and funds against the chain and inserts. It does so
/// for every caller waiting for the same group commit at once (a ``BatchedStep``): a wallet's
/// single `eth_sendRawTransaction` shares its queries and its insert with the others, as the
/// calls of one JSON-RPC batch do.
struct TransactionIntake: Sendable {
    let context: PluginContext
    let configuration: LocalChainConfiguration
    /// The intake's batched step: one instance per intake, since it is the batch's identity.
    let step: Step

    init(context: PluginContext, configuration: LocalChainConfiguration) {
        self.context = context
        self.configuration = configuration
        step = Self.step(configuration: configuration, source: context.eventSource)
    }

    enum Outcome: Sendable, Equatable {
        /// Newly in the pool.
        case accepted(String)
        /// Already pending or sealed (a retry): nothing changed.
        case known(String)

        var hash: String {
            switch self {
            case .accepted(let hash), .known(let hash): hash
            }
        }
    }

    /// Validates `raw` for chain `chainID` and stores it.
    /// - Throws: ``TransactionRejection`` (nothing stored), `chain_not_found` for an unknown chain.
    func submit(_ raw: [UInt8], chainID: UInt64) async throws -> Outcome {
        try await submit([raw], chainID: chainID)[0].get()
    }

    /// Validates and stores many transactions (a JSON-RPC batch), one result each, in order: they
    /// are checked against the chain in that order, so a sender's transactions may follow one
    /// another in one batch. A refused transaction changes nothing for the others.
    /// - Throws: only what is nobody's transaction's fault (the database failed).
    func submit(_ raws: [[UInt8]], chainID: UInt64) async throws -> [Result<Outcome, TransactionRejection>] {
        let prepared = try await Self.prepare(raws, chainID: chainID)
        var results = prepared.map { $0.map { Outcome.accepted($0.transaction.hashHex) } }
        let valid = prepared.indices.compactMap { index in (try? prepared[index].get()).map { (index, $0) } }
        guard !valid.isEmpty else { return results }
        let stored = try await context.write(Request(chainID: chainID, candidates: valid.map(\.1)), batchedIn: step)
        switch stored {
        case .decided(let decisions):
            for ((index, _), decision) in zip(valid, decisions) { results[index] = decision }
        case .relayed(let upstream):
            for (index, candidate) in valid {
                do {
                    results[index] = .success(try await TransactionForwarder.forward(candidate.transaction.raw, chainID: chainID, upstream: upstream))
                } catch let rejection as TransactionRejection {
                    results[index] = .failure(rejection)
                }
            }
        }
        return results
    }

    /// One caller's transactions for one chain, validated.
    struct Request: Sendable {
        let chainID: UInt64
        let candidates: [Candidate]
    }

    /// What the writer made of a caller's transactions.
    enum Stored: Sendable {
        /// One result per transaction, in order.
        case decided([Result<Outcome, TransactionRejection>])
        /// The chain is relayed from `upstream`: nothing was stored here.
        case relayed(upstream: String)
    }

    typealias Step = BatchedStep<Request, Stored>

    /// The writer's side of the intake, for all the callers one group commit gathered: each chain
    /// they name is read and locked once (in id order, so that two writers lock chains in the same
    /// order), and its callers' transactions are checked and stored as one batch, in the order the
    /// callers arrived.
    static func step(configuration: LocalChainConfiguration, source: String) -> Step {
        Step { members in
            var stored = [Stored?](repeating: nil, count: members.count)
            for (chainID, indices) in Dictionary(grouping: members.indices, by: { members[$0].request.chainID }).sorted(by: { $0.key < $1.key }) {
                let connection = members[indices[0]].unit.connection
                // Locked on PostgreSQL: intake and sealing of one chain serialise on the chain's row.
                guard let chain = try LocalChainStore.chain(chainID, forUpdate: true, on: connection) else {
                    for index in indices {
                        stored[index] = .decided(Array(repeating: .failure(.chainNotFound(chainID)), count: members[index].request.candidates.count))
                    }
                    continue
                }
                // A relayed chain is validated elsewhere: the transactions go upstream.
                if let upstream = chain.upstream {
                    for index in indices { stored[index] = .relayed(upstream: upstream) }
                    continue
                }
                let batch = indices.flatMap { index in members[index].request.candidates.map { (candidate: $0, unit: members[index].unit) } }
                var decisions = try store(batch, on: chain, configuration: configuration, source: source)[...]
                for index in indices {
                    let count = members[index].request.candidates.count
                    stored[index] = .decided(Array(decisions.prefix(count)))
                    decisions = decisions.dropFirst(count)
                }
            }
            return stored.map { $0! }
        }
    }

    // MARK: Off the writer

    /// A transaction that passed the stateless checks, with its event's payload: prepared before
    /// the writer sees it, so the writer's thread (which every unit of the hub shares) spends no
    /// time on JSON.
    struct Candidate: Sendable {
        var transaction: ValidatedTransaction
        /// The `localchain.transaction.accepted` event's `data`.
        var acceptedEvent: String

        init(_ transaction: ValidatedTransaction, chainID: UInt64) throws {
            self.transaction = transaction
            acceptedEvent = try LocalChainEvents.acceptedData(Self.entry(transaction), chainID: chainID)
        }

        static func entry(_ tx: ValidatedTransaction) -> PoolEntry {
            PoolEntry(seq: 0, hash: tx.hashHex, sender: tx.sender, recipient: tx.recipient, nonce: tx.nonce, value: tx.value, raw: tx.raw)
        }
    }

    /// Below this many transactions per task, another task costs more than it saves.
    static let minimumPerTask = 8
    /// Read once: Foundation reads the cgroup's CPU quota from files on every call, which cost
    /// every single call an open and a read.
    static let cores = ProcessInfo.processInfo.activeProcessorCount

    /// Validates `raws` (signature recovery is the costly part), spread over the cores in
    /// consecutive slices, results in order. Recovery is CPU work that never blocks, so it runs on
    /// the cooperative pool; the writer is not involved.
    static func prepare(_ raws: [[UInt8]], chainID: UInt64) async throws -> [Result<Candidate, TransactionRejection>] {
        let tasks = min(raws.count / minimumPerTask, cores)
        guard tasks > 1 else { return try raws.map { try prepare($0, chainID: chainID) } }
        let sliceSize = (raws.count + tasks - 1) / tasks
        return try await withThrowingTaskGroup(of: (Int, [Result<Candidate, TransactionRejection>]).self) { group in
            for (slice, start) in stride(from: 0, to: raws.count, by: sliceSize).enumerated() {
                let raws = raws[start..<min(start + sliceSize, raws.count)]
                group.addTask { (slice, try raws.map { try prepare($0, chainID: chainID) }) }
            }
            var slices = [[Result<Candidate, TransactionRejection>]](repeating: [], count: tasks)
            for try await (slice, results) in group { slices[slice] = results }
            return slices.flatMap { $0 }
        }
    }

    static func prepare(_ raw: [UInt8], chainID: UInt64) throws -> Result<Candidate, TransactionRejection> {
        let validated: ValidatedTransaction
        do {
            validated = try ValidatedTransaction.validate(raw, chainID: chainID)
        } catch let rejection as TransactionRejection {
            return .failure(rejection)
        }
        return .success(try Candidate(validated, chainID: chainID))
    }

    // MARK: On the writer

    /// The stateful checks and the inserts of a batch on `chain` (read and locked by the batch's
    /// unit of work): one query per kind of state for the whole batch, then ``PoolAdmission`` in
    /// order, then one insert of the accepted rows. Each accepted transaction's event goes to the
    /// unit of work of the caller that sent it.
    static func store(
        _ batch: [(candidate: Candidate, unit: UnitOfWork)],
        on chain: LocalChain,
        configuration: LocalChainConfiguration,
        source: String,
        allowValidator: Bool = false
    ) throws -> [Result<Outcome, TransactionRejection>] {
        guard let first = batch.first?.unit else { return [] }
        let connection = first.connection
        let chainID = chain.chainID
        var senders: [EthereumAddress] = []
        var seen = Set<EthereumAddress>()
        for (candidate, _) in batch where seen.insert(candidate.transaction.sender).inserted { senders.append(candidate.transaction.sender) }
        let state = try LocalChainStore.admissionState(chainID: chainID, senders: senders, on: connection)
        var admission = PoolAdmission(
            chain: chain,
            configuration: configuration,
            known: try LocalChainStore.sealedHashes(chainID: chainID, among: batch.map(\.candidate.transaction.hashHex), on: connection)
                .union(state.pendingHashes),
            senders: state.senders,
            // A bound is enough while every candidate fits below the limit.
            poolCount: try LocalChainStore.poolSize(chainID: chainID, exactFrom: configuration.maxPoolPerChain - batch.count, on: connection)
        )
        var results: [Result<Outcome, TransactionRejection>] = []
        results.reserveCapacity(batch.count)
        var entries: [PoolEntry] = []
        // Each caller's events, appended to its own unit: consecutive candidates of one caller in one call.
        var events: [NewEvent] = []
        var eventsUnit = first
        for (candidate, unit) in batch {
            let tx = candidate.transaction
            let decision: PoolAdmission.Decision
            do {
                decision = try admission.admit(tx, allowValidator: allowValidator)
            } catch {
                results.append(.failure(error))
                continue
            }
            switch decision {
            case .known:
                results.append(.success(.known(tx.hashHex)))
            case .accept:
                entries.append(Candidate.entry(tx))
                if unit !== eventsUnit {
                    try eventsUnit.append(events)
                    events.removeAll(keepingCapacity: true)
                    eventsUnit = unit
                }
                events.append(LocalChainEvents.accepted(data: candidate.acceptedEvent, chainID: chainID, source: source, time: unit.now))
                results.append(.success(.accepted(tx.hashHex)))
            }
        }
        try LocalChainStore.insert(entries, chainID: chainID, receivedAt: Int64(bitPattern: first.now.nanoseconds), on: connection)
        try eventsUnit.append(events)
        return results
    }

    /// One of the hub's own transactions (a grant, a top-up, a cash-out's burn), inside the
    /// caller's unit of work.
    /// - Throws: ``TransactionRejection``, `chain_not_found` for an unknown chain.
    static func store(
        _ tx: ValidatedTransaction,
        chainID: UInt64,
        configuration: LocalChainConfiguration,
        source: String,
        allowValidator: Bool = false,
        in unit: UnitOfWork
    ) throws -> Outcome {
        guard let chain = try LocalChainStore.chain(chainID, forUpdate: true, on: unit.connection) else {
            throw TransactionRejection.chainNotFound(chainID)
        }
        let candidate = try Candidate(tx, chainID: chainID)
        return try store([(candidate, unit)], on: chain, configuration: configuration, source: source, allowValidator: allowValidator)[0].get()
    }

    /// The validator's next nonce: after its sealed transactions and those waiting in the pool.
    static func nextValidatorNonce(_ chain: LocalChain, on connection: any SQLConnection) throws -> UInt64 {
        let sealed = try LocalChainStore.account(chainID: chain.chainID, address: chain.validator, on: connection)?.nonce ?? 0
        let pending = try LocalChainStore.pool(chainID: chain.chainID, sender: chain.validator, on: connection)
        return max(sealed, (pending.last?.nonce).map { $0 + 1 } ?? 0)
    }
}
