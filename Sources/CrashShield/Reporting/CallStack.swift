import CrashShieldRuntime

/// Captures call stacks and finds the frame that made the bad call.
enum CallStack {
    /// Distance past a replacement's start within which a return address counts as inside it.
    private static let implementationSpan: UInt = 16 * 1024

    /// The current thread's stack, innermost first, and the index of the caller of `implementation`.
    /// `throughForwarding`: the replacement is a forwarding method (`forwardInvocation:`), which the runtime's
    /// forwarding trampoline calls: the caller is the frame that sent the message, past the trampoline.
    static func capture(callerOf implementation: UnsafeRawPointer?, maxDepth: Int,
                        throughForwarding: Bool = false) -> (frames: [StackFrame], caller: Int?) {
        var raw = [UnsafeMutableRawPointer?](repeating: nil, count: maxDepth + 8)
        let count = Int(raw.withUnsafeMutableBufferPointer { csr_backtrace($0.baseAddress, Int32($0.count)) })
        let addresses = raw.prefix(count).map { UInt(bitPattern: $0) }
        var caller = callerIndex(in: addresses, implementation: implementation)
        if throughForwarding, let first = caller { caller = senderIndex(in: addresses, after: first) }
        // Drop CrashShield's own frames above the replacement: the report starts at the replacement.
        let start = caller.map { max(0, $0 - 1) } ?? 0
        let kept = addresses[start...].prefix(maxDepth)
        return (kept.map(frame(for:)), caller.map { $0 - start })
    }

    /// The frame after the one that returns into `implementation`; failing that, the first frame outside
    /// CrashShield's own symbols.
    static func callerIndex(in addresses: [UInt], implementation: UnsafeRawPointer?) -> Int? {
        if let implementation {
            let start = UInt(bitPattern: implementation)
            var best: (index: Int, distance: UInt)?
            for (index, address) in addresses.enumerated() where address > start && address - start < implementationSpan {
                if best == nil || address - start < best!.distance { best = (index, address - start) }
            }
            if let best, best.index + 1 < addresses.count { return best.index + 1 }
        }
        for (index, address) in addresses.enumerated().dropFirst() {
            var info = CSRImageInfo()
            guard csr_image_info(UnsafeRawPointer(bitPattern: address), &info), let symbol = info.symbolName else { continue }
            let name = String(cString: symbol)
            if !name.contains("CrashShield") && !name.hasPrefix("csr_") && !name.contains("backtrace") { return index }
        }
        return nil
    }

    /// The frame that called into Foundation when `direct` (a replacement's caller) is Foundation's own code a few
    /// frames deep: `+[NSArray arrayWithObjects:count:]` calling the hooked `-initWithObjects:count:`, NSString's
    /// `-substringFromIndex:` calling `-substringWithRange:`. The app made that call, so it is the call site (and
    /// decides whether debug mode fails loudly). `direct` itself when it is not Foundation's, or when Foundation's
    /// frames go on for longer than a convenience method would (a run loop, a notification delivery).
    static func pastFoundationConveniences(_ frames: [StackFrame], from direct: Int, maxFrames: Int = 4) -> Int {
        var index = direct
        while frames.indices.contains(index), foundationImages.contains(frames[index].image) {
            index += 1
            if index - direct > maxFrames { return direct }
        }
        return frames.indices.contains(index) ? index : direct
    }

    /// The images that define Foundation's value classes (libgnustep-base here; Foundation and CoreFoundation on
    /// Apple platforms), found from the classes themselves.
    static let foundationImages: Set<String> = {
        var images = Set<String>()
        for name in ["NSString", "NSArray", "NSDictionary", "NSSet", "NSAttributedString", "NSNumber",
                     "NSOrderedSet"] {
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
            var info = CSRImageInfo()
            guard csr_image_info(UnsafeRawPointer(bitPattern: addresses[index]), &info), let path = info.imagePath else { continue }
            let image = String(cString: path)
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
            uuid = withUnsafeBytes(of: info.uuid) { bytes in bytes.map { byte in
                let hex = String(byte, radix: 16, uppercase: true)
                return hex.count == 1 ? "0" + hex : hex
            }.joined() }
        }
        #if canImport(Darwin)
        let slide: Int64? = Int64(info.slide)
        #else
        let slide: Int64? = nil
        #endif
        return StackFrame(address: UInt64(address), image: String(cString: path), imageBase: UInt64(info.imageBase),
                          symbol: info.symbolName.map { String(cString: $0) }, imageUUID: uuid, slide: slide)
    }

    static func currentThread() -> ThreadInfo {
        var buffer = [CChar](repeating: 0, count: 64)
        csr_thread_name(&buffer, buffer.count)
        return ThreadInfo(id: csr_thread_id(), name: String(cString: buffer), isMain: csr_thread_isMain())
    }
}
