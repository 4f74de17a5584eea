/* Spans from a profiler's ranges (profile_spans.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "import/profile_spans.h"

typedef struct {
    double t0;
    size_t idx;
} order_key;

static int cmp_order(const void *a, const void *b)
{
    const order_key *x = a, *y = b;
    if (x->t0 != y->t0)
        return x->t0 < y->t0 ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

jl_status jl__spans_from_raw(jl__raw_spans *raw, const jl_run *run, const double win[2],
                             jl_spans **out, size_t *n_steps)
{
    *out = NULL;
    *n_steps = 0;
    size_t n = raw->n;
    order_key *ord = malloc((n ? n : 1) * sizeof *ord);
    size_t *pos = malloc((n ? n : 1) * sizeof *pos);
    int32_t *remap = malloc((raw->n_names ? raw->n_names : 1) * sizeof *remap);
    jl_spans *sp = jl_spans_new();
    jl_status st = JL_ENOMEM;
    if (!ord || !pos || !remap || !sp)
        goto end;
    sp->n = n;
    sp->name = malloc((n ? n : 1) * sizeof *sp->name);
    sp->start = malloc((n ? n : 1) * sizeof *sp->start);
    sp->end = malloc((n ? n : 1) * sizeof *sp->end);
    sp->parent = malloc((n ? n : 1) * sizeof *sp->parent);
    sp->gpu = malloc((n ? n : 1) * sizeof *sp->gpu);
    sp->step = malloc((n ? n : 1) * sizeof *sp->step);
    sp->busy_s = raw->busy_s ? malloc((n ? n : 1) * sizeof *sp->busy_s) : NULL;
    sp->names = calloc(raw->n_names ? raw->n_names : 1, sizeof *sp->names);
    if (!sp->name || !sp->start || !sp->end || !sp->parent || !sp->gpu || !sp->step ||
        (raw->busy_s && !sp->busy_s) || !sp->names)
        goto end;
    for (size_t j = 0; j < n; j++)
        ord[j] = (order_key){raw->start[j], j};
    qsort(ord, n, sizeof *ord, cmp_order);
    for (size_t j = 0; j < n; j++)
        pos[ord[j].idx] = j;
    for (size_t j = 0; j < raw->n_names; j++)
        remap[j] = -1;
    double lo = INFINITY, hi = -INFINITY;
    int32_t step = -1;
    size_t e_row = 0;
    for (size_t o = 0; o < n; o++) {
        size_t j = ord[o].idx;
        int32_t nm = raw->name[j];
        if (remap[nm] < 0) {
            remap[nm] = (int32_t)sp->n_names;
            sp->names[sp->n_names++] = raw->names[nm];
            raw->names[nm] = NULL;
        }
        sp->name[o] = remap[nm];
        sp->start[o] = raw->start[j];
        sp->end[o] = raw->end[j];
        sp->parent[o] = raw->parent && raw->parent[j] >= 0 ? (int32_t)pos[raw->parent[j]] : -1;
        sp->gpu[o] = raw->gpu ? raw->gpu[j] : 0;
        if (sp->busy_s)
            sp->busy_s[o] = (float)raw->busy_s[j];
        const char *name = sp->names[sp->name[o]];
        size_t len = strlen(name);
        if (len > 5 && !strcmp(name + len - 5, "_step")) {
            while (e_row < run->engine_n && run->engine_time[e_row] < sp->start[o])
                e_row++;
            step =
                run->engine_n ? (e_row < run->engine_n ? (int32_t)e_row : -1) : (int32_t)*n_steps;
            (*n_steps)++;
        }
        sp->step[o] = step;
        lo = fmin(lo, sp->start[o]);
        hi = fmax(hi, sp->end[o]);
    }
    if (win && isfinite(win[0]) && isfinite(win[1])) {
        lo = fmin(lo, win[0]);
        hi = fmax(hi, win[1]);
    }
    sp->window[0] = lo;
    sp->window[1] = hi;
    *out = sp;
    sp = NULL;
    st = JL_OK;
end:
    jl_spans_free(sp);
    free(ord);
    free(pos);
    free(remap);
    return st;
}

jl_status jl__profile_read_run(const char *path, const char *run, jl_run **out,
                               jl_error_list *errors)
{
    *out = NULL;
    jl_trace *t = NULL;
    jl_error *err = NULL;
    jl_status st = jl_trace_open(path, NULL, &t, &err);
    size_t i = 0;
    if (st == JL_OK) {
        while (i < jl_trace_run_count(t) && strcmp(jl_trace_run_name(t, i), run))
            i++;
        if (i == jl_trace_run_count(t))
            st = jl_fail(&err, JL_EUSAGE, path, run, NULL, -1, "no run '%s' in the trace", run);
    }
    if (st == JL_OK)
        st = jl_trace_read_run(t, i, out, &err);
    jl_trace_close(t);
    if (st != JL_OK)
        jl_error_list_push(errors, err);
    return st;
}

int jl__unix_ns(double t, long long *ns)
{
    if (!(fabs(t) < 9.2e9))
        return -1;
    double whole = floor(t);
    *ns = (long long)whole * 1000000000LL + llround((t - whole) * 1e9);
    return 0;
}
