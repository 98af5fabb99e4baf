// CrashShieldRuntime: the thin Objective-C/C layer under CrashShield.
#ifndef CRASH_SHIELD_RUNTIME_H
#define CRASH_SHIELD_RUNTIME_H
#include "CSRTypes.h"
#include "CSRRuntime.h"
#include "CSRException.h"
#include "CSRCallStack.h"
#include "CSRObjects.h"
#include "CSRHookTable.h"
#include "CSRHotReads.h"
#include "CSRCheckFirst.h"
#include "CSRVariadic.h"
#include "CSRObservation.h"
#include "CSRForwarding.h"
#include "CSRPassThrough.h"
#include "CSRDeallocHook.h"
#include "CSRUIKit.h"
#include "CSRLifetime.h"
#include "CSRNotification.h"
#include "CSRGzip.h"
#include "CrashShield.h"
#endif
