/* LD_PRELOAD shim for faults.sh: faults of the machine, made on purpose and
 * at a known point, without root (no small file system to fill) and without
 * timing (docs/robustness.md, "Faults"):
 *  - a full disk: with $JOULES_TEST_ENOSPC_NAME set, files opened with a path
 *    that contains it take $JOULES_TEST_ENOSPC_AFTER bytes (default 0) and
 *    then every write()/pwrite() to them fails with ENOSPC;
 *  - a failed rename: rename()/renameat2()/link() to a path that contains
 *    $JOULES_TEST_FAIL_RENAME fails with EIO;
 *  - a writer held just before it moves its file into place: rename(),
 *    renameat2() or link() from a path that contains
 *    $JOULES_TEST_HOLD_RENAME_NAME creates the marker $JOULES_TEST_HOLD_RENAME
 *    and waits until MARKER.go exists (the test makes it), then goes on;
 *  - a lock found taken: a blocking flock() that would wait creates the
 *    marker $JOULES_TEST_FLOCK_WAIT first, then waits as asked.
 * Everything else is the real call. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define MAX_FD 4096
static long long budget[MAX_FD]; /* bytes left + 1 for a watched fd; 0: not watched */

static void *real(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

static int real_open(const char *path, int flags, mode_t mode)
{
    int (*f)(const char *, int, ...) = (int (*)(const char *, int, ...))real("open");
    return f ? f(path, flags, mode) : -1;
}

static void watch(int fd, const char *path)
{
    const char *name = getenv("JOULES_TEST_ENOSPC_NAME");
    if (fd < 0 || fd >= MAX_FD || !name || !*name)
        return;
    if (!strstr(path, name)) {
        budget[fd] = 0;
        return;
    }
    const char *after = getenv("JOULES_TEST_ENOSPC_AFTER");
    budget[fd] = (after ? atoll(after) : 0) + 1;
}

/* n bytes may be written to fd: how many (0 and errno ENOSPC when none) */
static size_t allow(int fd, size_t n)
{
    if (fd < 0 || fd >= MAX_FD || budget[fd] == 0)
        return n;
    long long left = budget[fd] - 1;
    if (left <= 0) {
        errno = ENOSPC;
        return 0;
    }
    if ((long long)n > left)
        n = (size_t)left;
    budget[fd] -= (long long)n;
    return n;
}

static mode_t mode_of(int flags, va_list ap)
{
    return flags & (O_CREAT | O_TMPFILE) ? (mode_t)va_arg(ap, int) : 0;
}

int open(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_of(flags, ap);
    va_end(ap);
    int fd = real_open(path, flags, mode);
    watch(fd, path);
    return fd;
}

int open64(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_of(flags, ap);
    va_end(ap);
    int (*f)(const char *, int, ...) = (int (*)(const char *, int, ...))real("open64");
    int fd = f ? f(path, flags, mode) : -1;
    watch(fd, path);
    return fd;
}

int openat(int dir, const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_of(flags, ap);
    va_end(ap);
    int (*f)(int, const char *, int, ...) = (int (*)(int, const char *, int, ...))real("openat");
    int fd = f ? f(dir, path, flags, mode) : -1;
    watch(fd, path);
    return fd;
}

int mkstemp(char *tmpl)
{
    int (*f)(char *) = (int (*)(char *))real("mkstemp");
    int fd = f ? f(tmpl) : -1;
    watch(fd, tmpl);
    return fd;
}

int close(int fd)
{
    if (fd >= 0 && fd < MAX_FD)
        budget[fd] = 0;
    int (*f)(int) = (int (*)(int))real("close");
    return f ? f(fd) : -1;
}

ssize_t write(int fd, const void *buf, size_t n)
{
    size_t k = allow(fd, n);
    if (n && !k)
        return -1;
    ssize_t (*f)(int, const void *, size_t) = (ssize_t(*)(int, const void *, size_t))real("write");
    return f ? f(fd, buf, k) : -1;
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    size_t k = allow(fd, n);
    if (n && !k)
        return -1;
    ssize_t (*f)(int, const void *, size_t, off_t) =
        (ssize_t(*)(int, const void *, size_t, off_t))real("pwrite");
    return f ? f(fd, buf, k, off) : -1;
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
    size_t k = allow(fd, n);
    if (n && !k)
        return -1;
    ssize_t (*f)(int, const void *, size_t, off_t) =
        (ssize_t(*)(int, const void *, size_t, off_t))real("pwrite64");
    return f ? f(fd, buf, k, off) : -1;
}

static void touch(const char *path)
{
    int m = real_open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (m >= 0) {
        int (*f)(int) = (int (*)(int))real("close");
        f(m);
    }
}

/* before a move from `from` to `to`: fail it, hold it, or let it be (0) */
static int before_move(const char *from, const char *to)
{
    const char *fail = getenv("JOULES_TEST_FAIL_RENAME");
    if (fail && *fail && strstr(to, fail)) {
        errno = EIO;
        return -1;
    }
    const char *marker = getenv("JOULES_TEST_HOLD_RENAME");
    const char *name = getenv("JOULES_TEST_HOLD_RENAME_NAME");
    if (marker && *marker && name && *name && strstr(from, name)) {
        char go[4096];
        snprintf(go, sizeof go, "%s.go", marker);
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* never left waiting once the test is gone */
        touch(marker);
        struct stat sb;
        struct timespec ts = {0, 10 * 1000 * 1000};
        while (stat(go, &sb) != 0)
            nanosleep(&ts, NULL);
    }
    return 0;
}

int rename(const char *from, const char *to)
{
    if (before_move(from, to))
        return -1;
    int (*f)(const char *, const char *) = (int (*)(const char *, const char *))real("rename");
    return f ? f(from, to) : -1;
}

int renameat2(int fd1, const char *from, int fd2, const char *to, unsigned flags)
{
    if (before_move(from, to))
        return -1;
    int (*f)(int, const char *, int, const char *, unsigned) =
        (int (*)(int, const char *, int, const char *, unsigned))real("renameat2");
    return f ? f(fd1, from, fd2, to, flags) : -1;
}

int link(const char *from, const char *to)
{
    if (before_move(from, to))
        return -1;
    int (*f)(const char *, const char *) = (int (*)(const char *, const char *))real("link");
    return f ? f(from, to) : -1;
}

int flock(int fd, int op)
{
    int (*f)(int, int) = (int (*)(int, int))real("flock");
    const char *marker = getenv("JOULES_TEST_FLOCK_WAIT");
    if (!f)
        return -1;
    if (marker && *marker && (op & LOCK_EX) && !(op & LOCK_NB)) {
        if (f(fd, op | LOCK_NB) == 0)
            return 0;
        if (errno != EWOULDBLOCK)
            return -1;
        touch(marker);
    }
    return f(fd, op);
}
