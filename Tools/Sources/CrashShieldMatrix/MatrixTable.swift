/// The crash matrix as text.
public enum MatrixTable {
    public static func render(_ rows: [MatrixRow]) -> String {
        let width = max(8, rows.map(\.scenario.name.count).max() ?? 8)
        var lines = [
            "\("scenario".padding(toLength: width, withPad: " ", startingAt: 0))  guard                 unprotected      protected"
        ]
        for row in rows {
            let unprotected = row.crashedUnprotected ? "crashed" : "NO CRASH"
            let protected = row.survivedProtected ? "survived" : "FAILED"
            lines.append(
                "\(row.scenario.name.padding(toLength: width, withPad: " ", startingAt: 0))  "
                    + "\(row.scenario.category.padding(toLength: 20, withPad: " ", startingAt: 0))  "
                    + "\(unprotected.padding(toLength: 15, withPad: " ", startingAt: 0))  \(protected)")
            for problem in row.problems { lines.append("    ! \(problem)") }
        }
        lines.append(summary(rows))
        return lines.joined(separator: "\n")
    }

    /// `crash matrix: S/N survived protected, C/N crashed unprotected`
    public static func summary(_ rows: [MatrixRow]) -> String {
        let survived = rows.filter(\.survivedProtected).count
        let crashed = rows.filter(\.crashedUnprotected).count
        return
            "crash matrix: \(survived)/\(rows.count) survived protected, \(crashed)/\(rows.count) crashed unprotected"
    }
}
