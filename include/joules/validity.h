/* joules/validity.h — whether a run's figures can be trusted, and why not.
 *
 * Every run carries a validity (issue 37): a list of reasons, each a code
 * from one table (src/core/reasons.h; docs/check.md, "Reason codes"), a
 * sentence and, where the reason bears on energy, the most energy by which
 * the run's energy could be off because of it (energy_bound_j; NaN when
 * that does not apply or cannot be said). A run is valid when none of its
 * reasons has severity "invalid"; reasons of severity "caution" and "info"
 * say what a reader must know about figures that are right as labelled.
 * In documents: "validity": {"valid": bool, "reasons": [{"code", "message",
 * "energy_bound_j", "severity"}]}.
 *
 * Importers find some reasons (a record cut short, a log of two sessions, a
 * request file whose stated time is another day's) and store them in the
 * run attribute `validity_reasons` (JSON text, below); jl_summarize() adds
 * what the series show (gaps, windows not bracketed by samples, counter
 * restarts, invalid samples, requests that do not belong to the power) and
 * the check rules add theirs (jl_check_annotate).
 */
#ifndef JOULES_VALIDITY_H
#define JOULES_VALIDITY_H

#include <stddef.h>

#include "joules/error.h"

#ifdef __cplusplus
extern "C" {
#endif
JL_API_BEGIN
/* ---- stable (docs/library.md, "Stable and experimental") ---- */

typedef enum {
    JL_SEVERITY_INVALID = 0, /* the figures may be wrong: the run is not valid */
    JL_SEVERITY_CAUTION = 1, /* right as labelled, but a reader must know this */
    JL_SEVERITY_INFO = 2     /* what was done to the input */
} jl_severity;

/* "invalid", "caution", "info". */
const char *jl_severity_name(jl_severity s);

/* One row of the reason table. */
typedef struct jl_reason_info {
    const char *code; /* stable name, e.g. "sample_gap" */
    jl_severity severity;
    const char *doc; /* one line: what it means */
} jl_reason_info;

/* The table, in its stable order; *n receives its length. */
const jl_reason_info *jl_reason_infos(size_t *n);
/* The row of code, or NULL when the table has no such code. */
const jl_reason_info *jl_reason_find(const char *code);

typedef struct jl_reason {
    char *code;            /* a code of the table (or, from a newer writer, one it lacks) */
    char *message;         /* what happened, in words */
    double energy_bound_j; /* NaN: none */
} jl_reason;

typedef struct jl_validity {
    jl_reason *reasons;
    size_t n;
} jl_validity;

/* 1 when no reason has severity invalid (a code the table lacks counts as
 * invalid: a newer writer's reason is not dropped quietly). */
int jl_validity_is_valid(const jl_validity *v);
/* The severity of a reason (invalid for an unknown code). */
jl_severity jl_reason_severity(const jl_reason *r);
/* Append a reason (code and message copied). A reason with the same code
 * and message already in v is not added twice. */
jl_status jl_validity_add(jl_validity *v, const char *code, double energy_bound_j,
                          const char *message);
/* 1 when v holds a reason with this code. */
int jl_validity_has(const jl_validity *v, const char *code);
void jl_validity_clear(jl_validity *v);
jl_status jl_validity_copy(jl_validity *dst, const jl_validity *src);
/* Every reason of src appended to dst. */
jl_status jl_validity_merge(jl_validity *dst, const jl_validity *src);

/* The reasons as JSON text, [{"code", "message", "energy_bound_j"}] (the
 * run attribute validity_reasons); NULL when out of memory. */
char *jl_validity_to_text(const jl_validity *v);
/* Parse such text, appending to v. JL_EINVALID when it is not an array of
 * such objects (nothing appended), JL_ENOMEM. */
jl_status jl_validity_parse_text(jl_validity *v, const char *text);

JL_API_END
#ifdef __cplusplus
}
#endif
#endif
