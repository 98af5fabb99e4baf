import CrashShieldRuntime.Internal

/// The C layer's one channel to the incident path (CSRIncident.h): every C replacement that stopped a call (a hot-read
/// trampoline, a variadic trampoline, a zombie, a dropped WebKit panel handler) hands a `CSRIncident` here; it becomes an `Incident`
/// and `IncidentPath.handle` judges it and carries the verdict out. Registered before any such replacement is
/// installed.
enum IncidentChannel {
    static let registered: Void = csr_incident_set_handler { incident in
        guard let incident else { return false }
        return IncidentChannel.handle(incident.pointee)
    }

    /// true: recover.
    static func handle(_ c: CSRIncident) -> Bool {
        let incident: Incident?
        switch c.source {
        case CSRIncidentHotRead:
            guard let table = c.table, let point = AnyHookPoint.owner(of: table) as? CaughtFailurePolicy else {
                return false
            }
            incident = HotReadResolver.incident(point, c.implementation, c.receiver, UInt(c.argument), c.exception)
        case CSRIncidentVariadic:
            incident = VariadicHookPoint.incident(c.table, c.receiver, c.selector, count: UInt(c.argument))
        case CSRIncidentZombie:
            incident = ZombieGuard.incident(c.receiver, c.selector)
        case CSRIncidentDroppedHandler:
            incident = UIKitGuard.droppedHandler(c.cls, c.selector)
        default:
            incident = nil
        }
        guard let incident else { return false }
        return IncidentPath.handle(incident) == .recover
    }
}
