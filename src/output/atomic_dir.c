/* Directories written whole or not at all (a report): built under a
 * temporary name beside the target, renamed into place at the end. While a
 * directory is being built it is registered here, together with any child
 * process writing into it (gnuplot), so jl_atomic_cleanup_signal() can stop
 * the child and remove the whole tree from a signal handler.
 *
 * The signal-time removal uses only async-signal-safe calls: kill, waitpid,
 * open, close, unlinkat, rmdir and (on Linux) the getdents64 system call
 * into a static buffer; no allocation. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif

#include "core/util.h"
#include "joules/output.h"
#include "output/atomic_internal.h"

#define JL__MAX_LIVE_DIRS 8
/* Process-wide on purpose, as atomic.c's: a signal ends the whole process.
 * Slots are claimed and given back with compare-and-swap (lock-free, so the
 * signal handler may read them). */
static _Atomic(char *) live_dirs[JL__MAX_LIVE_DIRS];
static _Atomic pid_t live_children[JL_ATOMIC_MAX_CHILDREN];

int jl_atomic_register_dir(const char *path)
{
    char *p = jl__strdup(path);
    if (!p)
        return -1;
    for (int i = 0; i < JL__MAX_LIVE_DIRS; i++) {
        char *none = NULL;
        if (atomic_compare_exchange_strong(&live_dirs[i], &none, p))
            return 0;
    }
    free(p);
    return -1;
}

void jl_atomic_unregister_dir(const char *path)
{
    for (int i = 0; i < JL__MAX_LIVE_DIRS; i++) {
        char *p = atomic_load(&live_dirs[i]);
        /* the thread whose swap takes it out frees it */
        if (p && !strcmp(p, path) && atomic_compare_exchange_strong(&live_dirs[i], &p, NULL))
            free(p);
    }
}

void jl_atomic_register_child(pid_t pid)
{
    for (int i = 0; i < JL_ATOMIC_MAX_CHILDREN; i++) {
        pid_t none = 0;
        if (atomic_compare_exchange_strong(&live_children[i], &none, pid))
            return;
    }
}

void jl_atomic_unregister_child(pid_t pid)
{
    for (int i = 0; i < JL_ATOMIC_MAX_CHILDREN; i++) {
        pid_t was = pid;
        (void)atomic_compare_exchange_strong(&live_children[i], &was, 0);
    }
}

#if defined(__linux__)
/* Remove everything below the directory open as dirfd; depth-limited. Uses a
 * buffer per level on the stack (small) so recursion needs no allocation. */
struct linux_dirent64 {
    unsigned long long d_ino;
    long long d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

static void remove_below_signal(int dirfd, int depth)
{
    char buf[2048];
    if (depth > 16)
        return;
    for (;;) {
        long n = syscall(SYS_getdents64, dirfd, buf, sizeof buf);
        if (n <= 0)
            break;
        int removed = 0;
        for (long off = 0; off < n;) {
            struct linux_dirent64 *d = (struct linux_dirent64 *)(void *)(buf + off);
            off += d->d_reclen;
            const char *name = d->d_name;
            if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0)))
                continue;
            if (unlinkat(dirfd, name, 0) == 0) {
                removed = 1;
                continue;
            }
            int sub = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0) {
                remove_below_signal(sub, depth + 1);
                close(sub);
            }
            if (unlinkat(dirfd, name, AT_REMOVEDIR) == 0)
                removed = 1;
        }
        /* Removing entries while reading can make getdents skip some:
         * restart from the beginning after any removal. */
        if (removed)
            lseek(dirfd, 0, SEEK_SET);
    }
}
#endif

void jl__atomic_cleanup_dirs_signal(void)
{
    for (int i = 0; i < JL_ATOMIC_MAX_CHILDREN; i++) {
        pid_t pid = live_children[i];
        if (pid > 0) {
            kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
            live_children[i] = 0;
        }
    }
    for (int i = 0; i < JL__MAX_LIVE_DIRS; i++) {
        const char *p = live_dirs[i];
        if (!p)
            continue;
#if defined(__linux__)
        int fd = open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0) {
            remove_below_signal(fd, 0);
            close(fd);
        }
#endif
        rmdir(p);
    }
}

/* ---- outside signal handlers ------------------------------------------------ */

static jl_status remove_tree_at(int parent, const char *name, const char *shown, jl_error **err)
{
    if (unlinkat(parent, name, 0) == 0 || errno == ENOENT)
        return JL_OK;
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return jl_fail_output(err, JL_EIO, shown, NULL, NULL, -1, "cannot remove %s: %s", name,
                              strerror(errno));
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return jl_fail_output(err, JL_EIO, shown, NULL, NULL, -1, "cannot read directory: %s",
                              strerror(errno));
    }
    jl_status st = JL_OK;
    struct dirent *e;
    while (st == JL_OK && (e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        st = remove_tree_at(dirfd(d), e->d_name, shown, err);
    }
    closedir(d);
    if (st == JL_OK && unlinkat(parent, name, AT_REMOVEDIR) != 0 && errno != ENOENT)
        st = jl_fail_output(err, JL_EIO, shown, NULL, NULL, -1, "cannot remove directory %s: %s",
                            name, strerror(errno));
    return st;
}

jl_status jl_remove_tree(const char *path, jl_error **err)
{
    return remove_tree_at(AT_FDCWD, path, path, err);
}

jl_status jl_atomic_dir_open(const char *target, char **tmp_out, jl_error **err)
{
    *tmp_out = NULL;
    size_t n = strlen(target);
    while (n > 1 && target[n - 1] == '/')
        n--;
    char *tmp = jl__asprintf("%.*s.tmp.%ld.XXXXXX", (int)n, target, (long)getpid());
    if (!tmp)
        return jl_fail(err, JL_ENOMEM, target, NULL, NULL, -1, "out of memory");
    if (!mkdtemp(tmp)) {
        int e = errno;
        free(tmp);
        return jl_fail_output(err, JL_EIO, target, NULL, NULL, -1,
                              "cannot create a temporary directory beside it: %s", strerror(e));
    }
    chmod(tmp, 0755);
    if (jl_atomic_register_dir(tmp) != 0) {
        rmdir(tmp);
        free(tmp);
        return jl_fail(err, JL_EINTERNAL, target, NULL, NULL, -1,
                       "too many temporary directories at once");
    }
    *tmp_out = tmp;
    return JL_OK;
}

void jl_atomic_dir_abort(const char *tmp)
{
    if (!tmp)
        return;
    jl_remove_tree(tmp, NULL);
    jl_atomic_unregister_dir(tmp);
}

static int fsync_path(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

jl_status jl_atomic_dir_commit(const char *tmp, const char *target, int replace, jl_error **err)
{
    struct stat st;
    int exists = lstat(target, &st) == 0;
    if (exists && !replace) {
        jl_atomic_dir_abort(tmp);
        return jl_fail(err, JL_EUSAGE, target, NULL, NULL, -1,
                       "already exists (use --force to replace it)");
    }
    if (exists && !S_ISDIR(st.st_mode)) {
        jl_atomic_dir_abort(tmp);
        return jl_fail(err, JL_EUSAGE, target, NULL, NULL, -1,
                       "exists and is not a directory; not replacing it");
    }
    fsync_path(tmp);
    if (!exists) {
        /* absent a moment ago: made meanwhile by another writer, it stays */
        if ((replace ? rename(tmp, target) : jl__rename_noreplace(tmp, target)) != 0) {
            int e = errno;
            jl_atomic_dir_abort(tmp);
            if (!replace && (e == EEXIST || e == ENOTEMPTY))
                return jl_fail_output(err, JL_EIO, target, NULL, NULL, -1,
                                      "appeared while it was being written (another writer?): "
                                      "not replaced without --force, nothing written");
            return jl_fail_output(err, JL_EIO, target, NULL, NULL, -1,
                                  "cannot move the output into place: %s", strerror(e));
        }
        jl_atomic_unregister_dir(tmp);
        return JL_OK;
    }
#if defined(__linux__) && defined(RENAME_EXCHANGE)
    /* Swap the two directories in one step: readers see the old or the new
     * report, never none; the old one then sits at the temporary name. */
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, target, RENAME_EXCHANGE) == 0) {
        jl_status rs = jl_remove_tree(tmp, err);
        jl_atomic_unregister_dir(tmp);
        return rs;
    }
#endif
    /* Fallback: move the old one aside, the new one in, remove the old. */
    char *old = jl__asprintf("%s.old", tmp);
    if (!old) {
        jl_atomic_dir_abort(tmp);
        return jl_fail(err, JL_ENOMEM, target, NULL, NULL, -1, "out of memory");
    }
    if (rename(target, old) != 0) {
        int e = errno;
        free(old);
        jl_atomic_dir_abort(tmp);
        return jl_fail_output(err, JL_EIO, target, NULL, NULL, -1,
                              "cannot move the old output aside: %s", strerror(e));
    }
    if (rename(tmp, target) != 0) {
        int e = errno;
        rename(old, target);
        free(old);
        jl_atomic_dir_abort(tmp);
        return jl_fail_output(err, JL_EIO, target, NULL, NULL, -1,
                              "cannot move the output into place: %s", strerror(e));
    }
    jl_atomic_unregister_dir(tmp);
    jl_status rs = jl_remove_tree(old, err);
    free(old);
    return rs;
}
