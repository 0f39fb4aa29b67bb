import ArgumentParser
import HubKernel

struct Version: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the version and the schema this build knows.")

    func run() {
        print("hubd \(HubVersion.current)")
        for (group, migrations) in Bootstrap.migrator.groups {
            print("schema \(group): \(migrations.count) migrations, latest \(migrations.last?.name ?? "none")")
        }
    }
}
