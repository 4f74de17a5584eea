/* What-if intervals outside the data (docs/model.md "Thin evidence"): the
 * stated rules that widen an interval where the evidence is thin (few pairs,
 * a GPU pair never seen, extrapolated caps) on a synthetic world, and the
 * coverage on the bundled traces: each GPU's runs of the 8B sweep predicted
 * from the other GPU's with that model held out of the factors, beside the
 * ML.ENERGY data (all of it, and only one other model: the thin case), which
 * is public data beside the checkout (skipped without it). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "joules/ceiling.h"
#include "joules/descriptors.h"
#include "joules/import.h"
#include "joules/model.h"
#include "joules/study.h"
#include "model/model_internal.h"
#include "test.h"
#include "test_model_fixtures.h"

/* One sweep (caps 8..256, one GPU) of a model whose step is a per-model
 * overhead plus weights streamed at the GPU's bandwidth. */
static void sweep(jl_summary_list *l, const char *model, int m, const char *gpu, double bw)
{
    for (long cap = 8; cap <= 256; cap *= 2) {
        double b = 0.95 * (double)cap, ov = 0.004 * (1 + 0.3 * (double)(m % 3));
        double tau = ov * (1 + 0.01 * (double)cap) + 2e9 * (double)(1 + m) / bw;
        double P =
            (bw > 4e12 ? 1.2 + 0.05 * (double)(m % 2) : 1.0) * (300 + 40 * log2((double)cap));
        jl_summary *s = jl_summary_new();
        s->file = jl__strdup("synthetic.h5");
        s->run = jl__asprintf("%s_%s_b%ld", model, gpu, cap);
        s->attrs.workload = jl__strdup("llm");
        s->attrs.model = jl__strdup(model);
        s->attrs.task = jl__strdup("chat");
        s->attrs.gpu_model = jl__strdup(gpu);
        s->attrs.precision = jl__strdup("bfloat16");
        s->attrs.num_gpus = 1;
        s->attrs.max_batch_size = cap;
        s->fig[JL_FIG_AVG_BATCH_SIZE] = b;
        s->fig[JL_FIG_AVG_POWER_W] = P;
        s->fig[JL_FIG_OUTPUT_THROUGHPUT_TOK_S] = b / tau;
        s->fig[JL_FIG_ENERGY_PER_TOKEN_J] = P * tau / b;
        s->fig[JL_FIG_AVG_OUTPUT_TOKENS] = 500;
        jl_summary_list_push(l, s);
    }
}

/* What the what-if of model t (synthetic/t: a model the descriptors do not
 * know) on H200, measured on H100 only, says when n_other models are measured
 * on H100 and B200 and h200_pairs more (at most 3) on H100 and H200. */
static void predict_t(const char *t, size_t n_other, int h200_pairs, const jl_descriptors *d,
                      jl_summary_list *l, jl_model_group_list *gl, jl_whatif *w)
{
    static const char *const names[] = {"synthetic/a", "synthetic/b", "synthetic/c",
                                        "synthetic/d", "synthetic/e", "synthetic/f"};
    static const char *const paired[] = {"synthetic/p", "synthetic/q", "synthetic/r"};
    for (size_t m = 0; m < n_other; m++) {
        sweep(l, names[m], (int)m, "H100", 3.35e12);
        sweep(l, names[m], (int)m, "B200", 8e12);
    }
    for (int m = 0; m < h200_pairs && m < 3; m++) {
        sweep(l, paired[m], 2 + m, "H100", 3.35e12);
        sweep(l, paired[m], 2 + m, "H200", 4.8e12);
    }
    sweep(l, t, 1, "H100", 3.35e12);
    CHECK(jl_model_groups(l, gl, NULL) == JL_OK);
    long caps[] = {8, 64, 1024};
    jl_error *err = NULL;
    jl_group_key target = {(char *)t, "chat", "H200", 1, "bfloat16"};
    jl_status st = jl_whatif_predict(gl, d, &target, JL_TRANSFER_NONE, caps, 3, w, &err);
    if (st != JL_OK)
        fprintf(stderr, "  what-if: %s\n", err ? err->message : "?");
    CHECK(st == JL_OK);
    jl_error_free(err);
}

TEST(thin_evidence_widens_by_the_stated_rules)
{
    jl_descriptors *d = mx_desc();
    double dm = log(4.8 / 3.35), z = 1.96;
    /* two other models: no calibration (holding one out leaves the other's
     * 12 pairs, too few to learn from), and no model on H100 and H200 */
    jl_whatif w;
    jl_summary_list l = {0};
    jl_model_group_list gl = {0};
    predict_t("synthetic/t", 2, 0, d, &l, &gl, &w);
    CHECK_EQ_INT(w.n_points, 3);
    CHECK_EQ_INT(w.n_gpu_pair, 0);
    CHECK_EQ_INT(w.n_models_kind, 2);
    CHECK_NEAR(w.gpu_pair_sd, 0.5 * dm, 1e-12, 0);
    for (size_t i = 0; i < w.n_points; i++) {
        const jl_whatif_point *p = &w.points[i];
        CHECK(p->calibrated == 0);
        CHECK(p->widened & JL_WHATIF_WIDE_FEW_PAIRS);
        CHECK(p->widened & JL_WHATIF_WIDE_GPU_PAIR);
        /* at least the floor, then the pair's sd in quadrature (and, at the
         * cap no source measured, the extrapolation's) */
        double h = sqrt(0.35 * 0.35 + z * z * 0.25 * dm * dm);
        const jl_interval *e = &p->energy_per_token_j;
        CHECK(log(e->value / e->lo) >= h - 1e-9 && log(e->hi / e->value) >= h - 1e-9);
        CHECK(!(p->widened & JL_WHATIF_WIDE_EXTRAPOLATED) == !p->extrapolated);
    }
    /* cap 1024, beyond the sources' caps: the extrapolation's sd as well */
    CHECK(w.points[2].extrapolated && w.points[2].widen_sd > w.gpu_pair_sd);
    json_t *doc = jl_whatif_document(&w, &gl);
    json_t *p0 = doc ? json_array_get(json_object_get(doc, "predictions"), 0) : NULL;
    json_t *wide = json_object_get(p0, "interval_widened");
    CHECK(json_array_size(wide) == 2);
    CHECK(!strcmp(json_string_value(json_array_get(wide, 0)), "few_pairs"));
    CHECK(!strcmp(json_string_value(json_array_get(wide, 1)), "gpu_pair_never_seen"));
    CHECK(json_integer_value(json_object_get(doc, "gpu_model_pairs")) == 0);
    json_decref(doc);
    jl_whatif_clear(&w);
    jl_group_list_clear(&gl);
    jl_summary_list_clear(&l);
    /* five other models and one measured on both H100 and H200: calibrated
     * on the held-out groups of five models, the GPU pair seen: no rule
     * applies at the measured caps */
    predict_t("synthetic/t", 5, 1, d, &l, &gl, &w);
    CHECK(w.n_gpu_pair > 0 && w.gpu_pair_sd == 0);
    /* one pair, but no descriptor sizes synthetic/t's weights: the factors */
    CHECK_EQ_INT(w.roofline, 0);
    for (size_t i = 0; i < 2 && i < w.n_points; i++) {
        CHECK(w.points[i].calibrated >= 40);
        CHECK_EQ_INT(w.points[i].widened, 0);
    }
    jl_whatif_clear(&w);
    jl_group_list_clear(&gl);
    jl_summary_list_clear(&l);
    jl_descriptors_free(d);
}

/* H100 -> H200 (the same compute and power limit, 1.43x the bandwidth) of a
 * model the descriptors size (synthetic/Qwen3-1.7B-shape) with fewer than 3
 * other models measured on both: the source's own roofline, the same
 * prediction whatever those few pairs say (issue 39: the bundled 8B's one pair
 * moved the 1.7B's energy by x0.73 where its roofline gives x0.85, and the
 * prediction moved as evidence was added or taken away); with 3, the factors. */
TEST(equal_compute_pair_follows_the_roofline_until_three_models_span_it)
{
    jl_descriptors *d = mx_desc();
    double e[3][3] = {{0}};
    for (int pairs = 0; pairs <= 3; pairs++) {
        jl_whatif w;
        jl_summary_list l = {0};
        jl_model_group_list gl = {0};
        predict_t("synthetic/Qwen3-1.7B-shape", 5, pairs, d, &l, &gl, &w);
        fprintf(stderr, "  %d model(s) on H100 and H200: %zu pair(s) of %zu, %s\n", pairs,
                w.n_gpu_pair, w.n_gpu_pair_models, w.roofline ? "the roofline" : "the factors");
        CHECK_EQ_INT(w.n_gpu_pair_models, pairs);
        CHECK_EQ_INT(w.roofline, pairs < 3);
        json_t *doc = jl_whatif_document(&w, &gl);
        CHECK(json_is_true(json_object_get(doc, "roofline_route")) == (pairs < 3));
        json_decref(doc);
        /* the source: its H100 sweep at the cap (8 and 64: measured); its
         * step streams the weights and the running sequences' KV (each the
         * chat task's input plus half of its 500 output tokens) for a share
         * pm of the step time, which moves by the bandwidth ratio, the power
         * held */
        const jl_model_desc *md = jl_descriptors_model(d, "synthetic/Qwen3-1.7B-shape");
        const jl_gpu_desc *g0 = jl_descriptors_gpu(d, "H100"), *g1 = jl_descriptors_gpu(d, "H200");
        CHECK(md && g0 && g1);
        double bw0 = g0 ? g0->hbm_bandwidth_bytes_s : NAN,
               bw1 = g1 ? g1->hbm_bandwidth_bytes_s : NAN;
        for (size_t i = 0; md && i < 2 && i < w.n_points && pairs < 3; i++) {
            const jl_summary *src = NULL;
            for (size_t g = 0; g < l.count; g++)
                if (jl__str_eq(l.items[g]->attrs.model, "synthetic/Qwen3-1.7B-shape") &&
                    l.items[g]->attrs.max_batch_size == w.points[i].cap)
                    src = l.items[g];
            CHECK(src != NULL);
            if (!src)
                continue;
            double tau = src->fig[JL_FIG_AVG_BATCH_SIZE] / src->fig[JL_FIG_OUTPUT_THROUGHPUT_TOK_S];
            double b = src->fig[JL_FIG_AVG_BATCH_SIZE],
                   ctx = jl_task_default_input_tokens("chat") + 0.5 * 500;
            double kv = b * ctx * md->kv_bytes_per_token * jl__model_window_scale(md, ctx);
            double pm = (md->active_params * md->weight_bytes_per_param + kv) / bw0 / tau;
            double e0 = src->fig[JL_FIG_ENERGY_PER_TOKEN_J],
                   v = w.points[i].energy_per_token_j.value;
            fprintf(stderr, "    cap %ld: %.6g J/token from H100's %.6g (memory share %.3f)\n",
                    w.points[i].cap, v, e0, pm);
            CHECK(pm > 0.05 && pm < 1);
            CHECK_NEAR(v, e0 * (1 - pm + pm * bw0 / bw1), 1e-9, 0);
            CHECK_NEAR(w.points[i].power_w.value, src->fig[JL_FIG_AVG_POWER_W], 1e-9, 0);
            e[pairs][i] = v;
        }
        jl_whatif_clear(&w);
        jl_group_list_clear(&gl);
        jl_summary_list_clear(&l);
    }
    for (int pairs = 1; pairs < 3; pairs++)
        for (size_t i = 0; i < 2; i++)
            CHECK_NEAR(e[pairs][i], e[0][i], 1e-12, 0);
    jl_descriptors_free(d);
}

/* Coverage of the 8B sweep's what-ifs held out (H100 from H200 and the
 * reverse), with the ML.ENERGY runs of `only` (NULL: all) beside. */
static void coverage_of(jl_summary_list *ml, const char *only, const jl_descriptors *d, size_t *n,
                        size_t *covered, double *median_hw, unsigned *flags)
{
    const char *paths[] = {JOULES_SOURCE_DIR "/traces"};
    jl_study_options so;
    jl_study_options_default(&so);
    jl_summary_list l = {0};
    jl_error_list errs = {0};
    CHECK(jl_study_load(paths, 1, &so, &l, &errs) == JL_OK);
    for (size_t i = 0; i < ml->count; i++)
        if (!only || jl__str_eq(ml->items[i]->attrs.model, only)) {
            jl_summary *c = NULL;
            CHECK(jl_summary_copy(ml->items[i], &c) == JL_OK);
            jl_summary_list_push(&l, c);
        }
    jl_model_group_list gl = {0};
    CHECK(jl_model_groups(&l, &gl, NULL) == JL_OK);
    jl_whatif_loo r = {0};
    CHECK(jl__whatif_loo_run(&gl, d, "synthetic/Qwen3-8B-shape", NULL, NULL, &r, NULL) == JL_OK);
    double hw[64], er[2][64];
    size_t ne[2] = {0, 0};
    *n = *covered = 0;
    *flags = ~0u;
    for (size_t i = 0; i < r.count && *n < 64; i++) {
        const jl_whatif_loo_point *p = &r.points[i];
        /* each held-out pair's error, by the GPU predicted (issue 39) */
        int h200 = p->run && jl__str_eq(p->run->attrs.gpu_model, "H200");
        er[h200][ne[h200]++] = p->abs_rel_error;
        CHECK(p->transfer == JL_TRANSFER_GPU_MODEL);
        *covered += p->predicted.lo <= p->actual_energy_per_token_j &&
                    p->actual_energy_per_token_j <= p->predicted.hi;
        hw[(*n)++] = (p->predicted.hi - p->predicted.lo) / 2 / p->predicted.value;
        *flags &= p->widened;
    }
    *median_hw = *n ? jl__model_median(hw, *n) : NAN;
    for (int g = 0; g < 2; g++) {
        double worst = 0;
        for (size_t i = 0; i < ne[g]; i++)
            worst = er[g][i] > worst ? er[g][i] : worst;
        if (ne[g])
            fprintf(stderr, "  8B %s held out (%s beside): median |error| %.1f%%, worst %.1f%%\n",
                    g ? "H200 from H100" : "H100 from H200", only ? only : "ML.ENERGY",
                    100 * jl__model_median(er[g], ne[g]), 100 * worst);
        /* issue 39: within 8 % median (the factors alone: 13.2 % and 16.8 %;
         * the roofline of an unseen pair of equal compute: 3.7 and 2.7 %) */
        CHECK_EQ_INT(ne[g], 9);
        CHECK(ne[g] && jl__model_median(er[g], ne[g]) < 0.08);
    }
    jl_whatif_loo_clear(&r);
    jl_group_list_clear(&gl);
    jl_summary_list_clear(&l);
    jl_error_list_clear(&errs);
}

TEST(bundled_traces_coverage)
{
    SKIP_UNLESS_READABLE(MX_V3 "/index.json");
    jl_import_result *imp = NULL;
    jl_error_list errs = {0};
    jl_summary_list ml = {0};
    CHECK(mx_import_mlenergy(&imp, &errs, &ml) == JL_OK);
    jl_descriptors *d = mx_desc();
    static const char *const only[] = {NULL, "Qwen/Qwen3-14B"};
    for (size_t k = 0; k < 2; k++) {
        size_t n, covered;
        double hw;
        unsigned flags;
        coverage_of(&ml, only[k], d, &n, &covered, &hw, &flags);
        fprintf(stderr,
                "  8B H100 <-> H200 held out, with %s: %zu of %zu covered, median half-width "
                "%.1f%%\n",
                only[k] ? "one other model (Qwen3-14B)" : "the ML.ENERGY data", covered, n,
                100 * hw);
        /* the 9 caps of each GPU predicted from the other GPU's */
        CHECK_EQ_INT(n, 18);
        /* H200 is paired with no other model's H100: said, and widened */
        CHECK(flags & JL_WHATIF_WIDE_GPU_PAIR);
        /* one other model: not calibrated on three models' held-out groups */
        if (only[k])
            CHECK(flags & JL_WHATIF_WIDE_FEW_PAIRS);
        /* honest (before the rules: 15 and 6 of 18, with half-widths of 35
         * and 12 %) and not uselessly wide */
        CHECK(covered >= 16);
        CHECK(hw < 0.6);
    }
    jl_descriptors_free(d);
    jl_summary_list_clear(&ml);
    jl_import_result_free(imp);
    jl_error_list_clear(&errs);
}

/* The median memory ceiling the 8B group on gpu measured (its KV pool and
 * the KV cache's use), and the what-if's for that GPU at G GPUs predicted
 * from the other GPU's group (or, for G = 2, from the same GPU's). */
static void ceilings(const jl_model_group_list *gl, const jl_descriptors *d, jl_whatif_engine *e,
                     const char *gpu, long G, double *measured, double *whatif)
{
    *measured = *whatif = NAN;
    jl_group_key t = {"synthetic/Qwen3-8B-shape", "chat", (char *)gpu, G, "bfloat16"};
    for (size_t i = 0; i < gl->count; i++)
        if (!jl_group_key_cmp(&gl->items[i].key,
                              &(jl_group_key){t.model, t.task, t.gpu_model, 1, t.precision})) {
            jl_group_ceiling g;
            CHECK(jl_group_ceiling_compute(gl->items[i].runs, gl->items[i].n_runs, d, NULL, &g) ==
                  JL_OK);
            *measured = g.memory;
            jl_group_ceiling_clear(&g);
        }
    jl_whatif w;
    jl_error *err = NULL;
    CHECK(jl_whatif_engine_predict(e, &t, JL_TRANSFER_NONE, NULL, 0, &w, &err) == JL_OK);
    jl_error_free(err);
    *whatif = w.memory_ceiling;
    CHECK(!w.memory_assumed);
    jl_whatif_clear(&w);
}

/* A what-if's memory ceiling on other hardware: the KV pool a trace measured
 * on its own GPU scales with the GPU count, and on another GPU model the
 * new GPU's capacity (descriptors) holds sequences of the measured size.
 * It took the source's own pool as it was: 2xH100 at the 1xH100 ceiling,
 * H200 at H100's and H100 at H200's (415 and 813: swapped). */
TEST(whatif_memory_ceiling_on_other_hardware)
{
    SKIP_UNLESS_READABLE(MX_V3 "/index.json");
    jl_import_result *imp = NULL;
    jl_error_list errs = {0};
    jl_summary_list ml = {0};
    CHECK(mx_import_mlenergy(&imp, &errs, &ml) == JL_OK);
    const char *paths[] = {JOULES_SOURCE_DIR "/traces"};
    jl_study_options so;
    jl_study_options_default(&so);
    jl_summary_list l = {0};
    CHECK(jl_study_load(paths, 1, &so, &l, &errs) == JL_OK);
    for (size_t i = 0; i < ml.count; i++) {
        jl_summary *c = NULL;
        CHECK(jl_summary_copy(ml.items[i], &c) == JL_OK);
        jl_summary_list_push(&l, c);
    }
    jl_model_group_list gl = {0};
    CHECK(jl_model_groups(&l, &gl, NULL) == JL_OK);
    jl_descriptors *d = mx_desc();
    jl_whatif_engine *e = NULL;
    CHECK(jl_whatif_engine_new(&gl, d, &e, NULL) == JL_OK);
    double h100, h200, h100_wi, h200_wi, m1, two;
    ceilings(&gl, d, e, "H100", 1, &h100, &h100_wi);
    ceilings(&gl, d, e, "H200", 1, &h200, &h200_wi);
    ceilings(&gl, d, e, "H100", 2, &m1, &two);
    jl_whatif_engine_free(e);
    fprintf(stderr,
            "  8B memory ceiling: H100 measured %.0f, from H200 %.0f; H200 measured %.0f, from "
            "H100 %.0f; 2xH100 %.0f\n",
            h100, h100_wi, h200, h200_wi, two);
    CHECK(two > 1.8 * h100 && two < 3 * h100);
    CHECK(fabs(h100_wi / h100 - 1) < 0.1 && fabs(h200_wi / h200 - 1) < 0.1);
    CHECK(h200_wi > h100_wi);
    jl_descriptors_free(d);
    jl_group_list_clear(&gl);
    jl_summary_list_clear(&l);
    jl_summary_list_clear(&ml);
    jl_import_result_free(imp);
    jl_error_list_clear(&errs);
}

int main(int argc, char **argv)
{
    TEST_ARGS(argc, argv);
    RUN(thin_evidence_widens_by_the_stated_rules);
    RUN(equal_compute_pair_follows_the_roofline_until_three_models_span_it);
    RUN_DATA(bundled_traces_coverage); /* test_model_whatif_data */
    RUN_DATA(whatif_memory_ceiling_on_other_hardware);
    TEST_MAIN_END();
}
