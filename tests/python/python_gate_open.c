/* LD_PRELOAD shim for test_threads.py: holds the first open() of a path
 * ending in $JOULES_TEST_GATE_NAME until the test lets it go, with no
 * timing involved: it creates $JOULES_TEST_GATE_DIR/reached, then waits
 * until $JOULES_TEST_GATE_DIR/release exists. Were the Python module to
 * keep the GIL while the library works, the test's main thread could never
 * create the release file and the open would wait for ever; the shim gives
 * up after 120 s and says so in $JOULES_TEST_GATE_DIR/timed-out, which
 * fails the test. Every other open() is the real one. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

static int real_open(const char *path, int flags, mode_t mode)
{
    int (*real)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
    return real ? real(path, flags, mode) : -1;
}

static void touch(const char *dir, const char *name)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    int fd = real_open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0)
        close(fd);
}

static void gate(const char *dir)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/release", dir);
    touch(dir, "reached");
    struct stat sb;
    for (int i = 0; i < 120000 && stat(p, &sb) != 0; i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    if (stat(p, &sb) != 0)
        touch(dir, "timed-out");
}

int open(const char *path, int flags, ...)
{
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    const char *dir = getenv("JOULES_TEST_GATE_DIR");
    const char *name = getenv("JOULES_TEST_GATE_NAME");
    if (dir && *dir && name && *name) {
        size_t lp = strlen(path), ln = strlen(name);
        char reached[4096];
        struct stat sb;
        snprintf(reached, sizeof reached, "%s/reached", dir);
        if (lp >= ln && !strcmp(path + lp - ln, name) && stat(reached, &sb) != 0)
            gate(dir);
    }
    return real_open(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    return open(path, flags, mode);
}
