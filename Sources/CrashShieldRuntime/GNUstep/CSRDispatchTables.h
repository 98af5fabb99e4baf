// CSRDispatchTables.h: GCC's libobjc's dispatch tables, patched directly (GNUstep only). Not a shared header: the
// body of CSRRuntimeGNUstep.m (its functions are static there), included once by it; kept
// here so that every line only the Linux proving ground compiles is in Sources/CrashShieldRuntime/GNUstep.
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
