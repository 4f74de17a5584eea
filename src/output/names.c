/* --names mlenergy: the key and column names (and units) of the ML.ENERGY
 * data toolkit (the LLMRun / DiffusionRun records of mlenergy_data), so
 * notebooks written against it read joules' outputs unchanged. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
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
