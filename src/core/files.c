/* Files a user named, opened for reading so that reading them can never
 * block or touch a device (docs/security.md, "Inputs that are not files"):
 * see util.h. */
#define _GNU_SOURCE /* renameat2 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"

const char *jl__file_kind(unsigned mode)
{
    switch ((mode_t)mode & S_IFMT) {
    case S_IFREG: return "a regular file";
    case S_IFDIR: return "a folder";
    case S_IFIFO: return "a FIFO";
    case S_IFCHR: return "a character device";
    case S_IFBLK: return "a block device";
    case S_IFSOCK: return "a socket";
    case S_IFLNK: return "a symbolic link";
    default: return "not a file";
    }
}

static void say(char *why, size_t cap, const char *text, const char *what)
{
    if (why && cap)
        snprintf(why, cap, "%s%s%s", text, what, *text == 'n' ? ")" : "");
}

int jl__open_input(const char *path, char *why, size_t why_cap)
{
    struct stat before, after;
    /* refused before it is opened: opening a device can have effects of
     * its own (a terminal, a tape), and a FIFO's open waits for a writer */
    if (stat(path, &before) != 0) {
        int e = errno;
        say(why, why_cap, "cannot open: ", strerror(e));
        errno = e;
        return -1;
    }
    if (!S_ISREG(before.st_mode)) {
        say(why, why_cap, "not a regular file (", jl__file_kind(before.st_mode));
        errno = EINVAL;
        return -1;
    }
    /* O_NONBLOCK: the path may have been swapped for a FIFO meanwhile; the
     * open then returns at once and fstat() below refuses it */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        say(why, why_cap, "cannot open: ", strerror(e));
        errno = e;
        return -1;
    }
    if (fstat(fd, &after) != 0 || !S_ISREG(after.st_mode)) {
        close(fd);
        say(why, why_cap, "not a regular file (", jl__file_kind(after.st_mode));
        errno = EINVAL;
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

FILE *jl__fopen_input(const char *path, char *why, size_t why_cap)
{
    int fd = jl__open_input(path, why, why_cap);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        int e = errno;
        close(fd);
        say(why, why_cap, "cannot open: ", strerror(e));
        errno = e;
    }
    return f;
}

int jl__rename_noreplace(const char *from, const char *to)
{
#ifdef RENAME_NOREPLACE
    if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP && errno != EOPNOTSUPP)
        return -1;
#endif
    struct stat sb;
    if (lstat(from, &sb) == 0 && !S_ISDIR(sb.st_mode)) {
        /* link() fails when `to` exists, in one step too */
        if (link(from, to) == 0) {
            unlink(from);
            return 0;
        }
        if (errno == EEXIST)
            return -1;
    }
    /* a file system with neither: the check and the rename apart */
    if (lstat(to, &sb) == 0) {
        errno = EEXIST;
        return -1;
    }
    return rename(from, to);
}
