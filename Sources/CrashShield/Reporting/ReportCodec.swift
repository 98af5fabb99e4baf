import Foundation

/// The one JSON form of a `CrashReport`, used by everything that writes or reads one: the JSON Lines store's lines,
/// `HTTPUploadSink`'s body (Docs/Reports.md "The HTTP body", schema version 1), the C API's report handler, the
/// Objective-C API's `CSReport` (`dictionary`, `reportWithJSONData:`), the Sentry event's timestamps and the report
/// tool.
///
/// Keys sorted, slashes not escaped, dates ISO-8601 UTC with milliseconds (`2026-11-25T10:00:00.123Z`; read with or
/// without milliseconds), `category` the guard's name (`"container"`), optional fields left out when empty. Files and
/// bodies written by earlier releases read back unchanged (ReportCodecTests holds one of each).
package enum ReportCodec {
    /// A new encoder (an encoder is not shared between threads).
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let formatter = dateFormatter(fractionalSeconds: true)
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(formatter.string(from: date))
        }
        return encoder
    }

    /// A new decoder that reads what `encoder()` writes (dates with or without milliseconds).
    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        let withFraction = dateFormatter(fractionalSeconds: true), plain = dateFormatter(fractionalSeconds: false)
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            if let date = withFraction.date(from: text) ?? plain.date(from: text) { return date }
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not an ISO-8601 date")
        }
        return decoder
    }

    /// A date as the codec writes it: `2026-11-25T10:00:00.123Z`.
    package static func timestamp(_ date: Date) -> String { dateFormatter(fractionalSeconds: true).string(from: date) }

    /// `ISO8601DateFormatter` rather than `Date.ISO8601FormatStyle`, which needs iOS 15 / macOS 12; a formatter is
    /// made per coder, never shared between threads.
    private static func dateFormatter(fractionalSeconds: Bool) -> ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions =
            fractionalSeconds ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
        return formatter
    }
}

extension CrashReport {
    /// The JSON every CrashShield file and upload holds (`ReportCodec`): sorted keys, ISO-8601 dates with
    /// milliseconds.
    public static func makeJSONEncoder() -> JSONEncoder { ReportCodec.encoder() }

    /// Reads what `makeJSONEncoder()` writes (dates with or without milliseconds).
    public static func makeJSONDecoder() -> JSONDecoder { ReportCodec.decoder() }
}

/// A category is written as its name (`"container"`; a set as its members' names joined by commas, `"kvc,kvo"`), the
/// text reports have always carried.
extension GuardCategory: Codable {
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard !text.isEmpty else { self = []; return }
        var category: GuardCategory = []
        for name in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let member = GuardCategory(name: String(name)) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(name)' names no guard")
            }
            category.insert(member)
        }
        self = category
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}
