/* CSV of run summaries: fixed column order (attributes, method, figures with
 * units in their names), full precision, empty cells for missing values. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "joules/output.h"

void jl_csv_field(FILE *f, const char *s)
{
    if (!s)
        return;
    if (strpbrk(s, ",\"\n\r") == NULL) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            fputc('"', f);
        fputc(*p, f);
    }
    fputc('"', f);
}

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

static int in_list(const char *const *list, const char *k)
{
    for (int i = 0; list[i]; i++)
        if (!strcmp(list[i], k))
            return 1;
    return 0;
}

/* A column's header: joules' name, or the toolkit's. */
static void header(FILE *f, const char *name, jl_names names, double *scale)
{
    const char *m = names == JL_NAMES_MLENERGY ? jl_mlenergy_name(name, 0, scale) : NULL;
    if (!m && scale)
        *scale = 1;
    fputc(',', f);
    jl_csv_field(f, m ? m : name);
}

/* One attribute cell: the value as text, scaled when a number and scale != 1. */
static void attr_cell(FILE *f, const jl_summary *s, const char *key, double scale)
{
    char buf[512];
    fputc(',', f);
    if (!strcmp(key, "notes")) {
        jl_csv_field(f, s->attrs.notes);
        return;
    }
    for (size_t i = 0; i < s->attrs.n_extra; i++)
        if (!strcmp(s->attrs.extra[i].key, key) && !in_list(jl_attr_names, key)) {
            jl_csv_field(f, s->attrs.extra[i].value); /* whole, however long */
            return;
        }
    if (jl_attrs_get(&s->attrs, key, buf, sizeof buf) != 0)
        return;
    char *end = NULL;
    double v = strtod(buf, &end);
    if (scale != 1 && end != buf && *end == '\0')
        fprintf(f, "%.17g", v * scale);
    else
        jl_csv_field(f, buf);
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
                !strcmp(k, "energy_source") || !strcmp(k, "disagreements"))
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

jl_status jl_fprint_summaries_csv_named(FILE *f, const jl_summary_list *l, jl_names names)
{
    const char **extras = NULL;
    size_t n_extras = 0;
    if (extra_keys(l, &extras, &n_extras) != JL_OK)
        return JL_ENOMEM;
    int ml = names == JL_NAMES_MLENERGY;
    double key_scale[16], more_scale[16], fig_scale[JL_FIG_COUNT];
    fputs("file,run", f);
    for (int i = 0; key_columns[i]; i++) {
        if (ml && !strcmp(key_columns[i], "max_batch_size")) {
            /* the toolkit's two names for the cap: one column each */
            fputs(",max_num_seqs,batch_size", f);
            key_scale[i] = 1;
            continue;
        }
        header(f, key_columns[i], names, &key_scale[i]);
    }
    fputs(",steady_method,energy_source", f);
    for (int i = 0; i < JL_FIG_COUNT; i++)
        header(f, jl_figure_name((jl_figure)i), names, &fig_scale[i]);
    fputs(",warnings", f);
    for (int i = 0; more_columns[i]; i++)
        header(f, more_columns[i], names, &more_scale[i]);
    fputs(",disagreements", f);
    for (size_t i = 0; i < n_extras; i++)
        header(f, extras[i], JL_NAMES_JOULES, NULL);
    fputc('\n', f);
    jl_status st = JL_OK;
    for (size_t r = 0; r < l->count && st == JL_OK; r++) {
        const jl_summary *s = l->items[r];
        jl_csv_field(f, s->file);
        fputc(',', f);
        jl_csv_field(f, s->run);
        for (int i = 0; key_columns[i]; i++) {
            if (ml && !strcmp(key_columns[i], "max_batch_size")) {
                int dif = jl_attrs_is_diffusion(&s->attrs);
                if (dif)
                    fputc(',', f);
                attr_cell(f, s, key_columns[i], 1);
                if (!dif)
                    fputc(',', f);
                continue;
            }
            attr_cell(f, s, key_columns[i], key_scale[i]);
        }
        fprintf(f, ",%s,%s", jl_steady_method_name(s->steady_method),
                jl_energy_source_name(s->energy_source));
        for (int i = 0; i < JL_FIG_COUNT; i++) {
            fputc(',', f);
            if (isfinite(s->fig[i]))
                fprintf(f, "%.17g", s->fig[i] * fig_scale[i]);
        }
        fputc(',', f);
        /* warnings: rule names joined by ';', however many there are */
        jl__strbuf w;
        jl__strbuf_init(&w);
        for (size_t k = 0; k < s->n_warnings; k++) {
            if (k)
                jl__strbuf_puts(&w, ";");
            jl__strbuf_puts(&w, s->warnings[k].rule);
        }
        char *joined = jl__strbuf_take(&w);
        if (!joined) {
            st = JL_ENOMEM;
            break;
        }
        jl_csv_field(f, joined);
        free(joined);
        for (int i = 0; more_columns[i]; i++)
            attr_cell(f, s, more_columns[i], more_scale[i]);
        /* marked disagreements of published and recomputed figures (spec
         * 1.1): figure:relative_difference joined by ';' (docs/summary.md) */
        fputc(',', f);
        jl_disagreement d[JL_FIG_COUNT];
        size_t nd = jl_summary_disagreements(s, d);
        for (size_t k = 0, m = 0; k < nd; k++)
            if (d[k].marked) {
                fprintf(f, "%s%s", m++ ? ";" : "", jl_figure_name(d[k].figure));
                if (isfinite(d[k].relative_difference))
                    fprintf(f, ":%+.4g", d[k].relative_difference);
            }
        for (size_t i = 0; i < n_extras; i++)
            attr_cell(f, s, extras[i], 1);
        fputc('\n', f);
    }
    free(extras);
    if (st != JL_OK)
        return st;
    return ferror(f) ? JL_EIO : JL_OK;
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
