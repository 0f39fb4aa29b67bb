/// This build's version: what `hubd --version` prints and `GET /healthz` reports.
public enum HubVersion {
    public static let current = "0.1.0"
}
