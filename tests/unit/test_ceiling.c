/* Batch ceilings: hand-made classification cases and the paper's
 * memory-ceiling examples through the models/ descriptors. */
#include "test.h"

#include <math.h>

#include "joules/ceiling.h"
#include "test_choice_fixtures.h"

static jl_descriptors *desc(void)
{
    jl_descriptors *d = NULL;
    jl_error *err = NULL;
    if (jl_descriptors_load(JOULES_SOURCE_DIR "/models", &d, &err) != JL_OK)
        fprintf(stderr, "descriptors: %s\n", err ? err->message : "?");
    jl_error_free(err);
    return d;
}

static jl_summary *llm(jl_summary_list *l, const char *model, const char *task, const char *gpu,
                       long n, const char *prec, long cap, double b, double out_tokens)
{
    jl_summary *s = fx_run(l, model, gpu, n, cap, 0.02, 0.1);
    free(s->attrs.task);
    s->attrs.task = fx_dup(task);
    free(s->attrs.precision);
    s->attrs.precision = fx_dup(prec);
    s->fig[JL_FIG_AVG_BATCH_SIZE] = b;
    s->fig[JL_FIG_AVG_OUTPUT_TOKENS] = out_tokens;
    return s;
}

TEST(classification_hand_made)
{
    jl_summary_list l = {0};
    jl_batch_ceiling c;
    /* KV use recorded: at the cap */
    jl_summary *s = llm(&l, "x", "chat", "H100", 1, "bfloat16", 64, 64, 300);
    s->fig[JL_FIG_AVG_KV_CACHE_USAGE] = 0.2;
    CHECK(jl_batch_ceiling_run(s, NULL, NULL, &c) == JL_OK);
    CHECK_EQ_INT(c.limit, JL_BATCH_LIMIT_CONFIG);
    CHECK_NEAR(c.ceiling, 64, 0, 0);
    CHECK_NEAR(c.memory.value, 320, 1e-12, 0); /* 64 / 0.2 */
    CHECK_STR(c.memory.method, "measured");
    CHECK_NEAR(c.memory_headroom, 5, 1e-12, 0);
    jl_batch_ceiling_clear(&c);
    /* KV full, below the cap: memory */
    s = llm(&l, "x", "chat", "H100", 1, "bfloat16", 256, 180, 300);
    s->fig[JL_FIG_AVG_KV_CACHE_USAGE] = 0.97;
    CHECK(jl_batch_ceiling_run(s, NULL, NULL, &c) == JL_OK);
    CHECK_EQ_INT(c.limit, JL_BATCH_LIMIT_MEMORY);
    CHECK_NEAR(c.ceiling, 180 / 0.97, 1e-12, 0);
    CHECK_CONTAINS(c.evidence, "memory binds");
    jl_batch_ceiling_clear(&c);
    /* well under the cap with room: upstream (paper §3.2) */
    s = llm(&l, "x", "image-chat", "B200", 1, "bfloat16", 64, 20, 300);
    s->fig[JL_FIG_AVG_KV_CACHE_USAGE] = 0.15;
    CHECK(jl_batch_ceiling_run(s, NULL, NULL, &c) == JL_OK);
    CHECK_EQ_INT(c.limit, JL_BATCH_LIMIT_UPSTREAM);
    CHECK_NEAR(c.ceiling, 20, 0, 0);
    CHECK_CONTAINS(c.evidence, "upstream");
    jl_batch_ceiling_clear(&c);
    /* slightly under the cap with room: still the cap (churn) */
    s = llm(&l, "x", "chat", "H100", 1, "bfloat16", 512, 460, 300);
    s->fig[JL_FIG_AVG_KV_CACHE_USAGE] = 0.4;
    CHECK(jl_batch_ceiling_run(s, NULL, NULL, &c) == JL_OK);
    CHECK_EQ_INT(c.limit, JL_BATCH_LIMIT_CONFIG);
    jl_batch_ceiling_clear(&c);
    /* under the cap, no KV data, no descriptors: unknown */
    s = llm(&l, "x", "chat", "H100", 1, "bfloat16", 512, 300, 300);
    CHECK(jl_batch_ceiling_run(s, NULL, NULL, &c) == JL_OK);
    CHECK_EQ_INT(c.limit, JL_BATCH_LIMIT_UNKNOWN);
    CHECK(isnan(c.memory.value));
    CHECK(c.memory.missing != NULL);
    jl_batch_ceiling_clear(&c);
    /* KV between room and full, well under the cap: unknown */
    s = llm(&l, "x", "chat", "H100", 1, "bfloat16", 512, 300, 300);
    s->fig[JL_FIG_AVG_KV_CACHE_USAGE] = 0.85;
    CHECK(jl_batch_ceiling_run(s, NULL, NULL, &c) == JL_OK);
    CHECK_EQ_INT(c.limit, JL_BATCH_LIMIT_UNKNOWN);
    jl_batch_ceiling_clear(&c);
    jl_summary_list_clear(&l);
}

/* issue 11 §2: measured KV use from each of its sources, far from full,
 * with the batch far below the cap: upstream, with the numbers in words;
 * no descriptor needed. Mixed evidence says so. */
TEST(upstream_from_measured_kv)
{
    jl_summary_list l = {0};
    jl_batch_ceiling c;
    /* 1. a published average beside time series (the Nemotron case:
     * batch 5.6 of cap 128, KV 5 % full), model unknown to the descriptors */
    jl_summary *s = llm(&l, "no-such-model", "video-chat", "H100", 1, "bfloat16", 128, 5.6, NAN);
    s->fig[JL_FIG_AVG_KV_CACHE_USAGE] = 0.05;
    s->published = calloc(1, sizeof *s->published);
    for (int f = 0; f < JL_FIG_COUNT; f++)
        s->published->fig[f] = s->published->recomputed[f] = NAN;
    s->published->fig[JL_FIG_AVG_KV_CACHE_USAGE] = 0.05;
    s->published->fig[JL_FIG_AVG_BATCH_SIZE] = 5.6;
    s->published->recomputed[JL_FIG_AVG_BATCH_SIZE] = 5.4;
    s->published->mark_threshold = 0.10;
    CHECK(jl_batch_ceiling_run(s, NULL, NULL, &c) == JL_OK);
    CHECK_EQ_INT(c.limit, JL_BATCH_LIMIT_UPSTREAM);
    CHECK_NEAR(c.ceiling, 5.6, 0, 0);
    CHECK_STR(c.kv_source, "published");
    CHECK(!c.mixed);
    CHECK_CONTAINS(c.evidence, "achieved batch 5.6 of cap 128 (4%)");
    CHECK_CONTAINS(c.evidence, "KV cache 5.0% used on average (published)");
    CHECK_CONTAINS(c.evidence, "the batch stays at 4% of the cap and 5% of the memory ceiling "
                               "with the KV cache 5.0% full (room: <= 80%): neither the cap nor "
                               "memory binds");
    CHECK_CONTAINS(c.evidence, "upstream");
    jl_batch_ceiling_clear(&c);
    /* the series' batch on the other side of a threshold: mixed */
    s->published->recomputed[JL_FIG_AVG_BATCH_SIZE] = 125;
    CHECK(jl_batch_ceiling_run(s, NULL, NULL, &c) == JL_OK);
    CHECK_EQ_INT(c.limit, JL_BATCH_LIMIT_UPSTREAM);
    CHECK(c.mixed);
    CHECK_CONTAINS(c.evidence, "mixed evidence: the time series give batch 125.0 (98% of the "
                               "cap) against the published 5.6");
    jl_batch_ceiling_clear(&c);
    /* 2. engine/kv_cache_usage (no published block) */
    s = llm(&l, "no-such-model", "chat", "H100", 1, "bfloat16", 256, 20, NAN);
    s->fig[JL_FIG_AVG_KV_CACHE_USAGE] = 0.1;
    CHECK(jl_batch_ceiling_run(s, NULL, NULL, &c) == JL_OK);
    CHECK_EQ_INT(c.limit, JL_BATCH_LIMIT_UPSTREAM);
    CHECK_STR(c.kv_source, "engine/kv_cache_usage");
    jl_batch_ceiling_clear(&c);
    /* ... but its peak reaches full: mixed */
    s->fig[JL_FIG_PEAK_KV_CACHE_USAGE] = 0.95;
    CHECK(jl_batch_ceiling_run(s, NULL, NULL, &c) == JL_OK);
    CHECK_EQ_INT(c.limit, JL_BATCH_LIMIT_UPSTREAM);
    CHECK(c.mixed);
    CHECK_CONTAINS(c.evidence, "the KV cache peaks at 95%: memory binds at moments");
    jl_batch_ceiling_clear(&c);
    /* 3. the harness's Prometheus gauge as a run attribute */
    s = llm(&l, "no-such-model", "chat", "H100", 1, "bfloat16", 512, 30, NAN);
    CHECK(jl_attrs_add_extra(&s->attrs, "vllm:kv_cache_usage_perc", "0.08", 1) == JL_OK);
    CHECK(jl_batch_ceiling_run(s, NULL, NULL, &c) == JL_OK);
    CHECK_EQ_INT(c.limit, JL_BATCH_LIMIT_UPSTREAM);
    CHECK_STR(c.kv_source, "prometheus:vllm:kv_cache_usage_perc");
    CHECK_NEAR(c.kv_usage_avg, 0.08, 0, 0);
    CHECK_NEAR(c.memory.value, 30 / 0.08, 1e-12, 0); /* measured from the gauge */
    jl_batch_ceiling_clear(&c);
    /* a gauge outside 0..1 is not a share: ignored, no verdict */
    s = llm(&l, "no-such-model", "chat", "H100", 1, "bfloat16", 512, 30, NAN);
    CHECK(jl_attrs_add_extra(&s->attrs, "gpu_cache_usage_perc", "8", 1) == JL_OK);
    CHECK(jl_batch_ceiling_run(s, NULL, NULL, &c) == JL_OK);
    CHECK_EQ_INT(c.limit, JL_BATCH_LIMIT_UNKNOWN);
    CHECK_STR(c.kv_source, "none");
    jl_batch_ceiling_clear(&c);
    /* 4. KV between room and full: no verdict on memory, mixed */
    s = llm(&l, "no-such-model", "chat", "H100", 1, "bfloat16", 256, 100, NAN);
    s->fig[JL_FIG_AVG_KV_CACHE_USAGE] = 0.85;
    CHECK(jl_batch_ceiling_run(s, NULL, NULL, &c) == JL_OK);
    CHECK_EQ_INT(c.limit, JL_BATCH_LIMIT_UNKNOWN);
    CHECK(c.mixed);
    CHECK_CONTAINS(c.evidence, "between room (<= 80%) and full (>= 90%)");
    jl_batch_ceiling_clear(&c);
    /* 5. measured room against a descriptor arithmetic that says full
     * (Qwen3-32B on 1xB200, gpqa: ~111 sequences) */
    jl_descriptors *d = desc();
    s = llm(&l, "Qwen/Qwen3-32B", "gpqa", "B200", 1, "bfloat16", 256, 100, 7035);
    s->fig[JL_FIG_AVG_KV_CACHE_USAGE] = 0.3;
    CHECK(jl_batch_ceiling_run(s, d, NULL, &c) == JL_OK);
    CHECK_EQ_INT(c.limit, JL_BATCH_LIMIT_UPSTREAM);
    CHECK(c.mixed);
    CHECK_CONTAINS(c.evidence, "the memory arithmetic (~111 sequences, on an assumed input "
                               "length) says memory would bind near the achieved batch");
    jl_batch_ceiling_clear(&c);
    jl_descriptors_free(d);
    jl_summary_list_clear(&l);
}

TEST(arithmetic_from_attributes)
{
    jl_summary_list l = {0};
    jl_memory_ceiling m;
    /* 2 GPUs x 100 GB x 0.9 = 180 GB − 20 GB weights = 160 GB / 100 kB per
     * token = 1.6 M tokens / (1000 input + 2000/2 output) = 800 sequences */
    jl_summary *s = llm(&l, "x", "chat", "H100", 2, "bfloat16", 512, 512, 2000);
    s->attrs.gpu_memory_bytes = 100e9;
    s->attrs.total_params = 10e9;
    s->attrs.kv_bytes_per_token = 100e3;
    jl_attrs_add_extra(&s->attrs, "avg_input_tokens", "1000", 1);
    CHECK(jl_memory_ceiling_run(s, NULL, NULL, 0, &m) == JL_OK);
    CHECK_STR(m.method, "arithmetic");
    CHECK_STR(m.input_source, "attribute");
    CHECK_NEAR(m.value, 800, 1e-12, 0);
    CHECK_NEAR(m.kv_capacity_tokens, 1.6e6, 1e-12, 0);
    jl_memory_ceiling_clear(&m);
    /* one GPU: 90 − 20 = 70 GB -> 350 */
    CHECK(jl_memory_ceiling_run(s, NULL, NULL, 1, &m) == JL_OK);
    CHECK_NEAR(m.value, 350, 1e-12, 0);
    jl_memory_ceiling_clear(&m);
    /* a measured footprint is kept when the GPU count changes: pool 1e6
     * tokens, KV 50 % at b = 250 -> 2000 tokens per sequence */
    jl_attrs_add_extra(&s->attrs, "kv_pool_tokens", "1000000", 1);
    s->fig[JL_FIG_AVG_BATCH_SIZE] = 250;
    s->fig[JL_FIG_AVG_KV_CACHE_USAGE] = 0.5;
    CHECK(jl_memory_ceiling_run(s, NULL, NULL, 0, &m) == JL_OK);
    CHECK_STR(m.method, "measured");
    CHECK_NEAR(m.value, 500, 1e-12, 0);
    CHECK_NEAR(m.tokens_per_sequence, 2000, 1e-12, 0);
    jl_memory_ceiling_clear(&m);
    /* 4 GPUs: arithmetic capacity 4x90−20 = 340 GB vs 160 GB for 2 -> pool
     * scaled to 2.125 M tokens / 2000 = 1062.5 */
    CHECK(jl_memory_ceiling_run(s, NULL, NULL, 4, &m) == JL_OK);
    CHECK_NEAR(m.value, 1e6 * (340.0 / 160.0) / 2000, 1e-12, 0);
    jl_memory_ceiling_clear(&m);
    /* weights do not fit: ceiling 0 */
    s = llm(&l, "x", "chat", "H100", 1, "bfloat16", 8, 8, 100);
    s->attrs.gpu_memory_bytes = 10e9;
    s->attrs.total_params = 10e9;
    s->attrs.kv_bytes_per_token = 1e5;
    CHECK(jl_memory_ceiling_run(s, NULL, NULL, 0, &m) == JL_OK);
    CHECK_NEAR(m.value, 0, 0, 0);
    jl_memory_ceiling_clear(&m);
    jl_summary_list_clear(&l);
}

/* Window-limited attention layers hold min(context, window) tokens of a
 * sequence (models/models.json sliding_window_layers): the KV bytes per
 * token of context shrink by (full + window x min(1, window/context)) /
 * attention layers, and only when the context exceeds the window. */
TEST(sliding_window_kv)
{
    static const char gpus[] = "{\"gpus\":{\"G\":{\"memory_bytes\":100e9,\"tdp_w\":700}}}";
    static const char models[] =
        "{\"models\":{\"w/win\":{\"total_params\":10e9,\"active_params\":10e9,"
        "\"weight_bytes_per_param\":2,\"attention_layers\":4,\"sliding_window_layers\":3,"
        "\"sliding_window\":100,\"kv_bytes_per_token\":4000},"
        "\"w/full\":{\"total_params\":10e9,\"active_params\":10e9,"
        "\"weight_bytes_per_param\":2,\"attention_layers\":4,\"kv_bytes_per_token\":4000},"
        "\"w/bad\":{\"total_params\":10e9,\"active_params\":10e9,"
        "\"weight_bytes_per_param\":2,\"attention_layers\":4,\"sliding_window_layers\":9,"
        "\"sliding_window\":100,\"kv_bytes_per_token\":4000}}}";
    jl_descriptors *d = NULL;
    CHECK(jl_descriptors_load_buffers(gpus, sizeof gpus - 1, models, sizeof models - 1, &d, NULL) ==
          JL_OK);
    if (!d)
        return;
    jl_summary_list l = {0};
    jl_memory_ceiling mw, mf, mb, ms;
    /* task "chat": 613 input tokens; + 774/2 output = 1000 tokens of context */
    jl_summary *w = llm(&l, "w/win", "chat", "G", 1, "bfloat16", 8, 8, 774);
    jl_summary *f = llm(&l, "w/full", "chat", "G", 1, "bfloat16", 8, 8, 774);
    jl_summary *b = llm(&l, "w/bad", "chat", "G", 1, "bfloat16", 8, 8, 774);
    CHECK(jl_memory_ceiling_run(w, d, NULL, 0, &mw) == JL_OK);
    CHECK(jl_memory_ceiling_run(f, d, NULL, 0, &mf) == JL_OK);
    CHECK(jl_memory_ceiling_run(b, d, NULL, 0, &mb) == JL_OK);
    CHECK_NEAR(mw.context_tokens, 1000, 1e-9, 0);
    CHECK_NEAR(mw.kv_bytes_per_token_full, 4000, 0, 0);
    /* 1 full layer + 3 x 100/1000 of a layer, of 4: 1300 B/token */
    CHECK_NEAR(mw.kv_bytes_per_token, 1300, 1e-9, 0);
    CHECK_EQ_INT(mw.window_layers, 3);
    CHECK_EQ_INT(mw.window, 100);
    CHECK_NEAR(mw.arithmetic_value / mf.arithmetic_value, 4000.0 / 1300.0, 1e-9, 0);
    /* no window: unchanged; more window layers than attention layers: ignored */
    CHECK_NEAR(mf.kv_bytes_per_token, 4000, 0, 0);
    CHECK_EQ_INT(mf.window_layers, 0);
    CHECK_NEAR(mb.kv_bytes_per_token, 4000, 0, 0);
    /* a context inside the window: every layer holds all of it */
    jl_summary *sh = llm(&l, "w/win", "chat", "G", 1, "bfloat16", 8, 8, 40);
    jl_attrs_add_extra(&sh->attrs, "avg_input_tokens", "30", 1);
    CHECK(jl_memory_ceiling_run(sh, d, NULL, 0, &ms) == JL_OK);
    CHECK_NEAR(ms.context_tokens, 50, 1e-9, 0);
    CHECK_NEAR(ms.kv_bytes_per_token, 4000, 1e-9, 0);
    jl_memory_ceiling_clear(&mw);
    jl_memory_ceiling_clear(&mf);
    jl_memory_ceiling_clear(&mb);
    jl_memory_ceiling_clear(&ms);
    jl_summary_list_clear(&l);
    jl_descriptors_free(d);
}

/* The paper's examples through the descriptors (published runs carry no
 * memory or KV attributes). */
TEST(paper_memory_ceilings)
{
    jl_descriptors *d = desc();
    CHECK(d != NULL);
    if (!d)
        return;
    jl_summary_list l = {0};
    jl_memory_ceiling m1, m2, mb;
    /* §4.5: GPT OSS 120B, Problem Solving (gpqa), mean output ~1740 tokens.
     * 1xH100 is limited (the sweep stops at 64); 2xH100 unlocks 2048 (b = 1915
     * at cap 2048); 1xB200 (180 GB) fits batch 3072 (b = 2885). */
    jl_summary *h1 = llm(&l, "openai/gpt-oss-120b", "gpqa", "H100", 1, "mxfp4", 64, 64, 1739);
    jl_summary *h2 = llm(&l, "openai/gpt-oss-120b", "gpqa", "H100", 2, "mxfp4", 2048, 1915, 1721);
    jl_summary *b1 = llm(&l, "openai/gpt-oss-120b", "gpqa", "B200", 1, "mxfp4", 3072, 2885, 1794);
    CHECK(jl_memory_ceiling_run(h1, d, NULL, 0, &m1) == JL_OK);
    CHECK(jl_memory_ceiling_run(h2, d, NULL, 0, &m2) == JL_OK);
    CHECK(jl_memory_ceiling_run(b1, d, NULL, 0, &mb) == JL_OK);
    fprintf(stderr, "gpt-oss-120b gpqa: 1xH100 %.0f, 2xH100 %.0f, 1xB200 %.0f\n", m1.value,
            m2.value, mb.value);
    /* 64 fits; the 1-GPU ceiling is small. Re-pinned when the window-limited
     * layers got counted at min(context, window) (docs/model.md): the
     * arithmetic gives ~270, above the 64 at which the paper's sweep stopped
     * (a serving limit the arithmetic does not see), so only "under 512". */
    CHECK(m1.value >= 64 && m1.value < 512);
    /* 2xH100: the arithmetic meets the measured achieved batch at cap 2048
     * (1915, memory-bound) within 10 % -- counting the sliding-window layers
     * as full gave ~1,090 */
    CHECK(fabs(m2.value / 1915.0 - 1) < 0.10);
    /* a second GPU lifts it by far more than 2x (weights take most of one H100) */
    CHECK(m2.value / m1.value > 5);
    CHECK(m2.value >= 1000);
    /* B200's 180 GB: over a thousand sequences on one GPU */
    CHECK(mb.value >= 1000);
    /* the same through "what if": the 1xH100 run asked for 2 GPUs */
    jl_memory_ceiling w;
    CHECK(jl_memory_ceiling_run(h1, d, NULL, 2, &w) == JL_OK);
    CHECK(w.value / m1.value > 5);
    jl_memory_ceiling_clear(&w);
    /* classification: 2048 on 2xH100 and 3072 on 1xB200 ran below their caps
     * at the memory ceiling */
    jl_batch_ceiling c;
    CHECK(jl_batch_ceiling_run(h2, d, NULL, &c) == JL_OK);
    CHECK_EQ_INT(c.limit, JL_BATCH_LIMIT_MEMORY);
    jl_batch_ceiling_clear(&c);
    CHECK(jl_batch_ceiling_run(b1, d, NULL, &c) == JL_OK);
    CHECK_EQ_INT(c.limit, JL_BATCH_LIMIT_MEMORY);
    jl_batch_ceiling_clear(&c);
    jl_memory_ceiling_clear(&m1);
    jl_memory_ceiling_clear(&m2);
    jl_memory_ceiling_clear(&mb);

    /* Table 1: Qwen 3 32B on 1xB200 — Problem Solving (gpqa, 7,035 output
     * tokens) max batch 128, Text Conversation (lm-arena-chat, 627 tokens)
     * 512. At cap 128 gpqa achieved 110.9: memory-bound. */
    jl_summary *ps = llm(&l, "Qwen/Qwen3-32B", "gpqa", "B200", 1, "bfloat16", 128, 110.9, 7035);
    jl_summary *tc =
        llm(&l, "Qwen/Qwen3-32B", "lm-arena-chat", "B200", 1, "bfloat16", 512, 455.7, 627);
    CHECK(jl_memory_ceiling_run(ps, d, NULL, 0, &m1) == JL_OK);
    CHECK(jl_memory_ceiling_run(tc, d, NULL, 0, &m2) == JL_OK);
    fprintf(stderr, "Qwen3-32B 1xB200: gpqa %.0f, lm-arena-chat %.0f\n", m1.value, m2.value);
    CHECK(m1.value >= 96 && m1.value < 192); /* 128 was the largest that ran */
    CHECK(m2.value >= 512);                  /* 512 ran */
    CHECK(m2.value / m1.value > 4);          /* the paper: 0.25x */
    CHECK(jl_batch_ceiling_run(ps, d, NULL, &c) == JL_OK);
    CHECK_EQ_INT(c.limit, JL_BATCH_LIMIT_MEMORY);
    jl_batch_ceiling_clear(&c);
    CHECK(jl_batch_ceiling_run(tc, d, NULL, &c) == JL_OK);
    CHECK_EQ_INT(c.limit, JL_BATCH_LIMIT_CONFIG);
    jl_batch_ceiling_clear(&c);
    jl_memory_ceiling_clear(&m1);
    jl_memory_ceiling_clear(&m2);
    jl_summary_list_clear(&l);
    jl_descriptors_free(d);
}

TEST(group_ceiling_upstream_collapse)
{
    jl_summary_list l = {0};
    /* Qwen3-VL-8B image-chat on 1xB200 as measured (ML.ENERGY v3; design doc
     * §7): cap 8 -> 1119 tokens/s at 513 W; cap 16 -> 448 tokens/s at
     * 283 W; then throughput rises again up to batch 463 */
    double caps[] = {8, 16, 32, 64, 128, 256, 512};
    double bb[] = {7.86, 15.9, 31.9, 63.7, 127.6, 255.3, 463.2};
    double tt[] = {1119, 448, 759, 1273, 1399, 1933, 2301};
    double pw[] = {513, 283, 291, 311, 290, 325, 325};
    const jl_summary *runs[7];
    for (int i = 0; i < 7; i++) {
        jl_summary *s = llm(&l, "Qwen/Qwen3-VL-8B-Instruct", "image-chat", "B200", 1, "bfloat16",
                            (long)caps[i], bb[i], 300);
        s->fig[JL_FIG_OUTPUT_THROUGHPUT_TOK_S] = tt[i];
        s->fig[JL_FIG_AVG_POWER_W] = pw[i];
        runs[i] = s;
    }
    /* Before: "upstream ceiling ~8" from the collapse 8 -> 16, which refused
     * every prediction past batch 7.86. The cap-8 run is what the regime
     * rule of the fit sets apart: it sets no upstream ceiling. */
    jl_group_ceiling g;
    CHECK(jl_group_ceiling_compute(runs, 7, NULL, NULL, &g) == JL_OK);
    CHECK(isnan(g.upstream));
    CHECK_EQ_INT(g.n_regime_excluded, 1);
    CHECK_STR(g.binding, "none");
    CHECK(isinf(g.value));
    CHECK_CONTAINS(g.reason, "1 run of another regime");
    jl_group_ceiling_clear(&g);
    /* regime rule off: the collapse 8 -> 16 is seen, but throughput beats
     * cap 8's again at cap 64 (and batches up to 463 were measured): a dip,
     * not a ceiling */
    jl_ceiling_options co;
    jl_ceiling_options_default(&co);
    co.regime_ratio = 0;
    CHECK(jl_group_ceiling_compute(runs, 7, NULL, &co, &g) == JL_OK);
    CHECK(isnan(g.upstream));
    CHECK(g.upstream_run == runs[0]);
    CHECK_CONTAINS(g.reason, "no upstream ceiling: from cap 8 to 16");
    CHECK_CONTAINS(g.reason, "a dip, not a ceiling");
    jl_group_ceiling_clear(&g);
    /* a dip in the middle that recovers (Llama-3.1-8B on 1xB200, caps 64 ->
     * 128 -> 256): no upstream ceiling */
    jl_summary_list l3 = {0};
    const jl_summary *r5[5];
    double c5[] = {32, 64, 128, 256, 512}, t5[] = {3810, 5589, 4570, 7664, 9571},
           p5[] = {576, 617, 449, 540, 577};
    for (int i = 0; i < 5; i++) {
        jl_summary *s = llm(&l3, "y", "chat", "B200", 1, "bfloat16", (long)c5[i], c5[i], 300);
        s->fig[JL_FIG_OUTPUT_THROUGHPUT_TOK_S] = t5[i];
        s->fig[JL_FIG_AVG_POWER_W] = p5[i];
        r5[i] = s;
    }
    CHECK(jl_group_ceiling_compute(r5, 5, NULL, NULL, &g) == JL_OK);
    CHECK(isnan(g.upstream));
    CHECK(isinf(g.value));
    CHECK_CONTAINS(g.reason, "a dip, not a ceiling");
    jl_group_ceiling_clear(&g);
    /* a collapse that persists (no larger batch gets more throughput) and
     * is not a sweep end the regime rule sets apart: the ceiling is the
     * largest measured batch */
    double t6[] = {3810, 5589, 4570, 4700, 4800};
    for (int i = 0; i < 5; i++)
        l3.items[i]->fig[JL_FIG_OUTPUT_THROUGHPUT_TOK_S] = t6[i];
    CHECK(jl_group_ceiling_compute(r5, 5, NULL, NULL, &g) == JL_OK);
    CHECK_EQ_INT(g.n_regime_excluded, 0);
    CHECK_NEAR(g.upstream, 512, 0, 0);
    CHECK_STR(g.binding, "upstream");
    CHECK(g.upstream_run == r5[1]);
    jl_group_ceiling_clear(&g);
    jl_summary_list_clear(&l3);
    /* a healthy sweep: no upstream ceiling, no memory data: +inf */
    jl_summary_list l2 = {0};
    for (int i = 0; i < 4; i++) {
        jl_summary *s = llm(&l2, "x", "chat", "H100", 1, "bfloat16", (long)caps[i], caps[i], 300);
        s->fig[JL_FIG_OUTPUT_THROUGHPUT_TOK_S] = caps[i] / (0.01 + 0.0001 * caps[i]);
        s->fig[JL_FIG_AVG_POWER_W] = 300 + caps[i];
        runs[i] = s;
    }
    CHECK(jl_group_ceiling_compute(runs, 4, NULL, NULL, &g) == JL_OK);
    CHECK(isinf(g.value));
    CHECK_STR(g.binding, "none");
    jl_group_ceiling_clear(&g);
    jl_summary_list_clear(&l);
    jl_summary_list_clear(&l2);
}

int main(void)
{
    RUN(classification_hand_made);
    RUN(upstream_from_measured_kv);
    RUN(arithmetic_from_attributes);
    RUN(sliding_window_kv);
    RUN(paper_memory_ceilings);
    RUN(group_ceiling_upstream_collapse);
    TEST_MAIN_END();
}
