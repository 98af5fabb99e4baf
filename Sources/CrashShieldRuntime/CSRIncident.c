// CSRIncident.c: the one channel to Swift's incident path (see CSRIncident.h).
#include "CSRIncident.h"

static CSRIncidentHandler csr_incident_handler;

void csr_incident_set_handler(CSRIncidentHandler handler) {
    __atomic_store_n(&csr_incident_handler, handler, __ATOMIC_RELEASE);
}

bool csr_incident_report(const CSRIncident *incident) {
    CSRIncidentHandler handler = __atomic_load_n(&csr_incident_handler, __ATOMIC_ACQUIRE);
    return handler != NULL && handler(incident);
}
