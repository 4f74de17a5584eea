/* Frontier rule on small hand-made sets with known answers: dominated
 * points, exact ties, near-duplicates, missing figures, one-point groups,
 * curves. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>

#include "joules/frontier.h"
#include "joules/output.h"
#include "test.h"
#include "test_choice_fixtures.h"

static jl_frontier_set *compute(jl_summary_list *l, double tol)
{
    jl_frontier_options o;
    jl_frontier_options_default(&o);
    if (tol >= 0)
        o.tolerance = tol;
    jl_frontier_set *fs = NULL;
    CHECK(jl_frontier_compute(l, &o, &fs, NULL) == JL_OK);
    return fs;
}

TEST(dominated_points)
{
    jl_summary_list l = {0};
    fx_run(&l, "m", "H100", 1, 8, 0.010, 1.0);  /* 0: frontier (fastest) */
    fx_run(&l, "m", "H100", 1, 16, 0.020, 0.6); /* 1: frontier */
    fx_run(&l, "m", "H100", 1, 32, 0.030, 0.7); /* 2: dominated by 1 */
    fx_run(&l, "m", "H100", 1, 64, 0.040, 0.3); /* 3: frontier (least energy) */
    fx_run(&l, "m", "H100", 2, 64, 0.020, 0.9); /* 4: same latency as 1, more energy: dominated */
    jl_frontier_set *fs = compute(&l, -1);
    CHECK_EQ_INT(fs->n, 1);
    const jl_frontier *f = &fs->frontiers[0];
    CHECK_EQ_INT(f->n_runs, 5);
    CHECK_EQ_INT(f->n_points, 3);
    CHECK_EQ_INT(f->points[0].run, 0);
    CHECK_EQ_INT(f->points[1].run, 1);
    CHECK_EQ_INT(f->points[2].run, 3);
    CHECK_EQ_INT(f->n_dominated, 2);
    CHECK_EQ_INT(f->dominated[0].run, 4);
    CHECK_EQ_INT(f->dominated[0].by, 1);
    CHECK_EQ_INT(f->dominated[1].run, 2);
    CHECK_EQ_INT(f->dominated[1].by, 1);
    /* curves: (H100, 1) with 4 points in batch order, (H100, 2) with one */
    CHECK_EQ_INT(f->n_curves, 2);
    CHECK_EQ_INT(f->curves[0].num_gpus, 1);
    CHECK_EQ_INT(f->curves[0].n_points, 4);
    CHECK_EQ_INT(f->curves[0].points[2].batch, 32);
    CHECK(!f->curves[0].points[2].on_curve_frontier);
    CHECK(f->curves[0].points[3].on_frontier);
    CHECK_EQ_INT(f->curves[1].n_points, 1);
    CHECK(f->curves[1].points[0].on_curve_frontier);
    CHECK(!f->curves[1].points[0].on_frontier);
    json_t *doc = jl_frontier_document(fs, &l);
    CHECK_STR(json_string_value(json_object_get(doc, "schema")), "joules.frontier/1");
    CHECK_EQ_INT(json_array_size(json_object_get(doc, "curves")), 2);
    json_decref(doc);
    jl_frontier_set_free(fs);
    jl_summary_list_clear(&l);
}

TEST(ties_and_near_duplicates)
{
    jl_summary_list l = {0};
    fx_run(&l, "m", "H100", 2, 16, 0.020, 0.5);               /* 0 */
    fx_run(&l, "m", "B200", 1, 16, 0.020, 0.5);               /* 1: exact tie with 0 */
    fx_run(&l, "m", "H100", 1, 16, 0.020 * (1 + 1e-12), 0.5); /* 2: float noise */
    fx_run(&l, "m", "H100", 1, 32, 0.0202, 0.499);            /* 3: within 2% of 0 */
    jl_frontier_set *fs = compute(&l, -1);
    const jl_frontier *f = &fs->frontiers[0];
    /* default tolerance 1e-9: 0, 1, 2 equivalent; B200 sorts first in the config order */
    CHECK_EQ_INT(f->n_points, 2);
    CHECK_EQ_INT(f->points[0].run, 1);
    CHECK_EQ_INT(f->points[0].n_equivalent, 2);
    CHECK_EQ_INT(f->points[1].run, 3);
    CHECK_EQ_INT(f->n_dominated, 0);
    jl_frontier_set_free(fs);
    /* tolerance 2%: 3 joins them too */
    fs = compute(&l, 0.02);
    f = &fs->frontiers[0];
    CHECK_EQ_INT(f->n_points, 1);
    CHECK_EQ_INT(f->points[0].n_equivalent, 3);
    jl_frontier_set_free(fs);
    /* tolerance 0: float noise is a distinct, dominated point */
    fs = compute(&l, 0);
    f = &fs->frontiers[0];
    CHECK_EQ_INT(f->n_points, 2);
    CHECK_EQ_INT(f->points[0].n_equivalent, 1);
    CHECK_EQ_INT(f->n_dominated, 1);
    CHECK_EQ_INT(f->dominated[0].run, 2);
    jl_frontier_set_free(fs);
    jl_summary_list_clear(&l);
}

TEST(missing_and_single)
{
    jl_summary_list l = {0};
    fx_run(&l, "a", "H100", 1, 8, NAN, 1.0); /* skipped */
    fx_run(&l, "a", "H100", 1, 16, 0.01, 2.0);
    fx_run(&l, "b", "H100", 1, 8, 0.01, 1.0); /* a one-point group */
    jl_frontier_set *fs = compute(&l, -1);
    CHECK_EQ_INT(fs->n, 2);
    CHECK_EQ_INT(fs->frontiers[0].n_points, 1);
    CHECK_EQ_INT(fs->frontiers[0].n_skipped, 1);
    CHECK_EQ_INT(fs->frontiers[0].skipped[0], 0);
    CHECK_STR(fs->frontiers[1].model, "b");
    CHECK_EQ_INT(fs->frontiers[1].n_points, 1);
    jl_frontier_set_free(fs);
    /* another latency figure: p90 missing everywhere -> all skipped */
    jl_frontier_options o;
    jl_frontier_options_default(&o);
    o.latency_figure = JL_FIG_P90_ITL_S;
    CHECK(jl_frontier_compute(&l, &o, &fs, NULL) == JL_OK);
    CHECK_EQ_INT(fs->frontiers[0].n_points, 0);
    CHECK_EQ_INT(fs->frontiers[0].n_skipped, 2);
    jl_frontier_set_free(fs);
    jl_summary_list_clear(&l);
}

TEST(grouping)
{
    jl_summary_list l = {0};
    fx_run(&l, "b", "H100", 8, 8, 0.01, 1.0);
    fx_run(&l, "a", "H100", 1, 8, 0.01, 1.0);
    fx_run(&l, "b", "H100", 10, 8, 0.01, 1.0);
    static const char *const keys[] = {"model", "num_gpus"};
    jl_group_set gs;
    CHECK(jl_group_runs(&l, keys, 2, NULL, &gs, NULL) == JL_OK);
    CHECK_EQ_INT(gs.n, 3);
    CHECK_STR(gs.groups[0].values[0], "a");
    CHECK_STR(gs.groups[1].values[1], "8"); /* numeric order: 8 before 10 */
    CHECK_STR(gs.groups[2].values[1], "10");
    jl_group_set_clear(&gs);
    jl_summary_list_clear(&l);
}

/* The document written without a tree (jl_frontier_document_text, what
 * `joules frontier --json` prints) is byte for byte jl_json_dump of the
 * tree plus "errors": points with every kind of run member (extras, per-GPU
 * arrays, warnings, a diffusion run, a string needing escapes),
 * equivalents, dominated and skipped runs, node AC power, errors. */
TEST(json_text_equals_tree)
{
    jl_summary_list l = {0};
    jl_summary *s = fx_run(&l, "m", "H100", 1, 8, 0.010, 1.0);
    jl_attrs_add_extra(&s->attrs, "zeta", "1.5", 1);
    jl_attrs_add_extra(&s->attrs, "alpha \"quoted\"\tkey", "tab\there", 0);
    jl_attrs_add_extra(&s->attrs, "notnum", "1.5x", 1);
    s->num_gpus = 2;
    s->gpu_energy_j = calloc(2, sizeof(double));
    s->gpu_avg_power_w = calloc(2, sizeof(double));
    s->gpu_energy_j[0] = 123.456789012345;
    s->gpu_energy_j[1] = NAN;
    s->gpu_avg_power_w[0] = 1e-7;
    s->gpu_avg_power_w[1] = 3e21;
    jl_summary_warn(s, "rule_x", "a warning with a newline\n and a %s", "value");
    fx_run(&l, "m", "H100", 1, 16, 0.020, 0.6);
    fx_run(&l, "m", "B200", 1, 16, 0.020, 0.6); /* equivalent */
    fx_run(&l, "m", "H100", 1, 32, 0.030, 0.7); /* dominated */
    fx_run(&l, "m", "H100", 2, 32, NAN, 0.7);   /* skipped */
    s = fx_run(&l, "m", "H100", 1, 64, 0.040, 0.3);
    free(s->attrs.gpu_model);
    s->attrs.gpu_model = NULL; /* a curve without a GPU model */
    s = fx_run(&l, "d", "H100", 1, 4, NAN, NAN);
    free(s->attrs.workload);
    s->attrs.workload = fx_dup("diffusion");
    s->fig[JL_FIG_BATCH_LATENCY_S] = 2.5;
    s->fig[JL_FIG_ENERGY_PER_ITEM_J] = 300;
    s->attrs.height = 1024;
    s = fx_run(&l, "m", "H100", 1, 8, 0.05, 0.05);
    jl_attrs_add_extra(&s->attrs, "power_scope", "node_ac", 0);
    jl_error_list errors = {0};
    jl_error_list_push(&errors, jl_error_new(JL_EINVALID, "bad.h5", "run1", "/runs/run1", 3,
                                             "something \"odd\""));
    for (int with_errors = 0; with_errors < 2; with_errors++) {
        jl_frontier_set *fs = compute(&l, -1);
        CHECK_EQ_INT(fs->n, 3);
        json_t *doc = jl_frontier_document(fs, &l);
        CHECK(doc != NULL);
        json_object_set_new(doc, "errors", jl_errors_to_json(with_errors ? &errors : NULL));
        char *want = jl_json_dump(doc);
        size_t len = 0;
        char *got = jl_frontier_document_text(fs, &l, with_errors ? &errors : NULL, &len);
        CHECK(want && got);
        if (want && got) {
            CHECK_STR(got, want);
            CHECK_EQ_INT(len, strlen(want));
        }
        free(want);
        free(got);
        json_decref(doc);
        jl_frontier_set_free(fs);
    }
    jl_error_list_clear(&errors);
    jl_summary_list_clear(&l);
}

int main(void)
{
    RUN(dominated_points);
    RUN(ties_and_near_duplicates);
    RUN(missing_and_single);
    RUN(grouping);
    RUN(json_text_equals_tree);
    TEST_MAIN_END();
}
