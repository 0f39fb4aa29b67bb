/// RFC 3339 timestamps in UTC with millisecond precision (`2026-11-21T09:30:00.123Z`), computed
/// from integers (no `DateFormatter`: it is slow and locale-sensitive).
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
        var year = yearOfEra + era * 400
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * mp + 2) / 5 + 1)
        let month = Int(mp < 10 ? mp + 3 : mp - 9)
        if month <= 2 { year += 1 }

        func pad(_ v: Int, _ width: Int) -> String {
            let s = String(v)
            return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
        }
        return "\(pad(Int(year), 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondsOfDay / 3600, 2)):"
            + "\(pad(secondsOfDay / 60 % 60, 2)):\(pad(secondsOfDay % 60, 2)).\(pad(millis, 3))Z"
    }
}
