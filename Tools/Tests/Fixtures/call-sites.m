// The app code of CallSiteTests: bad calls where an optimized build leaves no frame of the function that made them
// (tail calls) and callers without an exported name (static functions). Built by the test with clang -O2 into a
// shared library and loaded; -DCALL_SITES_MOVED builds "the next release": an unrelated function before all of it
// moves every call site and every displacement in the code after it.
// Read the code: objdump -d --no-show-raw-insn libcallsites.so | less
// The same source for iOS: clang -target arm64-apple-ios13.0 -isysroot ~/apple-sdks/iPhoneOS17.4.sdk -O2 -S \
//     -fobjc-arc -o - call-sites.m
#import <Foundation/Foundation.h>

#if CALL_SITES_MOVED
__attribute__((noinline)) int cs_unrelated_feature(int x) {
    int sum = 0;
    for (int i = 0; i < x; i++) sum += i * i % 7;
    return sum + (int)[[NSString stringWithFormat:@"%d", sum] length];
}
#endif

// Four functions, each ending in the bad read: `return [items objectAtIndex:...]` is a tail call at -O2.
__attribute__((noinline)) id cs_feed_title(NSArray *items, NSUInteger index) { return [items objectAtIndex:index]; }
__attribute__((noinline)) id cs_feed_subtitle(NSArray *items, NSUInteger index) {
    return [items objectAtIndex:index + 1];
}
__attribute__((noinline)) id cs_feed_image(NSArray *items, NSUInteger index) { return [items objectAtIndex:index * 2]; }
__attribute__((noinline)) id cs_feed_footer(NSArray *items, NSUInteger index) {
    return [items objectAtIndex:index + 3];
}

/// Calls the four with a bad index: how many answered nil (4 when every bad read was recovered).
int cs_tail_calls(NSUInteger index) {
    NSArray *items = [NSArray arrayWithObjects:@"a", @"b", nil];
    int nils = 0;
    nils += cs_feed_title(items, index) == nil;
    nils += cs_feed_subtitle(items, index) == nil;
    nils += cs_feed_image(items, index) == nil;
    nils += cs_feed_footer(items, index) == nil;
    return nils;
}

/// An Objective-C method whose last statement is the bad read: sent a message, it leaves no frame either.
@interface CSFeedController : NSObject {
    NSArray *_items;
}
- (id)reloadFeed:(NSUInteger)index;
@end

@implementation CSFeedController
- (instancetype)init {
    if ((self = [super init])) _items = [[NSArray alloc] initWithObjects:@"a", nil];
    return self;
}
#if !__has_feature(objc_arc)
- (void)dealloc {
    [_items release];
    [super dealloc];
}
#endif
- (id)reloadFeed:(NSUInteger)index { return [_items objectAtIndex:index]; }
@end

/// Sends -reloadFeed: with a bad index; 1 when the bad read was recovered.
int cs_tail_call_method(NSUInteger index) {
    CSFeedController *controller = [[CSFeedController alloc] init];
    id found = [controller reloadFeed:index];
#if !__has_feature(objc_arc)
    [controller release];
#endif
    return found == nil;
}

// Two static functions (no exported name: the device cannot name them) with different bad calls. Each keeps its
// frame (the read is not its last call).
static __attribute__((noinline)) NSString *cs_static_first(NSArray *items, NSUInteger index) {
    id found = [items objectAtIndex:index];
    return found ? [found description] : @"first";
}
static __attribute__((noinline)) NSString *cs_static_second(NSArray *items, NSUInteger index) {
    id found = [items objectAtIndex:index + 10];
    return found ? [found uppercaseString] : @"second";
}

/// Calls both with a bad index: how many fell back (2 when both bad reads were recovered).
int cs_static_calls(NSUInteger index) {
    NSArray *items = [NSArray arrayWithObjects:@"a", @"b", nil];
    return [cs_static_first(items, index) isEqual:@"first"] + [cs_static_second(items, index) isEqual:@"second"];
}
