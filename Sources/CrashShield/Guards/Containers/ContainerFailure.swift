import CrashShieldRuntime.Internal

/// Helpers shared by the container hooks.
enum ContainerFailure {
    /// Copies the non-nil entries of `objects` (and the matching `keys`, when given: a pair with a nil side is
    /// dropped), calls `body` with the compacted buffers and their count.
    static func withoutNils<R>(
        _ objects: UnsafePointer<CSRObject?>?, _ keys: UnsafePointer<CSRObject?>?, count: UInt,
        _ body: (UnsafePointer<CSRObject?>?, UnsafePointer<CSRObject?>?, UInt) -> R
    ) -> R {
        var keptObjects: [CSRObject?] = []
        var keptKeys: [CSRObject?] = []
        for index in 0..<Int(count) {
            guard let object = objects?[index] else { continue }
            if let keys {
                guard let key = keys[index] else { continue }
                keptKeys.append(key)
            }
            keptObjects.append(object)
        }
        return keptObjects.withUnsafeBufferPointer { objectBuffer in
            keptKeys.withUnsafeBufferPointer { keyBuffer in
                body(objectBuffer.baseAddress, keys == nil ? nil : keyBuffer.baseAddress, UInt(keptObjects.count))
            }
        }
    }

    /// A constructor given nil objects (`text`: GNUstep's), for arrays, sets and ordered sets. Recovery: the
    /// collection of the non-nil objects.
    static func initWithObjects(
        _ point: GuardedMethod<ContainerIMP.InitWithObjectsCount>, _ text: @autoclosure () -> String,
        _ r: CSRObject?, _ cmd: CSRSelector?, _ objects: UnsafePointer<CSRObject?>?, _ count: UInt
    ) -> CSRObject? {
        let slot = firstNil(objects, count: count)
        return point.read(
            r, cmd, valid: slot == nil, else: slot.map { .nilInInit(text(), slot: $0) },
            recovery: { original in
                withoutNils(objects, nil, count: count) { kept, _, n in original(r, cmd, kept, n) }
            }
        ) { $0(r, cmd, objects, count) }
    }

    /// Index of the first nil among `count` entries (objects or keys), if any.
    static func firstNil(_ objects: UnsafePointer<CSRObject?>?, count: UInt) -> Int? {
        guard count > 0 else { return nil }
        guard let objects else { return 0 }
        for index in 0..<Int(count) where objects[index] == nil { return index }
        return nil
    }
}

/// Selectors the container guards send.
enum ContainerSelectors {
    static let lastIndex = csr_sel_register("lastIndex")
    static let firstIndex = csr_sel_register("firstIndex")
    static let indexGreaterThanIndex = csr_sel_register("indexGreaterThanIndex:")
    static let setByAddingObjectsFromSet = csr_sel_register("setByAddingObjectsFromSet:")
    static let subarrayWithRange = csr_sel_register("subarrayWithRange:")
}

/// Walking an NSIndexSet.
enum IndexSets {
    private typealias IndexAfter = @convention(c) (CSRObject?, CSRSelector?, UInt) -> UInt

    /// Calls `body` with the indexes of `indexes` in ascending order until it returns false.
    static func forEach(_ indexes: CSRObject?, _ body: (UInt) -> Bool) {
        guard let indexes else { return }
        let next = ContainerSelectors.indexGreaterThanIndex
        let after = Messaging.implementation(indexes, next, as: IndexAfter.self)
        var index = Messaging.sendUInt(indexes, ContainerSelectors.firstIndex)
        while index != UInt(Int.max) && body(index) { index = after(indexes, next, index) }
    }
}

/// `@convention(c)` signatures of the hooked container methods (receiver, `_cmd`, arguments).
enum ContainerIMP {
    typealias ObjectAtIndex = @convention(c) (CSRObject?, CSRSelector?, UInt) -> CSRObject?
    typealias ObjectWithRange = @convention(c) (CSRObject?, CSRSelector?, CSRRange) -> CSRObject?
    typealias ObjectWithObject = @convention(c) (CSRObject?, CSRSelector?, CSRObject?) -> CSRObject?
    typealias VoidWithObject = @convention(c) (CSRObject?, CSRSelector?, CSRObject?) -> Void
    typealias VoidWithIndex = @convention(c) (CSRObject?, CSRSelector?, UInt) -> Void
    typealias VoidWithRange = @convention(c) (CSRObject?, CSRSelector?, CSRRange) -> Void
    typealias VoidWithObjectIndex = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, UInt) -> Void
    typealias VoidWithIndexObject = @convention(c) (CSRObject?, CSRSelector?, UInt, CSRObject?) -> Void
    typealias VoidWithIndexIndex = @convention(c) (CSRObject?, CSRSelector?, UInt, UInt) -> Void
    typealias ObjectWithObjectObject = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, CSRObject?) -> CSRObject?
    typealias VoidWithObjectObject = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, CSRObject?) -> Void
    typealias VoidWithRangeObject = @convention(c) (CSRObject?, CSRSelector?, CSRRange, CSRObject?) -> Void
    typealias VoidWithBufferRange =
        @convention(c) (CSRObject?, CSRSelector?, UnsafeMutablePointer<CSRObject?>?, CSRRange) -> Void
    typealias Void0 = @convention(c) (CSRObject?, CSRSelector?) -> Void
    typealias InitWithObjectsCount =
        @convention(c) (CSRObject?, CSRSelector?, UnsafePointer<CSRObject?>?, UInt) -> CSRObject?
    typealias InitWithObjectsKeysCount =
        @convention(c) (CSRObject?, CSRSelector?, UnsafePointer<CSRObject?>?, UnsafePointer<CSRObject?>?, UInt) ->
        CSRObject?
}
