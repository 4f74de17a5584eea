/* joules import mlenergy, older layouts: the ML.ENERGY Leaderboard v2 data
 * (leaderboard-v2 `data/`: one JSON per configuration under
 * {family}/{task}/{GPU}/{org}/{model}/bs<B>+tp<T>+pp<P>.json or
 * bs<B>+steps<S>[+frames<F>].json, models.json and schema.yaml per task) and
 * the v1 (2023) leaderboard's legacy/<GPU>_<task>_benchmark.csv. Summary-only
 * runs; mapping, units and derived figures in docs/import.md ("ML.ENERGY
 * Leaderboard v2 and v1"). jl_import_mlenergy_auto() picks the layout. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/util.h"
#include "import/kit.h"
#include "joules/import.h"
#include "json/json_internal.h"

#define SOURCE_V2 "ML.ENERGY Leaderboard v2 data (github.com/ml-energy/leaderboard-v2, data/)"
#define SOURCE_V1 "ML.ENERGY Leaderboard v1 (2023) legacy CSV (leaderboard-v2 data/legacy/)"

static const struct family {
    const char *dir, *workload;
} families[] = {
    {"llm_text_generation", "llm"},
    {"mllm_text_generation", "mllm"},
    {"diffusion", "diffusion"},
};

/* ---- common run fields ------------------------------------------------------ */

static void set_gpu(jl__imp *c, jl_run *r, const char *vendor, const char *file, const char *field)
{
    char id[64];
    double mem = NAN;
    if (jl__imp_gpu_name(vendor, id, sizeof id, &mem)) {
        r->attrs.gpu_model = jl__strdup(id);
        r->attrs.gpu_memory_bytes = mem;
    } else {
        r->attrs.gpu_model = jl__imp_sanitize(vendor);
        jl__imp_note(c, file, field, "GPU '%s' is not in the GPU name table: kept as is", vendor);
    }
    jl__imp_extra_str(c, r, "gpu_name", vendor);
    if (!r->attrs.gpu_model)
        c->oom = 1;
}

/* params in billions (models.json) -> total_params; nickname kept. */
static void model_info(jl__imp *c, jl_run *r, const jl__jv *models, const char *model,
                       const char *file)
{
    const jl__jv *m = models ? jv_object_get(models, model) : NULL;
    if (!jv_is_object(m)) {
        if (models)
            jl__imp_note(c, file, "models.json", "model not listed in models.json");
        return;
    }
    const jl__jv *p = jv_object_get(m, "params"), *nick = jv_object_get(m, "nickname"),
                 *url = jv_object_get(m, "url");
    if (jv_is_number(p) && jv_number_value(p) > 0)
        r->attrs.total_params = jv_number_value(p) * 1e9;
    if (jv_is_string(nick))
        jl__imp_extra_str(c, r, "nickname", jv_string_value(nick));
    if (jv_is_string(url))
        jl__imp_extra_str(c, r, "model_url", jv_string_value(url));
}

static int finish_run(jl__imp *c, jl_run *r, const char *workload, const char *task,
                      const char *model)
{
    r->attrs.workload = jl__strdup(workload);
    r->attrs.task = jl__strdup(task);
    r->attrs.model = jl__strdup(model);
    r->attrs.precision = jl__strdup("unknown");
    if (!r->attrs.workload || !r->attrs.task || !r->attrs.model || !r->attrs.precision ||
        !r->name || c->oom) {
        c->oom = 1;
        jl_run_free(r);
        return -1;
    }
    jl__imp_push_run(c, r);
    return 0;
}

/* ---- v2 configuration files ------------------------------------------------ */

/* "bs64+tp2+pp1" -> the number after `key`, or -1. */
static long name_param(const char *stem, const char *key)
{
    size_t n = strlen(key);
    for (const char *p = stem; p && *p; p = strchr(p, '+'), p = p ? p + 1 : NULL) {
        if (!strncmp(p, key, n) && isdigit((unsigned char)p[n])) {
            char *end;
            errno = 0;
            long v = strtol(p + n, &end, 10);
            if (!errno && (*end == '+' || *end == '\0'))
                return v;
        }
    }
    return -1;
}

typedef struct v2_field {
    const char *key;
    int kind;   /* 0 number >= 0, 1 whole number >= 1, 2 string */
    size_t off; /* into v2_vals */
} v2_field;

typedef struct v2_vals {
    const char *model, *gpu;
    double tp, pp, e_req, tpot, tput, out_tokens, avg_bs, max_bs;
    double e_image, e_video, batch_latency, batch_size, steps, frames;
} v2_vals;

#define VOFF(f) offsetof(v2_vals, f)
static const v2_field v2_fields[] = {
    {"Model", 2, VOFF(model)},
    {"GPU", 2, VOFF(gpu)},
    {"TP", 1, VOFF(tp)},
    {"PP", 1, VOFF(pp)},
    {"Energy/req (J)", 0, VOFF(e_req)},
    {"Avg TPOT (s)", 0, VOFF(tpot)},
    {"Token tput (tok/s)", 0, VOFF(tput)},
    {"Avg Output Tokens", 0, VOFF(out_tokens)},
    {"Avg BS (reqs)", 0, VOFF(avg_bs)},
    {"Max BS (reqs)", 0, VOFF(max_bs)},
    {"Energy/image (J)", 0, VOFF(e_image)},
    {"Energy/video (J)", 0, VOFF(e_video)},
    {"Batch latency (s)", 0, VOFF(batch_latency)},
    {"Batch size", 1, VOFF(batch_size)},
    {"Denoising steps", 1, VOFF(steps)},
    {"Frames", 1, VOFF(frames)},
};

static double ratio(double a, double b)
{
    return isfinite(a) && isfinite(b) && b > 0 ? a / b : NAN;
}

/* Read the fields; -1 after an error naming the file and the field. */
static int v2_read(jl__imp *c, const jl__jv *doc, const char *file, v2_vals *v, jl_run *r)
{
    for (size_t k = 0; k < sizeof v2_fields / sizeof v2_fields[0]; k++)
        if (v2_fields[k].kind != 2)
            *(double *)((char *)v + v2_fields[k].off) = NAN;
    const char *key;
    jl__jv *x;
    jv_object_foreach(doc, key, x)
    {
        size_t k = 0;
        while (k < sizeof v2_fields / sizeof v2_fields[0] && strcmp(v2_fields[k].key, key))
            k++;
        if (k == sizeof v2_fields / sizeof v2_fields[0]) {
            char *san = jl__imp_sanitize(key);
            char *ek = san ? jl__asprintf("v2_%s", san) : NULL;
            if (!ek) {
                free(san);
                c->oom = 1;
                return -1;
            }
            if (jv_is_number(x))
                jl__imp_extra_num(c, r, ek, jv_number_value(x));
            else if (jv_is_string(x))
                jl__imp_extra_str(c, r, ek, jv_string_value(x));
            jl__imp_note(c, file, key, "unknown field kept as the extra attribute %s%s", ek,
                         jv_is_number(x) || jv_is_string(x) ? "" : " (not: not a scalar)");
            free(san);
            free(ek);
            continue;
        }
        const v2_field *f = &v2_fields[k];
        if (jv_is_null(x)) {
            jl__imp_note(c, file, key, "null: left missing");
            continue;
        }
        if (f->kind == 2) {
            if (!jv_is_string(x) || !*jv_string_value(x)) {
                jl__imp_err(c, JL_ETYPE, file, key, -1, "expected a non-empty string");
                return -1;
            }
            *(const char **)((char *)v + f->off) = jv_string_value(x);
            continue;
        }
        double d = jv_is_number(x) ? jv_number_value(x) : NAN;
        if (!jv_is_number(x) || !isfinite(d) || d < 0 ||
            (f->kind == 1 && (d < 1 || d != floor(d) || d > 1e9))) {
            jl__imp_err(c, JL_ETYPE, file, key, -1, "expected %s, found %s",
                        f->kind == 1 ? "a whole number >= 1" : "a finite number >= 0",
                        jv_is_number(x) ? "a value out of range" : "another type");
            return -1;
        }
        *(double *)((char *)v + f->off) = d;
    }
    const char *missing = !v->model ? "Model" : !v->gpu ? "GPU" : NULL;
    if (missing) {
        jl__imp_err(c, JL_EMISSING, file, missing, -1, "required field missing");
        return -1;
    }
    return 0;
}

static void v2_config(jl__imp *c, const char *text, size_t len, const char *file,
                      const struct family *fam, const char *task, const char *stem,
                      const char *name_base, const jl__jv *models)
{
    jl__jv *doc = jl__imp_json_tree(c, file, text, len, JL__IMP_DUPS_REFUSE);
    if (!jv_is_object(doc)) {
        if (doc)
            jl__imp_err(c, JL_ETYPE, file, NULL, -1, "expected a JSON object");
        jl__jv_free(doc);
        return;
    }
    jl_run *r = jl_run_new();
    v2_vals v = {0};
    if (!r) {
        c->oom = 1;
        jl__jv_free(doc);
        return;
    }
    if (v2_read(c, doc, file, &v, r)) {
        jl_run_free(r);
        jl__jv_free(doc);
        return;
    }
    const int diffusion = !strcmp(fam->workload, "diffusion");
    long bs = name_param(stem, "bs");
    jl_run_summary_attrs *s = &r->summary;
    s->present = 1;
    jl__imp_summary_str(c, r, "source", SOURCE_V2);
    const char *bad = NULL;
    if (diffusion) {
        double e_item = isfinite(v.e_image) ? v.e_image : v.e_video;
        if (isnan(e_item))
            bad = "Energy/image (J)";
        else if (isnan(v.batch_size) && bs < 1)
            bad = "Batch size";
        long b = isfinite(v.batch_size) ? (long)v.batch_size : bs;
        if (bs >= 1 && isfinite(v.batch_size) && bs != (long)v.batch_size)
            jl__imp_note(c, file, "Batch size",
                         "differs from the file name's bs%ld: the field is used", bs);
        r->attrs.max_batch_size = b;
        r->attrs.num_gpus = 1;
        s->energy_per_item_j = e_item;
        s->batch_latency_s = v.batch_latency;
        jl__imp_summary_str(c, r, "item", isfinite(v.e_video) ? "video" : "image");
        /* derived: items per second and the power over a batch */
        jl__imp_summary_num(c, r, "items_per_s", ratio((double)b, v.batch_latency));
        s->avg_power_w = ratio(e_item * (double)b, v.batch_latency);
        jl__imp_summary_str(c, r, "derived",
                            "items_per_s = batch_size / batch_latency_s; avg_power_w = "
                            "energy_per_item_j x batch_size / batch_latency_s");
        if (isfinite(v.steps))
            r->attrs.denoising_steps = (long)v.steps;
        else if (name_param(stem, "steps") >= 1)
            r->attrs.denoising_steps = name_param(stem, "steps");
        if (isfinite(v.frames))
            r->attrs.num_frames = (long)v.frames;
    } else {
        if (isnan(v.e_req))
            bad = "Energy/req (J)";
        else if (bs < 1)
            bad = "bs<B> in the file name";
        long tp = isfinite(v.tp) ? (long)v.tp
                                 : (name_param(stem, "tp") >= 1 ? name_param(stem, "tp") : 1);
        long pp = isfinite(v.pp) ? (long)v.pp
                                 : (name_param(stem, "pp") >= 1 ? name_param(stem, "pp") : 1);
        r->attrs.num_gpus = tp * pp;
        r->attrs.tensor_parallel = tp;
        jl__imp_extra_num(c, r, "pipeline_parallel", (double)pp);
        r->attrs.max_batch_size = bs;
        s->energy_per_request_j = v.e_req;
        s->avg_output_tokens = v.out_tokens;
        s->output_throughput_tok_s = v.tput;
        s->avg_batch_size = v.avg_bs;
        if (isfinite(v.max_bs))
            jl__imp_summary_num(c, r, "peak_running", v.max_bs);
        if (isfinite(v.tpot))
            jl__imp_summary_num(c, r, "avg_tpot_s", v.tpot);
        /* derived (exact identities over the same requests) */
        s->energy_per_token_j = ratio(v.e_req, v.out_tokens);
        s->avg_power_w = s->energy_per_token_j * v.tput;
        jl__imp_summary_str(c, r, "derived",
                            "energy_per_token_j = energy_per_request_j / avg_output_tokens; "
                            "avg_power_w = energy_per_token_j x output_throughput_tok_s");
    }
    if (bad) {
        jl__imp_err(c, JL_EMISSING, file, bad, -1, "required for a %s configuration",
                    fam->workload);
        jl_run_free(r);
        jl__jv_free(doc);
        return;
    }
    set_gpu(c, r, v.gpu, file, "GPU");
    model_info(c, r, models, v.model, file);
    jl__imp_extra_str(c, r, "mlenergy_release", "v2");
    r->name = jl__asprintf("v2__%s", name_base);
    c->res->n_files++;
    finish_run(c, r, fam->workload, task, v.model);
    jl__jv_free(doc);
}

/* ---- v1 legacy CSV ---------------------------------------------------------- */

/* A CSV's header row: the names (copied) and the columns joules reads. */
typedef struct v1_head {
    char **name;
    size_t n;
    int model, energy, tput, len, lat;
} v1_head;

static void v1_head_free(v1_head *h)
{
    jl__imp_free_names(h->name, h->n);
    h->name = NULL;
    h->n = 0;
}

static int v1_head_read(jl__imp *c, const jl__csv_row *row, v1_head *h)
{
    h->model = h->energy = h->tput = h->len = h->lat = -1;
    if (!(h->name = calloc(row->n ? row->n : 1, sizeof *h->name))) {
        c->oom = 1;
        return -1;
    }
    for (; h->n < row->n; h->n++)
        if (!(h->name[h->n] = jl__strdup(row->f[h->n].s))) {
            c->oom = 1;
            return -1;
        }
    return 0;
}

/* score.csv (model,arc,hellaswag,truthfulqa): per model its scores, NaN
 * where a cell is not a number (noted). A model listed twice: the last row. */
typedef struct v1_scores {
    v1_head head;
    char **model;
    double *val; /* [n][head.n], column 0 unused */
    size_t n;
} v1_scores;

static void v1_scores_free(v1_scores *s)
{
    if (!s)
        return;
    v1_head_free(&s->head);
    jl__imp_free_names(s->model, s->n);
    free(s->val);
    free(s);
}

static void v1_scores_row(jl__imp *c, const char *path, const jl__csv_row *row, v1_scores *s)
{
    size_t nh = s->head.n;
    char **m = realloc(s->model, (s->n + 1) * sizeof *m);
    if (m)
        s->model = m;
    double *v = m ? realloc(s->val, (s->n + 1) * nh * sizeof *v) : NULL;
    if (v)
        s->val = v;
    if (!v || !(s->model[s->n] = jl__strdup(row->f[0].s))) {
        c->oom = 1;
        return;
    }
    for (size_t k = 1; k < nh; k++)
        if (!jl__imp_number(row->f[k].s, &v[s->n * nh + k])) {
            v[s->n * nh + k] = NAN;
            jl__imp_note(c, path, s->head.name[k], "not a number at line %lld: score left out",
                         row->line);
        }
    s->n++;
}

static v1_scores *v1_scores_read(jl__imp *c, const char *path)
{
    size_t len;
    char *text = jl__imp_read_file(c, path, &len);
    v1_scores *s = text ? calloc(1, sizeof *s) : NULL;
    jl__csv *csv = NULL;
    jl_error *err = NULL;
    if (s && jl__csv_open_buffer(text, len, path, &csv, &err) == JL_OK) {
        jl__csv_row row;
        while (jl__csv_next(csv, &row, &err) > 0 && !c->oom) {
            if (!s->head.name) {
                if (v1_head_read(c, &row, &s->head))
                    break;
            } else if (row.n == s->head.n && s->head.n > 1 && row.f[0].s[0]) {
                v1_scores_row(c, path, &row, s);
            }
        }
    }
    jl_error_free(err); /* an unreadable score.csv only leaves the scores out */
    jl__csv_close(csv);
    free(text);
    return s;
}

static void v1_score_extras(jl__imp *c, jl_run *r, const v1_scores *s, const char *model)
{
    for (size_t i = s ? s->n : 0; i-- > 0;) {
        if (strcmp(s->model[i], model))
            continue;
        for (size_t k = 1; k < s->head.n; k++) {
            double x = s->val[i * s->head.n + k];
            char *key = isfinite(x) ? jl__asprintf("v1_score_%s", s->head.name[k]) : NULL;
            if (key)
                jl__imp_extra_num(c, r, key, x);
            free(key);
        }
        return;
    }
}

static int v1_number(jl__imp *c, const char *file, long long line, const char *col,
                     const char *text, double *out)
{
    if (!jl__imp_number(text, out) || *out < 0) {
        jl__imp_err(c, JL_ETYPE, file, col, line, "expected a finite number >= 0, found \"%s\"",
                    text);
        return -1;
    }
    return 0;
}

/* The header of a <GPU>_<task>_benchmark.csv: model and energy needed. */
static int v1_bench_head(jl__imp *c, const char *file, const jl__csv_row *row, v1_head *h)
{
    if (v1_head_read(c, row, h))
        return -1;
    for (size_t k = 0; k < h->n; k++) {
        const char *n = h->name[k];
        int *slot = !strcmp(n, "model")             ? &h->model
                    : !strcmp(n, "energy")          ? &h->energy
                    : !strcmp(n, "throughput")      ? &h->tput
                    : !strcmp(n, "response_length") ? &h->len
                    : !strcmp(n, "latency")         ? &h->lat
                                                    : NULL;
        if (slot)
            *slot = (int)k;
        else
            jl__imp_note(c, file, n, "unknown column kept as the extra attribute v1_%s", n);
    }
    if (h->model < 0 || h->energy < 0) {
        jl__imp_err(c, JL_EMISSING, file, h->model < 0 ? "model" : "energy", row->line,
                    "required column missing from the header");
        return -1;
    }
    return 0;
}

/* The measured figures of one row: 0, or -1 after an error. */
static int v1_figures(jl__imp *c, const char *file, const jl__csv_row *row, const v1_head *h,
                      double *e, double *tput, double *rlen, double *lat)
{
    if (row->n != h->n) {
        jl__imp_err(c, JL_EINVALID, file, NULL, row->line, "%zu fields, the header has %zu", row->n,
                    h->n);
        return -1;
    }
    if (!row->f[h->model].s[0]) {
        jl__imp_err(c, JL_EMISSING, file, "model", row->line, "empty model name");
        return -1;
    }
    const struct {
        int col;
        const char *name;
        double *out;
    } fig[] = {{h->energy, "energy", e},
               {h->tput, "throughput", tput},
               {h->len, "response_length", rlen},
               {h->lat, "latency", lat}};
    for (size_t k = 0; k < sizeof fig / sizeof fig[0]; k++)
        if (fig[k].col >= 0 &&
            v1_number(c, file, row->line, fig[k].name, row->f[fig[k].col].s, fig[k].out))
            return -1;
    return 0;
}

/* One row of a v1 CSV as a run. */
static void v1_row(jl__imp *c, const char *file, const jl__csv_row *row, const v1_head *h,
                   const char *gpu, const char *task, const jl__jv *models, const v1_scores *scores)
{
    double e = NAN, tput = NAN, rlen = NAN, lat = NAN;
    if (v1_figures(c, file, row, h, &e, &tput, &rlen, &lat))
        return;
    jl_run *r = jl_run_new();
    if (!r) {
        c->oom = 1;
        return;
    }
    const char *model = row->f[h->model].s;
    r->attrs.num_gpus = 1;
    r->attrs.max_batch_size = 1;
    set_gpu(c, r, gpu, file, "GPU");
    model_info(c, r, models, model, file);
    v1_score_extras(c, r, scores, model);
    for (size_t k = 0; k < h->n; k++)
        if ((int)k != h->model && (int)k != h->energy && (int)k != h->tput && (int)k != h->len &&
            (int)k != h->lat) {
            char *ek = jl__asprintf("v1_%s", h->name[k]);
            if (ek)
                jl__imp_extra_str(c, r, ek, row->f[k].s);
            free(ek);
        }
    jl__imp_extra_str(c, r, "mlenergy_release", "v1");
    jl_run_summary_attrs *s = &r->summary;
    s->present = 1;
    jl__imp_summary_str(c, r, "source", SOURCE_V1);
    s->energy_per_request_j = e;
    s->avg_output_tokens = rlen;
    s->output_throughput_tok_s = tput;
    if (isfinite(lat))
        jl__imp_summary_num(c, r, "avg_latency_s", lat);
    s->energy_per_token_j = ratio(e, rlen);
    jl__imp_summary_str(c, r, "derived",
                        "energy_per_token_j = energy_per_request_j / avg_output_tokens");
    char *mn = jl__imp_sanitize(model);
    r->name = mn ? jl__asprintf("v1__%s__%s__%s", gpu, task, mn) : NULL;
    free(mn);
    finish_run(c, r, "llm", task, model);
}

/* <GPU>_<task>_benchmark.csv: one run per row. */
static void v1_csv(jl__imp *c, const char *text, size_t len, const char *file, const char *base,
                   const jl__jv *models, const v1_scores *scores)
{
    const char *us = strchr(base, '_'), *suf = strstr(base, "_benchmark.csv");
    if (!us || !suf || suf <= us) {
        jl__imp_err(c, JL_EINVALID, file, NULL, -1,
                    "the file name is not <GPU>_<task>_benchmark.csv");
        return;
    }
    char *gpu = jl__asprintf("%.*s", (int)(us - base), base);
    char *task = jl__asprintf("%.*s", (int)(suf - us - 1), us + 1);
    v1_head h = {0};
    jl__csv *csv = NULL;
    jl_error *err = NULL;
    jl__csv_row row;
    int got = 0;
    if (!gpu || !task || jl__csv_open_buffer(text, len, file, &csv, &err) != JL_OK) {
        c->oom = 1;
        goto end;
    }
    if ((got = jl__csv_next(csv, &row, &err)) == 0)
        jl__imp_err(c, JL_EMISSING, file, "model", 1, "required column missing from the header");
    if (got <= 0 || v1_bench_head(c, file, &row, &h))
        goto end;
    c->res->n_files++;
    while ((got = jl__csv_next(csv, &row, &err)) > 0 && !c->oom)
        v1_row(c, file, &row, &h, gpu, task, models, scores);
    jl__imp_note(c, file, "max_batch_size",
                 "v1 CSV rows carry no batch size: @max_batch_size 1 (the 2023 benchmark "
                 "generated one response at a time); no precision: @precision 'unknown'");
end:
    if (got < 0 && err) {
        jl_error_list_push(c->errors, err);
        err = NULL;
    }
    jl_error_free(err);
    jl__csv_close(csv);
    v1_head_free(&h);
    free(gpu);
    free(task);
}

/* ---- folders ---------------------------------------------------------------- */

static jl__jv *load_json_file(jl__imp *c, const char *path)
{
    size_t len;
    char *text = jl__imp_read_file(c, path, &len);
    if (!text)
        return NULL;
    jl__jv *doc = jl__imp_json_tree(c, path, text, len, JL__IMP_DUPS_REFUSE);
    free(text);
    if (doc && !jv_is_object(doc)) {
        jl__imp_err(c, JL_ETYPE, path, NULL, -1, "expected a JSON object");
        jl__jv_free(doc);
        doc = NULL;
    }
    return doc;
}

/* The configuration files of one task: <task>/<GPU>/<org>/<model>/<stem>.json */
static void v2_task(jl__imp *c, const char *tdir, const struct family *fam, const char *task)
{
    char *mpath = jl__imp_join(c, tdir, "models.json");
    jl__jv *models = mpath && jl__imp_is_file(mpath) ? load_json_file(c, mpath) : NULL;
    free(mpath);
    char **gpus, **tf;
    size_t ng, ntf;
    if (jl__imp_list_dir(c, tdir, &gpus, &ng, &tf, &ntf)) {
        jl__jv_free(models);
        return;
    }
    for (size_t gi = 0; gi < ng && !c->oom; gi++) {
        char *gdir = jl__imp_join(c, tdir, gpus[gi]);
        char **orgs, **of;
        size_t no, nof;
        if (!gdir || jl__imp_list_dir(c, gdir, &orgs, &no, &of, &nof)) {
            free(gdir);
            continue;
        }
        for (size_t oi = 0; oi < no && !c->oom; oi++) {
            char *odir = jl__imp_join(c, gdir, orgs[oi]);
            char **mods, **mf;
            size_t nm, nmf;
            if (!odir || jl__imp_list_dir(c, odir, &mods, &nm, &mf, &nmf)) {
                free(odir);
                continue;
            }
            for (size_t mi = 0; mi < nm && !c->oom; mi++) {
                char *mdir = jl__imp_join(c, odir, mods[mi]);
                char **sub, **files;
                size_t ns, nf;
                if (!mdir || jl__imp_list_dir(c, mdir, &sub, &ns, &files, &nf)) {
                    free(mdir);
                    continue;
                }
                for (size_t fi = 0; fi < nf && !c->oom; fi++) {
                    if (!jl__imp_ends_with(files[fi], ".json"))
                        continue;
                    char *fpath = jl__imp_join(c, mdir, files[fi]);
                    size_t len;
                    char *text = fpath ? jl__imp_read_file(c, fpath, &len) : NULL;
                    char *stem = jl__asprintf("%.*s", (int)(strlen(files[fi]) - 5), files[fi]);
                    char *gs = jl__imp_sanitize(gpus[gi]);
                    char *base = stem && gs ? jl__asprintf("%s__%s__%s__%s__%s", task, orgs[oi],
                                                           mods[mi], gs, stem)
                                            : NULL;
                    if (text && base)
                        v2_config(c, text, len, fpath, fam, task, stem, base, models);
                    else if (text)
                        c->oom = 1;
                    free(base);
                    free(gs);
                    free(stem);
                    free(text);
                    free(fpath);
                }
                jl__imp_free_names(sub, ns);
                jl__imp_free_names(files, nf);
                free(mdir);
            }
            jl__imp_free_names(mods, nm);
            jl__imp_free_names(mf, nmf);
            free(odir);
        }
        jl__imp_free_names(orgs, no);
        jl__imp_free_names(of, nof);
        free(gdir);
    }
    jl__imp_free_names(gpus, ng);
    jl__imp_free_names(tf, ntf);
    jl__jv_free(models);
}

static void v1_dir(jl__imp *c, const char *ldir)
{
    char **sub, **files;
    size_t ns, nf;
    if (jl__imp_list_dir(c, ldir, &sub, &ns, &files, &nf))
        return;
    char *mp = jl__imp_join(c, ldir, "models.json"), *sp = jl__imp_join(c, ldir, "score.csv");
    jl__jv *models = mp && jl__imp_is_file(mp) ? load_json_file(c, mp) : NULL;
    v1_scores *scores = sp && jl__imp_is_file(sp) ? v1_scores_read(c, sp) : NULL;
    for (size_t i = 0; i < nf && !c->oom; i++) {
        if (!jl__imp_ends_with(files[i], "_benchmark.csv"))
            continue;
        char *p = jl__imp_join(c, ldir, files[i]);
        size_t len;
        char *text = p ? jl__imp_read_file(c, p, &len) : NULL;
        if (text)
            v1_csv(c, text, len, p, files[i], models, scores);
        free(text);
        free(p);
    }
    jl__jv_free(models);
    v1_scores_free(scores);
    free(mp);
    free(sp);
    jl__imp_free_names(sub, ns);
    jl__imp_free_names(files, nf);
}

static int is_dir(jl__imp *c, const char *a, const char *b)
{
    char *p = jl__imp_join(c, a, b);
    int ok = p && jl__imp_is_dir(p);
    free(p);
    return ok;
}

/* 1 when dir looks like a v2 data/ folder, a v1 legacy/ folder, or a
 * checkout holding data/. *root is the data/ (or legacy/) folder to read. */
static int v2_layout(jl__imp *c, const char *dir, char **root, int *legacy_only)
{
    *legacy_only = 0;
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (is_dir(c, dir, families[i].dir)) {
            *root = jl__strdup(dir);
            return 1;
        }
    if (is_dir(c, dir, "legacy")) {
        *root = jl__strdup(dir);
        return 1;
    }
    if (is_dir(c, dir, "data")) {
        char *d = jl__imp_join(c, dir, "data");
        int ok = d && v2_layout(c, d, root, legacy_only);
        free(d);
        return ok;
    }
    char **sub, **files;
    size_t ns, nf;
    jl_error_list quiet = {0};
    jl_error_list *saved = c->errors;
    c->errors = &quiet;
    /* a look, not the walk: a walk of its own, so the folder is still to
     * be read by the import's */
    jl__walk import_walk = c->walk;
    jl__walk_init(&c->walk);
    int listed = jl__imp_list_dir(c, dir, &sub, &ns, &files, &nf) == 0;
    jl__walk_free(&c->walk);
    c->walk = import_walk;
    c->errors = saved;
    jl_error_list_clear(&quiet);
    int csv = 0;
    if (listed) {
        for (size_t i = 0; i < nf; i++)
            csv |= jl__imp_ends_with(files[i], "_benchmark.csv");
        jl__imp_free_names(sub, ns);
        jl__imp_free_names(files, nf);
    }
    if (csv) {
        *root = jl__strdup(dir);
        *legacy_only = 1;
        return 1;
    }
    return 0;
}

static void v2_tree(jl__imp *c, const char *root)
{
    for (size_t i = 0; i < sizeof families / sizeof families[0] && !c->oom; i++) {
        if (!is_dir(c, root, families[i].dir))
            continue;
        char *fdir = jl__imp_join(c, root, families[i].dir);
        char **tasks, **tf;
        size_t nt, ntf;
        if (fdir && jl__imp_list_dir(c, fdir, &tasks, &nt, &tf, &ntf) == 0) {
            for (size_t t = 0; t < nt && !c->oom; t++) {
                char *tdir = jl__imp_join(c, fdir, tasks[t]);
                if (tdir)
                    v2_task(c, tdir, &families[i], tasks[t]);
                free(tdir);
            }
            jl__imp_free_names(tasks, nt);
            jl__imp_free_names(tf, ntf);
        }
        free(fdir);
    }
    if (is_dir(c, root, "legacy")) {
        char *l = jl__imp_join(c, root, "legacy");
        if (l)
            v1_dir(c, l);
        free(l);
    }
}

jl_status jl_import_mlenergy_v2(const char *dir, const jl_import_options *opt,
                                jl_import_result **out, jl_error_list *errors)
{
    jl__imp c;
    *out = NULL;
    if (jl__imp_start(&c, opt, errors))
        return JL_ENOMEM;
    char *root = NULL;
    int legacy_only = 0;
    if (!v2_layout(&c, dir, &root, &legacy_only)) {
        if (!c.oom)
            jl__imp_err(&c, JL_EFORMAT, dir, NULL, -1,
                        "neither ML.ENERGY v3 data (index.json) nor v2 data (llm_text_generation/, "
                        "mllm_text_generation/, diffusion/, legacy/) nor v1 *_benchmark.csv files");
    } else if (legacy_only) {
        v1_dir(&c, root);
    } else {
        v2_tree(&c, root);
    }
    free(root);
    c.res->source = jl__asprintf("%s; %s", SOURCE_V2, SOURCE_V1);
    if (!c.res->source)
        c.oom = 1;
    return jl__imp_finish(&c, out, dir);
}

jl_status jl_import_mlenergy_auto(const char *dir, const jl_import_options *opt,
                                  jl_import_result **out, jl_error_list *errors)
{
    *out = NULL;
    if (jl__imp_refuse_special(errors, dir))
        return JL_EIO;
    /* v3: index.json, or (a partial copy, docs/import.md) models/ or tasks/;
     * the v2 data/ folder has neither */
    char *index = jl__asprintf("%s/index.json", dir);
    char *models = jl__asprintf("%s/models", dir);
    char *tasks = jl__asprintf("%s/tasks", dir);
    struct stat sm, stt;
    int v3 = index && models && tasks &&
             (jl__imp_is_file(index) || (stat(models, &sm) == 0 && S_ISDIR(sm.st_mode)) ||
              (stat(tasks, &stt) == 0 && S_ISDIR(stt.st_mode)));
    int oom = !index || !models || !tasks;
    free(index);
    free(models);
    free(tasks);
    if (oom)
        return JL_ENOMEM;
    return v3 ? jl_import_mlenergy(dir, opt, out, errors)
              : jl_import_mlenergy_v2(dir, opt, out, errors);
}

jl_status jl_import_mlenergy_v2_buffer(const char *text, size_t len, const char *relpath,
                                       const jl_import_options *opt, jl_import_result **out,
                                       jl_error_list *errors)
{
    jl__imp c;
    *out = NULL;
    if (jl__imp_start(&c, opt, errors))
        return JL_ENOMEM;
    const char *base = strrchr(relpath, '/');
    base = base ? base + 1 : relpath;
    if (jl__imp_ends_with(relpath, ".csv")) {
        v1_csv(&c, text, len, relpath, base, NULL, NULL);
    } else {
        /* family/task/GPU/org/model/stem.json */
        char *copy = jl__strdup(relpath), *parts[8];
        int n = 0;
        for (char *tok = copy ? strtok(copy, "/") : NULL; tok && n < 8; tok = strtok(NULL, "/"))
            parts[n++] = tok;
        const struct family *fam = NULL;
        for (size_t i = 0; n == 6 && i < sizeof families / sizeof families[0]; i++)
            if (!strcmp(parts[0], families[i].dir))
                fam = &families[i];
        if (!copy) {
            c.oom = 1;
        } else if (!fam || !jl__imp_ends_with(parts[5], ".json")) {
            jl__imp_err(&c, JL_EINVALID, relpath, NULL, -1,
                        "not {family}/{task}/{GPU}/{org}/{model}/<config>.json");
        } else {
            parts[5][strlen(parts[5]) - 5] = '\0';
            char *base2 = jl__asprintf("%s__%s__%s__%s__%s", parts[1], parts[3], parts[4], parts[2],
                                       parts[5]);
            if (base2)
                v2_config(&c, text, len, relpath, fam, parts[1], parts[5], base2, NULL);
            else
                c.oom = 1;
            free(base2);
        }
        free(copy);
    }
    c.res->source = jl__strdup(jl__imp_ends_with(relpath, ".csv") ? SOURCE_V1 : SOURCE_V2);
    if (!c.res->source)
        c.oom = 1;
    return jl__imp_finish(&c, out, relpath);
}
