// CSRVariadic.h: replacements for variadic Foundation methods (`+stringWithFormat:`, `-appendFormat:`,
// `+dictionaryWithObjectsAndKeys:`, `-initWithObjectsAndKeys:`).
//
// A replacement written in Swift cannot take `...`, and no C function can pass its own `...` on to another variadic
// function. These trampolines are variadic C functions with the method's own signature: they read the arguments
// with `va_list`, hand an invalid call to Swift (which decides: recover, or call the original unchanged), and make a
// valid call through a form that takes what they read:
// - `+stringWithFormat:` (installed only on GNUstep, whose implementation is known) does what GNUstep's does:
//   `[[self alloc] initWithFormat:format arguments:]`, autoreleased;
// - `-appendFormat:` (installed under Apple's rules, whose implementation is closed) formats with
//   `-[NSString initWithFormat:locale:arguments:]` (nil locale, as the variadic methods do) and calls the original
//   with `@"%@"` and that string: the original still makes the mutation, and "%@" of a string is that string;
// - an objects-and-keys method reads the list up to its nil, as Foundation does, and builds the dictionary with
//   `initWithObjects:forKeys:count:`, the designated initializer both Foundations build it with.
//
// A nil format or a nil key reads no further argument. When Swift lets such a call through, the original runs with
// no argument after the nil format (it has no conversions to read), or with the list cut after its first object
// (a list that ends at a key: the same exception). Swift binds each trampoline to its hook point's table
// of originals (CSRHookTable.h) and registers its two cold paths before installing any trampoline.
#ifndef CSR_VARIADIC_H
#define CSR_VARIADIC_H

#include "CSRHookTable.h"
#include "CSRIncident.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    /// `+ (id)stringWithFormat:(NSString *)format, ...` (a class method). Recovery: the original with @"".
    CSRVariadicStringWithFormat = 0,
    /// `- (void)appendFormat:(NSString *)format, ...`. Recovery: nothing is appended.
    CSRVariadicAppendFormat,
    /// `+ (id)dictionaryWithObjectsAndKeys:(id)firstObject, ...` (a class method). Recovery: the complete pairs.
    CSRVariadicDictionaryWithObjectsAndKeys,
    /// `- (id)initWithObjectsAndKeys:(id)firstObject, ...`. Recovery: the complete pairs.
    CSRVariadicInitWithObjectsAndKeys,
    CSRVariadicCount
};

/// The original for a receiver whose class has no slot of its own in `table` (a subclass inheriting a hooked method,
/// or a hook that added an override); 0 if the class never reached the hook.
typedef uintptr_t (*CSRVariadicResolver)(CSRHookTable *table, CSRObject receiver);

/// Registers the resolver. An invalid call is a `CSRIncidentVariadic` (CSRIncident.h): recovered, or the original is
/// called unchanged (it raises). `argument`: for an objects-and-keys list, how many objects precede the nil (odd: the
/// nil is a key); 0 for a format.
void csr_variadic_set_resolver(CSRVariadicResolver resolve);

/// The trampoline `trampolineIndex` (CSRVariadicStringWithFormat, ...); NULL for an unknown one.
CSRIMP csr_variadic_trampoline(int trampolineIndex);
/// Binds trampoline `trampolineIndex` to the table of its hook point: one hook point per trampoline, for the process's life,
/// bound before the trampoline is installed. False if `trampolineIndex` is unknown or already bound.
bool csr_variadic_bind(int trampolineIndex, CSRHookTable *table);

#ifdef __cplusplus
}
#endif
#endif
