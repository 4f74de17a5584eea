/* Run attributes: see include/joules/attrs.h. */
#define _POSIX_C_SOURCE 200809L
#include "joules/attrs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/attrs_internal.h"
#include "core/util.h"

#define JL__X_NAME(n, kind, req) #n,
const char *const jl_attr_names[] = {JL__ATTR_FIELDS(JL__X_NAME) NULL};
#undef JL__X_NAME

#define JL__X_FIELD(n, kind, req) {#n, JL__F_##kind, offsetof(jl_attrs, n), req},
const jl__attr_field jl__attr_fields[] = {JL__ATTR_FIELDS(JL__X_FIELD)};
#undef JL__X_FIELD
const size_t jl__n_attr_fields = sizeof jl__attr_fields / sizeof jl__attr_fields[0];

void jl_attrs_init(jl_attrs *a)
{
    memset(a, 0, sizeof *a);
    a->num_gpus = a->max_batch_size = -1;
    a->tensor_parallel = a->expert_parallel = a->data_parallel = -1;
    a->denoising_steps = a->height = a->width = a->num_frames = -1;
    a->start_time_unix = a->gpu_memory_bytes = a->gpu_tdp_w = NAN;
    a->gpu_idle_power_w = a->total_params = a->active_params = NAN;
    a->kv_bytes_per_token = NAN;
}

void jl_attrs_clear(jl_attrs *a)
{
    if (!a)
        return;
    free(a->workload);
    free(a->model);
    free(a->task);
    free(a->gpu_model);
    free(a->precision);
    free(a->notes);
    for (size_t i = 0; i < a->n_extra; i++) {
        free(a->extra[i].key);
        free(a->extra[i].value);
    }
    free(a->extra);
    jl_attrs_init(a);
}

static int dup_field(char **dst, const char *src)
{
    if (!src) {
        *dst = NULL;
        return 1;
    }
    *dst = jl__strdup(src);
    return *dst != NULL;
}

jl_status jl_attrs_copy(jl_attrs *dst, const jl_attrs *src)
{
    *dst = *src;
    dst->workload = dst->model = dst->task = dst->gpu_model = NULL;
    dst->precision = dst->notes = NULL;
    dst->extra = NULL;
    dst->n_extra = 0;
    if (!dup_field(&dst->workload, src->workload) || !dup_field(&dst->model, src->model) ||
        !dup_field(&dst->task, src->task) || !dup_field(&dst->gpu_model, src->gpu_model) ||
        !dup_field(&dst->precision, src->precision) || !dup_field(&dst->notes, src->notes))
        goto fail;
    /* the extras array in one allocation, not one realloc per entry */
    if (src->n_extra > 0 && !(dst->extra = jl__malloc_array(src->n_extra, sizeof *dst->extra)))
        goto fail;
    for (size_t i = 0; i < src->n_extra; i++) {
        jl_kv *kv = &dst->extra[i];
        kv->key = jl__strdup(src->extra[i].key);
        kv->value = jl__strdup(src->extra[i].value ? src->extra[i].value : "");
        kv->is_number = src->extra[i].is_number;
        dst->n_extra = i + 1;
        if (!kv->key || !kv->value)
            goto fail;
    }
    return JL_OK;
fail:
    jl_attrs_clear(dst);
    return JL_ENOMEM;
}

jl_status jl_attrs_add_extra(jl_attrs *a, const char *key, const char *value, int is_number)
{
    jl_kv *x = realloc(a->extra, (a->n_extra + 1) * sizeof *x);
    if (!x)
        return JL_ENOMEM;
    a->extra = x;
    jl_kv *kv = &a->extra[a->n_extra];
    kv->key = jl__strdup(key);
    kv->value = jl__strdup(value ? value : "");
    kv->is_number = is_number;
    if (!kv->key || !kv->value) {
        free(kv->key);
        free(kv->value);
        return JL_ENOMEM;
    }
    a->n_extra++;
    return JL_OK;
}

static int put_str(char *buf, size_t cap, const char *s)
{
    if (!s)
        return -1;
    snprintf(buf, cap, "%s", s);
    return 0;
}

static int put_long(char *buf, size_t cap, long v)
{
    if (v < 0)
        return -1;
    snprintf(buf, cap, "%ld", v);
    return 0;
}

static int put_double(char *buf, size_t cap, double v)
{
    if (isnan(v))
        return -1;
    snprintf(buf, cap, "%.17g", v);
    return 0;
}

int jl_attrs_known(const jl_attrs *a, const char *key)
{
    char v[256];
    if (jl_attrs_get(a, "unknown_attributes", v, sizeof v) != 0)
        return 1;
    for (char *save = NULL, *t = strtok_r(v, ",; ", &save); t; t = strtok_r(NULL, ",; ", &save))
        if (!strcmp(t, key))
            return 0;
    return 1;
}

int jl_attrs_get(const jl_attrs *a, const char *key, char *buf, size_t cap)
{
    for (size_t k = 0; k < jl__n_attr_fields; k++) {
        const jl__attr_field *f = &jl__attr_fields[k];
        if (strcmp(key, f->name))
            continue;
        const char *base = (const char *)a + f->off;
        switch (f->kind) {
        case JL__F_STR: return put_str(buf, cap, *(char *const *)base);
        case JL__F_LONG: return put_long(buf, cap, *(const long *)base);
        case JL__F_DBL: return put_double(buf, cap, *(const double *)base);
        }
    }
    for (size_t i = 0; i < a->n_extra; i++)
        if (!strcmp(a->extra[i].key, key))
            return put_str(buf, cap, a->extra[i].value);
    return -1;
}

int jl_attrs_is_llm(const jl_attrs *a)
{
    return a->workload && (!strcmp(a->workload, "llm") || !strcmp(a->workload, "mllm"));
}

int jl_attrs_is_diffusion(const jl_attrs *a)
{
    return a->workload && !strcmp(a->workload, "diffusion");
}

/* The workloads joules reads: the spec's three, then the per-sample ones
 * (jl_attrs_is_per_sample). */
static const char *const workload_names[] = {"llm",    "mllm",   "diffusion",      "language",
                                             "vision", "speech", "recommendation", "graph",
                                             "other",  NULL};
#define FIRST_PER_SAMPLE 3

int jl_workload_is_known(const char *w)
{
    for (size_t i = 0; w && workload_names[i]; i++)
        if (!strcmp(w, workload_names[i]))
            return 1;
    return 0;
}

int jl_workload_is_per_sample(const char *w)
{
    for (size_t i = FIRST_PER_SAMPLE; w && workload_names[i]; i++)
        if (!strcmp(w, workload_names[i]))
            return 1;
    return 0;
}

int jl_attrs_is_per_sample(const jl_attrs *a)
{
    return jl_workload_is_per_sample(a->workload);
}

int jl_attrs_counts_items(const jl_attrs *a)
{
    return jl_workload_counts_items(a->workload);
}

int jl_workload_counts_items(const char *w)
{
    return (w && !strcmp(w, "diffusion")) || jl_workload_is_per_sample(w);
}

const char *jl_attrs_power_scope(const jl_attrs *a)
{
    /* asked per run in every grouping: the first byte rules out most keys */
    for (size_t i = 0; i < a->n_extra; i++)
        if (a->extra[i].key[0] == 'p' && !strcmp(a->extra[i].key, "power_scope") &&
            a->extra[i].value)
            return a->extra[i].value;
    return "gpu";
}

int jl_attrs_is_node_ac(const jl_attrs *a)
{
    return !strcmp(jl_attrs_power_scope(a), "node_ac");
}

jl_status jl_attrs_check(const jl_attrs *a, unsigned long long max_gpus, jl_error **err)
{
    /* The MUST attributes. */
    for (size_t k = 0; k < jl__n_attr_fields; k++) {
        if (!jl__attr_fields[k].required)
            continue;
        const char *base = (const char *)a + jl__attr_fields[k].off;
        int missing = jl__attr_fields[k].kind == JL__F_STR ? *(char *const *)base == NULL
                                                           : *(const long *)base < 0;
        if (missing)
            return jl_fail(err, JL_EMISSING, NULL, NULL, NULL, -1,
                           "required attribute @%s is missing", jl__attr_fields[k].name);
        if (jl__attr_fields[k].kind == JL__F_STR && !**(char *const *)base)
            return jl_fail(err, JL_EINVALID, NULL, NULL, NULL, -1,
                           "required attribute @%s is empty", jl__attr_fields[k].name);
    }
    if (!jl_workload_is_known(a->workload))
        return jl_fail(err, JL_EINVALID, NULL, NULL, NULL, -1,
                       "attribute @workload must be " JL_WORKLOAD_LIST ", found \"%s\"",
                       a->workload);
    const char *scope = jl_attrs_power_scope(a);
    if (strcmp(scope, "gpu") && strcmp(scope, "node_ac"))
        return jl_fail(err, JL_EINVALID, NULL, NULL, NULL, -1,
                       "attribute @power_scope must be gpu or node_ac, found \"%s\"", scope);
    if (a->num_gpus < 1)
        return jl_fail(err, JL_EINVALID, NULL, NULL, NULL, -1,
                       "attribute @num_gpus must be >= 1, found %ld", a->num_gpus);
    if ((unsigned long long)a->num_gpus > max_gpus)
        return jl_fail(err, JL_ELIMIT, NULL, NULL, NULL, -1,
                       "attribute @num_gpus is %ld, more than the limit of %llu GPUs", a->num_gpus,
                       max_gpus);
    if (a->max_batch_size < 1)
        return jl_fail(err, JL_EINVALID, NULL, NULL, NULL, -1,
                       "attribute @max_batch_size must be >= 1, found %ld", a->max_batch_size);
    return JL_OK;
}

/* ---- the vocabulary of attribute values (issue 37) ----------------------- */

/* The spec's precisions first, then those real data use beyond it; each
 * with the spellings people write (compared ignoring case, '-' and '_'). */
static const struct {
    const char *canonical;
    const char *aliases; /* '|'-separated, already folded */
} precisions[] = {
    {"bfloat16", "bfloat16|bf16|torchbfloat16|brainfloat16"},
    {"float16", "float16|fp16|half|f16|torchfloat16|torchhalf"},
    {"float32", "float32|fp32|float|f32|full|torchfloat32"},
    {"fp8", "fp8|float8|f8|fp8e4m3|fp8e4m3fn|float8e4m3fn|e4m3|fp8e5m2|float8e5m2|e5m2|w8a8fp8"},
    {"mxfp4", "mxfp4"},
    {"nvfp4", "nvfp4|fp4"},
    {"int8", "int8|w8a8|w8a16|i8"},
    {"int4", "int4|w4a16|i4|awq|gptq"},
    {"unknown", "unknown"},
};
#define PRECISION_LIST "bfloat16, float16, float32, fp8 (and mxfp4, nvfp4, int8, int4, unknown)"

/* value folded: lower case, without '-', '_', '.', ' ' (at most cap - 1 bytes) */
static void fold(const char *value, char *out, size_t cap)
{
    size_t n = 0;
    for (const char *p = value; *p && n + 1 < cap; p++) {
        char ch = *p;
        if (ch == '-' || ch == '_' || ch == '.' || ch == ' ')
            continue;
        out[n++] = (char)(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
    }
    out[n] = '\0';
}

static int in_aliases(const char *aliases, const char *folded)
{
    size_t n = strlen(folded);
    for (const char *p = aliases; *p;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && !strncmp(p, folded, n))
            return 1;
        p += len + (bar != NULL);
    }
    return 0;
}

const char *jl_attrs_canonical_value(const char *key, const char *value, char *out, size_t cap)
{
    if (!cap)
        return "no room for the value";
    if (!key || !value) {
        out[0] = '\0';
        return NULL;
    }
    char folded[64];
    if (!strcmp(key, "precision")) {
        if (strlen(value) < sizeof folded) {
            fold(value, folded, sizeof folded);
            for (size_t i = 0; i < sizeof precisions / sizeof precisions[0]; i++)
                if (in_aliases(precisions[i].aliases, folded)) {
                    snprintf(out, cap, "%s", precisions[i].canonical);
                    return NULL;
                }
        }
        snprintf(out, cap, "%s", value);
        return "not a precision of the trace format: expected " PRECISION_LIST;
    }
    if (!strcmp(key, "workload")) {
        if (strlen(value) < sizeof folded) {
            fold(value, folded, sizeof folded);
            for (size_t i = 0; workload_names[i]; i++)
                if (!strcmp(folded, workload_names[i])) {
                    snprintf(out, cap, "%s", workload_names[i]);
                    return NULL;
                }
        }
        snprintf(out, cap, "%s", value);
        return "expected " JL_WORKLOAD_LIST;
    }
    snprintf(out, cap, "%s", value);
    return NULL;
}
