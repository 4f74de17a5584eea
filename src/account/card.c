/* Energy cards: Markdown with YAML front matter (docs/accounting.md,
 * "Cards"). Inference figures go under their own key (joules_energy) and
 * in the body; the Hugging Face key co2_eq_emissions, which is meant for
 * training emissions, only carries the training or fine-tuning emissions
 * the card's author declares. */
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

/* a number or "-" (Markdown), or "null" (YAML) */
static void num(jl__strbuf *b, int digits, double v)
{
    if (isfinite(v))
        jl__strbuf_printf(b, "%.*g", digits, v);
    else
        jl__strbuf_printf(b, "-");
}

static void ynum(jl__strbuf *b, int digits, double v)
{
    if (isfinite(v))
        jl__strbuf_printf(b, "%.*g", digits, v);
    else
        jl__strbuf_printf(b, "null");
}

static const jl_run_emissions *em_of(const jl_emissions_result *em, size_t run)
{
    for (size_t i = 0; em && i < em->n; i++)
        if (em->runs[i].run == run && !em->runs[i].error)
            return &em->runs[i];
    return NULL;
}

static void hardware(jl__strbuf *b, const jl_label *x)
{
    jl__strbuf_printf(b, "%ld x %s", x->num_gpus, x->gpu_model ? x->gpu_model : "?");
}

static void boundary_words(jl__strbuf *b, const jl_label *x)
{
    jl__strbuf_printf(b, "%s, %s", jl_scope_words(x->counted.boundary.scope),
                      jl_window_words(x->counted.boundary.window));
}

/* What each row's energy left out (docs/accounting.md): the energy outside
 * the window counted, a wider scope measured but not counted, the scopes
 * not measured; a line per configuration. */
static void left_out(jl__strbuf *b, const jl_label_set *ls)
{
    jl__strbuf_printf(b, "\nLeft out of the energy counted:\n\n");
    for (size_t i = 0; i < ls->n; i++) {
        const jl_counted *c = &ls->items[i].counted;
        jl__strbuf_printf(b, "- %s on ", ls->items[i].task);
        hardware(b, &ls->items[i]);
        jl__strbuf_puts(b, ": ");
        if (c->boundary.window == JL_WINDOW_RUN)
            jl__strbuf_puts(b, "nothing outside the window (the whole run)");
        else if (isfinite(c->outside_window_j))
            jl__strbuf_printf(b, "%.4g Wh outside the %s (%.3g %% of the run's)",
                              c->outside_window_j / 3600, jl_window_words(c->boundary.window),
                              c->energy_j + c->outside_window_j > 0
                                  ? 100 * c->outside_window_j / (c->energy_j + c->outside_window_j)
                                  : 0.0);
        else
            jl__strbuf_printf(b,
                              "the energy outside the %s (not known: the source published no "
                              "whole-run energy)",
                              jl_window_words(c->boundary.window));
        if (c->wider < JL_SCOPE_COUNT && isfinite(c->wider_j))
            jl__strbuf_printf(b, "; %.4g Wh measured at %s scope, not counted (--scope)",
                              c->wider_j / 3600, jl_scope_words(c->wider));
        if (c->not_measured)
            jl__strbuf_printf(b, "; not measured: %s%s%s power",
                              c->not_measured & (1u << JL_SCOPE_HOST) ? "host (CPU, DRAM)" : "",
                              (c->not_measured & (1u << JL_SCOPE_HOST)) &&
                                      (c->not_measured & (1u << JL_SCOPE_NODE))
                                  ? " and "
                                  : "",
                              c->not_measured & (1u << JL_SCOPE_NODE) ? "node (AC at the wall)"
                                                                      : "");
        jl__strbuf_puts(b, ".\n");
    }
}

/* The front matter: co2_eq_emissions when declared, then every
 * configuration's inference figures. */
static void front_matter(jl__strbuf *b, const jl_label_set *ls, const jl_summary_list *runs,
                         const jl_emissions_result *em, const jl_card_options *o, const char *model)
{
    jl__strbuf_printf(b, "---\n");
    if (o->training_type && isfinite(o->training_g_co2eq)) {
        jl__strbuf_printf(b, "co2_eq_emissions:\n  emissions: %.6g\n  source: \"",
                          o->training_g_co2eq);
        yq(b, o->training_source ? o->training_source : "declared by the card's author");
        jl__strbuf_printf(b, "\"\n  training_type: \"");
        yq(b, o->training_type);
        jl__strbuf_printf(b, "\"\n");
        if (o->location) {
            jl__strbuf_printf(b, "  geographical_location: \"");
            yq(b, o->location);
            jl__strbuf_printf(b, "\"\n");
        }
        if (o->training_hardware) {
            jl__strbuf_printf(b, "  hardware_used: \"");
            yq(b, o->training_hardware);
            jl__strbuf_printf(b, "\"\n");
        }
    }
    jl__strbuf_printf(b, "joules_energy:\n  model: \"");
    yq(b, model);
    jl__strbuf_printf(b, "\"\n  kind: \"inference\"\n  joules_version: \"%s\"\n", jl_version());
    if (o->location) {
        jl__strbuf_printf(b, "  geographical_location: \"");
        yq(b, o->location);
        jl__strbuf_printf(b, "\"\n");
    }
    if (em && o->carbon_text) {
        jl__strbuf_printf(b, "  carbon_assumptions: \"");
        yq(b, o->carbon_text);
        jl__strbuf_printf(b, "\"\n");
    }
    jl__strbuf_printf(b, "  configurations:\n");
    for (size_t i = 0; i < ls->n; i++) {
        const jl_label *x = &ls->items[i];
        const jl_summary *s = runs->items[x->run];
        const jl_run_emissions *e = em_of(em, x->run);
        jl__strbuf_printf(b, "    - task: \"");
        yq(b, x->task);
        jl__strbuf_printf(b, "\"\n      hardware: \"");
        hardware(b, x);
        jl__strbuf_printf(b, "\"\n      max_batch_size: ");
        if (!x->cap_unknown)
            jl__strbuf_printf(b, "%ld", s->attrs.max_batch_size);
        else
            jl__strbuf_printf(b, "null");
        jl__strbuf_printf(b, "\n      precision: \"");
        yq(b, s->attrs.precision);
        jl__strbuf_printf(b, "\"\n      boundary: {window: \"%s\", scope: \"%s\"}\n",
                          jl_window_name(x->counted.boundary.window),
                          jl_scope_name(x->counted.boundary.scope));
        jl__strbuf_printf(b, "      wh_per_1000_queries: ");
        ynum(b, 6, x->wh_per_1000);
        jl__strbuf_printf(b, "\n      gpu_wh_per_1000_queries: ");
        ynum(b, 6, x->gpu_wh_per_1000);
        jl__strbuf_printf(b, "\n      energy_per_token_j: ");
        ynum(b, 6, x->counted.per_token_j);
        jl__strbuf_printf(b, "\n      steady_energy_per_token_j: ");
        ynum(b, 6, s->fig[JL_FIG_ENERGY_PER_TOKEN_J]);
        jl__strbuf_printf(b, "\n      prefill_marginal_energy_share: ");
        ynum(b, 4, s->fig[JL_FIG_PREFILL_MARGINAL_ENERGY_SHARE]);
        jl__strbuf_printf(b, "\n      prefill_marginal_energy_share_interval: [");
        ynum(b, 4, s->fig[JL_FIG_PREFILL_MARGINAL_ENERGY_SHARE_LO]);
        jl__strbuf_printf(b, ", ");
        ynum(b, 4, s->fig[JL_FIG_PREFILL_MARGINAL_ENERGY_SHARE_HI]);
        jl__strbuf_printf(b, "]\n      size_class: ");
        if (x->size_class[0])
            jl__strbuf_printf(b, "\"%s\"", x->size_class);
        else
            jl__strbuf_printf(b, "null");
        if (x->stars)
            jl__strbuf_printf(b, "\n      stars: %d\n      stars_among: %zu\n", x->stars,
                              x->task_models);
        else /* alone in its group: not rated */
            jl__strbuf_printf(b, "\n      stars: null\n      stars_among: %zu\n", x->task_models);
        if (e) {
            jl__strbuf_printf(b, "      g_co2eq_per_1000_queries: ");
            ynum(b, 6, e->g_per_request[0] * 1000);
            jl__strbuf_printf(b, "\n");
        }
    }
    if (o->provenance_sha256)
        jl__strbuf_printf(b, "  provenance_sha256: \"%s\"\n", o->provenance_sha256);
    jl__strbuf_printf(b, "---\n\n");
}

char *jl_card_markdown(const jl_label_set *ls, const jl_summary_list *runs,
                       const jl_emissions_result *em, const jl_card_options *o)
{
    jl__strbuf b;
    jl__strbuf_init(&b);
    const char *model = ls->n ? ls->items[0].model : "?";
    front_matter(&b, ls, runs, em, o, model);
    jl__strbuf_printf(&b, "# Energy card: %s\n\n", model);
    jl__strbuf_printf(
        &b,
        "Measured with joules %s from power traces: inference energy (the `joules_energy` "
        "metadata). Per task and hardware, the configuration of least energy per request%s%s%s, "
        "at the boundary named in each row (by default the whole run at the widest scope "
        "measured). Stars follow the AI Energy Score's rules: five equal bands of the range of "
        "the labels of the same task, GPU model and size class in the data this card was made "
        "from, nothing else.\n\n",
        jl_version(), o->slo_text ? " that meets " : "", o->slo_text ? o->slo_text : "",
        o->slo_text ? "" : " (no SLO)");
    if (!(o->training_type && isfinite(o->training_g_co2eq)))
        jl__strbuf_printf(&b, "No training or fine-tuning emissions are declared "
                              "(`co2_eq_emissions`, the Hub's key for them, is left out).\n\n");
    else
        jl__strbuf_printf(&b,
                          "Training emissions (%s, declared): %.6g gCO2eq, in "
                          "`co2_eq_emissions`; the inference figures below are separate.\n\n",
                          o->training_type, o->training_g_co2eq);
    jl__strbuf_printf(
        &b, "| task | hardware | batch cap | precision | energy counted | Wh / 1,000 queries | "
            "J / token | J / token (steady state, GPU) | J / request | prefill share (marginal, "
            "95 %% interval) | energy share of iterations holding prompt tokens | static share | "
            "avg W | peak W | class | stars |\n"
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < ls->n; i++) {
        const jl_label *x = &ls->items[i];
        const jl_summary *s = runs->items[x->run];
        jl__strbuf_printf(&b, "| %s | ", x->task);
        hardware(&b, x);
        if (!x->cap_unknown)
            jl__strbuf_printf(&b, " | %ld | ", s->attrs.max_batch_size);
        else
            jl__strbuf_printf(&b, " | none known | ");
        jl__strbuf_printf(&b, "%s | ", s->attrs.precision ? s->attrs.precision : "-");
        boundary_words(&b, x);
        jl__strbuf_printf(&b, " | %.4g | ", x->wh_per_1000);
        num(&b, 4, x->counted.per_token_j);
        jl__strbuf_printf(&b, " | ");
        num(&b, 4, s->fig[JL_FIG_ENERGY_PER_TOKEN_J]);
        jl__strbuf_printf(&b, " | ");
        num(&b, 4, x->counted.per_request_j);
        jl__strbuf_printf(&b, " | ");
        num(&b, 3, s->fig[JL_FIG_PREFILL_MARGINAL_ENERGY_SHARE]);
        if (isfinite(s->fig[JL_FIG_PREFILL_MARGINAL_ENERGY_SHARE_LO])) {
            jl__strbuf_printf(&b, " [");
            num(&b, 3, s->fig[JL_FIG_PREFILL_MARGINAL_ENERGY_SHARE_LO]);
            jl__strbuf_printf(&b, ", ");
            num(&b, 3, s->fig[JL_FIG_PREFILL_MARGINAL_ENERGY_SHARE_HI]);
            jl__strbuf_printf(&b, "]");
        }
        jl__strbuf_printf(&b, " | ");
        num(&b, 3, s->fig[JL_FIG_PREFILL_ENERGY_SHARE]);
        jl__strbuf_printf(&b, " | ");
        num(&b, 3, s->fig[JL_FIG_STATIC_ENERGY_SHARE]);
        jl__strbuf_printf(&b, " | ");
        num(&b, 4, s->fig[JL_FIG_AVG_POWER_W]);
        jl__strbuf_printf(&b, " | ");
        num(&b, 4, s->fig[JL_FIG_PEAK_POWER_W]);
        if (s->peak_power_kind && !strcmp(s->peak_power_kind, "average_1s"))
            jl__strbuf_printf(&b, " (1-s average)");
        if (x->stars)
            jl__strbuf_printf(&b, " | %s | %d of 5 (of %zu) |\n",
                              x->size_class[0] ? x->size_class : "-", x->stars, x->task_models);
        else
            jl__strbuf_printf(&b, " | %s | not rated (alone) |\n",
                              x->size_class[0] ? x->size_class : "-");
    }
    jl__strbuf_printf(
        &b, "\nJ / token (steady state, GPU), average and peak W and both prefill shares cover "
            "the steady-state window at power/'s scope (summary.md, \"Every figure and its "
            "boundary\"); the marginal prefill share is the energy prefill adds over "
            "decode-only iterations of the same batch.\n");
    left_out(&b, ls);
    /* host/ (format 1.2): the whole system, where a configuration recorded it */
    int any_host = 0;
    for (size_t i = 0; i < ls->n; i++)
        any_host = any_host || isfinite(runs->items[ls->items[i].run]->fig[JL_FIG_TOTAL_ENERGY_J]);
    if (any_host) {
        jl__strbuf_printf(&b, "\nThe whole system (host/: CPU and DRAM counters, or the node's "
                              "AC power; summary.md, \"The whole system\"), steady state:\n\n"
                              "| task | hardware | GPU J / token | host J / token | total J / "
                              "token | how |\n|---|---|---|---|---|---|\n");
        for (size_t i = 0; i < ls->n; i++) {
            const jl_label *x = &ls->items[i];
            const jl_summary *s = runs->items[x->run];
            jl__strbuf_printf(&b, "| %s | ", x->task);
            hardware(&b, x);
            jl__strbuf_printf(&b, " | ");
            num(&b, 4, s->boundary.scope == JL_SCOPE_GPU ? s->fig[JL_FIG_ENERGY_PER_TOKEN_J] : NAN);
            jl__strbuf_printf(&b, " | ");
            num(&b, 4, s->fig[JL_FIG_HOST_ENERGY_PER_TOKEN_J]);
            jl__strbuf_printf(&b, " | ");
            num(&b, 4, s->fig[JL_FIG_TOTAL_ENERGY_PER_TOKEN_J]);
            jl__strbuf_printf(&b, " | %s |\n",
                              s->boundary.scope == JL_SCOPE_NODE    ? "node AC (power/ is the node)"
                              : !s->host                            ? "no host/"
                              : s->host->method == JL_HOST_NODE_AC  ? "node AC; host = node - GPUs"
                              : s->host->method == JL_HOST_CPU_DRAM ? "GPUs + CPU + DRAM (RAPL)"
                                                                    : "none over the window");
        }
    }
    jl__strbuf_printf(&b,
                      "\n## Calibration and conditions\n\n"
                      "| task | hardware | steady window | energy source | power-sample coverage | "
                      "counter vs integral | peak sampled | median ITL s | file:run |\n"
                      "|---|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < ls->n; i++) {
        const jl_label *x = &ls->items[i];
        const jl_summary *s = runs->items[x->run];
        jl__strbuf_printf(&b, "| %s | ", x->task);
        hardware(&b, x);
        jl__strbuf_printf(&b, " | %s, ", jl_steady_method_name(s->steady_method));
        num(&b, 3, s->fig[JL_FIG_STEADY_DURATION_S]);
        jl__strbuf_printf(&b, " s | %s | ", jl_energy_source_name(s->energy_source));
        num(&b, 3, s->fig[JL_FIG_POWER_SAMPLE_COVERAGE]);
        jl__strbuf_printf(&b, " | ");
        num(&b, 2, s->fig[JL_FIG_ENERGY_SOURCE_DISAGREEMENT]);
        jl__strbuf_printf(&b, " | %s | ", s->peak_power_kind ? s->peak_power_kind : "-");
        num(&b, 4, s->fig[JL_FIG_MEDIAN_ITL_S]);
        jl__strbuf_printf(&b, " | %s:%s |\n", s->file, s->run);
    }
    jl__strbuf_printf(&b, "\nPer-layer and per-operator energy: `joules attribute` on a profiled "
                          "run (the card's traces hold no spans).\n");
    jl__strbuf_printf(&b, "\n## Carbon and facility (inference)\n\n");
    if (em && o->carbon_text) {
        jl__strbuf_printf(
            &b,
            "Assumptions: %s. gCO2eq = the energy counted (each row's boundary) x PUE / 3.6e6 x "
            "intensity, with the intensity and PUE of the times the energy was used "
            "(energy-weighted).\n\n"
            "| task | hardware | energy counted | PUE | gCO2eq/kWh | gCO2eq / request | gCO2eq / "
            "1,000 queries |\n|---|---|---|---|---|---|---|\n",
            o->carbon_text);
        for (size_t i = 0; i < ls->n; i++) {
            const jl_label *x = &ls->items[i];
            const jl_run_emissions *e = em_of(em, x->run);
            jl__strbuf_printf(&b, "| %s | ", x->task);
            hardware(&b, x);
            jl__strbuf_printf(&b, " | ");
            boundary_words(&b, x);
            jl__strbuf_printf(&b, " | ");
            num(&b, 3, e ? e->pue : NAN);
            jl__strbuf_printf(&b, " | ");
            num(&b, 4, e ? e->intensity[0] : NAN);
            jl__strbuf_printf(&b, " | ");
            num(&b, 4, e ? e->g_per_request[0] : NAN);
            jl__strbuf_printf(&b, " | ");
            num(&b, 4, e ? e->g_per_request[0] * 1000 : NAN);
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
