/* Files written whole or not at all: temp file beside the target, fsync,
 * rename. Open temporaries are remembered so a signal handler in the CLI can
 * unlink them (jl_atomic_cleanup_signal) and an interrupted run leaves
 * nothing partial behind. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "joules/output.h"
#include "output/atomic_internal.h"

/* Registry of live temporary paths. Fixed size on purpose: the signal
 * handler must not allocate. More than this many files open at once is not
 * something joules does (the report writes one file at a time). */
#define JL__MAX_LIVE_TEMPS 64
/* Process-wide on purpose: a signal ends the whole process, whichever
 * study's file is half written. Slots are claimed and given back with
 * compare-and-swap (threads writing at once never take one slot; lock-free,
 * so the handler may read them). */
static _Atomic(char *) live_temps[JL__MAX_LIVE_TEMPS];

/* claim a free slot of reg[0..n) for p: 0, or -1 when all are taken */
static int slot_claim(_Atomic(char *) *reg, int n, char *p)
{
    for (int i = 0; i < n; i++) {
        char *none = NULL;
        if (atomic_compare_exchange_strong(&reg[i], &none, p))
            return 0;
    }
    return -1;
}

static void registry_add(char *p)
{
    (void)slot_claim(live_temps, JL__MAX_LIVE_TEMPS, p);
}

static void registry_remove(char *p)
{
    for (int i = 0; i < JL__MAX_LIVE_TEMPS; i++) {
        char *was = p;
        (void)atomic_compare_exchange_strong(&live_temps[i], &was, NULL);
    }
}

/* Temporaries of other writers (jl_atomic_register_file), copies. */
static _Atomic(char *) live_files[JL__MAX_LIVE_TEMPS];

int jl_atomic_register_file(const char *path)
{
    char *p = jl__strdup(path);
    if (p && slot_claim(live_files, JL__MAX_LIVE_TEMPS, p) == 0)
        return 0;
    free(p);
    return -1;
}

void jl_atomic_unregister_file(const char *path)
{
    for (int i = 0; i < JL__MAX_LIVE_TEMPS; i++) {
        char *p = atomic_load(&live_files[i]);
        /* the thread whose swap takes it out frees it */
        if (p && !strcmp(p, path) && atomic_compare_exchange_strong(&live_files[i], &p, NULL))
            free(p);
    }
}

/* Targets that must not be replaced (jl_atomic_keep_existing). */
#define JL__MAX_KEEP 16
/* Process-wide (paths name files of the one file system), under a lock;
 * jl_atomic_keep_existing_clear forgets them for the next command. */
static pthread_mutex_t keep_lock = PTHREAD_MUTEX_INITIALIZER;
static char *keep_existing[JL__MAX_KEEP];

int jl_atomic_keep_existing(const char *path)
{
    int rc = -1;
    pthread_mutex_lock(&keep_lock);
    for (int i = 0; i < JL__MAX_KEEP; i++)
        if (!keep_existing[i]) {
            rc = (keep_existing[i] = jl__strdup(path)) ? 0 : -1;
            break;
        }
    pthread_mutex_unlock(&keep_lock);
    return rc;
}

void jl_atomic_keep_existing_clear(void)
{
    pthread_mutex_lock(&keep_lock);
    for (int i = 0; i < JL__MAX_KEEP; i++) {
        free(keep_existing[i]);
        keep_existing[i] = NULL;
    }
    pthread_mutex_unlock(&keep_lock);
}

static int kept(const char *path)
{
    int k = 0;
    pthread_mutex_lock(&keep_lock);
    for (int i = 0; i < JL__MAX_KEEP && keep_existing[i] && !k; i++)
        k = !strcmp(keep_existing[i], path);
    pthread_mutex_unlock(&keep_lock);
    return k;
}

void jl_atomic_cleanup_signal(void)
{
    /* async-signal-safe: unlink only */
    for (int i = 0; i < JL__MAX_LIVE_TEMPS; i++) {
        char *t = atomic_load(&live_temps[i]), *f = atomic_load(&live_files[i]);
        if (t)
            unlink(t);
        if (f)
            unlink(f);
    }
    /* then whole directories being built (a report), after stopping any
     * child process still writing into them */
    jl__atomic_cleanup_dirs_signal();
}

jl_status jl_atomic_open(jl_atomic_file *af, const char *path, jl_error **err)
{
    memset(af, 0, sizeof *af);
    /* A target that exists and is not a regular file (/dev/null, /dev/full,
     * /dev/stdout, a FIFO) is written in place: a temporary beside it would
     * be created in /dev and renamed over the device. Write errors are still
     * reported by jl_atomic_commit(); there is nothing partial to remove. */
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode)) {
        af->path = jl__strdup(path);
        if (!af->path)
            return jl_fail(err, JL_ENOMEM, path, NULL, NULL, -1, "out of memory");
        af->fp = fopen(path, "w");
        if (!af->fp) {
            int e = errno;
            jl_atomic_abort(af);
            return jl_fail_output(err, JL_EIO, path, NULL, NULL, -1, "cannot open output file: %s",
                                  strerror(e));
        }
        return JL_OK;
    }
    af->path = jl__strdup(path);
    af->tmp_path = jl__asprintf("%s.tmp.%ld.XXXXXX", path, (long)getpid());
    if (!af->path || !af->tmp_path) {
        jl_atomic_abort(af);
        return jl_fail(err, JL_ENOMEM, path, NULL, NULL, -1, "out of memory");
    }
    int fd = mkstemp(af->tmp_path);
    if (fd < 0) {
        int e = errno;
        free(af->tmp_path);
        af->tmp_path = NULL;
        jl_atomic_abort(af);
        return jl_fail_output(err, JL_EIO, path, NULL, NULL, -1, "cannot create output file: %s",
                              strerror(e));
    }
    fchmod(fd, 0644);
    af->fp = fdopen(fd, "w");
    if (!af->fp) {
        int e = errno;
        close(fd);
        jl_atomic_abort(af);
        return jl_fail_output(err, JL_EIO, path, NULL, NULL, -1, "cannot open output file: %s",
                              strerror(e));
    }
    registry_add(af->tmp_path);
    return JL_OK;
}

jl_status jl_atomic_commit(jl_atomic_file *af, jl_error **err)
{
    int bad = ferror(af->fp);
    int e = errno;
    if (fflush(af->fp) != 0) {
        bad = 1;
        e = errno;
    }
    if (!bad && fsync(fileno(af->fp)) != 0 && errno != EINVAL) {
        bad = 1;
        e = errno;
    }
    if (fclose(af->fp) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    af->fp = NULL;
    if (bad) {
        jl_status st =
            jl_fail_output(err, JL_EIO, af->path, NULL, NULL, -1, "write failed: %s", strerror(e));
        jl_atomic_abort(af);
        return st;
    }
    if (!af->tmp_path) { /* written in place: not a regular file */
        jl_atomic_abort(af);
        return JL_OK;
    }
    int keep = kept(af->path);
    if ((keep ? jl__rename_noreplace(af->tmp_path, af->path) : rename(af->tmp_path, af->path)) !=
        0) {
        e = errno;
        jl_status st =
            keep && e == EEXIST
                ? jl_fail_output(err, JL_EIO, af->path, NULL, NULL, -1,
                                 "appeared while it was being written (another writer?): not "
                                 "replaced without --force, nothing written")
                : jl_fail_output(err, JL_EIO, af->path, NULL, NULL, -1,
                                 "cannot move output into place: %s", strerror(e));
        jl_atomic_abort(af);
        return st;
    }
    registry_remove(af->tmp_path);
    free(af->tmp_path);
    free(af->path);
    memset(af, 0, sizeof *af);
    return JL_OK;
}

void jl_atomic_abort(jl_atomic_file *af)
{
    if (af->fp)
        fclose(af->fp);
    if (af->tmp_path) {
        unlink(af->tmp_path);
        registry_remove(af->tmp_path);
    }
    free(af->tmp_path);
    free(af->path);
    memset(af, 0, sizeof *af);
}

jl_status jl_write_text(const char *path, int (*fn)(FILE *f, const void *ctx), const void *ctx,
                        jl_error **err)
{
    if (!strcmp(path, "-")) {
        errno = 0;
        if (fn(stdout, ctx) || ferror(stdout) || fflush(stdout))
            return jl_fail_output(err, JL_EIO, "<stdout>", NULL, NULL, -1,
                                  "cannot write to standard output: %s",
                                  errno ? strerror(errno) : "write error");
        return JL_OK;
    }
    jl_atomic_file af;
    jl_status st = jl_atomic_open(&af, path, err);
    if (st != JL_OK)
        return st;
    errno = 0;
    if (fn(af.fp, ctx) || ferror(af.fp)) {
        int e = errno;
        jl_atomic_abort(&af);
        return jl_fail_output(err, JL_EIO, path, NULL, NULL, -1, "write failed: %s",
                              e ? strerror(e) : "write error");
    }
    return jl_atomic_commit(&af, err);
}

jl_status jl_write_file_atomic(const char *path, const void *data, size_t len, jl_error **err)
{
    jl_atomic_file af;
    jl_status st = jl_atomic_open(&af, path, err);
    if (st != JL_OK)
        return st;
    if (len && fwrite(data, 1, len, af.fp) != len) {
        int e = errno;
        jl_atomic_abort(&af);
        return jl_fail_output(err, JL_EIO, path, NULL, NULL, -1, "write failed: %s", strerror(e));
    }
    return jl_atomic_commit(&af, err);
}
