/* The digests of files this process has hashed or been told about
 * (core/sha256.h). A study hashes each file where it reads it — in a worker
 * process, or on another MPI rank — so that the provenance written at the
 * end by one process need not read every input again (docs/scaling.md,
 * "The provenance's hash"). A digest stands for a file only while stat()
 * gives the size and modification time it was made with: a file changed
 * since is hashed again by whoever asks. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/sha256.h"
#include "core/util.h"

typedef struct entry {
    char *path; /* NULL: empty */
    jl__digest d;
} entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static entry *table;
static size_t cap, used; /* cap a power of two; at most half full */

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static entry *slot_of(entry *t, size_t n, const char *path)
{
    size_t i = (size_t)hash_str(path) & (n - 1);
    while (t[i].path && strcmp(t[i].path, path))
        i = (i + 1) & (n - 1);
    return &t[i];
}

static int grow(void)
{
    size_t n = cap ? 2 * cap : 64;
    entry *t = calloc(n, sizeof *t);
    if (!t)
        return -1;
    for (size_t i = 0; i < cap; i++)
        if (table[i].path)
            *slot_of(t, n, table[i].path) = table[i];
    free(table);
    table = t;
    cap = n;
    return 0;
}

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
    pthread_mutex_lock(&lock);
    if (2 * (used + 1) > cap && grow() != 0) {
        st = JL_ENOMEM;
    } else {
        entry *e = slot_of(table, cap, path);
        if (!e->path) {
            if (!(e->path = jl__strdup(path)))
                st = JL_ENOMEM;
            else
                used++;
        }
        if (e->path)
            e->d = *d;
    }
    pthread_mutex_unlock(&lock);
    return st;
}

int jl__digest_lookup(const char *path, jl__digest *d)
{
    jl__digest kept, now;
    int found = 0;
    pthread_mutex_lock(&lock);
    if (cap) {
        entry *e = slot_of(table, cap, path);
        if (e->path) {
            kept = e->d;
            found = 1;
        }
    }
    pthread_mutex_unlock(&lock);
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
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < cap; i++)
        free(table[i].path);
    free(table);
    table = NULL;
    cap = used = 0;
    pthread_mutex_unlock(&lock);
}
