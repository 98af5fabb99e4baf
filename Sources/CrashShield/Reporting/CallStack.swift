import CrashShieldRuntime.Internal

/// Captures call stacks and finds the frame that made the bad call.
enum CallStack {
    /// Frames walked to find a call site, whatever the report keeps.
    static let searchDepth = 64

    /// Where a bad call was made: the stack from the replacement's frame outwards, and which frame is the call site.
    struct Location {
        /// Return addresses, innermost first; index 0 is the replacement's own frame when it was found.
        var addresses: [UInt]
        /// Index in `addresses` of the frame that made the bad call.
        var callerIndex: Int?
        /// The binary image of that frame.
        var callerImage: String?
        /// The call site's return address (0 when unknown), also when it lies deeper than the frames kept: with the
        /// guard, class and selector, a rate-limit key.
        var callerAddress: UInt
        /// Whether `addresses` is the stack a report keeps (false: only what the decision needed).
        var isComplete = true
        /// Whether the replacement's direct caller is Foundation's own code (`.directCaller` only), also when the
        /// call site is the app's frame past it (`pastFoundationConveniences`).
        var directCallerIsFoundation = false
    }

    /// Finds the frame that made the bad call stopped by `implementation`, without symbolicating anything.
    /// `callSite` says where that frame is relative to the replacement's direct caller; `isAppImage` decides which
    /// images are the app's (for `.firstAppFrame`).
    /// `locate`, as cheaply as possible, for a decision: the frame-pointer chain finds a replacement's direct caller
    /// without the unwind tables (CrashShield's own frames all have frame pointers, and the caller's return address
    /// sits in the replacement's frame record); the full walk runs when that is not enough (another kind of call
    /// site, Foundation's own code calling, or no frame of the replacement found).
    static func locateCaller(
        of implementation: UnsafeRawPointer?, callSite: CallSite, maxDepth: Int,
        isAppImage: (String) -> Bool
    ) -> Location {
        if callSite == .directCaller, let implementation {
            let entry = csr_strip_code_pointer(implementation)  // arm64e: an IMP is signed, the unwind tables are not
            // Plain loops over the buffer: this runs for every stopped call of a storm, also in debug builds.
            let found: Location? = withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: 24) {
                buffer in
                let count = Int(csr_frame_backtrace(buffer.baseAddress, Int32(buffer.count)))
                var own = 0
                let bodies = Images.tailCallTargets(of: entry)
                while own + 1 < count {
                    let address = UInt(bitPattern: buffer[own])
                    if address > 0 {
                        let start = Images.function(containing: address - 1)
                        if start == entry || bodies.contains(start) { break }
                    }
                    own += 1
                }
                while own + 2 < count && isHandOverFrame(UInt(bitPattern: buffer[own + 1])) { own += 1 }
                guard own + 1 < count, let image = Images.path(of: UInt(bitPattern: buffer[own + 1])),
                    !foundationImages.contains(image)
                else { return nil }
                return Location(
                    addresses: [UInt(bitPattern: buffer[own]), UInt(bitPattern: buffer[own + 1])],
                    callerIndex: 1, callerImage: image, callerAddress: UInt(bitPattern: buffer[own + 1]),
                    isComplete: false)
            }
            if let found { return found }
        }
        return locate(callerOf: implementation, callSite: callSite, maxDepth: maxDepth, isAppImage: isAppImage)
    }

    static func locate(
        callerOf implementation: UnsafeRawPointer?, callSite: CallSite, maxDepth: Int,
        isAppImage: (String) -> Bool
    ) -> Location {
        // The call site is looked for on the whole stack (GNUstep's forwarding path alone is a dozen frames deep);
        // only the report keeps no more than `maxDepth` frames.
        var raw = [UnsafeMutableRawPointer?](repeating: nil, count: max(maxDepth, searchDepth) + 8)
        let count = Int(raw.withUnsafeMutableBufferPointer { csr_backtrace($0.baseAddress, Int32($0.count)) })
        let all = raw.prefix(count).map { UInt(bitPattern: $0) }
        var caller = callerIndex(in: all, implementation: implementation)
        if callSite == .pastForwarding, let first = caller { caller = senderIndex(in: all, after: first) }
        // Drop CrashShield's own frames above the replacement: the stack starts at the replacement.
        let start = caller.map { max(0, $0 - 1) } ?? 0
        let stack = Array(all[start...])
        var index = caller.map { $0 - start }
        var directCallerIsFoundation = false
        if let direct = index {
            switch callSite {
            case .firstAppFrame:
                if let image = Images.path(of: stack[direct]), !isAppImage(image),
                    let app = stack[direct...].firstIndex(where: { Images.path(of: $0).map(isAppImage) ?? false })
                {
                    index = app
                }
            case .directCaller:
                directCallerIsFoundation = Images.path(of: stack[direct]).map(foundationImages.contains) ?? false
                index = pastFoundationConveniences(stack, from: direct)
            case .pastForwarding:
                break
            }
        }
        if let found = index, !stack.indices.contains(found) { index = nil }
        let site = index.map { stack[$0] } ?? 0
        let kept = Array(stack.prefix(maxDepth))
        return Location(
            addresses: kept, callerIndex: index.flatMap { kept.indices.contains($0) ? $0 : nil },
            callerImage: index.flatMap { Images.path(of: stack[$0]) }, callerAddress: site,
            directCallerIsFoundation: directCallerIsFoundation)
    }

    /// How far from a replacement's entry its body may start when the entry tail-calls it (a `@convention(c)`
    /// closure's thunk jumping to the Swift closure in an optimized build; both are emitted side by side).
    static let tailCalledBodySpan: UInt = 4096

    /// The frame after the one that runs `implementation`. Exact: the unwind tables say which function each return
    /// address lies in (a return address points just past its call: the instruction before it is looked up), so the
    /// replacement's frame is the innermost one whose function starts at `implementation`, or at a function the entry
    /// reaches by tail jumps (`Images.tailCallTargets`: an optimized `@convention(c)` thunk jumps to its body, or to
    /// a merged thunk that jumps to it, and the body's frame takes the thunk's place). Failing that, the frame whose
    /// function starts nearest the entry, within `tailCalledBodySpan`, is the body's; failing both, the first frame
    /// outside CrashShield's own exported symbols.
    static func callerIndex(in addresses: [UInt], implementation: UnsafeRawPointer?) -> Int? {
        if let implementation {
            let entry = csr_strip_code_pointer(implementation)
            let starts = addresses.lazy.map { $0 > 0 ? Images.function(containing: $0 - 1) : 0 }
            let bodies = Images.tailCallTargets(of: entry)
            let body =
                starts.firstIndex(of: entry) ?? starts.firstIndex(where: bodies.contains)
                ?? starts.indices
                .filter { starts[$0] != 0 && distance(starts[$0], entry) < tailCalledBodySpan }
                .min { distance(starts[$0], entry) < distance(starts[$1], entry) }
            if var caller = body.map({ $0 + 1 }), caller < addresses.count {
                while caller + 1 < addresses.count && isHandOverFrame(addresses[caller]) { caller += 1 }
                return caller
            }
        }
        for (index, address) in addresses.enumerated().dropFirst() {
            var info = CSRImageInfo()
            guard csr_image_info(UnsafeRawPointer(bitPattern: address), &info), let symbol = info.symbolName else {
                continue
            }
            let name = String(cString: symbol)
            if !name.contains("CrashShield") && !name.hasPrefix("csr_") && !name.contains("backtrace") { return index }
        }
        return nil
    }

    private static func distance(_ a: UInt, _ b: UInt) -> UInt { a > b ? a - b : b - a }

    /// Whether the frame of the return address `address` runs a check-first or answer-first trampoline
    /// (CSRCheckFirst.h) or a main-thread trampoline of the rect shape (CSRMainThread.h): not a call site but
    /// CrashShield's own hand-over, which keeps a frame where it was not compiled as a tail call (or where it calls
    /// the original).
    private static func isHandOverFrame(_ address: UInt) -> Bool {
        guard address > 0 else { return false }
        let start = Images.function(containing: address - 1)
        return csr_check_first_is_trampoline(start) || csr_main_is_trampoline(start)
    }

    /// The frame that called into Foundation when `direct` (a replacement's caller) is Foundation's own code a few
    /// frames deep: `+[NSArray arrayWithObjects:count:]` calling the hooked `-initWithObjects:count:`, NSString's
    /// `-substringFromIndex:` calling `-substringWithRange:`. The app made that call, so it is the call site (and
    /// decides whether debug mode fails loudly). `direct` itself when it is not Foundation's, or when Foundation's
    /// frames go on for longer than a convenience method would (a run loop, a notification delivery).
    static func pastFoundationConveniences(_ addresses: [UInt], from direct: Int, maxFrames: Int = 4) -> Int {
        var index = direct
        while addresses.indices.contains(index), let image = Images.path(of: addresses[index]),
            foundationImages.contains(image)
        {
            index += 1
            if index - direct > maxFrames { return direct }
        }
        return addresses.indices.contains(index) ? index : direct
    }

    /// The images that define Foundation's value classes (libgnustep-base here; Foundation and CoreFoundation on
    /// Apple platforms), found from the classes themselves.
    static let foundationImages: Set<String> = {
        var images = Set<String>()
        for name in [
            "NSString", "NSArray", "NSDictionary", "NSSet", "NSAttributedString", "NSNumber",
            "NSOrderedSet",
        ] {
            guard let cls = ObjCClass(named: name) else { continue }
            var info = CSRImageInfo()
            if csr_image_info(UnsafeRawPointer(cls.pointer), &info), let path = info.imagePath {
                images.insert(String(cString: path))
            }
        }
        return images.filter { !AppImages.isAppImage($0) }
    }()

    /// Frames of the forwarding trampoline: GNUstep's callback runs in a libffi closure; Apple's `___forwarding___`
    /// and `_CF_forwarding_prep` live in CoreFoundation.
    private static let trampolineImages = ["libffi", "CoreFoundation"]

    /// The frame that sent a forwarded message: the one after the last trampoline frame within a few frames of
    /// `first` (the forwarding method's caller); `first` when there is no trampoline.
    static func senderIndex(in addresses: [UInt], after first: Int) -> Int {
        var last: Int?
        for index in first..<min(addresses.count, first + 8) {
            guard let image = Images.path(of: addresses[index]) else { continue }
            if trampolineImages.contains(where: { image.contains($0) }) { last = index }
        }
        guard let last, last + 1 < addresses.count else { return first }
        return last + 1
    }

    static func frame(for address: UInt) -> StackFrame {
        var info = CSRImageInfo()
        guard csr_image_info(UnsafeRawPointer(bitPattern: address), &info), let path = info.imagePath else {
            return StackFrame(address: UInt64(address), image: "?", imageBase: 0)
        }
        var uuid: String?
        if info.hasUUID {
            uuid = withUnsafeBytes(of: info.uuid) { bytes in
                bytes.map { byte in
                    let hex = String(byte, radix: 16, uppercase: true)
                    return hex.count == 1 ? "0" + hex : hex
                }.joined()
            }
        }
        let slide: Int64? = info.hasSlide ? Int64(info.slide) : nil
        return StackFrame(
            address: UInt64(address), image: String(cString: path), imageBase: UInt64(info.imageBase),
            symbol: info.symbolName.map { String(cString: $0) }, imageUUID: uuid, slide: slide)
    }

    static func currentThread() -> ThreadInfo {
        var buffer = [CChar](repeating: 0, count: 64)
        csr_thread_name(&buffer, buffer.count)
        return ThreadInfo(id: csr_thread_id(), name: String(cString: buffer), isMain: csr_thread_isMain())
    }
}

extension CallStack {
    /// The function that made a bad call, as the code before its return address shows it.
    struct Caller: Equatable {
        /// Start of that function (0: unknown).
        var function: UInt
        /// false: `function` is the function the frame lies in, and the call there went to a function that may have
        /// made the bad call as a tail call (`via`: the message sent, when the code shows it).
        var isCertain = true
        /// true: `function` made the call as a tail call; the frame is its caller's.
        var madeTailCall = false
        var via: String?
    }

    /// Who made the bad call stopped by `implementation` (`selector` on an instance of `subject`) whose caller's frame
    /// returns to `address`. A tail call leaves no frame of the function that made it: the return address is then
    /// its caller's, and the call instruction before it says where that call went (`csr_call_before`):
    /// - a message of `selector` (or of a selector that Foundation's own class of `subject` implements, which reached
    ///   the hook inside Foundation), or a direct call of the replacement: the frame's function made the call;
    /// - a direct call of another function, whose frame is missing: that function made it by a tail call (x86_64
    ///   `jmp`, arm64 `b`; on Apple the tail call of a message is a `b` to `objc_msgSend`), unless it reaches other
    ///   functions by direct jumps too (then it is not certain which);
    /// - a message of another selector (a method that tail-called), an indirect call, or code not recognized: not
    ///   certain; `via` names the message when the code shows it.
    static func caller(
        returningTo address: UInt, implementation: UnsafeRawPointer?, selector: String, subject: ObjCClass?
    ) -> Caller {
        let frameFunction = address > 0 ? Images.function(containing: address - 1) : 0
        let uncertain = Caller(function: frameFunction, isCertain: false)
        var call = CSRCallBefore()
        guard frameFunction != 0, csr_call_before(UnsafeRawPointer(bitPattern: address), &call) else {
            return uncertain
        }
        if call.isMessageSend {
            guard let sent = call.selector, let raw = csr_sel_getName(sent) else { return uncertain }
            let name = String(cString: raw)
            if name == selector { return Caller(function: frameFunction) }
            // Foundation's own method of that name on the receiver's class called the hooked one (array[i] sends
            // objectAtIndexedSubscript:, which sends objectAtIndex:): the app called Foundation, from this frame.
            if let owner = subject?.owner(of: ObjCSelector(name)), let image = owner.imagePath,
                foundationImages.contains(image)
            {
                return Caller(function: frameFunction)
            }
            return Caller(function: frameFunction, isCertain: false, via: name)
        }
        guard call.kind == CSRCallDirect, let target = call.target.map({ UInt(bitPattern: $0) }) else {
            return uncertain
        }
        if let implementation {
            let entry = csr_strip_code_pointer(implementation)
            if target == entry || Images.tailCallTargets(of: entry).contains(target) {
                return Caller(function: frameFunction)
            }
        }
        // A Foundation convenience that tail-called the hooked method: the app's call is this frame's.
        if let image = Images.path(of: target), foundationImages.contains(image) {
            return Caller(function: frameFunction)
        }
        return Caller(function: target, isCertain: Images.tailCallTargets(of: target).isEmpty, madeTailCall: true)
    }
}

/// Which binary image an address belongs to, remembered per address: a storm of stopped calls from one call site
/// asks the loader once.
enum Images {
    private static let cache = Locked([UInt: String]())
    private static let functions = Locked([UInt: UInt]())
    private static let maxEntries = 8192

    /// Start of the function that contains the instruction at `address` (0 when unknown), from the unwind tables.
    static func function(containing address: UInt) -> UInt {
        if let known = functions.withLock({ $0[address] }) { return known }
        let start = UInt(bitPattern: csr_enclosing_function(UnsafeRawPointer(bitPattern: address)))
        functions.withLock { if $0.count < maxEntries { $0[address] = start } }
        return start
    }

    private static let tailTargets = Locked([UInt: [UInt]]())

    /// The functions a replacement's entry reaches by direct tail jumps (CSRCallStack.h), once per entry.
    static func tailCallTargets(of entry: UInt) -> [UInt] {
        if let known = tailTargets.withLock({ $0[entry] }) { return known }
        var found = [UnsafeRawPointer?](repeating: nil, count: 8)
        let count = Int(
            found.withUnsafeMutableBufferPointer {
                csr_tail_call_targets(UnsafeRawPointer(bitPattern: entry), $0.baseAddress, Int32($0.count))
            })
        let targets = found.prefix(count).map { UInt(bitPattern: $0) }
        tailTargets.withLock { if $0.count < maxEntries { $0[entry] = targets } }
        return targets
    }

    static func path(of address: UInt) -> String? {
        if let known = cache.withLock({ $0[address] }) { return known }
        var info = CSRImageInfo()
        guard csr_image_info(UnsafeRawPointer(bitPattern: address), &info), let path = info.imagePath else {
            return nil
        }
        let image = String(cString: path)
        cache.withLock { if $0.count < maxEntries { $0[address] = image } }
        return image
    }
}
