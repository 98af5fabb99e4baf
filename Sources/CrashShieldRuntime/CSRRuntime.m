// CSRRuntime.m: runtime primitives for both Objective-C runtimes (see CSRRuntime.h).
#define _GNU_SOURCE 1
#import <Foundation/Foundation.h>
#include <objc/runtime.h>
#if !defined(__APPLE__)
#include <objc/thr.h>
#endif
#include <pthread.h>
#include <string.h>
#include <stdlib.h>
#include <dlfcn.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif
#include "CSRRuntime.h"

#if !defined(__APPLE__)
// GCC's libobjc: method_setImplementation refreshes only the dispatch tables of classes that own the method, so
// subclasses that inherit it would keep calling the old implementation; and it finds those owners by walking every
// method of every class in the process (__objc_update_classes_with_methods, libobjc/class.c), under the runtime
// lock. With thousands of classes that walk was most of start() and stop(). CrashShield therefore replaces an
// implementation itself, with the pieces method_setImplementation uses: it writes the method's implementation, then
// updates the dispatch-table entry of the owner and of every subclass that inherits the method, found through the
// runtime's own subclass links (the work is the owner's subtree, not the process's class list).
struct sarray;
extern void sarray_at_put_safe(struct sarray *array, size_t index, void *element);
extern struct sarray *__objc_uninstalled_dtable;
extern objc_mutex_t __objc_runtime_mutex;

/// GCC's libobjc ABI (module-abi-8, stable since GCC 4.6): a selector starts with its dispatch index (`sel_id`; the
/// typed selectors of one name share it); a method is {selector, types, implementation}; a method list is {next,
/// count, methods}; a class structure's word 4 is its flags (0x4: +initialize was sent), words 7 to 10 its method
/// lists, its dispatch table, its first subclass and its next sibling (a metaclass's subclasses are its subclasses'
/// metaclasses).
struct csr_gnu_method {
    SEL name;
    const char *types;
    IMP implementation;
};
struct csr_gnu_method_list {
    struct csr_gnu_method_list *next;
    int count;
    struct csr_gnu_method methods[];
};
enum {
    CSRGnuClassInfo = 4, CSRGnuClassMethods = 7, CSRGnuClassDispatchTable = 8, CSRGnuClassSubclasses = 9,
    CSRGnuClassSibling = 10,
};
static const unsigned long CSRGnuClassInitialized = 0x4;

static size_t csr_gnu_selector_index(SEL selector) { return (size_t)*(void *const *)(const void *)selector; }
static void **csr_gnu_class_word(Class cls, int word) { return (void **)(CSR_BRIDGE void *)cls + word; }

/// The method `cls` itself defines for the selector with dispatch index `index`, or NULL. Under the runtime lock.
static struct csr_gnu_method *csr_gnu_own_method(Class cls, size_t index) {
    for (struct csr_gnu_method_list *list = *(struct csr_gnu_method_list **)csr_gnu_class_word(cls, CSRGnuClassMethods);
         list != NULL; list = list->next) {
        for (int i = 0; i < list->count; i++) {
            SEL name = list->methods[i].name;
            if (name != NULL && csr_gnu_selector_index(name) == index) return &list->methods[i];
        }
    }
    return NULL;
}

/// Whether `cls` was never sent +initialize (then its dispatch table is the shared uninstalled one).
static bool csr_gnu_never_initialized(Class cls) {
    return *(struct sarray **)csr_gnu_class_word(cls, CSRGnuClassDispatchTable) == __objc_uninstalled_dtable
        && (*(unsigned long *)csr_gnu_class_word(cls, CSRGnuClassInfo) & CSRGnuClassInitialized) == 0;
}

/// Writes one entry of `cls`'s dispatch table if the class has its own. Under the runtime lock.
static void csr_gnu_write_table(Class cls, size_t index, IMP implementation) {
    struct sarray *table = *(struct sarray **)csr_gnu_class_word(cls, CSRGnuClassDispatchTable);
    if (table != NULL && table != __objc_uninstalled_dtable) sarray_at_put_safe(table, index, (void *)implementation);
}

/// One replaced method of a class being written into its subclasses' dispatch tables.
typedef struct CSRGnuUpdate {
    size_t index;
    IMP implementation;
} CSRGnuUpdate;
enum { CSRGnuUpdatesPerWalk = 64 };   // one bit each in a walk's mask

/// Writes each update whose bit is set in `mask` into the dispatch table of `cls` and of every subclass below it
/// that inherits the method (a subclass that defines it keeps its own, and so does its subtree). In place, like
/// method_setImplementation: rebuilding the tables instead (libobjc's __objc_update_dispatch_table_for_class, which
/// class_addMethod uses) races with threads that send messages meanwhile (in the start/stop stress test they jumped
/// to garbage about once in twenty runs). A class whose table is not installed yet copies its superclass's when it
/// is first messaged. Under the runtime lock.
///
/// A class never sent +initialize has no table, and neither has any class below it: libobjc installs (or, during
/// +initialize, prepares) a superclass's table before a subclass's, and sends +initialize first; both happen under
/// the runtime lock, which is held here. Such a subtree (most classes of a large app, never messaged yet) is skipped.
static void csr_gnu_update_subtree(Class cls, const CSRGnuUpdate *updates, int count, uint64_t mask) {
    for (int i = 0; i < count; i++) {
        if (mask & (1ull << i)) csr_gnu_write_table(cls, updates[i].index, updates[i].implementation);
    }
    for (Class sub = (CSR_BRIDGE Class)*csr_gnu_class_word(cls, CSRGnuClassSubclasses); sub != Nil;
         sub = (CSR_BRIDGE Class)*csr_gnu_class_word(sub, CSRGnuClassSibling)) {
        if (csr_gnu_never_initialized(sub)) continue;
        uint64_t inherited = mask;
        for (int i = 0; i < count; i++) {
            if ((inherited & (1ull << i)) && csr_gnu_own_method(sub, updates[i].index) != NULL) inherited &= ~(1ull << i);
        }
        if (inherited != 0) csr_gnu_update_subtree(sub, updates, count, inherited);
    }
}

/// Methods replaced on this thread inside a batch (csr_runtime_begin_batch): their owners' subclasses are updated
/// at the end of the batch, one walk per owner for all its methods, instead of one walk per method.
typedef struct CSRGnuPending {
    Class owner;
    size_t index;
} CSRGnuPending;
static _Thread_local struct {
    int depth;
    CSRGnuPending *items;
    size_t count, capacity;
} csr_gnu_batch;

/// Under the runtime lock: one walk below `owner` for up to 64 of its methods, with their current implementations.
static void csr_gnu_update_owner(Class owner, const size_t *indexes, int count) {
    CSRGnuUpdate updates[CSRGnuUpdatesPerWalk];
    int used = 0;
    for (int i = 0; i < count && used < CSRGnuUpdatesPerWalk; i++) {
        struct csr_gnu_method *method = csr_gnu_own_method(owner, indexes[i]);
        if (method != NULL) updates[used++] = (CSRGnuUpdate){ indexes[i], method->implementation };
    }
    if (used > 0) csr_gnu_update_subtree(owner, updates, used, used == 64 ? ~0ull : (1ull << used) - 1);
}

static int csr_gnu_pending_compare(const void *a, const void *b) {
    const CSRGnuPending *x = a, *y = b;
    uintptr_t ox = (uintptr_t)(CSR_BRIDGE void *)x->owner, oy = (uintptr_t)(CSR_BRIDGE void *)y->owner;
    if (ox != oy) return ox < oy ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index ? 1 : 0;
}

/// The batch's walks: pending methods grouped by owner (duplicates dropped), each with the implementation it has now.
static void csr_gnu_flush_batch(void) {
    if (csr_gnu_batch.count == 0) return;
    qsort(csr_gnu_batch.items, csr_gnu_batch.count, sizeof *csr_gnu_batch.items, csr_gnu_pending_compare);
    objc_mutex_lock(__objc_runtime_mutex);
    size_t indexes[CSRGnuUpdatesPerWalk];
    int count = 0;
    for (size_t i = 0; i < csr_gnu_batch.count; i++) {
        CSRGnuPending item = csr_gnu_batch.items[i];
        if (count > 0 && indexes[count - 1] == item.index) continue;
        indexes[count++] = item.index;
        bool last = i + 1 == csr_gnu_batch.count || csr_gnu_batch.items[i + 1].owner != item.owner;
        if (last || count == CSRGnuUpdatesPerWalk) {
            csr_gnu_update_owner(item.owner, indexes, count);
            count = 0;
        }
    }
    objc_mutex_unlock(__objc_runtime_mutex);
    csr_gnu_batch.count = 0;
}

/// Records a replaced method for the end of the batch; false (update now) when out of memory.
static bool csr_gnu_defer(Class owner, size_t index) {
    if (csr_gnu_batch.count == csr_gnu_batch.capacity) {
        size_t capacity = csr_gnu_batch.capacity ? csr_gnu_batch.capacity * 2 : 64;
        CSRGnuPending *items = realloc(csr_gnu_batch.items, capacity * sizeof *items);
        if (items == NULL) return false;
        csr_gnu_batch.items = items;
        csr_gnu_batch.capacity = capacity;
    }
    csr_gnu_batch.items[csr_gnu_batch.count++] = (CSRGnuPending){ owner, index };
    return true;
}

/// method_setImplementation for a method `owner` defines, seen by every class that inherits it (at the end of the
/// batch when one is open on this thread; the owner itself at once).
static IMP csr_gnu_replace_own_method(Class owner, SEL selector, IMP implementation) {
    size_t index = csr_gnu_selector_index(selector);
    objc_mutex_lock(__objc_runtime_mutex);
    struct csr_gnu_method *method = csr_gnu_own_method(owner, index);
    IMP previous = NULL;
    if (method != NULL) {
        previous = method->implementation;
        __atomic_store_n(&method->implementation, implementation, __ATOMIC_RELEASE);
        if (csr_gnu_batch.depth > 0 && csr_gnu_defer(owner, index)) {
            csr_gnu_write_table(owner, index, implementation);
        } else {
            CSRGnuUpdate update = { index, implementation };
            csr_gnu_update_subtree(owner, &update, 1, 1);
        }
    }
    objc_mutex_unlock(__objc_runtime_mutex);
    return previous;
}
#endif

void csr_runtime_begin_batch(void) {
#if !defined(__APPLE__)
    csr_gnu_batch.depth++;
#endif
}

void csr_runtime_end_batch(void) {
#if !defined(__APPLE__)
    if (csr_gnu_batch.depth > 0 && --csr_gnu_batch.depth == 0) csr_gnu_flush_batch();
#endif
}

void csr_runtime_flush_batch(void) {
#if !defined(__APPLE__)
    csr_gnu_flush_batch();
#endif
}

#if !defined(__APPLE__)
void csr_class_installDispatchTable(CSRClass cls, CSRSelector knownSelector) {
    // GCC's libobjc: every class that was never messaged shares one "uninstalled" dispatch table, and
    // method_setImplementation writes the new implementation into the owning class's table: into that shared one,
    // so that every class not messaged yet would answer the selector with it. A lookup installs the class's own
    // table (running +initialize, as the first message would). Look up a selector the class answers: for a class
    // whose +initialize is running on this thread, libobjc loops forever on a selector nothing implements.
    static SEL never;
    if (never == NULL) never = sel_registerName("_csr_installDispatchTable");
    if (cls == NULL) return;
    (void)class_getMethodImplementation((CSR_BRIDGE Class)cls, knownSelector ? (SEL)knownSelector : never);
}
#else
void csr_class_installDispatchTable(CSRClass cls, CSRSelector knownSelector) { (void)cls; (void)knownSelector; }
#endif

void csr_runtime_prepare_for_hooks(void) {
#if !defined(__APPLE__)
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, objc_thread_add);
#endif
}

CSRClass csr_class_lookup(const char *name) {
    if (name == NULL) return NULL;
    return (CSR_BRIDGE CSRClass)objc_lookUpClass(name);
}

const char *csr_class_getName(CSRClass cls) { return cls ? class_getName((CSR_BRIDGE Class)cls) : "nil"; }

CSRClass csr_class_getSuperclass(CSRClass cls) {
    if (cls == NULL) return NULL;
#if !defined(__APPLE__)
    // GCC's libobjc answers Nil for a metaclass's superclass; derive it from the class's own superclass.
    if (class_isMetaClass((CSR_BRIDGE Class)cls)) {
        Class instanceClass = objc_lookUpClass(class_getName((CSR_BRIDGE Class)cls));
        Class superclass = instanceClass ? class_getSuperclass(instanceClass) : Nil;
        return superclass ? (CSR_BRIDGE CSRClass)object_getClass((id)superclass) : NULL;
    }
#endif
    return (CSR_BRIDGE CSRClass)class_getSuperclass((CSR_BRIDGE Class)cls);
}

CSRClass csr_class_getMetaclass(CSRClass cls) {
    return cls ? (CSR_BRIDGE CSRClass)object_getClass((CSR_BRIDGE id)cls) : NULL;
}

bool csr_class_isMetaClass(CSRClass cls) { return cls && class_isMetaClass((CSR_BRIDGE Class)cls); }

bool csr_class_isKindOf(CSRClass cls, CSRClass ancestor) {
    for (CSRClass c = cls; c != NULL; c = csr_class_getSuperclass(c)) {
        if (c == ancestor) return true;
    }
    return false;
}

size_t csr_class_getInstanceSize(CSRClass cls) { return cls ? class_getInstanceSize((CSR_BRIDGE Class)cls) : 0; }

const char *csr_class_imagePath(CSRClass cls) {
    if (cls == NULL) return NULL;
#if defined(__APPLE__)
    return class_getImageName((CSR_BRIDGE Class)cls);
#else
    Dl_info info;
    if (dladdr(cls, &info) && info.dli_fname) return info.dli_fname;
    return NULL;
#endif
}

const char **csr_copy_class_names_in_image_of(CSRClass cls, unsigned int *count) {
    if (count) *count = 0;
    if (cls == NULL || count == NULL) return NULL;
#if defined(__APPLE__)
    // The image's class list, read without realizing its classes.
    const char *image = class_getImageName((CSR_BRIDGE Class)cls);
    return image ? objc_copyClassNamesForImage(image, count) : NULL;
#else
    Dl_info anchor;
    if (!dladdr(cls, &anchor) || anchor.dli_fbase == NULL) return NULL;
    int total = objc_getClassList(NULL, 0);
    if (total <= 0) return NULL;
    Class *classes = (Class *)malloc(sizeof(Class) * (size_t)total);
    const char **names = (const char **)malloc(sizeof(const char *) * (size_t)total);
    if (classes == NULL || names == NULL) {
        free(classes);
        free(names);
        return NULL;
    }
    total = objc_getClassList(classes, total);
    unsigned int found = 0;
    for (int i = 0; i < total; i++) {
        Dl_info info;
        if (dladdr((CSR_BRIDGE void *)classes[i], &info) && info.dli_fbase == anchor.dli_fbase) names[found++] = class_getName(classes[i]);
    }
    free(classes);
    *count = found;
    return names;
#endif
}

CSRSelector csr_sel_register(const char *name) { return (CSRSelector)(void *)sel_registerName(name); }

const char *csr_sel_getName(CSRSelector selector) { return selector ? sel_getName((SEL)selector) : "(null)"; }

bool csr_sel_isEqual(CSRSelector a, CSRSelector b) {
    if (a == b) return true;
    if (a == NULL || b == NULL) return false;
    return sel_isEqual((SEL)a, (SEL)b) ? true : false;
}

/// The method `cls` itself defines for `selector`, or NULL.
static Method csr_ownMethod(Class cls, SEL selector) {
    unsigned int count = 0;
    Method *methods = class_copyMethodList(cls, &count);
    Method found = NULL;
    for (unsigned int i = 0; i < count; i++) {
        if (sel_isEqual(method_getName(methods[i]), selector)) { found = methods[i]; break; }
    }
    free(methods);
    return found;
}

bool csr_class_ownsMethod(CSRClass cls, CSRSelector selector) {
    return cls && selector && csr_ownMethod((CSR_BRIDGE Class)cls, (SEL)selector) != NULL;
}

CSRIMP csr_class_methodImplementation(CSRClass cls, CSRSelector selector) {
    if (!cls || !selector) return NULL;
    Method method = class_getInstanceMethod((CSR_BRIDGE Class)cls, (SEL)selector);
    return method ? (CSRIMP)method_getImplementation(method) : NULL;
}

CSRIMP csr_class_dispatchImplementation(CSRClass cls, CSRSelector selector) {
    return (CSRIMP)class_getMethodImplementation((CSR_BRIDGE Class)cls, (SEL)selector);
}

const char *csr_class_methodTypes(CSRClass cls, CSRSelector selector) {
    if (!cls || !selector) return NULL;
    Method method = class_getInstanceMethod((CSR_BRIDGE Class)cls, (SEL)selector);
    return method ? method_getTypeEncoding(method) : NULL;
}

CSRIMP csr_class_replaceOwnMethod(CSRClass cls, CSRSelector selector, CSRIMP implementation) {
    if (!cls || !selector || !implementation) return NULL;
    Method method = csr_ownMethod((CSR_BRIDGE Class)cls, (SEL)selector);
    if (method == NULL) return NULL;
#if defined(__APPLE__)
    // objc4: method_setImplementation does not know the class, so it flushes the method caches of every realized
    // class and metaclass (flushCaches(Nil, ...) in objc-runtime-new.mm); class_replaceMethod on a method the class
    // owns reaches the same _method_setImplementation with the class, which flushes only it and its subclasses.
    return (CSRIMP)class_replaceMethod((CSR_BRIDGE Class)cls, (SEL)selector, (IMP)implementation,
                                       method_getTypeEncoding(method));
#else
    csr_class_installDispatchTable(cls, selector);
    return (CSRIMP)csr_gnu_replace_own_method((CSR_BRIDGE Class)cls, (SEL)selector, (IMP)implementation);
#endif
}

bool csr_class_addMethod(CSRClass cls, CSRSelector selector, CSRIMP implementation, const char *types) {
    if (!cls || !selector || !implementation || !types) return false;
    // Both runtimes refresh subclasses' dispatch tables when a method is added.
    return class_addMethod((CSR_BRIDGE Class)cls, (SEL)selector, (IMP)implementation, types) ? true : false;
}

#if !defined(__APPLE__)
// 0 unknown, 1 main, 2 other; read inline by the main-thread trampolines (CSRLifetime.m). Initial-exec: one load
// from the thread pointer instead of a call to __tls_get_addr (the variable lives in the static TLS block; a
// library dlopen'ed later still gets it from glibc's reserve for such variables).
__attribute__((tls_model("initial-exec"))) _Thread_local int csr_thread_main_state;
#endif

bool csr_thread_isMain(void) {
#if defined(__APPLE__)
    return pthread_main_np() != 0;
#else
    // Two system calls the first time on each thread, then a thread-local read (main-thread guards ask per call).
    if (csr_thread_main_state == 0) csr_thread_main_state = getpid() == (pid_t)syscall(SYS_gettid) ? 1 : 2;
    return csr_thread_main_state == 1;
#endif
}

uint64_t csr_thread_id(void) {
#if defined(__APPLE__)
    uint64_t tid = 0;
    pthread_threadid_np(NULL, &tid);
    return tid;
#else
    return (uint64_t)syscall(SYS_gettid);
#endif
}

void csr_thread_name(char *buffer, size_t size) {
    if (size == 0) return;
    buffer[0] = 0;
    pthread_getname_np(pthread_self(), buffer, size);
}

CSRDeallocFrame *csr_thread_deallocFrame(void) {
    static _Thread_local CSRDeallocFrame frame;   // plain pointers: fine under ARC and MRC
    return &frame;
}
