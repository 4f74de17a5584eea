/* The files this process read as inputs (core/inputs.h). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/hash.h"
#include "core/inputs.h"

/* path -> index into names; both under the lock */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static jl__strmap seen = JL__STRMAP_INIT;
static const char **names;
static size_t n_names, cap_names;

void jl__input_read(const char *path)
{
    struct stat sb;
    if (!path || !*path || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return;
    pthread_mutex_lock(&lock);
    if (n_names == cap_names) {
        size_t cap = cap_names ? 2 * cap_names : 16;
        const char **x = realloc(names, cap * sizeof *x);
        if (x) {
            names = x;
            cap_names = cap;
        }
    }
    /* out of memory: the path goes unlisted, never a crash */
    int added = 0;
    jl__strmap_entry *e = n_names < cap_names ? jl__strmap_add(&seen, path, n_names, &added) : NULL;
    if (e && added)
        names[n_names++] = e->key; /* the map's copy: it stays where it is */
    pthread_mutex_unlock(&lock);
}

size_t jl__inputs_count(void)
{
    pthread_mutex_lock(&lock);
    size_t n = n_names;
    pthread_mutex_unlock(&lock);
    return n;
}

const char *jl__inputs_get(size_t i)
{
    pthread_mutex_lock(&lock);
    const char *p = i < n_names ? names[i] : NULL;
    pthread_mutex_unlock(&lock);
    return p;
}

void jl__inputs_forget_all(void)
{
    pthread_mutex_lock(&lock);
    free(names);
    names = NULL;
    n_names = cap_names = 0;
    jl__strmap_free(&seen);
    pthread_mutex_unlock(&lock);
}
