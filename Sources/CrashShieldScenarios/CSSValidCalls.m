// CSSValidCalls.m: valid container calls for the differential test. Every result is written into one text; the
// text must be identical with and without CrashShield.
#import <Foundation/Foundation.h>
#include "CSSFamilies.h"

static void add(NSMutableString *log, const char *label, id value) {
    [log appendFormat: @"%s=%@\n", label, value ? [value description] : @"nil"];
}

const char *css_valid_container_calls(void) {
    NSMutableString *log = [NSMutableString string];
    NSArray *a = css_opaque([NSArray arrayWithObjects: @"a", @"b", @"c", nil]);
    add(log, "objectAtIndex", [a objectAtIndex: 2]);
    add(log, "subscript", [a objectAtIndexedSubscript: 0]);   // a[0]
    add(log, "subarray.full", [a subarrayWithRange: NSMakeRange(0, 3)]);
    add(log, "subarray.emptyAtEnd", [a subarrayWithRange: NSMakeRange(3, 0)]);
    add(log, "objectsAtIndexes", [a objectsAtIndexes: [NSIndexSet indexSetWithIndexesInRange: NSMakeRange(1, 2)]]);
    add(log, "objectsAtIndexes.empty", [a objectsAtIndexes: [NSIndexSet indexSet]]);
    id buffer[3] = { nil, nil, nil };
    [a getObjects: buffer range: NSMakeRange(1, 2)];
    add(log, "getObjects", buffer[1]);
    id items[2] = { @"x", @"y" };
    add(log, "arrayWithObjects:count:", [NSArray arrayWithObjects: items count: 2]);
    add(log, "arrayWithObjects:count:0", [NSArray arrayWithObjects: NULL count: 0]);
    add(log, "arrayByAddingObject", [a arrayByAddingObject: @"d"]);
    NSMutableArray *m = [NSMutableArray arrayWithArray: a];
    [m addObject: @"d"];
    [m insertObject: @"start" atIndex: 0];
    [m insertObject: @"end" atIndex: [m count]];
    [m removeObjectAtIndex: 1];
    [m replaceObjectAtIndex: 0 withObject: @"first"];
    [m exchangeObjectAtIndex: 0 withObjectAtIndex: 1];
    [m setObject: @"appended" atIndexedSubscript: [m count]];   // m[m.count] = x: legal, appends
    [m setObject: @"zero" atIndexedSubscript: 0];
    [m removeObjectsInRange: NSMakeRange([m count], 0)];
    [m insertObjects: [NSArray arrayWithObjects: @"i1", @"i2", nil] atIndexes: [NSIndexSet indexSetWithIndexesInRange: NSMakeRange(1, 2)]];
    [m removeObjectsAtIndexes: [NSIndexSet indexSetWithIndex: 0]];
    [m replaceObjectsInRange: NSMakeRange(0, 1) withObjectsFromArray: [NSArray arrayWithObject: @"r"]];
    [m removeLastObject];
    add(log, "mutations", m);
    return [log UTF8String];
}
