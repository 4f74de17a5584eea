/* The files read as inputs: the current context's read log (core/inputs.h,
 * joules/context.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/context_internal.h"
#include "core/inputs.h"

void jl__input_read(const char *path)
{
    struct stat sb;
    if (!path || !*path || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return;
    jl_context *c = jl_context_current();
    pthread_mutex_lock(&c->lock);
    if (c->n_names == c->cap_names) {
        size_t cap = c->cap_names ? 2 * c->cap_names : 16;
        const char **x = realloc(c->names, cap * sizeof *x);
        if (x) {
            c->names = x;
            c->cap_names = cap;
        }
    }
    /* out of memory: the path goes unlisted, never a crash */
    int added = 0;
    jl__strmap_entry *e =
        c->n_names < c->cap_names ? jl__strmap_add(&c->seen, path, c->n_names, &added) : NULL;
    if (e && added)
        c->names[c->n_names++] = e->key; /* the map's copy: it stays where it is */
    pthread_mutex_unlock(&c->lock);
}

size_t jl__inputs_count(void)
{
    return jl_context_inputs_count(jl_context_current());
}

const char *jl__inputs_get(size_t i)
{
    return jl_context_input(jl_context_current(), i);
}
