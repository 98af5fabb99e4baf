#import "BadCalls.h"

/// A model filled by key-value coding.
@interface Profile : NSObject
@property (nonatomic, copy) NSString *nickname;
@end

@implementation Profile
@end

/// Observes a profile with KVO. `-stop` called twice (from `viewWillDisappear:` and `dealloc`, say) removes the
/// observer twice.
@interface NicknameWatcher : NSObject
- (instancetype)initWithProfile:(Profile *)profile;
- (void)stop;
@end

@implementation NicknameWatcher {
    Profile *_profile;
}

- (instancetype)initWithProfile:(Profile *)profile {
    if ((self = [super init])) {
        _profile = profile;
        [profile addObserver:self forKeyPath:@"nickname" options:NSKeyValueObservingOptionNew context:NULL];
    }
    return self;
}

- (void)stop {
    [_profile removeObserver:self forKeyPath:@"nickname"];
}

- (void)observeValueForKeyPath:(NSString *)keyPath ofObject:(id)object change:(NSDictionary *)change
                       context:(void *)context {
}

@end

/// What a server sent, as NSJSONSerialization hands it over: NSArray, NSDictionary, NSNull.
static id JSON(NSString *text) {
    return [NSJSONSerialization JSONObjectWithData:[text dataUsingEncoding:NSUTF8StringEncoding] options:0 error:NULL];
}

@implementation BadCall {
    NSString *(^_body)(void);
}

- (instancetype)initWithTitle:(NSString *)title body:(NSString *(^)(void))body {
    if ((self = [super init])) {
        _title = [title copy];
        _body = [body copy];
    }
    return self;
}

- (NSString *)run {
    return _body();
}

+ (NSArray<BadCall *> *)all {
    return @[
        [[BadCall alloc] initWithTitle:@"Index out of range (NSArray)" body:^NSString *{
            NSArray *tags = JSON(@"[\"new\", \"sale\"]");
            NSUInteger selected = 2;
            id tag = tags[selected];   // NSRangeException: index 2 beyond bounds [0 .. 1]
            return [NSString stringWithFormat:@"tags[2] returned %@", tag];
        }],
        [[BadCall alloc] initWithTitle:@"nil value (NSMutableDictionary)" body:^NSString *{
            NSMutableDictionary *session = [NSMutableDictionary dictionary];
            NSString *token = [NSUserDefaults.standardUserDefaults stringForKey:@"token"];   // nil: not logged in
            [session setObject:token forKey:@"token"];   // NSInvalidArgumentException: object cannot be nil
            return [NSString stringWithFormat:@"setObject:nil was skipped: %lu entries", (unsigned long)session.count];
        }],
        [[BadCall alloc] initWithTitle:@"Undefined key (KVC)" body:^NSString *{
            Profile *profile = [Profile new];
            // The server renamed a field: NSUnknownKeyException, not key value coding-compliant for "avatar_url"
            [profile setValuesForKeysWithDictionary:JSON(@"{\"nickname\": \"kim\", \"avatar_url\": \"https://example.com/k.png\"}")];
            return [NSString stringWithFormat:@"the undefined key was skipped; nickname = %@", profile.nickname];
        }],
        [[BadCall alloc] initWithTitle:@"Observer removed twice (KVO)" body:^NSString *{
            NicknameWatcher *watcher = [[NicknameWatcher alloc] initWithProfile:[Profile new]];
            [watcher stop];
            [watcher stop];   // NSRangeException: Cannot remove an observer ... because it is not registered
            return @"the second removeObserver: was skipped";
        }],
        [[BadCall alloc] initWithTitle:@"JSON null used as a string (NSNull)" body:^NSString *{
            NSDictionary *user = JSON(@"{\"nickname\": null}");
            NSString *nickname = user[@"nickname"];   // NSNull, not nil
            NSUInteger length = nickname.length;      // -[NSNull length]: unrecognized selector sent to instance
            return [NSString stringWithFormat:@"nickname.length returned %lu, as a message to nil would",
                                              (unsigned long)length];
        }],
    ];
}

@end
