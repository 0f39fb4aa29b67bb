/// Minor units shown as a person reads them: 4500 of a scale-2 asset is `45.00`. Exact decimal
/// text from the integer, never through floating point.
public enum AssetUnits {
    /// `amount` with `scale` decimal places (`format(5, scale: 3)` is `0.005`).
    public static func format(_ amount: UInt128, scale: UInt8) -> String {
        let digits = String(amount)
        guard scale > 0 else { return digits }
        let width = Int(scale)
        let padded = digits.count <= width ? String(repeating: "0", count: width - digits.count + 1) + digits : digits
        return "\(padded.dropLast(width)).\(padded.suffix(width))"
    }

    /// `45.00 EUR available, 1000.00 EUR requested (4500 and 100000 minor units)`.
    public static func describe(_ shortfall: TransferError.Shortfall, scale: UInt8) -> String {
        let asset = shortfall.asset.rawValue
        return "insufficient funds: \(format(shortfall.available, scale: scale)) \(asset) available, "
            + "\(format(shortfall.requested, scale: scale)) \(asset) requested "
            + "(\(shortfall.available) and \(shortfall.requested) minor units)"
    }
}
