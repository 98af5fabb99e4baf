// CSSDataScenarios.m: NSData / NSMutableData calls that crash without CrashShield (on GNUstep and on Apple).
#import <Foundation/Foundation.h>
#include "CSSFamilies.h"

static NSData *hello(void) { return css_opaque([NSData dataWithBytes: "hello" length: 5]); }
static NSMutableData *mutableHello(void) { return css_opaque([NSMutableData dataWithBytes: "hello" length: 5]); }

static const char *describeData(NSData *data) {
    return css_format("%lu:%.*s", (unsigned long)[data length], (int)[data length], (const char *)[data bytes]);
}
static const char *subdataPastEnd(void) { return describeData([hello() subdataWithRange: NSMakeRange(3, 5)]); }
static const char *mutableSubdataPastEnd(void) { return describeData([mutableHello() subdataWithRange: NSMakeRange(6, 0)]); }
static const char *getBytesPastEnd(void) {
    char buffer[8] = "-------";
    [hello() getBytes: buffer range: NSMakeRange(2, 4)];
    return css_format("%s", buffer);
}
static const char *mutableGetBytesPastEnd(void) {
    char buffer[8] = "-------";
    [mutableHello() getBytes: buffer range: NSMakeRange(5, 1)];
    return css_format("%s", buffer);
}
static const char *rangeOfNilData(void) {
    NSRange found = [hello() rangeOfData: css_opaque(nil) options: 0 range: NSMakeRange(0, 5)];
    return css_format("{%ld,%lu}", found.location == NSNotFound ? -1L : (long)found.location, (unsigned long)found.length);
}
static const char *rangeOfDataPastEnd(void) {
    NSRange found = [hello() rangeOfData: [NSData dataWithBytes: "l" length: 1] options: 0 range: NSMakeRange(3, 5)];
    return css_format("{%ld,%lu}", found.location == NSNotFound ? -1L : (long)found.location, (unsigned long)found.length);
}

static const char *replaceBytesPastEnd(void) {
    NSMutableData *d = mutableHello();
    [d replaceBytesInRange: NSMakeRange(6, 1) withBytes: "x"];
    return css_format("%lu", (unsigned long)[d length]);
}
static const char *replaceBytesLengthPastEnd(void) {
    NSMutableData *d = mutableHello();
    [d replaceBytesInRange: NSMakeRange(7, 0) withBytes: "xy" length: 2];
    return css_format("%lu", (unsigned long)[d length]);
}
static const char *resetBytesPastEnd(void) {
    NSMutableData *d = mutableHello();
    [d resetBytesInRange: NSMakeRange(3, 5)];
    return css_format("%lu", (unsigned long)[d length]);
}

static const CSSScenario css_data_table[] = {
    { "data.subdataWithRange.pastEnd", "container", "subdataWithRange:", "NSRangeException", "0:", 1, subdataPastEnd },
    { "mutableData.subdataWithRange.pastEnd", "container", "subdataWithRange:", "NSRangeException", "0:", 1, mutableSubdataPastEnd },
    { "data.getBytesRange.pastEnd", "container", "getBytes:range:", "NSRangeException", "-------", 1, getBytesPastEnd },
    { "mutableData.getBytesRange.pastEnd", "container", "getBytes:range:", "NSRangeException", "-------", 1, mutableGetBytesPastEnd },
    { "data.rangeOfData.nil", "container", "rangeOfData:options:range:", "NSInvalidArgumentException", "{-1,0}", 1, rangeOfNilData },
    { "data.rangeOfData.pastEnd", "container", "rangeOfData:options:range:", "NSRangeException", "{-1,0}", 1, rangeOfDataPastEnd },
    { "mutableData.replaceBytes.pastEnd", "container", "replaceBytesInRange:withBytes:", "NSRangeException", "5", 1, replaceBytesPastEnd },
    { "mutableData.replaceBytesLength.pastEnd", "container", "replaceBytesInRange:withBytes:length:", "NSRangeException", "5", 1, replaceBytesLengthPastEnd },
    { "mutableData.resetBytes.pastEnd", "container", "resetBytesInRange:", "NSRangeException", "5", 1, resetBytesPastEnd },
};

const CSSScenario *css_data_scenarios(int *count) {
    *count = (int)(sizeof css_data_table / sizeof css_data_table[0]);
    return css_data_table;
}
