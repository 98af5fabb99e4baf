import CrashShieldRuntime.Internal

/// An Objective-C class (or metaclass), by pointer. Equality is identity.
struct ObjCClass: Hashable, CustomStringConvertible, @unchecked Sendable {
    let pointer: CSRClass

    init(_ pointer: CSRClass) { self.pointer = pointer }

    /// The class registered under `name`, or nil.
    init?(named name: String) {
        guard let pointer = csr_class_lookup(name) else { return nil }
        self.pointer = pointer
    }

    /// The class of `object` (nil for nil).
    init?(of object: CSRObject?) {
        guard let pointer = csr_object_getClass(object) else { return nil }
        self.pointer = pointer
    }

    var name: String { String(cString: csr_class_getName(pointer)) }
    var superclass: ObjCClass? { csr_class_getSuperclass(pointer).map(ObjCClass.init) }
    var metaclass: ObjCClass { ObjCClass(csr_class_getMetaclass(pointer)) }
    var isMetaclass: Bool { csr_class_isMetaClass(pointer) }
    /// Path of the binary that defines the class.
    var imagePath: String? { csr_class_imagePath(pointer).map { String(cString: $0) } }
    /// Image of the class, or of its nearest superclass with one (a class made at run time, e.g. by KVO, has none).
    var nearestImagePath: String? {
        var current: ObjCClass? = self
        while let cls = current {
            if let path = cls.imagePath { return path }
            current = cls.superclass
        }
        return nil
    }
    var description: String { isMetaclass ? "+\(name)" : name }

    func isKind(of ancestor: ObjCClass) -> Bool { csr_class_isKindOf(pointer, ancestor.pointer) }
    func owns(_ selector: ObjCSelector) -> Bool { csr_class_ownsMethod(pointer, selector.pointer) }
    func responds(to selector: ObjCSelector) -> Bool {
        csr_class_methodImplementation(pointer, selector.pointer) != nil
    }
    /// The nearest class, from this one up, that defines `selector` itself.
    func owner(of selector: ObjCSelector) -> ObjCClass? {
        var current: ObjCClass? = self
        while let cls = current {
            if cls.owns(selector) { return cls }
            current = cls.superclass
        }
        return nil
    }
    /// This class and its superclasses, nearest first.
    var lineage: [ObjCClass] {
        var result: [ObjCClass] = []
        var current: ObjCClass? = self
        while let cls = current { result.append(cls); current = cls.superclass }
        return result
    }
}

/// An Objective-C selector. Equality compares names (the GNU runtime keeps several typed selectors per name).
struct ObjCSelector: Hashable, CustomStringConvertible, ExpressibleByStringLiteral, @unchecked Sendable {
    let pointer: CSRSelector
    let name: String

    init(_ name: String) {
        self.name = name
        self.pointer = csr_sel_register(name)
    }

    init(stringLiteral name: String) { self.init(name) }

    /// Wraps a selector received by an implementation (`_cmd`).
    init(_ pointer: CSRSelector) {
        self.pointer = pointer
        self.name = String(cString: csr_sel_getName(pointer))
    }

    static func == (lhs: ObjCSelector, rhs: ObjCSelector) -> Bool { lhs.name == rhs.name }
    func hash(into hasher: inout Hasher) { hasher.combine(name) }
    var description: String { name }
}

/// Objective-C message sends from Swift, with the implementation's real signature.
enum Messaging {
    /// The implementation `selector` reaches on `receiver`, cast to `Signature` (a `@convention(c)` function type).
    @inline(__always)
    static func implementation<Signature>(
        _ receiver: CSRObject?, _ selector: CSRSelector?,
        as _: Signature.Type
    ) -> Signature {
        unsafeBitCast(csr_msg_lookup(receiver, selector), to: Signature.self)
    }

    typealias CountIMP = @convention(c) (CSRObject?, CSRSelector?) -> UInt
    typealias ObjectIMP = @convention(c) (CSRObject?, CSRSelector?) -> CSRObject?

    /// `[receiver count]` (or `length`, or any other method returning NSUInteger with no argument): the runtime's own
    /// message send (`csr_msg_send_word`: objc_msgSend on Apple).
    @inline(__always)
    static func sendUInt(_ receiver: CSRObject?, _ selector: CSRSelector?) -> UInt {
        UInt(csr_msg_send_word(receiver, selector))
    }

    /// `[receiver selector]` returning an object (+0, as the method answers it).
    @inline(__always)
    static func sendObject(_ receiver: CSRObject?, _ selector: CSRSelector?) -> CSRObject? {
        UnsafeMutableRawPointer(bitPattern: csr_msg_send_word(receiver, selector))
    }
}

/// Selectors the guards send on hot paths, registered once.
enum Selectors {
    /// The same registrations the hottest replacements read (`csr_hot_selectors`), made on first use.
    @inline(__always)
    static var count: CSRSelector? { prepared().count }
    @inline(__always)
    static var length: CSRSelector? { prepared().length }

    @inline(__always)
    private static func prepared() -> CSRHotSelectors {
        if csr_hot_selectors.length == nil { csr_hot_selectors_prepare() }
        return csr_hot_selectors
    }
}

extension String {
    /// `[object description]`, bounded, safe for any object (nil gives "nil").
    init(describing object: CSRObject?, limit: Int = 256) {
        var buffer = [CChar](repeating: 0, count: limit)
        csr_object_describe(object, &buffer, limit)
        self = String(cString: buffer)
    }
}

/// Runs `body` inside an Objective-C autorelease pool. `body` is boxed (escaping) so that an Objective-C exception
/// unwinding through this call leaves no Swift bookkeeping half done.
package func withAutoreleasePool(_ body: @escaping () -> Void) {
    let box = Unmanaged.passRetained(ClosureBox(body))
    csr_with_autorelease_pool(
        { raw in Unmanaged<ClosureBox>.fromOpaque(raw!).takeUnretainedValue().body() }, box.toOpaque())
    box.release()
}

/// A closure behind a pointer, for C callbacks.
final class ClosureBox {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
}
