import Foundation
/// RFC 3339 timestamps in UTC with millisecond precision (`2026-11-21T09:30:00.123Z`), computed
/// from integers (no `DateFormatter`: it is slow and locale-sensitive) straight into 24 bytes.
enum RFC3339 {
    static func format(nanoseconds: UInt64) -> String {
        let totalSeconds = Int64(nanoseconds / 1_000_000_000)
        let millis = Int(nanoseconds / 1_000_000 % 1000)
        var days = totalSeconds / 86_400
        let secondsOfDay = Int(totalSeconds % 86_400)
        // Howard Hinnant's civil_from_days.
        days += 719_468
        let era = days / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        var year = Int(yearOfEra + era * 400)
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * mp + 2) / 5 + 1)
        let month = Int(mp < 10 ? mp + 3 : mp - 9)
        if month <= 2 { year += 1 }

        return String(unsafeUninitializedCapacity: 24) { buffer in
            func put(_ value: Int, digits: Int, at offset: Int) {
                var v = value
                for index in stride(from: offset + digits - 1, through: offset, by: -1) {
                    buffer[index] = UInt8(ascii: "0") + UInt8(v % 10)
                    v /= 10
                }
            }
            put(year, digits: 4, at: 0)
            buffer[4] = UInt8(ascii: "-")
            put(month, digits: 2, at: 5)
            buffer[7] = UInt8(ascii: "-")
            put(day, digits: 2, at: 8)
            buffer[10] = UInt8(ascii: "T")
            put(secondsOfDay / 3600, digits: 2, at: 11)
            buffer[13] = UInt8(ascii: ":")
            put(secondsOfDay / 60 % 60, digits: 2, at: 14)
            buffer[16] = UInt8(ascii: ":")
            put(secondsOfDay % 60, digits: 2, at: 17)
            buffer[19] = UInt8(ascii: ".")
            put(millis, digits: 3, at: 20)
            buffer[23] = UInt8(ascii: "Z")
            return 24
        }
    }

    /// A `Date` in the same form (nanoseconds since the epoch, rounded down to the microsecond
    /// `Date` can hold).
    static func string(_ date: Date) -> String {
        format(nanoseconds: UInt64(max(0, (date.timeIntervalSince1970 * 1_000_000).rounded(.down))) * 1_000)
    }
}
