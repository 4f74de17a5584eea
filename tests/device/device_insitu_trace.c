/* insitu_trace — write the text made by tests/device/insitu_prepare.py as a
 * joules trace (format v1, with spans/ of format 1.2 for the isolated loops).
 *
 *     insitu_trace IN.txt OUT.h5
 *
 * IN.txt, one record a line:
 *     run NAME                       a new run (ends at "end")
 *     attr KEY str TEXT | attr KEY num VALUE
 *     power T ENERGY_J WATTS WATTS_AVG   (one GPU; t relative to the run's t = 0)
 *     engine T RUNNING TOKENS_GENERATED
 *     gpu T SM_CLOCK_MHZ             gpu/time and gpu/sm_clock_mhz (one GPU)
 *     span NAME START END            one span; the run's spans/ window is its extent
 *     end
 * Public API only (joules/trace_write.h, joules/spans.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "joules/attrs.h"
#include "joules/spans.h"
#include "joules/trace.h"
#include "joules/trace_write.h"

#define MAX_RUNS 64

typedef struct {
    double *v;
    size_t n, cap;
} vec;

static int push(vec *x, double v)
{
    if (x->n == x->cap) {
        size_t c = x->cap ? 2 * x->cap : 1024;
        double *p = realloc(x->v, c * sizeof *p);
        if (!p)
            return -1;
        x->v = p;
        x->cap = c;
    }
    x->v[x->n++] = v;
    return 0;
}

static char *text_dup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

typedef struct {
    jl_run *run;
    vec pt, pe, pw, pa, et, er, ek, gt, gc;
    char *span_name;
    double span_a, span_b;
} run_in;

static int set_attr(jl_attrs *a, const char *key, const char *typ, const char *val)
{
    int num = strcmp(typ, "num") == 0;
    char *end = NULL;
    double d = num ? strtod(val, &end) : NAN;
    if (num && (end == val || *end))
        return -1;
    if (!strcmp(key, "workload"))
        return (a->workload = text_dup(val)) ? 0 : -1;
    if (!strcmp(key, "model"))
        return (a->model = text_dup(val)) ? 0 : -1;
    if (!strcmp(key, "task"))
        return (a->task = text_dup(val)) ? 0 : -1;
    if (!strcmp(key, "gpu_model"))
        return (a->gpu_model = text_dup(val)) ? 0 : -1;
    if (!strcmp(key, "precision"))
        return (a->precision = text_dup(val)) ? 0 : -1;
    if (!strcmp(key, "notes"))
        return (a->notes = text_dup(val)) ? 0 : -1;
    if (!strcmp(key, "num_gpus"))
        return a->num_gpus = (long)d, 0;
    if (!strcmp(key, "max_batch_size"))
        return a->max_batch_size = (long)d, 0;
    if (!strcmp(key, "start_time_unix"))
        return a->start_time_unix = d, 0;
    if (!strcmp(key, "gpu_idle_power_w"))
        return a->gpu_idle_power_w = d, 0;
    if (!strcmp(key, "gpu_tdp_w"))
        return a->gpu_tdp_w = d, 0;
    return jl_attrs_add_extra(a, key, val, num) == JL_OK ? 0 : -1;
}

static double *take(vec *x)
{
    double *p = x->v;
    x->v = NULL;
    x->n = x->cap = 0;
    return p;
}

/* Move the collected series into the run. */
static int finish(run_in *r)
{
    jl_run *run = r->run;
    size_t n = r->pt.n;
    if (n) {
        run->power_n = n;
        run->watts.n = run->energy_j.n = run->watts_avg.n = n;
        run->watts.g = run->energy_j.g = run->watts_avg.g = 1;
        run->power_time = take(&r->pt);
        run->energy_j.v = take(&r->pe);
        run->watts.v = take(&r->pw);
        run->watts_avg.v = take(&r->pa);
    }
    size_t m = r->et.n;
    if (m) {
        run->engine_n = m;
        run->engine_time = take(&r->et);
        run->running = malloc(m * sizeof *run->running);
        run->tokens_generated = malloc(m * sizeof *run->tokens_generated);
        if (!run->running || !run->tokens_generated)
            return -1;
        for (size_t i = 0; i < m; i++) {
            run->running[i] = (int32_t)r->er.v[i];
            run->tokens_generated[i] = (int64_t)r->ek.v[i];
        }
    }
    size_t q = r->gt.n;
    if (q) {
        run->gpu_n = q;
        run->sm_clock_mhz.n = q;
        run->sm_clock_mhz.g = 1;
        run->gpu_time = take(&r->gt);
        run->sm_clock_mhz.v = take(&r->gc);
    }
    return 0;
}

static void run_in_free(run_in *r)
{
    free(r->pt.v);
    free(r->pe.v);
    free(r->pw.v);
    free(r->pa.v);
    free(r->et.v);
    free(r->er.v);
    free(r->ek.v);
    free(r->gt.v);
    free(r->gc.v);
    free(r->span_name);
    jl_run_free(r->run);
}

static jl_spans *one_span(const run_in *r)
{
    jl_spans *s = jl_spans_new();
    if (!s)
        return NULL;
    s->source = text_dup("harness:insitu_record.py");
    s->side = text_dup("gpu");
    s->clock = text_dup("perf_counter (the run's clock)");
    s->window[0] = r->span_a;
    s->window[1] = r->span_b;
    s->n_names = 1;
    s->names = malloc(sizeof *s->names);
    s->n = 1;
    s->name = malloc(sizeof *s->name);
    s->start = malloc(sizeof *s->start);
    s->end = malloc(sizeof *s->end);
    if (!s->source || !s->side || !s->clock || !s->names || !s->name || !s->start || !s->end) {
        jl_spans_free(s);
        return NULL;
    }
    s->names[0] = text_dup(r->span_name);
    s->name[0] = 0;
    s->start[0] = r->span_a;
    s->end[0] = r->span_b;
    return s;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: insitu_trace IN.txt OUT.h5\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        fprintf(stderr, "insitu_trace: %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    run_in runs[MAX_RUNS];
    size_t nr = 0;
    run_in *cur = NULL;
    char line[4096];
    long ln = 0;
    int bad = 0;
    while (!bad && fgets(line, sizeof line, f)) {
        ln++;
        line[strcspn(line, "\n")] = 0;
        char key[256], typ[16], name[256];
        double a, b, c, d;
        int off = 0;
        if (!strncmp(line, "run ", 4)) {
            if (cur || nr == MAX_RUNS) {
                bad = 1;
                break;
            }
            cur = &runs[nr++];
            memset(cur, 0, sizeof *cur);
            cur->run = jl_run_new();
            cur->run->name = text_dup(line + 4);
            cur->span_a = cur->span_b = NAN;
        } else if (!cur) {
            bad = 1;
        } else if (sscanf(line, "attr %255s %15s %n", key, typ, &off) == 2 && off > 0) {
            bad = set_attr(&cur->run->attrs, key, typ, line + off) != 0;
        } else if (sscanf(line, "power %lf %lf %lf %lf", &a, &b, &c, &d) == 4) {
            bad = push(&cur->pt, a) || push(&cur->pe, b) || push(&cur->pw, c) || push(&cur->pa, d);
        } else if (sscanf(line, "engine %lf %lf %lf", &a, &b, &c) == 3) {
            bad = push(&cur->et, a) || push(&cur->er, b) || push(&cur->ek, c);
        } else if (sscanf(line, "gpu %lf %lf", &a, &b) == 2) {
            bad = push(&cur->gt, a) || push(&cur->gc, b);
        } else if (sscanf(line, "span %255s %lf %lf", name, &a, &b) == 3) {
            cur->span_name = text_dup(name);
            cur->span_a = a;
            cur->span_b = b;
        } else if (!strcmp(line, "end")) {
            bad = finish(cur) != 0;
            cur = NULL;
        } else {
            bad = 1;
        }
    }
    fclose(f);
    int rc = 0;
    if (bad || cur) {
        fprintf(stderr, "insitu_trace: %s:%ld: cannot read this line (or a run without 'end')\n",
                argv[1], ln);
        rc = 1;
    }
    jl_error *err = NULL;
    const jl_run *rp[MAX_RUNS];
    for (size_t i = 0; i < nr; i++)
        rp[i] = runs[i].run;
    if (!rc && jl_trace_write(argv[2], rp, nr, NULL, &err) != JL_OK)
        rc = 1;
    for (size_t i = 0; !rc && i < nr; i++) {
        if (!runs[i].span_name)
            continue;
        jl_spans *s = one_span(&runs[i]);
        if (!s || jl_trace_write_spans(argv[2], runs[i].run->name, s, NULL, &err) != JL_OK)
            rc = 1;
        jl_spans_free(s);
    }
    if (rc && err) {
        char *msg = jl_error_format(err);
        fprintf(stderr, "insitu_trace: %s\n", msg ? msg : "out of memory");
        free(msg);
    }
    jl_error_free(err);
    for (size_t i = 0; i < nr; i++)
        run_in_free(&runs[i]);
    if (!rc)
        printf("%s: %zu runs\n", argv[2], nr);
    return rc;
}
