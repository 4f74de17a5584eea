/* --names mlenergy: the key and column names (and units) of the ML.ENERGY
 * data toolkit (the LLMRun / DiffusionRun records of mlenergy_data), so
 * notebooks written against it read joules' outputs unchanged. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/csv.h"
#include "core/util.h"
#include "joules/output.h"
#include "output/csv_row.h"

static const struct {
    const char *joules, *mlenergy;
    double scale; /* joules' unit -> the toolkit's */
} names[] = {
    {"model", "model_id", 1},
    {"precision", "weight_precision", 1},
    {"total_params", "total_params_billions", 1e-9},
    {"active_params", "activated_params_billions", 1e-9},
    {"steady_energy_j", "steady_state_energy_joules", 1},
    {"steady_duration_s", "steady_state_duration_seconds", 1},
    {"energy_per_token_j", "energy_per_token_joules", 1},
    {"energy_per_request_j", "energy_per_request_joules", 1},
    {"energy_per_item_j", "energy_per_generation_joules", 1},
    {"output_throughput_tok_s", "output_throughput_tokens_per_sec", 1},
    {"items_per_s", "throughput_generations_per_sec", 1},
    {"avg_power_w", "avg_power_watts", 1},
    {"avg_output_tokens", "avg_output_len", 1},
    {"median_itl_s", "median_itl_ms", 1e3},
    {"p90_itl_s", "p90_itl_ms", 1e3},
    {"p95_itl_s", "p95_itl_ms", 1e3},
    {"p99_itl_s", "p99_itl_ms", 1e3},
    {"ttft_median_s", "median_ttft_ms", 1e3},
    {"ttft_p90_s", "p90_ttft_ms", 1e3},
    {"denoising_steps", "inference_steps", 1},
};

int jl_names_parse(const char *s)
{
    if (s && !strcmp(s, "joules"))
        return JL_NAMES_JOULES;
    if (s && !strcmp(s, "mlenergy"))
        return JL_NAMES_MLENERGY;
    return -1;
}

const char *jl_mlenergy_name(const char *key, int diffusion, double *scale)
{
    if (scale)
        *scale = 1;
    if (!key)
        return NULL;
    if (!strcmp(key, "max_batch_size"))
        return diffusion ? "batch_size" : "max_num_seqs";
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(key, names[i].joules)) {
            if (scale)
                *scale = names[i].scale;
            return names[i].mlenergy;
        }
    return NULL;
}

const char *jl_mlenergy_key(const char *name, double *scale)
{
    if (scale)
        *scale = 1;
    if (!name)
        return NULL;
    if (!strcmp(name, "max_num_seqs") || !strcmp(name, "batch_size"))
        return "max_batch_size";
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(name, names[i].mlenergy)) {
            if (scale)
                *scale = 1 / names[i].scale;
            return names[i].joules;
        }
    return NULL;
}

static int is_diffusion_object(const json_t *o)
{
    const char *w = json_string_value(json_object_get(o, "workload"));
    return w && !strcmp(w, "diffusion");
}

void jl_json_rename_mlenergy(json_t *v)
{
    if (json_is_array(v)) {
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e)
            jl_json_rename_mlenergy(e);
        return;
    }
    if (!json_is_object(v))
        return;
    /* extra attributes side by side with the others, as the toolkit has
     * nickname and architecture */
    json_t *x = json_object_get(v, "extra_attributes");
    if (json_is_object(x)) {
        json_incref(x);
        json_object_del(v, "extra_attributes");
        const char *k;
        json_t *e;
        json_object_foreach(x, k, e)
            if (!json_object_get(v, k))
                json_object_set(v, k, e);
        json_decref(x);
    }
    int diffusion = is_diffusion_object(v);
    const char *k;
    json_t *e;
    void *tmp;
    json_object_foreach_safe(v, tmp, k, e) {
        jl_json_rename_mlenergy(e);
        double scale;
        /* values that name a figure ("energy_figure": "energy_per_token_j")
         * name it the toolkit's way too */
        size_t kl = strlen(k);
        if (json_is_string(e) && kl > 7 && !strcmp(k + kl - 7, "_figure")) {
            const char *fv = jl_mlenergy_name(json_string_value(e), diffusion, NULL);
            if (fv)
                json_object_set_new(v, k, json_string(fv));
        }
        const char *to = jl_mlenergy_name(k, diffusion, &scale);
        if (!to || json_object_get(v, to))
            continue;
        json_t *nv = json_is_number(e) && scale != 1 ? jl_json_number(json_number_value(e) * scale)
                                                     : json_incref(e);
        json_object_set_new(v, to, nv);
        json_object_del(v, k);
    }
}

/* The toolkit's name of a CSV column: the key itself, or a key after a
 * prefix (baseline_energy_per_token_j -> baseline_energy_per_token_joules).
 * max_batch_size stays (its name depends on each row's workload). */
static int has_unit_suffix(const char *k)
{
    size_t n = strlen(k);
    return n > 2 && k[n - 2] == '_' && strchr("sjw", k[n - 1]);
}

static const char *column_name(const char *col, char *buf, size_t cap, double *scale)
{
    *scale = 1;
    for (const char *p = col; p; p = strchr(p, '_') ? strchr(p, '_') + 1 : NULL) {
        if (!strcmp(p, "max_batch_size"))
            return NULL;
        /* after a prefix only a figure (gpu_model is not gpu_ + model) */
        const char *m = p == col || has_unit_suffix(p) ? jl_mlenergy_name(p, 0, scale) : NULL;
        if (m) {
            int n = snprintf(buf, cap, "%.*s%s", (int)(p - col), col, m);
            return n > 0 && (size_t)n < cap ? buf : NULL;
        }
    }
    *scale = 1;
    return NULL;
}

/* One cell of a row: a figure's name renamed (scale 0: a column of figure
 * names), a number converted (scale != 1), anything else as it is. */
static void rename_cell(jl__csvw *w, const char *s, size_t n, double scale)
{
    if (scale == 0 && n > 0) {
        const char *m = jl_mlenergy_name(s, 0, NULL);
        jl__csvw_cell(w, m ? m : s);
        return;
    }
    if (scale != 1 && n > 0) {
        char *end = NULL;
        double v = strtod(s, &end);
        if (!*end && isfinite(v * scale)) {
            jl__csvw_num(w, v * scale);
            return;
        }
    }
    jl__csvw_cell(w, s);
}

static size_t count_newlines(const char *s, size_t n)
{
    size_t k = 0;
    for (const char *p = s; (p = memchr(p, '\n', n - (size_t)(p - s))); p++)
        k++;
    return k;
}

/* Read through the core's reader (core/csv.h) and written back through the
 * row writer (output/csv_row.h), so the text stays the writer's own. The
 * reader skips blank lines; they are rows too (one empty cell, a one-column
 * CSV's missing value), so each skipped line is written back where it was. */
char *jl_csv_rename_mlenergy(const char *in, size_t len, size_t *out_len)
{
    jl__csv *c = NULL;
    jl_error *err = NULL;
    if (jl__csv_open_buffer(in, len, "CSV", &c, &err) != JL_OK) {
        jl_error_free(err);
        return NULL;
    }
    jl__strbuf b;
    jl__strbuf_init(&b);
    jl__csvw w;
    jl__csvw_begin_buf(&w, &b);
    double *scales = NULL;
    size_t ncols = 0;
    long long next = 1; /* the line the next row starts on, blank lines aside */
    int header = 1, rc;
    jl__csv_row row;
    while ((rc = jl__csv_next(c, &row, &err)) == 1) {
        for (; next < row.line; next++)
            jl__csvw_end(&w);
        next = row.line + 1;
        if (header) { /* each column renamed, its scale kept */
            scales = malloc((row.n ? row.n : 1) * sizeof *scales);
            if (!scales)
                break;
            ncols = row.n;
        }
        for (size_t k = 0; k < row.n; k++) {
            const jl__csv_field *f = &row.f[k];
            next += (long long)count_newlines(f->s, f->len);
            if (!header) {
                rename_cell(&w, f->s, f->len, k < ncols ? scales[k] : 1);
                continue;
            }
            char buf[320];
            const char *m = column_name(f->s, buf, sizeof buf, &scales[k]);
            if (f->len > 7 && !strcmp(f->s + f->len - 7, "_figure"))
                scales[k] = 0; /* values are figure names */
            jl__csvw_cell(&w, m ? m : f->s);
        }
        jl__csvw_end(&w);
        header = 0;
    }
    /* blank lines at the end */
    long long lines = (long long)(count_newlines(in, len) + (len && in[len - 1] != '\n'));
    for (; rc == 0 && next <= lines; next++)
        jl__csvw_end(&w);
    jl__csv_close(c);
    jl_error_free(err);
    free(scales);
    size_t n = b.len;
    char *out = jl__strbuf_take(&b);
    if (rc != 0 || !out) { /* not joules' CSV after all, or out of memory */
        free(out);
        return NULL;
    }
    if (out_len)
        *out_len = n;
    return out;
}
