/* LD_PRELOAD shim for outputs.sh: holds a process at a chosen moment so a
 * test can interrupt it exactly there, with no timing involved.
 *  - $JOULES_TEST_HOLD_FSYNC names a marker path: the first fsync() — the
 *    moment jl_atomic_commit() has written the whole temporary file and not
 *    yet renamed it — creates the marker and waits for a signal;
 *  - $JOULES_TEST_HOLD_OPEN names a marker path and $JOULES_TEST_HOLD_OPEN_NAME
 *    the end of a path: opening a file whose path ends so (an input in the
 *    middle of a study: the process is reading) creates the marker and waits
 *    for a signal.
 * Otherwise fsync() and open() are the real ones. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <unistd.h>

static int real_open(const char *path, int flags, mode_t mode)
{
    int (*real)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
    return real ? real(path, flags, mode) : -1;
}

static void hold(const char *marker)
{
    /* a held worker whose parent the test interrupted goes with it, never
     * left paused for ever */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int m = real_open(marker, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (m >= 0)
        close(m);
    for (;;)
        pause();
}

int fsync(int fd)
{
    const char *marker = getenv("JOULES_TEST_HOLD_FSYNC");
    if (marker && *marker)
        hold(marker);
    int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    return real ? real(fd) : 0;
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
    const char *marker = getenv("JOULES_TEST_HOLD_OPEN");
    const char *name = getenv("JOULES_TEST_HOLD_OPEN_NAME");
    /* path: declared nonnull by <fcntl.h>, so a test for NULL would be
     * dropped by the compiler anyway (clang warns); joules never passes one */
    if (marker && *marker && name && *name) {
        size_t lp = strlen(path), ln = strlen(name);
        if (lp >= ln && !strcmp(path + lp - ln, name))
            hold(marker);
    }
    return real_open(path, flags, mode);
}
