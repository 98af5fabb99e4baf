// CSRCheckFirst.h: check-first trampolines for guarded methods whose precondition is cheap to check in C:
// - the first argument is not nil: CSRHotArrayAddObject and CSRHotSetAddObject (`-addObject:`),
//   CSRHotStringHasPrefix, CSRHotStringHasSuffix, CSRHotStringInitWithFormat (`-initWithFormat:locale:arguments:`),
//   CSRHotStringInitWithUTF8String and CSRHotStringWithUTF8String (`+stringWithUTF8String:`),
//   CSRHotStringInitWithCStringEncoding and CSRHotStringWithCStringEncoding (`+stringWithCString:encoding:`),
//   CSRHotNumberCompare (NSNumber's `-compare:`), CSRHotDateCompare (NSDate's `-compare:`, GNUstep's rules);
// - CSRHotStringInitWithBytes (`-initWithBytes:length:encoding:`): the bytes are not NULL, or the length is 0;
// - CSRHotDictionarySetObjectForKey (`-setObject:forKey:`): neither object argument is nil;
// - CSRHotMutableStringReplaceCharacters (`-replaceCharactersInRange:withString:`): the string is not nil and the
//   range lies within the receiver's `length` (asked with one message, as the Swift check does);
// - CSRHotStringGetCharactersRange (`-getCharacters:range:`): the range lies within the receiver's `length`;
// - CSRHotStringCompare (`-compare:options:range:`) and CSRHotStringRangeOfString
//   (`-rangeOfString:options:range:locale:`, behind `rangeOfString:`, `hasPrefix:`, `hasSuffix:`): the string argument
//   is not nil and the range lies within the receiver's `length`.
//
// The Swift replacement of such a method costs about 40-50 instructions on a valid call (its lookup of the original,
// the check, its frame); the slot's trampoline loads the class's original, makes the same check and jumps to it. Any
// other call (a failed check, a class that only inherited the method, a slot past the pool) goes to the Swift
// replacement, which checks again and decides as it always does: a trampoline only lets through calls the replacement
// would have passed on unchanged, so the replacement's check must stay exactly the one named above.
#ifndef CSR_CHECK_FIRST_H
#define CSR_CHECK_FIRST_H

#include "CSRHookTable.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The Swift replacement the trampolines of hot table `tableIndex` (one of those above) hand every other call to.
/// Set once, before any trampoline is installed.
void csr_check_first_set_replacement(int tableIndex, CSRIMP replacement);

/// The trampoline for slot `slot` of hot table `tableIndex`, or NULL (no trampolines for that table, no replacement set,
/// or a slot past the pool: install the Swift replacement itself).
CSRIMP csr_check_first_trampoline(int tableIndex, long slot);

// Answer-first trampolines, for a hooked method whose replacement only matters when the original has no answer
// (`methodSignatureForSelector:` answering nil, in hot tables CSRHotObjectMethodSignature and
// CSRHotClassMethodSignature): the slot's trampoline calls the class's original and returns a non-nil answer as it is;
// a nil answer goes to the fallback, with the same arguments, and a class that only inherited the method to the
// replacement (`csr_check_first_set_replacement`). About 10 instructions around the original, against about 50 for
// the Swift replacement's lookup and frame.

/// Swift's handler of a nil answer for hot table `tableIndex`. Set once, before any trampoline is installed.
void csr_answer_first_set_fallback(int tableIndex, CSRIMP fallback);

/// The trampoline for slot `slot` of hot table `tableIndex`, or NULL (no such table, no replacement or fallback set, a
/// slot past the pool).
CSRIMP csr_answer_first_trampoline(int tableIndex, long slot);

/// Whether the function starting at `start` is a check-first or answer-first trampoline. Its frame sits between a replacement and
/// the app's call where the compiler did not make the hand-over a tail call (an unoptimized build of the C forms):
/// a report's call site is past it.
bool csr_check_first_is_trampoline(uintptr_t start);

#ifdef __cplusplus
}
#endif
#endif
