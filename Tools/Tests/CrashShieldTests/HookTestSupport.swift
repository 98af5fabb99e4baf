@testable import CrashShield

// What the tests ask of the hook engine and class families beyond what the guards need.

extension HookEngine {
    /// Installs `point` on the class named `className` (the guards install on classes they found).
    @discardableResult
    func install(_ point: AnyHookPoint, onClassNamed className: String) throws -> Hook {
        guard let cls = ObjCClass(named: className) else { throw NoClass(name: className) }
        return try install(point, on: cls)
    }

    struct NoClass: Error { let name: String }
}

extension ClassFamily {
    /// The most-derived owners of `selector` (height 0 in `owners(of:)`): the classes a point without layers is
    /// installed on (`GuardContext.install(_:onOwnersIn:)`). Class methods: the roots.
    func hookTargets(for selector: ObjCSelector, kind: MethodKind) -> [ObjCClass] {
        if kind == .class { return roots }
        return owners(of: selector).filter { $0.height == 0 }.map(\.cls)
    }
}
