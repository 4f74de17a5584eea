/* The whole system's energy (host/, format 1.2): host_energy_j,
 * total_energy_j and their per-token values over the steady-state window,
 * with the parts in s->host. Every expected value is worked out by hand.
 *
 * The run, in every case: one GPU at a constant 100 W sampled at t = 0..10;
 * engine/ rows at t = 0.5, 1.5, ..., 10.5 with running 8 on rows 1..7 and 0
 * after, so the occupancy window is [0.5, 7.5] (7 s); tokens_generated
 * climbs 100 per second, so the window holds N = 700 tokens and the GPUs
 * E = 700 J. host/ is sampled at t = 0..10 (the window's edges fall
 * between samples: the counters are interpolated there). */
#include "study/study_internal.h"
#include "test.h"
#include "unit/test_summary_fixture.h"

#define NT 11

static jl_run *base_run(void)
{
    jl_run *r = fx_new("llm", 1, 8);
    double t[NT], w[NT];
    for (int i = 0; i < NT; i++) {
        t[i] = i;
        w[i] = 100;
    }
    fx_power(r, NT, t, w, NULL);
    double et[NT];
    int32_t run[NT];
    int64_t tok[NT];
    for (int i = 0; i < NT; i++) {
        et[i] = 0.5 + i;
        run[i] = i >= 1 && i <= 7 ? 8 : 0;
        tok[i] = 100 * (int64_t)i;
    }
    fx_engine(r, NT, et, run, tok, NULL, NULL);
    r->host_n = NT;
    r->host_time = malloc(NT * sizeof(double));
    for (int i = 0; i < NT; i++)
        r->host_time[i] = i;
    return r;
}

/* Counters of S sockets: socket k's rate rate[k] W, from offset off[k]. */
static void add_counter(jl_run *r, jl_series *e, size_t S, const double *rate, const double *off)
{
    e->n = NT;
    e->g = S;
    e->v = malloc(NT * S * sizeof(double));
    for (int i = 0; i < NT; i++)
        for (size_t k = 0; k < S; k++)
            e->v[i * S + k] = off[k] + rate[k] * i;
    r->host_sockets = S;
}

/* node_watts = 500 + 10 t: over [0.5, 7.5], 500 x 7 + 5 (7.5^2 - 0.5^2) =
 * 3500 + 280 = 3780 J (the trapezoid is exact for linear power). */
static void add_node(jl_run *r, double base, double slope)
{
    r->node_watts = malloc(NT * sizeof(double));
    for (int i = 0; i < NT; i++)
        r->node_watts[i] = base + slope * i;
}

/* Two sockets: CPU 50 and 30 W, DRAM 10 and 5 W, from arbitrary offsets:
 * over 7 s, CPU 350 + 210 = 560 J, DRAM 70 + 35 = 105 J; host 665 J,
 * total 700 + 665 = 1365 J; per token 0.95 and 1.95 J. */
TEST(two_sockets_cpu_dram)
{
    jl_run *r = base_run();
    double cr[] = {50, 30}, co[] = {123456.5, 7}, dr[] = {10, 5}, dof[] = {42, 0};
    add_counter(r, &r->cpu_energy_j, 2, cr, co);
    add_counter(r, &r->dram_energy_j, 2, dr, dof);
    r->host_source = jl__strdup("rapl");
    r->host_sockets = 0; /* a run filled by hand: S comes from the series */
    jl_summary *s = fx_sum(r);
    CHECK(s != NULL);
    if (s) {
        CHECK_EQ_INT(s->steady_method, JL_STEADY_OCCUPANCY);
        CHECK_NEAR(FIG(s, STEADY_START_S), 0.5, 0, 0);
        CHECK_NEAR(FIG(s, STEADY_END_S), 7.5, 0, 0);
        CHECK_NEAR(FIG(s, STEADY_TOKENS), 700, 1e-12, 0);
        CHECK_NEAR(FIG(s, STEADY_ENERGY_J), 700, 1e-12, 0);
        CHECK_NEAR(FIG(s, HOST_ENERGY_J), 665, 1e-12, 0);
        CHECK_NEAR(FIG(s, TOTAL_ENERGY_J), 1365, 1e-12, 0);
        CHECK_NEAR(FIG(s, HOST_ENERGY_PER_TOKEN_J), 0.95, 1e-12, 0);
        CHECK_NEAR(FIG(s, TOTAL_ENERGY_PER_TOKEN_J), 1.95, 1e-12, 0);
        CHECK(s->host != NULL);
        if (s->host) {
            CHECK_EQ_INT(s->host->method, JL_HOST_CPU_DRAM);
            CHECK_EQ_INT(s->host->sockets, 2);
            CHECK_NEAR(s->host->cpu_energy_j[0], 350, 1e-12, 0);
            CHECK_NEAR(s->host->cpu_energy_j[1], 210, 1e-12, 0);
            CHECK_NEAR(s->host->dram_energy_j[1], 35, 1e-12, 0);
            CHECK_NEAR(s->host->cpu_dram_energy_j, 665, 1e-12, 0);
            CHECK_NAN(s->host->node_energy_j);
            CHECK_NAN(s->host->rest_energy_j);
            CHECK_STR(s->host->source, "rapl");
        }
        /* the JSON run object carries the block; a copy and the study's
         * wire keep it */
        json_t *o = jl_summary_to_json(s);
        json_t *h = json_object_get(o, "host");
        CHECK_STR(json_string_value(json_object_get(h, "method")), "cpu_dram");
        CHECK_NEAR(json_number_value(json_object_get(o, "total_energy_per_token_j")), 1.95, 1e-12,
                   0);
        CHECK_NEAR(json_number_value(json_array_get(json_object_get(h, "dram_energy_j"), 0)), 70,
                   1e-12, 0);
        json_decref(o);
        jl_summary *c = NULL;
        CHECK_EQ_INT(jl_summary_copy(s, &c), JL_OK);
        CHECK(c && c->host && c->host->cpu_energy_j[1] == s->host->cpu_energy_j[1]);
        jl_summary_free(c);
        jl__wbuf b = {0};
        CHECK_EQ_INT(jl__wire_put_summary(&b, s), JL_OK);
        size_t used = 0;
        jl_summary *w = NULL;
        CHECK_EQ_INT(jl__wire_get_summary(b.data, b.len, &used, &w), JL_OK);
        CHECK_EQ_INT(used, b.len);
        CHECK(w && w->host && w->host->method == JL_HOST_CPU_DRAM &&
              w->host->dram_energy_j[0] == 70 && !strcmp(w->host->source, "rapl"));
        jl_summary_free(w);
        jl__wbuf_free(&b);
    }
    jl_summary_free(s);
    jl_run_free(r);
}

/* Socket 0's package counter wraps at W = 1000 J inside the window, in the
 * one interval (3, 4] where the socket draws 80 W instead of 50: it reads
 * 840, 890, 940, 990, then 990 + 80 - 1000 = 70, 120, ... Over [0.5, 7.5]:
 * 0.5 x 50 + (50 + 50 + 80 + 50 + 50 + 50) + 0.5 x 50 = 380 J, exactly,
 * with W known. Without W the drop is a restart bridged at the mean rate
 * of the neighbouring intervals (50 W): 350 J, and a warning says so. */
static void wrap_case(int known)
{
    jl_run *r = base_run();
    double rate[] = {50}, off[] = {0};
    add_counter(r, &r->cpu_energy_j, 1, rate, off);
    double c = 840;
    for (int i = 0; i < NT; i++) {
        r->cpu_energy_j.v[i] = c;
        double inc = i == 3 ? 80 : 50;
        c += inc;
        if (c > 1000)
            c -= 1000;
    }
    CHECK_NEAR(r->cpu_energy_j.v[4], 70, 0, 0);
    if (known) {
        r->cpu_max_energy_range_j = malloc(sizeof(double));
        r->cpu_max_energy_range_j[0] = 1000;
    }
    jl_summary *s = fx_sum(r);
    CHECK(s != NULL);
    if (s) {
        CHECK_NEAR(FIG(s, HOST_ENERGY_J), known ? 380 : 350, 1e-12, 0);
        CHECK_NEAR(FIG(s, TOTAL_ENERGY_J), known ? 1080 : 1050, 1e-12, 0);
        CHECK_NEAR(FIG(s, HOST_ENERGY_PER_TOKEN_J), known ? 380.0 / 700 : 0.5, 1e-12, 0);
        if (known)
            CHECK(fx_warning(s, "host_counter_restart") == NULL);
        else
            CHECK_CONTAINS(fx_warning(s, "host_counter_restart"),
                           "host/cpu_energy_j socket 0: dropped from 990 J to 70 J at t = 4 s "
                           "(row 4): restart or wrap (@max_energy_range_j unknown); bridged 50 J");
        CHECK(s->host && s->host->method == JL_HOST_CPU_DRAM && !s->host->dram_energy_j);
    }
    jl_summary_free(s);
    jl_run_free(r);
}

TEST(counter_wraps_in_window_known_range)
{
    wrap_case(1);
}
TEST(counter_wraps_in_window_unknown_range)
{
    wrap_case(0);
}

/* A restart: the counter, wrapping at RAPL's 262143.32885 J, reads
 * 100000 + 50 t up to t = 4, then 3 J at t = 5 and +50 J/s again. As a wrap
 * it would mean 162146 J in one second: implausible, so a restart, the
 * second (4, 5] bridged at 50 W: 350 J over the window. */
TEST(counter_restart)
{
    jl_run *r = base_run();
    double rate[] = {50}, off[] = {100000};
    add_counter(r, &r->cpu_energy_j, 1, rate, off);
    for (int i = 5; i < NT; i++)
        r->cpu_energy_j.v[i] = 3 + 50.0 * (i - 5);
    r->cpu_max_energy_range_j = malloc(sizeof(double));
    r->cpu_max_energy_range_j[0] = 262143.328850;
    jl_summary *s = fx_sum(r);
    CHECK(s != NULL);
    if (s) {
        CHECK_NEAR(FIG(s, HOST_ENERGY_J), 350, 1e-12, 0);
        CHECK_CONTAINS(fx_warning(s, "host_counter_restart"),
                       "dropped from 100200 J to 3 J at t = 5 s (row 5): a restart (not a "
                       "plausible wrap at @max_energy_range_j); bridged 50 J");
    }
    jl_summary_free(s);
    jl_run_free(r);
}

/* The node's AC energy is the total, host = total - GPUs (700 J). */
static void check_node(const jl_summary *s, double total)
{
    CHECK_NEAR(FIG(s, TOTAL_ENERGY_J), total, 1e-12, 0);
    CHECK_NEAR(FIG(s, HOST_ENERGY_J), total - 700, 1e-12, 0);
    CHECK(s->host && s->host->method == JL_HOST_NODE_AC);
    CHECK_NEAR(s->host->node_energy_j, total, 1e-12, 0);
}

/* node_watts alone (500 + 10 t): total = 3780 J, host = 3780 - 700 =
 * 3080 J; per token 5.4 and 4.4 J. */
TEST(node_ac_only)
{
    jl_run *r = base_run();
    add_node(r, 500, 10);
    jl_summary *s = fx_sum(r);
    CHECK(s != NULL);
    if (s) {
        check_node(s, 3780);
        CHECK_NEAR(FIG(s, TOTAL_ENERGY_PER_TOKEN_J), 5.4, 1e-12, 0);
        CHECK_NEAR(FIG(s, HOST_ENERGY_PER_TOKEN_J), 4.4, 1e-12, 0);
        CHECK(s->host && isnan(s->host->cpu_dram_energy_j) && isnan(s->host->rest_energy_j));
        CHECK_EQ_INT(s->host->sockets, 0);
        CHECK(fx_warning(s, "host_below_parts") == NULL);
    }
    jl_summary_free(s);
    jl_run_free(r);
}

/* Both: the node's AC energy is the total (3780 J), host = node - GPUs
 * (3080 J); CPU + DRAM (665 J, as in two_sockets_cpu_dram) is kept as the
 * cross-check, rest = 3080 - 665 = 2415 J. */
TEST(node_ac_and_counters)
{
    jl_run *r = base_run();
    double cr[] = {50, 30}, co[] = {0, 0}, dr[] = {10, 5};
    add_counter(r, &r->cpu_energy_j, 2, cr, co);
    add_counter(r, &r->dram_energy_j, 2, dr, co);
    add_node(r, 500, 10);
    jl_summary *s = fx_sum(r);
    CHECK(s != NULL);
    if (s) {
        check_node(s, 3780);
        CHECK_NEAR(s->host->cpu_dram_energy_j, 665, 1e-12, 0);
        CHECK_NEAR(s->host->rest_energy_j, 2415, 1e-12, 0);
        CHECK(fx_warning(s, "host_below_parts") == NULL);
    }
    jl_summary_free(s);
    /* a node meter reading 150 W: 1050 J, below GPUs + CPU + DRAM (1365 J) */
    for (int i = 0; i < NT; i++)
        r->node_watts[i] = 150;
    s = fx_sum(r);
    CHECK(s != NULL);
    if (s) {
        check_node(s, 1050);
        CHECK_NEAR(s->host->rest_energy_j, -315, 1e-12, 0);
        CHECK_CONTAINS(fx_warning(s, "host_below_parts"),
                       "the node's AC energy over the window (1050 J) is less than the GPUs' + "
                       "CPU + DRAM (1365 J)");
    }
    jl_summary_free(s);
    jl_run_free(r);
}

/* No host/: the four figures are null and there is no block; host/ that
 * starts 1.5 s after the window: missing, with a warning. */
TEST(absent_or_out_of_span)
{
    jl_run *r = base_run();
    free(r->host_time);
    r->host_time = NULL;
    r->host_n = 0;
    jl_summary *s = fx_sum(r);
    CHECK(s && !s->host);
    CHECK_NAN(FIG(s, HOST_ENERGY_J));
    CHECK_NAN(FIG(s, TOTAL_ENERGY_J));
    CHECK_NAN(FIG(s, HOST_ENERGY_PER_TOKEN_J));
    CHECK_NAN(FIG(s, TOTAL_ENERGY_PER_TOKEN_J));
    json_t *o = jl_summary_to_json(s);
    CHECK(json_object_get(o, "host") == NULL);
    CHECK(json_is_null(json_object_get(o, "total_energy_j")));
    json_decref(o);
    jl_summary_free(s);
    jl_run_free(r);

    r = base_run();
    add_node(r, 500, 0);
    for (int i = 0; i < NT; i++)
        r->host_time[i] = 2 + i;
    s = fx_sum(r);
    CHECK(s && s->host && s->host->method == JL_HOST_NONE);
    CHECK_NAN(FIG(s, TOTAL_ENERGY_J));
    CHECK_CONTAINS(fx_warning(s, "host_span"),
                   "the window [0.5, 7.5] s reaches more than 1 s beyond the host/ samples [2, "
                   "12] s");
    jl_summary_free(s);
    jl_run_free(r);
}

/* @power_scope node_ac: power/ already is the node's AC power, so host/
 * is not added to it (a warning says why): the node scope's figures are
 * power/'s, and there is no per-GPU energy. */
TEST(node_ac_power_scope)
{
    jl_run *r = base_run();
    jl_attrs_add_extra(&r->attrs, "power_scope", "node_ac", 0);
    add_node(r, 500, 10);
    jl_summary *s = fx_sum(r);
    CHECK(s && s->host && s->host->method == JL_HOST_NONE);
    CHECK(s->boundary.scope == JL_SCOPE_NODE && s->total_scope == JL_SCOPE_NODE);
    CHECK_NEAR(FIG(s, TOTAL_ENERGY_J), 700, 1e-12, 0);
    CHECK_NAN(FIG(s, HOST_ENERGY_J));
    CHECK_NEAR(FIG(s, STEADY_ENERGY_J), 700, 1e-12, 0);
    CHECK(s->gpu_energy_j == NULL && s->gpu_avg_power_w == NULL);
    CHECK_NAN(FIG(s, STATIC_ENERGY_SHARE));
    CHECK_CONTAINS(fx_warning(s, "host_node_ac_scope"), "host/ is not added to it");
    jl_summary_free(s);
    jl_run_free(r);
}

int main(void)
{
    RUN(two_sockets_cpu_dram);
    RUN(counter_wraps_in_window_known_range);
    RUN(counter_wraps_in_window_unknown_range);
    RUN(counter_restart);
    RUN(node_ac_only);
    RUN(node_ac_and_counters);
    RUN(absent_or_out_of_span);
    RUN(node_ac_power_scope);
    TEST_MAIN_END();
}
