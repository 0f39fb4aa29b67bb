import Foundation
import Testing

@testable import EVMKit

/// Cases kept from the differential test against revm (`scripts/evm-difftest.sh`), each with revm's
/// outcome as made by `tools/evm/make_fixture.py`: EVMKit must still agree with every one.
@Suite struct DifferentialFixtureTests {
    struct Fixture: Decodable {
        let why: String
        let `case`: StandaloneCase
        let expected: StandaloneOutcome
    }

    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/evm-difftest")

    static let names: [String] = {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return files.filter { $0.hasSuffix(".json") }.sorted()
    }()

    @Test("the fixtures are there")
    func present() {
        #expect(Self.names.count >= 3)
    }

    @Test("EVMKit agrees with revm's outcome", arguments: names)
    func agrees(file: String) throws {
        let data = try Data(contentsOf: Self.folder.appendingPathComponent(file))
        let fixture = try JSONDecoder().decode(Fixture.self, from: data)
        let outcome = try fixture.case.run()
        #expect(outcome.results.count == fixture.expected.results.count)
        for (got, want) in zip(outcome.comparable.results, fixture.expected.comparable.results) {
            #expect(got == want, "\(file) (\(fixture.why))")
        }
        let got = outcome.comparable.accounts, want = fixture.expected.comparable.accounts
        for address in Set(got.keys).union(want.keys).sorted() {
            #expect(got[address] == want[address], "\(file): account \(address)")
        }
    }

    @Test("a changed expectation is caught")
    func detectsDisagreement() throws {
        let file = try #require(Self.names.first)
        let data = try Data(contentsOf: Self.folder.appendingPathComponent(file))
        let fixture = try JSONDecoder().decode(Fixture.self, from: data)
        var wrong = fixture.expected
        wrong.results[0].gasUsed += 1
        #expect(!(try fixture.case.run()).agrees(with: wrong))
    }
}
