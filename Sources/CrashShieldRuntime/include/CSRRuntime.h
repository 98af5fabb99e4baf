// CSRRuntime.h: the platform layer. Every difference between Apple's runtime and GCC's libobjc sits behind these
// functions; nothing above this layer knows which runtime it runs on.
#ifndef CSR_RUNTIME_H
#define CSR_RUNTIME_H

#include "CSRTypes.h"

// The hot-path inlines each runtime answers its own way, in a whole header per runtime (each empty on the other):
// objc4's, what a phone runs, in Apple/CSRRuntimeApple.h; GCC's libobjc's in GNUstep/CSRRuntimeGNUstep.h.
//
//   CSRClass csr_object_getClass(CSRObject object);
//     The class of an object (the metaclass for a class object); NULL for nil.
//   CSRIMP csr_msg_lookup(CSRObject receiver, CSRSelector selector);
//     The implementation a message `selector` sent to `receiver` would run (the forwarding hook when none is found).
//     Call the result with the method's real signature.
//   uintptr_t csr_msg_send_word(CSRObject receiver, CSRSelector selector);
//     `[receiver selector]` for a method that takes no argument and returns a word (NSUInteger, BOOL, an object as a
//     pointer): the runtime's own message send, 0 for nil (the guards' `count` and `length` checks).
#include "Apple/CSRRuntimeApple.h"
#include "GNUstep/CSRRuntimeGNUstep.h"

#ifdef __cplusplus
extern "C" {
#endif

// MARK: Classes

/// The class registered under `name`, or NULL. Does not run `+initialize`.
CSRClass csr_class_lookup(const char *name);
const char *csr_class_getName(CSRClass cls);
CSRClass csr_class_getSuperclass(CSRClass cls);
/// The metaclass of a class (where its class methods live).
CSRClass csr_class_getMetaclass(CSRClass cls);
bool csr_class_isMetaClass(CSRClass cls);
/// YES when `cls` is `ancestor` or inherits from it.
bool csr_class_isKindOf(CSRClass cls, CSRClass ancestor);
size_t csr_class_getInstanceSize(CSRClass cls);
/// Whether an object of `cls` reaches `-dealloc` when its last reference goes: the class keeps NSObject's own
/// `-release`. One with reference counting of its own may free its objects without it: Apple's toll-free-bridged
/// classes (their `-release` is CFRelease's: CF's `_CFRelease` finalizes and frees the object, never sending `-dealloc`
/// nor calling `objc_destructInstance`, CFRuntime.c), a singleton whose `-release` does nothing. No private class
/// name involved; false for a root class of its own (NSProxy) and for NULL.
bool csr_class_releases_through_dealloc(CSRClass cls);
/// Path of the binary image that defines `cls` (NULL when unknown).
const char *csr_class_imagePath(CSRClass cls);
/// The names of the classes defined in the binary image that defines `cls` (Foundation's, for NSString), in a malloc'd
/// array (free it; the names belong to the runtime). `*count` gets how many; NULL when unknown.
const char **csr_copy_class_names_in_image_of(CSRClass cls, unsigned int *count);
/// The names of the classes defined in the binary image at `imagePath` (as `dladdr` and `csr_class_imagePath` name it),
/// in a malloc'd array as above; NULL when it has none or is unknown. Apple reads the image's class list without
/// realizing the rest of the process's classes (objc_copyClassNamesForImage).
const char **csr_copy_class_names_in_image(const char *imagePath, unsigned int *count);
/// The app's own classes, found without realizing any other class of the process, in a malloc'd array (free it; NULL
/// when none); `*count` gets how many. `isAppImage(context, path)` and `isAppClass(context, cls)` say whether a loaded
/// image or a class is the app's (the caller's one answer: `Session`). objc4: the classes each loaded image
/// `isAppImage` accepts lists by name (`objc_copyClassNamesForImage`, which realizes no class), looked up by name
/// (`objc_lookUpClass`); never `objc_getClassList`, which realizes every class of the process first. GCC's libobjc
/// registers every class at load and keeps no class list per image: its class list, each class `isAppClass` accepts.
/// Costs and limits: `UIKitGuard.appClasses`.
CSRClass *csr_copy_app_classes(bool (*isAppImage)(void *context, const char *path),
                               bool (*isAppClass)(void *context, CSRClass cls), void *context, unsigned int *count);

// MARK: Selectors and methods

CSRSelector csr_sel_register(const char *name);
const char *csr_sel_getName(CSRSelector selector);
/// YES when the two selectors name the same method (the GNU runtime keeps several typed selectors per name).
bool csr_sel_isEqual(CSRSelector a, CSRSelector b);

/// YES when `cls` itself (not a superclass) defines `selector`.
bool csr_class_ownsMethod(CSRClass cls, CSRSelector selector);
/// The implementation `cls` answers `selector` with (own or inherited), or NULL when it has none.
CSRIMP csr_class_methodImplementation(CSRClass cls, CSRSelector selector);
/// The implementation a message to an instance of `cls` dispatches to (dispatch table, fast). Unlike
/// `csr_class_methodImplementation` it never returns NULL: a missing method gives the forwarding entry point.
CSRIMP csr_class_dispatchImplementation(CSRClass cls, CSRSelector selector);
/// Type encoding of the method `cls` answers `selector` with (own or inherited), or NULL.
const char *csr_class_methodTypes(CSRClass cls, CSRSelector selector);
/// Replaces the implementation of a method `cls` owns and makes every subclass see it (GCC's libobjc does not
/// refresh inherited dispatch tables by itself). Returns the previous implementation, NULL if `cls` does not own it.
CSRIMP csr_class_replaceOwnMethod(CSRClass cls, CSRSelector selector, CSRIMP implementation);
/// Makes sure `cls` has its own dispatch table (GCC's libobjc shares one among classes never messaged; writing a
/// method implementation into it would change them all). Runs +initialize like a first message: call it outside
/// any lock. `knownSelector`: one the class answers (NULL: the class is known to route unknown selectors itself).
/// No-op on Apple platforms.
void csr_class_installDispatchTable(CSRClass cls, CSRSelector knownSelector);
/// Adds a method to `cls` (which must not own it yet); subclasses see it. NO if the runtime refused.
bool csr_class_addMethod(CSRClass cls, CSRSelector selector, CSRIMP implementation, const char *types);

/// Batches method replacements made on this thread until the matching `csr_runtime_end_batch` (they nest). GCC's
/// libobjc: a replacement reaches the owning class at once and the subclasses that inherit the method at the end of
/// the batch, in one walk of each owner's subclasses for all its replaced methods (a start() replaces about ten
/// methods of NSObject; each walk visits every subclass). Until then an inheriting subclass still calls the
/// implementation it had: the hooks' replacements all tolerate being reached or not while they are installed or
/// reverted. No-op on Apple's runtime (method_setImplementation flushes the method caches itself).
void csr_runtime_begin_batch(void);
void csr_runtime_end_batch(void);
/// Inside a batch: brings the subclasses of every method replaced so far up to date now (for a hook that must
/// reach them before the caller goes on, such as the dealloc watcher's).
void csr_runtime_flush_batch(void);

/// Prepares the runtime for method replacement while other threads send messages. Call once before the first hook.
/// GCC's libobjc frees a class's old dispatch table at once when it believes the process is single-threaded, and it
/// counts only threads it started itself: a message sent meanwhile from any other thread (libdispatch, pthreads)
/// would read freed memory. This registers such threads (`objc_thread_add`), so replaced tables are kept instead
/// (a few kilobytes per replaced table, for the life of the process). Nothing to do on Apple's runtime.
void csr_runtime_prepare_for_hooks(void);

// MARK: Threads

bool csr_thread_isMain(void);
uint64_t csr_thread_id(void);
/// Copies the current thread's name (may be empty) into `buffer`.
void csr_thread_name(char *buffer, size_t size);

#ifdef __cplusplus
}
#endif
#endif
