// Runs CSRPassThroughAny.c's arm64 assembly (the pass-through of stopped overrides of any shape) on an x86_64 machine,
// under qemu, with the runtime calls it makes stubbed: every argument shape through a pass-through entry.
//   apt-get install qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross
//   R=Sources/CrashShieldRuntime; aarch64-linux-gnu-gcc -O2 -I$R/include -I$R -o /tmp/pt Tests/Fixtures/pass-through-arm64.c \
//       $R/CSRPassThroughAny.c -static -lpthread && qemu-aarch64 /tmp/pt      # last line: "0 failures"
// (Also builds for x86_64 with plain clang.) On a Mac, PassThroughShapeTests runs the same shapes natively.
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "CSRPassThroughAny.h"
typedef struct Rect { double x, y, w, h; } Rect;
typedef struct Big { long a, b, c, d, e; } Big;
static void *target;
CSRClass csr_class_getSuperclass(CSRClass cls) { return cls; }
CSRIMP csr_class_dispatchImplementation(CSRClass cls, CSRSelector sel) { (void)cls; (void)sel; return (CSRIMP)target; }
bool csr_sel_isEqual(CSRSelector a, CSRSelector b) { return a == b; }
static double scaled(void *s, void *c, double f) { (void)s; (void)c; return 1.5 * f; }
static double area(void *s, void *c, Rect r) { (void)s; (void)c; return r.w * r.h + r.x + r.y; }
static Rect rectScaled(void *s, void *c, double f) { (void)s; (void)c; Rect r = {f, 2 * f, 3 * f, 4 * f}; return r; }
static double mixed(void *s, void *c, long a, double b, Rect r, float f, long g, long h, long i, long j, long k, double l, double m, double n, double o, double p, double q, double t) {
    (void)s; (void)c; return a + b + r.x + r.y + r.w + r.h + f + g + h + i + j + k + l + m + n + o + p + q + t; }
static Big big(void *s, void *c, long a) { (void)s; (void)c; Big v = {a, a + 1, a + 2, a + 3, a + 4}; return v; }
static long sum(void *s, void *c, long count, ...) { (void)s; (void)c; va_list l; va_start(l, count); long t = 0; for (long i = 0; i < count; i++) t += va_arg(l, long); va_end(l); return t; }
static double dsum(void *s, void *c, long count, ...) { (void)s; (void)c; va_list l; va_start(l, count); double t = 0; for (long i = 0; i < count; i++) t += va_arg(l, double); va_end(l); return t; }
int main(void) {
    int failures = 0;
    #define CHECK(cond) do { if (!(cond)) { printf("FAIL %s\n", #cond); failures++; } else printf("ok   %s\n", #cond); } while (0)
    CSRIMP e = csr_pass_through_any((void *)1, (void *)2);
    CHECK(e != NULL && csr_is_pass_through_any(e));
    CHECK(csr_pass_through_any((void *)1, (void *)2) == e);
    Rect r = {1.25, 2.5, 3, 4.5};
    target = (void *)scaled; CHECK(((double (*)(void *, void *, double))e)(0, 0, 2.25) == 3.375);
    target = (void *)area; CHECK(((double (*)(void *, void *, Rect))e)(0, 0, r) == area(0, 0, r));
    target = (void *)rectScaled; { Rect v = ((Rect (*)(void *, void *, double))e)(0, 0, 1.5); CHECK(v.x == 1.5 && v.y == 3 && v.w == 4.5 && v.h == 6); }
    target = (void *)mixed; CHECK(((double (*)(void *, void *, long, double, Rect, float, long, long, long, long, long, double, double, double, double, double, double, double))e)(0, 0, 7, 0.5, r, 0.25f, 1, 2, 3, 4, 5, 0.125, 1, 2, 3, 4, 5, 6) == mixed(0, 0, 7, 0.5, r, 0.25f, 1, 2, 3, 4, 5, 0.125, 1, 2, 3, 4, 5, 6));
    target = (void *)big; { Big v = ((Big (*)(void *, void *, long))e)(0, 0, 10); CHECK(v.a == 10 && v.e == 14); }
    target = (void *)sum; CHECK(((long (*)(void *, void *, long, ...))e)(0, 0, 9L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 1000000000000L) == 1000000000036L);
    target = (void *)dsum; CHECK(((double (*)(void *, void *, long, ...))e)(0, 0, 10L, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 0.5) == 45.5);
    CSRIMP second = csr_pass_through_any((void *)3, (void *)2);
    target = (void *)scaled; CHECK(second != e && ((double (*)(void *, void *, double))second)(0, 0, 2) == 3);
    printf("%d failures\n", failures);
    return failures != 0;
}
