// CSSPredicateScenarios.m: predicate formats NSPredicate's parser cannot read, which raise NSInvalidArgumentException
// on both Foundations (GNUstep 1.28's NSPredicate.m; Apple's `Unable to parse the format string "..."`, public crash
// logs in Docs/AppleRuntime.md §17): user input with an apostrophe pasted into the format, a missing operand or
// parenthesis. Then the differential probes: formats that parse and formats that do not, guards off and on.
#import <Foundation/Foundation.h>
#include "CSSFamilies.h"

static const char *described(NSPredicate *predicate) { return predicate ? [[predicate predicateFormat] UTF8String] : "nil"; }
/// What an app builds from a search field: the user's text pasted into the format.
static NSString *pasted(NSString *text) { return [NSString stringWithFormat: @"name = '%@'", text]; }

static const char *apostrophe(void) { return described([NSPredicate predicateWithFormat: css_opaque(pasted(@"JR's Pad"))]); }
static const char *missingOperand(void) {
    return described([NSPredicate predicateWithFormat: css_opaque(@"age > %d AND"), 3]);
}
static const char *missingParenthesis(void) {
    return described([NSPredicate predicateWithFormat: css_opaque(@"(name = 'a' OR name = 'b'")]);
}
static const char *unterminatedQuote(void) {
    return described([NSPredicate predicateWithFormat: css_opaque(@"name = 'abc") argumentArray: nil]);
}

static const CSSScenario css_predicate_table[] = {
    { "predicate.predicateWithFormat.apostrophe", "string", "predicateWithFormat:arguments:", "NSInvalidArgumentException", "FALSEPREDICATE", 1, apostrophe },
    { "predicate.predicateWithFormat.missingOperand", "string", "predicateWithFormat:arguments:", "NSInvalidArgumentException", "FALSEPREDICATE", 1, missingOperand },
    { "predicate.predicateWithFormat.missingParenthesis", "string", "predicateWithFormat:arguments:", "NSInvalidArgumentException", "FALSEPREDICATE", 1, missingParenthesis },
    { "predicate.predicateWithFormatArgumentArray.unterminatedQuote", "string", "predicateWithFormat:argumentArray:", "NSInvalidArgumentException", "FALSEPREDICATE", 1, unterminatedQuote },
};

const CSSScenario *css_predicate_scenarios(int *count) {
    *count = (int)(sizeof css_predicate_table / sizeof css_predicate_table[0]);
    return css_predicate_table;
}

// MARK: Differential probes: the index picks a format (i % count), valid and invalid alike.

static NSString *const css_formats[] = {
    @"name = 'JR''s Pad'", @"name = \"JR's Pad\"", @"name = 'JR\\'s Pad'", @"name = 'JR's Pad'", @"age > 3 AND",
    @"(name = 'a' OR name = 'b'", @"name = 'abc", @"name BEGINSWITH[c] 'a' AND age >= 18", @"ANY tags IN {'a', 'b'}",
    @"TRUEPREDICATE", @"", @"name", @"name ==", @"a = 1)", @"SUBQUERY(items, $x, $x.price > 10).@count > 0",
    @"name MATCHES '^[a-z]+$'", @"a < > b", @"NOT (a = 1)", @"FALSEPREDICATE", @"name = $NAME",
};
static const NSUInteger css_format_count = sizeof css_formats / sizeof css_formats[0];
static id predicateClass(void) { return [NSPredicate class]; }
static id described_(NSPredicate *predicate) { return predicate ? [predicate predicateFormat] : @"nil"; }
static id pFormat(id cls, NSUInteger i) { return described_([cls predicateWithFormat: css_formats[i % css_format_count]]); }
static id pFormatArgumentArray(id cls, NSUInteger i) {
    return described_([cls predicateWithFormat: css_formats[i % css_format_count] argumentArray: nil]);
}
/// Values passed as arguments, the fix the hint names: every input parses.
static id pFormatArgument(id cls, NSUInteger i) {
    return described_([cls predicateWithFormat: @"name = %@", css_formats[i % css_format_count]]);
}
static id pComparisonPredicate(id cls, NSUInteger i) {
    (void)cls;
    return described_([NSComparisonPredicate predicateWithFormat: css_formats[i % css_format_count]]);
}

/// A format that is no string (a number: GNUstep's parser sends it `UTF8String`, which it does not recognize).
static id pFormatNotString(id cls, NSUInteger i) {
    return described_([cls predicateWithFormat: css_opaque([NSNumber numberWithUnsignedLong: i])]);
}

static const CSSProbe css_predicate_probe_table[] = {
    { "predicateClass.predicateWithFormat:", (long)css_format_count, predicateClass, pFormat },
    { "predicateClass.predicateWithFormat:argumentArray:", (long)css_format_count, predicateClass, pFormatArgumentArray },
    { "predicateClass.predicateWithFormat:%@", (long)css_format_count, predicateClass, pFormatArgument },
    { "comparisonPredicateClass.predicateWithFormat:", (long)css_format_count, predicateClass, pComparisonPredicate },
    { "predicateClass.predicateWithFormat:number", -1, predicateClass, pFormatNotString },
};

const CSSProbe *css_predicate_probes(int *count) {
    *count = (int)(sizeof css_predicate_probe_table / sizeof css_predicate_probe_table[0]);
    return css_predicate_probe_table;
}
