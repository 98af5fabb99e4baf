// CSBAppWorkload.m: what an app does on a screen load, in Objective-C: build and parse JSON, fill models with KVC,
// sort, walk arrays, format and cut strings, fill dictionaries and sets. Only valid calls: the guards must cost
// (almost) nothing here, and the result (a checksum) must be the same with and without them.
#include "CrashShieldBenchKernels.h"
#include "CSBSupport.h"

/// A model object filled by key-value coding (setters, a scalar unboxed from NSNumber, an undefined-key handler).
@interface CSBUser : NSObject {
    NSString *name;
    NSString *email;
    NSArray *tags;
    long score;
    long identifier;
}
@property (nonatomic, copy) NSString *name;
@property (nonatomic, copy) NSString *email;
@property (nonatomic, retain) NSArray *tags;
@property (nonatomic) long score;
@end

@implementation CSBUser
@synthesize name, email, tags, score;
- (void)setValue: (id)value forUndefinedKey: (NSString *)key {
    // "id" is the JSON key; the model keeps it in `identifier` (what apps do with reserved words).
    if ([key isEqualToString: @"id"]) identifier = [value longValue];
}
#if !__has_feature(objc_arc)
- (void)dealloc {
    [name release];
    [email release];
    [tags release];
    [super dealloc];
}
#endif
@end

enum { CSBUsers = 40 };

/// The server's answer: an array of user dictionaries, with a JSON null in each.
static NSArray *makePayload(unsigned long seed) {
    NSMutableArray *users = [NSMutableArray arrayWithCapacity: CSBUsers];
    for (int i = 0; i < CSBUsers; i++) {
        long value = (long)((seed + (unsigned long)i * 37) % 101);
        NSArray *tags = [NSArray arrayWithObjects: @"swift", (i & 1) ? @"objc" : @"ios",
                         [NSString stringWithFormat: @"t%d", i % 5], nil];
        NSDictionary *user = [NSDictionary dictionaryWithObjectsAndKeys:
            [NSNumber numberWithInt: i], @"id",
            [NSString stringWithFormat: @"User %d %lu", i, seed & 7], @"name",
            [NSString stringWithFormat: @"user%d@example.org", i], @"email",
            [NSNumber numberWithLong: value], @"score",
            tags, @"tags",
            [NSNull null], @"avatar",
            nil];
        [users addObject: user];
    }
    return users;
}

static NSArray *parseModels(NSArray *json) {
    NSMutableArray *models = [NSMutableArray arrayWithCapacity: [json count]];
    for (NSDictionary *entry in json) {
        CSBUser *user = [[CSBUser alloc] init];
        for (NSString *key in entry) {
            id value = [entry objectForKey: key];
            if (value != [NSNull null]) [user setValue: value forKey: key];
        }
        [models addObject: user];
        CSB_RELEASE(user);
    }
    return models;
}

static unsigned long walkAndFormat(NSArray *sorted, NSMutableDictionary *byEmail, NSMutableSet *tagSet) {
    unsigned long checksum = 0;
    NSUInteger count = [sorted count];
    for (NSUInteger i = 0; i < count; i++) {
        CSBUser *user = [sorted objectAtIndex: i];
        NSString *line = [NSString stringWithFormat: @"%@ <%@> %ld", [user name], [user email], [user score]];
        NSRange at = [line rangeOfString: @"@"];
        NSString *local = [line substringToIndex: at.location];
        NSString *domain = [[line substringFromIndex: at.location + 1] uppercaseString];
        NSArray *words = [local componentsSeparatedByString: @" "];
        checksum = checksum * 31 + [local length] + [domain length] + [words count] + [line characterAtIndex: 0];
        if ([domain hasPrefix: @"EXAMPLE"]) checksum += 1;
        [byEmail setObject: user forKey: [user email]];
        for (NSString *tag in [user tags]) [tagSet addObject: tag];
        checksum += (unsigned long)[[user valueForKey: @"score"] longValue];
    }
    for (NSUInteger i = 0; i < count; i++) {
        CSBUser *user = [sorted objectAtIndexedSubscript: i];
        if ([byEmail objectForKey: [user email]] == user) checksum += 3;
        if ([tagSet containsObject: @"objc"]) checksum += 1;
    }
    return checksum + [tagSet count] + [byEmail count];
}

/// One screen load; returns its checksum.
static unsigned long screenLoad(unsigned long seed) {
    unsigned long checksum = 0;
    @autoreleasepool {
        NSData *data = [NSJSONSerialization dataWithJSONObject: makePayload(seed) options: 0 error: NULL];
        NSArray *json = [NSJSONSerialization JSONObjectWithData: data options: 0 error: NULL];
        NSArray *models = parseModels(json);
        NSSortDescriptor *byScore = [NSSortDescriptor sortDescriptorWithKey: @"score" ascending: NO];
        NSSortDescriptor *byName = [NSSortDescriptor sortDescriptorWithKey: @"name" ascending: YES];
        NSArray *sorted = [models sortedArrayUsingDescriptors: [NSArray arrayWithObjects: byScore, byName, nil]];
        NSMutableDictionary *byEmail = [NSMutableDictionary dictionaryWithCapacity: [sorted count]];
        NSMutableSet *tagSet = [NSMutableSet setWithCapacity: 16];
        checksum = [data length] + walkAndFormat(sorted, byEmail, tagSet);
    }
    return checksum;
}

static unsigned long csb_checksum;

double csb_app_workload(unsigned long iterations) {
    unsigned long checksum = 0;
    double start = csb_now();
    for (unsigned long i = 0; i < iterations; i++) checksum = checksum * 7 + screenLoad(i);
    double ns = (csb_now() - start) / (double)iterations;
    csb_checksum = checksum;
    return ns;
}

unsigned long csb_app_workload_checksum(void) { return csb_checksum; }
