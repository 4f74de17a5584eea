/* Spec 1.1 "summary/ beside time series" on real data: the ML.ENERGY
 * Leaderboard as of 2026-01-01 (JOULES_SHARED_DIR/data/mlenergy-2026-01-01,
 * never copied into the repository). Its Nemotron video-chat file carries
 * published figures and timelines for 10 configurations. Checked here,
 * against the JSON read independently with jansson:
 *   - every published figure reaches the summary exact to the bit, through
 *     the import, an HDF5 file, the reader, the summary and the worker
 *     processes' wire format (the documented unit conversions only: ms -> s
 *     x 1e-3, percent -> share / 100);
 *   - the window is the whole span of the power timeline (@window =
 *     steady_state_only), and the recomputed energy per token is the
 *     trapezoid integral of power_instant over its span / span / published
 *     throughput, computed here from the JSON;
 *   - each such figure is listed as a disagreement; the batch_limit verdict
 *     is upstream with the published KV use as evidence.
 * Exit 77 (skipped) when the data is absent. */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "joules/ceiling.h"
#include "joules/import.h"
#include "joules/study.h"
#include "joules/summary.h"
#include "joules/trace_write.h"
#include "test.h"

#define DIR2026 JOULES_SHARED_DIR "/data/mlenergy-2026-01-01"
#define NEMOTRON DIR2026 "/models/nvidia__NVIDIA-Nemotron-Nano-12B-v2-VL-BF16__video-chat.json"

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

#define CHECK_BITS(a, b)                                                                         \
    do {                                                                                         \
        double jb_a = (a), jb_b = (b);                                                           \
        jt_checks++;                                                                             \
        if (!same_bits(jb_a, jb_b)) {                                                            \
            jt_failures++;                                                                       \
            fprintf(stderr, "%s:%d: [%s] not the same bits: %s = %.17g, %s = %.17g\n", __FILE__, \
                    __LINE__, jt_current, #a, jb_a, #b, jb_b);                                   \
        }                                                                                        \
    } while (0)

static double num(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static const jl_summary *find(const jl_summary_list *l, long cap)
{
    for (size_t i = 0; i < l->count; i++) {
        const jl_summary *s = l->items[i];
        if (s->attrs.task && !strcmp(s->attrs.task, "video-chat") && s->attrs.model &&
            strstr(s->attrs.model, "Nemotron") && s->attrs.max_batch_size == cap)
            return s;
    }
    return NULL;
}

/* The trapezoid integral of a {timestamps, values} timeline over its span. */
static double integral(const json_t *tl, double *t0, double *t1)
{
    const json_t *ts = json_object_get(tl, "timestamps"), *vs = json_object_get(tl, "values");
    size_t n = json_array_size(ts);
    double e = 0;
    for (size_t i = 1; i < n; i++)
        e += 0.5 *
             (json_number_value(json_array_get(vs, i - 1)) +
              json_number_value(json_array_get(vs, i))) *
             (json_number_value(json_array_get(ts, i)) -
              json_number_value(json_array_get(ts, i - 1)));
    *t0 = json_number_value(json_array_get(ts, 0));
    *t1 = json_number_value(json_array_get(ts, n - 1));
    return e;
}

static void check_list(const jl_summary_list *l, const json_t *cfgs, const char *how)
{
    fprintf(stderr, "  %s: %zu runs\n", how, l->count);
    size_t seen = 0;
    for (size_t i = 0; i < json_array_size(cfgs); i++) {
        const json_t *cfg = json_array_get(cfgs, i);
        long cap = (long)num(cfg, "max_num_seqs");
        const jl_summary *s = find(l, cap);
        CHECK(s != NULL);
        if (!s)
            continue;
        seen++;
        const double *f = s->fig;
        CHECK(s->published != NULL);
        if (!s->published)
            continue;
        const double *p = s->published->fig, *rc = s->published->recomputed;
        CHECK_STR(s->published->source, "ML.ENERGY Leaderboard");
        /* the published figures are the headline, to the bit */
        double ept = num(cfg, "energy_per_token_joules"),
               thr = num(cfg, "output_throughput_tokens_per_sec");
        CHECK_BITS(f[JL_FIG_ENERGY_PER_TOKEN_J], ept);
        CHECK_BITS(p[JL_FIG_ENERGY_PER_TOKEN_J], ept);
        CHECK_BITS(f[JL_FIG_ENERGY_PER_REQUEST_J], num(cfg, "energy_per_request_joules"));
        CHECK_BITS(f[JL_FIG_OUTPUT_THROUGHPUT_TOK_S], thr);
        CHECK_BITS(f[JL_FIG_AVG_BATCH_SIZE], num(cfg, "avg_batch_size"));
        CHECK_BITS(p[JL_FIG_AVG_BATCH_SIZE], num(cfg, "avg_batch_size"));
        CHECK_BITS(f[JL_FIG_AVG_KV_CACHE_USAGE], num(cfg, "kv_cache_usage_percent") / 100.0);
        CHECK_BITS(f[JL_FIG_MEDIAN_ITL_S], num(cfg, "median_itl_ms") * 1e-3);
        CHECK_BITS(f[JL_FIG_P95_ITL_S], num(cfg, "p95_itl_ms") * 1e-3);
        CHECK_BITS(f[JL_FIG_TOKENS_PER_JOULE], 1.0 / ept);
        /* the window: the whole span of power_instant */
        const json_t *pi = json_object_get(json_object_get(cfg, "timelines"), "power_instant");
        double t0, t1, e = integral(pi, &t0, &t1);
        CHECK_STR(jl_steady_method_name(s->steady_method), "source");
        CHECK_BITS(f[JL_FIG_STEADY_START_S], t0);
        CHECK_BITS(f[JL_FIG_STEADY_END_S], t1);
        CHECK_NEAR(f[JL_FIG_STEADY_ENERGY_J], e, 1e-12, 0);
        CHECK(isnan(f[JL_FIG_OUTSIDE_ENERGY_SHARE])); /* the whole run is not in the series */
        /* recomputed: the series' energy over the published throughput */
        double rept = e / (t1 - t0) / thr;
        CHECK_NEAR(rc[JL_FIG_ENERGY_PER_TOKEN_J], rept, 1e-12, 0);
        CHECK(rc[JL_FIG_ENERGY_PER_TOKEN_J] > 5.3 && rc[JL_FIG_ENERGY_PER_TOKEN_J] < 6.6);
        CHECK(isfinite(rc[JL_FIG_AVG_BATCH_SIZE]));
        jl_disagreement d[JL_FIG_COUNT];
        size_t nd = jl_summary_disagreements(s, d);
        CHECK_EQ_INT(nd, 2);
        if (nd == 2) {
            CHECK_EQ_INT(d[0].figure, JL_FIG_ENERGY_PER_TOKEN_J);
            CHECK_BITS(d[0].published, ept);
            CHECK_NEAR(d[0].relative_difference, (rept - ept) / ept, 1e-12, 0);
            CHECK_EQ_INT(d[1].figure, JL_FIG_AVG_BATCH_SIZE);
        }
        /* the batch far below the cap, the KV cache nearly empty: upstream */
        jl_batch_ceiling c;
        CHECK(jl_batch_ceiling_run(s, NULL, NULL, &c) == JL_OK);
        CHECK_EQ_INT(c.limit, JL_BATCH_LIMIT_UPSTREAM);
        CHECK_STR(c.kv_source, "published");
        CHECK_CONTAINS(c.evidence, "neither the cap nor memory binds");
        jl_batch_ceiling_clear(&c);
    }
    CHECK_EQ_INT(seen, 10);
}

TEST(nemotron_published_beside_series)
{
    json_error_t je;
    json_t *doc = json_load_file(NEMOTRON, 0, &je);
    CHECK(doc != NULL);
    if (!doc)
        return;
    const json_t *cfgs = json_object_get(doc, "configurations");
    CHECK_EQ_INT(json_array_size(cfgs), 10);
    jl_import_result *r = NULL;
    jl_error_list errs = {0};
    CHECK(jl_import_mlenergy(DIR2026, NULL, &r, &errs) == JL_OK);
    CHECK_EQ_INT(errs.count, 0);
    jl_error_list_clear(&errs);
    if (!r) {
        json_decref(doc);
        return;
    }
    CHECK_EQ_INT(r->n_with_timelines, 10);
    const char *path = JOULES_BINARY_DIR "/tests/mlenergy-2026-01-01.h5";
    jl_trace_write_options wo;
    jl_trace_write_options_default(&wo);
    /* float64 watts so that the series integrate exactly as in the JSON
     * (`joules import` writes float32: about 1e-8 relative) */
    wo.watts_float32 = 0;
    jl_error *err = NULL;
    CHECK(jl_trace_write(path, (const jl_run *const *)r->runs, r->n_runs, &wo, &err) == JL_OK);
    jl_error_free(err);
    jl_import_result_free(r);
    /* in this process, and through two worker processes (the wire format) */
    for (int workers = 0; workers <= 2; workers += 2) {
        jl_study_options so;
        jl_study_options_default(&so);
        so.isolate = workers > 0;
        so.workers = workers > 0 ? workers : 1;
        jl_summary_list l = {0};
        const char *paths[] = {path};
        CHECK(jl_study_load(paths, 1, &so, &l, &errs) == JL_OK);
        CHECK_EQ_INT(errs.count, 0);
        jl_error_list_clear(&errs);
        check_list(&l, cfgs, workers ? "two workers" : "in process");
        jl_summary_list_clear(&l);
    }
    unlink(path);
    json_decref(doc);
}

int main(void)
{
    if (access(NEMOTRON, R_OK) != 0) {
        printf("SKIP: %s is missing (public data beside the checkout, never committed)\n",
               NEMOTRON);
        return 77;
    }
    RUN(nemotron_published_beside_series);
    fprintf(stderr, "%d checks, %d failed\n", jt_checks, jt_failures);
    return jt_failures ? 1 : 0;
}
