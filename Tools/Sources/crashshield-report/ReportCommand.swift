import ArgumentParser
import CrashShield
import CrashShieldReportTool
import Foundation

@main
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crashshield-report",
        abstract: "Reads CrashShield report files: JSON Lines (as JSONLinesReportStore writes them) or HTTP upload "
            + "bodies ({\"reports\": [...]}, gzip-compressed or not).",
        version: CrashShield.version,
        subcommands: [Summary.self, List.self, Show.self, Export.self, Symbolicate.self, HTML.self])
}

/// The report files every subcommand reads, the filters and the output options every subcommand takes.
struct Files: ParsableArguments {
    @Option(
        name: .customLong("guard"),
        help:
            "Only this guard's reports (repeatable): \(GuardCategory.all.members.map(\.name).joined(separator: ", ")); any case."
    )
    var guards: [String] = []
    @Option(help: "Only reports seen at or after this ISO-8601 date and time, or date (UTC).")
    var since: String?
    @Option(help: "Only reports seen at or before this ISO-8601 date and time, or date (UTC, the whole day).")
    var until: String?
    @Option(help: "Only this app release: VERSION or VERSION+BUILD (repeatable).")
    var release: [String] = []
    @Option(help: "Only this launch (its launch ID; repeatable).")
    var launch: [String] = []
    @Option(help: "Only reports whose signature or grouping key starts with this (repeatable).")
    var signature: [String] = []
    @Option(help: "At most this many reports, the most occurrences first.")
    var limit: Int?
    @Flag(help: "Print JSON.")
    var json = false

    @Argument(help: "Report files (.jsonl, or HTTP bodies: .json or .json.gz).")
    var files: [String]

    mutating func validate() throws {
        if let since, ReportFilter.date(since) == nil {
            throw ValidationError("--since '\(since)' is no ISO-8601 date (2026-11-25 or 2026-11-25T10:00:00Z)")
        }
        if let until, ReportFilter.date(until) == nil {
            throw ValidationError("--until '\(until)' is no ISO-8601 date (2026-11-25 or 2026-11-25T10:00:00Z)")
        }
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
        guards = try guards.map(Self.guardName)
    }

    /// The guard's name as reports spell it (`kvc` for `KVC`); a name that is no guard is a usage error that lists
    /// the names.
    static func guardName(_ text: String) throws -> String {
        let names = GuardCategory.all.members.map(\.name)
        guard let name = names.first(where: { $0.caseInsensitiveCompare(text) == .orderedSame }) else {
            throw ValidationError("--guard '\(text)' is no guard; the guards are: \(names.joined(separator: ", "))")
        }
        return name
    }

    var filter: ReportFilter {
        ReportFilter(
            guards: guards, since: since.flatMap { ReportFilter.date($0) },
            until: until.flatMap { ReportFilter.date($0, endOfDay: true) }, releases: release,
            launches: launch, signatures: signature)
    }

    /// The files' reports, filtered; unreadable files are named on stderr.
    func load() -> (set: ReportSet, failed: Bool) {
        var (set, errors) = ReportSet.load(files)
        set.filter = filter
        errors.forEach { printError($0.description) }
        return (set, !errors.isEmpty)
    }

    /// Loads the files, names their bad lines on stderr (stdout carries data), prints `body`'s text, and fails
    /// when a file could not be read.
    func printing(_ body: (ReportSet) throws -> String) throws {
        let (set, failed) = load()
        set.badLines.forEach { printError($0.description) }
        print(try body(set), terminator: "")
        if failed { throw ExitCode.failure }
    }

    /// Names of callers the device did not name, from the binaries at hand (only the build that ran).
    func callerNames(_ reports: [CrashReport], searchPaths: [String]) -> [String: String] {
        let symbolicator = Symbolicator(tools: .installed(), searchPaths: searchPaths)
        var names: [String: String] = [:]
        for report in reports where report.callerFunction == nil {
            names[report.group] = symbolicator.callerName(report)
        }
        return names
    }
}

func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

extension ReportCommand {
    struct Summary: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A table by guard, method and call site, most occurrences first.",
            discussion: """
                The last line is `N reports (M occurrences) from K files; B unreadable lines`. A call site the device \
                did not name is named from the binary at hand when it is the build that ran (--search-path, then the \
                recorded path).
                """)

        @OptionGroup var files: Files
        @Flag(help: "Then watch the files grow: one line per report line appended.")
        var follow = false
        @Option(help: "With --follow: seconds between reads.")
        var interval: Double = 0.5
        @Option(
            name: .customLong("for"), help: "With --follow: stop after this many seconds (default: until interrupted).")
        var duration: Double?
        @Option(name: .customLong("search-path"), help: "A folder holding the app's binaries, to name call sites.")
        var searchPaths: [String] = []

        func run() throws {
            let (set, failed) = files.load()
            // Following: read to where the summary read before naming call sites (which takes a while), so that
            // lines appended meanwhile are printed.
            let follower = follow ? ReportFollower(paths: files.files, json: files.json) : nil
            follower?.filter = files.filter
            _ = follower?.poll()  // what the summary shows
            let names = files.callerNames(set.ranked(limit: files.limit), searchPaths: searchPaths)
            if files.json {
                print(try ReportText.summaryJSON(set, limit: files.limit, callerNames: names), terminator: "")
            } else {
                print(ReportText.summary(set, limit: files.limit, callerNames: names), terminator: "")
            }
            if let follower {
                fflush(stdout)
                follower.run(interval: interval, until: duration.map { Date().addingTimeInterval($0) }) {
                    print($0)
                    fflush(stdout)
                }
            }
            if failed { throw ExitCode.failure }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "One line per report, most occurrences first, no header: signature, count, guard, method, call site, last seen."
        )

        @OptionGroup var files: Files
        @Option(name: .customLong("search-path"), help: "A folder holding the app's binaries, to name call sites.")
        var searchPaths: [String] = []

        func run() throws {
            try files.printing { set in
                let names = files.callerNames(set.ranked(limit: files.limit), searchPaths: searchPaths)
                return files.json
                    ? try ReportText.listJSON(set, limit: files.limit, callerNames: names)
                    : ReportText.list(set, limit: files.limit, callerNames: names)
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "One report in full: every field, its stack with the caller marked, its images.")

        @Argument(
            help:
                "The report's grouping key or signature, an earlier build's too (or a unique prefix of it), as `summary` and `list` list them."
        )
        var report: String
        @OptionGroup var files: Files
        @Option(name: .customLong("search-path"), help: "A folder holding the app's binaries, to name the call site.")
        var searchPaths: [String] = []

        /// A signature that no report has, or that several share, is a usage error of `show` (its usage follows).
        mutating func validate() throws {
            do {
                _ = try files.load().set.report(matching: report)
            } catch let error as ReportLookupError {
                throw ValidationError(error.description)
            }
        }

        func run() throws {
            try files.printing { set in
                let found = try set.report(matching: report)
                if files.json { return try ReportText.json(found) }
                return ReportText.show(found, callerNames: files.callerNames([found], searchPaths: searchPaths))
            }
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Every report (one per group, counts summed over launches) as JSON (the default) or CSV.")

        enum Format: String, ExpressibleByArgument, CaseIterable {
            case json, csv
        }

        @Option(help: "json or csv (cells a spreadsheet could take for a formula start with ').")
        var format: Format = .json
        @OptionGroup var files: Files

        func run() throws {
            if files.json && format == .csv { throw ValidationError("--json and --format csv contradict each other") }
            try files.printing {
                try ReportText.export($0, as: ReportText.ExportFormat(rawValue: format.rawValue)!, limit: files.limit)
            }
        }
    }

    struct Symbolicate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Readable frames, from the binaries at hand.",
            discussion: """
                Linux: llvm-symbolizer (else addr2line) on each image. Apple: one `atos -o <image> -l <load address> \
                <addresses>` command per image, with its UUID and slide; run where atos is installed. Swift symbols \
                are demangled with swift-demangle when it is installed. --signature picks reports.
                """)

        @Option(
            name: .customLong("search-path"), help: "A folder holding images or dSYMs not found at their recorded path."
        )
        var searchPaths: [String] = []
        @Option(help: "llvm-symbolizer or addr2line to use (a path or a name in PATH).")
        var symbolizer: String?
        @OptionGroup var files: Files

        func run() throws {
            let symbolicator = Symbolicator(tools: .installed(symbolizer: symbolizer), searchPaths: searchPaths)
            try files.printing { set in
                let reports = set.ranked(limit: files.limit)
                return files.json
                    ? try ReportText.json(reports.map(symbolicator.json))
                    : reports.map(symbolicator.text).joined(separator: "\n")
            }
        }
    }

    struct HTML: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "html",
            abstract: "One self-contained page (no network): occurrences per guard over time, call sites sortable by "
                + "count, each report's stack with the caller marked.")

        @Option(name: .shortAndLong, help: "The page to write.")
        var output: String = "report.html"
        @Option(name: .customLong("search-path"), help: "A folder holding the app's binaries, to name call sites.")
        var searchPaths: [String] = []
        @OptionGroup var files: Files

        func run() throws {
            try files.printing { set in
                let shown = set.ranked(limit: files.limit)
                let names = files.callerNames(shown, searchPaths: searchPaths)
                // Every frame named (the binary at hand, else the recorded symbol), Swift names demangled.
                let symbolicator = Symbolicator(tools: .installed(), searchPaths: searchPaths)
                var frameNames: [String: [Int: String]] = [:]
                for report in shown { frameNames[report.group] = symbolicator.frameNames(report) }
                try Data(ReportHTML.page(set, limit: files.limit, callerNames: names, frameNames: frameNames).utf8)
                    .write(to: URL(fileURLWithPath: output), options: .atomic)
                struct Written: Encodable { var output: String; var reports: Int; var occurrences: Int }
                let written = Written(
                    output: output, reports: shown.count, occurrences: shown.reduce(0) { $0 + $1.occurrences })
                return files.json
                    ? try ReportText.json(written)
                    : "wrote \(output): \(ReportText.counted(written.reports, "report")) "
                        + "(\(ReportText.counted(written.occurrences, "occurrence")))\n"
            }
        }
    }
}
