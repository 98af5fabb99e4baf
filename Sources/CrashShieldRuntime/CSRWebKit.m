// CSRWebKit.m: see CSRWebKit.h.
//
// The wrapper is a block built by the block ABI (clang's "Block Implementation Specification", the layout Apple's
// libclosure and libBlocksRuntime both copy and release), not a block literal: its state lives in a C struct its own
// copy and dispose helpers own, so its destruction is seen on every runtime. A block literal would keep that state in
// a captured object, and libBlocksRuntime on GCC's libobjc does not retain or release captured objects (Apple's
// runtime does): there the state would not live as long as the block. Built on the stack, then `_Block_copy`: the
// runtime makes the heap block (on Apple an Objective-C object like any other block) and calls `copy` once; `dispose`
// runs once, when the last reference to the heap block goes. WebKit's handler is invoked through the same ABI.
#import <Foundation/Foundation.h>
#include <objc/runtime.h>
#include <stdlib.h>
#include <Block.h>
#include "CSRWebKit.h"
#include "CSRIncident.h"

#if __has_feature(ptrauth_calls)
// arm64e (pointer authentication: Apple only; GNUstep has none, and there the qualifiers are empty). libclosure signs
// every function pointer inside a block with the block key and the address of the field that holds it, and a block's
// isa as any Objective-C isa (Block_private.h: Block_layout's `__ptrauth_objc_isa_pointer isa` and
// `BlockInvokeFunction invoke`, Block_descriptor_2's copy and dispose, all StorageSignedFunctionPointer with
// ptrauth_key_block_function and the storage address); `_Block_copy` re-signs `invoke` for the heap block's address
// and authenticates `copy` and `dispose` where they are (runtime.cpp). Clang's ABI qualifiers say exactly that
// (ptrauth.h: `__ptrauth_block_invocation_pointer` and the helpers: the IA key, address-diverse, discriminator 0;
// `__ptrauth_objc_isa_pointer`: DA, address-diverse, 0x6AE1), the same signing a block literal gets: every store
// into these fields is signed for its own address (a static initializer too: `@AUTH(ia,0,addr)`), every read is
// authenticated there, and WebKit's block is called with `braa` on its invoke field's address. A plain function
// pointer in one of them fails authentication on the first call (scripts/check-arm64e.sh reads the object code).
#include <ptrauth.h>
#define CSR_BLOCK_ISA __ptrauth_objc_isa_pointer
#define CSR_BLOCK_INVOKE __ptrauth_block_invocation_pointer
#define CSR_BLOCK_COPY __ptrauth_block_copy_helper
#define CSR_BLOCK_DISPOSE __ptrauth_block_destroy_helper
#else
#define CSR_BLOCK_ISA
#define CSR_BLOCK_INVOKE
#define CSR_BLOCK_COPY
#define CSR_BLOCK_DISPOSE
#endif

/// Clang's block ABI: a block starts with this header (flags: BLOCK_HAS_COPY_DISPOSE = 1 << 25).
struct CSRBlockDescriptor {
    unsigned long reserved;
    unsigned long size;
    void (*CSR_BLOCK_COPY copy)(void *destination, const void *source);
    void (*CSR_BLOCK_DISPOSE dispose)(const void *block);
};
struct CSRBlockHeader {
    void *CSR_BLOCK_ISA isa;
    int flags;
    int reserved;
    void (*CSR_BLOCK_INVOKE invoke)(void);
    const struct CSRBlockDescriptor *descriptor;
};
enum { CSRBlockHasCopyDispose = 1 << 25 };
/// The class of a block on the stack (libBlocksRuntime and libSystem export it; Block_private.h is not public on Apple).
extern void *_NSConcreteStackBlock[32];

/// What a wrapper knows: WebKit's block (copied: owned), the panel, the delegate's class (the one implementing the
/// method) and method.
typedef struct CSRPanelState {
    const void *handler;
    CSRWebKitPanel panel;
    CSRClass delegateClass;
    CSRSelector selector;
    bool called;
} CSRPanelState;

typedef struct CSRPanelBlock {
    struct CSRBlockHeader header;
    CSRPanelState *state;
} CSRPanelBlock;

static void csr_panel_invoke_alert(CSRPanelBlock *block);
static void csr_panel_invoke_confirm(CSRPanelBlock *block, BOOL result);
static void csr_panel_invoke_text(CSRPanelBlock *block, CSRObject result);

/// WebKit's block, called through its own invoke function.
static void csr_handler_call(const void *handler, CSRWebKitPanel panel, BOOL flag, CSRObject text) {
    const struct CSRBlockHeader *header = (const struct CSRBlockHeader *)handler;
    switch (panel) {
    case CSRWebKitPanelAlert: ((void (*)(const void *))header->invoke)(handler); break;
    case CSRWebKitPanelConfirm: ((void (*)(const void *, BOOL))header->invoke)(handler, flag); break;
    case CSRWebKitPanelTextInput: ((void (*)(const void *, CSRObject))header->invoke)(handler, text); break;
    }
}

static void csr_panel_invoke_alert(CSRPanelBlock *block) {
    __atomic_store_n(&block->state->called, true, __ATOMIC_RELEASE);
    csr_handler_call(block->state->handler, CSRWebKitPanelAlert, NO, NULL);
}
static void csr_panel_invoke_confirm(CSRPanelBlock *block, BOOL result) {
    __atomic_store_n(&block->state->called, true, __ATOMIC_RELEASE);
    csr_handler_call(block->state->handler, CSRWebKitPanelConfirm, result, NULL);
}
static void csr_panel_invoke_text(CSRPanelBlock *block, CSRObject result) {
    __atomic_store_n(&block->state->called, true, __ATOMIC_RELEASE);
    csr_handler_call(block->state->handler, CSRWebKitPanelTextInput, NO, result);
}

/// The heap block takes over the state (the stack block never runs or is disposed).
static void csr_panel_copy(void *destination, const void *source) {
    ((CSRPanelBlock *)destination)->state = ((const CSRPanelBlock *)source)->state;
}

/// The last reference to the wrapper went: WebKit's block uncalled is the incident; recovered, it gets the default
/// answer. WebKit's block is released last (uncalled, WebKit's check raises there, as without CrashShield).
static void csr_panel_dispose(const void *object) {
    CSRPanelState *state = ((const CSRPanelBlock *)object)->state;
    const void *handler = state->handler;
    CSRWebKitPanel panel = state->panel;
    bool answer = false;
    if (!__atomic_load_n(&state->called, __ATOMIC_ACQUIRE)) {
        CSRIncident incident = {0};
        incident.source = CSRIncidentDroppedHandler;
        incident.cls = state->delegateClass;
        incident.selector = state->selector;
        incident.argument = (uintptr_t)panel;
        answer = csr_incident_report(&incident);
    }
    free(state);
    if (answer) csr_handler_call(handler, panel, NO, NULL);
    _Block_release(handler);
}

static const struct CSRBlockDescriptor csr_panel_descriptor = {
    0, sizeof(CSRPanelBlock), csr_panel_copy, csr_panel_dispose,
};

/// The class WebKit names in its reason: the delegate's class, or the superclass it inherits the method from (the
/// topmost class whose lookup of `selector` gives the same method). A subclass, or a KVO class, that does not
/// override the method is named by the class that implements it.
static Class csr_panel_implementing_class(id delegate, SEL selector) {
    Class cls = object_getClass(delegate);
    Method method = class_getInstanceMethod(cls, selector);
    for (Class parent = class_getSuperclass(cls); parent != Nil && method != NULL; parent = class_getSuperclass(parent)) {
        if (class_getInstanceMethod(parent, selector) != method) break;
        cls = parent;
    }
    return cls;
}

typedef void (*CSRAlertPanelIMP)(CSRObject, CSRSelector, CSRObject, CSRObject, CSRObject, CSRObject);
typedef void (*CSRTextInputPanelIMP)(CSRObject, CSRSelector, CSRObject, CSRObject, CSRObject, CSRObject, CSRObject);

void csr_webkit_run_panel(
    CSRIMP original, CSRObject delegate, CSRSelector selector, CSRWebKitPanel panel, CSRObject webView,
    CSRObject text, CSRObject defaultText, CSRObject frame, CSRObject handler) {
    const void *wrapper = handler;
    CSRPanelState *state = handler == NULL ? NULL : (CSRPanelState *)calloc(1, sizeof(CSRPanelState));
    if (state != NULL) {
        state->handler = _Block_copy(handler);
        state->panel = panel;
        state->delegateClass = (CSR_BRIDGE CSRClass)csr_panel_implementing_class((CSR_BRIDGE id)delegate, (SEL)selector);
        state->selector = selector;
        CSRPanelBlock stack = {{_NSConcreteStackBlock, CSRBlockHasCopyDispose, 0, NULL, &csr_panel_descriptor}, state};
        switch (panel) {
        case CSRWebKitPanelAlert: stack.header.invoke = (void (*)(void))csr_panel_invoke_alert; break;
        case CSRWebKitPanelConfirm: stack.header.invoke = (void (*)(void))csr_panel_invoke_confirm; break;
        case CSRWebKitPanelTextInput: stack.header.invoke = (void (*)(void))csr_panel_invoke_text; break;
        }
        wrapper = _Block_copy(&stack);
    }
    if (panel == CSRWebKitPanelTextInput) {
        ((CSRTextInputPanelIMP)original)(delegate, selector, webView, text, defaultText, frame, (CSRObject)wrapper);
    } else {
        ((CSRAlertPanelIMP)original)(delegate, selector, webView, text, frame, (CSRObject)wrapper);
    }
    if (state != NULL) _Block_release(wrapper);
}
