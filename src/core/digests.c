/* The digests of files hashed or told about: the current context's digest
 * cache (core/sha256.h, joules/context.h). A study hashes each file where it reads it — in a worker
 * process, or on another MPI rank — so that the provenance written at the
 * end by one process need not read every input again (docs/scaling.md,
 * "The provenance's hash"). A digest stands for a file only while stat()
 * gives the size and modification time it was made with: a file changed
 * since is hashed again by whoever asks. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/context_internal.h"
#include "core/util.h"

static int stat_of(const char *path, jl__digest *d)
{
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return -1;
    d->size = (unsigned long long)sb.st_size;
    d->mtime_s = (long long)sb.st_mtim.tv_sec;
    d->mtime_ns = (long long)sb.st_mtim.tv_nsec;
    return 0;
}

jl_status jl__digest_note(const char *path, const jl__digest *d)
{
    jl_status st = JL_OK;
    jl_context *c = jl_context_current();
    pthread_mutex_lock(&c->lock);
    if (c->paths.n == c->digs_cap) {
        size_t cap = c->digs_cap ? 2 * c->digs_cap : 64;
        jl__digest *x = realloc(c->digs, cap * sizeof *x);
        if (x) {
            c->digs = x;
            c->digs_cap = cap;
        }
    }
    jl__strmap_entry *e =
        c->paths.n < c->digs_cap ? jl__strmap_add(&c->paths, path, c->paths.n, NULL) : NULL;
    if (e)
        c->digs[e->value] = *d;
    else
        st = JL_ENOMEM;
    pthread_mutex_unlock(&c->lock);
    return st;
}

int jl__digest_lookup(const char *path, jl__digest *d)
{
    jl__digest kept, now;
    int found = 0;
    jl_context *c = jl_context_current();
    pthread_mutex_lock(&c->lock);
    const jl__strmap_entry *e = jl__strmap_find(&c->paths, path);
    if (e) {
        kept = c->digs[e->value];
        found = 1;
    }
    pthread_mutex_unlock(&c->lock);
    if (!found || stat_of(path, &now) != 0 || now.size != kept.size ||
        now.mtime_s != kept.mtime_s || now.mtime_ns != kept.mtime_ns)
        return 0;
    *d = kept;
    return 1;
}

jl_status jl__digest_make(const char *path, jl__digest *d, int *stable, jl_error **err)
{
    jl__digest before = {0}, after = {0};
    int known = stat_of(path, &before) == 0;
    *stable = 0;
    jl_status st = jl__sha256_file(path, d->hex, &d->size, err);
    if (st != JL_OK)
        return st;
    d->mtime_s = before.mtime_s;
    d->mtime_ns = before.mtime_ns;
    /* it stands for the file only when the file held still while read */
    *stable = known && stat_of(path, &after) == 0 && after.size == d->size &&
              before.size == d->size && after.mtime_s == before.mtime_s &&
              after.mtime_ns == before.mtime_ns;
    return JL_OK;
}

jl_status jl__digest_file(const char *path, jl__digest *d, jl_error **err)
{
    jl__digest got = {0};
    int stable = 0;
    jl_status st = jl__digest_make(path, &got, &stable, err);
    if (st == JL_OK && stable)
        st = jl__digest_note(path, &got);
    if (d)
        *d = got;
    return st;
}

void jl__digest_forget_all(void)
{
    jl_context *c = jl_context_current();
    pthread_mutex_lock(&c->lock);
    jl__strmap_free(&c->paths);
    free(c->digs);
    c->digs = NULL;
    c->digs_cap = 0;
    pthread_mutex_unlock(&c->lock);
}
