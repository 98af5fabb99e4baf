// CSRClassClustersPlatform.h (private to the runtime layer): the samples of a class cluster that only one Foundation
// makes, asked by CSRClassClusters.m. Each Foundation's are a whole file: Apple/CSRClassClustersApple.m (toll-free
// bridged CoreFoundation objects, shared-key dictionaries: what a phone runs) and GNUstep/CSRClassClustersGNUstep.m
// (none); each compiles to nothing on the other.
#ifndef CSR_CLASS_CLUSTERS_PLATFORM_H
#define CSR_CLASS_CLUSTERS_PLATFORM_H

#import <Foundation/Foundation.h>

/// The classes sampled for one family (CSRClassClusters.m).
typedef struct CSRClassSet CSRClassSet;

/// Adds the class of `object` (nil: nothing) to `set`, when it is a kind of the family.
void csr_cluster_add(CSRClassSet *set, id object);
/// Strings "s0"... of `count` elements, in an immutable array.
NSArray *csr_cluster_items(NSUInteger count);

typedef enum CSRClusterKind {
    CSRClusterArrays,
    CSRClusterDictionaries,
    CSRClusterSets,   ///< unordered sets only
    CSRClusterStrings,
} CSRClusterKind;

/// Adds the samples of `kind` only this platform's Foundation makes (`csr_cluster_add`), after the shared ones.
void csr_cluster_platform_samples(CSRClassSet *set, CSRClusterKind kind);

#endif
