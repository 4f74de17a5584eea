/* joules/counted.h — what an account counts of a run (docs/accounting.md,
 * "What each command counts"; src/account/counted.c): the boundary asked
 * for (--window, --scope) resolved against what the run measured, and what
 * is left out. The budgets, the emissions and the labels count through it.
 */
#ifndef JOULES_COUNTED_H
#define JOULES_COUNTED_H

#include "joules/error.h"
#include "joules/summary.h"

#ifdef __cplusplus
extern "C" {
#endif
JL_API_BEGIN
/* ---- stable (docs/library.md, "Stable and experimental") ---- */

/* ---- what an account counts (docs/accounting.md, "What each command counts") ---- */

/* The boundary an account is asked for: a jl_window and a jl_scope, or -1
 * for the defaults: window run (the whole run; a run that has no whole-run
 * energy -- a summary-only import of steady-state figures -- is counted
 * over its own window and says so), scope auto (the widest the run
 * measured: node, else GPUs + host, else GPUs). An explicit window or scope
 * a run cannot give is an error naming the run and what it has. */
typedef struct jl_account_boundary {
    int window;
    int scope;
} jl_account_boundary;

/* {-1, -1}. */
void jl_account_boundary_default(jl_account_boundary *a);
/* --window and --scope as typed (either may be NULL: the default; "auto"
 * is the default scope). JL_EUSAGE naming the option and the values. */
jl_status jl_account_boundary_parse(jl_account_boundary *a, const char *window, const char *scope,
                                    jl_error **err);

/* What an account counts of one run, and what it leaves out. */
typedef struct jl_counted {
    jl_boundary boundary; /* counted; scope facility: base_scope x PUE, by the account */
    jl_scope base_scope;  /* the measured scope counted (boundary.scope but for facility) */
    int window_fallback;  /* the default window: no whole-run energy, the run's own counted */
    double energy_j;      /* at base_scope over the window (NaN: a source that published
                              per-unit figures only) */
    double per_token_j, per_request_j, per_item_j; /* the same per unit (NaN where none) */
    double duration_s;                             /* the window's length */
    /* left out: the energy of base_scope outside the window (0 for the
     * whole run; NaN when not known), and the energy measured at a wider
     * scope than counted (wider: that scope; JL_SCOPE_COUNT none) */
    double outside_window_j;
    jl_scope wider;
    double wider_j;
    unsigned
        not_measured; /* bits 1 << JL_SCOPE_HOST, 1 << JL_SCOPE_NODE: wider scopes not measured */
} jl_counted;

/* What a (may be NULL: the defaults) counts of run s into *out; JL_ENODATA
 * (side request) naming the run and the boundaries it has when it cannot. */
jl_status jl_account_count(const jl_summary *s, const jl_account_boundary *a, jl_counted *out,
                           jl_error **err);
#ifdef JOULES_EXPERIMENTAL
/* What c left out, as every account's document carries it (emissions'
 * runs, labels, budgets' runs, docs/accounting.md): {"outside_window_kwh",
 * "wider_scope" (null: none), "wider_scope_kwh", "scopes_not_measured"
 * (["host", "node"] of those), "window_fallback"}; an energy not known is
 * null. NULL on out of memory. */
json_t *jl_counted_left_out_to_json(const jl_counted *c);
#endif /* JOULES_EXPERIMENTAL */
/* "GPU", "GPU + host", "node", "facility", "provisioned (TDP)" */
const char *jl_scope_words(jl_scope s);
/* "whole run", "steady state", "profiled window", "source's window" */
const char *jl_window_words(jl_window w);

JL_API_END
#ifdef __cplusplus
}
#endif

#endif
