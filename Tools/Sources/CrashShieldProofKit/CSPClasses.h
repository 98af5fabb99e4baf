// CSPClasses.h (private): the app's own classes the proof tools use: a KVC model and its variants, a plain object,
// and subclasses of the Foundation class clusters (an app may subclass them: the guards must not break them).
#ifndef CSP_CLASSES_H
#define CSP_CLASSES_H
#import <Foundation/Foundation.h>
#include "CSPSupport.h"

/// KVC-compliant: `name` (object), `level` (int), `child` (a CSPModel), `items` (an array).
@interface CSPModel : NSObject <CSPDescribing> {
    id _name;
    int _level;
    id _child;
    id _items;
}
+ (instancetype)modelNamed:(NSString *)name level:(int)level;
- (id)name;
- (void)setName:(id)name;
- (int)level;
- (void)setLevel:(int)level;
- (id)child;
- (void)setChild:(id)child;
- (id)items;
- (void)setItems:(id)items;
@end

/// Handles undefined keys and nil scalars itself (overrides the KVC fallbacks without calling super).
@interface CSPLenientModel : CSPModel
@end

/// Handles undefined keys and nil scalars through the older handlers GNUstep's NSObject still calls
/// (`handleQueryWithUnboundKey:`, `handleTakeValue:forUnboundKey:`, `unableToSetNilForKey:`).
@interface CSPLegacyModel : CSPModel
@end

/// An app class with one method (`value`, 1): messages it does not implement are the unrecognized-selector guard's.
@interface CSPPlain : NSObject
- (long)value;
@end

/// Counts the key-value changes and the notifications (-note:) it gets.
@interface CSPCountingObserver : NSObject { @public long _deliveries; }
- (void)note:(NSNotification *)notification;
@end

/// Subclasses of the class clusters, each backed by a Foundation instance (they implement the primitives only).
@interface CSPArray : NSArray { NSArray *_backing; }
@end
@interface CSPMutableArray : NSMutableArray { NSMutableArray *_backing; }
@end
@interface CSPDictionary : NSDictionary { NSDictionary *_backing; }
@end
@interface CSPMutableDictionary : NSMutableDictionary { NSMutableDictionary *_backing; }
@end
@interface CSPString : NSString { NSString *_backing; }
@end
@interface CSPMutableString : NSMutableString { NSMutableString *_backing; }
@end

#endif
