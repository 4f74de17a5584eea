/* Every energy figure says what it covers (docs/summary.md, "Every figure
 * and its boundary"): the whole-run figures beside the steady-state ones,
 * the boundary of each figure and the energy at a boundary the accounts
 * ask for (jl_summary_energy, jl_account_count), peak_power_kind, and the
 * marginal prefill share on a synthetic trace whose split is known because
 * the test makes it. */
#include "joules/account.h"
#include "test.h"
#include "unit/test_summary_fixture.h"

/* ---- the marginal prefill split --------------------------------------------
 * A serving loop the test writes down: iterations back to back, the batch
 * at 8 for the first 600 iterations, 16 for the next 600 (an iteration at
 * 12 in between, whose batch no decode-only iteration has: its baseline is
 * interpolated). A decode-only iteration at batch b lasts 20 ms at
 * (200 + 12.5 b) W: 6 J at 8, 8 J at 16 (7 J at 12, linear), each
 * iteration within 5 % of that and its length within 10 %. A quarter of
 * the iterations (drawn, at no fixed stride) also run a prefill: it lasts 50 ms (within 10 %) and uses a
 * decode energy + 15 J. So the marginal prefill energy is exactly 15 J per
 * prefill iteration (the decode energies it rides on vary like the
 * others'). Power is sampled at 100 Hz through an energy counter (the
 * exact integral at each sample), so an iteration's energy, read from the
 * counter interpolated between samples, smears into its neighbours as a
 * real trace's does. */
#define N_IT 1201
#define MARGINAL_J 15.0

typedef struct synth {
    double t[N_IT + 1];   /* iteration ends, t[0] = 0 */
    double p[N_IT + 1];   /* power during iteration i (1-based) */
    int32_t b[N_IT + 1];  /* batch of iteration i */
    int pre[N_IT + 1];    /* iteration i ran a prefill */
    double true_marginal; /* J */
} synth;

/* a deterministic jitter in [-1, 1) (an LCG: the test is the same every run) */
static double jitter(unsigned long long *x)
{
    *x = *x * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*x >> 11) / (double)(1ull << 52) - 1.0;
}

static void make_synth(synth *y)
{
    unsigned long long seed = 20261127;
    y->t[0] = 0;
    y->true_marginal = 0;
    for (int i = 1; i <= N_IT; i++) {
        int32_t b = i <= 600 ? 8 : i == 601 ? 12 : 16;
        int pre = jitter(&seed) < -0.5; /* a quarter of the iterations, at no fixed stride */
        /* each iteration's own decode energy varies by up to 5 %, its
         * length by up to 10 % (the energy is the batch's plus that) */
        double e_dec = (200 + 12.5 * b) * 0.020 * (1 + 0.05 * jitter(&seed));
        double d = (pre ? 0.050 : 0.020) * (1 + 0.1 * jitter(&seed)),
               e = pre ? e_dec + MARGINAL_J : e_dec;
        y->b[i] = b;
        y->pre[i] = pre;
        y->p[i] = e / d;
        y->t[i] = y->t[i - 1] + d;
        if (pre)
            y->true_marginal += MARGINAL_J;
    }
}

/* The exact cumulative energy at time x. */
static double cum(const synth *y, double x)
{
    double e = 0;
    for (int i = 1; i <= N_IT; i++) {
        if (x <= y->t[i - 1])
            break;
        double hi = x < y->t[i] ? x : y->t[i];
        e += y->p[i] * (hi - y->t[i - 1]);
    }
    return e;
}

static jl_run *synth_run(const synth *y, int with_prefill)
{
    jl_run *r = fx_new("llm", 1, 16);
    double T = y->t[N_IT];
    size_t n = (size_t)(T / 0.01) + 1;
    double *pt = malloc(n * sizeof *pt), *ej = malloc(n * sizeof *ej);
    for (size_t k = 0; k < n; k++) {
        pt[k] = 0.01 * (double)k;
        ej[k] = cum(y, pt[k]);
    }
    fx_power(r, n, pt, NULL, ej);
    free(pt);
    free(ej);
    double et[N_IT + 1];
    int32_t run[N_IT + 1];
    int64_t tok[N_IT + 1], pre[N_IT + 1];
    et[0] = 0;
    run[0] = 0;
    tok[0] = pre[0] = 0;
    for (int i = 1; i <= N_IT; i++) {
        et[i] = y->t[i];
        run[i] = y->b[i];
        tok[i] = tok[i - 1] + y->b[i];
        pre[i] = pre[i - 1] + (with_prefill && y->pre[i] ? 512 : 0);
    }
    fx_engine(r, N_IT + 1, et, run, tok, pre, NULL);
    return r;
}

TEST(prefill_marginal_known_split)
{
    static synth y;
    make_synth(&y);
    jl_run *r = synth_run(&y, 1);
    /* the occupancy rule: running >= 0.9 x 16 from iteration 602 on; take
     * the whole run instead by lowering the share below 8/16 */
    jl_summary_options o;
    jl_summary_options_default(&o);
    o.occupancy_share = 0.4;
    jl_summary *s = NULL;
    jl_error *e = NULL;
    CHECK(jl_summarize(r, &o, &s, &e) == JL_OK);
    CHECK(s != NULL);
    /* the window holds every iteration but the first: the truth over it */
    double E = FIG(s, STEADY_ENERGY_J), truth = y.true_marginal / E;
    double m = FIG(s, PREFILL_MARGINAL_ENERGY_SHARE);
    double lo = FIG(s, PREFILL_MARGINAL_ENERGY_SHARE_LO),
           hi = FIG(s, PREFILL_MARGINAL_ENERGY_SHARE_HI);
    printf(
        "  known split %.6f, marginal %.6f [%.6f, %.6f], iterations holding prompt tokens %.6f\n",
        truth, m, lo, hi, FIG(s, PREFILL_ENERGY_SHARE));
    CHECK(fabs(m - truth) < 0.02 * truth);
    CHECK(lo <= truth && truth <= hi);
    CHECK(lo <= m && m <= hi);
    /* the old figure counts the prefill iterations' decode step too */
    CHECK(FIG(s, PREFILL_ENERGY_SHARE) > hi);
    jl_boundary b;
    CHECK(jl_figure_boundary(s, JL_FIG_PREFILL_MARGINAL_ENERGY_SHARE, &b) &&
          b.window == JL_WINDOW_STEADY);
    jl_summary_free(s);
    jl_run_free(r);
}

TEST(prefill_marginal_none_and_unmatched)
{
    static synth y;
    make_synth(&y);
    /* no iteration holds a prompt token: prefill added nothing (a measured 0) */
    jl_run *r = synth_run(&y, 0);
    jl_summary *s = fx_sum(r);
    CHECK(FIG(s, PREFILL_MARGINAL_ENERGY_SHARE) == 0);
    CHECK(FIG(s, PREFILL_MARGINAL_ENERGY_SHARE_HI) == 0);
    jl_summary_free(s);
    jl_run_free(r);
    /* every iteration a prefill: nothing to match (null, and says why) */
    r = synth_run(&y, 1);
    for (size_t i = 1; i < r->engine_n; i++)
        r->prefill_tokens[i] = r->prefill_tokens[i - 1] + 100;
    s = fx_sum(r);
    CHECK_NAN(FIG(s, PREFILL_MARGINAL_ENERGY_SHARE));
    CHECK_CONTAINS(fx_warning(s, "prefill_marginal"), "no decode-only iteration to match");
    jl_summary_free(s);
    jl_run_free(r);
}

/* ---- whole-run figures and boundaries ---------------------------------------
 * One GPU at 100 W for t = 0..10 (1,000 J), engine rows every second with
 * running 8 on rows 1..7: the occupancy window [0.5, 7.5] (700 J), tokens
 * 100 a second: 700 in the window, 1,000 over the run. */
#define NT 11

static jl_run *simple_run(void)
{
    jl_run *r = fx_new("llm", 1, 8);
    double t[NT], w[NT], et[NT];
    int32_t run[NT];
    int64_t tok[NT];
    for (int i = 0; i < NT; i++) {
        t[i] = i;
        w[i] = 100;
        et[i] = 0.5 + i;
        run[i] = i >= 1 && i <= 7 ? 8 : 0;
        tok[i] = 100 * (int64_t)i;
    }
    fx_power(r, NT, t, w, NULL);
    fx_engine(r, NT, et, run, tok, NULL, NULL);
    r->attrs.gpu_tdp_w = 700;
    return r;
}

TEST(whole_run_beside_steady)
{
    jl_run *r = simple_run();
    jl_summary *s = fx_sum(r);
    CHECK_NEAR(FIG(s, STEADY_ENERGY_J), 700, 1e-12, 0);
    CHECK_NEAR(FIG(s, RUN_ENERGY_J), 1000, 1e-12, 0);
    CHECK_NEAR(FIG(s, RUN_TOKENS), 1000, 0, 0);
    CHECK_NEAR(FIG(s, ENERGY_PER_TOKEN_J), 1.0, 1e-12, 0);
    CHECK_NEAR(FIG(s, RUN_ENERGY_PER_TOKEN_J), 1.0, 1e-12, 0);
    CHECK(s->boundary.window == JL_WINDOW_STEADY && s->boundary.scope == JL_SCOPE_GPU);
    jl_boundary b;
    CHECK(jl_figure_boundary(s, JL_FIG_RUN_ENERGY_PER_TOKEN_J, &b) && b.window == JL_WINDOW_RUN &&
          b.scope == JL_SCOPE_GPU);
    CHECK(!jl_figure_boundary(s, JL_FIG_MEDIAN_ITL_S, &b));
    /* the energy at a boundary: what the run has, NaN for what it has not */
    jl_boundary run_gpu = {JL_WINDOW_RUN, JL_SCOPE_GPU},
                st_node = {JL_WINDOW_STEADY, JL_SCOPE_NODE},
                prov = {JL_WINDOW_STEADY, JL_SCOPE_PROVISIONED};
    CHECK_NEAR(jl_summary_energy(s, run_gpu, JL_PER_TOTAL), 1000, 1e-12, 0);
    CHECK_NAN(jl_summary_energy(s, st_node, JL_PER_TOTAL));
    CHECK_NEAR(jl_summary_energy(s, prov, JL_PER_TOTAL), 700 * 7.0, 1e-9, 0);
    CHECK_NEAR(jl_summary_energy(s, prov, JL_PER_TOKEN), 700 * 7.0 / 700, 1e-12, 0);
    CHECK_EQ_INT(jl_summary_widest_scope(s, JL_WINDOW_RUN), JL_SCOPE_GPU);
    char have[256];
    jl_summary_boundaries_text(s, have, sizeof have);
    CHECK_STR(have, "steady/gpu, run/gpu, steady/provisioned, run/provisioned");
    /* the accounts: the whole run by default, what the steady state leaves out */
    jl_counted c;
    jl_error *e = NULL;
    CHECK(jl_account_count(s, NULL, &c, &e) == JL_OK);
    CHECK(c.boundary.window == JL_WINDOW_RUN && c.base_scope == JL_SCOPE_GPU && !c.window_fallback);
    CHECK_NEAR(c.energy_j, 1000, 1e-12, 0);
    CHECK(c.not_measured == ((1u << JL_SCOPE_HOST) | (1u << JL_SCOPE_NODE)));
    jl_account_boundary a = {JL_WINDOW_STEADY, -1};
    CHECK(jl_account_count(s, &a, &c, &e) == JL_OK);
    CHECK_NEAR(c.outside_window_j, 300, 1e-9, 0);
    a.scope = JL_SCOPE_NODE;
    CHECK(jl_account_count(s, &a, &c, &e) == JL_ENODATA);
    CHECK(e && e->side == JL_SIDE_REQUEST);
    char *msg = jl_error_format(e);
    CHECK_CONTAINS(msg, "run b0000: no steady/node (steady state, node) energy: the run has "
                        "steady/gpu, run/gpu");
    free(msg);
    jl_error_free(e);
    /* a peak of an unnamed sensor: unknown; power/@watts_kind says it */
    CHECK_STR(s->peak_power_kind, "unknown");
    jl_summary_free(s);
    free(r->power_watts_kind);
    r->power_watts_kind = jl__strdup("average_1s");
    s = fx_sum(r);
    CHECK_STR(s->peak_power_kind, "average_1s");
    jl_summary_free(s);
    jl_run_free(r);
}

/* host/ counters: the widest scope is the GPUs + host over both windows. */
TEST(host_scope_over_the_run)
{
    jl_run *r = simple_run();
    r->host_n = NT;
    r->host_time = malloc(NT * sizeof(double));
    r->cpu_energy_j = (jl_series){NT, 1, malloc(NT * sizeof(double))};
    for (int i = 0; i < NT; i++) {
        r->host_time[i] = i;
        r->cpu_energy_j.v[i] = 50.0 * i; /* 50 W */
    }
    r->host_sockets = 1;
    jl_summary *s = fx_sum(r);
    CHECK(s->total_scope == JL_SCOPE_HOST);
    CHECK_NEAR(FIG(s, TOTAL_ENERGY_J), 700 + 350, 1e-9, 0);
    CHECK_NEAR(FIG(s, RUN_TOTAL_ENERGY_J), 1000 + 500, 1e-9, 0);
    CHECK_NEAR(FIG(s, RUN_TOTAL_ENERGY_PER_TOKEN_J), 1.5, 1e-12, 0);
    CHECK_EQ_INT(jl_summary_widest_scope(s, JL_WINDOW_RUN), JL_SCOPE_HOST);
    jl_boundary b;
    CHECK(jl_figure_boundary(s, JL_FIG_TOTAL_ENERGY_J, &b) && b.scope == JL_SCOPE_HOST &&
          b.window == JL_WINDOW_STEADY);
    jl_counted c;
    jl_error *e = NULL;
    CHECK(jl_account_count(s, NULL, &c, &e) == JL_OK);
    CHECK(c.base_scope == JL_SCOPE_HOST && c.not_measured == (1u << JL_SCOPE_NODE));
    CHECK_NEAR(c.energy_j, 1500, 1e-9, 0);
    jl_account_boundary gpu = {-1, JL_SCOPE_GPU};
    CHECK(jl_account_count(s, &gpu, &c, &e) == JL_OK);
    CHECK(c.wider == JL_SCOPE_HOST);
    CHECK_NEAR(c.wider_j, 500, 1e-9, 0);
    jl_summary_free(s);
    jl_run_free(r);
}

/* A summary-only run: its published window and scope, and the default
 * window falling back to it. */
TEST(summary_only_boundary)
{
    jl_run *r = fx_new("llm", 1, 8);
    r->summary.present = 1;
    r->summary.energy_per_token_j = 0.5;
    jl_summary *s = fx_sum(r);
    CHECK(s->boundary.window == JL_WINDOW_STEADY && s->boundary.scope == JL_SCOPE_GPU);
    jl_counted c;
    jl_error *e = NULL;
    CHECK(jl_account_count(s, NULL, &c, &e) == JL_OK);
    CHECK(c.window_fallback && c.boundary.window == JL_WINDOW_STEADY);
    CHECK_NEAR(c.per_token_j, 0.5, 0, 0);
    CHECK_NAN(c.energy_j);
    jl_account_boundary run = {JL_WINDOW_RUN, -1};
    CHECK(jl_account_count(s, &run, &c, &e) == JL_ENODATA);
    jl_error_free(e);
    jl_summary_free(s);
    jl_run_free(r);
}

int main(void)
{
    RUN(prefill_marginal_known_split);
    RUN(prefill_marginal_none_and_unmatched);
    RUN(whole_run_beside_steady);
    RUN(host_scope_over_the_run);
    RUN(summary_only_boundary);
    TEST_MAIN_END();
}
