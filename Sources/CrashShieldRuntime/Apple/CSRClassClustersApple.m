// CSRClassClustersApple.m: the class-cluster samples only Apple's Foundation makes (CSRClassClustersPlatform.h): the
// code a phone runs. GNUstep's (none) are GNUstep/CSRClassClustersGNUstep.m.
#if defined(__APPLE__)
#import <Foundation/Foundation.h>
#include "../CSRClassClustersPlatform.h"

void csr_cluster_platform_samples(CSRClassSet *set, CSRClusterKind kind) {
    switch (kind) {
    case CSRClusterArrays:
        // Toll-free bridged arrays (system APIs hand them out).
        csr_cluster_add(set, CFBridgingRelease(CFArrayCreate(NULL, NULL, 0, &kCFTypeArrayCallBacks)));
        csr_cluster_add(set, CFBridgingRelease(CFArrayCreateMutable(NULL, 0, &kCFTypeArrayCallBacks)));
        break;
    case CSRClusterDictionaries:
        // Shared-key dictionaries (GNUstep Base 1.28 has no +sharedKeySetForKeys:).
        csr_cluster_add(set, [NSMutableDictionary dictionaryWithSharedKeySet: [NSDictionary sharedKeySetForKeys:
                                                                                  csr_cluster_items(2)]]);
        csr_cluster_add(set, CFBridgingRelease(CFDictionaryCreate(NULL, NULL, NULL, 0, &kCFTypeDictionaryKeyCallBacks,
                                                                  &kCFTypeDictionaryValueCallBacks)));
        csr_cluster_add(set, CFBridgingRelease(CFDictionaryCreateMutable(NULL, 0, &kCFTypeDictionaryKeyCallBacks,
                                                                         &kCFTypeDictionaryValueCallBacks)));
        break;
    case CSRClusterSets:
        csr_cluster_add(set, CFBridgingRelease(CFSetCreate(NULL, NULL, 0, &kCFTypeSetCallBacks)));
        csr_cluster_add(set, CFBridgingRelease(CFSetCreateMutable(NULL, 0, &kCFTypeSetCallBacks)));
        break;
    case CSRClusterStrings:
        csr_cluster_add(set, CFBridgingRelease(CFStringCreateWithCString(
                                 NULL, "a CoreFoundation string, longer than a tag", kCFStringEncodingUTF8)));
        csr_cluster_add(set, CFBridgingRelease(CFStringCreateMutable(NULL, 0)));
        break;
    }
}
#endif
