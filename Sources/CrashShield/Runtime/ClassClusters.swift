import CrashShieldRuntime

/// The concrete classes behind a public class cluster, found from real sample instances (empty, single, several,
/// mutable copies, the `+alloc` placeholder) rather than from private class names, which change between OS versions.
/// On iOS NSArray gives __NSArray0, __NSSingleObjectArrayI, __NSArrayI, __NSPlaceholderArray...; here GSInlineArray,
/// GSPlaceholderArray... The same code covers both.
public struct ClassFamily: Sendable, CustomStringConvertible {
    /// The public class ("NSArray").
    public let root: ObjCClass
    /// Concrete classes of the samples, placeholders included.
    public let members: [ObjCClass]

    public init?(_ publicClassName: String) {
        guard let root = ObjCClass(named: publicClassName) else { return nil }
        var buffer = [CSRClass?](repeating: nil, count: 32)
        let count = Int(csr_cluster_sample_classes(publicClassName, &buffer, Int32(buffer.count)))
        self.root = root
        self.members = buffer.prefix(count).compactMap { $0.map(ObjCClass.init) }
    }

    /// The classes to hook so that every member answers `selector` through exactly one hook: for each member, the
    /// class that owns the implementation it uses, when that class is the root, a subclass of it, or a member (a
    /// placeholder may sit outside the root's hierarchy). An implementation inherited from above the root (NSObject)
    /// is shared with unrelated classes and left alone. Class methods: the root.
    public func hookTargets(for selector: ObjCSelector, kind: MethodKind) -> [ObjCClass] {
        if kind == .class { return [root] }
        var targets: [ObjCClass] = []
        for member in members + [root] {
            guard let owner = member.owner(of: selector), owner.isKind(of: root) || members.contains(owner),
                  !targets.contains(owner) else { continue }
            targets.append(owner)
        }
        return targets
    }

    public var description: String { "\(root.name): \(members.map(\.name).joined(separator: ", "))" }
}
