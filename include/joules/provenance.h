/* joules/provenance.h — what made a document, so an auditor can check it
 * (docs/accounting.md, "Provenance", "Verify"; src/account/).
 *
 *  - Fingerprints: SHA-256 (FIPS 180-4) of a buffer or a file.
 *  - Provenance: what made a document (joules' version and build, the
 *    command line, every input's path, size and SHA-256, the validation
 *    rules and method choices in force, the time), the `provenance` block
 *    of every joules.*\/N document (the writers add it through the output
 *    layer's hook, jl_output_set_provenance in joules/output.h).
 *    Deterministic apart from the time, which SOURCE_DATE_EPOCH fixes.
 *  - Verification: two documents compared figure by figure.
 *
 * Ownership: jl_provenance_new has jl_provenance_free (accepts NULL);
 * returned json_t objects are new references.
 */
#ifndef JOULES_PROVENANCE_H
#define JOULES_PROVENANCE_H

#ifdef JOULES_EXPERIMENTAL
#include <jansson.h>
#endif
#include <stddef.h>

#include "joules/check.h"
#include "joules/error.h"

#ifdef __cplusplus
extern "C" {
#endif
JL_API_BEGIN
/* ---- stable (docs/library.md, "Stable and experimental") ---- */

#define JL_PROVENANCE_SCHEMA "joules.provenance/1"

/* ---- fingerprints ---- */

/* Lower-case hex SHA-256 of len bytes (hex: 64 characters and a NUL). */
void jl_sha256_hex(const void *data, size_t len, char hex[65]);
/* The same of a whole file; *size (may be NULL) its length in bytes.
 * JL_EMISSING when the file does not exist, JL_EIO when it cannot be read. */
jl_status jl_sha256_file(const char *path, char hex[65], unsigned long long *size, jl_error **err);

/* ---- provenance ---- */

typedef struct jl_provenance jl_provenance;

jl_provenance *jl_provenance_new(void);
void jl_provenance_free(jl_provenance *p);
/* The command line as typed (argv[0] is recorded as "joules"). */
jl_status jl_provenance_set_command(jl_provenance *p, int argc, char *const *argv);
/* An input: a file (hashed when the block is made), or a directory (every
 * regular file under it whose name does not start with '.', in path order). */
jl_status jl_provenance_add_input(jl_provenance *p, const char *path);
/* Every file read as an input so far in the current context (its read
 * log, joules/context.h: the process's when a program made none) — the
 * readers note what they open: traces, logs, RUNS.csv, request files,
 * budgets, grid series, calibrations, rules, profiles — added as inputs
 * (each once). *added (may be NULL) the number new to p. */
jl_status jl_provenance_add_inputs_read(jl_provenance *p, size_t *added);
/* Forget p's inputs; jl_provenance_add_inputs_read then adds only the
 * files read from now on (import --each: each trace its own sources) in
 * the same context. */
void jl_provenance_restart_inputs(jl_provenance *p);
/* The validation rules in force (copied). */
void jl_provenance_set_rules(jl_provenance *p, const jl_ruleset *rules);
#ifdef JOULES_EXPERIMENTAL
/* A method choice: key = value (a copy of v is kept; a repeated key
 * replaces its value). */
jl_status jl_provenance_set_method(jl_provenance *p, const char *key, const json_t *v);
#endif /* JOULES_EXPERIMENTAL */
/* The creation time, seconds since 1970 UTC (default: SOURCE_DATE_EPOCH
 * when set to an integer, else now). */
void jl_provenance_set_time(jl_provenance *p, long long t);
#ifdef JOULES_EXPERIMENTAL
/* The block: {"schema", "joules": {"version", "build"}, "command",
 * "inputs": [{"path", "bytes", "sha256"}], "rules", "methods", "created"}.
 * An input that cannot be read is listed with "error" instead of a hash.
 * The inputs are hashed once, on the first call (a digest the current
 * context holds for an unchanged file is taken instead). NULL on out of
 * memory. */
json_t *jl_provenance_to_json(jl_provenance *p);

/* SHA-256 of a provenance block without its time ("created") and without
 * the command's output paths (-o/--output/--csv values): the same for every
 * document made from the same inputs, rules and command, wherever it was
 * written. */
void jl_provenance_hash(const json_t *provenance, char hex[65]);
#endif /* JOULES_EXPERIMENTAL */

/* ---- verification ---- */

typedef enum {
    JL_VERIFY_SAME = 0,
    JL_VERIFY_DIFFERS = 1, /* a figure, an input's hash, a rule or joules differ */
    JL_VERIFY_MISSING = 3, /* an input is missing or the document has no provenance */
    /* the command is one verify does not re-run: it would write outside
     * verify's scratch folder (import --into), run a program (report
     * --gnuplot), read outside its files (--allow-external-storage), re-run
     * verify, or it is no command or option of joules (docs/security.md) */
    JL_VERIFY_REFUSED = 4
} jl_verify_verdict;

typedef struct jl_verify_item {
    char *what;   /* "input", "joules", "rules", "methods", "figure", "missing" */
    char *where;  /* JSON path (runs[3].energy_per_token_j) or the input's path */
    char *before; /* the document's value as JSON text, or NULL */
    char *after;  /* the value now, or NULL */
} jl_verify_item;

typedef struct jl_verify_report {
    jl_verify_item *items;
    size_t n, cap;
    size_t n_figures; /* leaves compared */
    size_t n_inputs;  /* inputs re-hashed */
    jl_verify_verdict verdict;
    /* in: 1 when the inputs are re-hashed where the document was made (verify
     * without -C): an input whose path names, from here, another file than
     * the one the document read (its "resolved" name, still there) is a
     * "missing" item rather than another file's hash */
    int check_resolved;
} jl_verify_report;

void jl_verify_report_clear(jl_verify_report *r);
#ifdef JOULES_EXPERIMENTAL
/* The document at path, read as verify reads it: a regular file (a FIFO, a
 * device or a socket is refused before it is opened: docs/security.md)
 * holding JSON. NULL with *err (the file; the line of a JSON error) when
 * it cannot be read. */
json_t *jl_verify_load(const char *path, jl_error **err);
/* Re-hash the inputs of a provenance block (paths relative to the current
 * directory), adding an "input" item per changed hash and a "missing" item
 * per missing file (and, with r->check_resolved, per path that names
 * another file than the one read). */
jl_status jl_verify_inputs(const json_t *provenance, jl_verify_report *r);
/* Compare a document with its re-made twin: the provenance blocks (joules'
 * version and build, rules, methods, inputs; the time is not compared) and
 * every other leaf (numbers, strings, ...) exactly, as written. Adds one
 * item per difference (at most max_items figures are listed; n_figures
 * counts every leaf compared). */
jl_status jl_verify_documents(const json_t *before, const json_t *after, size_t max_items,
                              jl_verify_report *r);
#endif /* JOULES_EXPERIMENTAL */

JL_API_END
#ifdef __cplusplus
}
#endif

#endif
