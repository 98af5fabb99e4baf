// CSRHotRaise.m: recovery of hot reads at the raise (see CSRHotRaise.h). Mechanics and the running Foundation's
// facts only; every decision is Swift's.
//
// GNUstep: GCC's libobjc has no exception preprocessor (objc_exception_throw goes straight to _Unwind_RaiseException
// and calls its uncaught handler only after the search failed), and NSException.m has no raise callback; every
// exception Foundation raises for a bad index goes through `-[NSException raise]`, so that is the hook. It misses a
// bare `@throw` and an NSException subclass's own `-raise` that does not call super: neither is on the path of the
// implementations protected here (GSArray raises through `-_raiseRangeExceptionWithIndex:from:`, which sends
// `-raise`).
//
// Apple: objc4's objc_exception_throw calls the preprocessor (objc_setExceptionPreprocessor) only after
// `__cxa_allocate_exception`, so resuming from it leaks that allocation on every stopped call, and CoreFoundation's
// index exceptions name neither the receiver nor (for strings) the index: no implementation is eligible there
// (Docs/AppleRuntime.md), the trampolines stay.
#import <Foundation/Foundation.h>
#include "CSRHotRaise.h"
#include "CSRHotReads.h"
#include "CSRCallStack.h"
#include <pthread.h>
#include "CSRRuntime.h"
#include "../CSRMemory.h"

#include "CSRUnwind.h"
#if CSR_UNWIND_AVAILABLE
#include <dlfcn.h>
#define CSR_HOT_RAISE_AVAILABLE 1
#if defined(__x86_64__)
#define CSR_UNW_RETURN_REGISTER UNW_X86_64_RAX
#else
#define CSR_UNW_RETURN_REGISTER UNW_AARCH64_X0
#endif
#endif

static CSRHotRaiseOriginal csr_hot_raise_original;
#if CSR_HOT_RAISE_AVAILABLE
/// Set once a marker may be installed (`csr_hot_marker_eligible` said yes): the raise hook walks from then on.
static bool csr_hot_markers_used;
#endif

void csr_hot_raise_set_original(CSRHotRaiseOriginal original) {
    __atomic_store_n(&csr_hot_raise_original, original, __ATOMIC_RELEASE);
}

// MARK: Protected implementations (appended under a lock, read without one)

typedef struct CSRHotRaiseEntry {
    uintptr_t start;
    int table;
} CSRHotRaiseEntry;

#define CSR_HOT_RAISE_CAPACITY 32
static CSRHotRaiseEntry csr_hot_raise_entries[CSR_HOT_RAISE_CAPACITY];
static long csr_hot_raise_count;
static pthread_mutex_t csr_hot_raise_lock = PTHREAD_MUTEX_INITIALIZER;

static const CSRHotRaiseEntry *csr_hot_raise_find(uintptr_t start) {
    long published = __atomic_load_n(&csr_hot_raise_count, __ATOMIC_ACQUIRE);
    for (long index = 0; index < published; index++) {
        if (csr_hot_raise_entries[index].start == start) return &csr_hot_raise_entries[index];
    }
    return NULL;
}

bool csr_hot_raise_protect(int tableIndex, CSRIMP implementation) {
    if (implementation == NULL) return false;
    pthread_mutex_lock(&csr_hot_raise_lock);
    uintptr_t start = csr_strip_code_pointer((const void *)implementation);   // compared with the unwinder's start_ip
    bool done = csr_hot_raise_find(start) != NULL;
    if (!done && csr_hot_raise_count < CSR_HOT_RAISE_CAPACITY) {
        csr_hot_raise_entries[csr_hot_raise_count] = (CSRHotRaiseEntry){ start, tableIndex };
        __atomic_store_n(&csr_hot_raise_count, csr_hot_raise_count + 1, __ATOMIC_RELEASE);
        done = true;
    }
    pthread_mutex_unlock(&csr_hot_raise_lock);
    return done;
}

// MARK: What the running Foundation does

#if CSR_HOT_RAISE_AVAILABLE
/// Foundation's exception code between a protected implementation and `-raise`: the frames skipped besides the
/// protected ones. GNUstep 1.28: `+[NSException raise:format:]` and `+raise:format:arguments:` (format the reason,
/// send `-raise`), GSArray's `-_raiseRangeExceptionWithIndex:from:` (builds userInfo and reason, sends `-raise`).
enum { CSRHotRaiseHelperCount = 3 };
static uintptr_t csr_hot_raise_helpers[CSRHotRaiseHelperCount];
/// GSArray, once libunwind is loaded and the helpers are known: nothing is eligible without it.
static Class csr_gs_array;

/// The implementations read in GNUstep 1.28's source, found once, before any of them is hooked:
/// - `characterAtIndex:` of GSCString, GSUnicodeString, GSMutableString and NSConstantString (GSString.m), left
///   unhooked and protected at the raise (`csr_hot_raise_eligible`): each checks the index itself (GSMutableString's
///   through the inline `characterAtIndex_c`/`_u`) and sends `+raise:format:` directly, for nothing else; their
///   subclasses (inline, buffer and substring forms) keep them. The other owners (NSString's abstract one,
///   GSImmutableString's and the attributed-string tracker's, which ask another string, GSUTextString's, the
///   placeholder's) keep the `@try` trampoline.
/// The ones markers may call (`csr_hot_marker_eligible`):
/// - NSArray's `objectAtIndexedSubscript:` (NSArray.m): it jumps into the receiver's `objectAtIndex:`. For GSArray and
///   its subclasses that raises through `-_raiseRangeExceptionWithIndex:from:`; an `objectAtIndex:` with a trampoline
///   catches itself (its handler stops the walk); any other (an app's subclass) is walked through when its frames
///   have nothing to run (`csr_hot_marker_recover_subscript`).
/// - GSMutableString's `replaceCharactersInRange:withString:` (GSString.m): its first statement is `GS_RANGE_CHECK`,
///   which sends `+raise:format:` with NSRangeException before anything is changed; nothing else in its own frame
///   raises NSRangeException (its inline helpers assert, or raise other names; the argument's methods raise in frames
///   of their own). So an NSRangeException raised from its frame is the range check's, and the receiver is untouched.
///   The other owners (NSMutableString's abstract one, the attributed strings') keep the check-first trampoline.
/// - `getCharacters:range:` of GSCString, GSUnicodeString and GSMutableString (GSString.m), for the same reason: each
///   starts with `GS_RANGE_CHECK` before it writes to the buffer, then copies (`getCharacters_c`, whose own failure
///   is an NSInternalInconsistencyException, or `memcpy`). So an NSRangeException raised from one of their frames is
///   the range check's, and the buffer is untouched. The other owners (the constant strings', which walk and write
///   before they raise, NSString's generic one, the placeholder's) keep the check-first trampoline.
static uintptr_t csr_hot_marker_characters[4], csr_hot_marker_subscript, csr_hot_marker_replace;
static uintptr_t csr_hot_marker_get_characters[3];
/// The classes that own `csr_hot_marker_characters`, in the same order.
static uintptr_t csr_hot_marker_character_owners[4];

/// Whether `start` is one of the `getCharacters:range:` originals above.
static bool csr_hot_marker_is_get_characters(uintptr_t start) {
    for (size_t index = 0; index < sizeof csr_hot_marker_get_characters / sizeof *csr_hot_marker_get_characters; index++) {
        if (start != 0 && csr_hot_marker_get_characters[index] == start) return true;
    }
    return false;
}

static void csr_hot_marker_find_originals(void) {
    static const char *const owners[] = { "GSCString", "GSUnicodeString", "GSMutableString", "NSConstantString" };
    for (size_t index = 0; index < sizeof owners / sizeof *owners; index++) {
        Class owner = objc_getClass(owners[index]);
        csr_hot_marker_character_owners[index] = (uintptr_t)(CSR_BRIDGE void *)owner;
        csr_hot_marker_characters[index] = owner == Nil ? 0
            : csr_strip_code_pointer((const void *)class_getMethodImplementation(owner, @selector(characterAtIndex:)));
    }
    csr_hot_marker_subscript = csr_strip_code_pointer(
        (const void *)class_getMethodImplementation([NSArray class], @selector(objectAtIndexedSubscript:)));
    Class mutable = objc_getClass("GSMutableString");
    csr_hot_marker_replace = mutable == Nil ? 0
        : csr_strip_code_pointer((const void *)class_getMethodImplementation(mutable, @selector(replaceCharactersInRange:withString:)));
    static const char *const getters[] = { "GSCString", "GSUnicodeString", "GSMutableString" };
    for (size_t index = 0; index < sizeof getters / sizeof *getters; index++) {
        Class owner = objc_getClass(getters[index]);
        csr_hot_marker_get_characters[index] = owner == Nil ? 0
            : csr_strip_code_pointer((const void *)class_getMethodImplementation(owner, @selector(getCharacters:range:)));
    }
}

/// GCC's personality routines (C, Objective-C, C++: those loaded). Each reads its function's LSDA in the format
/// `csr_lsda_call_site_runs_nothing` reads, and for a call site without a landing pad does nothing: it tells the
/// unwinder to go on to the next frame.
static uintptr_t csr_gcc_personalities[3];

static void csr_hot_raise_find_personalities(void) {
    static const char *const names[] = { "__gcc_personality_v0", "__gnu_objc_personality_v0", "__gxx_personality_v0" };
    for (size_t index = 0; index < sizeof names / sizeof *names; index++) {
        csr_gcc_personalities[index] = (uintptr_t)dlsym(RTLD_DEFAULT, names[index]);
    }
}

static bool csr_is_gcc_personality(uintptr_t handler) {
    for (size_t index = 0; index < sizeof csr_gcc_personalities / sizeof *csr_gcc_personalities; index++) {
        if (handler != 0 && csr_gcc_personalities[index] == handler) return true;
    }
    return false;
}

/// An unsigned LEB128 number at `*cursor` (not past `end`).
static bool csr_read_uleb128(const uint8_t **cursor, const uint8_t *end, uintptr_t *value) {
    uintptr_t result = 0;
    for (unsigned shift = 0; *cursor < end && shift < 64; shift += 7) {
        uint8_t byte = *(*cursor)++;
        result |= (uintptr_t)(byte & 0x7f) << shift;
        if ((byte & 0x80) == 0) {
            *value = result;
            return true;
        }
    }
    return false;
}

/// A call-site table field in DWARF pointer encoding `encoding`: unsigned forms only, no base applied (GCC writes
/// uleb128, older versions udata4); false for any other.
static bool csr_read_call_site_field(const uint8_t **cursor, const uint8_t *end, uint8_t encoding, uintptr_t *value) {
    size_t size;
    switch (encoding) {
        case 0x01: return csr_read_uleb128(cursor, end, value);  // DW_EH_PE_uleb128
        case 0x02: size = 2; break;                               // DW_EH_PE_udata2
        case 0x03: size = 4; break;                               // DW_EH_PE_udata4
        case 0x00: case 0x04: size = 8; break;                    // DW_EH_PE_absptr, DW_EH_PE_udata8
        default: return false;
    }
    if ((size_t)(end - *cursor) < size) return false;
    uintptr_t result = 0;
    for (size_t index = 0; index < size; index++) result |= (uintptr_t)(*cursor)[index] << (8 * index);
    *cursor += size;
    *value = result;
    return true;
}

/// Whether the call at `ip` (the call instruction: a return address less one) of the function starting at `start`
/// has no landing pad in the GCC-format LSDA at `lsda`: no cleanup and no handler of that function covers it, so its
/// personality runs nothing there (the unwinder goes on to the caller). false when the table cannot be read or does
/// not list the call (GCC's C++ personality would terminate).
static bool csr_lsda_call_site_runs_nothing(uintptr_t lsda, uintptr_t start, uintptr_t ip) {
    const uint8_t *cursor = (const uint8_t *)lsda;
    if (*cursor++ != 0xff) return false;  // a landing-pad base other than the function's: GCC writes DW_EH_PE_omit
    uint8_t typeEncoding = *cursor++;
    uintptr_t skipped;
    // The type table's offset (its uleb128 cannot run past the table's first bytes).
    if (typeEncoding != 0xff && !csr_read_uleb128(&cursor, cursor + 10, &skipped)) return false;
    uint8_t callSiteEncoding = *cursor++;
    uintptr_t tableLength;
    if (!csr_read_uleb128(&cursor, cursor + 10, &tableLength)) return false;
    const uint8_t *end = cursor + tableLength;
    if (ip < start) return false;
    uintptr_t offset = ip - start;
    while (cursor < end) {
        uintptr_t siteStart, siteLength, landingPad, action;
        if (!csr_read_call_site_field(&cursor, end, callSiteEncoding, &siteStart)
            || !csr_read_call_site_field(&cursor, end, callSiteEncoding, &siteLength)
            || !csr_read_call_site_field(&cursor, end, callSiteEncoding, &landingPad)
            || !csr_read_uleb128(&cursor, end, &action)) return false;
        if (offset < siteStart) return false;  // sorted by address: no entry lists the call
        if (offset - siteStart < siteLength) return landingPad == 0;
    }
    return false;
}

/// Whether the unwinder may skip the frame described by `info` whose call at the return address `ip` is on the
/// stack: nothing runs there when the exception passes. Either the function has no personality and no LSDA (no
/// cleanup, no @finally, no handler anywhere in it), or GCC's personality reads an LSDA that gives that call no
/// landing pad (a function with a cleanup elsewhere, like GNUstep's `GS_BEGINITEMBUF` buffers).
static bool csr_hot_raise_frame_skippable(const unw_proc_info_t *info, unw_word_t ip) {
    if (info->lsda == 0 && info->handler == 0) return true;
    if (info->lsda == 0 || !csr_is_gcc_personality((uintptr_t)info->handler) || ip == 0) return false;
    return csr_lsda_call_site_runs_nothing((uintptr_t)info->lsda, (uintptr_t)info->start_ip, (uintptr_t)ip - 1);
}

static void csr_hot_raise_find_helpers(void) {
    if (!csr_unwind_load()) return;
    Class exception = [NSException class];
    Class exceptionMeta = object_getClass(exception);
    csr_hot_raise_helpers[0] = csr_strip_code_pointer((const void *)class_getMethodImplementation(exceptionMeta, @selector(raise:format:)));
    csr_hot_raise_helpers[1] = csr_strip_code_pointer(
        (const void *)class_getMethodImplementation(exceptionMeta, @selector(raise:format:arguments:)));
    Class array = objc_getClass("GSArray");
    if (array == Nil) return;
    csr_hot_raise_helpers[2] = csr_strip_code_pointer(
        (const void *)class_getMethodImplementation(array, @selector(_raiseRangeExceptionWithIndex:from:)));
    csr_hot_marker_find_originals();
    csr_hot_raise_find_personalities();
    csr_gs_array = array;
}

static void csr_hot_raise_prepare(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, csr_hot_raise_find_helpers);
}

static bool csr_hot_raise_is_helper(uintptr_t start) {
    for (int index = 0; index < CSRHotRaiseHelperCount; index++) {
        if (start != 0 && csr_hot_raise_helpers[index] == start) return true;
    }
    return false;
}

/// Whether the unwinder may skip the frame of the function at `address`: its unwind entry has no personality and
/// no LSDA, so it has no cleanup (no ARC or C++ destructor, no @finally) and no handler to run.
static bool csr_hot_raise_frame_is_plain(uintptr_t address) {
    unw_proc_info_t info;
    if (address == 0 || csr_unw.procInfoByIP(*csr_unw.localAddressSpace, address, &info, NULL) != 0) return false;
    return info.start_ip == address && info.lsda == 0 && info.handler == 0;
}

/// Whether the function at `address` has an unwind entry of its own whose call sites `csr_hot_raise_frame_skippable`
/// can judge at the raise: plain, or with an LSDA of GCC's personality.
static bool csr_hot_raise_frame_is_judged(uintptr_t address) {
    unw_proc_info_t info;
    if (address == 0 || csr_unw.procInfoByIP(*csr_unw.localAddressSpace, address, &info, NULL) != 0) return false;
    if (info.start_ip != address) return false;
    return (info.lsda == 0 && info.handler == 0) || (info.lsda != 0 && csr_is_gcc_personality((uintptr_t)info.handler));
}
#endif

#if CSR_HOT_RAISE_AVAILABLE
/// The class that owns `start` when it is one of GSString.m's own `characterAtIndex:` implementations, else 0.
static uintptr_t csr_hot_marker_character_owner(uintptr_t start) {
    for (size_t index = 0; index < sizeof csr_hot_marker_characters / sizeof *csr_hot_marker_characters; index++) {
        if (start != 0 && csr_hot_marker_characters[index] == start) return csr_hot_marker_character_owners[index];
    }
    return 0;
}
#endif

bool csr_hot_raise_eligible(int tableIndex, CSRIMP implementation) {
#if !CSR_HOT_RAISE_AVAILABLE
    (void)tableIndex; (void)implementation;
    return false;
#else
    // GSArray's `-objectAtIndex:` (GSArray.m: `index >= _count` sends `-_raiseRangeExceptionWithIndex:from:`, whose
    // userInfo names the array and the index), as its subclasses GSInlineArray and GSMutableArray keep it; and
    // GSString.m's own `characterAtIndex:` (below).
    // - `objectAtIndexedSubscript:` (NSArray.m) tail-calls `objectAtIndex:` (a jump, no frame of its own): at the
    //   raise, `array[i]` cannot be told from `objectAtIndex:`, so it keeps a marker to report the app's call.
    // - `characterAtIndex:` raises "Invalid index." / "-characterAtIndex: index out of range": no receiver and no
    //   index in the exception, and the registers that hold them at the raise differ from one implementation to the
    //   next (callee-saved rbp/rbx in GSCString's, r14/r12 in NSConstantString's). NSString's abstract one and the
    //   other owners keep their trampolines.
    csr_hot_raise_prepare();
    if (csr_gs_array == Nil || implementation == NULL) return false;
    if (tableIndex == CSRHotStringCharacterAtIndex || tableIndex == CSRHotStringCharacterAtIndexBase) {
        // GSString.m's own `characterAtIndex:` (`csr_hot_marker_characters`): each raises for a bad index only, so
        // that is what a raise from its frame is; the exception names neither the receiver nor the index, and the
        // report names the class that owns the implementation.
        if (csr_hot_marker_character_owner(csr_strip_code_pointer((const void *)implementation)) == 0) return false;
    } else if (tableIndex != CSRHotArrayObjectAtIndex
               || (IMP)implementation != class_getMethodImplementation(csr_gs_array, @selector(objectAtIndex:))) {
        return false;
    }
    for (int index = 0; index < CSRHotRaiseHelperCount; index++) {
        if (!csr_hot_raise_frame_is_plain(csr_hot_raise_helpers[index])) return false;
    }
    return csr_hot_raise_frame_is_plain(csr_strip_code_pointer((const void *)implementation));
#endif
}


bool csr_hot_marker_eligible(int tableIndex, CSRIMP original) {
#if !CSR_HOT_RAISE_AVAILABLE || !CSR_HOT_MARKERS_AVAILABLE
    (void)tableIndex; (void)original;
    return false;
#else
    csr_hot_raise_prepare();
    if (original == NULL || csr_gs_array == Nil) return false;
    bool known = false;
    if (tableIndex == CSRHotArrayObjectAtIndexedSubscript) {
        known = csr_strip_code_pointer((const void *)original) == csr_hot_marker_subscript;
    } else if (tableIndex == CSRHotMutableStringReplaceCharacters) {
        known = csr_hot_marker_replace != 0 && csr_strip_code_pointer((const void *)original) == csr_hot_marker_replace;
    } else if (tableIndex == CSRHotStringGetCharactersRange) {
        known = csr_hot_marker_is_get_characters(csr_strip_code_pointer((const void *)original));
    }
    if (!known) return false;
    for (int index = 0; index < CSRHotRaiseHelperCount; index++) {
        if (!csr_hot_raise_frame_is_plain(csr_hot_raise_helpers[index])) return false;
    }
    if (!csr_hot_raise_frame_is_judged(csr_strip_code_pointer((const void *)original))) return false;
    __atomic_store_n(&csr_hot_markers_used, true, __ATOMIC_RELEASE);
    return true;
#endif
}

#if CSR_HOT_RAISE_AVAILABLE
/// The receiver and the index the exception names (GSArray's `-_raiseRangeExceptionWithIndex:from:`: userInfo
/// `Array` and `Index`).
static bool csr_hot_raise_subject(CSRObject object, CSRObject *receiver, uintptr_t *argument) {
    id exception = (CSR_BRIDGE id)object;
    if (![exception isKindOfClass: [NSException class]]) return false;
    NSDictionary *info = [exception userInfo];
    if (![info isKindOfClass: [NSDictionary class]]) return false;
    id array = [info objectForKey: @"Array"], index = [info objectForKey: @"Index"];
    if (![array isKindOfClass: [NSArray class]] || ![index isKindOfClass: [NSNumber class]]) return false;
    *receiver = CSR_PASS_BORROWED(array);   // +0, held by the exception's userInfo (the caller holds the exception)
    *argument = (uintptr_t)[index unsignedLongValue];
    return true;
}

/// Whether `object` is an NSException named `name`.
static bool csr_exception_is_named(CSRObject object, NSString *name) {
    id exception = (CSR_BRIDGE id)object;
    return [exception isKindOfClass: [NSException class]] && [[exception name] isEqualToString: name];
}

// MARK: The walk and the resume

/// Frames looked at from the raise hook outwards: Foundation's exception code is two or three frames deep.
#define CSR_HOT_RAISE_MAX_FRAMES 8
/// Frames looked at above the original for a trampoline of the same family (an outer call the app made), and frames
/// of an app's own `objectAtIndex:` looked at for the one `array[i]`'s marker jumped into.
#define CSR_HOT_MARKER_OUTER_FRAMES 4

/// Whether a `@try` trampoline of `family` is among the few frames from the cursor's on: that outer call decides.
static bool csr_hot_raise_outer_trampoline(unw_cursor_t cursor, int family) {
    for (int depth = 0; depth < CSR_HOT_MARKER_OUTER_FRAMES; depth++) {
        unw_proc_info_t info;
        if (csr_unw.procInfo(&cursor, &info) != 0) return false;
        int table = csr_hot_read_trampoline_table((uintptr_t)info.start_ip);
        if (table >= 0 && csr_hot_read_family(table) == family) return true;
        if (csr_unw.step(&cursor) <= 0) return false;
    }
    return false;
}

/// Whether the calling thread's record of a marker of `tableIndex` was made entering the frame whose caller the cursor is
/// at: the replace marker notes the stack pointer at entry (that frame's CFA less the return address),
/// the subscript's marker the return address (the cursor's instruction pointer).
static const CSRHotMarkerRecord *csr_hot_marker_entered(unw_cursor_t *caller, int tableIndex) {
    const CSRHotMarkerRecord *record = csr_hot_marker_record(tableIndex);
    unw_word_t value = 0;
    if (record == NULL) return NULL;
    if (tableIndex == CSRHotArrayObjectAtIndexedSubscript) {
        return csr_unw.getReg(caller, UNW_REG_IP, &value) == 0 && record->returnAddress == value ? record : NULL;
    }
    return csr_unw.getReg(caller, UNW_REG_SP, &value) == 0 && record->stack + sizeof(uintptr_t) == value ? record : NULL;
}

/// Hands a call found at the raise without its receiver's help (a marker's, or an unhooked character original's) to
/// Swift and, on "recover", resumes its caller (the cursor) with 0. `cls`: the class the report names (the record's,
/// or the implementation's owner); `receiver`: the receiver the exception names (alive: it holds it), or NULL. Does
/// not return when Swift chose to recover.
static void csr_hot_marker_recover(unw_cursor_t *cursor, int tableIndex, uintptr_t implementation, uintptr_t cls,
                                  CSRObject receiver, uintptr_t argument, CSRObject exception,
                                  unw_word_t returnAddress, unw_word_t callerAddress) {
    if (csr_hot_raise_outer_trampoline(*cursor, csr_hot_read_family(tableIndex))) return;
    CSRIncident incident = {
        .source = CSRIncidentMarker,
        .hotTable = tableIndex,
        .implementation = (CSRIMP)implementation,
        .cls = (CSRClass)cls,
        .receiver = receiver,
        .argument = argument,
        .exception = exception,
        .returnAddress = (uintptr_t)returnAddress,
        .callerAddress = (uintptr_t)callerAddress,
    };
    if (!csr_incident_report(&incident)) return;
    if (csr_unw.setReg(cursor, CSR_UNW_RETURN_REGISTER, 0) != 0) return;
    csr_unw.resume(cursor);  // returns only when it failed
}

/// `array[i]` of an array whose own `objectAtIndex:` (an app's NSArray subclass, say) raised, possibly from plain
/// functions of its own: the subscript's marker and NSArray's original jumped into it, so its frame is the one the
/// marker's record was made entering, a few frames up. The cursor is at the caller of the first frame past
/// Foundation's exception code (`info`: that frame's unwind entry). Every frame skipped must have nothing to run, as
/// on every path here; any other hot read's frame on the way ends the search (it decides, or already did). The
/// frame must run the `objectAtIndex:` of the class the marker saw, and the exception must be the one that method
/// documents (NSRangeException): with no live receiver to ask, that is what makes it the call's own failure.
static void csr_hot_marker_recover_subscript(unw_cursor_t *cursor, unw_proc_info_t info, unw_word_t returnAddress,
                                            CSRObject exception) {
    for (int depth = 0; depth < CSR_HOT_MARKER_OUTER_FRAMES; depth++) {
        if (csr_hot_read_trampoline_table((uintptr_t)info.start_ip) >= 0) return;
        if (!csr_hot_raise_frame_skippable(&info, returnAddress) || csr_hot_raise_find((uintptr_t)info.start_ip) != NULL)
            return;
        const CSRHotMarkerRecord *record = csr_hot_marker_entered(cursor, CSRHotArrayObjectAtIndexedSubscript);
        if (record != NULL) {
            Class cls = (CSR_BRIDGE Class)(void *)record->cls;
            if (cls == Nil || csr_strip_code_pointer((const void *)class_getMethodImplementation(cls, @selector(objectAtIndex:))) != info.start_ip
                || !csr_exception_is_named(exception, NSRangeException)) return;
            unw_word_t callerAddress = 0;
            if (csr_unw.getReg(cursor, UNW_REG_IP, &callerAddress) != 0) return;
            csr_hot_marker_recover(cursor, CSRHotArrayObjectAtIndexedSubscript, (uintptr_t)info.start_ip, record->cls,
                                  NULL, 0, exception, returnAddress, callerAddress);
            return;
        }
        if (csr_unw.getReg(cursor, UNW_REG_IP, &returnAddress) != 0 || csr_unw.procInfo(cursor, &info) != 0
            || csr_unw.step(cursor) <= 0) return;
    }
}

/// Recovers the failure being raised when it is a protected implementation's own, or a marker's original's: does
/// not return then (the protected frame's caller, or the marker's caller, goes on with 0). Returns when the exception
/// is none of the guard's business, or Swift chose not to recover (debug mode, guard off, class excluded): raise it
/// as usual.
__attribute__((noinline))
static void csr_hot_raise_recover(CSRObject exception) {
    bool markers = __atomic_load_n(&csr_hot_markers_used, __ATOMIC_ACQUIRE);
    if (__atomic_load_n(&csr_hot_raise_count, __ATOMIC_ACQUIRE) == 0 && !markers) return;
    unw_context_t context;
    unw_cursor_t cursor;
    if (csr_unw.getcontext(&context) != 0 || csr_unw.initLocal(&cursor, &context) != 0) return;
    // This function's frame, then the raise hook's.
    if (csr_unw.step(&cursor) <= 0 || csr_unw.step(&cursor) <= 0) return;
    // Foundation's exception code, then the one implementation that raised: none with anything to run.
    unw_proc_info_t info;
    unw_word_t returnAddress = 0, callerAddress = 0;
    for (int depth = 0;; depth++) {
        if (depth == CSR_HOT_RAISE_MAX_FRAMES || csr_unw.procInfo(&cursor, &info) != 0) return;
        if (csr_unw.getReg(&cursor, UNW_REG_IP, &returnAddress) != 0) return;
        // Never skip a frame that has something to run where it is.
        if (!csr_hot_raise_frame_skippable(&info, returnAddress)) return;
        bool helper = csr_hot_raise_is_helper((uintptr_t)info.start_ip);
        if (csr_unw.step(&cursor) <= 0) return;
        if (!helper) break;
    }
    const CSRHotRaiseEntry *protected = csr_hot_raise_find((uintptr_t)info.start_ip);
    uintptr_t raising = (uintptr_t)info.start_ip;
    if (csr_unw.getReg(&cursor, UNW_REG_IP, &callerAddress) != 0) return;
    {
        // A trampoline there (`array[i]` where it keeps one: its original sends `objectAtIndex:`) catches the
        // exception and decides itself: the report names the call the app made.
        unw_proc_info_t caller;
        if (csr_unw.procInfo(&cursor, &caller) == 0 && csr_hot_read_trampoline_table((uintptr_t)caller.start_ip) >= 0)
            return;
    }
    // A character original left unhooked: it raises for a bad index only. The exception names neither the receiver
    // nor the index, so the report names the class that owns the original.
    if (protected != NULL
        && (protected->table == CSRHotStringCharacterAtIndex || protected->table == CSRHotStringCharacterAtIndexBase)) {
        uintptr_t owner = csr_hot_marker_character_owner(raising);
        if (owner == 0) return;
        csr_hot_marker_recover(&cursor, protected->table, raising, owner, NULL, 0, exception, returnAddress,
                              callerAddress);
        return;
    }
    // `replaceCharactersInRange:withString:` entered from its marker, stopped by its range check (the only
    // NSRangeException its own frame raises): nothing was changed, and the record names the class.
    if (markers && csr_hot_marker_replace != 0 && raising == csr_hot_marker_replace) {
        const CSRHotMarkerRecord *record = csr_hot_marker_entered(&cursor, CSRHotMutableStringReplaceCharacters);
        if (record == NULL || !csr_exception_is_named(exception, NSRangeException)) return;
        csr_hot_marker_recover(&cursor, CSRHotMutableStringReplaceCharacters, raising, record->cls, NULL, 0, exception,
                              returnAddress, callerAddress);
        return;
    }
    // `getCharacters:range:` entered from its marker, stopped by its range check, the same way: the buffer untouched.
    if (markers && csr_hot_marker_is_get_characters(raising)) {
        const CSRHotMarkerRecord *record = csr_hot_marker_entered(&cursor, CSRHotStringGetCharactersRange);
        if (record == NULL || !csr_exception_is_named(exception, NSRangeException)) return;
        csr_hot_marker_recover(&cursor, CSRHotStringGetCharactersRange, raising, record->cls, NULL, 0, exception,
                              returnAddress, callerAddress);
        return;
    }
    if (protected == NULL) {
        if (markers) csr_hot_marker_recover_subscript(&cursor, info, returnAddress, exception);
        return;
    }
    CSRObject receiver = NULL;
    uintptr_t argument = 0;
    if (!csr_hot_raise_subject(exception, &receiver, &argument)) return;
    // `array[i]`: its marker and NSArray's original jumped into this `objectAtIndex:` for the same receiver and index.
    const CSRHotMarkerRecord *record = markers ? csr_hot_marker_entered(&cursor, CSRHotArrayObjectAtIndexedSubscript) : NULL;
    if (record != NULL && record->cls == (uintptr_t)object_getClass((CSR_BRIDGE id)receiver)) {
        csr_hot_marker_recover(&cursor, CSRHotArrayObjectAtIndexedSubscript, raising, record->cls, receiver, argument,
                              exception, returnAddress, callerAddress);
        return;
    }
    CSRIncident incident = {
        .source = CSRIncidentRaise,
        .hotTable = protected->table,
        .implementation = (CSRIMP)protected->start,
        .receiver = receiver,
        .argument = argument,
        .exception = exception,
        .returnAddress = (uintptr_t)returnAddress,
        .callerAddress = (uintptr_t)callerAddress,
    };
    if (!csr_incident_report(&incident)) return;
    if (csr_unw.setReg(&cursor, CSR_UNW_RETURN_REGISTER, 0) != 0) return;
    csr_unw.resume(&cursor);  // returns only when it failed
}

/// Replaces `-[NSException raise]`.
static void csr_hot_raise_replacement(id exception, SEL cmd) {
    csr_hot_raise_recover((CSR_BRIDGE CSRObject)exception);
    CSRHotRaiseOriginal original = __atomic_load_n(&csr_hot_raise_original, __ATOMIC_ACQUIRE);
    CSRIMP implementation = original ? original((CSR_BRIDGE CSRObject)exception) : NULL;
    if (implementation != NULL) {
        ((void (*)(id, SEL))implementation)(exception, cmd);
    }
    @throw exception;  // the original never returns; without one, raise it as `-raise` would
}
#endif

bool csr_hot_raise_call_is_skippable(uintptr_t returnAddress) {
#if !CSR_HOT_RAISE_AVAILABLE
    (void)returnAddress;
    return false;
#else
    csr_hot_raise_prepare();
    unw_proc_info_t info;
    if (csr_unw.procInfoByIP == NULL || returnAddress == 0
        || csr_unw.procInfoByIP(*csr_unw.localAddressSpace, returnAddress - 1, &info, NULL) != 0) return false;
    return csr_hot_raise_frame_skippable(&info, returnAddress);
#endif
}

CSRIMP csr_hot_raise_hook(void) {
#if !CSR_HOT_RAISE_AVAILABLE
    return NULL;
#else
    return (CSRIMP)csr_hot_raise_replacement;
#endif
}

CSRClass csr_hot_raise_hook_class(void) {
#if !CSR_HOT_RAISE_AVAILABLE
    return NULL;
#else
    return (CSR_BRIDGE CSRClass)[NSException class];
#endif
}
