import CrashShieldRuntime.Internal

/// The C layer's one channel to the incident path (CSRIncident.h): every C replacement that stopped a call (a hot-read
/// trampoline, the raise hook, a variadic trampoline, a zombie) hands a `CSRIncident` here; it becomes an `Incident`
/// and `IncidentPath.handle` judges it and carries the verdict out. Registered before any such replacement is
/// installed.
enum IncidentChannel {
    static let registered: Void = csr_incident_set_handler { incident in
        guard let incident else { return false }
        return IncidentChannel.handle(incident.pointee)
    }

    /// true: recover.
    static func handle(_ c: CSRIncident) -> Bool {
        let frames = CallStack.KnownFrames(own: UInt(c.returnAddress), caller: UInt(c.callerAddress))
        let incident: Incident?
        switch c.source {
        case CSRIncidentHotRead:
            guard let table = c.table, let point = AnyHookPoint.owner(of: table) as? CaughtFailurePolicy else {
                return false
            }
            incident = HotReadResolver.incident(point, c.implementation, c.receiver, UInt(c.argument), c.exception)
        case CSRIncidentRaise:
            incident = RaiseRecovery.incident(
                raisedBy: c.implementation, table: c.hotTable, c.receiver,
                UInt(c.argument), c.exception, frames: frames)
        case CSRIncidentMarker:
            incident = RaiseRecovery.incident(
                markedBy: c.implementation, table: c.hotTable, c.cls, c.receiver,
                UInt(c.argument), c.exception, frames: frames)
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
