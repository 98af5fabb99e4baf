// CSBReplacementKernels.m: valid calls of the string replacements a nil string raises for on Apple (issue 32 §2):
// what a nil check, or a hook, costs a call that passes it.
#include "CrashShieldBenchKernels.h"
#include "CSBSupport.h"

static NSString *const csbText = @"benchmark string";

double csb_replace_characters(unsigned long iterations) {
    double ns;
    @autoreleasepool {
        NSMutableString *string = csb_opaque([NSMutableString stringWithString: csbText]);
        double start = csb_now();
        for (unsigned long i = 0; i < iterations; i++) [string replaceCharactersInRange: NSMakeRange(i & 7, 1) withString: @"x"];
        ns = (csb_now() - start) / (double)iterations;
    }
    return ns;
}

double csb_insert_string(unsigned long iterations) {
    double ns;
    @autoreleasepool {
        NSMutableString *string = csb_opaque([NSMutableString stringWithString: csbText]);
        double start = csb_now();
        for (unsigned long i = 0; i < iterations; i++) {
            [string insertString: @"x" atIndex: i & 7];
            if ((i & 1023) == 1023) [string setString: csbText];
        }
        ns = (csb_now() - start) / (double)iterations;
    }
    return ns;
}

double csb_string_by_replacing_characters(unsigned long iterations) {
    double ns;
    @autoreleasepool {
        NSString *string = csb_opaque([NSString stringWithUTF8String: "benchmark string"]);
        uintptr_t sink = 0;
        double start = csb_now();
        for (unsigned long i = 0; i < iterations; i++) {
            @autoreleasepool {
                sink ^= (uintptr_t)[string stringByReplacingCharactersInRange: NSMakeRange(i & 7, 1) withString: @"x"];
            }
        }
        ns = (csb_now() - start) / (double)iterations;
        csb_opaque((__bridge id)(void *)sink == nil ? nil : string);
    }
    return ns;
}

/// `what`: 0 append, 1 insert, 2 set, 3 replace a character.
static double attributed(unsigned long iterations, int what) {
    double ns;
    @autoreleasepool {
        NSAttributedString *piece = csb_opaque(CSB_AUTORELEASE([[NSAttributedString alloc] initWithString: @"x"]));
        NSAttributedString *text = csb_opaque(CSB_AUTORELEASE([[NSAttributedString alloc] initWithString: csbText]));
        NSMutableAttributedString *string = csb_opaque(CSB_AUTORELEASE([[NSMutableAttributedString alloc] initWithString: csbText]));
        double start = csb_now();
        for (unsigned long i = 0; i < iterations; i++) {
            @autoreleasepool {
                switch (what) {
                    case 0: [string appendAttributedString: piece]; break;
                    case 1: [string insertAttributedString: piece atIndex: i & 7]; break;
                    case 2: [string setAttributedString: (i & 1) ? piece : text]; break;
                    default: [string replaceCharactersInRange: NSMakeRange(i & 7, 1) withAttributedString: piece]; break;
                }
                if (what < 2 && (i & 1023) == 1023) [string setAttributedString: text];
            }
        }
        ns = (csb_now() - start) / (double)iterations;
    }
    return ns;
}

double csb_append_attributed(unsigned long iterations) { return attributed(iterations, 0); }
double csb_insert_attributed(unsigned long iterations) { return attributed(iterations, 1); }
double csb_set_attributed(unsigned long iterations) { return attributed(iterations, 2); }
double csb_replace_with_attributed(unsigned long iterations) { return attributed(iterations, 3); }
