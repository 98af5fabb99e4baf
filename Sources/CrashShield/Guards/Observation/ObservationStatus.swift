/// What the observation guards hold right now (for tests and diagnostics).
enum ObservationStatus {
    /// Objects observed through the KVO guard's proxies.
    static var kvoObservedObjectCount: Int { KVOProxyRegistry.shared.observedCount }
    /// Registrations made through the KVO guard's proxies (not those it left to Foundation).
    static var kvoRegistrationCount: Int { KVOProxyRegistry.shared.registrationCount }
    /// Observers in the notification guard's ledger (registered while the guard was on, not removed yet).
    static var notificationObserverCount: Int { NotificationObserverRegistry.shared.observerCount }
    /// Timers whose target the timer guard's proxy holds (retained, as the timer would).
    static var timerProxyCount: Int { TimerProxyRegistry.shared.liveProxyCount }
    /// Observers whose deallocation waits for (or, to break a cycle of waits, is held by) a change being delivered to
    /// them on another thread.
    static var kvoObserversBeingDeallocated: Int { KVOProxyRegistry.shared.dyingCount }
}
