/* RUNS.csv, the runs of a log cut by the user (kit.h, docs/import.md,
 * "Runs"): one reader for every importer that takes --runs
 * (nvidia-smi, prometheus). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "import/kit.h"

void jl__imp_run_specs_free(jl__imp_run_spec *s, size_t n)
{
    for (size_t i = 0; s && i < n; i++) {
        free(s[i].name);
        free(s[i].gpus);
        free(s[i].requests);
        free(s[i].log);
        for (size_t k = 0; k < s[i].n_attrs; k++) {
            free(s[i].attrs[k].key);
            free(s[i].attrs[k].value);
        }
        free(s[i].attrs);
    }
    free(s);
}

/* A time of RUNS.csv: Unix seconds or ISO 8601 (zone optional). */
static int parse_when(const char *s, jl__zone *z, double *out)
{
    double x;
    if (jl__imp_number(s, &x)) {
        *out = x;
        return 1;
    }
    jl__civil c;
    if (!jl__civil_parse(s, &c))
        return 0;
    int gap;
    *out = jl__zone_to_unix(z, &c, NAN, &gap);
    return 1;
}

/* RUNS.csv's header: names (copied, none twice) and the columns run,
 * start, end. */
typedef struct runs_head {
    char **name;
    size_t n;
    int run, start, end;
} runs_head;

static jl_status runs_header(const char *file, const jl__csv_row *row, runs_head *h,
                             jl_error_list *errors)
{
    h->run = h->start = h->end = -1;
    if (!(h->name = calloc(row->n ? row->n : 1, sizeof *h->name)))
        return JL_ENOMEM;
    for (size_t i = 0; i < row->n; i++) {
        const char *s = row->f[i].s;
        if (!(h->name[i] = jl__strdup(s)))
            return JL_ENOMEM;
        h->n++;
        for (size_t j = 0; j < i; j++)
            if (!strcmp(h->name[j], s))
                return jl__imp_err_at(errors, JL_EINVALID, file, row->line, row->f[i].column, s,
                                      "a column named twice");
        int *slot = !strcmp(s, "run")     ? &h->run
                    : !strcmp(s, "start") ? &h->start
                    : !strcmp(s, "end")   ? &h->end
                                          : NULL;
        if (slot)
            *slot = (int)i;
    }
    if (h->run < 0 || h->start < 0 || h->end < 0)
        return jl__imp_err_at(errors, JL_EMISSING, file, row->line, 1, NULL,
                              "the header must name the columns run, start and end "
                              "(then any run attribute)");
    return JL_OK;
}

/* A run's name, unique and without '/', and its window [start, end]. */
static jl_status run_window(const char *file, const jl__csv_row *row, const runs_head *h,
                            jl__zone *z, const jl__imp_run_spec *specs, size_t n, jl__strmap *names,
                            jl__imp_run_spec *sp, jl_error_list *errors)
{
    const jl__csv_field *f = &row->f[h->run];
    if (!*f->s || strchr(f->s, '/') || !strcmp(f->s, "."))
        return jl__imp_err_at(errors, JL_EINVALID, file, row->line, f->column, "run",
                              "expected a run name without '/', found '%s'", f->s);
    int added = 0;
    const jl__strmap_entry *e = jl__strmap_add(names, f->s, n, &added);
    if (!e)
        return JL_ENOMEM;
    if (!added)
        return jl__imp_err_at(errors, JL_EINVALID, file, row->line, f->column, "run",
                              "run '%s' is named twice (also line %lld)", f->s,
                              specs[e->value].line);
    if (!(sp->name = jl__strdup(f->s)))
        return JL_ENOMEM;
    for (int w = 0; w < 2; w++) {
        const jl__csv_field *tf = &row->f[w ? h->end : h->start];
        if (!parse_when(tf->s, z, w ? &sp->end : &sp->start))
            return jl__imp_err_at(errors, JL_EINVALID, file, row->line, tf->column,
                                  w ? "end" : "start",
                                  "expected Unix seconds or an ISO 8601 time "
                                  "(2026-11-23T22:17:22.1Z), found '%s'",
                                  tf->s);
    }
    if (!(sp->end > sp->start))
        return jl__imp_err_at(errors, JL_EINVALID, file, row->line, row->f[h->end].column, "end",
                              "the run ends before it starts (%s <= %s)", row->f[h->end].s,
                              row->f[h->start].s);
    return JL_OK;
}

/* The other columns of a run's row: gpus, requests, requests_offset, log,
 * and run attributes (checked now, set when the run is built). */
static jl_status run_columns(const char *file, const jl__csv_row *row, const runs_head *h,
                             jl__imp_run_spec *sp, jl_error_list *errors)
{
    for (size_t i = 0; i < h->n; i++) {
        if ((int)i == h->run || (int)i == h->start || (int)i == h->end || !*row->f[i].s)
            continue;
        const char *k = h->name[i], *v = row->f[i].s;
        char **dst = !strcmp(k, "gpus")       ? &sp->gpus
                     : !strcmp(k, "requests") ? &sp->requests
                     : !strcmp(k, "log")      ? &sp->log
                                              : NULL;
        if (dst) {
            if (!(*dst = jl__strdup(v)))
                return JL_ENOMEM;
            continue;
        }
        if (!strcmp(k, "requests_offset")) {
            if (!jl__imp_number(v, &sp->req_offset))
                return jl__imp_err_at(errors, JL_EINVALID, file, row->line, row->f[i].column, k,
                                      "expected seconds, found '%s'", v);
            continue;
        }
        jl_attrs probe;
        jl_attrs_init(&probe);
        const char *why = jl__imp_set_attr(&probe, k, v);
        jl_attrs_clear(&probe);
        if (why)
            return jl__imp_err_at(errors, JL_EINVALID, file, row->line, row->f[i].column, k,
                                  "%s, found '%s'", why, v);
        jl_kv *x = realloc(sp->attrs, (sp->n_attrs + 1) * sizeof *x);
        if (!x)
            return JL_ENOMEM;
        sp->attrs = x;
        x[sp->n_attrs].key = jl__strdup(k);
        x[sp->n_attrs].value = jl__strdup(v);
        x[sp->n_attrs].is_number = 0;
        if (!x[sp->n_attrs++].key || !x[sp->n_attrs - 1].value)
            return JL_ENOMEM;
    }
    return JL_OK;
}

/* RUNS.csv: a header naming run, start, end and any run attribute, then one
 * row per run. */
jl_status jl__imp_runs_read(jl__csv *csv, jl__zone *z, jl_error_list *errors,
                            jl__imp_run_spec **out, size_t *n_out)
{
    const char *file = jl__csv_name(csv);
    jl__csv_row row;
    jl_error *err = NULL;
    runs_head h = {0};
    jl__strmap names = JL__STRMAP_INIT; /* run name -> its spec */
    size_t n = 0, cap = 0;
    jl__imp_run_spec *specs = NULL;
    int r;
    jl_status st = JL_OK;
    *out = NULL;
    *n_out = 0;
    while (st == JL_OK && (r = jl__csv_next(csv, &row, &err)) > 0) {
        if (!h.name) {
            st = runs_header(file, &row, &h, errors);
            continue;
        }
        if (row.n != h.n) {
            st = jl__imp_err_at(errors, JL_EINVALID, file, row.line, 1, NULL,
                                "%zu fields, the header has %zu", row.n, h.n);
            break;
        }
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 16;
            jl__imp_run_spec *x = realloc(specs, nc * sizeof *x);
            if (!x) {
                st = JL_ENOMEM;
                break;
            }
            specs = x;
            cap = nc;
        }
        jl__imp_run_spec *sp = &specs[n++];
        memset(sp, 0, sizeof *sp);
        sp->line = row.line;
        sp->req_offset = NAN;
        st = run_window(file, &row, &h, z, specs, n - 1, &names, sp, errors);
        if (st == JL_OK)
            st = run_columns(file, &row, &h, sp, errors);
    }
    if (st == JL_OK && r < 0) {
        st = err ? err->code : JL_ENOMEM;
        jl_error_list_push(errors, err);
        err = NULL;
    } else if (st == JL_OK && !h.name) {
        st = jl__imp_err_at(errors, JL_EMISSING, file, 0, 0, NULL, "empty: no header");
    } else if (st == JL_OK && n == 0) {
        st = jl__imp_err_at(errors, JL_ENODATA, file, 0, 0, NULL, "no runs (only a header)");
    }
    if (st == JL_ENOMEM && !errors->count)
        jl__imp_err_at(errors, JL_ENOMEM, file, 0, 0, NULL, "out of memory");
    jl__imp_free_names(h.name, h.n);
    jl__strmap_free(&names);
    jl_error_free(err);
    if (st != JL_OK) {
        jl__imp_run_specs_free(specs, n);
        return st;
    }
    *out = specs;
    *n_out = n;
    return JL_OK;
}
