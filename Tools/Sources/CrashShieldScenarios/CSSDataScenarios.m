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
#if !defined(__APPLE__)
/// GNUstep checks only the location, then copies `range.length` bytes: an end past 2^64 writes past the data's buffer.
static const char *replaceBytesEndPast2e64(void) {
    NSMutableData *d = mutableHello();
    NSRange range;   // not NSMakeRange: GNUstep's raises for it
    range.location = css_opaque_index(2);
    range.length = NSUIntegerMax;
    [d replaceBytesInRange: range withBytes: "x"];
    return css_format("%lu", (unsigned long)[d length]);
}
/// GNUstep moves the tail from the range's end: an end past the end reads and writes past the data's buffer.
static const char *replaceBytesLengthEndPastEnd(void) {
    NSMutableData *d = mutableHello();
    [d replaceBytesInRange: NSMakeRange(3, css_opaque_index(5)) withBytes: "xy" length: 2];
    return css_format("%lu", (unsigned long)[d length]);
}
#endif
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
#if !defined(__APPLE__)
    { "mutableData.replaceBytes.endPast2e64", "container", "replaceBytesInRange:withBytes:", "SIGSEGV", "5", 1, replaceBytesEndPast2e64 },
    { "mutableData.replaceBytesLength.endPastEnd", "container", "replaceBytesInRange:withBytes:length:", "SIGSEGV", "5", 1, replaceBytesLengthEndPastEnd },
#endif
};

const CSSScenario *css_data_scenarios(int *count) {
    *count = (int)(sizeof css_data_table / sizeof css_data_table[0]);
    return css_data_table;
}

// MARK: Differential probes: ranges whose end passes 2^64 (CSS_OVERFLOW_PROBES)

static id freshData(void) { return [NSData dataWithBytes: "hello" length: 5]; }
static id freshMutableData(void) { return [NSMutableData dataWithBytes: "hello" length: 5]; }
static NSString *rangeText(NSRange range) {
    return [NSString stringWithFormat: @"{%lu,%lu}", (unsigned long)range.location, (unsigned long)range.length];
}
static NSData *ell(void) { return [NSData dataWithBytes: "l" length: 1]; }

static id rSubdata(id d, NSRange r) { return [d subdataWithRange: r]; }
static id rGetBytes(id d, NSRange r) {
    char buffer[8] = "-------";   // a range that does not raise reads at most 5 bytes
    [d getBytes: buffer range: r];
    return [NSString stringWithUTF8String: buffer];
}
static id rRangeOfData(id d, NSRange r) { return rangeText([d rangeOfData: ell() options: 0 range: r]); }
static id rRangeOfNilData(id d, NSRange r) { return rangeText([d rangeOfData: css_opaque(nil) options: 0 range: r]); }
static id rResetBytes(id m, NSRange r) { [m resetBytesInRange: r]; return nil; }
/// GNUstep copies `length` bytes from the caller's buffer (8 here) into the data: a longer range that does not start
/// past the end reads past that buffer (the caller's own fault), or with an end past 2^64 copies past the data's
/// (SIGSEGV, the crash matrix's scenario): not made here.
static id rReplaceBytes(id m, NSRange r) {
    if (r.location <= [m length] && r.length > 8) return css_probe_skipped();
    [m replaceBytesInRange: r withBytes: "xyzxyzxy"];
    return nil;
}
/// An end past 2^64 wraps to at most the location: GNUstep accepts it and stays within its buffer. An end past the
/// end that does not wrap ({0, UInt.max}) makes GNUstep move the tail from past its buffer (the crash matrix's
/// mutableData.replaceBytesLength.endPastEnd): not made here.
static id rReplaceBytesLength(id m, NSRange r) {
    if (r.location <= [m length] && r.location + r.length > [m length]) return css_probe_skipped();
    [m replaceBytesInRange: r withBytes: "xyz" length: 3];
    return nil;
}
CSS_OVERFLOW_PROBE_CALLS(rSubdata)
CSS_OVERFLOW_PROBE_CALLS(rGetBytes)
CSS_OVERFLOW_PROBE_CALLS(rRangeOfData)
CSS_OVERFLOW_PROBE_CALLS(rRangeOfNilData)
CSS_OVERFLOW_PROBE_CALLS(rResetBytes)
CSS_OVERFLOW_PROBE_CALLS(rReplaceBytes)
CSS_OVERFLOW_PROBE_CALLS(rReplaceBytesLength)

static const CSSProbe css_data_probe_table[] = {
    CSS_OVERFLOW_PROBES("data.subdataWithRange:", 5, freshData, rSubdata),
    CSS_OVERFLOW_PROBES("mutableData.subdataWithRange:", 5, freshMutableData, rSubdata),
    CSS_OVERFLOW_PROBES("data.getBytes:range:", 5, freshData, rGetBytes),
    CSS_OVERFLOW_PROBES("mutableData.getBytes:range:", 5, freshMutableData, rGetBytes),
    CSS_OVERFLOW_PROBES("data.rangeOfData:options:range:", 5, freshData, rRangeOfData),
    CSS_OVERFLOW_PROBES("data.rangeOfData:nil options:range:", 5, freshData, rRangeOfNilData),
    CSS_OVERFLOW_PROBES("mutableData.resetBytesInRange:", 5, freshMutableData, rResetBytes),
    CSS_OVERFLOW_PROBES("mutableData.replaceBytesInRange:withBytes:", 5, freshMutableData, rReplaceBytes),
    CSS_OVERFLOW_PROBES("mutableData.replaceBytesInRange:withBytes:length:", 5, freshMutableData, rReplaceBytesLength),
};

const CSSProbe *css_data_probes(int *count) {
    *count = (int)(sizeof css_data_probe_table / sizeof css_data_probe_table[0]);
    return css_data_probe_table;
}
