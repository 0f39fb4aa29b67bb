import HubKernel

/// The sensors' refusals (``SensorRegistry``, ``SensorsController``).
extension SubstrateError {
    static func sensorNotFound(_ address: String) -> SubstrateError {
        SubstrateError(kind: .notFound, errorCode: "sensor_not_found", message: "You have no sensor \(address.prefix(64)).")
    }

    /// The key is another user's sensor already.
    static func sensorTaken(_ address: String) -> SubstrateError {
        SubstrateError(kind: .conflict, errorCode: "sensor_taken", message: "\(address) is already another account's sensor.", field: "public_key")
    }

    static func sensorRevoked(_ address: String) -> SubstrateError {
        SubstrateError(
            kind: .gone,
            errorCode: "sensor_revoked",
            message: "The sensor \(address) was revoked: it uploads nothing more; its uploads are kept and readable."
        )
    }

    static func uploadNotFound() -> SubstrateError {
        SubstrateError(kind: .notFound, errorCode: "upload_not_found", message: "The sensor has no upload with this content hash.")
    }

    static func invalidSignature() -> SubstrateError {
        SubstrateError(
            kind: .unauthenticated,
            errorCode: "invalid_signature",
            message:
                "The signature is not the sensor's sr25519 signature (context \"substrate\") of the upload message (docs/substrate-sensors.md); nothing was stored.",
            field: "signature"
        )
    }

    static func counterReplayed(_ last: Int64) -> SubstrateError {
        SubstrateError(
            kind: .conflict,
            errorCode: "counter_replayed",
            message: "The counter must be above the sensor's last accepted one (\(last)); nothing was stored.",
            field: "counter"
        )
    }

    static func uploadTooLarge(_ limit: Int) -> SubstrateError {
        SubstrateError(
            kind: .tooLarge,
            errorCode: "upload_too_large",
            message: "A sensor's file is at most \(limit) bytes (sensor_max_upload_bytes); nothing was stored.",
            field: "file"
        )
    }

    static func unsupportedUploadType(_ type: String, allowed: [String]) -> SubstrateError {
        SubstrateError(
            kind: .unsupportedType,
            errorCode: "unsupported_upload_type",
            message: "Sensors upload \(allowed.joined(separator: ", ")) (sensor_upload_types), not '\(type.prefix(80))'; nothing was stored.",
            field: "file-type"
        )
    }

    static func multipartRequired() -> SubstrateError {
        SubstrateError(
            kind: .unsupportedType,
            errorCode: "multipart_required",
            message: "An upload is a multipart/form-data body (with a boundary) of the parts file, file-type, counter and signature."
        )
    }

    static func invalidMultipart(_ detail: String) -> SubstrateError {
        SubstrateError(kind: .invalidField, errorCode: "invalid_multipart", message: "The multipart body is malformed: \(detail).", field: "body")
    }

    /// Nothing the hub holds can sign the sensor's DID changes.
    static func sensorSignerRequired() -> SubstrateError {
        SubstrateError(
            kind: .refused,
            errorCode: "custodial_key_required",
            message:
                "The sensor brought its own key, so its DID's attributes are signed by your custodial wallet, and you have none: make one with POST /v1/rails/substrate/wallets {\"kind\": \"custodial\"}. Nothing was changed."
        )
    }
}
