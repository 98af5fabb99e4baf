// CSRClassClusters.h: the concrete classes behind public class clusters, from real sample instances
// (CSRClassClusters.m).
#ifndef CSR_CLASS_CLUSTERS_H
#define CSR_CLASS_CLUSTERS_H

#include "CSRTypes.h"

#ifdef __cplusplus
extern "C" {
#endif

/// `family` is a public class name (NSArray, NSMutableArray, NSDictionary, ...). Writes up to `max` distinct classes
/// (placeholders included) and returns how many. 0 for an unknown family.
int csr_cluster_sample_classes(const char *family, CSRClass *out, int max);

/// Test switch: from now on every family's samples also look up the class named `name`, as they look up the classes
/// clang's constant literals use (NSConstantArray, NSConstantDictionary: CSRClassClusters.m), keeping it where it is a
/// kind of the family. NULL forgets every name added. False when the table is full. Samples already made are not made
/// again (`ClassSamples` keeps them per process).
bool csr_test_cluster_sample_class_named(const char *name);

/// The class `[family alloc]` hands out (a placeholder that `-init...` replaces, or the concrete class itself); the
/// `-init...` methods of a class cluster run there. NULL for an unknown family.
CSRClass csr_cluster_placeholder_class(const char *family);

#ifdef __cplusplus
}
#endif
#endif
