// CSSArrayScenarios.m: NSArray / NSMutableArray calls that crash without CrashShield.
#import <Foundation/Foundation.h>
#include "CSSFamilies.h"

static NSArray *two(void) { return css_opaque([NSArray arrayWithObjects: @"a", @"b", nil]); }
static NSMutableArray *mutableTwo(void) { return css_opaque([NSMutableArray arrayWithObjects: @"a", @"b", nil]); }
static const char *contents(NSArray *array) { return css_format("%s", [[array componentsJoinedByString: @","] UTF8String]); }

static const char *objectAtIndexBeyondEnd(void) { return css_describe([two() objectAtIndex: css_opaque_index(5)]); }
static const char *subscriptBeyondEnd(void) { return css_describe([two() objectAtIndexedSubscript: css_opaque_index(2)]); }   // array[2]
static const char *emptyArrayFirstElement(void) { return css_describe([css_opaque([NSArray array]) objectAtIndex: 0]); }
static const char *subarrayPastEnd(void) { return css_describe([two() subarrayWithRange: NSMakeRange(1, 5)]); }
static const char *subarrayNotFound(void) { return css_describe([two() subarrayWithRange: NSMakeRange(NSNotFound, 0)]); }
static const char *objectsAtIndexesPastEnd(void) {
    return css_describe([two() objectsAtIndexes: [NSIndexSet indexSetWithIndex: 7]]);
}
static const char *getObjectsPastEnd(void) {
    __unsafe_unretained id buffer[4] = { @"untouched", @"untouched", @"untouched", @"untouched" };
    [two() getObjects: buffer range: NSMakeRange(1, 3)];
    return css_describe(buffer[0]);
}
static const char *literalWithNil(void) {
    id missing = css_opaque(nil);
    id objects[3] = { @"a", missing, @"c" };
    return contents([NSArray arrayWithObjects: objects count: 3]);   // what @[a, missing, c] compiles to
}
static const char *arrayWithNilObject(void) { return css_describe([NSArray arrayWithObject: css_opaque(nil)]); }
static const char *arrayByAddingNil(void) { return contents([two() arrayByAddingObject: css_opaque(nil)]); }

static const char *addNil(void) { NSMutableArray *m = mutableTwo(); [m addObject: css_opaque(nil)]; return contents(m); }
static const char *insertNil(void) { NSMutableArray *m = mutableTwo(); [m insertObject: css_opaque(nil) atIndex: 0]; return contents(m); }
static const char *insertPastEnd(void) { NSMutableArray *m = mutableTwo(); [m insertObject: @"x" atIndex: css_opaque_index(3)]; return contents(m); }
static const char *removePastEnd(void) { NSMutableArray *m = mutableTwo(); [m removeObjectAtIndex: css_opaque_index(2)]; return contents(m); }
static const char *replacePastEnd(void) { NSMutableArray *m = mutableTwo(); [m replaceObjectAtIndex: css_opaque_index(9) withObject: @"x"]; return contents(m); }
static const char *replaceWithNil(void) { NSMutableArray *m = mutableTwo(); [m replaceObjectAtIndex: 0 withObject: css_opaque(nil)]; return contents(m); }
static const char *removeRangePastEnd(void) { NSMutableArray *m = mutableTwo(); [m removeObjectsInRange: NSMakeRange(1, 9)]; return contents(m); }
static const char *exchangePastEnd(void) { NSMutableArray *m = mutableTwo(); [m exchangeObjectAtIndex: 0 withObjectAtIndex: css_opaque_index(9)]; return contents(m); }
static const char *subscriptSetPastEnd(void) { NSMutableArray *m = mutableTwo(); [m setObject: @"x" atIndexedSubscript: css_opaque_index(3)]; return contents(m); }   // m[3] = x
static const char *subscriptSetNil(void) { NSMutableArray *m = mutableTwo(); [m setObject: css_opaque(nil) atIndexedSubscript: 0]; return contents(m); }   // m[0] = nil
static const char *insertAtIndexesPastEnd(void) {
    NSMutableArray *m = mutableTwo();
    [m insertObjects: [NSArray arrayWithObject: @"x"] atIndexes: [NSIndexSet indexSetWithIndex: 9]];
    return contents(m);
}
static const char *removeAtIndexesPastEnd(void) {
    NSMutableArray *m = mutableTwo();
    [m removeObjectsAtIndexes: [NSIndexSet indexSetWithIndex: 9]];
    return contents(m);
}
static const char *replaceRangePastEnd(void) {
    NSMutableArray *m = mutableTwo();
    [m replaceObjectsInRange: NSMakeRange(5, 2) withObjectsFromArray: [NSArray arrayWithObject: @"x"]];
    return contents(m);
}
/// Ranges whose end wraps past 2^64 (issue 32): {1, UInt.max} ends at 0 and {UInt.max, 2} at 1, within a check made
/// in C's wrapping arithmetic; GNUstep's GS_RANGE_CHECK (and Apple's methods) reject both.
static NSRange wrapsToZero(void) { return css_range(css_opaque_index(1), NSUIntegerMax); }
static NSRange wrapsToOne(void) { return css_range(css_opaque_index(NSUIntegerMax), 2); }
static const char *subarrayWrapping(void) { return css_describe([two() subarrayWithRange: wrapsToZero()]); }
static const char *getObjectsWrapping(void) {
    __unsafe_unretained id buffer[2] = { @"untouched", @"untouched" };
    [two() getObjects: buffer range: wrapsToOne()];
    return css_describe(buffer[0]);
}
static const char *removeRangeWrapping(void) { NSMutableArray *m = mutableTwo(); [m removeObjectsInRange: wrapsToZero()]; return contents(m); }
static const char *replaceRangeWrapping(void) {
    NSMutableArray *m = mutableTwo();
    [m replaceObjectsInRange: wrapsToOne() withObjectsFromArray: [NSArray arrayWithObject: @"x"]];
    return contents(m);
}
/// What an index search answered (NSNotFound by name).
static const char *indexAnswer(NSUInteger index) {
    return index == NSNotFound ? "NSNotFound" : css_format("%lu", (unsigned long)index);
}
static const char *indexOfObjectInRangePastEnd(void) { return indexAnswer([two() indexOfObject: @"b" inRange: NSMakeRange(1, 3)]); }
static const char *indexOfObjectIdenticalToInRangePastEnd(void) {
    return indexAnswer([two() indexOfObjectIdenticalTo: @"b" inRange: NSMakeRange(css_opaque_index(3), 0)]);
}
static const char *indexOfObjectInRangeWrapping(void) { return indexAnswer([two() indexOfObject: @"b" inRange: wrapsToZero()]); }
static const char *indexOfObjectIdenticalToInRangeWrapping(void) {
    return indexAnswer([mutableTwo() indexOfObjectIdenticalTo: @"b" inRange: wrapsToOne()]);
}
#if !defined(__APPLE__)
/// GNUstep only: Apple's `removeLastObject` returns without a change on an empty array (Docs/AppleRuntime.md §9).
static const char *removeLastOfEmpty(void) {
    NSMutableArray *m = css_opaque([NSMutableArray array]);
    [m removeLastObject];
    return css_format("count=%lu", (unsigned long)[m count]);
}
#endif

static const CSSScenario css_array_table[] = {
    { "array.objectAtIndex.beyondEnd", "container", "objectAtIndex:", "NSRangeException", "nil", 1, objectAtIndexBeyondEnd },
    { "array.subscript.beyondEnd", "container", "objectAtIndexedSubscript:", "NSRangeException", "nil", 1, subscriptBeyondEnd },
    { "array.objectAtIndex.empty", "container", "objectAtIndex:", "NSRangeException", "nil", 1, emptyArrayFirstElement },
    { "array.subarrayWithRange.pastEnd", "container", "subarrayWithRange:", "NSRangeException", "()", 1, subarrayPastEnd },
    { "array.subarrayWithRange.notFound", "container", "subarrayWithRange:", "NSRangeException", "()", 1, subarrayNotFound },
    { "array.objectsAtIndexes.pastEnd", "container", "objectsAtIndexes:", "NSRangeException", "nil", 1, objectsAtIndexesPastEnd },
    { "array.getObjectsRange.pastEnd", "container", "getObjects:range:", "NSRangeException", "untouched", 1, getObjectsPastEnd },
    { "array.literal.nilElement", "container", "initWithObjects:count:", "NSInvalidArgumentException", "a,c", 1, literalWithNil },
    { "array.arrayWithObject.nil", "container", "initWithObjects:count:", "NSInvalidArgumentException", "()", 1, arrayWithNilObject },
    { "array.arrayByAddingObject.nil", "container", "arrayByAddingObject:", "NSInvalidArgumentException", "a,b", 1, arrayByAddingNil },
    { "mutableArray.addObject.nil", "container", "addObject:", "NSInvalidArgumentException", "a,b", 1, addNil },
    { "mutableArray.insertObject.nil", "container", "insertObject:atIndex:", "NSInvalidArgumentException", "a,b", 1, insertNil },
    { "mutableArray.insertObject.pastEnd", "container", "insertObject:atIndex:", "NSRangeException", "a,b", 1, insertPastEnd },
    { "mutableArray.removeObjectAtIndex.pastEnd", "container", "removeObjectAtIndex:", "NSRangeException", "a,b", 1, removePastEnd },
    { "mutableArray.replaceObjectAtIndex.pastEnd", "container", "replaceObjectAtIndex:withObject:", "NSRangeException", "a,b", 1, replacePastEnd },
    { "mutableArray.replaceObjectAtIndex.nil", "container", "replaceObjectAtIndex:withObject:", "NSInvalidArgumentException", "a,b", 1, replaceWithNil },
    { "mutableArray.removeObjectsInRange.pastEnd", "container", "removeObjectsInRange:", "NSRangeException", "a,b", 1, removeRangePastEnd },
    { "mutableArray.exchange.pastEnd", "container", "exchangeObjectAtIndex:withObjectAtIndex:", "NSRangeException", "a,b", 1, exchangePastEnd },
    { "mutableArray.subscriptSet.pastEnd", "container", "setObject:atIndexedSubscript:", "NSRangeException", "a,b", 1, subscriptSetPastEnd },
    { "mutableArray.subscriptSet.nil", "container", "setObject:atIndexedSubscript:", "NSInvalidArgumentException", "a,b", 1, subscriptSetNil },
    { "mutableArray.insertObjectsAtIndexes.pastEnd", "container", "insertObjects:atIndexes:", "NSRangeException", "a,b", 1, insertAtIndexesPastEnd },
    { "mutableArray.removeObjectsAtIndexes.pastEnd", "container", "removeObjectsAtIndexes:", "NSRangeException", "a,b", 1, removeAtIndexesPastEnd },
    { "mutableArray.replaceObjectsInRange.pastEnd", "container", "replaceObjectsInRange:withObjectsFromArray:", "NSRangeException", "a,b", 1, replaceRangePastEnd },
    { "array.subarrayWithRange.wrappingEnd", "container", "subarrayWithRange:", "NSRangeException", "()", 1, subarrayWrapping },
    { "array.getObjectsRange.wrappingEnd", "container", "getObjects:range:", "NSRangeException", "untouched", 1, getObjectsWrapping },
    { "mutableArray.removeObjectsInRange.wrappingEnd", "container", "removeObjectsInRange:", "NSRangeException", "a,b", 1, removeRangeWrapping },
    { "mutableArray.replaceObjectsInRange.wrappingEnd", "container", "replaceObjectsInRange:withObjectsFromArray:", "NSRangeException", "a,b", 1, replaceRangeWrapping },
    { "array.indexOfObjectInRange.pastEnd", "container", "indexOfObject:inRange:", "NSRangeException", "NSNotFound", 1, indexOfObjectInRangePastEnd },
    { "array.indexOfObjectIdenticalToInRange.pastEnd", "container", "indexOfObjectIdenticalTo:inRange:", "NSRangeException", "NSNotFound", 1, indexOfObjectIdenticalToInRangePastEnd },
    { "array.indexOfObjectInRange.wrappingEnd", "container", "indexOfObject:inRange:", "NSRangeException", "NSNotFound", 1, indexOfObjectInRangeWrapping },
    { "mutableArray.indexOfObjectIdenticalToInRange.wrappingEnd", "container", "indexOfObjectIdenticalTo:inRange:", "NSRangeException", "NSNotFound", 1, indexOfObjectIdenticalToInRangeWrapping },
#if !defined(__APPLE__)
    { "mutableArray.removeLastObject.empty", "container", "removeLastObject", "NSRangeException", "count=0", 1, removeLastOfEmpty },
#endif
};

const CSSScenario *css_array_scenarios(int *count) {
    *count = (int)(sizeof css_array_table / sizeof css_array_table[0]);
    return css_array_table;
}

// MARK: Differential probes: index, range and index-set edges (count, count + 1, 2^32 and above, NSNotFound)

static id freshTwo(void) { return [NSArray arrayWithObjects: @"a", @"b", nil]; }
static id freshMutableTwo(void) { return [NSMutableArray arrayWithObjects: @"a", @"b", nil]; }
static NSArray *xy(void) { return [NSArray arrayWithObjects: @"x", @"y", nil]; }

static id pObjectAtIndex(id a, NSUInteger i) { return [a objectAtIndex: i]; }
static id pSubscript(id a, NSUInteger i) { return [a objectAtIndexedSubscript: i]; }
/// GNUstep loops for ever on a nil index set (what {NSNotFound} is), with or without CrashShield.
static id pObjectsAtIndexes(id a, NSUInteger i) { return i == NSNotFound ? css_probe_skipped() : [a objectsAtIndexes: css_index_set(i)]; }
static id pSubarrayEmpty(id a, NSUInteger i) { return [a subarrayWithRange: NSMakeRange(i, 0)]; }
static id pSubarrayOne(id a, NSUInteger i) { return [a subarrayWithRange: NSMakeRange(i, 1)]; }
static id pSubarrayTo(id a, NSUInteger i) { return [a subarrayWithRange: NSMakeRange(0, i)]; }
static id pGetObjects(id a, NSUInteger i) {
    __unsafe_unretained id buffer[2] = { @"untouched", @"untouched" };   // a range past 2 raises before writing
    [a getObjects: buffer range: NSMakeRange(0, i)];
    return [NSArray arrayWithObjects: buffer count: 2];
}
static id pRemove(id m, NSUInteger i) { [m removeObjectAtIndex: i]; return nil; }
static id pReplace(id m, NSUInteger i) { [m replaceObjectAtIndex: i withObject: @"x"]; return nil; }
static id pReplaceNil(id m, NSUInteger i) { [m replaceObjectAtIndex: i withObject: css_opaque(nil)]; return nil; }
static id pInsert(id m, NSUInteger i) { [m insertObject: @"x" atIndex: i]; return nil; }
static id pInsertNil(id m, NSUInteger i) { [m insertObject: css_opaque(nil) atIndex: i]; return nil; }
static id pExchangeFirst(id m, NSUInteger i) { [m exchangeObjectAtIndex: 0 withObjectAtIndex: i]; return nil; }
static id pExchangeSecond(id m, NSUInteger i) { [m exchangeObjectAtIndex: i withObjectAtIndex: 0]; return nil; }
static id pSubscriptSet(id m, NSUInteger i) { [m setObject: @"x" atIndexedSubscript: i]; return nil; }
static id pSubscriptSetNil(id m, NSUInteger i) { [m setObject: css_opaque(nil) atIndexedSubscript: i]; return nil; }
static id pRemoveRangeEmpty(id m, NSUInteger i) { [m removeObjectsInRange: NSMakeRange(i, 0)]; return nil; }
static id pRemoveRangeOne(id m, NSUInteger i) { [m removeObjectsInRange: NSMakeRange(i, 1)]; return nil; }
static id pRemoveRangeTo(id m, NSUInteger i) { [m removeObjectsInRange: NSMakeRange(0, i)]; return nil; }
static id pReplaceRangeEmpty(id m, NSUInteger i) { [m replaceObjectsInRange: NSMakeRange(i, 0) withObjectsFromArray: xy()]; return nil; }
static id pReplaceRangeTo(id m, NSUInteger i) { [m replaceObjectsInRange: NSMakeRange(0, i) withObjectsFromArray: xy()]; return nil; }
static id pInsertTwoAt(id m, NSUInteger i) { [m insertObjects: xy() atIndexes: css_index_set(i)]; return nil; }
static id pInsertTwoAtPair(id m, NSUInteger i) { [m insertObjects: xy() atIndexes: css_index_set_pair(0, i)]; return nil; }
static id pInsertOneAtPair(id m, NSUInteger i) { [m insertObjects: [NSArray arrayWithObject: @"x"] atIndexes: css_index_set_pair(0, i)]; return nil; }
static id pInsertNilObjectsAt(id m, NSUInteger i) { [m insertObjects: css_opaque(nil) atIndexes: css_index_set(i)]; return nil; }
static id pInsertTwoAtNil(id m, NSUInteger i) { [m insertObjects: xy() atIndexes: css_opaque(nil)]; return nil; }
static id pRemoveAtIndexes(id m, NSUInteger i) { [m removeObjectsAtIndexes: css_index_set(i)]; return nil; }
static id pRemoveAtIndexesPair(id m, NSUInteger i) { [m removeObjectsAtIndexes: css_index_set_pair(0, i)]; return nil; }
static id pRemoveAtNil(id m, NSUInteger i) { [m removeObjectsAtIndexes: css_opaque(nil)]; return nil; }

static id rSubarray(id a, NSRange r) { return [a subarrayWithRange: r]; }
static id rGetObjects(id a, NSRange r) {
    __unsafe_unretained id buffer[2] = { @"untouched", @"untouched" };
    [a getObjects: buffer range: r];
    return [NSArray arrayWithObjects: buffer count: 2];
}
static id rRemoveRange(id m, NSRange r) { [m removeObjectsInRange: r]; return nil; }
static id rReplaceRange(id m, NSRange r) { [m replaceObjectsInRange: r withObjectsFromArray: xy()]; return nil; }
static id rIndexOf(id a, NSRange r) { return [NSNumber numberWithUnsignedLong: [a indexOfObject: @"b" inRange: r]]; }
static id rIndexOfIdentical(id a, NSRange r) {
    return [NSNumber numberWithUnsignedLong: [a indexOfObjectIdenticalTo: @"b" inRange: r]];
}
static id pIndexOfTo(id a, NSUInteger i) { return rIndexOf(a, NSMakeRange(0, i)); }
static id pIndexOfOne(id a, NSUInteger i) { return rIndexOf(a, NSMakeRange(i, 1)); }
static id pIndexOfEmpty(id a, NSUInteger i) { return rIndexOf(a, NSMakeRange(i, 0)); }
static id pIndexOfIdenticalTo(id a, NSUInteger i) { return rIndexOfIdentical(a, NSMakeRange(0, i)); }
static id pIndexOfIdenticalOne(id a, NSUInteger i) { return rIndexOfIdentical(a, NSMakeRange(i, 1)); }
CSS_OVERFLOW_PROBE_CALLS(rIndexOf)
CSS_OVERFLOW_PROBE_CALLS(rIndexOfIdentical)
CSS_OVERFLOW_PROBE_CALLS(rSubarray)
CSS_OVERFLOW_PROBE_CALLS(rGetObjects)
CSS_OVERFLOW_PROBE_CALLS(rRemoveRange)
CSS_OVERFLOW_PROBE_CALLS(rReplaceRange)

static const CSSProbe css_array_probe_table[] = {
    { "array.objectAtIndex:", 2, freshTwo, pObjectAtIndex },
    { "array.objectAtIndexedSubscript:", 2, freshTwo, pSubscript },
    { "array.objectsAtIndexes:{i}", 2, freshTwo, pObjectsAtIndexes },
    { "array.subarrayWithRange:{i,0}", 2, freshTwo, pSubarrayEmpty },
    { "array.subarrayWithRange:{i,1}", 2, freshTwo, pSubarrayOne },
    { "array.subarrayWithRange:{0,i}", 2, freshTwo, pSubarrayTo },
    { "array.getObjects:range:{0,i}", 2, freshTwo, pGetObjects },
    { "mutableArray.objectAtIndex:", 2, freshMutableTwo, pObjectAtIndex },
    { "mutableArray.objectsAtIndexes:{i}", 2, freshMutableTwo, pObjectsAtIndexes },
    { "mutableArray.removeObjectAtIndex:", 2, freshMutableTwo, pRemove },
    { "mutableArray.replaceObjectAtIndex:withObject:", 2, freshMutableTwo, pReplace },
    { "mutableArray.replaceObjectAtIndex:withObject:nil", 2, freshMutableTwo, pReplaceNil },
    { "mutableArray.insertObject:atIndex:", 2, freshMutableTwo, pInsert },
    { "mutableArray.insertObject:nil atIndex:", 2, freshMutableTwo, pInsertNil },
    { "mutableArray.exchangeObjectAtIndex:0 withObjectAtIndex:i", 2, freshMutableTwo, pExchangeFirst },
    { "mutableArray.exchangeObjectAtIndex:i withObjectAtIndex:0", 2, freshMutableTwo, pExchangeSecond },
    { "mutableArray.setObject:atIndexedSubscript:", 2, freshMutableTwo, pSubscriptSet },
    { "mutableArray.setObject:nil atIndexedSubscript:", 2, freshMutableTwo, pSubscriptSetNil },
    { "mutableArray.removeObjectsInRange:{i,0}", 2, freshMutableTwo, pRemoveRangeEmpty },
    { "mutableArray.removeObjectsInRange:{i,1}", 2, freshMutableTwo, pRemoveRangeOne },
    { "mutableArray.removeObjectsInRange:{0,i}", 2, freshMutableTwo, pRemoveRangeTo },
    { "mutableArray.replaceObjectsInRange:{i,0}withObjectsFromArray:", 2, freshMutableTwo, pReplaceRangeEmpty },
    { "mutableArray.replaceObjectsInRange:{0,i}withObjectsFromArray:", 2, freshMutableTwo, pReplaceRangeTo },
    { "mutableArray.insertObjects:(x,y) atIndexes:{i}", 2, freshMutableTwo, pInsertTwoAt },
    { "mutableArray.insertObjects:(x,y) atIndexes:{0,i}", 2, freshMutableTwo, pInsertTwoAtPair },
    { "mutableArray.insertObjects:(x) atIndexes:{0,i}", 2, freshMutableTwo, pInsertOneAtPair },
    { "mutableArray.insertObjects:nil atIndexes:{i}", 2, freshMutableTwo, pInsertNilObjectsAt },
    { "mutableArray.insertObjects:(x,y) atIndexes:nil", -1, freshMutableTwo, pInsertTwoAtNil },
    { "mutableArray.removeObjectsAtIndexes:{i}", 2, freshMutableTwo, pRemoveAtIndexes },
    { "mutableArray.removeObjectsAtIndexes:{0,i}", 2, freshMutableTwo, pRemoveAtIndexesPair },
    { "mutableArray.removeObjectsAtIndexes:nil", -1, freshMutableTwo, pRemoveAtNil },
    { "array.indexOfObject:inRange:{0,i}", 2, freshTwo, pIndexOfTo },
    { "array.indexOfObject:inRange:{i,1}", 2, freshTwo, pIndexOfOne },
    { "array.indexOfObject:inRange:{i,0}", 2, freshTwo, pIndexOfEmpty },
    { "array.indexOfObjectIdenticalTo:inRange:{0,i}", 2, freshTwo, pIndexOfIdenticalTo },
    { "mutableArray.indexOfObjectIdenticalTo:inRange:{i,1}", 2, freshMutableTwo, pIndexOfIdenticalOne },
    // Ranges whose end passes 2^64.
    CSS_OVERFLOW_PROBES("array.indexOfObject:inRange:", 2, freshTwo, rIndexOf),
    CSS_OVERFLOW_PROBES("mutableArray.indexOfObjectIdenticalTo:inRange:", 2, freshMutableTwo, rIndexOfIdentical),
    CSS_OVERFLOW_PROBES("array.subarrayWithRange:", 2, freshTwo, rSubarray),
    CSS_OVERFLOW_PROBES("array.getObjects:range:", 2, freshTwo, rGetObjects),
    CSS_OVERFLOW_PROBES("mutableArray.getObjects:range:", 2, freshMutableTwo, rGetObjects),
    CSS_OVERFLOW_PROBES("mutableArray.removeObjectsInRange:", 2, freshMutableTwo, rRemoveRange),
    CSS_OVERFLOW_PROBES("mutableArray.replaceObjectsInRange:withObjectsFromArray:", 2, freshMutableTwo, rReplaceRange),
};

const CSSProbe *css_array_probes(int *count) {
    *count = (int)(sizeof css_array_probe_table / sizeof css_array_probe_table[0]);
    return css_array_probe_table;
}

unsigned long css_array_adding_nil_retain_growth(unsigned long times) {
#if __has_feature(objc_arc)
    (void)times;
    return 0;
#else
    // An immutable array's -copy is the array retained once more: a recovery that leaked its copy leaves the count
    // higher once every pool drained.
    NSArray *array = [[NSArray alloc] initWithObjects: @"a", @"b", nil];
    NSUInteger before = [array retainCount];
    for (unsigned long i = 0; i < times; i++) {
        NSAutoreleasePool *pool = [[NSAutoreleasePool alloc] init];
        (void)[array arrayByAddingObject: css_opaque(nil)];
        [pool release];
    }
    NSUInteger after = [array retainCount];
    [array release];
    return (unsigned long)(after - before);
#endif
}
