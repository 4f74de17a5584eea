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
#include "joules/publish.h"
#include "joules/version.h"

/* a YAML double-quoted scalar's body */
static void yq(jl__strbuf *b, const char *s)
{
    for (; s && *s; s++)
        jl__strbuf_printf(b, *s == '"' || *s == '\\' ? "\\%c" : "%c", *s);
}

/* a number or "-" */
static void num(jl__strbuf *b, int digits, double v)
{
    if (isfinite(v))
        jl__strbuf_printf(b, "%.*g", digits, v);
    else
        jl__strbuf_printf(b, "-");
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
    jl__strbuf b;
    jl__strbuf_init(&b);
    const char *model = ls->n ? ls->items[0].model : "?";
    /* the front matter: the first label's configuration */
    jl__strbuf_printf(&b, "---\n");
    if (ls->n) {
        const jl_label *l = &ls->items[0];
        const jl_run_emissions *e = em_of(em, l->run);
        if (e && isfinite(e->g_per_request[0])) {
            jl__strbuf_printf(
                &b,
                "co2_eq_emissions:\n  emissions: %.6g\n  source: \"joules %s: GPU energy of "
                "1,000 queries (",
                e->g_per_request[0] * 1000, jl_version());
            yq(&b, l->task);
            jl__strbuf_printf(&b, ", %ld x ", l->num_gpus);
            yq(&b, l->gpu_model);
            jl__strbuf_printf(&b, ", batch cap %ld) x ", runs->items[l->run]->attrs.max_batch_size);
            yq(&b, o->carbon_text ? o->carbon_text : "");
            jl__strbuf_printf(&b, "\"\n");
            if (o->location) {
                jl__strbuf_printf(&b, "  geographical_location: \"");
                yq(&b, o->location);
                jl__strbuf_printf(&b, "\"\n");
            }
            jl__strbuf_printf(&b, "  hardware_used: \"%ld x ", l->num_gpus);
            yq(&b, l->gpu_model);
            jl__strbuf_printf(&b, "\"\n");
        }
        jl__strbuf_printf(&b, "joules_energy:\n  model: \"");
        yq(&b, model);
        jl__strbuf_printf(&b, "\"\n  configurations:\n");
        for (size_t i = 0; i < ls->n; i++) {
            const jl_label *x = &ls->items[i];
            const jl_summary *s = runs->items[x->run];
            jl__strbuf_printf(&b, "    - task: \"");
            yq(&b, x->task);
            jl__strbuf_printf(&b, "\"\n      hardware: \"%ld x ", x->num_gpus);
            yq(&b, x->gpu_model);
            jl__strbuf_printf(&b,
                              "\"\n      max_batch_size: %ld\n      gpu_wh_per_1000_queries: %.6g\n"
                              "      energy_per_token_j: ",
                              s->attrs.max_batch_size, x->wh_per_1000);
            num(&b, 6, s->fig[JL_FIG_ENERGY_PER_TOKEN_J]);
            jl__strbuf_printf(&b, "\n      stars: %d\n", x->stars);
        }
        if (o->provenance_sha256)
            jl__strbuf_printf(&b, "  provenance_sha256: \"%s\"\n", o->provenance_sha256);
    }
    jl__strbuf_printf(&b, "---\n\n# Energy card: %s\n\n", model);
    jl__strbuf_printf(
        &b,
        "Measured with joules %s from GPU power traces. Per task and hardware, the "
        "configuration of least GPU energy per request%s%s%s. Stars are relative to the "
        "models of the same task in the data this card was made from, nothing else.\n\n",
        jl_version(), o->slo_text ? " that meets " : "", o->slo_text ? o->slo_text : "",
        o->slo_text ? "" : " (no SLO)");
    jl__strbuf_printf(
        &b, "| task | hardware | batch cap | precision | GPU Wh / 1,000 queries | J / token | "
            "J / request | prefill share | static share | avg W | peak W | stars |\n"
            "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < ls->n; i++) {
        const jl_label *x = &ls->items[i];
        const jl_summary *s = runs->items[x->run];
        jl__strbuf_printf(&b, "| %s | %ld x %s | %ld | %s | %.4g | ", x->task, x->num_gpus,
                          x->gpu_model ? x->gpu_model : "?", s->attrs.max_batch_size,
                          s->attrs.precision ? s->attrs.precision : "-", x->wh_per_1000);
        num(&b, 4, s->fig[JL_FIG_ENERGY_PER_TOKEN_J]);
        jl__strbuf_printf(&b, " | ");
        num(&b, 4, s->fig[JL_FIG_ENERGY_PER_REQUEST_J]);
        jl__strbuf_printf(&b, " | ");
        num(&b, 3, s->fig[JL_FIG_PREFILL_ENERGY_SHARE]);
        jl__strbuf_printf(&b, " | ");
        num(&b, 3, s->fig[JL_FIG_STATIC_ENERGY_SHARE]);
        jl__strbuf_printf(&b, " | ");
        num(&b, 4, s->fig[JL_FIG_AVG_POWER_W]);
        jl__strbuf_printf(&b, " | ");
        num(&b, 4, s->fig[JL_FIG_PEAK_POWER_W]);
        jl__strbuf_printf(&b, " | %d of 5 (of %zu) |\n", x->stars, x->task_models);
    }
    /* host/ (format 1.2): the whole system, where a configuration recorded it */
    int any_host = 0;
    for (size_t i = 0; i < ls->n; i++)
        any_host = any_host || isfinite(runs->items[ls->items[i].run]->fig[JL_FIG_TOTAL_ENERGY_J]);
    if (any_host) {
        jl__strbuf_printf(&b, "\nThe whole system (host/: CPU and DRAM counters, or the node's "
                              "AC power; summary.md, \"The whole system\"):\n\n"
                              "| task | hardware | GPU J / token | host J / token | total J / "
                              "token | how |\n|---|---|---|---|---|---|\n");
        for (size_t i = 0; i < ls->n; i++) {
            const jl_label *x = &ls->items[i];
            const jl_summary *s = runs->items[x->run];
            jl__strbuf_printf(&b, "| %s | %ld x %s | ", x->task, x->num_gpus,
                              x->gpu_model ? x->gpu_model : "?");
            num(&b, 4, s->fig[JL_FIG_ENERGY_PER_TOKEN_J]);
            jl__strbuf_printf(&b, " | ");
            num(&b, 4, s->fig[JL_FIG_HOST_ENERGY_PER_TOKEN_J]);
            jl__strbuf_printf(&b, " | ");
            num(&b, 4, s->fig[JL_FIG_TOTAL_ENERGY_PER_TOKEN_J]);
            jl__strbuf_printf(&b, " | %s |\n",
                              !s->host                              ? "no host/"
                              : s->host->method == JL_HOST_NODE_AC  ? "node AC; host = node - GPUs"
                              : s->host->method == JL_HOST_CPU_DRAM ? "GPUs + CPU + DRAM (RAPL)"
                                                                    : "none over the window");
        }
    }
    jl__strbuf_printf(
        &b, "\n## Calibration and conditions\n\n"
            "| task | hardware | steady window | energy source | power-sample coverage | "
            "counter vs integral | median ITL s | file:run |\n|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < ls->n; i++) {
        const jl_label *x = &ls->items[i];
        const jl_summary *s = runs->items[x->run];
        jl__strbuf_printf(&b, "| %s | %ld x %s | %s, ", x->task, x->num_gpus,
                          x->gpu_model ? x->gpu_model : "?",
                          jl_steady_method_name(s->steady_method));
        num(&b, 3, s->fig[JL_FIG_STEADY_DURATION_S]);
        jl__strbuf_printf(&b, " s | %s | ", jl_energy_source_name(s->energy_source));
        num(&b, 3, s->fig[JL_FIG_POWER_SAMPLE_COVERAGE]);
        jl__strbuf_printf(&b, " | ");
        num(&b, 2, s->fig[JL_FIG_ENERGY_SOURCE_DISAGREEMENT]);
        jl__strbuf_printf(&b, " | ");
        num(&b, 4, s->fig[JL_FIG_MEDIAN_ITL_S]);
        jl__strbuf_printf(&b, " | %s:%s |\n", s->file, s->run);
    }
    jl__strbuf_printf(&b, "\nPer-layer and per-operator energy: not in these traces (no spans).\n");
    jl__strbuf_printf(&b, "\n## Carbon and facility\n\n");
    if (em && o->carbon_text) {
        jl__strbuf_printf(
            &b,
            "Assumptions: %s. gCO2eq = GPU energy x PUE / 3.6e6 x intensity, with the "
            "intensity and PUE of the times the energy was used (energy-weighted).\n\n"
            "| task | hardware | PUE | gCO2eq/kWh | gCO2eq / request | kgCO2eq / 1,000 "
            "queries |\n|---|---|---|---|---|---|\n",
            o->carbon_text);
        for (size_t i = 0; i < ls->n; i++) {
            const jl_label *x = &ls->items[i];
            const jl_run_emissions *e = em_of(em, x->run);
            jl__strbuf_printf(&b, "| %s | %ld x %s | ", x->task, x->num_gpus,
                              x->gpu_model ? x->gpu_model : "?");
            num(&b, 3, e ? e->pue : NAN);
            jl__strbuf_printf(&b, " | ");
            num(&b, 4, e ? e->intensity[0] : NAN);
            jl__strbuf_printf(&b, " | ");
            num(&b, 4, e ? e->g_per_request[0] : NAN);
            jl__strbuf_printf(&b, " | ");
            num(&b, 4, e ? e->g_per_request[0] : NAN);
            jl__strbuf_printf(&b, " |\n");
        }
    } else {
        jl__strbuf_printf(&b, "No grid intensity given (--grid-intensity): no carbon figures.\n");
    }
    jl__strbuf_printf(&b, "\n## Provenance\n\n");
    if (o->provenance) {
        const json_t *cmd = json_object_get(o->provenance, "command");
        jl__strbuf_printf(&b, "Made by `");
        for (size_t i = 0; i < json_array_size(cmd); i++)
            jl__strbuf_printf(&b, "%s%s", i ? " " : "", json_string_value(json_array_get(cmd, i)));
        jl__strbuf_printf(
            &b, "` from %zu input files (SHA-256 in the JSON documents' provenance blocks)",
            json_array_size(json_object_get(o->provenance, "inputs")));
        if (o->provenance_sha256)
            jl__strbuf_printf(&b, "; provenance hash `%s`", o->provenance_sha256);
        jl__strbuf_printf(
            &b, ". The figures are those of `joules label --json` and `joules emissions --json` "
                "on the same inputs, whose documents `joules verify` re-derives.\n");
    } else {
        jl__strbuf_printf(&b, "No provenance recorded.\n");
    }
    return jl__strbuf_take(&b);
}
