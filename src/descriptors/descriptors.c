/* Loading models/gpus.json and models/models.json. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "joules/descriptors.h"

#ifndef JOULES_DEFAULT_MODELS_DIR
#define JOULES_DEFAULT_MODELS_DIR ""
#endif
#ifndef JOULES_INSTALL_MODELS_DIR
#define JOULES_INSTALL_MODELS_DIR ""
#endif

struct jl_descriptors {
    jl_gpu_desc *gpus;
    size_t n_gpus;
    jl_model_desc *models;
    size_t n_models;
};

static double num_or_nan(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static long int_or_missing(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_integer(v) ? (long)json_integer_value(v) : -1;
}

static int is_dir(const char *p)
{
    struct stat sb;
    return p && *p && stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static const char *find_dir(const char *dir)
{
    if (is_dir(dir))
        return dir;
    const char *env = getenv("JOULES_MODELS_DIR");
    if (is_dir(env))
        return env;
    if (is_dir(JOULES_DEFAULT_MODELS_DIR))
        return JOULES_DEFAULT_MODELS_DIR;
    if (is_dir(JOULES_INSTALL_MODELS_DIR))
        return JOULES_INSTALL_MODELS_DIR;
    return NULL;
}

/* A regular file of at most 1 MiB read whole (NULL otherwise, or on any
 * error: the caller then lets jansson's file reader say what is wrong).
 * jansson reads a file one getc() at a time, locked, since libhdf5 links
 * libpthread: for models.json that was half of the descriptors' cost,
 * which every reading command pays. */
static char *read_small(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0)
        return NULL;
    struct stat sb;
    char *buf = NULL;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size <= (1 << 20))
        buf = malloc((size_t)sb.st_size + 1);
    size_t got = 0;
    while (buf && got < (size_t)sb.st_size) {
        ssize_t r = read(fd, buf + got, (size_t)sb.st_size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            free(buf);
            buf = NULL;
        } else {
            got += (size_t)r;
        }
    }
    close(fd);
    *len = got;
    return buf;
}

static jl_status load_json(const char *dir, const char *name, json_t **out, jl_error **err)
{
    char *path = jl__asprintf("%s/%s", dir, name);
    if (!path)
        return JL_ENOMEM;
    json_error_t je;
    size_t len = 0;
    char *text = read_small(path, &len), why[128] = "";
    FILE *f = text ? NULL : jl__fopen_input(path, why, sizeof why);
    *out = text ? json_loadb(text, len, 0, &je) : f ? json_loadf(f, 0, &je) : NULL;
    free(text);
    if (f)
        fclose(f);
    jl_status st = JL_OK;
    if (!text && !f)
        st = jl_fail(err, JL_EIO, path, NULL, NULL, -1, "cannot read descriptor file: %s", why);
    else if (!*out)
        st = jl_fail(err, JL_EFORMAT, path, NULL, NULL, je.line > 0 ? je.line : -1,
                     "cannot read descriptor file: %s (line %d, column %d)", je.text, je.line,
                     je.column);
    free(path);
    return st;
}

/* gpus.json's "released", "YYYY-MM", as year + (month - 1) / 12; NaN when
 * absent or of another shape (a month, not a civil time: no zone, no day). */
static double released_year(const char *rel)
{
    if (!rel || strlen(rel) != 7 || rel[4] != '-')
        return NAN;
    for (int i = 0; i < 7; i++)
        if (i != 4 && (rel[i] < '0' || rel[i] > '9'))
            return NAN;
    int yy = atoi(rel), mm = atoi(rel + 5);
    return mm >= 1 && mm <= 12 ? yy + (mm - 1) / 12.0 : NAN;
}

static jl_status descriptors_from_docs(json_t *gj, json_t *mj, const char *d, jl_descriptors **out,
                                       jl_error **err);

jl_status jl_descriptors_load(const char *dir, jl_descriptors **out, jl_error **err)
{
    *out = NULL;
    const char *d = find_dir(dir);
    if (!d)
        return jl_fail(err, JL_EMISSING, dir, NULL, NULL, -1,
                       "models/ descriptor folder not found (set JOULES_MODELS_DIR)");
    json_t *gj = NULL, *mj = NULL;
    jl_status st = load_json(d, "gpus.json", &gj, err);
    if (st == JL_OK)
        st = load_json(d, "models.json", &mj, err);
    if (st != JL_OK) {
        json_decref(gj);
        return st;
    }
    return descriptors_from_docs(gj, mj, d, out, err);
}

static jl_status parse_buffer(const char *buf, size_t len, const char *name, json_t **out,
                              jl_error **err)
{
    json_error_t je;
    *out = json_loadb(buf ? buf : "", buf ? len : 0, 0, &je);
    if (!*out)
        return jl_fail(err, JL_EFORMAT, name, NULL, NULL, je.line > 0 ? je.line : -1,
                       "cannot read descriptor file: %s (line %d, column %d)", je.text, je.line,
                       je.column);
    return JL_OK;
}

jl_status jl_descriptors_load_buffers(const char *gpus_json, size_t gpus_len,
                                      const char *models_json, size_t models_len,
                                      jl_descriptors **out, jl_error **err)
{
    *out = NULL;
    json_t *gj = NULL, *mj = NULL;
    jl_status st = parse_buffer(gpus_json, gpus_len, "gpus.json", &gj, err);
    if (st == JL_OK)
        st = parse_buffer(models_json, models_len, "models.json", &mj, err);
    if (st != JL_OK) {
        json_decref(gj);
        return st;
    }
    return descriptors_from_docs(gj, mj, "<memory>", out, err);
}

/* Takes ownership of gj and mj. */
static jl_status descriptors_from_docs(json_t *gj, json_t *mj, const char *d, jl_descriptors **out,
                                       jl_error **err)
{
    jl_descriptors *ds = calloc(1, sizeof *ds);
    jl_status st = ds ? JL_OK : JL_ENOMEM;
    if (st != JL_OK)
        goto end;
    json_t *gpus = json_object_get(gj, "gpus"), *models = json_object_get(mj, "models");
    if (!json_is_object(gpus) || !json_is_object(models)) {
        st = jl_fail(err, JL_EFORMAT, d, NULL, NULL, -1,
                     "descriptor files need a \"gpus\" / \"models\" object");
        goto end;
    }
    ds->gpus = calloc(json_object_size(gpus) + 1, sizeof *ds->gpus);
    ds->models = calloc(json_object_size(models) + 1, sizeof *ds->models);
    if (!ds->gpus || !ds->models) {
        st = JL_ENOMEM;
        goto end;
    }
    const char *key;
    json_t *v;
    json_object_foreach(gpus, key, v) {
        jl_gpu_desc *g = &ds->gpus[ds->n_gpus++];
        g->id = jl__strdup(key);
        json_t *nm = json_object_get(v, "name");
        g->name = jl__strdup(json_is_string(nm) ? json_string_value(nm) : key);
        g->memory_bytes = num_or_nan(v, "memory_bytes");
        g->tdp_w = num_or_nan(v, "tdp_w");
        g->idle_power_w = num_or_nan(v, "idle_power_w");
        g->hbm_bandwidth_bytes_s = num_or_nan(v, "hbm_bandwidth_bytes_s");
        const char *rel = json_string_value(json_object_get(v, "released"));
        g->released = released_year(rel);
        g->bf16_dense_flops = num_or_nan(v, "bf16_dense_flops");
        json_t *r = json_object_get(v, "idle_power_range_w");
        g->idle_min_w =
            json_is_number(json_array_get(r, 0)) ? json_number_value(json_array_get(r, 0)) : NAN;
        g->idle_max_w =
            json_is_number(json_array_get(r, 1)) ? json_number_value(json_array_get(r, 1)) : NAN;
        if (!g->id || !g->name) {
            st = JL_ENOMEM;
            goto end;
        }
    }
    json_object_foreach(models, key, v) {
        jl_model_desc *m = &ds->models[ds->n_models++];
        m->id = jl__strdup(key);
        if (!m->id) {
            st = JL_ENOMEM;
            goto end;
        }
        m->total_params = num_or_nan(v, "total_params");
        m->active_params = num_or_nan(v, "active_params");
        m->weight_bytes_per_param = num_or_nan(v, "weight_bytes_per_param");
        m->layers = int_or_missing(v, "layers");
        m->attention_layers = int_or_missing(v, "attention_layers");
        m->kv_heads = int_or_missing(v, "kv_heads");
        m->head_dim = int_or_missing(v, "head_dim");
        m->kv_bytes_per_token = num_or_nan(v, "kv_bytes_per_token");
        m->sliding_window_layers = int_or_missing(v, "sliding_window_layers");
        m->sliding_window = int_or_missing(v, "sliding_window");
    }
end:
    json_decref(gj);
    json_decref(mj);
    if (st != JL_OK) {
        jl_descriptors_free(ds);
        return st;
    }
    *out = ds;
    return JL_OK;
}

void jl_descriptors_free(jl_descriptors *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n_gpus; i++) {
        free(d->gpus[i].id);
        free(d->gpus[i].name);
    }
    for (size_t i = 0; i < d->n_models; i++)
        free(d->models[i].id);
    free(d->gpus);
    free(d->models);
    free(d);
}

const jl_gpu_desc *jl_descriptors_gpu(const jl_descriptors *d, const char *gpu_model)
{
    if (!d || !gpu_model)
        return NULL;
    for (size_t i = 0; i < d->n_gpus; i++)
        if (!strcmp(d->gpus[i].id, gpu_model))
            return &d->gpus[i];
    for (size_t i = 0; i < d->n_gpus; i++)
        if (!strcasecmp(d->gpus[i].id, gpu_model))
            return &d->gpus[i];
    return NULL;
}

const jl_model_desc *jl_descriptors_model(const jl_descriptors *d, const char *model)
{
    if (!d || !model)
        return NULL;
    for (size_t i = 0; i < d->n_models; i++)
        if (!strcmp(d->models[i].id, model))
            return &d->models[i];
    /* the same architecture without a precision suffix */
    static const char *const suffixes[] = {"-FP8", "-BF16", "-fp8", "-bf16", NULL};
    size_t n = strlen(model);
    for (int s = 0; suffixes[s]; s++) {
        size_t m = strlen(suffixes[s]);
        if (n > m && !strcmp(model + n - m, suffixes[s]))
            for (size_t i = 0; i < d->n_models; i++)
                if (strlen(d->models[i].id) == n - m && !strncmp(d->models[i].id, model, n - m))
                    return &d->models[i];
    }
    for (size_t i = 0; i < d->n_models; i++)
        if (!strcasecmp(d->models[i].id, model))
            return &d->models[i];
    return NULL;
}

double jl_run_gpu_memory_bytes(const jl_attrs *a, const jl_descriptors *d)
{
    if (isfinite(a->gpu_memory_bytes) && a->gpu_memory_bytes > 0)
        return a->gpu_memory_bytes;
    const jl_gpu_desc *g = jl_descriptors_gpu(d, a->gpu_model);
    return g ? g->memory_bytes : NAN;
}

double jl_run_gpu_tdp_w(const jl_attrs *a, const jl_descriptors *d)
{
    if (isfinite(a->gpu_tdp_w) && a->gpu_tdp_w > 0)
        return a->gpu_tdp_w;
    const jl_gpu_desc *g = jl_descriptors_gpu(d, a->gpu_model);
    return g ? g->tdp_w : NAN;
}

double jl_run_gpu_idle_w(const jl_attrs *a, const jl_descriptors *d)
{
    if (isfinite(a->gpu_idle_power_w) && a->gpu_idle_power_w > 0)
        return a->gpu_idle_power_w;
    const jl_gpu_desc *g = jl_descriptors_gpu(d, a->gpu_model);
    return g ? g->idle_power_w : NAN;
}

double jl_run_kv_bytes_per_token(const jl_attrs *a, const jl_descriptors *d)
{
    if (isfinite(a->kv_bytes_per_token) && a->kv_bytes_per_token > 0)
        return a->kv_bytes_per_token;
    const jl_model_desc *m = jl_descriptors_model(d, a->model);
    return m ? m->kv_bytes_per_token : NAN;
}

int jl_precision_is_reference(const char *p)
{
    return p && (!strcmp(p, "bfloat16") || !strcmp(p, "bf16"));
}

int jl_precision_is_16bit(const char *p)
{
    return p && (!strcasecmp(p, "bf16") || !strcasecmp(p, "bfloat16") || !strcasecmp(p, "fp16") ||
                 !strcasecmp(p, "float16") || !strcasecmp(p, "half"));
}

double jl_precision_bytes_per_param(const char *p)
{
    if (!p)
        return NAN;
    if (!strcasecmp(p, "bfloat16") || !strcasecmp(p, "float16"))
        return 2.0;
    if (!strcasecmp(p, "fp8"))
        return 1.0;
    if (!strcasecmp(p, "float32"))
        return 4.0;
    return NAN;
}

double jl_run_weight_bytes(const jl_attrs *a, const jl_descriptors *d)
{
    const jl_model_desc *m = jl_descriptors_model(d, a->model);
    double params = isfinite(a->total_params) && a->total_params > 0 ? a->total_params
                    : m                                              ? m->total_params
                                                                     : NAN;
    double bpp = jl_precision_bytes_per_param(a->precision);
    if (!isfinite(bpp) && m)
        bpp = m->weight_bytes_per_param;
    return params * bpp;
}
