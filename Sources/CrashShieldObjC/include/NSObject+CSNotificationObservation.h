// NSObject+CSNotificationObservation.h: blocks observing notifications, bound to an owner, by priority.
#import "CSTypes.h"

NS_ASSUME_NONNULL_BEGIN

/// Orders the blocks observing one notification: higher runs first; equal priorities run in the order they were
/// added. Any value; these are Swift's `NotificationPriority` levels.
typedef double CSNotificationPriority CS_OBJC_ONLY;
static const CSNotificationPriority CSNotificationPriorityLow = 250;
static const CSNotificationPriority CSNotificationPriorityDefault = 1000;
static const CSNotificationPriority CSNotificationPriorityHigh = 750000;

/// Gets the notification and the owner (the object that registered the block; never retained by CrashShield).
typedef void (^CSNotificationBlock)(NSNotification *note, id owner) CS_OBJC_ONLY;

/// One block observing a notification.
CS_OBJC_ONLY
@interface CSNotificationObservation : NSObject {
@private
    intptr_t _identifier;   // in the interface: GCC's libobjc (GNUstep) has the fragile ABI
}
/// Stops the block. Idempotent; safe from any thread, also from inside the block.
- (void)cancel;
/// NO once cancelled, removed or its owner was deallocated.
@property (nonatomic, readonly, getter=isActive) BOOL active;
- (instancetype)init CS_UNAVAILABLE;
@end

/// Blocks bound to their owner (the receiver): they run until the owner is deallocated (nothing to remove in
/// `-dealloc`) or are removed, by name, by priority or one by one. The owner is never retained: capture it weakly
/// or use the block's `owner` argument. Blocks run on the posting thread (or where `cs_post...onThread:` says).
/// Works whether CrashShield is started or not. Swift apps: `CrashShield.observe(_:owner:priority:)`.
@interface NSObject (CSNotificationObservation)

/// Runs `block` for every notification `name` from `object` (nil: any) posted to `center` (nil: the default center),
/// by `priority`. nil and an error (CSErrorDomain) for a nil name or block, or an owner whose deallocation cannot be
/// watched.
- (nullable CSNotificationObservation *)cs_observeNotificationName:(NSString *)name object:(nullable id)object
                                                            center:(nullable NSNotificationCenter *)center
                                                          priority:(CSNotificationPriority)priority
                                                        usingBlock:(CSNotificationBlock)block
                                                             error:(NSError *_Nullable *_Nullable)error CS_OBJC_ONLY;
/// The default center, any object, `priority`.
- (nullable CSNotificationObservation *)cs_observeNotificationName:(NSString *)name
                                                          priority:(CSNotificationPriority)priority
                                                        usingBlock:(CSNotificationBlock)block CS_OBJC_ONLY;
/// The default center, any object, CSNotificationPriorityDefault.
- (nullable CSNotificationObservation *)cs_observeNotificationName:(NSString *)name
                                                        usingBlock:(CSNotificationBlock)block CS_OBJC_ONLY;

/// Removes the receiver's blocks of `priority` (every name): removal by level.
- (void)cs_removeNotificationBlocksWithPriority:(CSNotificationPriority)priority CS_OBJC_ONLY;
/// Removes the receiver's blocks observing `name` (nil: every name), any priority.
- (void)cs_removeNotificationBlocksForName:(nullable NSString *)name CS_OBJC_ONLY;
/// Removes the receiver's blocks observing `name` (nil: every name) with `priority`.
- (void)cs_removeNotificationBlocksForName:(nullable NSString *)name
                                  priority:(CSNotificationPriority)priority CS_OBJC_ONLY;

@end

NS_ASSUME_NONNULL_END
