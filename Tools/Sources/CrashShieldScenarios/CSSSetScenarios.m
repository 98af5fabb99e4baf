// CSSSetScenarios.m: NSSet / NSMutableSet / NSOrderedSet / NSMutableOrderedSet calls that crash without CrashShield.
#import <Foundation/Foundation.h>
#include "CSSFamilies.h"

static NSSet *twoSet(void) { return css_opaque([NSSet setWithObjects: @"a", @"b", nil]); }
static NSMutableSet *mutableTwoSet(void) { return css_opaque([NSMutableSet setWithObjects: @"a", @"b", nil]); }
static NSOrderedSet *twoOrdered(void) { return css_opaque([NSOrderedSet orderedSetWithObjects: @"a", @"b", nil]); }
static NSMutableOrderedSet *mutableTwoOrdered(void) { return css_opaque([NSMutableOrderedSet orderedSetWithObjects: @"a", @"b", nil]); }

// MARK: NSSet, NSMutableSet

static const char *setWithNilElement(void) {
    id objects[3] = { @"a", css_opaque(nil), @"c" };
    return css_set_contents([NSSet setWithObjects: objects count: 3]);   // what [NSSet setWithArray:@[a, missing, c]]-style code hits
}
static const char *setWithNilObject(void) { return css_set_contents([NSSet setWithObject: css_opaque(nil)]); }
static const char *setByAddingNil(void) { return css_set_contents([twoSet() setByAddingObject: css_opaque(nil)]); }
static const char *mutableSetAddNil(void) { NSMutableSet *s = mutableTwoSet(); [s addObject: css_opaque(nil)]; return css_set_contents(s); }

// MARK: NSOrderedSet, NSMutableOrderedSet

static const char *orderedWithNilElement(void) {
    id objects[3] = { @"a", css_opaque(nil), @"c" };
    return css_ordered_set_contents([NSOrderedSet orderedSetWithObjects: objects count: 3]);
}
static const char *orderedWithNilObject(void) { return css_ordered_set_contents([NSOrderedSet orderedSetWithObject: css_opaque(nil)]); }
static const char *mutableOrderedWithNilElement(void) {
    id objects[3] = { @"a", css_opaque(nil), @"c" };
    return css_ordered_set_contents([NSMutableOrderedSet orderedSetWithObjects: objects count: 3]);
}
static const char *orderedObjectAtIndexBeyondEnd(void) { return css_describe([twoOrdered() objectAtIndex: css_opaque_index(5)]); }
static const char *orderedSubscriptBeyondEnd(void) { return css_describe([twoOrdered() objectAtIndexedSubscript: css_opaque_index(2)]); }   // o[2]
static const char *orderedEmptyFirstElement(void) { return css_describe([css_opaque([NSOrderedSet orderedSet]) objectAtIndex: 0]); }
static const char *orderedObjectsAtIndexesPastEnd(void) {
    return css_describe([twoOrdered() objectsAtIndexes: [NSIndexSet indexSetWithIndexesInRange: NSMakeRange(1, 5)]]);
}
static const char *orderedGetObjects(NSOrderedSet *o, NSRange range) {
    __unsafe_unretained id buffer[2] = { @"untouched", @"untouched" };
    [o getObjects: buffer range: range];
    return css_describe(buffer[0]);
}
static const char *orderedGetObjectsPastEnd(void) { return orderedGetObjects(twoOrdered(), NSMakeRange(1, 3)); }
/// {2^64 - 1, 2}: its end wraps to 1 (issue 32); GS_RANGE_CHECK and Apple's check reject it.
static const char *mutableOrderedGetObjectsWrapping(void) {
    return orderedGetObjects(mutableTwoOrdered(), css_range(css_opaque_index(NSUIntegerMax), 2));
}
static const char *mutableOrderedObjectAtIndexBeyondEnd(void) { return css_describe([mutableTwoOrdered() objectAtIndex: css_opaque_index(2)]); }
static const char *mutableOrderedAddNil(void) { NSMutableOrderedSet *o = mutableTwoOrdered(); [o addObject: css_opaque(nil)]; return css_ordered_set_contents(o); }
static const char *mutableOrderedInsertNil(void) { NSMutableOrderedSet *o = mutableTwoOrdered(); [o insertObject: css_opaque(nil) atIndex: 0]; return css_ordered_set_contents(o); }
static const char *mutableOrderedRemovePastEnd(void) { NSMutableOrderedSet *o = mutableTwoOrdered(); [o removeObjectAtIndex: css_opaque_index(9)]; return css_ordered_set_contents(o); }
static const char *mutableOrderedReplacePastEnd(void) { NSMutableOrderedSet *o = mutableTwoOrdered(); [o replaceObjectAtIndex: css_opaque_index(9) withObject: @"x"]; return css_ordered_set_contents(o); }
static const char *mutableOrderedReplaceWithNil(void) { NSMutableOrderedSet *o = mutableTwoOrdered(); [o replaceObjectAtIndex: 0 withObject: css_opaque(nil)]; return css_ordered_set_contents(o); }
static const char *mutableOrderedSubscriptSetPastEnd(void) { NSMutableOrderedSet *o = mutableTwoOrdered(); [o setObject: @"x" atIndexedSubscript: css_opaque_index(3)]; return css_ordered_set_contents(o); }   // o[3] = x
static const char *mutableOrderedSubscriptSetNil(void) { NSMutableOrderedSet *o = mutableTwoOrdered(); [o setObject: css_opaque(nil) atIndexedSubscript: 0]; return css_ordered_set_contents(o); }   // o[0] = nil
static const char *mutableOrderedExchangePastEnd(void) { NSMutableOrderedSet *o = mutableTwoOrdered(); [o exchangeObjectAtIndex: 0 withObjectAtIndex: css_opaque_index(9)]; return css_ordered_set_contents(o); }

static const CSSScenario css_set_table[] = {
    { "set.literal.nilElement", "container", "initWithObjects:count:", "NSInvalidArgumentException", "{a,c}", 1, setWithNilElement },
    { "set.setWithObject.nil", "container", "initWithObjects:count:", "NSInvalidArgumentException", "{}", 1, setWithNilObject },
    { "set.setByAddingObject.nil", "container", "setByAddingObject:", "NSInvalidArgumentException", "{a,b}", 1, setByAddingNil },
    { "mutableSet.addObject.nil", "container", "addObject:", "NSInvalidArgumentException", "{a,b}", 1, mutableSetAddNil },
#if defined(__APPLE__)
#define CSS_ORDERED_RANGE "NSRangeException"
#else
#define CSS_ORDERED_RANGE "NSInternalInconsistencyException"   // GNUstep fails an assertion in GSIArrayItemAtIndex
#endif
    { "orderedSet.literal.nilElement", "container", "initWithObjects:count:", "NSInvalidArgumentException", "(a,c)", 1, orderedWithNilElement },
    { "orderedSet.orderedSetWithObject.nil", "container", "initWithObjects:count:", "NSInvalidArgumentException", "()", 1, orderedWithNilObject },
    { "orderedSet.objectAtIndex.beyondEnd", "container", "objectAtIndex:", CSS_ORDERED_RANGE, "nil", 1, orderedObjectAtIndexBeyondEnd },
    { "orderedSet.subscript.beyondEnd", "container", "objectAtIndexedSubscript:", CSS_ORDERED_RANGE, "nil", 1, orderedSubscriptBeyondEnd },
    { "orderedSet.objectAtIndex.empty", "container", "objectAtIndex:", CSS_ORDERED_RANGE, "nil", 1, orderedEmptyFirstElement },
    { "orderedSet.objectsAtIndexes.pastEnd", "container", "objectsAtIndexes:", CSS_ORDERED_RANGE, "nil", 1, orderedObjectsAtIndexesPastEnd },
    { "orderedSet.getObjectsRange.pastEnd", "container", "getObjects:range:", "NSRangeException", "untouched", 1, orderedGetObjectsPastEnd },
    { "mutableOrderedSet.getObjectsRange.wrappingEnd", "container", "getObjects:range:", "NSRangeException", "untouched", 1, mutableOrderedGetObjectsWrapping },
    { "mutableOrderedSet.literal.nilElement", "container", "initWithObjects:count:", "NSInvalidArgumentException", "(a,c)", 1, mutableOrderedWithNilElement },
    { "mutableOrderedSet.objectAtIndex.beyondEnd", "container", "objectAtIndex:", CSS_ORDERED_RANGE, "nil", 1, mutableOrderedObjectAtIndexBeyondEnd },
    { "mutableOrderedSet.addObject.nil", "container", "addObject:", "NSInvalidArgumentException", "(a,b)", 1, mutableOrderedAddNil },
    { "mutableOrderedSet.insertObject.nil", "container", "insertObject:atIndex:", "NSInvalidArgumentException", "(a,b)", 1, mutableOrderedInsertNil },
    { "mutableOrderedSet.removeObjectAtIndex.pastEnd", "container", "removeObjectAtIndex:", CSS_ORDERED_RANGE, "(a,b)", 1, mutableOrderedRemovePastEnd },
    { "mutableOrderedSet.replaceObjectAtIndex.pastEnd", "container", "replaceObjectAtIndex:withObject:", CSS_ORDERED_RANGE, "(a,b)", 1, mutableOrderedReplacePastEnd },
    { "mutableOrderedSet.replaceObjectAtIndex.nil", "container", "replaceObjectAtIndex:withObject:", "NSInvalidArgumentException", "(a,b)", 1, mutableOrderedReplaceWithNil },
    { "mutableOrderedSet.subscriptSet.pastEnd", "container", "setObject:atIndexedSubscript:", CSS_ORDERED_RANGE, "(a,b)", 1, mutableOrderedSubscriptSetPastEnd },
    { "mutableOrderedSet.subscriptSet.nil", "container", "setObject:atIndexedSubscript:", "NSInvalidArgumentException", "(a,b)", 1, mutableOrderedSubscriptSetNil },
    { "mutableOrderedSet.exchange.pastEnd", "container", "exchangeObjectAtIndex:withObjectAtIndex:", "NSRangeException", "(a,b)", 1, mutableOrderedExchangePastEnd },
};

const CSSScenario *css_set_scenarios(int *count) {
    *count = (int)(sizeof css_set_table / sizeof css_set_table[0]);
    return css_set_table;
}

// MARK: Differential probes: index edges (count, count + 1, 2^32 and above, NSNotFound)

static id freshOrdered(void) { return [NSOrderedSet orderedSetWithObjects: @"a", @"b", nil]; }
static id freshMutableOrdered(void) { return [NSMutableOrderedSet orderedSetWithObjects: @"a", @"b", nil]; }

static id pOrderedObjectAtIndex(id o, NSUInteger i) { return [o objectAtIndex: i]; }
static id pOrderedSubscript(id o, NSUInteger i) { return [o objectAtIndexedSubscript: i]; }
/// GNUstep loops for ever on a nil index set (what {NSNotFound} is), with or without CrashShield.
static id pOrderedObjectsAtIndexes(id o, NSUInteger i) { return i == NSNotFound ? css_probe_skipped() : [o objectsAtIndexes: css_index_set(i)]; }
/// Two indexes whose low 32 bits differ from their order: {i, 2^32}.
static id pOrderedObjectsAtIndexesPair(id o, NSUInteger i) {
    return i == NSNotFound ? css_probe_skipped() : [o objectsAtIndexes: css_index_set_pair(i, (NSUInteger)1 << 32)];
}
static id pOrderedRemove(id o, NSUInteger i) { [o removeObjectAtIndex: i]; return nil; }
static id pOrderedReplace(id o, NSUInteger i) { [o replaceObjectAtIndex: i withObject: @"x"]; return nil; }
static id pOrderedReplaceNil(id o, NSUInteger i) { [o replaceObjectAtIndex: i withObject: css_opaque(nil)]; return nil; }
static id pOrderedSubscriptSet(id o, NSUInteger i) { [o setObject: @"x" atIndexedSubscript: i]; return nil; }
static id pOrderedSubscriptSetNil(id o, NSUInteger i) { [o setObject: css_opaque(nil) atIndexedSubscript: i]; return nil; }
static id pOrderedInsert(id o, NSUInteger i) { [o insertObject: @"x" atIndex: i]; return nil; }
static id pOrderedInsertNil(id o, NSUInteger i) { [o insertObject: css_opaque(nil) atIndex: i]; return nil; }
static id pOrderedExchangeFirst(id o, NSUInteger i) { [o exchangeObjectAtIndex: 0 withObjectAtIndex: i]; return nil; }
static id pOrderedExchangeSecond(id o, NSUInteger i) { [o exchangeObjectAtIndex: i withObjectAtIndex: 0]; return nil; }

static id rOrderedGetObjects(id o, NSRange r) {
    __unsafe_unretained id buffer[2] = { @"untouched", @"untouched" };   // a range past 2 raises before writing
    [o getObjects: buffer range: r];
    return [NSArray arrayWithObjects: buffer count: 2];
}
static id pOrderedGetObjectsTo(id o, NSUInteger i) { return rOrderedGetObjects(o, NSMakeRange(0, i)); }
static id pOrderedGetObjectsOne(id o, NSUInteger i) { return rOrderedGetObjects(o, NSMakeRange(i, 1)); }
CSS_OVERFLOW_PROBE_CALLS(rOrderedGetObjects)

static const CSSProbe css_ordered_set_probe_table[] = {
    { "orderedSet.getObjects:range:{0,i}", 2, freshOrdered, pOrderedGetObjectsTo },
    { "mutableOrderedSet.getObjects:range:{i,1}", 2, freshMutableOrdered, pOrderedGetObjectsOne },
    CSS_OVERFLOW_PROBES("orderedSet.getObjects:range:", 2, freshOrdered, rOrderedGetObjects),
    CSS_OVERFLOW_PROBES("mutableOrderedSet.getObjects:range:", 2, freshMutableOrdered, rOrderedGetObjects),
    { "orderedSet.objectAtIndex:", 2, freshOrdered, pOrderedObjectAtIndex },
    { "orderedSet.objectAtIndexedSubscript:", 2, freshOrdered, pOrderedSubscript },
    { "orderedSet.objectsAtIndexes:{i}", 2, freshOrdered, pOrderedObjectsAtIndexes },
    { "orderedSet.objectsAtIndexes:{i,2^32}", 2, freshOrdered, pOrderedObjectsAtIndexesPair },
    { "mutableOrderedSet.objectAtIndex:", 2, freshMutableOrdered, pOrderedObjectAtIndex },
    { "mutableOrderedSet.objectAtIndexedSubscript:", 2, freshMutableOrdered, pOrderedSubscript },
    { "mutableOrderedSet.objectsAtIndexes:{i}", 2, freshMutableOrdered, pOrderedObjectsAtIndexes },
    { "mutableOrderedSet.removeObjectAtIndex:", 2, freshMutableOrdered, pOrderedRemove },
    { "mutableOrderedSet.replaceObjectAtIndex:withObject:", 2, freshMutableOrdered, pOrderedReplace },
    { "mutableOrderedSet.replaceObjectAtIndex:withObject:nil", 2, freshMutableOrdered, pOrderedReplaceNil },
    { "mutableOrderedSet.setObject:atIndexedSubscript:", 2, freshMutableOrdered, pOrderedSubscriptSet },
    { "mutableOrderedSet.setObject:nil atIndexedSubscript:", 2, freshMutableOrdered, pOrderedSubscriptSetNil },
    { "mutableOrderedSet.insertObject:atIndex:", 2, freshMutableOrdered, pOrderedInsert },
    { "mutableOrderedSet.insertObject:nil atIndex:", 2, freshMutableOrdered, pOrderedInsertNil },
    { "mutableOrderedSet.exchangeObjectAtIndex:0 withObjectAtIndex:i", 2, freshMutableOrdered, pOrderedExchangeFirst },
    { "mutableOrderedSet.exchangeObjectAtIndex:i withObjectAtIndex:0", 2, freshMutableOrdered, pOrderedExchangeSecond },
};

const CSSProbe *css_ordered_set_probes(int *count) {
    *count = (int)(sizeof css_ordered_set_probe_table / sizeof css_ordered_set_probe_table[0]);
    return css_ordered_set_probe_table;
}
