// CrashShieldScenarios: the scenario catalog. Each scenario is real app code that crashes without CrashShield.
#ifndef CRASH_SHIELD_SCENARIOS_H
#define CRASH_SHIELD_SCENARIOS_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One crashing call, and what CrashShield must make of it.
typedef struct CSSScenario {
    /// Unique, dotted: "array.objectAtIndex.beyondEnd".
    const char *name;
    /// Guard category name that must report it ("container").
    const char *category;
    /// Selector the report names.
    const char *selector;
    /// Exception the report names (and the unprotected run raises), or a signal name ("SIGSEGV").
    const char *exception;
    /// What the caller must get under protection, as `run` describes it ("nil", "count=2").
    const char *expectedResult;
    /// How many distinct reports the protected run must produce (usually 1).
    int expectedReports;
    /// Runs the bad call inside an autorelease pool; returns a description of what the caller got
    /// (a static string or one that lives until the pool drains).
    const char *(*run)(void);
    /// True when the platform's own message is undefined (GNUstep builds it from uninitialized memory): the matrix
    /// then checks everything but the reason text. Omitted (false) in almost every row.
    bool reasonIsUndefined;
} CSSScenario;

/// Makes an uncaught Objective-C exception end the process the way iOS does: print it, then abort (SIGABRT).
/// `marker` is printed first on the line so a parent process (the crash matrix) can find it.
void css_install_uncaught_exception_abort(const char *marker);

/// Every scenario, in catalog order.
const CSSScenario *css_scenarios(int *count);

/// The calls only Apple's Foundation raises for (in `css_scenarios` on Apple only), and Apple's reason for each
/// (Docs/AppleRuntime.md §13 cites each; NULL past the end). GNUstep's tests run them under Apple's rules, emulated.
const CSSScenario *css_apple_only_scenarios(int *count);
const char *css_apple_only_reason(int scenario);
/// Valid calls of the methods those scenarios misuse, as one text (identical with and without CrashShield, under
/// either rules). Call inside a pool.
const char *css_valid_apple_only_calls(void);
/// `[cache setObject:nil forKey:nil]` (`...cost:1` when `withCost`): Apple's NSCache returns for a nil key before it
/// looks at the object; GNUstep's raises (its map table refuses nil).
void css_cache_set_nil_object_for_nil_key(bool withCost);

/// Calls both Foundations take whose guard takes Apple's branch under Apple's rules (`FoundationRules`, chosen at run
/// time): GNUstep's answer without CrashShield, Apple's precondition with it. `[orderedSet(a) objectAtIndex:2^32]`
/// (GNUstep cuts the index to 32 bits: "a"); `[orderedSet(a,b) insertObject:x atIndex:5]` (GNUstep appends);
/// `[NSMutableSet setWithObjects:{a, nil, b} count:3]` (GNUstep drops the nil); `[NSObject setValue:x forKey:nil]`
/// (GNUstep goes on to `setValue:forUndefinedKey:`); `[attributed(ab) attributesAtIndex:2 effectiveRange:]` (GNUstep
/// answers up to the length).
const char *css_ordered_set_read_at_2_32(void);
const char *css_ordered_set_insert_past_count(void);
const char *css_mutable_set_with_nil(void);
const char *css_set_value_for_nil_key(void);
const char *css_attributes_at_length(void);

/// The variadic rows Apple raises for (CSSVariadicScenarios.m: `+stringWithFormat:nil`, `appendFormat:nil`, a nil key
/// in an objects-and-keys list, NSUserDefaults with a nil key), and Apple's reason for each (unverified on a device;
/// NULL past the end): GNUstep's tests run them under Apple's rules, emulated.
const CSSScenario *css_variadic_apple_rules_scenarios(int *count);
const char *css_variadic_apple_rules_reason(int scenario);
/// Valid calls of the variadic methods (many formats and arguments, objects-and-keys lists up to 70 pairs) and of
/// NSUserDefaults' setters, as one text (identical with and without CrashShield, under either rules). In a pool.
const char *css_valid_variadic_calls(void);
/// `[[NSUserDefaults standardUserDefaults] setObject: NSNull forKey: @""]`: what it raised ("name: reason"), or
/// "none". GNUstep checks the key before the value. Call inside a pool.
const char *css_defaults_set_null_under_empty_key(void);

/// Valid calls (the differential test): a text describing every result, identical with and without CrashShield.
const char *css_valid_container_calls(void);
/// Valid NSString, NSMutableString and attributed-string calls (legal edge cases included), as one text.
const char *css_valid_string_calls(void);
/// Valid key-value coding calls (dictionaries, classes that handle undefined keys themselves), as one text.
const char *css_valid_kvc_calls(void);
/// `[lenient valueForKey:key]` on a class that overrides valueForUndefinedKey: (answers "lenient:<key>").
const char *css_kvc_lenient_value(const char *key);
/// `[strict valueForKey:key]` on a class whose valueForUndefinedKey: override knows "alias" and calls super for
/// every other key (NSObject's exception, which the guard leaves to that class).
const char *css_kvc_strict_override_value(const char *key);

/// Differential probes: calls that some Foundation accepts and another raises for (indexes of 2^32 and above,
/// NSNotFound, count, count + 1; nil arguments; classes with their own undefined-key handlers). Each is made on a
/// fresh receiver inside @try, guards off and on, and must give the same outcome (or, where Foundation raises, be
/// recovered with the receiver untouched and one report naming Foundation's exception).
int css_probe_count(void);
const char *css_probe_name(int probe);
/// The receiver's count or length (-1: the call takes no index).
long css_probe_size(int probe);
bool css_probe_reason_is_undefined(int probe);
/// Runs probe `probe` with `index`: "result=...\nbefore=...\nafter=...\nraised=NAME: REASON" (raised=none when
/// nothing was raised), or "skipped". Call inside a pool.
const char *css_probe_run(int probe, unsigned long index);

/// Valid messages to classes that handle forwarding themselves (forwardingTargetForSelector:, methodSignature +
/// forwardInvocation:, an NSProxy, +resolveInstanceMethod:), respondsToSelector: and explicit
/// methodSignatureForSelector: answers: a text identical with and without CrashShield. Call inside a pool.
const char *css_valid_messaging_calls(void);
/// Sends an unrecognized NSInteger-returning message `count` times; returns the sum of what the caller got.
long css_messaging_repeat(unsigned long count);
/// Sends the same untyped message (`performSelector:` of a selector made from a string) `count` times to an app
/// instance ("instance"), an app class ("class") or NSNull ("null"), each inside @try; returns how many sends
/// returned nil without raising. Call inside a pool.
unsigned long css_messaging_repeat_untyped(const char *receiver, unsigned long count);
/// `count` rounds of three untyped messages no class answers, to an app instance (`cssOwnershipProbe`,
/// `cssOwnershipProbe:` with an object, `cssOwnershipProbe:with:` with two: `performSelector:` and its
/// `withObject:` forms), each round in its own pool and @try; returns how many sends returned nil without raising.
/// GNUstep forwards them only with the receiver's `methodSignatureForSelector:` answer.
unsigned long css_messaging_untyped_shapes(unsigned long count);
/// An optional protocol method (NSInteger) sent to a plain NSObject placeholder delegate: what the caller got, or
/// "raised(<reason>)". Call inside a pool.
const char *css_messaging_placeholder_delegate(void);
/// Around a message a plain NSObject lacks, where nothing may change: respondsToSelector:, methodSignatureForSelector:
/// asked directly, the message sent by Foundation's own code, a class method NSObject lacks. One text; in a pool.
const char *css_messaging_plain_object_calls(void);


// MARK: Test support (hook engine and guard tests). Objects are passed as raw pointers.

/// The classes of objects of the public class `family` (NSArray, NSMutableArray, NSDictionary, NSMutableDictionary,
/// NSSet, NSMutableSet, NSOrderedSet, NSMutableOrderedSet, NSString, NSMutableString, NSAttributedString) made the
/// ways app code makes them: literals, constants, empty and single-object forms, copies, mutable and frozen copies,
/// JSON, path and number strings. Writes up to `max` distinct classes; returns how many.
int css_cluster_form_classes(const char *family, void **out, int max);

/// A new instance of a class-family fixture (CSSClusterFixtures.m; autoreleased, call inside a pool), shaped like
/// Apple's trees: CSSAbstractList (an NSArray subclass implementing `subarrayWithRange:` with Apple's range check and
/// wording), CSSConcreteList (3 objects, overrides it and calls `super`), CSSSiblingList (1 object, inherits it);
/// CSSLiteralArray (2 objects, its own `objectAtIndex:` raising past the end, as clang's constant array literal's
/// class). NULL for an unknown class.
void *css_cluster_fixture_new(const char *className);
/// `[list subarrayWithRange:{location, length}]` from an exported function.
void *css_cluster_call_subarray(void *list, unsigned long location, unsigned long length);
/// How many times CSSConcreteList's override and CSSAbstractList's implementation of `subarrayWithRange:` ran;
/// `reset` sets both counts back to 0.
void css_cluster_list_calls(long *override, long *abstract, bool reset);

/// Calls `walk(frames, max)` from a frame whose saved frame pointer and return address read as the doubles 1.0 and
/// 2.0, what a broken tail call left on the stack (clang's musttail with a rect argument): a stack walk must stop at
/// that frame and never read where it points. The frame is restored before the function returns. x86_64 and arm64;
/// elsewhere it calls `walk` from an intact frame.
int css_test_walk_from_broken_frame(int (*walk)(void **frames, int max), void **frames, int max);

/// Two bad `objectAtIndex:` calls, from `-[CSSGroupingCaller firstList]` and `+[CSSGroupingCaller secondList]`
/// (call inside an autorelease pool): report grouping names Objective-C callers from the runtime. Returns 0.
int css_test_grouping_calls(void);

/// Apple's timer shape: `CSSCFTimer`, an NSTimer subclass whose own initializer sets the timer up without NSTimer's
/// (as Apple's CoreFoundation-backed timer class does). Makes one, unscheduled, with an app-class target and the
/// selector `selector` (which the target may lack), invalidates and releases it; returns whether init returned it.
bool css_test_cf_timer_init(const char *selector);

/// `[object value]` and `[cls classValue]` on the CSSHook test classes (base returns 1 and 10).
long css_test_value(void *object);
long css_test_class_value(const char *className);
/// A two-element NSArray (autoreleased; call inside a pool).
void *css_test_array(void);
/// `[array objectAtIndex:index]` from an exported function, so a report's caller frame has a symbol to check.
void *css_test_call_objectAtIndex(void *array, unsigned long index);
/// An app's own NSArray subclass of two objects (autoreleased; call inside a pool) whose `objectAtIndex:` raises
/// NSRangeException past the end: directly, or (`deep`) from a function of its own.
void *css_test_app_array(bool deep);
/// `array[index]` (`objectAtIndexedSubscript:`) and `[string characterAtIndex:index]` from exported functions, as
/// `css_test_call_objectAtIndex`.
void *css_test_call_subscript(void *array, unsigned long index);
unsigned short css_test_call_characterAtIndex(void *string, unsigned long index);
/// NSArray's `objectAtIndexedSubscript:` as installed now, called with a nil receiver (what a kept implementation
/// called on nil does): NSArray's own answers nil.
void *css_test_call_subscript_implementation_on_nil(void);
/// A mutable copy of `text` (autoreleased; call inside a pool), and its characters as a C string in `out` (up to
/// `size` bytes).
void *css_test_mutable_string(const char *text);
void css_test_string_text(void *string, char *out, unsigned long size);
/// `[string replaceCharactersInRange:{location, length} withString:replacement]` from an exported function; through
/// `implementation` (kept from before a hook) in the second form.
void css_test_call_replace(void *string, unsigned long location, unsigned long length, void *replacement);
void css_test_call_replace_implementation(const void *implementation, void *string, unsigned long location,
                                          unsigned long length, void *replacement);
/// An app's NSString subclass whose `length` raises NSRangeException (autoreleased): an exception a mutation meets
/// inside its own work, after its range check passed.
void *css_test_string_raising_in_length(void);
/// The NSString class object, which GNUstep's mutable strings refuse as a replacement ("replace characters with
/// non-string", NSInvalidArgumentException from the method's own frame).
void *css_test_string_class(void);
/// `[object methodSignatureForSelector:sel_registerName(selector)]` (a class: its class side) written into `out` as
/// its return and argument types ("v@:@"), or "nil".
void css_test_signature_text(void *object, const char *selector, char *out, unsigned long size);
/// The same for an NSMethodSignature (NULL: "nil").
void css_test_signature_object_text(void *signature, char *out, unsigned long size);
/// `pieces` calls of `[text appendFormat:@"%lu:%@|%s|%@|%5.2f;", ...]` with a 1 KB string argument on one mutable
/// string (about 1.06 KB each), inside a pool of its own; copies the text into `out` and returns its length.
unsigned long css_test_append_format_long(unsigned long pieces, char *out, unsigned long size);
/// Strings of GNUstep's classes with their own `characterAtIndex:` (autoreleased; call inside a pool): a constant, a
/// C string, a Unicode string, a mutable string, a substring and an inline (`stringWithFormat:`) string, each of 3
/// characters. Writes up to `max`; returns how many.
int css_test_strings(void **out, int max);
/// Makes `count` calls alternating valid and out-of-range `objectAtIndex:` on several array classes, each inside
/// @try (CrashShield may be on or off meanwhile); returns how many valid calls returned the right object.
unsigned long css_test_mixed_calls(unsigned long count);
/// Makes `count` out-of-range `objectAtIndex:` calls in a loop (a crash storm); returns how many got nil.
unsigned long css_test_storm_objectAtIndex(unsigned long count);
/// The same with `characterAtIndex:` of a two-character C string; returns how many got 0.
unsigned long css_test_storm_characterAtIndex(unsigned long count);
/// The bad calls of `css_test_objects_left_in_pool`: `removeObjectAtIndex:` past the end, `valueForKey:` of an
/// unknown key on an NSObject, the same on an object whose class answers `valueForUndefinedKey:` itself (what
/// Foundation leaves without any guard), `setObject:nil forKey:`.
typedef enum { CSSPooledRemoveAtIndex, CSSPooledUnknownKey, CSSPooledAnsweredKey, CSSPooledNilValue } CSSPooledCall;
/// Makes `count` calls of `call` in a loop inside a fresh autorelease pool and returns how many objects they left in
/// it (GNUstep's `-[NSAutoreleasePool autoreleaseCount]`); ULONG_MAX where a pool cannot count (Apple).
unsigned long css_test_objects_left_in_pool(CSSPooledCall call, unsigned long count);
/// `addObject:nil` on a mutable array, `times` times, each caught: from this function (app code), or made by
/// Foundation's NSInvocation (a system caller). Return how many raised.
unsigned long css_test_add_nil_direct(unsigned long times);
unsigned long css_test_add_nil_through_invocation(unsigned long times);
/// One uncaught bad call (`objectAtIndex:5` of a two-object array), in its own autorelease pool; its result (nil when
/// recovered; compare it with nil only, the pool is drained).
void *css_test_bad_call(void);
/// `setString:` given an NSNumber (Foundation's own code then messages the number); the string afterwards.
const char *css_test_set_string_to_number(bool *raised);

// MARK: Test support: objects created and released from Objective-C

/// A new object of the class named `className` (`[[cls alloc] init]`), owned by the caller (+1). NULL for an
/// unknown class. Tracked classes: CSSTrackedObject, CSSTrackedChild (its subclass), CSSInheritingObject (inherits
/// -dealloc from NSObject), CSSUnwatchedObject, CSSNestBase, CSSNestDerived (its subclass), CSSReuseObject,
/// CSSConcurrentObject, CSSObservedObject, CSSObservedLateObject.
void *css_object_new(const char *className);
/// Releases an object `css_object_new` returned.
void css_object_release(void *object);
/// How many times the tracked class's own -dealloc ran (-1 for a class that does not count).
long css_dealloc_count(const char *className);
/// Creates and registers `name` as a subclass of `superclassName` at run time, as KVO does. true if it exists now.
bool css_make_subclass(const char *superclassName, const char *name);
/// Creates an NSObject subclass `name` that answers `count` (3, or 10 when `countsTen`) and `objectAtIndex:` with
/// implementation 0, 1 or 2: implementation k returns k * 100 + index and raises NSRangeException from index 3 on.
bool css_make_indexed_class(const char *name, int implementation, bool countsTen);
/// `[object objectAtIndex:index]` of an indexed object as a number; -1 for nil.
long css_indexed_value(void *object, unsigned long index);
/// Adds a key-value observer for "level" to a CSSObservedObject or CSSObservedLateObject (KVO swaps its class for
/// a subclass made at run time) and changes the value once. Returns the object's class name afterwards.
const char *css_kvo_observe(void *object);
/// Removes the observer `css_kvo_observe` added.
void css_kvo_unobserve(void *object);

// MARK: Test support: key-value observing (CSSObservationScenarios.m). Objects are +1; release with
// css_object_release.

/// A CSSKVOModel (properties `level`, int, and `name`, object).
void *css_kvo_model_new(void);
/// A model of a class of its own whose `level` (set it with css_kvo_set_level) is notified automatically, or manually
/// (`+automaticallyNotifiesObserversForKey:` NO for it).
void *css_kvo_lifetime_model_new(bool manual);
/// An observer that appends "tag|keyPath|context|{change}" to the delivery log for every change it gets.
void *css_kvo_recorder_new(long tag);
/// An observer that does not implement -observeValueForKeyPath:ofObject:change:context:.
void *css_kvo_forgetful_new(void);
void css_kvo_add(void *model, void *observer, const char *keyPath, unsigned long options, unsigned long context);
void css_kvo_remove(void *model, void *observer, const char *keyPath);
void css_kvo_remove_context(void *model, void *observer, const char *keyPath, unsigned long context);
void css_kvo_set_level(void *model, int level);
void css_kvo_set_name(void *model, const char *name);
/// Deliveries logged since the log was last taken.
long css_kvo_deliveries(void);
/// Copies the delivery log into `buffer` and clears it.
void css_kvo_take_log(char *buffer, unsigned long size);
/// Runs a valid observation sequence (every option, several observers and contexts); copies the log into `buffer`.
void css_kvo_valid_sequence(char *buffer, unsigned long size);
/// `[model setName:object]` (any object, e.g. another model: key path "name.level").
void css_kvo_set_name_object(void *model, void *object);
/// A recorder (tag) that observes `level` of `model` (which it retains) and removes itself in its own -dealloc.
void *css_kvo_tidy_observer_new(void *model, long tag);
/// An object with a `level` (set it with css_kvo_set_level) that observes it itself (recording with tag) from its
/// init and removes itself in its -dealloc.
void *css_kvo_self_observer_new(long tag);
/// An NSOperation (a Foundation class: system KVO); `css_kvo_set_priority` sets its `queuePriority`, which it
/// announces by KVO itself.
void *css_kvo_operation_new(void);
void css_kvo_set_priority(void *operation, long priority);
// MARK: Test support: lifetime (zombies, main-thread-only views)

/// `[object value]`, `[object release]`, `[object description]` sent from Objective-C app code (a CSSZombieTarget,
/// made with `css_object_new("CSSZombieTarget")`; it owns a CSSZombiePart and answers value 42).
long css_zombie_send_value(void *object);
void css_zombie_send_release(void *object);
const char *css_zombie_send_description(void *object);
/// Sends `frame` (a struct of four doubles, returned in memory on x86_64) to a CSSZombieTarget; returns the sum of
/// its fields (a live target: 10).
double css_zombie_send_frame(void *object);
/// How many times -[CSSZombieTarget dealloc] and -[CSSZombiePart dealloc] ran.
long css_zombie_target_dealloc_count(void);
long css_zombie_part_dealloc_count(void);

/// Sends `arrayByAddingObject:nil` `times` times to one immutable NSArray, each in a pool of its own; returns how much
/// the array's retain count grew once the pools drained (manual reference counting only; 0 under ARC).
unsigned long css_array_adding_nil_retain_growth(unsigned long times);
/// `[object retainCount]` (manual reference counting only; 0 under ARC).
unsigned long css_object_retain_count(void *object);
/// A new CSSView (+1; release with `css_object_release`): setNeedsLayout, setNeedsDisplay, setNeedsDisplayInRect:,
/// layoutIfNeeded, setNeedsUpdateConstraints and invalidateIntrinsicContentSize count the calls per thread kind and
/// raise NSInternalInconsistencyException off the main thread.
void *css_view_new(void);
/// Calls `selector` on the view `times` times from one call site on a new thread, and waits for the thread. Returns
/// whether the calls raised (the exception, "name: reason", is copied into `exception`).
bool css_view_call_in_background(void *view, const char *selector, unsigned long times, char *exception, size_t size);
/// Calls `selector` on the view from the current thread.
void css_view_call_on_main(void *view, const char *selector);
/// Calls that ran on the main thread (onMain) or elsewhere.
long css_view_calls(void *view, bool onMain);
/// The last rect setNeedsDisplayInRect: got, "{x,y,w,h}" (autoreleased).
const char *css_view_last_rect(void *view);
/// Runs the main run loop until the view ran `calls` calls on the main thread, or `seconds` passed.
bool css_view_wait_for_main_calls(void *view, long calls, double seconds);
/// A new CSSSwizzledView (+1): a CSSView overriding setNeedsLayout (calling super), with a swizzling library's
/// `css_swizzled_setNeedsLayout` (counts, then sends itself the alias).
void *css_swizzled_view_new(void);
/// `method_exchangeImplementations` of CSSSwizzledView's setNeedsLayout and css_swizzled_setNeedsLayout, as a
/// swizzling library does (a second call exchanges them back).
void css_swizzled_view_exchange(void);
/// How many times the swizzling library's method ran.
long css_swizzled_view_swizzle_calls(void);
/// A new CSSDyingView (+1): a CSSView whose -dealloc sends itself setNeedsLayout (catching what it raises).
void *css_dying_view_new(void);
/// Calls CSSDyingView's -dealloc made that ran there, inside -dealloc (on any thread), since the process started.
long css_dying_view_in_place_calls(void);
/// Releases `object` (`css_object_release`) on a new thread, and waits for the thread.
void css_release_in_background(void *object);

// MARK: Test support: notifications and timers (CSSNotificationScenarios.m). Objects are raw pointers; "+1" ones
// are released with css_object_release.

/// Recording observers (+1): each delivery appends "tag|selector|name|object|{userInfo}|thread" to the log
/// (selectors note: and other:). Large: freed memory goes back to the system. Tidy: removes itself from the default
/// center in its -dealloc. Half tidy: removes only its "CSSNote.A" registration in its -dealloc.
void *css_note_recorder_new(long tag);
void *css_note_large_recorder_new(long tag);
void *css_note_tidy_recorder_new(long tag);
void *css_note_half_tidy_recorder_new(long tag);
/// An observer (+1) of a class no other test uses, answering `forgotten:` (logs "tag|forgotten:|name").
void *css_note_forgotten_observer_new(long tag);
/// A private notification center (+1); the default center (not retained).
void *css_note_center_new(void);
void *css_note_default_center(void);
void css_note_add(void *center, void *observer, const char *selector, const char *name, void *object);
void css_note_remove(void *center, void *observer);
void css_note_remove_named(void *center, void *observer, const char *name, void *object);
/// Posts `name` with `object` and, when `key` is given, userInfo {key: value}.
void css_note_post(void *center, const char *name, void *object, const char *key, const char *value);
/// A new NSString (+1); a new dictionary {key: value} (+1); a value of a dictionary; a description.
void *css_note_string_new(const char *text);
void *css_note_dictionary_new(const char *key, const char *value);
const char *css_note_dictionary_value(void *dictionary, const char *key);
const char *css_note_describe(void *object);
long css_note_deliveries_count(void);
/// Copies the delivery log (notifications and timer fires) into `buffer` and clears it.
void css_note_take_log(char *buffer, unsigned long size);
/// Valid use of the default center and a private one: the delivery log (the differential test).
void css_note_valid_sequence(char *buffer, unsigned long size);

/// A thread named `name` that runs its run loop until `css_runloop_thread_stop` (+1; stop releases it).
void *css_runloop_thread_start(const char *name);
void css_runloop_thread_stop(void *thread);
/// Runs the current thread's run loop for `seconds`.
void css_runloop_run(double seconds);
bool css_is_main_thread(void);

/// A timer target (+1) whose -tick: appends "tag|tick:|userInfo|timer|valid|n" to the log; it invalidates the
/// timer after `limit` fires (0: never).
void *css_timer_target_new(long tag, long limit);
long css_timer_target_fires(void *target);
/// `scheduledTimerWithTimeInterval:target:selector:userInfo:repeats:` on the current run loop (not retained).
void *css_timer_schedule(double interval, void *target, const char *selector, const char *userInfo, bool repeats);
/// An owner (+1) that keeps a repeating timer (-tick:) on itself and invalidates it in its own -dealloc (which never
/// runs while the timer retains it); its timer (not retained).
void *css_timer_owner_new(long tag, double interval);
void *css_timer_owner_timer(void *owner);
/// `[timer retain]` (+1): GNUstep frees a scheduled timer once it is invalidated unless someone else keeps it.
void *css_timer_retain(void *timer);
bool css_timer_is_valid(void *timer);
void css_timer_invalidate(void *timer);
/// Valid timers on this thread's run loop, every creation form: the fire log (the differential test).
void css_timer_valid_sequence(char *buffer, unsigned long size);
/// Timers whose target only the timer keeps alive, each firing `fires` times, one after the other: a worker scheduled
/// on itself and released ("1|work:|n|valid", "1|dealloc"); an owner whose timer targets a YYWeakProxy-shaped NSProxy
/// of it, released after `fires` fires ("2|tick:|n|own", "2|owner.dealloc", "2|proxy.dealloc"); a forwarder that
/// lacks the selector and forwards it to a worker ("3|responds=0", "3|work:|n|valid", "3|forwarder.dealloc",
/// "3|dealloc"). The fire log (the differential test).
void css_timer_unowned_target_sequence(long fires, char *buffer, unsigned long size);

// MARK: Test support: third-party code that forwards or observes (CSSThirdPartyShapes.m)

/// Messages (handled and not, typed and untyped) to a class that overrides forwardingTargetForSelector: without
/// calling super and to an NSProxy forwarder: what each gave or raised, as one text. Call inside a pool.
const char *css_third_party_forwarding_calls(void);
/// ReactiveObjC-style subscriptions (one shared observer, a context per subscription) on app models, and
/// AFNetworking-style observers (static contexts) of a Foundation NSOperation and of an app subclass run in place and
/// on a queue; every removal made with its context. `log`: what the observers saw; `removals`: "context" per removal
/// the method made, "fallback" where it raised (GNUstep without CrashShield has no such method).
void css_third_party_kvo_sequence(char *log, unsigned long logSize, char *removals, unsigned long removalsSize);
/// One observer registered twice for one key path of one object with two contexts, changes, two removals by key path.
void css_third_party_kvo_same_key_sequence(char *log, unsigned long logSize);

// MARK: Test support: observers released while a change is being delivered to them (CSSObservationScenarios.m)

/// An observer (`-observeValueForKeyPath:...` logs "enter TAG"; when `blocks`, it then waits for
/// `css_kvo_probe_open_gate`; then it releases its victim, if any, and logs "return TAG"). Its -dealloc logs
/// "dealloc TAG". +1.
void *css_kvo_probe_new(long tag, bool blocks);
/// Gives the probe a reference to `victim` (retained), released by its handler (once). The victim may be the probe
/// itself: the probe then releases itself inside its own handler.
void css_kvo_probe_set_victim(void *probe, void *victim);
/// Closes the gate, clears the event log and the count of handlers entered.
void css_kvo_probe_reset(void);
/// Waits until `count` handlers have been entered since the reset; false after `seconds`.
bool css_kvo_probe_wait_entered(long count, double seconds);
/// Lets every blocked handler (and every later one) go on.
void css_kvo_probe_open_gate(void);
/// Appends `event` to the probes' event log.
void css_kvo_probe_note(const char *event);
/// Copies the event log ("enter 1\nreturn 1\n...") into `buffer`.
void css_kvo_probe_events(char *buffer, unsigned long size);

#include "CSSShapes.h"

#ifdef __cplusplus
}
#endif
/// One of Foundation's parsers (0 to 4) given short pseudo-random bytes made from `seed`: what it answered, described,
/// or "raised <name>: <reason>" (autoreleased).
const char *css_parse_random_bytes(unsigned long seed, int parser);

/// `-[NSFileHandle writeData:]` of the null device's handle given a string (which answers no `-bytes`): an exception
/// that is not NSFileHandleOperationException, raised inside the hooked method (CSSFileHandleScenarios.m).
void css_file_handle_write_string(void);
/// The class name of a handle on a file (GNUstep: GSFileHandle; Apple: NSConcreteFileHandle).
const char *css_file_handle_class_name(void);
#endif
