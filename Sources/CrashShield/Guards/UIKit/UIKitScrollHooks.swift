import CrashShieldRuntime.Internal

/// Scrolling a table or collection view to an index path it does not hold (opt-in `uikit` guard):
/// `-[UITableView scrollToRowAtIndexPath:atScrollPosition:animated:]` raises NSRangeException, `-[UICollectionView
/// scrollToItemAtIndexPath:atScrollPosition:animated:]` NSInternalInconsistencyException (FoundationFailures.swift
/// quotes both). The index path is checked against the view's own public counts, as UIKit's check reads them:
/// `section < numberOfSections`, then `row < numberOfRowsInSection:` / `item < numberOfItemsInSection:` (asked only
/// for a section that exists: UIKit raises for the count of one that does not). A table row of NSNotFound scrolls to
/// its section (UITableView's documentation; Tencent/QMUI_iOS#436): left to UIKit, as is an index path that is not
/// two indexes long. A stopped scroll is skipped (the content offset and the data stay as they were) and reported.
extension UIKitGuard {
    /// receiver, _cmd, the index path, the scroll position (UITableViewScrollPosition, an NSInteger;
    /// UICollectionViewScrollPosition, NSUInteger options: one word either way), animated (a byte, as `PushIMP`).
    typealias ScrollIMP = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, Int, UInt8) -> Void

    static let scrollToRow: GuardedMethod<ScrollIMP> = GuardedMethod(
        "scrollToRowAtIndexPath:atScrollPosition:animated:", .uikit
    ) { r, cmd, indexPath, position, animated in
        var figures = CSRScrollFigures()
        let target = csr_scroll_target_check(r, indexPath, true, &figures)
        scrollToRow.mutation(
            r, cmd, valid: target == CSRScrollTargetUnjudged, else: scrollViolation(target, figures, table: true, r)
        ) { $0(r, cmd, indexPath, position, animated) }
    }

    static let scrollToItem: GuardedMethod<ScrollIMP> = GuardedMethod(
        "scrollToItemAtIndexPath:atScrollPosition:animated:", .uikit
    ) { r, cmd, indexPath, position, animated in
        var figures = CSRScrollFigures()
        let target = csr_scroll_target_check(r, indexPath, false, &figures)
        scrollToItem.mutation(
            r, cmd, valid: target == CSRScrollTargetUnjudged, else: scrollViolation(target, figures, table: false, r)
        ) { $0(r, cmd, indexPath, position, animated) }
    }

    private static func scrollViolation(
        _ target: CSRScrollTarget, _ figures: CSRScrollFigures, table: Bool, _ view: CSRObject?
    ) -> Violation {
        let (section, index, count) = (figures.section, figures.index, figures.count)
        switch (target == CSRScrollTargetSectionOutOfBounds, table) {
        case (true, true): return .tableScrollSection(section, sections: count, view: describe(view))
        case (false, true): return .tableScrollRow(index, rows: count, section: section, view: describe(view))
        case (true, false): return .collectionScrollSection(section, sections: count, view: describe(view))
        case (false, false): return .collectionScrollItem(index, items: count, section: section, view: describe(view))
        }
    }
}
