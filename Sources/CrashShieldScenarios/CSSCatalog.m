// CSSCatalog.m: the catalog is the concatenation of every family's table. A new family adds one line.
#import <Foundation/Foundation.h>
#include "CrashShieldScenarios.h"
#include "CSSFamilies.h"

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
    css_variadic_scenarios,
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
