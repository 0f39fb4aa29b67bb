/// The local chain rail (`localchain`, issue 6): an event currency on a hub-validated chain. Being built.
enum LocalChain {}
