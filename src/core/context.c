/* Contexts: the state a program's studies keep (joules/context.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "core/context_internal.h"

/* The process's default context, and each thread's current one (NULL: the
 * default). The only statics of this state: a thread's choice is its own. */
static jl_context default_context = {PTHREAD_MUTEX_INITIALIZER,
                                     JL__STRMAP_INIT,
                                     NULL,
                                     0,
                                     0,
                                     JL__STRMAP_INIT,
                                     NULL,
                                     0,
                                     NULL,
                                     NULL,
                                     0};
static _Thread_local jl_context *current;

jl_context *jl_context_new(void)
{
    jl_context *c = calloc(1, sizeof *c);
    if (c && pthread_mutex_init(&c->lock, NULL) != 0) {
        free(c);
        return NULL;
    }
    return c;
}

static void forget(jl_context *c)
{
    free(c->names);
    c->names = NULL;
    c->n_names = c->cap_names = 0;
    jl__strmap_free(&c->seen);
    jl__strmap_free(&c->paths);
    free(c->digs);
    c->digs = NULL;
    c->digs_cap = 0;
}

void jl_context_free(jl_context *c)
{
    if (!c || c == &default_context)
        return;
    if (current == c)
        current = NULL;
    forget(c);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

jl_context *jl_context_default(void)
{
    return &default_context;
}

jl_context *jl_context_current(void)
{
    return current ? current : &default_context;
}

jl_context *jl_context_use(jl_context *c)
{
    jl_context *was = jl_context_current();
    current = c == &default_context ? NULL : c;
    return was;
}

void jl_context_reset(jl_context *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&c->lock);
    forget(c);
    pthread_mutex_unlock(&c->lock);
}

void jl_context_set_provenance(jl_context *c, jl_provenance_fn fn, void *ctx)
{
    c->hook_fn = fn;
    c->hook_ctx = ctx;
}

const json_t *jl_context_provenance(jl_context *c)
{
    return c->hook_fn ? c->hook_fn(c->hook_ctx) : NULL;
}

void jl_context_set_allow_external_storage(jl_context *c, int allow)
{
    c->allow_external = allow != 0;
}

int jl_context_allow_external_storage(const jl_context *c)
{
    return c->allow_external;
}

size_t jl_context_inputs_count(jl_context *c)
{
    pthread_mutex_lock(&c->lock);
    size_t n = c->n_names;
    pthread_mutex_unlock(&c->lock);
    return n;
}

const char *jl_context_input(jl_context *c, size_t i)
{
    pthread_mutex_lock(&c->lock);
    const char *p = i < c->n_names ? c->names[i] : NULL;
    pthread_mutex_unlock(&c->lock);
    return p;
}
