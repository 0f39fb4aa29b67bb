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

    /// Nanoseconds since the epoch of a UTC time in the form ``format(nanoseconds:)`` writes, with
    /// any number (up to 9) of fractional digits or none (`2026-11-21T09:30:00Z`); `nil` for
    /// anything else, including other offsets and years outside 1970–2500 (whose nanoseconds would
    /// not fit the ledger's `UInt64`).
    static func parse(_ text: String) -> LedgerTimestamp? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        let separators: [(Int, Character)] = [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":")]
        for (index, character) in separators where bytes[index] != character.asciiValue! { return nil }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60, (1970...2500).contains(year)
        else { return nil }
        var nanos = 0
        let fractionEnd = bytes.count - 1
        if fractionEnd > 19 {
            guard bytes[19] == UInt8(ascii: "."), fractionEnd - 20 >= 1, fractionEnd - 20 <= 9, let fraction = number(20..<fractionEnd) else {
                return nil
            }
            nanos = fraction
            for _ in 0..<(9 - (fractionEnd - 20)) { nanos *= 10 }
        }
        // Howard Hinnant's days_from_civil.
        let y = month <= 2 ? year - 1 : year
        let era = y / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second
        return LedgerTimestamp(nanoseconds: UInt64(seconds) * 1_000_000_000 + UInt64(nanos))
    }
}
