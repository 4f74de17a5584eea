/* pick, compare, precision pairs and capacity on small hand-made sets with
 * known answers: feasible, ties, infeasible (closest and miss), groups
 * without a side, buckets, replicas. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "joules/choice.h"
#include "joules/output.h"
#include "test.h"
#include "test_choice_fixtures.h"

static jl_slo *slo(const char *e)
{
    jl_slo *s = NULL;
    CHECK(jl_slo_parse(e, &s, NULL, NULL) == JL_OK);
    return s;
}

TEST(pick_basic)
{
    jl_summary_list l = {0};
    fx_run(&l, "m", "H100", 1, 8, 0.030, 1.0);
    fx_run(&l, "m", "H100", 1, 64, 0.080, 0.4);
    fx_run(&l, "m", "H100", 2, 128, 0.120, 0.2);
    jl_slo *s = slo("median_itl<=100ms");
    size_t idx[] = {0, 1, 2};
    jl_pick p;
    CHECK(jl_pick_runs(&l, idx, 3, s, NULL, &p, NULL) == JL_OK);
    CHECK_EQ_INT(p.status, JL_PICK_FEASIBLE);
    CHECK_EQ_INT(p.choice, 1);
    CHECK_NEAR(p.energy, 0.4, 0, 0);
    CHECK_EQ_INT(p.n_feasible, 2);
    jl_pick_clear(&p);
    /* no SLO: minimum energy */
    CHECK(jl_pick_runs(&l, idx, 3, NULL, NULL, &p, NULL) == JL_OK);
    CHECK_EQ_INT(p.choice, 2);
    jl_pick_clear(&p);
    /* one-point group */
    CHECK(jl_pick_runs(&l, idx, 1, s, NULL, &p, NULL) == JL_OK);
    CHECK_EQ_INT(p.choice, 0);
    jl_pick_clear(&p);
    /* empty group */
    CHECK(jl_pick_runs(&l, idx, 0, s, NULL, &p, NULL) == JL_OK);
    CHECK_EQ_INT(p.status, JL_PICK_NO_RUNS);
    jl_pick_clear(&p);
    jl_slo_free(s);
    jl_summary_list_clear(&l);
}

TEST(pick_ties)
{
    jl_summary_list l = {0};
    fx_run(&l, "m", "H100", 2, 64, 0.050, 0.4);
    fx_run(&l, "m", "B200", 1, 64, 0.050, 0.4); /* exact tie: config order -> B200 */
    fx_run(&l, "m", "H100", 1, 64, 0.040, 0.4); /* same energy, lower latency: wins */
    size_t idx[] = {0, 1, 2};
    jl_pick p;
    CHECK(jl_pick_runs(&l, idx, 3, NULL, NULL, &p, NULL) == JL_OK);
    CHECK_EQ_INT(p.choice, 2);
    CHECK_EQ_INT(p.n_ties, 2);
    jl_pick_clear(&p);
    CHECK(jl_pick_runs(&l, idx, 2, NULL, NULL, &p, NULL) == JL_OK);
    CHECK_EQ_INT(p.choice, 1);
    CHECK_EQ_INT(p.n_ties, 1);
    CHECK_EQ_INT(p.ties[0], 0);
    jl_pick_clear(&p);
    jl_summary_list_clear(&l);
}

TEST(pick_infeasible)
{
    jl_summary_list l = {0};
    fx_run(&l, "m", "H100", 1, 8, 0.030, 1.0);
    fx_run(&l, "m", "H100", 1, 64, 0.080, 0.4);
    fx_run(&l, "n", "H100", 1, 8, NAN, 1.0); /* no latency: not applicable */
    jl_slo *s = slo("median_itl<=20ms");
    jl_slo *t = slo("median_itl<=20ms,energy<=0.5J");
    size_t idx[] = {0, 1};
    jl_pick p;
    CHECK(jl_pick_runs(&l, idx, 2, s, NULL, &p, NULL) == JL_OK);
    CHECK_EQ_INT(p.status, JL_PICK_INFEASIBLE);
    CHECK_EQ_INT(p.choice, 0); /* closest: 30 ms misses by 50% */
    CHECK_NEAR(p.worst_miss, 0.5, 1e-9, 0);
    jl_pick_clear(&p);
    /* two conditions: 0 misses ITL by 50% and energy by 100%; 1 misses ITL by 300% */
    CHECK(jl_pick_runs(&l, idx, 2, t, NULL, &p, NULL) == JL_OK);
    CHECK_EQ_INT(p.choice, 0);
    CHECK_NEAR(p.worst_miss, 1.0, 1e-9, 0);
    jl_pick_clear(&p);
    size_t only_n[] = {2};
    CHECK(jl_pick_runs(&l, only_n, 1, s, NULL, &p, NULL) == JL_OK);
    CHECK_EQ_INT(p.status, JL_PICK_NOT_APPLICABLE);
    CHECK_EQ_INT(p.choice, -1);
    jl_pick_clear(&p);
    /* pick_all lists every group, infeasible ones included */
    jl_pick_set *ps = NULL;
    const jl_slo *sl[] = {s};
    CHECK(jl_pick_all(&l, sl, 1, NULL, &ps, NULL) == JL_OK);
    CHECK_EQ_INT(ps->n, 2);
    CHECK_EQ_INT(ps->items[0].pick.status, JL_PICK_INFEASIBLE);
    CHECK_EQ_INT(ps->items[1].pick.status, JL_PICK_NOT_APPLICABLE);
    json_t *doc = jl_pick_document(ps, &l);
    json_t *p0 = json_array_get(json_object_get(doc, "picks"), 0);
    CHECK(json_is_false(json_object_get(p0, "feasible")));
    CHECK(json_is_null(json_object_get(p0, "choice")));
    CHECK(json_is_object(json_object_get(p0, "closest")));
    json_t *c0 = json_array_get(json_object_get(p0, "conditions"), 0);
    CHECK_NEAR(json_real_value(json_object_get(c0, "excess")), 0.010, 1e-9, 0);
    json_decref(doc);
    jl_pick_set_free(ps);
    jl_slo_free(s);
    jl_slo_free(t);
    jl_summary_list_clear(&l);
}

TEST(compare_gpu)
{
    jl_summary_list l = {0};
    /* a: both sides feasible, B200 wins by 50% */
    fx_run(&l, "a", "H100", 1, 64, 0.05, 0.4);
    fx_run(&l, "a", "B200", 1, 64, 0.05, 0.2);
    /* b: H100 wins (B200 uses 25% more) */
    fx_run(&l, "b", "H100", 2, 64, 0.05, 0.4);
    fx_run(&l, "b", "B200", 1, 64, 0.05, 0.5);
    /* c: B200 only */
    fx_run(&l, "c", "B200", 1, 64, 0.05, 0.5);
    /* d: B200 infeasible */
    fx_run(&l, "d", "H100", 1, 64, 0.05, 0.5);
    fx_run(&l, "d", "B200", 1, 64, 0.50, 0.1);
    jl_slo *s = slo("median_itl<=100ms");
    const jl_slo *sl[] = {s};
    jl_compare_options o = {"gpu_model", "H100", NULL, 0, {-1, 1e-9}};
    jl_compare_result *r = NULL;
    CHECK(jl_compare(&l, sl, 1, &o, &r, NULL) == JL_OK);
    CHECK_EQ_INT(r->n, 4);
    CHECK_EQ_INT(r->n_counted, 2);
    CHECK_EQ_INT(r->sides[0].wins, 1);
    CHECK_EQ_INT(r->baseline_wins, 1);
    CHECK_NEAR(r->items[0].reduction, 0.5, 1e-12, 0);
    CHECK_NEAR(r->items[1].reduction, -0.25, 1e-12, 0);
    CHECK_NEAR(r->median_reduction, 0.125, 1e-12, 0);
    CHECK_NEAR(r->min_reduction, -0.25, 1e-12, 0);
    CHECK_NEAR(r->max_reduction, 0.5, 1e-12, 0);
    CHECK(!r->items[2].counted);
    CHECK_CONTAINS(r->items[2].reason, "no run with gpu_model=H100");
    CHECK(!r->items[3].counted);
    CHECK_CONTAINS(r->items[3].reason, "no configuration with gpu_model=B200 meets the SLO");
    json_t *doc = jl_compare_document(r, &l);
    json_t *t = json_object_get(doc, "totals");
    CHECK_EQ_INT(json_integer_value(json_object_get(t, "n")), 2);
    CHECK_EQ_INT(json_integer_value(json_object_get(json_object_get(t, "wins"), "B200")), 1);
    json_decref(doc);
    jl_compare_result_free(r);
    /* unknown baseline value: an error naming the values present */
    jl_compare_options bad = {"gpu_model", "A100", NULL, 0, {-1, 1e-9}};
    jl_error *err = NULL;
    CHECK(jl_compare(&l, sl, 1, &bad, &r, &err) == JL_ENODATA);
    CHECK(err && strstr(err->message, "B200, H100"));
    jl_error_free(err);
    jl_slo_free(s);
    jl_summary_list_clear(&l);
}

TEST(compare_precision)
{
    jl_summary_list l = {0};
    jl_summary *a = fx_run(&l, "Org/M", "H100", 8, 16, 0.020, 0.50);
    jl_summary *b = fx_run(&l, "Org/M-FP8", "H100", 8, 16, 0.021, 0.60); /* +20% E, +5% L */
    fx_run(&l, "Org/M", "H100", 8, 8, 0.010, 1.0);
    jl_summary *d = fx_run(&l, "Org/M-FP8", "H100", 8, 8, 0.012, 1.3); /* bs 8: outside (8,16] */
    jl_summary *e = fx_run(&l, "Org/M-FP8", "H100", 8, 64, 0.05, 0.3); /* no twin */
    free(b->attrs.precision);
    b->attrs.precision = strdup("fp8");
    free(d->attrs.precision);
    d->attrs.precision = strdup("fp8");
    free(e->attrs.precision);
    e->attrs.precision = strdup("fp8");
    (void)a;
    double bins[] = {8, 16, 64};
    jl_precision_options o = {"bfloat16", bins, 3, -1, -1};
    jl_precision_result *r = NULL;
    CHECK(jl_compare_precision(&l, &o, &r, NULL) == JL_OK);
    CHECK_EQ_INT(r->n_pairs, 2);
    CHECK_EQ_INT(r->n_unpaired, 1);
    CHECK_EQ_INT(r->n_outside, 1);
    CHECK_EQ_INT(r->buckets[0].energy.n, 1);
    CHECK_NEAR(r->buckets[0].energy.median, 0.2, 1e-12, 0);
    CHECK_NEAR(r->buckets[0].latency.median, 0.05, 1e-12, 0);
    CHECK_EQ_INT(r->buckets[0].energy.wins, 0);
    CHECK_EQ_INT(r->buckets[1].energy.n, 0);
    jl_precision_result_free(r);
    char *base = jl_model_base_id("Qwen/Qwen3-235B-A22B-Instruct-2507-FP8");
    CHECK_STR(base, "Qwen/Qwen3-235B-A22B-Instruct-2507");
    free(base);
    base = jl_model_base_id("nvidia/NVIDIA-Nemotron-Nano-12B-v2-VL-BF16");
    CHECK_STR(base, "nvidia/NVIDIA-Nemotron-Nano-12B-v2-VL");
    free(base);
    jl_summary_list_clear(&l);
}

TEST(capacity)
{
    jl_summary_list l = {0};
    jl_summary *a = fx_run(&l, "m", "H100", 1, 64, 0.05, 0.4);
    a->fig[JL_FIG_AVG_POWER_W] = 600;
    a->fig[JL_FIG_OUTPUT_THROUGHPUT_TOK_S] = 1500; /* 2.5 tok/s/W */
    jl_summary *b = fx_run(&l, "m", "H100", 2, 256, 0.20, 0.25);
    b->fig[JL_FIG_AVG_POWER_W] = 1400;
    b->fig[JL_FIG_OUTPUT_THROUGHPUT_TOK_S] = 5600; /* 4 tok/s/W, too slow for 100 ms */
    jl_slo *s = slo("median_itl<=100ms");
    const jl_slo *sl[] = {s};
    jl_capacity_options o;
    jl_capacity_options_default(&o);
    o.power_budget_w = 10000;
    o.pue = 1.25;
    o.grid_g_per_kwh = 400;
    jl_capacity_result *r = NULL;
    CHECK(jl_capacity(&l, sl, 1, &o, &r, NULL) == JL_OK);
    CHECK_EQ_INT(r->n, 1);
    const jl_capacity_entry *e = &r->items[0];
    CHECK_EQ_INT(e->status, JL_CAP_OK);
    CHECK_EQ_INT(e->choice, 0);
    CHECK_EQ_INT(e->replicas, 13); /* floor(10000 / 750) */
    CHECK_NEAR(e->total_throughput, 13 * 1500.0, 1e-12, 0);
    CHECK_NEAR(e->energy_per_unit_wall_j, 0.5, 1e-12, 0);
    /* 0.5 J/token = 0.5/3.6e6 kWh x 400 g x 1e6 tokens = 55.6 g per million tokens */
    CHECK_NEAR(e->carbon_g_per_million, 0.5 / 3.6e6 * 400 * 1e6, 1e-12, 0);
    jl_capacity_result_free(r);
    /* no SLO: the 2-GPU configuration has the better throughput per watt */
    CHECK(jl_capacity(&l, NULL, 0, &o, &r, NULL) == JL_OK);
    CHECK_EQ_INT(r->items[0].choice, 1);
    CHECK_EQ_INT(r->items[0].replicas, 5);
    jl_capacity_result_free(r);
    /* a budget below one replica */
    o.power_budget_w = 500;
    CHECK(jl_capacity(&l, sl, 1, &o, &r, NULL) == JL_OK);
    CHECK_EQ_INT(r->items[0].status, JL_CAP_EXCEEDS_BUDGET);
    jl_capacity_result_free(r);
    /* an SLO nothing meets */
    jl_slo *t = slo("median_itl<=1ms");
    const jl_slo *tl[] = {t};
    o.power_budget_w = 10000;
    CHECK(jl_capacity(&l, tl, 1, &o, &r, NULL) == JL_OK);
    CHECK_EQ_INT(r->items[0].status, JL_CAP_INFEASIBLE);
    CHECK_EQ_INT(r->items[0].closest.choice, 0);
    jl_capacity_result_free(r);
    jl_slo_free(t);
    jl_slo_free(s);
    jl_summary_list_clear(&l);
}

/* path's whole text (the caller frees it) */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0, cap = 0, n;
    char chunk[4096];
    while (f && (n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (len + n + 1 > cap) {
            cap = 2 * (len + n + 1);
            buf = realloc(buf, cap);
        }
        memcpy(buf + len, chunk, n);
        len += n;
    }
    if (f)
        fclose(f);
    if (buf)
        buf[len] = '\0';
    return buf;
}

/* The text a writer wrote equals jl_json_dump of the tree with "errors". */
static void check_text_equals_tree(json_t *doc, const jl_error_list *errors, const char *path)
{
    CHECK(doc != NULL);
    json_object_set_new(doc, "errors", jl_errors_to_json(errors));
    char *want = jl_json_dump(doc), *got = slurp(path);
    CHECK(want && got);
    if (want && got)
        CHECK_STR(got, want);
    free(want);
    free(got);
    json_decref(doc);
    unlink(path);
}

/* pick --json and compare --json write their documents without a tree:
 * the same bytes as the tree, on feasible, infeasible, not applicable and
 * tied picks, NaN figures, escapes in attributes, a missing GPU model,
 * held attributes (one repeated), node-AC sides, with and without errors
 * and SLOs. */
TEST(json_text_equals_tree)
{
    jl_summary_list l = {0};
    jl_summary *s = fx_run(&l, "m", "H100", 1, 8, 0.030, 1.0);
    jl_attrs_add_extra(&s->attrs, "alpha \"q\"\tkey", "tab\there", 0);
    jl_attrs_add_extra(&s->attrs, "zeta", "1.5", 1);
    jl_summary_warn(s, "rule_x", "a warning with a newline\n");
    fx_run(&l, "m", "H100", 1, 64, 0.080, 0.4);
    fx_run(&l, "m", "B200", 1, 64, 0.080, 0.4); /* ties the one before */
    fx_run(&l, "n", "H100", 1, 8, NAN, 1.0);    /* not applicable */
    fx_run(&l, "n", "B200", 1, 8, 0.01, NAN);
    s = fx_run(&l, "o", "H100", 2, 32, 0.02, 0.3);
    free(s->attrs.gpu_model);
    s->attrs.gpu_model = NULL;
    s = fx_run(&l, "m", "B200", 1, 8, 0.01, 0.2);
    jl_attrs_add_extra(&s->attrs, "power_scope", "node_ac", 0); /* a second side "B200" */
    fx_run(&l, "o", "B200", 2, 32, 0.02, 0.3);
    jl_slo *s1 = slo("median_itl<=20ms");
    jl_slo *s2 = slo("median_itl<=100ms,energy<=0.5J");
    const jl_slo *sl[] = {s1, s2};
    jl_error_list errors = {0};
    jl_error_list_push(&errors, jl_error_new(JL_EINVALID, "bad.h5", "run1", "/runs/run1", 3,
                                             "something \"odd\""));
    char path[] = "/tmp/joules_test_choice_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    static const char *const hold[] = {"model", "num_gpus"};
    for (int with_errors = 0; with_errors < 2; with_errors++)
        for (size_t n_slos = 0; n_slos <= 2; n_slos++) {
            const jl_error_list *el = with_errors ? &errors : NULL;
            jl_pick_set *ps = NULL;
            CHECK(jl_pick_all(&l, sl, n_slos, NULL, &ps, NULL) == JL_OK);
            CHECK(jl_write_pick_json(path, ps, &l, el, NULL) == JL_OK);
            check_text_equals_tree(jl_pick_document(ps, &l), el, path);
            jl_pick_set_free(ps);
            for (size_t n_hold = 0; n_hold <= 2; n_hold += 2) {
                jl_compare_options o = {"gpu_model", "H100", hold, n_hold, {-1, 1e-9}};
                jl_compare_result *r = NULL;
                CHECK(jl_compare(&l, sl, n_slos, &o, &r, NULL) == JL_OK);
                CHECK(jl_write_compare_json(path, r, &l, el, NULL) == JL_OK);
                check_text_equals_tree(jl_compare_document(r, &l), el, path);
                jl_compare_result_free(r);
            }
        }
    jl_error_list_clear(&errors);
    jl_slo_free(s1);
    jl_slo_free(s2);
    jl_summary_list_clear(&l);
}

int main(void)
{
    RUN(pick_basic);
    RUN(pick_ties);
    RUN(pick_infeasible);
    RUN(compare_gpu);
    RUN(compare_precision);
    RUN(capacity);
    RUN(json_text_equals_tree);
    TEST_MAIN_END();
}
