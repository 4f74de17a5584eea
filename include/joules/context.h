/* joules/context.h — the state a program's studies keep (docs/library.md,
 * "Contexts"; src/core/context.c).
 *
 * A context owns what the library remembers between calls:
 *  - the read log: every file read as an input (traces, logs, RUNS.csv,
 *    request files, budgets, grid series, calibrations, rules, profiles),
 *    each once, in the order first read — a provenance block's inputs
 *    (jl_provenance_add_inputs_read, joules/provenance.h);
 *  - the digest cache: the SHA-256 of files hashed where they were read (a
 *    study's workers, jl_study_options.hash_inputs), so that a provenance
 *    block need not read them again;
 *  - the provenance hook: the block every joules.*\/N document written
 *    carries (jl_output_set_provenance, joules/output.h);
 *  - the external-storage default: what jl_trace_options_default() sets
 *    allow_external_storage to (jl_trace_default_allow_external_storage,
 *    joules/trace.h).
 *
 * Every thread has a current context: the one it last gave to
 * jl_context_use, else the process's default context. The functions of
 * the other headers that read or change this state use the current
 * context, so a program that makes none works as before, with one context
 * for the whole process. A program with two studies gives each its own
 * context (jl_trace_options.context, or jl_context_use around the calls)
 * and they cannot see each other's files, digests or hook.
 *
 * Threads: a context may be used by several threads at once (the read log
 * and the digest cache have a lock); set its hook and its default before
 * those threads start. Ownership: jl_context_new has jl_context_free; the
 * default context is never freed. */
#ifndef JOULES_CONTEXT_H
#define JOULES_CONTEXT_H

#ifdef JOULES_EXPERIMENTAL
#include <jansson.h>
#endif
#include <stddef.h>

#include "joules/export.h"

#ifdef __cplusplus
extern "C" {
#endif
JL_API_BEGIN
/* ---- stable (docs/library.md, "Stable and experimental") ---- */

typedef struct jl_context jl_context;

/* A new, empty context (NULL when out of memory): no file read, no digest,
 * no hook, external storage refused. */
jl_context *jl_context_new(void);
/* Frees c (NULL and the default context: nothing). No other thread may be
 * using it; when it is the calling thread's current context, the thread
 * goes back to the default. */
void jl_context_free(jl_context *c);
/* The process's default context: the current context of a thread that
 * never called jl_context_use (the CLI's). */
jl_context *jl_context_default(void);
/* The calling thread's current context (never NULL). */
jl_context *jl_context_current(void);
/* Make c the calling thread's current context (NULL: the default) and
 * return the one before, for jl_context_use(previous) to restore it. */
jl_context *jl_context_use(jl_context *c);
/* Forget c's read log and digest cache (its hook and its default stay):
 * as new, for the next study of a long-lived program. */
void jl_context_reset(jl_context *c);

/* c's default of jl_trace_options.allow_external_storage (0 or 1). */
void jl_context_set_allow_external_storage(jl_context *c, int allow);
int jl_context_allow_external_storage(const jl_context *c);

/* c's read log: how many files, and the i-th path (NULL past the end;
 * valid until c is reset or freed). */
size_t jl_context_inputs_count(jl_context *c);
const char *jl_context_input(jl_context *c, size_t i);

#ifdef JOULES_EXPERIMENTAL
/* The provenance hook: the block a document carries (NULL: none); the
 * writer keeps no reference. */
typedef const json_t *(*jl_provenance_fn)(void *ctx);
/* c's provenance hook (fn NULL: none); jl_output_set_provenance sets the
 * current context's. */
void jl_context_set_provenance(jl_context *c, jl_provenance_fn fn, void *ctx);
/* The block c's hook gives now (NULL: none). */
const json_t *jl_context_provenance(jl_context *c);
#endif /* JOULES_EXPERIMENTAL */

JL_API_END
#ifdef __cplusplus
}
#endif
#endif
