import Foundation

/// Deliberate bugs, each one a crash without CrashShield. They go through Foundation's Objective-C classes, as code
/// working on JSON, Objective-C APIs or key-value coding does: Swift's own Array and Dictionary trap in Swift, where
/// no Objective-C guard can help (and an NSArray made from a Swift array is Swift's own subclass, which traps too).
enum BadCall: CaseIterable {
    case indexOutOfRange, nilDictionaryValue, undefinedKey, unbalancedObserverRemoval, messageToNSNull

    var title: String {
        switch self {
        case .indexOutOfRange: return "Index out of range (NSArray)"
        case .nilDictionaryValue: return "nil value (NSMutableDictionary)"
        case .undefinedKey: return "Undefined key (KVC)"
        case .unbalancedObserverRemoval: return "Observer removed twice (KVO)"
        case .messageToNSNull: return "JSON null used as a string (NSNull)"
        }
    }

    /// Makes the bad call and says what the app got back (in a release build; a debug build stops at the call).
    func run() -> String {
        switch self {
        case .indexOutOfRange:
            let tags = Self.json(#"["new", "sale"]"#) as! NSArray
            let third = tags.object(at: 2)  // NSRangeException: index 2 beyond bounds [0 .. 1]
            return "tags.object(at: 2) returned \(third)"
        case .nilDictionaryValue:
            let session = NSMutableDictionary()
            let token: String? = nil  // not logged in yet
            // A dynamic call (a plug-in, a script bridge) passes nil where Swift's types would not let it through.
            _ = session.perform(#selector(NSMutableDictionary.setObject(_:forKey:)), with: token, with: "token")
            return "setObject(nil, forKey: \"token\") was skipped: \(session.count) entries"
        case .undefinedKey:
            let profile = Profile()
            // The server renamed a field: NSUnknownKeyException, this class is not key value coding-compliant
            profile.setValuesForKeys(
                Self.json(#"{"nickname": "kim", "avatar_url": "https://example.com/k.png"}"#)
                    as! [String: Any])
            return "the undefined key was skipped; nickname = \(profile.nickname)"
        case .unbalancedObserverRemoval:
            let watcher = NicknameWatcher(profile: Profile())
            watcher.stop()
            watcher.stop()  // NSRangeException: Cannot remove an observer ... because it is not registered
            return "the second removeObserver was skipped"
        case .messageToNSNull:
            let profile = Profile()
            profile.setValuesForKeys(Self.json(#"{"nickname": null}"#) as! [String: Any])  // nickname is NSNull now
            let length = profile.nickname.length  // -[NSNull length]: unrecognized selector sent to instance
            return "profile.nickname.length returned \(length), as a message to nil would"
        }
    }

    /// What a server sent, as JSONSerialization hands it over: NSArray, NSDictionary, NSNull.
    private static func json(_ text: String) -> Any {
        try! JSONSerialization.jsonObject(with: Data(text.utf8))
    }
}

/// A model filled by key-value coding, as Objective-C-era code does.
final class Profile: NSObject {
    @objc dynamic var nickname: NSString = ""
}

/// Observes a profile with KVO. `stop()` called twice (from `viewWillDisappear` and `deinit`, say) removes the
/// observer twice.
final class NicknameWatcher: NSObject {
    let profile: Profile

    init(profile: Profile) {
        self.profile = profile
        super.init()
        profile.addObserver(self, forKeyPath: #keyPath(Profile.nickname), options: [.new], context: nil)
    }

    func stop() {
        profile.removeObserver(self, forKeyPath: #keyPath(Profile.nickname))
    }

    // `nonisolated`: KVO calls it on the thread of the change (and NSObject's is nonisolated).
    nonisolated override func observeValue(
        forKeyPath keyPath: String?, of object: Any?, change: [NSKeyValueChangeKey: Any]?,
        context: UnsafeMutableRawPointer?
    ) {}
}
