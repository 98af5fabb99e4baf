// CSSCatalog.m: the catalog is the concatenation of every family's table. A new family adds one line.
#import <Foundation/Foundation.h>
#include "CrashShieldScenarios.h"
#include "CSSFamilies.h"
#include <stdio.h>
#include <stdlib.h>

typedef const CSSScenario *(*CSSFamily)(int *count);

static const CSSFamily css_families[] = {
    css_array_scenarios,
    css_dictionary_scenarios,
    css_set_scenarios,
    css_observation_scenarios,
    css_string_scenarios,
    css_kvc_scenarios,
    css_messaging_scenarios,
    css_lifetime_scenarios,
    css_notification_scenarios,
    css_data_scenarios,
    css_variadic_scenarios,
    css_foundation_scenarios,
    css_webkit_scenarios,
    css_file_handle_scenarios,
    css_predicate_scenarios,
#if defined(__APPLE__)
    css_apple_only_scenarios,
#endif
};

const CSSScenario *css_scenarios(int *count) {
    static CSSScenario all[512];
    static int total = -1;
    if (total < 0) {
        int n = 0;
        for (size_t f = 0; f < sizeof css_families / sizeof css_families[0]; f++) {
            int familyCount = 0;
            const CSSScenario *family = css_families[f](&familyCount);
            for (int i = 0; i < familyCount && n < 512; i++) all[n++] = family[i];
        }
        total = n;
    }
    *count = total;
    return all;
}

static char css_uncaught_marker[64] = "CRASH";

static void css_uncaught_abort(NSException *exception) {
    fprintf(stderr, "%s uncaught-exception %s: %s\n", css_uncaught_marker,
            [[exception name] UTF8String] ?: "?", [[exception reason] UTF8String] ?: "");
    fflush(stderr);
    abort();
}

void css_install_uncaught_exception_abort(const char *marker) {
    if (marker) snprintf(css_uncaught_marker, sizeof css_uncaught_marker, "%s", marker);
    NSSetUncaughtExceptionHandler(&css_uncaught_abort);
}
