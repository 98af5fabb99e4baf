/// What a guard gets to install itself; records every hook made through it.
final class GuardContext {
    let engine: HookEngine
    let configuration: Configuration
    /// The guard being installed.
    let category: GuardCategory
    private(set) var hooks: [Hook] = []

    init(engine: HookEngine, configuration: Configuration, category: GuardCategory) {
        self.engine = engine
        self.configuration = configuration
        self.category = category
    }

    /// Installs `point` on each class.
    func install(_ point: AnyHookPoint, on classes: [ObjCClass]) throws {
        for cls in classes { hooks.append(try engine.install(point, on: cls)) }
    }

    /// Installs `point` on every class that owns an implementation of its method a member of `family` runs
    /// (`ClassFamily.owners(of:)`), whatever class owns it: the point on the most-derived owners, and the point's
    /// layer for height h (`AnyHookPoint.layer(atHeight:)`) on an owner with h levels of owners below it. Each
    /// layer is a hook point of its own, so an override calling `super` reaches the next layer's hook, never its own.
    /// An owner higher than the point's layers stays unhooked (a point without layers hooks the most-derived
    /// owners only). Class methods: the roots.
    func install(_ point: AnyHookPoint, onOwnersIn family: ClassFamily) throws {
        guard point.kind == .instance else { return try install(point, on: family.roots) }
        for (owner, height) in family.owners(of: point.selector) {
            guard let layer = point.layer(atHeight: height) else { continue }
            try install(layer, on: [owner])
        }
    }

    /// Installs each of `points` on each class, in order.
    func install(_ points: [AnyHookPoint], on classes: [ObjCClass]) throws {
        for point in points { try install(point, on: classes) }
    }

    /// Installs each of `points` on the owners in `family`, in order (a guard's list of the methods it hooks there).
    func install(_ points: [AnyHookPoint], onOwnersIn family: ClassFamily) throws {
        for point in points { try install(point, onOwnersIn: family) }
    }

    /// Installs one selector on every class that owns the implementation a member of `family` or one of its roots
    /// uses, also where the owners are nested (GNUstep: NSString's generic `substringWithRange:` under GSCString's
    /// own; NSArray's generic `getObjects:range:`, which app subclasses use, under GSArray's): `layers[0]` on the
    /// outermost owners, `layers[1]` on owners below one of those, and so on. Each layer is a separate hook point
    /// (its own table of originals), so an override calling `super` reaches the next layer's hook, never its own.
    func install(layers: [AnyHookPoint], onOwnersIn family: ClassFamily) throws {
        guard let selector = layers.first?.selector else { return }
        var owners: [ObjCClass] = []
        for member in family.roots + family.members {
            guard let owner = member.owner(of: selector),
                family.roots.contains(where: { owner.isKind(of: $0) }) || family.members.contains(owner),
                !owners.contains(owner)
            else { continue }
            owners.append(owner)
        }
        for owner in owners {
            let above = owners.filter { $0 != owner && owner.isKind(of: $0) }
            guard above.count < layers.count else {
                throw HookError.nestedInstallation(
                    class: owner.name, selector: selector.name,
                    existing: above.map(\.name).joined(separator: ","))
            }
            try install(layers[above.count], on: [owner])
        }
    }
}
