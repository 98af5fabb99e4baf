// CSSFileHandleScenarios.m: NSFileHandle's legacy methods failing in the system call under them, which raise
// NSFileHandleOperationException (GNUstep 1.28's GSFileHandle.m; Apple's NSConcreteFileHandle, public crash logs in
// Docs/AppleRuntime.md §17): a write to a full device (Linux's /dev/full fails every write with ENOSPC, as a full
// disk does), a seek on a pipe, a read from a write-only handle, a second close. Then the differential probes: valid
// reads, writes, seeks and truncations of a real file, and the failing ones, guards off and on.
#import <Foundation/Foundation.h>
#include <fcntl.h>
#include <objc/runtime.h>
#include <unistd.h>
#include "CSSFamilies.h"

static const char *returned = "returned";
static const char *dataText(NSData *data) { return data ? css_format("length=%lu", (unsigned long)[data length]) : "nil"; }
static NSData *line(void) { return [NSData dataWithBytes: "log line\n" length: 9]; }
static NSFileHandle *pipeEnd(BOOL writing) {
    NSPipe *pipe = [NSPipe pipe];
    return css_opaque(writing ? [pipe fileHandleForWriting] : [pipe fileHandleForReading]);
}
static NSFileHandle *closedHandle(void) {
    NSFileHandle *handle = pipeEnd(YES);
    [handle closeFile];
    return handle;
}

#if !defined(__APPLE__)
/// Linux's /dev/full: every write fails with ENOSPC ("No space left on device"), what a full disk answers. Apple has
/// no such device (its rows would need a full volume).
static NSFileHandle *fullDevice(void) { return css_opaque([NSFileHandle fileHandleForWritingAtPath: @"/dev/full"]); }
static const char *writeNoSpace(void) { [fullDevice() writeData: line()]; return returned; }
static const char *readFromWriteOnly(void) { return dataText([fullDevice() readDataToEndOfFile]); }
static const char *availableFromWriteOnly(void) { return dataText([fullDevice() availableData]); }
static const char *writeToReadOnly(void) { [pipeEnd(NO) writeData: line()]; return returned; }
static const char *seekToEndOfPipe(void) { return css_format("offset=%llu", [pipeEnd(NO) seekToEndOfFile]); }
static const char *offsetInPipe(void) { return css_format("offset=%llu", [pipeEnd(YES) offsetInFile]); }
static const char *seekInPipe(void) { [pipeEnd(NO) seekToFileOffset: 4]; return returned; }
/// GNUstep's truncateFileAtOffset: ignores ftruncate's failure and then seeks, which raises: reported as the app's call.
static const char *truncatePipe(void) { [pipeEnd(YES) truncateFileAtOffset: 0]; return returned; }
static const char *readLengthFromClosed(void) { return dataText([closedHandle() readDataOfLength: 4]); }
static const char *closeTwice(void) { [closedHandle() closeFile]; return returned; }

/// GNUstep makes no system call to seek a handle that is not a regular file (a pipe's) and words its reason from
/// whatever errno was left (`[NSError _last]`): those rows' reasons are undefined.
static const CSSScenario css_file_handle_table[] = {
    { "fileHandle.writeData.noSpace", "container", "writeData:", "NSFileHandleOperationException", "returned", 1, writeNoSpace },
    { "fileHandle.writeData.readOnly", "container", "writeData:", "NSFileHandleOperationException", "returned", 1, writeToReadOnly },
    { "fileHandle.readDataToEndOfFile.writeOnly", "container", "readDataToEndOfFile", "NSFileHandleOperationException", "length=0", 1, readFromWriteOnly },
    { "fileHandle.availableData.writeOnly", "container", "availableData", "NSFileHandleOperationException", "length=0", 1, availableFromWriteOnly },
    { "fileHandle.readDataOfLength.closed", "container", "readDataOfLength:", "NSFileHandleOperationException", "length=0", 1, readLengthFromClosed },
    { "fileHandle.seekToEndOfFile.pipe", "container", "seekToEndOfFile", "NSFileHandleOperationException", "offset=0", 1, seekToEndOfPipe, true },
    { "fileHandle.offsetInFile.pipe", "container", "offsetInFile", "NSFileHandleOperationException", "offset=0", 1, offsetInPipe, true },
    { "fileHandle.seekToFileOffset.pipe", "container", "seekToFileOffset:", "NSFileHandleOperationException", "returned", 1, seekInPipe, true },
    { "fileHandle.truncateFileAtOffset.pipe", "container", "truncateFileAtOffset:", "NSFileHandleOperationException", "returned", 1, truncatePipe, true },
    { "fileHandle.closeFile.twice", "container", "closeFile", "NSFileHandleOperationException", "returned", 1, closeTwice },
};
#endif

/// GNUstep's rows only: Apple's texts for these failures are known for a full disk alone (Docs/AppleRuntime.md §17).
const CSSScenario *css_file_handle_scenarios(int *count) {
#if !defined(__APPLE__)
    *count = (int)(sizeof css_file_handle_table / sizeof css_file_handle_table[0]);
    return css_file_handle_table;
#else
    *count = 0;
    return NULL;
#endif
}

void css_file_handle_write_string(void) {
    @autoreleasepool {
        [[NSFileHandle fileHandleWithNullDevice] writeData: css_opaque(@"not data")];
    }
}

const char *css_file_handle_class_name(void) { return class_getName([[NSFileHandle fileHandleWithStandardError] class]); }

// MARK: Differential probes: a real file "hello" (the receiver is its path, so before and after compare its name),
// opened for each call; the index is an offset or a length.

static NSString *helloPath(void) {
    static NSString *path;
    if (path == nil) {
        path = [[NSTemporaryDirectory() stringByAppendingPathComponent:
                 [NSString stringWithFormat: @"css-file-handle-%d.txt", (int)getpid()]] copy];
    }
    return path;
}
/// A fresh file "hello"; the receiver of every probe below.
static id freshHelloFile(void) {
    [[NSData dataWithBytes: "hello" length: 5] writeToFile: helloPath() atomically: NO];
    return helloPath();
}
static id contents(NSString *path) {
    NSData *data = [NSData dataWithContentsOfFile: path];
    return [NSString stringWithFormat: @"%@ (%lu bytes)", data, (unsigned long)[data length]];
}
static NSFileHandle *updating(NSString *path) { return [NSFileHandle fileHandleForUpdatingAtPath: path]; }
/// Offsets past 1 MB make a sparse file of that size: not made.
static BOOL tooFar(NSUInteger i) { return i > (1u << 20); }

static id pSeek(id path, NSUInteger i) {
    NSFileHandle *h = updating(path);
    [h seekToFileOffset: i];
    id result = [NSNumber numberWithUnsignedLongLong: [h offsetInFile]];
    [h closeFile];
    return result;
}
static id pWriteAt(id path, NSUInteger i) {
    if (tooFar(i)) return css_probe_skipped();
    NSFileHandle *h = updating(path);
    [h seekToFileOffset: i];
    [h writeData: [NSData dataWithBytes: "xy" length: 2]];
    [h synchronizeFile];
    [h closeFile];
    return contents(path);
}
static id pAppend(id path, NSUInteger i) {
    NSFileHandle *h = updating(path);
    unsigned long long end = [h seekToEndOfFile];
    [h writeData: [NSData dataWithBytes: "!!!!" length: i % 5]];
    [h closeFile];
    return [NSString stringWithFormat: @"end=%llu %@", end, contents(path)];
}
static id pTruncate(id path, NSUInteger i) {
    if (tooFar(i)) return css_probe_skipped();
    NSFileHandle *h = updating(path);
    [h truncateFileAtOffset: i];
    id result = [NSString stringWithFormat: @"offset=%llu %@", [h offsetInFile], contents(path)];
    [h closeFile];
    return result;
}
static id pReadLength(id path, NSUInteger i) {
    NSFileHandle *h = [NSFileHandle fileHandleForReadingAtPath: path];
    NSData *data = [h readDataOfLength: i];
    [h closeFile];
    return data;
}
static id pReadToEnd(id path, NSUInteger i) {
    NSFileHandle *h = [NSFileHandle fileHandleForReadingAtPath: path];
    if (!tooFar(i)) [h seekToFileOffset: i];
    NSData *data = [h readDataToEndOfFile];
    NSData *more = [h availableData];
    [h closeFile];
    return [NSArray arrayWithObjects: data, more, nil];
}
/// Failing calls: a pipe's ends (no seeking), a handle closed before the call, a write-only handle read.
static id pPipeSeek(id path, NSUInteger i) { (void)path; [pipeEnd(NO) seekToFileOffset: i]; return nil; }
static id pPipeTruncate(id path, NSUInteger i) { (void)path; [pipeEnd(YES) truncateFileAtOffset: i]; return nil; }
static id pClosedRead(id path, NSUInteger i) { (void)path; return [closedHandle() readDataOfLength: i]; }
static id pWriteOnlyRead(id path, NSUInteger i) {
    NSFileHandle *h = [NSFileHandle fileHandleForWritingAtPath: path];
    NSData *data = [h readDataOfLength: i];
    [h closeFile];
    return data;
}
#if !defined(__APPLE__)
static id pFullWrite(id path, NSUInteger i) {
    (void)path;
    if (tooFar(i)) return css_probe_skipped();
    NSMutableData *data = [NSMutableData dataWithLength: i];
    [fullDevice() writeData: data];   // nothing to write (i == 0) succeeds
    return nil;
}
#endif

static const CSSProbe css_file_handle_probe_table[] = {
    { "file.seekToFileOffset:", 5, freshHelloFile, pSeek },
    { "file.writeData:atOffset", 5, freshHelloFile, pWriteAt },
    { "file.seekToEndOfFile+writeData:", 5, freshHelloFile, pAppend },
    { "file.truncateFileAtOffset:", 5, freshHelloFile, pTruncate },
    { "file.readDataOfLength:", 5, freshHelloFile, pReadLength },
    { "file.readDataToEndOfFile+availableData", 5, freshHelloFile, pReadToEnd },
    { "file.pipe.seekToFileOffset:", 5, freshHelloFile, pPipeSeek, true },   // a stale errno's text (above)
    { "file.pipe.truncateFileAtOffset:", 5, freshHelloFile, pPipeTruncate, true },
    { "file.closed.readDataOfLength:", 5, freshHelloFile, pClosedRead },
    { "file.writeOnly.readDataOfLength:", 5, freshHelloFile, pWriteOnlyRead },
#if !defined(__APPLE__)
    { "file.devFull.writeData:", 5, freshHelloFile, pFullWrite },
#endif
};

const CSSProbe *css_file_handle_probes(int *count) {
    *count = (int)(sizeof css_file_handle_probe_table / sizeof css_file_handle_probe_table[0]);
    return css_file_handle_probe_table;
}
