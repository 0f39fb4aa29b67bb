import HubKernel

/// The rail's events (`substrate.*`), appended in the unit of work that makes the change.
/// `subject` is the wallet's address (SS58 with the configured prefix).
enum SubstrateEvents {
    /// The hub made a custodial wallet: data is the wallet without its secret.
    static let walletCreated = "substrate.wallet.created"
    /// A user registered an address they proved they hold.
    static let walletRegistered = "substrate.wallet.registered"

    /// A DID attribute was added, updated or removed: `subject` is the DID, data the attribute
    /// (or its name, when removed) with the proof's hash.
    static let didAttributeAdded = "substrate.did.attribute_added"
    static let didAttributeUpdated = "substrate.did.attribute_updated"
    static let didAttributeRemoved = "substrate.did.attribute_removed"

    /// Sensors: `subject` is the sensor's DID. Registered and revoked carry the sensor, uploaded
    /// the upload (without its content), anchored the upload and the DID attribute holding its hash.
    /// A DID change was anchored on the configured node (its block finalized and the attribute
    /// there as the change made it), or given up: `subject` is the DID, data the anchor.
    static let didAnchored = "substrate.did.anchored"
    static let didAnchorFailed = "substrate.did.anchor_failed"

    static let sensorRegistered = "substrate.sensor.registered"
    static let sensorUploaded = "substrate.sensor.uploaded"
    static let sensorRevoked = "substrate.sensor.revoked"
    static let sensorAnchored = "substrate.sensor.anchored"

    static let all = [
        walletCreated, walletRegistered, didAttributeAdded, didAttributeUpdated, didAttributeRemoved, didAnchored, didAnchorFailed,
        sensorRegistered, sensorUploaded, sensorRevoked, sensorAnchored,
    ]
}
