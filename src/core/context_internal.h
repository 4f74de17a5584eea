/* The inside of a context (joules/context.h): the state that was once the
 * statics of core/inputs.c (the read log), core/digests.c (the digest
 * cache), output/provenance_hook.c (the hook) and trace/trace_read.c (the
 * external-storage default). */
#ifndef JOULES_CORE_CONTEXT_INTERNAL_H
#define JOULES_CORE_CONTEXT_INTERNAL_H

#include <pthread.h>

#include "core/hash.h"
#include "core/sha256.h"
#include "joules/context.h"

struct jl_context {
    pthread_mutex_t lock; /* the read log and the digest cache */
    /* the read log (core/inputs.c): path -> index into names */
    jl__strmap seen;
    const char **names; /* the map's copies of the keys */
    size_t n_names, cap_names;
    /* the digest cache (core/digests.c): path -> index into digs */
    jl__strmap paths;
    jl__digest *digs;
    size_t digs_cap;
    /* set before the threads that use the context start */
    jl_provenance_fn hook_fn;
    void *hook_ctx;
    int allow_external;
};

#endif
