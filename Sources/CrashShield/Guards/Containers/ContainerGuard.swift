/// Stops out-of-range and nil arguments to NSArray, NSDictionary, NSSet, NSOrderedSet and their mutable forms.
///
/// Recovery semantics (the same for every container):
/// - a read that would raise returns nil (an object), 0 / NSNotFound (an index is never invented: nil), or an
///   empty collection (a range read);
/// - an invalid mutation is skipped entirely: the container is left exactly as it was;
/// - a constructor given nil objects or keys builds the container from the valid ones (a nil pair is dropped).
/// Preconditions are checked before the original runs (no @try on the hot path) and are exactly Foundation's:
/// whatever Foundation accepts reaches Foundation unchanged. Where GNUstep and Apple differ, each platform's own
/// precondition applies: GNUstep cuts ordered-set indexes to 32 bits (`o[2^32]` is `o[0]`), inserts through a nil
/// index set and removes nothing for one; Apple raises for all three. The differential test tries count, count + 1,
/// 2^32 and above and NSNotFound on every indexed method against the real Foundation (`ContainerGuardTests`).
enum ContainerGuard {
    static func install(in context: GuardContext) throws {
        try ArrayHooks.install(in: context)
        try DictionaryHooks.install(in: context)
        try SetHooks.install(in: context)
        try OrderedSetHooks.install(in: context)
        try RangeSearchHooks.install(in: context)
        try CacheHooks.install(in: context)
        try DataHooks.install(in: context)
        try ObjectsAndKeysHooks.install(in: context)
        try UserDefaultsHooks.install(in: context)
        try Base64Hooks.install(in: context)
        try NumberHooks.install(in: context)
        try ArrayIndexSetHooks.install(in: context)
        try FileURLHooks.install(in: context)
        try DateHooks.install(in: context)
        try JSONHooks.install(in: context)
        try URLHooks.install(in: context)
        try FileManagerHooks.install(in: context)
        try KeyedUnarchiverHooks.install(in: context)
        try FileHandleHooks.install(in: context)
    }

}

extension GuardDeclaration {
    /// No state.
    static let container = GuardDeclaration(.container, install: ContainerGuard.install)
}
