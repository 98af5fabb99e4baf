// CSRVariadic.m: the variadic trampolines (see CSRVariadic.h). Mechanics only; every decision is Swift's.
//
// Objects cross as CSRObject (void *) so that ARC (Apple) manages nothing here: an initializer's receiver is
// consumed and its result returned +1 by the methods these trampolines stand for, exactly as passed through.
#import <Foundation/Foundation.h>
#include <stdarg.h>
#include <stdlib.h>
#include "CSRVariadic.h"
#include "CSRRuntime.h"
#include "CSRMemory.h"

static CSRVariadicResolver csr_variadic_resolver;
static CSRHookTable *csr_variadic_tables[CSRVariadicCount];

void csr_variadic_set_resolver(CSRVariadicResolver resolve) {
    __atomic_store_n(&csr_variadic_resolver, resolve, __ATOMIC_RELEASE);
}

/// The original implementation for `receiver`'s class; 0 if that class never reached the hook.
static uintptr_t csr_variadic_original(int trampolineIndex, CSRObject receiver) {
    CSRHookTable *table = __atomic_load_n(&csr_variadic_tables[trampolineIndex], __ATOMIC_ACQUIRE);
    if (table == NULL) return 0;
    uintptr_t original = csr_hook_table_find(table, (uintptr_t)csr_object_getClass(receiver));
    if (original != 0) return original;
    CSRVariadicResolver resolve = __atomic_load_n(&csr_variadic_resolver, __ATOMIC_ACQUIRE);
    return resolve ? resolve(table, receiver) : 0;
}

/// The incident path's verdict for an invalid call: true to recover. (It may raise Foundation's exception instead, in
/// debug mode: this frame and the trampoline's unwind normally.)
__attribute__((noinline, cold))
static bool csr_variadic_failed(int trampolineIndex, CSRObject receiver, CSRSelector cmd, unsigned long count) {
    CSRIncident incident = {
        .source = CSRIncidentVariadic,
        .table = __atomic_load_n(&csr_variadic_tables[trampolineIndex], __ATOMIC_ACQUIRE),
        .receiver = receiver,
        .selector = cmd,
        .argument = count,
    };
    return csr_incident_report(&incident);
}

/// The selector `name`, registered on first use into `*slot`.
static CSRSelector csr_variadic_selector(CSRSelector *slot, const char *name) {
    CSRSelector selector = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (selector == NULL) {
        selector = csr_sel_register(name);
        __atomic_store_n(slot, selector, __ATOMIC_RELEASE);
    }
    return selector;
}

/// A message with no argument (`alloc`, `autorelease`), through the receiver's own implementation.
static CSRObject csr_variadic_send(CSRObject receiver, CSRSelector selector) {
    return ((CSRObject (*)(CSRObject, CSRSelector))csr_msg_lookup(receiver, selector))(receiver, selector);
}


/// On every trampoline: its frame stays on the stack while the failure path looks for the frame that called it (the
/// call site), also in optimized builds.
#define CSR_TRAMPOLINE __attribute__((disable_tail_calls))

// MARK: Formats

typedef CSRObject (*CSRObjectWithFormat)(CSRObject, CSRSelector, CSRObject, ...);
typedef void (*CSRVoidWithFormat)(CSRObject, CSRSelector, CSRObject, ...);
typedef CSRObject (*CSRInitWithFormatArguments)(CSRObject, CSRSelector, CSRObject, va_list);

static CSRSelector csr_alloc_selector, csr_autorelease_selector, csr_init_pairs_selector, csr_init_format_selector;

/// `+stringWithFormat:`, installed only where GNUstep's Foundation runs (Apple's reaches the guarded `va_list`
/// form itself): a valid call does what GNUstep's does (NSString.m): `[[self alloc] initWithFormat:arguments:]`,
/// autoreleased.
CSR_TRAMPOLINE static CSRObject csr_string_with_format(CSRObject self, CSRSelector cmd, CSRObject format, ...) {
    CSRObjectWithFormat original = (CSRObjectWithFormat)csr_variadic_original(CSRVariadicStringWithFormat, self);
    if (original == NULL) return NULL;
    if (format == NULL) {
        bool recover = csr_variadic_failed(CSRVariadicStringWithFormat, self, cmd, 0);
        return original(self, cmd, recover ? (CSR_BRIDGE CSRObject)@"" : NULL);
    }
    CSRObject instance = csr_variadic_send(self, csr_variadic_selector(&csr_alloc_selector, "alloc"));
    CSRSelector init = csr_variadic_selector(&csr_init_format_selector, "initWithFormat:arguments:");
    va_list arguments;
    va_start(arguments, format);
    CSRObject string = ((CSRInitWithFormatArguments)csr_msg_lookup(instance, init))(instance, init, format, arguments);
    va_end(arguments);
    return string ? csr_variadic_send(string, csr_variadic_selector(&csr_autorelease_selector, "autorelease")) : NULL;
}

/// What the variadic format methods make of `format` and the arguments: `initWithFormat:locale:arguments:` with a
/// nil locale. +0, autoreleased (under ARC too: the caller's original may raise, and it is handed a live string).
static CSRObject csr_formatted(CSRObject format, va_list arguments) {
    NSString *text = [[NSString alloc] initWithFormat: (CSR_BRIDGE NSString *)format locale: nil arguments: arguments];
    return CSR_PASS_AUTORELEASED_NEW(text);
}

/// `-appendFormat:`, installed under Apple's rules (Apple's implementation is closed): the original still makes the
/// mutation, given the text already formatted ("%@" of a string is that string).
CSR_TRAMPOLINE static void csr_append_format(CSRObject self, CSRSelector cmd, CSRObject format, ...) {
    CSRVoidWithFormat original = (CSRVoidWithFormat)csr_variadic_original(CSRVariadicAppendFormat, self);
    if (original == NULL) return;
    if (format == NULL) {
        if (!csr_variadic_failed(CSRVariadicAppendFormat, self, cmd, 0)) original(self, cmd, NULL);
        return;
    }
    va_list arguments;
    va_start(arguments, format);
    CSRObject text = csr_formatted(format, arguments);
    va_end(arguments);
    original(self, cmd, (CSR_BRIDGE CSRObject)@"%@", text);
}

// MARK: Objects and keys

typedef CSRObject (*CSRObjectWithObjects)(CSRObject, CSRSelector, CSRObject, ...);
typedef CSRObject (*CSRInitWithObjectsKeysCount)(CSRObject, CSRSelector, const CSRObject *, const CSRObject *,
                                                 unsigned long);

enum { CSRInlineObjects = 32 };

/// `first` and the arguments after it, up to the first nil (not included): what Foundation reads.
typedef struct CSRObjectList {
    CSRObject *items;
    unsigned long count;
    CSRObject inlineItems[CSRInlineObjects];
} CSRObjectList;

static void csr_object_list_read(CSRObjectList *list, CSRObject first, va_list arguments) {
    unsigned long capacity = CSRInlineObjects;
    list->items = list->inlineItems;
    list->count = 0;
    for (CSRObject item = first; item != NULL; item = va_arg(arguments, CSRObject)) {
        if (list->count == capacity) {
            capacity *= 2;
            CSRObject *grown = malloc(capacity * sizeof(CSRObject));
            if (grown == NULL) abort();
            for (unsigned long index = 0; index < list->count; index++) grown[index] = list->items[index];
            if (list->items != list->inlineItems) free(list->items);
            list->items = grown;
        }
        list->items[list->count++] = item;
    }
}

static void csr_object_list_free(CSRObjectList *list) {
    if (list->items != list->inlineItems) free(list->items);
}

/// `[receiver initWithObjects:forKeys:count:]` with the first `pairs` (object, key) pairs of `list`.
static CSRObject csr_init_with_pairs(CSRObject receiver, const CSRObjectList *list, unsigned long pairs) {
    CSRObject inlineSplit[CSRInlineObjects];
    CSRObject *split = pairs * 2 <= CSRInlineObjects ? inlineSplit : malloc(pairs * 2 * sizeof(CSRObject));
    if (split == NULL) abort();
    for (unsigned long pair = 0; pair < pairs; pair++) {
        split[pair] = list->items[2 * pair];
        split[pairs + pair] = list->items[2 * pair + 1];
    }
    CSRSelector selector = csr_variadic_selector(&csr_init_pairs_selector, "initWithObjects:forKeys:count:");
    CSRInitWithObjectsKeysCount init = (CSRInitWithObjectsKeysCount)csr_msg_lookup(receiver, selector);
    CSRObject result = NULL;
    @try {
        result = init(receiver, selector, split, split + pairs, pairs);
    } @finally {
        if (split != inlineSplit) free(split);
    }
    return result;
}

/// Builds the dictionary from the first `pairs` pairs of `list` for the receiver of an objects-and-keys method.
typedef CSRObject (*CSRPairsBuilder)(CSRObject receiver, const CSRObjectList *list, unsigned long pairs);

/// The objects-and-keys trampolines' body: reads the list; an odd count (the nil is a key) goes to Swift. Builds
/// with `build`, or, when Swift lets the call through, runs the original with the list cut after its first object:
/// a list that ends at a key, for which it raises the same exception.
static CSRObject csr_objects_and_keys(int trampolineIndex, CSRObject self, CSRSelector cmd, CSRObject first, va_list arguments,
                                      CSRPairsBuilder build) {
    CSRObjectWithObjects original = (CSRObjectWithObjects)csr_variadic_original(trampolineIndex, self);
    if (original == NULL) return NULL;
    CSRObjectList list;
    csr_object_list_read(&list, first, arguments);
    CSRObject result = NULL;
    @try {
        bool valid = list.count % 2 == 0 || csr_variadic_failed(trampolineIndex, self, cmd, list.count);
        result = valid ? build(self, &list, list.count / 2) : original(self, cmd, first, NULL);
    } @finally {
        csr_object_list_free(&list);
    }
    return result;
}

/// `+dictionaryWithObjectsAndKeys:`: alloc, `initWithObjects:forKeys:count:`, autorelease.
static CSRObject csr_new_dictionary_with_pairs(CSRObject cls, const CSRObjectList *list, unsigned long pairs) {
    CSRObject instance = csr_variadic_send(cls, csr_variadic_selector(&csr_alloc_selector, "alloc"));
    CSRObject result = csr_init_with_pairs(instance, list, pairs);
    return result ? csr_variadic_send(result, csr_variadic_selector(&csr_autorelease_selector, "autorelease")) : NULL;
}

CSR_TRAMPOLINE static CSRObject csr_dictionary_with_objects_and_keys(CSRObject self, CSRSelector cmd, CSRObject first, ...) {
    va_list arguments;
    va_start(arguments, first);
    CSRObject result = csr_objects_and_keys(CSRVariadicDictionaryWithObjectsAndKeys, self, cmd, first, arguments,
                                            csr_new_dictionary_with_pairs);
    va_end(arguments);
    return result;
}

CSR_TRAMPOLINE static CSRObject csr_init_with_objects_and_keys(CSRObject self, CSRSelector cmd, CSRObject first, ...) {
    va_list arguments;
    va_start(arguments, first);
    CSRObject result = csr_objects_and_keys(CSRVariadicInitWithObjectsAndKeys, self, cmd, first, arguments,
                                            csr_init_with_pairs);
    va_end(arguments);
    return result;
}

// MARK: Binding

CSRIMP csr_variadic_trampoline(int trampolineIndex) {
    switch (trampolineIndex) {
        case CSRVariadicStringWithFormat: return (CSRIMP)csr_string_with_format;
        case CSRVariadicAppendFormat: return (CSRIMP)csr_append_format;
        case CSRVariadicDictionaryWithObjectsAndKeys: return (CSRIMP)csr_dictionary_with_objects_and_keys;
        case CSRVariadicInitWithObjectsAndKeys: return (CSRIMP)csr_init_with_objects_and_keys;
        default: return NULL;
    }
}

bool csr_variadic_bind(int trampolineIndex, CSRHookTable *table) {
    if (trampolineIndex < 0 || trampolineIndex >= CSRVariadicCount || table == NULL) return false;
    CSRHookTable *unbound = NULL;
    return __atomic_compare_exchange_n(&csr_variadic_tables[trampolineIndex], &unbound, table, false, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE);
}
