/* nvidia-smi logs: logging sessions (issue 37) -- where a new one begins
 * (a header line repeated, the clock jumping past the gap limit, another
 * GPU under an index); what a run spanning two says is nvsmi_runs.c's
 * (nvsmi_internal.h). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/reasons.h"

#include "import/nvsmi_internal.h"

/* Does the sample of row r (dt after the one before) begin a new logging
 * session? A header line repeated since, with a gap beyond the gap limit
 * (5 polls of the log's shortest, and 1 s more than one: the limit the
 * summary's sample_gap uses); a gap beyond SESSION_GAP_S; another GPU under
 * an index. 1 (recorded), 0, -1 out of memory. */
int jl__nvsmi_new_session(log_data *L, const prow *r, double dt)
{
    double lim = isfinite(L->min_dt) ? fmax(5 * L->min_dt, L->min_dt + 1.0) : 1.0;
    char why[400] = "";
    if (L->ident_pending)
        snprintf(why, sizeof why, "%s", L->ident_msg);
    else if (L->hdr_pending && dt > lim)
        snprintf(why, sizeof why, "a header line repeated and %.6g s without samples", dt);
    else if (dt > SESSION_GAP_S && dt > lim)
        snprintf(why, sizeof why, "%.6g s without samples (more than %g s)", dt, SESSION_GAP_S);
    L->hdr_pending = L->ident_pending = 0;
    if (!why[0])
        return 0;
    if (L->n_sess == L->cap_sess) {
        size_t nc = L->cap_sess ? 2 * L->cap_sess : 4;
        log_session *x = realloc(L->sess, nc * sizeof *x);
        if (!x)
            return -1;
        L->sess = x;
        L->cap_sess = nc;
    }
    log_session *x = &L->sess[L->n_sess++];
    x->at = L->n_samples;
    x->t = r->t;
    x->gap = dt;
    x->line = r->line;
    snprintf(x->why, sizeof x->why, "%s", why);
    return 1;
}

/* A row that repeats the header (another logging session appended to the
 * file): every field names the same column. */
int jl__nvsmi_repeats_header(const log_data *L, const jl__csv_row *row)
{
    if (row->n != L->n_cols || L->dmon)
        return 0;
    for (size_t i = 0; i < row->n; i++) {
        char name[128], unit[128];
        jl__imp_csv_split_unit(row->f[i].s, name, unit, sizeof name);
        if (strcmp(name, L->cols[i].name))
            return 0;
    }
    return 1;
}
