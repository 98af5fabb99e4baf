// CSRClassClustersGNUstep.m: the class-cluster samples only GNUstep Base makes (CSRClassClustersPlatform.h): none. A
// phone never compiles this file: Apple's Foundation adds toll-free bridged and shared-key forms
// (Apple/CSRClassClustersApple.m); GNUstep Base 1.28 has no CoreFoundation bridge and no +sharedKeySetForKeys:.
#if !defined(__APPLE__)
#include "../CSRClassClustersPlatform.h"

void csr_cluster_platform_samples(CSRClassSet *set, CSRClusterKind kind) { (void)set; (void)kind; }
#endif
