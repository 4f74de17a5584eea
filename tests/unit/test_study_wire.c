/* The wire format between study workers and the parent (src/study/wire.c):
 * every field of a summary and an error survives a round trip bit for bit,
 * and truncated or corrupt input is refused without a crash. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>

#include "joules/summary.h"
#include "study/study_internal.h"
#include "test.h"

static jl_summary *full_summary(void)
{
    jl_summary *s = jl_summary_new();
    s->file = strdup("/data/h100/sweep.h5");
    s->run = strdup("b0064");
    s->attrs.workload = strdup("llm");
    s->attrs.model = strdup("Qwen/Qwen3-8B");
    s->attrs.task = strdup("lm-arena-chat");
    s->attrs.gpu_model = strdup("H100");
    s->attrs.num_gpus = 2;
    s->attrs.precision = NULL; /* missing string */
    s->attrs.max_batch_size = 64;
    s->attrs.start_time_unix = 1.79e9 + 0.123456789;
    s->attrs.tensor_parallel = 2;
    s->attrs.gpu_tdp_w = 700.0;
    s->attrs.gpu_idle_power_w = NAN;
    s->attrs.kv_bytes_per_token = 147456;
    s->attrs.notes = strdup("notes with \"quotes\", commas, and\nnewlines \xc3\xa9");
    jl_attrs_add_extra(&s->attrs, "gpu_name", "NVIDIA H100 80GB HBM3", 0);
    jl_attrs_add_extra(&s->attrs, "num_requests", "256", 1);
    jl_attrs_add_extra(&s->attrs, "empty", "", 0);
    s->steady_method = JL_STEADY_OCCUPANCY;
    s->energy_source = JL_ENERGY_INTEGRAL;
    for (int i = 0; i < JL_FIG_COUNT; i++)
        s->fig[i] = i % 3 == 0 ? NAN : 1.0 / (i + 1) + 1e-17 * i;
    s->fig[0] = -0.0;
    s->fig[1] = INFINITY;
    s->power_rise_lag_s = 3.25;
    s->power_rise_skip = JL_RISE_FLAT;
    s->num_gpus = 2;
    s->gpu_energy_j = malloc(2 * sizeof(double));
    s->gpu_avg_power_w = NULL;
    s->gpu_energy_j[0] = 1234.5;
    s->gpu_energy_j[1] = 0.1 + 0.2;
    jl_summary_warn(s, "energy_sources_agree", "counter and integral differ by %.1f%%", 7.25);
    jl_summary_warn(s, "short_window", "%s", "");
    /* published figures beside series (spec 1.1) */
    s->published = calloc(1, sizeof *s->published);
    s->published->source = strdup("ML.ENERGY Leaderboard");
    for (int i = 0; i < JL_FIG_COUNT; i++) {
        s->published->fig[i] = i % 4 == 0 ? 1.0 / 3 + i : NAN;
        s->published->recomputed[i] = i % 2 == 0 ? 0.1 * i : NAN;
    }
    s->published->with_published_rate = 1ull << JL_FIG_ENERGY_PER_TOKEN_J;
    s->published->mark_threshold = 0.1;
    /* boundaries (summary/boundary.c) */
    s->boundary.window = JL_WINDOW_CUSTOM;
    s->boundary.scope = JL_SCOPE_NODE;
    s->total_scope = JL_SCOPE_HOST;
    s->peak_power_kind = strdup("average_1s");
    return s;
}

static int same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

static int same_bits(double a, double b)
{
    return !memcmp(&a, &b, sizeof a);
}

static void check_same(const jl_summary *a, const jl_summary *b)
{
    CHECK(same_str(a->file, b->file));
    CHECK(same_str(a->run, b->run));
    CHECK(same_str(a->attrs.workload, b->attrs.workload));
    CHECK(same_str(a->attrs.model, b->attrs.model));
    CHECK(same_str(a->attrs.task, b->attrs.task));
    CHECK(same_str(a->attrs.gpu_model, b->attrs.gpu_model));
    CHECK(same_str(a->attrs.precision, b->attrs.precision));
    CHECK(same_str(a->attrs.notes, b->attrs.notes));
    CHECK_EQ_INT(a->attrs.num_gpus, b->attrs.num_gpus);
    CHECK_EQ_INT(a->attrs.max_batch_size, b->attrs.max_batch_size);
    CHECK_EQ_INT(a->attrs.tensor_parallel, b->attrs.tensor_parallel);
    CHECK_EQ_INT(a->attrs.expert_parallel, b->attrs.expert_parallel);
    CHECK_EQ_INT(a->attrs.data_parallel, b->attrs.data_parallel);
    CHECK_EQ_INT(a->attrs.denoising_steps, b->attrs.denoising_steps);
    CHECK_EQ_INT(a->attrs.height, b->attrs.height);
    CHECK_EQ_INT(a->attrs.width, b->attrs.width);
    CHECK_EQ_INT(a->attrs.num_frames, b->attrs.num_frames);
    CHECK(same_bits(a->attrs.start_time_unix, b->attrs.start_time_unix));
    CHECK(same_bits(a->attrs.gpu_memory_bytes, b->attrs.gpu_memory_bytes));
    CHECK(same_bits(a->attrs.gpu_tdp_w, b->attrs.gpu_tdp_w));
    CHECK(same_bits(a->attrs.gpu_idle_power_w, b->attrs.gpu_idle_power_w));
    CHECK(same_bits(a->attrs.total_params, b->attrs.total_params));
    CHECK(same_bits(a->attrs.active_params, b->attrs.active_params));
    CHECK(same_bits(a->attrs.kv_bytes_per_token, b->attrs.kv_bytes_per_token));
    CHECK_EQ_INT(a->attrs.n_extra, b->attrs.n_extra);
    for (size_t i = 0; i < a->attrs.n_extra && i < b->attrs.n_extra; i++) {
        CHECK(same_str(a->attrs.extra[i].key, b->attrs.extra[i].key));
        CHECK(same_str(a->attrs.extra[i].value, b->attrs.extra[i].value));
        CHECK_EQ_INT(a->attrs.extra[i].is_number, b->attrs.extra[i].is_number);
    }
    CHECK_EQ_INT(a->steady_method, b->steady_method);
    CHECK_EQ_INT(a->energy_source, b->energy_source);
    CHECK_EQ_INT(a->boundary.window, b->boundary.window);
    CHECK_EQ_INT(a->boundary.scope, b->boundary.scope);
    CHECK_EQ_INT(a->total_scope, b->total_scope);
    CHECK(same_str(a->peak_power_kind, b->peak_power_kind));
    CHECK(!memcmp(a->fig, b->fig, sizeof a->fig));
    CHECK(same_bits(a->power_rise_lag_s, b->power_rise_lag_s));
    CHECK_EQ_INT(a->power_rise_skip, b->power_rise_skip);
    CHECK_EQ_INT(a->num_gpus, b->num_gpus);
    CHECK((a->gpu_energy_j == NULL) == (b->gpu_energy_j == NULL));
    CHECK((a->gpu_avg_power_w == NULL) == (b->gpu_avg_power_w == NULL));
    if (a->gpu_energy_j && b->gpu_energy_j)
        CHECK(!memcmp(a->gpu_energy_j, b->gpu_energy_j, a->num_gpus * sizeof(double)));
    if (a->gpu_avg_power_w && b->gpu_avg_power_w)
        CHECK(!memcmp(a->gpu_avg_power_w, b->gpu_avg_power_w, a->num_gpus * sizeof(double)));
    CHECK_EQ_INT(a->n_warnings, b->n_warnings);
    for (size_t i = 0; i < a->n_warnings && i < b->n_warnings; i++) {
        CHECK(same_str(a->warnings[i].rule, b->warnings[i].rule));
        CHECK(same_str(a->warnings[i].message, b->warnings[i].message));
    }
    CHECK((a->published == NULL) == (b->published == NULL));
    if (a->published && b->published) {
        CHECK(same_str(a->published->source, b->published->source));
        CHECK(!memcmp(a->published->fig, b->published->fig, sizeof a->published->fig));
        CHECK(!memcmp(a->published->recomputed, b->published->recomputed,
                      sizeof a->published->recomputed));
        CHECK(a->published->with_published_rate == b->published->with_published_rate);
        CHECK(same_bits(a->published->mark_threshold, b->published->mark_threshold));
    }
}

/* jl_summary_copy keeps the published block, deep */
TEST(summary_copy_published)
{
    jl_summary *a = full_summary(), *c = NULL;
    CHECK_EQ_INT(jl_summary_copy(a, &c), JL_OK);
    if (c) {
        check_same(a, c);
        CHECK(c->published && c->published->source != a->published->source);
    }
    jl_summary_free(c);
    jl_summary_free(a);
}

TEST(summary_round_trip)
{
    jl_summary *a = full_summary();
    jl__wbuf b = {0};
    CHECK_EQ_INT(jl__wire_put_summary(&b, a), JL_OK);
    /* two in a row: each read consumes exactly its own bytes */
    jl_summary *empty = jl_summary_new();
    size_t first_len = b.len;
    CHECK_EQ_INT(jl__wire_put_summary(&b, empty), JL_OK);
    jl_summary *r = NULL, *r2 = NULL;
    size_t used = 0, used2 = 0;
    CHECK_EQ_INT(jl__wire_get_summary(b.data, b.len, &used, &r), JL_OK);
    CHECK_EQ_INT(used, first_len);
    CHECK(r != NULL);
    if (r)
        check_same(a, r);
    CHECK_EQ_INT(jl__wire_get_summary(b.data + used, b.len - used, &used2, &r2), JL_OK);
    CHECK_EQ_INT(used + used2, b.len);
    if (r2)
        check_same(empty, r2);
    jl_summary_free(r);
    jl_summary_free(r2);
    jl_summary_free(empty);
    jl_summary_free(a);
    jl__wbuf_free(&b);
}

/* Odd summaries: a string larger than the buffer has grown so far (one
 * append grows it several times over), empty and missing strings, a
 * thousand extras; many in one buffer, each read back whole. */
TEST(odd_summaries_round_trip)
{
    size_t big_len = 300000;
    char *big = malloc(big_len + 1);
    for (size_t i = 0; i < big_len; i++)
        big[i] = (char)('a' + i % 26);
    big[big_len] = '\0';
    jl_summary *s[3];
    s[0] = jl_summary_new(); /* file, run and every string missing */
    s[1] = full_summary();
    free(s[1]->attrs.notes);
    s[1]->attrs.notes = big;
    free(s[1]->attrs.model);
    s[1]->attrs.model = strdup("");
    s[2] = full_summary();
    for (int i = 0; i < 1000; i++) {
        char k[32], v[32];
        snprintf(k, sizeof k, "extra_%04d", i);
        v[0] = '\0';
        if (i % 2)
            snprintf(v, sizeof v, "%d", i);
        CHECK_EQ_INT(jl_attrs_add_extra(&s[2]->attrs, k, v, i % 2), JL_OK);
    }
    jl__wbuf b = {0};
    for (int i = 0; i < 3; i++)
        CHECK_EQ_INT(jl__wire_put_summary(&b, s[i]), JL_OK);
    CHECK(b.len > big_len && b.cap >= b.len);
    size_t at = 0;
    for (int i = 0; i < 3; i++) {
        jl_summary *r = NULL;
        size_t used = 0;
        CHECK_EQ_INT(jl__wire_get_summary(b.data + at, b.len - at, &used, &r), JL_OK);
        if (r)
            check_same(s[i], r);
        at += used;
        jl_summary_free(r);
        jl_summary_free(s[i]);
    }
    CHECK_EQ_INT(at, b.len);
    jl__wbuf_free(&b);
}

TEST(summary_truncated_is_refused)
{
    jl_summary *a = full_summary();
    jl__wbuf b = {0};
    jl__wire_put_summary(&b, a);
    for (size_t n = 0; n < b.len; n++) {
        jl_summary *r = NULL;
        size_t used = 0;
        jl_status st = jl__wire_get_summary(b.data, n, &used, &r);
        CHECK(st == JL_EINVALID);
        CHECK(r == NULL);
    }
    /* a count the input cannot hold: refused before allocating */
    jl__wbuf c = {0};
    jl_summary *e = jl_summary_new();
    jl__wire_put_summary(&c, e);
    uint32_t huge = 0x7fffffffu;
    memcpy(c.data + c.len - 5, &huge, 4); /* n_warnings, then has_published */
    jl_summary *r = NULL;
    size_t used;
    CHECK_EQ_INT(jl__wire_get_summary(c.data, c.len, &used, &r), JL_EINVALID);
    jl_summary_free(e);
    jl__wbuf_free(&c);
    jl_summary_free(a);
    jl__wbuf_free(&b);
}

TEST(error_round_trip)
{
    jl_error *e = jl_error_new(JL_EINVALID, "/t/a.h5", "b0001", "/runs/b0001/power/time", 17,
                               "time goes backwards (%g after %g)", 1.5, 2.5);
    e->cause = jl_error_new(JL_EIO, NULL, NULL, NULL, -1, "H5Dread failed");
    e->cause->cause = jl_error_new(JL_EIO, NULL, NULL, "H5Z", -1, "zstd: corrupt frame");
    jl__wbuf b = {0};
    CHECK_EQ_INT(jl__wire_put_error(&b, e), JL_OK);
    jl_error *r = NULL;
    size_t used = 0;
    CHECK_EQ_INT(jl__wire_get_error(b.data, b.len, &used, &r), JL_OK);
    CHECK_EQ_INT(used, b.len);
    const jl_error *x = e, *y = r;
    int depth = 0;
    for (; x && y; x = x->cause, y = y->cause, depth++) {
        CHECK_EQ_INT(x->code, y->code);
        CHECK(same_str(x->file, y->file));
        CHECK(same_str(x->run, y->run));
        CHECK(same_str(x->object, y->object));
        CHECK_EQ_INT(x->row, y->row);
        CHECK(same_str(x->message, y->message));
    }
    CHECK(!x && !y);
    CHECK_EQ_INT(depth, 3);
    char *fa = jl_error_format(e), *fb = jl_error_format(r);
    CHECK_STR(fa, fb);
    free(fa);
    free(fb);
    for (size_t n = 0; n < b.len; n++) {
        jl_error *t = NULL;
        CHECK_EQ_INT(jl__wire_get_error(b.data, n, &used, &t), JL_EINVALID);
        CHECK(t == NULL);
    }
    /* an unknown status code is corrupt input */
    int32_t bad = 999;
    memcpy(b.data, &bad, sizeof bad);
    jl_error *t = NULL;
    CHECK_EQ_INT(jl__wire_get_error(b.data, b.len, &used, &t), JL_EINVALID);
    jl_error_free(r);
    jl_error_free(e);
    jl__wbuf_free(&b);
}

int main(void)
{
    RUN(summary_round_trip);
    RUN(odd_summaries_round_trip);
    RUN(summary_truncated_is_refused);
    RUN(summary_copy_published);
    RUN(error_round_trip);
    TEST_MAIN_END();
}
