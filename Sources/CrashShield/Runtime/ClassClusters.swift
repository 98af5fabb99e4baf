import CrashShieldRuntime.Internal

/// The concrete classes behind a public class cluster, found from real sample instances (empty, single, several,
/// mutable copies, the `+alloc` placeholder) rather than from private class names, which change between OS versions.
/// On iOS NSArray gives __NSArray0, __NSSingleObjectArrayI, __NSArrayI, __NSPlaceholderArray...; here GSInlineArray,
/// GSPlaceholderArray... The same code covers both.
struct ClassFamily: Sendable, CustomStringConvertible {
    /// The public classes ("NSArray", "NSMutableArray").
    let roots: [ObjCClass]
    /// Concrete classes of the samples, placeholders included.
    let members: [ObjCClass]

    /// The family behind one or more related public classes (a class and its mutable subclass belong together:
    /// their concrete classes inherit from each other, and one hook point must not be installed at two levels).
    init?(_ publicClassNames: String...) { self.init(publicClassNames) }

    init?(_ publicClassNames: [String]) {
        var roots: [ObjCClass] = []
        var members: [ObjCClass] = []
        for name in publicClassNames {
            guard let root = ObjCClass(named: name) else { return nil }
            roots.append(root)
            for cls in ClassSamples.shared.classes(of: name) where !members.contains(cls) { members.append(cls) }
        }
        self.roots = roots
        self.members = members
    }

    /// The classes that own the implementations of `selector` the members run, each with its height among them: 0
    /// for an owner no other one lies below (the most-derived owners), h + 1 for an owner whose highest owner below
    /// it has height h. Apple's NSArray implements `subarrayWithRange:` itself, concrete classes inherit it and one
    /// overrides it: NSArray's has height 1, the override's 0. Along any line of inheritance heights differ, so one
    /// hook point per height never nests (`HookPoint.layer(atHeight:)`). Implementations inherited from
    /// above the roots (NSObject) are shared with unrelated classes and left alone.
    func owners(of selector: ObjCSelector) -> [(cls: ObjCClass, height: Int)] {
        var owners: [ObjCClass] = []
        for member in members {
            guard let owner = member.owner(of: selector),
                roots.contains(where: { owner.isKind(of: $0) }) || members.contains(owner),
                !owners.contains(owner)
            else { continue }
            owners.append(owner)
        }
        var heights: [ObjCClass: Int] = [:]
        func height(_ owner: ObjCClass) -> Int {
            if let known = heights[owner] { return known }
            let below = owners.filter { $0 != owner && $0.isKind(of: owner) }
            let result = below.map { height($0) + 1 }.max() ?? 0
            heights[owner] = result
            return result
        }
        return owners.map { ($0, height($0)) }
    }

    var description: String {
        "\(roots.map(\.name).joined(separator: "+")): \(members.map(\.name).joined(separator: ", "))"
    }
}

/// The concrete classes of the samples of each public class, made once per process and shared by every guard and
/// every start(): making the samples (a few hundred objects, JSON parsed, strings formatted) was most of start()'s
/// cost, and several guards ask for the same public class (NSMutableArray: the array guard twice, the KVC guard).
/// The classes a Foundation hands out for these forms do not change while the process runs.
final class ClassSamples: @unchecked Sendable {
    static let shared = ClassSamples()

    private let lock = Lock()
    private var byName: [String: [ObjCClass]] = [:]
    /// How many times samples were made (once per public class name, unless two threads raced for one).
    private(set) var samplings = 0

    /// Tests only: forgets the samples, so each family is sampled again (`csr_test_cluster_sample_class_named`).
    func forget() { lock.withLock { byName = [:] } }

    func classes(of publicClassName: String) -> [ObjCClass] {
        if let known = lock.withLock({ byName[publicClassName] }) { return known }
        // Outside the lock: the samples run Foundation code, which may reach hooks of guards installed already.
        var buffer = [CSRClass?](repeating: nil, count: 32)
        let count = Int(csr_cluster_sample_classes(publicClassName, &buffer, Int32(buffer.count)))
        let classes = buffer.prefix(count).compactMap { $0.map(ObjCClass.init) }
        return lock.withLock {
            samplings += 1
            if let known = byName[publicClassName] { return known }
            byName[publicClassName] = classes
            return classes
        }
    }
}
