/* CSV of run summaries (joules/output.h): fixed column order (attributes,
 * method, figures with units in their names), full precision, empty cells
 * for missing values; cells through the output kit's row writer. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/attrs_internal.h"
#include "core/util.h"
#include "joules/output.h"
#include "output/csv_row.h"
#include "summary/summary_internal.h"

static const char *const key_columns[] = {
    "workload",       "model",           "task",
    "gpu_model",      "num_gpus",        "precision",
    "max_batch_size", "tensor_parallel", "expert_parallel",
    "data_parallel",  "denoising_steps", NULL,
};

/* Typed attributes after the warnings column (every attribute is a column;
 * these came later, so existing column positions stay). */
static const char *const more_columns[] = {
    "start_time_unix",
    "gpu_memory_bytes",
    "gpu_tdp_w",
    "gpu_idle_power_w",
    "total_params",
    "active_params",
    "kv_bytes_per_token",
    "height",
    "width",
    "num_frames",
    "notes",
    NULL,
};

/* After disagreements: the row's boundary (boundary.c). */
static const char *const boundary_columns[] = {"boundary_window", "boundary_scope", "total_scope",
                                               "peak_power_kind", NULL};

static int in_list(const char *const *list, const char *k)
{
    for (int i = 0; list[i]; i++)
        if (!strcmp(list[i], k))
            return 1;
    return 0;
}

/* A column's header: joules' name, or the toolkit's. */
static void header(jl__csvw *r, const char *name, jl_names names, double *scale)
{
    const char *m = names == JL_NAMES_MLENERGY ? jl_mlenergy_name(name, 0, scale) : NULL;
    if (!m && scale)
        *scale = 1;
    jl__csvw_cell(r, m ? m : name);
}

/* 0: key is no typed number attribute; 1: a whole number (num_gpus, ...);
 * 2: a real one (gpu_tdp_w, ...). */
static int typed_number(const char *key)
{
    for (size_t k = 0; k < jl__n_attr_fields; k++)
        if (!strcmp(jl__attr_fields[k].name, key))
            return jl__attr_fields[k].kind == JL__F_LONG  ? 1
                   : jl__attr_fields[k].kind == JL__F_DBL ? 2
                                                          : 0;
    return 0;
}

/* One attribute cell: the value as text, scaled when a number and scale != 1;
 * a number attribute's cell is a number cell (typed tables, jl_table). */
static void attr_cell(jl__csvw *r, const jl_summary *s, const char *key, double scale)
{
    char buf[512];
    if (!strcmp(key, "notes")) {
        jl__csvw_cell(r, s->attrs.notes);
        return;
    }
    for (size_t i = 0; i < s->attrs.n_extra; i++)
        if (!strcmp(s->attrs.extra[i].key, key) && !in_list(jl_attr_names, key)) {
            const jl_kv *kv = &s->attrs.extra[i];
            if (kv->is_number) /* whole, however long */
                jl__csvw_number_text(r, kv->value, 0);
            else
                jl__csvw_cell(r, kv->value);
            return;
        }
    if (!jl_attrs_known(&s->attrs, key) || jl_attrs_get(&s->attrs, key, buf, sizeof buf) != 0) {
        jl__csvw_empty(r);
        return;
    }
    char *end = NULL;
    double v = strtod(buf, &end);
    int typed = typed_number(key);
    if (scale != 1 && end != buf && *end == '\0')
        jl__csvw_num(r, v * scale);
    else if (typed)
        jl__csvw_number_text(r, buf, typed == 1);
    else
        jl__csvw_cell(r, buf);
}

/* The extra attributes of any run, in order of first appearance, without
 * those named like a column already. */
static jl_status extra_keys(const jl_summary_list *l, const char ***out, size_t *n)
{
    *out = NULL;
    *n = 0;
    for (size_t r = 0; r < l->count; r++)
        for (size_t i = 0; i < l->items[r]->attrs.n_extra; i++) {
            const char *k = l->items[r]->attrs.extra[i].key;
            if (in_list(jl_attr_names, k) || jl_figure_lookup(k) >= 0 || !strcmp(k, "file") ||
                !strcmp(k, "run") || !strcmp(k, "warnings") || !strcmp(k, "steady_method") ||
                !strcmp(k, "energy_source") || !strcmp(k, "disagreements") || !strcmp(k, "valid") ||
                !strcmp(k, "reasons") || in_list(boundary_columns, k))
                continue;
            size_t j = 0;
            while (j < *n && strcmp((*out)[j], k))
                j++;
            if (j < *n)
                continue;
            const char **nk = realloc(*out, (*n + 1) * sizeof *nk);
            if (!nk) {
                free(*out);
                *out = NULL;
                return JL_ENOMEM;
            }
            *out = nk;
            (*out)[(*n)++] = k;
        }
    return JL_OK;
}

/* The column scales of --names mlenergy (1 for joules' names). */
typedef struct {
    double key[16], more[16], fig[JL_FIG_COUNT];
} col_scales;

/* Where the rows go: a stream (the CSV) or a table of typed cells. */
typedef struct sink {
    FILE *f;
    jl_table *t;
} sink;

static void begin_row(jl__csvw *r, const sink *k)
{
    if (k->t)
        jl__csvw_begin_table(r, k->t);
    else
        jl__csvw_begin(r, k->f);
}

static void header_row(const sink *k, jl_names names, const char *const *extras, size_t n_extras,
                       col_scales *sc)
{
    jl__csvw r;
    begin_row(&r, k);
    jl__csvw_cell(&r, "file");
    jl__csvw_cell(&r, "run");
    for (int i = 0; key_columns[i]; i++) {
        if (names == JL_NAMES_MLENERGY && !strcmp(key_columns[i], "max_batch_size")) {
            /* the toolkit's two names for the cap: one column each */
            jl__csvw_cell(&r, "max_num_seqs");
            jl__csvw_cell(&r, "batch_size");
            sc->key[i] = 1;
            continue;
        }
        header(&r, key_columns[i], names, &sc->key[i]);
    }
    jl__csvw_cell(&r, "steady_method");
    jl__csvw_cell(&r, "energy_source");
    for (int i = 0; i < JL_FIG_COUNT; i++)
        header(&r, jl_figure_name((jl_figure)i), names, &sc->fig[i]);
    jl__csvw_cell(&r, "warnings");
    for (int i = 0; more_columns[i]; i++)
        header(&r, more_columns[i], names, &sc->more[i]);
    jl__csvw_cell(&r, "disagreements");
    jl__csvw_cell(&r, "valid");
    jl__csvw_cell(&r, "reasons");
    for (int i = 0; boundary_columns[i]; i++)
        jl__csvw_cell(&r, boundary_columns[i]);
    for (size_t i = 0; i < n_extras; i++)
        header(&r, extras[i], JL_NAMES_JOULES, NULL);
    jl__csvw_end(&r);
}

/* One run's row; JL_ENOMEM when a joined cell cannot be built. */
static jl_status run_row(const sink *to, const jl_summary *s, jl_names names,
                         const char *const *extras, size_t n_extras, const col_scales *sc)
{
    jl__csvw r;
    begin_row(&r, to);
    jl__csvw_cell(&r, s->file);
    jl__csvw_cell(&r, s->run);
    for (int i = 0; key_columns[i]; i++) {
        if (names == JL_NAMES_MLENERGY && !strcmp(key_columns[i], "max_batch_size")) {
            /* max_num_seqs for an LLM run, batch_size for a diffusion run */
            int dif = jl_attrs_is_diffusion(&s->attrs);
            if (dif)
                jl__csvw_empty(&r);
            attr_cell(&r, s, key_columns[i], 1);
            if (!dif)
                jl__csvw_empty(&r);
            continue;
        }
        attr_cell(&r, s, key_columns[i], sc->key[i]);
    }
    jl__csvw_cell(&r, jl_steady_method_name(s->steady_method));
    jl__csvw_cell(&r, jl_energy_source_name(s->energy_source));
    for (int i = 0; i < JL_FIG_COUNT; i++) {
        jl__csvw_num(&r, s->fig[i] * sc->fig[i]); /* empty when missing */
    }
    /* warnings: rule names joined by ';', however many there are; then the
     * marked disagreements of published and recomputed figures (spec 1.1):
     * figure:relative_difference joined by ';' (docs/summary.md) */
    jl__strbuf w, dis;
    jl__strbuf_init(&w);
    jl__strbuf_init(&dis);
    for (size_t k = 0; k < s->n_warnings; k++) {
        if (k)
            jl__strbuf_puts(&w, ";");
        jl__strbuf_puts(&w, s->warnings[k].rule);
    }
    jl_disagreement d[JL_FIG_COUNT];
    size_t nd = jl_summary_disagreements(s, d);
    for (size_t k = 0, m = 0; k < nd; k++)
        if (d[k].marked) {
            jl__strbuf_printf(&dis, "%s%s", m++ ? ";" : "", jl_figure_name(d[k].figure));
            if (isfinite(d[k].relative_difference))
                jl__strbuf_printf(&dis, ":%+.4g", d[k].relative_difference);
        }
    char *joined = jl__strbuf_take(&w), *marked = jl__strbuf_take(&dis);
    if (!joined || !marked) {
        free(joined);
        free(marked);
        return JL_ENOMEM;
    }
    jl__csvw_cell(&r, joined);
    for (int i = 0; more_columns[i]; i++)
        attr_cell(&r, s, more_columns[i], sc->more[i]);
    jl__csvw_cell(&r, marked);
    /* validity (issue 37): true/false, and the reason codes joined by ';' */
    jl__strbuf why;
    jl__strbuf_init(&why);
    for (size_t k = 0; k < s->validity.n; k++)
        jl__strbuf_printf(&why, "%s%s", k ? ";" : "", s->validity.reasons[k].code);
    char *codes = jl__strbuf_take(&why);
    jl__csvw_cell(&r, jl_validity_is_valid(&s->validity) ? "true" : "false");
    jl__csvw_cell(&r, codes ? codes : "");
    free(codes);
    /* the boundary of the headline figures (boundary.c; the figures whose
     * boundary differs: docs/summary.md, "Every figure and its boundary") */
    jl__csvw_cell(&r, jl_window_name(s->boundary.window));
    jl__csvw_cell(&r, jl_scope_name(s->boundary.scope));
    jl__csvw_cell(&r, s->total_scope < JL_SCOPE_COUNT ? jl_scope_name(s->total_scope) : NULL);
    jl__csvw_cell(&r, s->peak_power_kind);
    for (size_t i = 0; i < n_extras; i++)
        attr_cell(&r, s, extras[i], 1);
    jl__csvw_end(&r);
    free(joined);
    free(marked);
    return JL_OK;
}

/* Every row, the header first, into k. */
static jl_status summary_rows(const sink *k, const jl_summary_list *l, jl_names names)
{
    const char **extras = NULL;
    size_t n_extras = 0;
    if (extra_keys(l, &extras, &n_extras) != JL_OK)
        return JL_ENOMEM;
    col_scales sc;
    header_row(k, names, extras, n_extras, &sc);
    jl_status st = JL_OK;
    for (size_t r = 0; r < l->count && st == JL_OK; r++)
        st = run_row(k, l->items[r], names, extras, n_extras, &sc);
    free(extras);
    return st;
}

jl_status jl_fprint_summaries_csv_named(FILE *f, const jl_summary_list *l, jl_names names)
{
    sink k = {f, NULL};
    jl_status st = summary_rows(&k, l, names);
    if (st != JL_OK)
        return st;
    return ferror(f) ? JL_EIO : JL_OK;
}

jl_status jl_summaries_table(const jl_summary_list *l, jl_names names, jl_table **out,
                             jl_error **err)
{
    *out = NULL;
    jl_table *t = jl__tbl_new();
    sink k = {NULL, t};
    jl_status st = t ? summary_rows(&k, l, names) : JL_ENOMEM;
    if (st == JL_OK)
        return jl__tbl_finish(t, out) == JL_OK
                   ? JL_OK
                   : jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, NULL);
    jl_table_free(t);
    return jl_fail(err, st, NULL, NULL, NULL, -1, NULL);
}

jl_status jl_fprint_summaries_csv(FILE *f, const jl_summary_list *l)
{
    return jl_fprint_summaries_csv_named(f, l, JL_NAMES_JOULES);
}

typedef struct {
    const jl_summary_list *l;
    jl_names names;
} csv_ctx;

static int print_summaries(FILE *f, const void *ctx)
{
    const csv_ctx *c = ctx;
    return jl_fprint_summaries_csv_named(f, c->l, c->names) != JL_OK;
}

jl_status jl_write_summaries_csv_named(const char *path, const jl_summary_list *l, jl_names names,
                                       jl_error **err)
{
    csv_ctx c = {l, names};
    return jl_write_text(path, print_summaries, &c, err);
}

jl_status jl_write_summaries_csv(const char *path, const jl_summary_list *l, jl_error **err)
{
    return jl_write_summaries_csv_named(path, l, JL_NAMES_JOULES, err);
}
