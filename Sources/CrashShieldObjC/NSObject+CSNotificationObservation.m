// NSObject+CSNotificationObservation.m: owner-bound notification blocks by priority, on CrashShield.observe's engine
// (ClosureObservations, through csbridge_observe): one trampoline observer per notification runs the blocks by
// priority; the owner's deallocation removes them.
#import "NSObject+CSNotificationObservation.h"
#import "CSBridge.h"
#import "CSSupport.h"

/// Swift calls this with the CSBlockBox of the block, the notification and the owner.
static void CSRunNotificationBlock(void *context, void *notification, void *owner) {
    CSBlockBox *box = CS_CONTEXT_OBJECT(context);
    ((CSNotificationBlock)box->_block)((CSR_BRIDGE NSNotification *)notification, (CSR_BRIDGE id)owner);
}

@interface CSNotificationObservation ()
- (instancetype)initWithIdentifier:(intptr_t)identifier;
@end

@implementation CSNotificationObservation

- (instancetype)initWithIdentifier:(intptr_t)identifier {
    if ((self = [super init])) _identifier = identifier;
    return self;
}

- (void)cancel {
    csbridge_observation_cancel(_identifier);
}

- (BOOL)isActive {
    return csbridge_observation_is_active(_identifier) ? YES : NO;
}

@end

@implementation NSObject (CSNotificationObservation)

- (CSNotificationObservation *)cs_observeNotificationName:(NSString *)name object:(id)object
                                                   center:(NSNotificationCenter *)center
                                                 priority:(CSNotificationPriority)priority
                                               usingBlock:(CSNotificationBlock)block error:(NSError **)error {
    if (![name isKindOfClass:[NSString class]] || !block) {
        CSInvalidArgument(@"cs_observeNotificationName: needs a name and a block", error);
        return nil;
    }
    if (center && ![center isKindOfClass:[NSNotificationCenter class]]) {
        CSInvalidArgument(@"cs_observeNotificationName: center must be an NSNotificationCenter", error);
        return nil;
    }
    CSBlockBox *box = [[CSBlockBox alloc] initWithBlock:block];
    intptr_t identifier = 0;
    char *message = NULL;
    // Swift owns the box from here (also on failure) and releases it when the observation ends.
    int32_t status = csbridge_observe((CSR_BRIDGE void *)center, [name UTF8String], (CSR_BRIDGE void *)object,
                                      (CSR_BRIDGE void *)self, priority, CSRunNotificationBlock,
                                      CS_RETAINED_CONTEXT(box), CSReleaseContext, &identifier, &message);
    CSR_RELEASE(box);
    if (!CSBridgeResult(status, message, error)) return nil;
    return CSR_AUTORELEASE([[CSNotificationObservation alloc] initWithIdentifier:identifier]);
}

- (CSNotificationObservation *)cs_observeNotificationName:(NSString *)name priority:(CSNotificationPriority)priority
                                               usingBlock:(CSNotificationBlock)block {
    return [self cs_observeNotificationName:name object:nil center:nil priority:priority usingBlock:block error:NULL];
}

- (CSNotificationObservation *)cs_observeNotificationName:(NSString *)name usingBlock:(CSNotificationBlock)block {
    return [self cs_observeNotificationName:name priority:CSNotificationPriorityDefault usingBlock:block];
}

- (void)cs_removeNotificationBlocksWithPriority:(CSNotificationPriority)priority {
    csbridge_remove_observations((CSR_BRIDGE void *)self, NULL, true, priority);
}

- (void)cs_removeNotificationBlocksForName:(NSString *)name {
    csbridge_remove_observations((CSR_BRIDGE void *)self, [name isKindOfClass:[NSString class]] ? [name UTF8String] : NULL,
                                 false, 0);
}

- (void)cs_removeNotificationBlocksForName:(NSString *)name priority:(CSNotificationPriority)priority {
    csbridge_remove_observations((CSR_BRIDGE void *)self, [name isKindOfClass:[NSString class]] ? [name UTF8String] : NULL,
                                 true, priority);
}

@end
