/* joules/error.h — status codes and errors that carry their context.
 *
 * Every fallible library call returns a jl_status and, on failure, fills a
 * jl_error with everything a user needs to find the problem: the file, the
 * run, the HDF5 object path and the row (or the line and column of a text
 * input). The library never prints and never exits; the CLI prints the
 * error once and maps it (its status and side) to an exit code in one
 * place (cli_exit_for_error, src/cli/exit_codes.c).
 *
 * Where a failure happened is on the error (`side`): the output layer
 * (src/output/) and the trace writer mark an output that could not be
 * written (JL_SIDE_OUTPUT); a request that goes beyond what the data
 * supports (a prediction beyond a group's batch ceiling) is
 * JL_SIDE_REQUEST; every other error is on the input side (a file that
 * could not be read is JL_EIO on the input side).
 *
 * Ownership: a jl_error is heap-allocated by the library and freed with
 * jl_error_free(), which accepts NULL. Causes form a short chain: `cause`
 * is the lower-level error this one wraps (e.g. the HDF5 stack).
 */
#ifndef JOULES_ERROR_H
#define JOULES_ERROR_H

#include <stdarg.h>
#include <stddef.h>

#include "joules/export.h"

#ifdef __cplusplus
extern "C" {
#endif
JL_API_BEGIN
/* ---- stable (docs/library.md, "Stable and experimental") ---- */

/* One table generates the enum, the names (jl_status_name) and the messages
 * (jl_strerror); a new status is one row here, added at the end (the values
 * are ABI), plus its exit code in cli_exit_for_error (src/cli/exit_codes.c). */
#define JL_STATUS_TABLE(X)                                    \
    X(JL_OK, "ok", "success")                                 \
    X(JL_ENOMEM, "nomem", "out of memory")                    \
    X(JL_EIO, "io", "input/output error")                     \
    X(JL_EFORMAT, "format", "not a joules trace")             \
    X(JL_EINVALID, "invalid", "invalid data")                 \
    X(JL_EMISSING, "missing", "required field missing")       \
    X(JL_ETYPE, "type", "wrong type or shape")                \
    X(JL_ELIMIT, "limit", "size beyond the configured limit") \
    X(JL_EUSAGE, "usage", "invalid argument")                 \
    X(JL_ENUMERIC, "numeric", "numerical failure")            \
    X(JL_ENODATA, "nodata", "not enough data")                \
    X(JL_EINTERNAL, "internal", "internal error")

typedef enum {
/* clang-format off */
#define JL_X_ENUM(id, name, msg) id,
    JL_STATUS_TABLE(JL_X_ENUM)
#undef JL_X_ENUM
    JL_STATUS_COUNT
    /* clang-format on */
} jl_status;

/* Where an error happened: reading (or using) the input, the default;
 * writing an output; or in what was asked of data that was read. */
typedef enum { JL_SIDE_INPUT = 0, JL_SIDE_OUTPUT = 1, JL_SIDE_REQUEST = 2 } jl_side;

typedef struct jl_error {
    jl_status code;
    char *file;             /* input file, or NULL */
    char *run;              /* run id (group name under /runs), or NULL */
    char *object;           /* HDF5 object path, e.g. /runs/b0064/power/time, or NULL */
    long long row;          /* row index in that object, or -1 */
    char *message;          /* what is wrong, in words; never NULL */
    struct jl_error *cause; /* lower-level error, or NULL */
    /* Position in a text input (CSV, JSON), 1-based; 0 when not applicable.
     * Set with jl_error_set_position(); formatted as "file:line:column". */
    long long line, column;
    /* JL_SIDE_OUTPUT: an output could not be written (jl_fail_output,
     * jl_error_mark_output); JL_SIDE_REQUEST: the request goes beyond the
     * data (jl_error_set_side); JL_SIDE_INPUT otherwise. */
    jl_side side;
} jl_error;

/* Short machine name ("invalid") and human message of a status. */
const char *jl_status_name(jl_status s);
const char *jl_strerror(jl_status s);

/* Create an error. file/run/object may be NULL, row -1 when not applicable.
 * Returns NULL only if memory is exhausted (callers then report JL_ENOMEM). */
jl_error *jl_error_new(jl_status code, const char *file, const char *run, const char *object,
                       long long row, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
jl_error *jl_error_vnew(jl_status code, const char *file, const char *run, const char *object,
                        long long row, const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 0)))
#endif
    ;

/* Set *err (if err is non-NULL and *err is still NULL: the first error
 * wins) and return code, so a failure path reads `return jl_fail(...)`. */
jl_status jl_fail(jl_error **err, jl_status code, const char *file, const char *run,
                  const char *object, long long row, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 7, 8)))
#endif
    ;

/* jl_fail for an output that could not be written: the error is marked
 * JL_SIDE_OUTPUT (the CLI's exit 4). */
jl_status jl_fail_output(jl_error **err, jl_status code, const char *file, const char *run,
                         const char *object, long long row, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 7, 8)))
#endif
    ;

/* A writer's boundary: when st is JL_EIO, mark *err (if any) as an output
 * failure. Returns st, so a writer ends with `return jl_error_mark_output(st, err)`. */
jl_status jl_error_mark_output(jl_status st, jl_error **err);

/* Set the side of an error (no-op for NULL). */
void jl_error_set_side(jl_error *e, jl_side side);

/* Fill in file/run where the error does not name them yet (context added on
 * the way up: a dataset reader knows the object, its caller the run). */
void jl_error_set_context(jl_error *e, const char *file, const char *run);

/* Set the text position of an error (line and column 1-based, column 0 =
 * unknown). No-op for NULL. */
void jl_error_set_position(jl_error *e, long long line, long long column);

/* "file[:line[:column]]: run r: /object: message (caused by: ...)" — the
 * one-line form used on stderr and in JSON; the row, when the message needs
 * it, is in the message. Caller frees with free(). */
char *jl_error_format(const jl_error *e);

/* Names people type, one rule for all of them: every name and value given
 * on the command line or in a document a person writes (attribute keys and
 * values in --where and --exclude, --by, --baseline, -o columns, SLO and
 * figure names, card --model, budget keys and selectors) matches whatever
 * its ASCII case; a file name is the one exception (it names a file).
 * jl_name_eq: typed and name equal under that rule (NULL equals nothing).
 * jl_name_find: the candidate typed means: the one spelt exactly so, else
 * the first equal under the rule; -1 when none (then jl_suggest_name says
 * what was probably meant). */
int jl_name_eq(const char *typed, const char *name);
long jl_name_find(const char *typed, const char *const *cands, size_t n);

/* "Did you mean": what name probably means among cands, written into buf
 * (cap bytes), in this order: the same name in another case; a name people
 * write for one joules names otherwise (gpu, gpus, batch_size, cap, dtype,
 * model_id, ... -> gpu_model, num_gpus, max_batch_size, precision, model)
 * when that one is a candidate; the candidate closest by edits (ASCII case
 * folded; an insertion, deletion, substitution or swap of neighbours is one
 * edit), at most one edit away for names of 3-5 bytes, two from 6 bytes;
 * else the only candidate that name begins up to a '_' or '-' (tensor:
 * tensor_parallel).
 * Returns 1 with a suggestion, 0 without (buf then ""). For every message
 * naming an unknown column, key, figure, model or option value. */
int jl_suggest_name(const char *name, const char *const *cands, size_t n, char *buf, size_t cap);
/* The same for an attribute's value among those present (a GPU model, a
 * model, a precision): no synonyms, and no candidate as long as value
 * within the edits, since values a letter apart are different things
 * (A100 is not H100; H10 is H100 cut short). */
int jl_suggest_value(const char *value, const char *const *cands, size_t n, char *buf, size_t cap);

/* s as one word of a POSIX shell command line, for a message or document
 * that names a command to type: unchanged when it is made only of letters,
 * digits and _-./=:,+@% (and not empty), else in single quotes with each '
 * written '\''. Caller frees; NULL out of memory. */
char *jl_shell_quote(const char *s);

void jl_error_free(jl_error *e);

/* A growable list of errors, owned: used where one bad input must not stop
 * the others (every command collects failures and reports them all). */
typedef struct jl_error_list {
    jl_error **items;
    size_t count;
    size_t cap;
} jl_error_list;

/* Takes ownership of e (NULL is ignored). Returns JL_ENOMEM on failure, in
 * which case e is freed. */
jl_status jl_error_list_push(jl_error_list *list, jl_error *e);
void jl_error_list_clear(jl_error_list *list);

JL_API_END
#ifdef __cplusplus
}
#endif
#endif
