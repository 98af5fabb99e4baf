// wrap_main.c: starts CrashShield "at the top of main" of a GNUstep Base test program, without touching its source.
//
// Linked with `-Wl,--wrap=main`: crt1's reference to `main` resolves to `__wrap_main` below and `__real_main` to the
// test's own `main`. Environment:
//   CRASHSHIELD_SUITE_MODE     plain (default: CrashShield is loaded but not started), release, debug
//   CRASHSHIELD_SUITE_REPORTS  file each report JSON object is appended to, one line per report (release/debug)
// A report line is written with one write(2) under a mutex, so a later crash loses no delivered report.
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "CrashShield.h"

int __real_main(int argc, char **argv, char **envp);

static pthread_mutex_t reportLock = PTHREAD_MUTEX_INITIALIZER;
static int reportFD = -1;
static bool started = false;

static void appendReport(const char *json, void *context) {
    (void)context;
    if (json == NULL || reportFD < 0) return;
    size_t length = strlen(json);
    char *line = malloc(length + 1);
    if (line == NULL) return;
    memcpy(line, json, length);
    line[length] = '\n';
    pthread_mutex_lock(&reportLock);
    size_t done = 0;
    while (done < length + 1) {
        ssize_t n = write(reportFD, line + done, length + 1 - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        done += (size_t)n;
    }
    pthread_mutex_unlock(&reportLock);
    free(line);
}

/// Hands pending counts to the handler before the process ends (main returned or the test called exit()).
static void flushReports(void) {
    if (started) crashshield_flush(2);
}

int __wrap_main(int argc, char **argv, char **envp) {
    const char *mode = getenv("CRASHSHIELD_SUITE_MODE");
    if (mode != NULL && strcmp(mode, "plain") != 0) {
        bool debug = strcmp(mode, "debug") == 0;
        if (!debug && strcmp(mode, "release") != 0) {
            fprintf(stderr, "wrap_main: CRASHSHIELD_SUITE_MODE must be plain, release or debug, not '%s'\n", mode);
            return 126;
        }
        const char *path = getenv("CRASHSHIELD_SUITE_REPORTS");
        if (path != NULL && *path != '\0') {
            reportFD = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
            if (reportFD < 0) {
                fprintf(stderr, "wrap_main: cannot open %s: %s\n", path, strerror(errno));
                return 126;
            }
        }
        if (crashshield_set_report_handler(appendReport, NULL) != CrashShieldStatusOK) {
            fprintf(stderr, "wrap_main: crashshield_set_report_handler failed\n");
            return 126;
        }
        CrashShieldStatus status = crashshield_start(debug);
        if (status != CrashShieldStatusOK) {
            fprintf(stderr, "wrap_main: crashshield_start(%s) failed: %d\n", mode, (int)status);
            return 126;
        }
        started = true;
        atexit(flushReports);
    }
    int result = __real_main(argc, argv, envp);
    flushReports();
    return result;
}
