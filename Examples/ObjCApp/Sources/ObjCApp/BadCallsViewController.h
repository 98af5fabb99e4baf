#import <UIKit/UIKit.h>

NS_ASSUME_NONNULL_BEGIN

/// One button per bad call, the kill switch and the report-sharing choice, and what happened.
@interface BadCallsViewController : UIViewController
@end

NS_ASSUME_NONNULL_END
