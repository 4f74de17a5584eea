/* Energy cards: Markdown with YAML front matter (docs/accounting.md,
 * "Cards"). */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/util.h"
#include "joules/account.h"
#include "joules/version.h"

typedef struct mbuf {
    char *p;
    size_t n, cap;
    int bad;
} mbuf;

static void put(mbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(mbuf *b, const char *fmt, ...)
{
    if (b->bad)
        return;
    va_list ap;
    va_start(ap, fmt);
    char *s = jl__vasprintf(fmt, ap);
    va_end(ap);
    size_t n = s ? strlen(s) : 0;
    if (!s || (b->n + n + 1 > b->cap && !(b->p = realloc(b->p, b->cap = 2 * (b->n + n + 1))))) {
        b->bad = 1;
        free(s);
        return;
    }
    memcpy(b->p + b->n, s, n + 1);
    b->n += n;
    free(s);
}

/* a YAML double-quoted scalar's body */
static void yq(mbuf *b, const char *s)
{
    for (; s && *s; s++)
        put(b, *s == '"' || *s == '\\' ? "\\%c" : "%c", *s);
}

/* a number or "-" */
static void num(mbuf *b, int digits, double v)
{
    if (isfinite(v))
        put(b, "%.*g", digits, v);
    else
        put(b, "-");
}

static const jl_run_emissions *em_of(const jl_emissions_result *em, size_t run)
{
    for (size_t i = 0; em && i < em->n; i++)
        if (em->runs[i].run == run && !em->runs[i].error)
            return &em->runs[i];
    return NULL;
}

char *jl_card_markdown(const jl_label_set *ls, const jl_summary_list *runs,
                       const jl_emissions_result *em, const jl_card_options *o)
{
    mbuf b = {0};
    const char *model = ls->n ? ls->items[0].model : "?";
    /* the front matter: the first label's configuration */
    put(&b, "---\n");
    if (ls->n) {
        const jl_label *l = &ls->items[0];
        const jl_run_emissions *e = em_of(em, l->run);
        if (e && isfinite(e->g_per_request[0])) {
            put(&b,
                "co2_eq_emissions:\n  emissions: %.6g\n  source: \"joules %s: GPU energy of "
                "1,000 queries (",
                e->g_per_request[0] * 1000, jl_version());
            yq(&b, l->task);
            put(&b, ", %ld x ", l->num_gpus);
            yq(&b, l->gpu_model);
            put(&b, ", batch cap %ld) x ", runs->items[l->run]->attrs.max_batch_size);
            yq(&b, o->carbon_text ? o->carbon_text : "");
            put(&b, "\"\n");
            if (o->location) {
                put(&b, "  geographical_location: \"");
                yq(&b, o->location);
                put(&b, "\"\n");
            }
            put(&b, "  hardware_used: \"%ld x ", l->num_gpus);
            yq(&b, l->gpu_model);
            put(&b, "\"\n");
        }
        put(&b, "joules_energy:\n  model: \"");
        yq(&b, model);
        put(&b, "\"\n  configurations:\n");
        for (size_t i = 0; i < ls->n; i++) {
            const jl_label *x = &ls->items[i];
            const jl_summary *s = runs->items[x->run];
            put(&b, "    - task: \"");
            yq(&b, x->task);
            put(&b, "\"\n      hardware: \"%ld x ", x->num_gpus);
            yq(&b, x->gpu_model);
            put(&b,
                "\"\n      max_batch_size: %ld\n      gpu_wh_per_1000_queries: %.6g\n"
                "      energy_per_token_j: ",
                s->attrs.max_batch_size, x->wh_per_1000);
            num(&b, 6, s->fig[JL_FIG_ENERGY_PER_TOKEN_J]);
            put(&b, "\n      stars: %d\n", x->stars);
        }
        if (o->provenance_sha256)
            put(&b, "  provenance_sha256: \"%s\"\n", o->provenance_sha256);
    }
    put(&b, "---\n\n# Energy card: %s\n\n", model);
    put(&b,
        "Measured with joules %s from GPU power traces. Per task and hardware, the "
        "configuration of least GPU energy per request%s%s%s. Stars are relative to the "
        "models of the same task in the data this card was made from, nothing else.\n\n",
        jl_version(), o->slo_text ? " that meets " : "", o->slo_text ? o->slo_text : "",
        o->slo_text ? "" : " (no SLO)");
    put(&b, "| task | hardware | batch cap | precision | GPU Wh / 1,000 queries | J / token | "
            "J / request | prefill share | static share | avg W | peak W | stars |\n"
            "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < ls->n; i++) {
        const jl_label *x = &ls->items[i];
        const jl_summary *s = runs->items[x->run];
        put(&b, "| %s | %ld x %s | %ld | %s | %.4g | ", x->task, x->num_gpus,
            x->gpu_model ? x->gpu_model : "?", s->attrs.max_batch_size,
            s->attrs.precision ? s->attrs.precision : "-", x->wh_per_1000);
        num(&b, 4, s->fig[JL_FIG_ENERGY_PER_TOKEN_J]);
        put(&b, " | ");
        num(&b, 4, s->fig[JL_FIG_ENERGY_PER_REQUEST_J]);
        put(&b, " | ");
        num(&b, 3, s->fig[JL_FIG_PREFILL_ENERGY_SHARE]);
        put(&b, " | ");
        num(&b, 3, s->fig[JL_FIG_STATIC_ENERGY_SHARE]);
        put(&b, " | ");
        num(&b, 4, s->fig[JL_FIG_AVG_POWER_W]);
        put(&b, " | ");
        num(&b, 4, s->fig[JL_FIG_PEAK_POWER_W]);
        put(&b, " | %d of 5 (of %zu) |\n", x->stars, x->task_models);
    }
    put(&b, "\n## Calibration and conditions\n\n"
            "| task | hardware | steady window | energy source | power-sample coverage | "
            "counter vs integral | median ITL s | file:run |\n|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < ls->n; i++) {
        const jl_label *x = &ls->items[i];
        const jl_summary *s = runs->items[x->run];
        put(&b, "| %s | %ld x %s | %s, ", x->task, x->num_gpus, x->gpu_model ? x->gpu_model : "?",
            jl_steady_method_name(s->steady_method));
        num(&b, 3, s->fig[JL_FIG_STEADY_DURATION_S]);
        put(&b, " s | %s | ", jl_energy_source_name(s->energy_source));
        num(&b, 3, s->fig[JL_FIG_POWER_SAMPLE_COVERAGE]);
        put(&b, " | ");
        num(&b, 2, s->fig[JL_FIG_ENERGY_SOURCE_DISAGREEMENT]);
        put(&b, " | ");
        num(&b, 4, s->fig[JL_FIG_MEDIAN_ITL_S]);
        put(&b, " | %s:%s |\n", s->file, s->run);
    }
    put(&b, "\nPer-layer and per-operator energy: not in these traces (no spans).\n");
    put(&b, "\n## Carbon and facility\n\n");
    if (em && o->carbon_text) {
        put(&b,
            "Assumptions: %s. gCO2eq = GPU energy x PUE / 3.6e6 x intensity, with the "
            "intensity and PUE of the times the energy was used (energy-weighted).\n\n"
            "| task | hardware | PUE | gCO2eq/kWh | gCO2eq / request | kgCO2eq / 1,000 "
            "queries |\n|---|---|---|---|---|---|\n",
            o->carbon_text);
        for (size_t i = 0; i < ls->n; i++) {
            const jl_label *x = &ls->items[i];
            const jl_run_emissions *e = em_of(em, x->run);
            put(&b, "| %s | %ld x %s | ", x->task, x->num_gpus, x->gpu_model ? x->gpu_model : "?");
            num(&b, 3, e ? e->pue : NAN);
            put(&b, " | ");
            num(&b, 4, e ? e->intensity[0] : NAN);
            put(&b, " | ");
            num(&b, 4, e ? e->g_per_request[0] : NAN);
            put(&b, " | ");
            num(&b, 4, e ? e->g_per_request[0] : NAN);
            put(&b, " |\n");
        }
    } else {
        put(&b, "No grid intensity given (--grid-intensity): no carbon figures.\n");
    }
    put(&b, "\n## Provenance\n\n");
    if (o->provenance) {
        const json_t *cmd = json_object_get(o->provenance, "command");
        put(&b, "Made by `");
        for (size_t i = 0; i < json_array_size(cmd); i++)
            put(&b, "%s%s", i ? " " : "", json_string_value(json_array_get(cmd, i)));
        put(&b, "` from %zu input files (SHA-256 in the JSON documents' provenance blocks)",
            json_array_size(json_object_get(o->provenance, "inputs")));
        if (o->provenance_sha256)
            put(&b, "; provenance hash `%s`", o->provenance_sha256);
        put(&b, ". The figures are those of `joules label --json` and `joules emissions --json` "
                "on the same inputs, whose documents `joules verify` re-derives.\n");
    } else {
        put(&b, "No provenance recorded.\n");
    }
    if (b.bad) {
        free(b.p);
        return NULL;
    }
    return b.p;
}
