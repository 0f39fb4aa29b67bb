import ArgumentParser
import HubKernel
import HubServer

struct Version: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the version and the schema this build knows: the kernel's and each built-in rail's."
    )

    func run() {
        print("hubd \(HubVersion.current)")
        for (group, migrations) in Bootstrap.migrator.groups {
            print("schema \(group): \(migrations.count) migrations, latest \(migrations.last?.name ?? "none")")
        }
        for rail in BuiltInPlugins.all {
            print("schema \(rail.id): \(rail.schema.count) migrations, latest \(rail.schema.last?.name ?? "none")")
        }
    }
}
