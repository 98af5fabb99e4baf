// CSPClasses.m: the app's own classes the proof tools use (see CSPClasses.h).
#import <Foundation/Foundation.h>
#include "CSPClasses.h"

/// Stores `value` (retained) into `*slot`, releasing what was there (MRC); a plain store under ARC.
#if __has_feature(objc_arc)
#define CSP_ASSIGN(slot, value) ((slot) = (value))
#else
#define CSP_ASSIGN(slot, value) do { id csp_new = [(value) retain]; [(slot) release]; (slot) = csp_new; } while (0)
#endif

@implementation CSPModel
+ (instancetype)modelNamed:(NSString *)name level:(int)level {
    CSPModel *model = CSP_AUTORELEASE([[self alloc] init]);
    [model setName: name];
    [model setLevel: level];
    return model;
}
- (id)name { return _name; }
- (void)setName:(id)name { CSP_ASSIGN(_name, name); }
- (int)level { return _level; }
- (void)setLevel:(int)level { _level = level; }
- (id)child { return _child; }
- (void)setChild:(id)child { CSP_ASSIGN(_child, child); }
- (id)items { return _items; }
- (void)setItems:(id)items { CSP_ASSIGN(_items, items); }
- (NSString *)cspDescription {
    CSPText text = {0};
    csp_text_appendf(&text, "<%s name=", class_getName([self class]));
    csp_describe(&text, _name, false);
    csp_text_appendf(&text, " level=%d child=", _level);
    csp_describe(&text, _child, false);
    csp_text_append(&text, " items=");
    csp_describe(&text, _items, false);
    csp_text_append(&text, ">");
    char *bytes = csp_text_take(&text);
    NSString *description = [NSString stringWithUTF8String: bytes];
    free(bytes);
    return description;
}
/// Without an address: `%@` of a model must read the same in every run.
- (NSString *)description { return [self cspDescription]; }
- (void)dealloc {
    CSP_RELEASE(_name);
    CSP_RELEASE(_child);
    CSP_RELEASE(_items);
    CSP_SUPER_DEALLOC();
}
@end

@implementation CSPLenientModel
- (id)valueForUndefinedKey:(NSString *)key { return @"lenient"; }
- (void)setValue:(id)value forUndefinedKey:(NSString *)key { [self setName: @"lenient-set"]; }
- (void)setNilValueForKey:(NSString *)key { [self setLevel: -1]; }
@end

@implementation CSPLegacyModel
- (id)handleQueryWithUnboundKey:(NSString *)key { return @"legacy"; }
- (void)handleTakeValue:(id)value forUnboundKey:(NSString *)key { [self setName: @"legacy-set"]; }
- (void)unableToSetNilForKey:(NSString *)key { [self setLevel: -2]; }
@end

@implementation CSPPlain
- (long)value { return 1; }
- (NSString *)description { return @"<CSPPlain>"; }
@end

@implementation CSPCountingObserver
- (void)observeValueForKeyPath:(NSString *)keyPath ofObject:(id)object change:(NSDictionary *)change context:(void *)context {
    _deliveries++;
}
- (void)note:(NSNotification *)notification { _deliveries++; }
@end

// MARK: Class-cluster subclasses: primitives only, forwarded to a Foundation instance

@implementation CSPArray
- (instancetype)initWithObjects:(const id [])objects count:(NSUInteger)count {
    if ((self = [super init])) _backing = [[NSArray alloc] initWithObjects: objects count: count];
    return self;
}
- (NSUInteger)count { return [_backing count]; }
- (id)objectAtIndex:(NSUInteger)index { return [_backing objectAtIndex: index]; }
- (void)dealloc { CSP_RELEASE(_backing); CSP_SUPER_DEALLOC(); }
@end

@implementation CSPMutableArray
- (instancetype)initWithCapacity:(NSUInteger)capacity {
    if ((self = [super init])) _backing = [[NSMutableArray alloc] initWithCapacity: capacity];
    return self;
}
- (instancetype)init { return [self initWithCapacity: 0]; }
- (instancetype)initWithObjects:(const id [])objects count:(NSUInteger)count {
    if ((self = [super init])) _backing = [[NSMutableArray alloc] initWithObjects: objects count: count];
    return self;
}
- (NSUInteger)count { return [_backing count]; }
- (id)objectAtIndex:(NSUInteger)index { return [_backing objectAtIndex: index]; }
- (void)addObject:(id)object { [_backing addObject: object]; }
- (void)insertObject:(id)object atIndex:(NSUInteger)index { [_backing insertObject: object atIndex: index]; }
- (void)removeObjectAtIndex:(NSUInteger)index { [_backing removeObjectAtIndex: index]; }
- (void)replaceObjectAtIndex:(NSUInteger)index withObject:(id)object { [_backing replaceObjectAtIndex: index withObject: object]; }
- (void)removeLastObject { [_backing removeLastObject]; }
- (void)dealloc { CSP_RELEASE(_backing); CSP_SUPER_DEALLOC(); }
@end

@implementation CSPDictionary
- (instancetype)initWithObjects:(const id [])objects forKeys:(const id<NSCopying> [])keys count:(NSUInteger)count {
    if ((self = [super init])) _backing = [[NSDictionary alloc] initWithObjects: objects forKeys: keys count: count];
    return self;
}
- (NSUInteger)count { return [_backing count]; }
- (id)objectForKey:(id)key { return [_backing objectForKey: key]; }
- (NSEnumerator *)keyEnumerator { return [_backing keyEnumerator]; }
- (NSUInteger)countByEnumeratingWithState:(NSFastEnumerationState *)state objects:(__unsafe_unretained id [])buffer
                                    count:(NSUInteger)length {
    return [_backing countByEnumeratingWithState: state objects: buffer count: length];
}
- (void)dealloc { CSP_RELEASE(_backing); CSP_SUPER_DEALLOC(); }
@end

@implementation CSPMutableDictionary
- (instancetype)initWithCapacity:(NSUInteger)capacity {
    if ((self = [super init])) _backing = [[NSMutableDictionary alloc] initWithCapacity: capacity];
    return self;
}
- (instancetype)init { return [self initWithCapacity: 0]; }
- (instancetype)initWithObjects:(const id [])objects forKeys:(const id<NSCopying> [])keys count:(NSUInteger)count {
    if ((self = [super init])) _backing = [[NSMutableDictionary alloc] initWithObjects: objects forKeys: keys count: count];
    return self;
}
- (NSUInteger)count { return [_backing count]; }
- (id)objectForKey:(id)key { return [_backing objectForKey: key]; }
- (NSEnumerator *)keyEnumerator { return [_backing keyEnumerator]; }
- (void)setObject:(id)object forKey:(id<NSCopying>)key { [_backing setObject: object forKey: key]; }
- (void)removeObjectForKey:(id)key { [_backing removeObjectForKey: key]; }
- (NSUInteger)countByEnumeratingWithState:(NSFastEnumerationState *)state objects:(__unsafe_unretained id [])buffer
                                    count:(NSUInteger)length {
    return [_backing countByEnumeratingWithState: state objects: buffer count: length];
}
- (void)dealloc { CSP_RELEASE(_backing); CSP_SUPER_DEALLOC(); }
@end

@implementation CSPString
- (instancetype)initWithString:(NSString *)string {
    if ((self = [super init])) _backing = [string copy];
    return self;
}
- (NSUInteger)length { return [_backing length]; }
- (unichar)characterAtIndex:(NSUInteger)index { return [_backing characterAtIndex: index]; }
- (void)getCharacters:(unichar *)buffer range:(NSRange)range { [_backing getCharacters: buffer range: range]; }
- (void)dealloc { CSP_RELEASE(_backing); CSP_SUPER_DEALLOC(); }
@end

@implementation CSPMutableString
- (instancetype)initWithString:(NSString *)string {
    if ((self = [super init])) _backing = [string mutableCopy];
    return self;
}
- (instancetype)initWithCapacity:(NSUInteger)capacity {
    if ((self = [super init])) _backing = [[NSMutableString alloc] initWithCapacity: capacity];
    return self;
}
- (NSUInteger)length { return [_backing length]; }
- (unichar)characterAtIndex:(NSUInteger)index { return [_backing characterAtIndex: index]; }
- (void)getCharacters:(unichar *)buffer range:(NSRange)range { [_backing getCharacters: buffer range: range]; }
- (void)replaceCharactersInRange:(NSRange)range withString:(NSString *)string {
    [_backing replaceCharactersInRange: range withString: string];
}
- (void)dealloc { CSP_RELEASE(_backing); CSP_SUPER_DEALLOC(); }
@end
