import HubKernel

/// The rail's tables (migration group `substrate`). Final once released: a change is a new
/// migration appended to the list.
enum SubstrateMigrations {
    static let all: [Migration] = [wallets, didAttributes, sensors, didAnchors]

    /// Wallets: one row per address (its 32-byte public key), one user each. `sealed_secret` is
    /// the mnemonic's entropy of a custodial wallet sealed under the rail's data key
    /// (``WalletSecrets``), NULL for an external one: the hub keeps no secret it did not make.
    static let wallets = Migration(
        "001_wallets",
        portable: """
            CREATE TABLE substrate_wallets (
                public_key {bytes} PRIMARY KEY,
                user_id TEXT NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN ('custodial', 'external')),
                scheme TEXT NOT NULL CHECK (scheme IN ('sr25519', 'ed25519')),
                sealed_secret {bytes},
                created_at {bigint} NOT NULL
            );
            CREATE INDEX substrate_wallets_user ON substrate_wallets (user_id, created_at);
            """
    )

    /// The offline DID registry (``DIDRegistry``): attributes as the PeaqDid pallet keeps them
    /// (`validity` a block number, `created` in milliseconds) with their owner's key, and every
    /// change's signed extrinsic with its blake2-256 hash, kept after the attribute is removed.
    /// `(signer, nonce)` is unique: a signer's nonces count its proofs.
    static let didAttributes = Migration(
        "002_did_attributes",
        portable: """
            CREATE TABLE substrate_did_attributes (
                did_account {bytes} NOT NULL,
                name {bytes} NOT NULL,
                value {bytes} NOT NULL,
                validity {bigint} NOT NULL,
                created {bigint} NOT NULL,
                owner {bytes} NOT NULL,
                updated_at {bigint} NOT NULL,
                proof_hash {bytes} NOT NULL,
                PRIMARY KEY (did_account, name)
            );
            CREATE TABLE substrate_did_proofs (
                hash {bytes} PRIMARY KEY,
                did_account {bytes} NOT NULL,
                name {bytes} NOT NULL,
                call TEXT NOT NULL,
                signer {bytes} NOT NULL,
                nonce {bigint} NOT NULL,
                extrinsic {bytes} NOT NULL,
                created_at {bigint} NOT NULL
            );
            CREATE UNIQUE INDEX substrate_did_proofs_nonce ON substrate_did_proofs (signer, nonce);
            CREATE INDEX substrate_did_proofs_did ON substrate_did_proofs (did_account, created_at);
            """
    )

    /// Sensors (``SensorRegistry``): one row per key, one owner each; `sealed_secret` is the
    /// entropy of a key the hub made, sealed like a custodial wallet's, NULL for a key the
    /// sensor brought. `counter` is the last accepted upload's. Uploads are kept zstd-compressed
    /// (`content`) under the sensor and their counter, with the blake2b-256 of the content and
    /// the sensor's signature; revoking a sensor keeps them.
    static let sensors = Migration(
        "003_sensors",
        portable: """
            CREATE TABLE substrate_sensors (
                public_key {bytes} PRIMARY KEY,
                user_id TEXT NOT NULL,
                name TEXT NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN ('custodial', 'external')),
                sealed_secret {bytes},
                counter {bigint} NOT NULL,
                uploads {bigint} NOT NULL,
                last_upload_at {bigint},
                revoked_at {bigint},
                created_at {bigint} NOT NULL
            );
            CREATE INDEX substrate_sensors_user ON substrate_sensors (user_id, created_at);
            CREATE TABLE substrate_sensor_uploads (
                sensor {bytes} NOT NULL,
                counter {bigint} NOT NULL,
                hash {bytes} NOT NULL,
                content_type TEXT NOT NULL,
                file_name TEXT,
                size {bigint} NOT NULL,
                stored_size {bigint} NOT NULL,
                content {bytes} NOT NULL,
                signature {bytes} NOT NULL,
                created_at {bigint} NOT NULL,
                PRIMARY KEY (sensor, counter)
            );
            CREATE INDEX substrate_sensor_uploads_hash ON substrate_sensor_uploads (sensor, hash);
            CREATE INDEX substrate_sensor_uploads_time ON substrate_sensor_uploads (created_at);
            """
    )

    /// Anchoring on a node (``DIDAnchors``, ``DIDAnchorer``): a row per proof, queued in the
    /// change's unit when a node is configured. `extrinsic` is the change signed for the node,
    /// stored before it is sent so a retry sends the same bytes; `nonce`, `era_birth` and
    /// `era_period` say when it can be included; `block_hash`/`block_number` where it was.
    static let didAnchors = Migration(
        "004_did_anchors",
        portable: """
            CREATE TABLE substrate_did_anchors (
                proof_hash {bytes} PRIMARY KEY,
                did_account {bytes} NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('pending', 'submitted', 'in_block', 'finalized', 'failed', 'holder_signature_required')),
                extrinsic {bytes},
                extrinsic_hash {bytes},
                nonce {bigint},
                era_birth {bigint},
                era_period {bigint},
                block_hash {bytes},
                block_number {bigint},
                error TEXT,
                signings {bigint} NOT NULL,
                created_at {bigint} NOT NULL,
                updated_at {bigint} NOT NULL
            );
            CREATE INDEX substrate_did_anchors_status ON substrate_did_anchors (status, created_at);
            CREATE INDEX substrate_did_anchors_did ON substrate_did_anchors (did_account, created_at);
            """
    )
}
