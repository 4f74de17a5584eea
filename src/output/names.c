/* --names mlenergy: the key and column names (and units) of the ML.ENERGY
 * data toolkit (the LLMRun / DiffusionRun records of mlenergy_data), so
 * notebooks written against it read joules' outputs unchanged. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "joules/output.h"

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

/* Append one CSV field of in starting at *i (quoted or not) to out,
 * scaled when scale != 1 and the field is a number. Leaves *i at the
 * separator (',' '\n' or the end). */
static void copy_field(const char *in, size_t len, size_t *i, double scale, char **out,
                       size_t *olen, size_t *ocap)
{
    size_t start = *i;
    if (*i < len && in[*i] == '"') {
        (*i)++;
        while (*i < len && !(in[*i] == '"' && !(*i + 1 < len && in[*i + 1] == '"')))
            *i += in[*i] == '"' ? 2 : 1;
        if (*i < len)
            (*i)++;
    } else {
        while (*i < len && in[*i] != ',' && in[*i] != '\n')
            (*i)++;
    }
    char num[64];
    const char *src = in + start;
    size_t n = *i - start;
    if (scale == 0 && n > 0 && n < sizeof num && in[start] != '"') {
        /* a column naming a figure (energy_figure): the figure's name */
        memcpy(num, src, n);
        num[n] = '\0';
        const char *m = jl_mlenergy_name(num, 0, NULL);
        if (m && strlen(m) < sizeof num) {
            strcpy(num, m);
            n = strlen(num);
        }
        src = num;
    } else if (scale != 1 && n > 0 && n < sizeof num && in[start] != '"') {
        memcpy(num, src, n);
        num[n] = '\0';
        char *end;
        double v = strtod(num, &end);
        if (*end == '\0') {
            n = (size_t)snprintf(num, sizeof num, "%.17g", v * scale);
            src = num;
        }
    }
    if (*olen + n + 2 > *ocap) {
        size_t nc = (*olen + n + 2) * 2;
        char *nb = realloc(*out, nc);
        if (!nb) {
            free(*out);
            *out = NULL;
            *olen = *ocap = 0;
            return;
        }
        *out = nb;
        *ocap = nc;
    }
    if (*out) {
        memcpy(*out + *olen, src, n);
        *olen += n;
    }
}

char *jl_csv_rename_mlenergy(const char *in, size_t len, size_t *out_len)
{
    size_t olen = 0, ocap = len + 1024, i = 0, col = 0, ncols = 0;
    char *out = malloc(ocap);
    double *scales = NULL;
    if (!out)
        return NULL;
    /* the header: each column renamed, its scale kept */
    while (out && i <= len) {
        size_t start = i;
        while (i < len && in[i] != ',' && in[i] != '\n')
            i++;
        char name[256], buf[320];
        size_t n = i - start < sizeof name ? i - start : sizeof name - 1;
        memcpy(name, in + start, n);
        name[n] = '\0';
        double sc;
        const char *m = column_name(name, buf, sizeof buf, &sc);
        size_t nl = strlen(name);
        if (nl > 7 && !strcmp(name + nl - 7, "_figure"))
            sc = 0; /* values are figure names */
        double *ns = realloc(scales, (ncols + 1) * sizeof *ns);
        if (!ns)
            break;
        scales = ns;
        scales[ncols++] = sc;
        const char *w = m ? m : name;
        size_t wl = m ? strlen(m) : i - start;
        if (olen + wl + 2 > ocap) {
            char *nb = realloc(out, (ocap = (olen + wl + 2) * 2));
            if (!nb) {
                free(out);
                out = NULL;
                break;
            }
            out = nb;
        }
        memcpy(out + olen, m ? w : in + start, wl);
        olen += wl;
        if (i >= len || in[i] == '\n') {
            out[olen++] = '\n';
            i++;
            break;
        }
        out[olen++] = ',';
        i++;
    }
    /* the rows: fields copied, those of scaled columns converted */
    while (out && i < len) {
        copy_field(in, len, &i, col < ncols ? scales[col] : 1, &out, &olen, &ocap);
        if (!out)
            break;
        if (i < len) {
            out[olen++] = in[i];
            col = in[i] == '\n' ? 0 : col + 1;
            i++;
        }
    }
    free(scales);
    if (!out)
        return NULL;
    out[olen] = '\0';
    if (out_len)
        *out_len = olen;
    return out;
}
