// CSSValidCalls.m: valid container calls for the differential test. Every result is written into one text; the
// text must be identical with and without CrashShield.
#import <Foundation/Foundation.h>
#include "CSSFamilies.h"

static void add(NSMutableString *log, const char *label, id value) {
    [log appendFormat: @"%s=%@\n", label, value ? [value description] : @"nil"];
}

/// A line whose value is already a deterministic text (sorted contents).
static void addText(NSMutableString *log, const char *label, const char *text) {
    [log appendFormat: @"%s=%s\n", label, text];
}

static void css_valid_dictionary_calls(NSMutableString *log) {
    id keys[2] = { @"k1", @"k2" };
    id values[2] = { @"v1", @"v2" };
    NSDictionary *d = css_opaque([NSDictionary dictionaryWithObjects: values forKeys: keys count: 2]);   // @{k1: v1, k2: v2}
    addText(log, "dictionaryWithObjects:forKeys:count:", css_dictionary_contents(d));
    addText(log, "dictionaryWithObjects:forKeys:count:0", css_dictionary_contents([NSDictionary dictionaryWithObjects: NULL forKeys: NULL count: 0]));
    addText(log, "dictionaryWithObject:forKey:", css_dictionary_contents([NSDictionary dictionaryWithObject: @"v" forKey: @"k"]));
    addText(log, "dictionaryWithObjects:forKeys:", css_dictionary_contents([NSDictionary dictionaryWithObjects:
        [NSArray arrayWithObjects: @"a", @"b", nil] forKeys: [NSArray arrayWithObjects: @"ka", @"kb", nil]]));
    addText(log, "dictionaryWithObjects:forKeys:empty", css_dictionary_contents([NSDictionary dictionaryWithObjects:
        [NSArray array] forKeys: [NSArray array]]));
    addText(log, "dictionaryWithObjects:nil forKeys:nil", css_dictionary_contents(
        [NSDictionary dictionaryWithObjects: css_opaque(nil) forKeys: css_opaque(nil)]));
    add(log, "objectForKey", [d objectForKey: @"k2"]);
    add(log, "objectForKey:nil", [d objectForKey: css_opaque(nil)]);                        // legal: nil
    add(log, "objectForKeyedSubscript:nil", [d objectForKeyedSubscript: css_opaque(nil)]);  // d[nil]: legal, nil
    NSMutableDictionary *m = css_opaque([NSMutableDictionary dictionaryWithObjects: values forKeys: keys count: 2]);
    addText(log, "mutable.dictionaryWithObjects:forKeys:count:", css_dictionary_contents(m));
    [m setObject: @"v3" forKey: @"k3"];
    [m setObject: @"v1'" forKey: @"k1"];
    [m setObject: @"v4" forKeyedSubscript: @"k4"];          // m[k4] = v4
    [m setObject: css_opaque(nil) forKeyedSubscript: @"k2"];  // m[k2] = nil: legal, removes k2
    [m setValue: @"v5" forKey: @"k5"];
    [m setValue: css_opaque(nil) forKey: @"k5"];              // legal: removes k5
#if !defined(__APPLE__)
    // Legal on GNUstep (Apple raises for some): nil keys and arguments that GNUstep ignores.
    [m setObject: css_opaque(nil) forKeyedSubscript: css_opaque(nil)];   // m[nil] = nil
    [m removeObjectForKey: css_opaque(nil)];
    [m addEntriesFromDictionary: css_opaque(nil)];
    [m removeObjectsForKeys: css_opaque(nil)];
#endif
    addText(log, "mutableDictionary.mutations", css_dictionary_contents(m));
}

static void css_valid_set_calls(NSMutableString *log) {
    id items[3] = { @"c", @"a", @"b" };
    NSSet *s = css_opaque([NSSet setWithObjects: items count: 3]);
    addText(log, "setWithObjects:count:", css_set_contents(s));
    addText(log, "setWithObjects:count:0", css_set_contents([NSSet setWithObjects: NULL count: 0]));
    addText(log, "setWithObject:", css_set_contents([NSSet setWithObject: @"x"]));
    addText(log, "setByAddingObject:", css_set_contents([s setByAddingObject: @"d"]));
    add(log, "containsObject:nil", [NSNumber numberWithBool: [s containsObject: css_opaque(nil)]]);   // legal: NO
    add(log, "member:nil", [s member: css_opaque(nil)]);                                               // legal: nil
    NSMutableSet *m = css_opaque([NSMutableSet setWithObjects: items count: 2]);
    [m addObject: @"z"];
    [m addObject: @"a"];
    [m removeObject: @"c"];
#if !defined(__APPLE__)
    [m removeObject: css_opaque(nil)];   // legal on GNUstep
    id withNil[2] = { @"n", css_opaque(nil) };
    // Legal on GNUstep: a mutable set built with nil objects drops them (and logs).
    addText(log, "mutableSet.setWithObjects:count:nil", css_set_contents([NSMutableSet setWithObjects: withNil count: 2]));
#endif
    addText(log, "mutableSet.mutations", css_set_contents(m));
    addText(log, "mutableSet.setByAddingObject:", css_set_contents([m setByAddingObject: @"y"]));
}

static void css_valid_ordered_set_calls(NSMutableString *log) {
    id items[3] = { @"a", @"b", @"c" };
    NSOrderedSet *o = css_opaque([NSOrderedSet orderedSetWithObjects: items count: 3]);
    addText(log, "orderedSetWithObjects:count:", css_ordered_set_contents(o));
    addText(log, "orderedSetWithObjects:count:0", css_ordered_set_contents([NSOrderedSet orderedSetWithObjects: NULL count: 0]));
    addText(log, "orderedSetWithObject:", css_ordered_set_contents([NSOrderedSet orderedSetWithObject: @"x"]));
    add(log, "orderedSet.objectAtIndex", [o objectAtIndex: 2]);
    add(log, "orderedSet.subscript", [o objectAtIndexedSubscript: 0]);   // o[0]
    add(log, "orderedSet.objectsAtIndexes", [o objectsAtIndexes: [NSIndexSet indexSetWithIndexesInRange: NSMakeRange(1, 2)]]);
    add(log, "orderedSet.objectsAtIndexes.empty", [o objectsAtIndexes: [NSIndexSet indexSet]]);
    add(log, "orderedSet.containsObject:nil", [NSNumber numberWithBool: [o containsObject: css_opaque(nil)]]);   // legal: NO
    add(log, "orderedSet.indexOfObject:nil", [NSNumber numberWithUnsignedLong: (unsigned long)[o indexOfObject: css_opaque(nil)]]);
    NSMutableOrderedSet *m = css_opaque([NSMutableOrderedSet orderedSetWithObjects: items count: 3]);
    addText(log, "mutableOrderedSet.orderedSetWithObjects:count:", css_ordered_set_contents(m));
    add(log, "mutableOrderedSet.objectAtIndex", [m objectAtIndex: 1]);
    add(log, "mutableOrderedSet.subscript", [m objectAtIndexedSubscript: 2]);   // m[2]
    [m addObject: @"d"];
    [m addObject: @"a"];                          // already there: no change
    [m insertObject: @"start" atIndex: 0];
    [m insertObject: @"end" atIndex: [m count]];
    [m removeObjectAtIndex: 1];
    [m replaceObjectAtIndex: 0 withObject: @"first"];
    [m setObject: @"appended" atIndexedSubscript: [m count]];   // m[m.count] = x: legal, appends
    [m setObject: @"zero" atIndexedSubscript: 0];               // m[0] = x
    [m exchangeObjectAtIndex: 0 withObjectAtIndex: 1];
    [m removeObject: css_opaque(nil)];                          // legal: no-op
#if !defined(__APPLE__)
    [m insertObject: @"past" atIndex: [m count] + 5];           // legal on GNUstep: appends
#endif
    addText(log, "mutableOrderedSet.mutations", css_ordered_set_contents(m));
}

/// NSData at every edge Foundation accepts: empty ranges at the end, reads up to the end, mutations that grow.
static void css_valid_data_calls(NSMutableString *log) {
    NSData *d = css_opaque([NSData dataWithBytes: "hello" length: 5]);
    add(log, "subdata.full", [d subdataWithRange: NSMakeRange(0, 5)]);
    add(log, "subdata.emptyAtEnd", [d subdataWithRange: NSMakeRange(5, 0)]);
    char buffer[6] = "-----";
    [d getBytes: buffer range: NSMakeRange(3, 2)];
    [d getBytes: buffer range: NSMakeRange(5, 0)];
    add(log, "getBytes", [NSString stringWithUTF8String: buffer]);
    NSRange found = [d rangeOfData: [NSData dataWithBytes: "lo" length: 2] options: 0 range: NSMakeRange(0, 5)];
    add(log, "rangeOfData", NSStringFromRange(found));
    NSMutableData *m = [NSMutableData dataWithData: d];
    [m replaceBytesInRange: NSMakeRange(5, 0) withBytes: "x"];          // at the end: inserts nothing
    [m replaceBytesInRange: NSMakeRange(4, 3) withBytes: "xyz"];        // ends past the end: grows
    [m replaceBytesInRange: NSMakeRange(7, 0) withBytes: "!!" length: 2];
    [m resetBytesInRange: NSMakeRange(0, 2)];
    [m resetBytesInRange: NSMakeRange([m length], 0)];
    add(log, "mutableData", m);
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
    __unsafe_unretained id buffer[3] = { nil, nil, nil };
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
    css_valid_dictionary_calls(log);
    css_valid_set_calls(log);
    css_valid_ordered_set_calls(log);
    css_valid_data_calls(log);
    return [log UTF8String];
}

// MARK: Differential probes (one call, guards off and on)

typedef const CSSProbe *(*CSSProbeFamily)(int *count);

static const CSSProbeFamily css_probe_families[] = {
    css_array_probes,
    css_ordered_set_probes,
    css_string_probes,
    css_data_probes,
    css_kvc_probes,
    css_foundation_probes,
    css_file_handle_probes,
    css_predicate_probes,
};

static const CSSProbe *css_probes(int *count) {
    static CSSProbe all[1024];
    static int total = -1;
    if (total < 0) {
        int n = 0;
        for (size_t f = 0; f < sizeof css_probe_families / sizeof css_probe_families[0]; f++) {
            int familyCount = 0;
            const CSSProbe *family = css_probe_families[f](&familyCount);
            for (int i = 0; i < familyCount && n < 1024; i++) all[n++] = family[i];
        }
        total = n;
    }
    *count = total;
    return all;
}

int css_probe_count(void) {
    int count = 0;
    css_probes(&count);
    return count;
}

static const CSSProbe *css_probe(int probe) {
    int count = 0;
    const CSSProbe *all = css_probes(&count);
    return probe >= 0 && probe < count ? &all[probe] : NULL;
}

const char *css_probe_name(int probe) { return css_probe(probe) ? css_probe(probe)->name : ""; }
long css_probe_size(int probe) { return css_probe(probe) ? css_probe(probe)->size : -1; }
bool css_probe_reason_is_undefined(int probe) { return css_probe(probe) && css_probe(probe)->reasonIsUndefined; }

id css_probe_skipped(void) { return @"<skipped>"; }

NSRange css_range(NSUInteger location, NSUInteger length) {
    NSRange range;
    range.location = location;
    range.length = length;
    return range;
}

NSIndexSet *css_index_set(NSUInteger index) { return [NSIndexSet indexSetWithIndex: index]; }

NSIndexSet *css_index_set_pair(NSUInteger first, NSUInteger second) {
    if (first == NSNotFound || second == NSNotFound) return nil;   // an index set cannot hold NSNotFound
    NSMutableIndexSet *set = [NSMutableIndexSet indexSetWithIndex: first];
    [set addIndex: second];
    return set;
}

/// Deterministic contents of a receiver (sorted for unordered collections).
static const char *css_probe_contents(id object) {
    if ([object isKindOfClass: [NSOrderedSet class]]) return css_ordered_set_contents(object);
    if ([object isKindOfClass: [NSSet class]]) return css_set_contents(object);
    if ([object isKindOfClass: [NSDictionary class]]) return css_dictionary_contents(object);
    return css_describe(object);
}

const char *css_probe_run(int probe, unsigned long index) {
    const CSSProbe *p = css_probe(probe);
    if (p == NULL) return "skipped";
    id receiver = p->receiver();
    const char *before = css_probe_contents(receiver);
    id result = nil;
    NSString *raised = @"none";
    @try {
        result = p->call(receiver, index);
    } @catch (NSException *exception) {
        raised = [NSString stringWithFormat: @"%@: %@", [exception name], [exception reason]];
    }
    if (result == css_probe_skipped()) return "skipped";
    return css_format("result=%s\nbefore=%s\nafter=%s\nraised=%s", css_describe(result), before,
                      css_probe_contents(receiver), [raised UTF8String]);
}
