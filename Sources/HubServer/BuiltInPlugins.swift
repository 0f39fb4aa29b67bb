import HubBLESessions
import HubEVM
public import HubKernel
import HubLocalChain
import HubSubstrate

/// The rails compiled into this hubd (DESIGN §3.5: an immutable list; `plugins.json` picks which
/// run). Rails are added here as their issues land.
public enum BuiltInPlugins {
    public static let all: [any RailPlugin.Type] = [BLESessionsPlugin.self, LocalChainPlugin.self, EVMPlugin.self, SubstratePlugin.self]
}
