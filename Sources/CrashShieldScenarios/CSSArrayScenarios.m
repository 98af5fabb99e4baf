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
static const char *removeLastOfEmpty(void) {
    NSMutableArray *m = css_opaque([NSMutableArray array]);
    [m removeLastObject];
    return css_format("count=%lu", (unsigned long)[m count]);
}

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
    { "mutableArray.removeLastObject.empty", "container", "removeLastObject", "NSRangeException", "count=0", 1, removeLastOfEmpty },
};

const CSSScenario *css_array_scenarios(int *count) {
    *count = (int)(sizeof css_array_table / sizeof css_array_table[0]);
    return css_array_table;
}
