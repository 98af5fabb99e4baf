import ArgumentParser
import CrashShield
import CrashShieldReportTool
import Foundation

@main
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crashshield-report",
        abstract: "Reads CrashShield report files (JSON Lines, as JSONLinesReportStore writes them).",
        subcommands: [Summary.self, Show.self, Export.self, Symbolicate.self])
}

/// The report files every subcommand reads.
struct Files: ParsableArguments {
    @Argument(help: "Report files (.jsonl).")
    var files: [String]

    /// The files' reports; unreadable files are named on stderr.
    func load() -> (set: ReportSet, failed: Bool) {
        let (set, errors) = ReportSet.load(files)
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

    /// The report with this signature (or unique prefix); none, or several, is a usage error.
    func report(matching signature: String, in set: ReportSet) throws -> CrashReport {
        do {
            return try set.report(matching: signature)
        } catch let error as ReportLookupError {
            throw ValidationError(error.description)
        }
    }
}

func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

extension ReportCommand {
    struct Summary: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A table by guard, method and call site, most occurrences first.",
            discussion: "The last line is `N reports (M occurrences) from K files; B unreadable lines`.")

        @OptionGroup var files: Files
        @Flag(help: "Then watch the files grow: one line per report line appended.")
        var follow = false
        @Option(help: "With --follow: seconds between reads.")
        var interval: Double = 0.5
        @Option(name: .customLong("for"), help: "With --follow: stop after this many seconds (default: until interrupted).")
        var duration: Double?

        func run() throws {
            let (set, failed) = files.load()
            print(ReportText.summary(set), terminator: "")
            if follow {
                let follower = ReportFollower(paths: files.files)
                _ = follower.poll()   // what the summary showed
                follower.run(interval: interval, until: duration.map { Date().addingTimeInterval($0) }) {
                    print($0)
                    fflush(stdout)
                }
            }
            if failed { throw ExitCode.failure }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "One report in full: every field, its stack with the caller marked, its images.")

        @Argument(help: "The report's signature (or a unique prefix of it), as `summary` lists it.")
        var signature: String
        @OptionGroup var files: Files

        func run() throws {
            try files.printing { ReportText.show(try files.report(matching: signature, in: $0)) }
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Every report (one per signature, counts summed over launches) as JSON or CSV.")

        enum Format: String, ExpressibleByArgument, CaseIterable {
            case json, csv
        }

        @Option(help: "json or csv.")
        var format: Format
        @OptionGroup var files: Files

        func run() throws {
            try files.printing { try ReportText.export($0, as: ReportText.ExportFormat(rawValue: format.rawValue)!) }
        }
    }

    struct Symbolicate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Readable frames, from the binaries at hand.",
            discussion: """
                Linux: llvm-symbolizer (else addr2line) on each image. Apple: one `atos -o <image> -l <load address> \
                <addresses>` command per image, with its UUID and slide; run where atos is installed. Swift symbols \
                are demangled with swift-demangle when it is installed.
                """)

        @Option(help: "Only the report with this signature (or unique prefix).")
        var signature: String?
        @Option(name: .customLong("search-path"), help: "A folder holding images or dSYMs not found at their recorded path.")
        var searchPaths: [String] = []
        @Option(help: "llvm-symbolizer or addr2line to use (a path or a name in PATH).")
        var symbolizer: String?
        @OptionGroup var files: Files

        func run() throws {
            let symbolicator = Symbolicator(tools: .installed(symbolizer: symbolizer), searchPaths: searchPaths)
            try files.printing { set in
                let reports = try signature.map { [try files.report(matching: $0, in: set)] } ?? set.reports
                return reports.map(symbolicator.text).joined(separator: "\n")
            }
        }
    }
}
