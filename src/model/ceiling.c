/* Batch ceilings: config, memory (KV cache), upstream (joules/ceiling.h,
 * docs/diagnose.md). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/stats.h"
#include "core/util.h"
#include "joules/ceiling.h"
#include "model/model_internal.h"

static const char *const limit_names[] = {
#define JL__X_BL_NAME(id, name, doc) name,
    JL_BATCH_LIMIT_TABLE(JL__X_BL_NAME)
#undef JL__X_BL_NAME
};

const char *jl_batch_limit_name(jl_batch_limit l)
{
    return (unsigned)l < JL_BATCH_LIMIT_COUNT ? limit_names[l] : "?";
}

void jl_ceiling_options_default(jl_ceiling_options *o)
{
    o->memory_share = 0.9;
    o->reserve_bytes_per_gpu = 0;
    o->at_cap = 0.95;
    o->churn_floor = 0.85;
    o->kv_full = 0.90;
    o->kv_room = 0.80;
    o->memory_match = 1.25;
    o->regime_ratio = 0.85;
}

/* Mean input tokens per request by task: assumptions, documented in
 * docs/diagnose.md ("Mean context"). Used only where a run carries no
 * avg_input_tokens attribute. */
static const struct {
    const char *task;
    double input_tokens;
} task_inputs[] = {
    {"gpqa", 250},             /* one GPQA Diamond question, four options, instruction */
    {"lm-arena-chat", 300},    /* LMArena conversation prompts */
    {"sourcegraph-fim", 1500}, /* code prefix + suffix for fill-in-the-middle */
    {"image-chat", 1500},      /* text + vision tokens of one image (rough) */
    {"video-chat", 6000},      /* text + vision tokens of a clip (rough) */
    {"chat", 613},             /* the bundled traces: lognormal, median 512, sigma 0.6 */
};

double jl_task_default_input_tokens(const char *task)
{
    if (!task)
        return NAN;
    for (size_t i = 0; i < sizeof task_inputs / sizeof task_inputs[0]; i++)
        if (!strcasecmp(task, task_inputs[i].task))
            return task_inputs[i].input_tokens;
    return NAN;
}

static double extra_number(const jl_attrs *a, const char *key)
{
    char buf[64];
    if (jl_attrs_get(a, key, buf, sizeof buf) != 0)
        return NAN;
    char *end = NULL;
    double v = strtod(buf, &end);
    return (end && end != buf && *end == '\0' && isfinite(v)) ? v : NAN;
}

static int pos(double v)
{
    return isfinite(v) && v > 0;
}

void jl_memory_ceiling_clear(jl_memory_ceiling *m)
{
    if (m) {
        free(m->missing);
        m->missing = NULL;
    }
}

/* Window-limited attention layers (sliding window, chunked local attention)
 * hold min(context, window) tokens of a sequence, the others all of it: the
 * bytes per token of context are the full-attention figure scaled by
 * (full layers + window layers x min(1, window/context)) / attention layers. */
static int has_windows(const jl_model_desc *md)
{
    return md && md->sliding_window_layers > 0 && md->sliding_window > 0 &&
           md->attention_layers > 0 && md->sliding_window_layers <= md->attention_layers;
}

double jl__model_window_scale(const jl_model_desc *md, double ctx)
{
    if (!has_windows(md) || !pos(ctx))
        return 1.0;
    double L = (double)md->attention_layers, w = (double)md->sliding_window_layers;
    double f = fmin(1.0, (double)md->sliding_window / ctx);
    return (L - w + w * f) / L;
}

static void window_limit(jl_memory_ceiling *m, const jl_model_desc *md)
{
    m->window_layers = m->window = 0;
    if (!has_windows(md) || !pos(m->kv_bytes_per_token) || !pos(m->context_tokens))
        return;
    m->kv_bytes_per_token *= jl__model_window_scale(md, m->context_tokens);
    m->window_layers = md->sliding_window_layers;
    m->window = md->sliding_window;
}

/* vLLM's KV-cache gauge as the ML.ENERGY harness scrapes it (Prometheus),
 * when a run carries it as an attribute: a share 0..1 despite "perc". */
static const char *const kv_gauges[] = {
    "vllm:kv_cache_usage_perc",
    "vllm:gpu_cache_usage_perc",
    "kv_cache_usage_perc",
    "gpu_cache_usage_perc",
};
static const char *const kv_gauge_sources[] = {
    "prometheus:vllm:kv_cache_usage_perc",
    "prometheus:vllm:gpu_cache_usage_perc",
    "prometheus:kv_cache_usage_perc",
    "prometheus:gpu_cache_usage_perc",
};

/* The measured mean KV-cache use of s (NaN when none) and its source. */
int jl__memory_own_gpu_key(const char *key)
{
    if (!key)
        return 0;
    if (!strcmp(key, "kv_pool_tokens"))
        return 1;
    for (size_t i = 0; i < sizeof kv_gauges / sizeof kv_gauges[0]; i++)
        if (!strcmp(key, kv_gauges[i]))
            return 1;
    return 0;
}

static double kv_mean(const jl_summary *s, const char **source)
{
    double k = s->fig[JL_FIG_AVG_KV_CACHE_USAGE];
    if (isfinite(k)) {
        int pub = s->steady_method == JL_STEADY_SUMMARY ||
                  (s->published && isfinite(s->published->fig[JL_FIG_AVG_KV_CACHE_USAGE]));
        *source = pub ? "published" : "engine/kv_cache_usage";
        return k;
    }
    for (size_t i = 0; i < sizeof kv_gauges / sizeof kv_gauges[0]; i++) {
        double v = extra_number(&s->attrs, kv_gauges[i]);
        if (isfinite(v) && v >= 0 && v <= 1) {
            *source = kv_gauge_sources[i];
            return v;
        }
    }
    *source = "none";
    return NAN;
}

/* Arithmetic capacity in KV tokens for G GPUs (NaN when not computable). */
static double capacity_tokens(const jl_memory_ceiling *m, double G, const jl_ceiling_options *o)
{
    double usable = G * m->gpu_memory_bytes * o->memory_share - G * o->reserve_bytes_per_gpu;
    return (usable - m->weight_bytes) / m->kv_bytes_per_token;
}

jl_status jl_memory_ceiling_run(const jl_summary *s, const jl_descriptors *d,
                                const jl_ceiling_options *opt, long gpus, jl_memory_ceiling *m)
{
    jl_ceiling_options defo;
    if (!opt) {
        jl_ceiling_options_default(&defo);
        opt = &defo;
    }
    const jl_attrs *a = &s->attrs;
    memset(m, 0, sizeof *m);
    m->value = m->arithmetic_value = NAN;
    m->method = "none";
    double G0 = a->num_gpus > 0 ? (double)a->num_gpus : NAN;
    double G = gpus > 0 ? (double)gpus : G0;
    m->num_gpus = G;
    m->gpu_memory_bytes = jl_run_gpu_memory_bytes(a, d);
    m->weight_bytes = jl_run_weight_bytes(a, d);
    m->kv_bytes_per_token = jl_run_kv_bytes_per_token(a, d);
    m->usable_bytes = G * m->gpu_memory_bytes * opt->memory_share - G * opt->reserve_bytes_per_gpu;
    m->mean_output_tokens = s->fig[JL_FIG_AVG_OUTPUT_TOKENS];
    m->mean_input_tokens = extra_number(a, "avg_input_tokens");
    if (!pos(m->mean_input_tokens))
        m->mean_input_tokens = extra_number(a, "mean_input_tokens");
    m->input_source = "attribute";
    if (!pos(m->mean_input_tokens)) {
        m->mean_input_tokens = jl_task_default_input_tokens(a->task);
        m->input_source = isfinite(m->mean_input_tokens) ? "task_default" : "none";
    }
    m->context_tokens = m->mean_input_tokens + 0.5 * m->mean_output_tokens;
    m->kv_bytes_per_token_full = m->kv_bytes_per_token;
    window_limit(m, d ? jl_descriptors_model(d, a->model) : NULL);
    m->kv_usage = kv_mean(s, &m->kv_source);
    m->tokens_per_sequence = NAN;

    jl__strbuf miss;
    jl__strbuf_init(&miss);
    int nmiss = 0;
#define MISS(cond, what)                             \
    if (!(cond)) {                                   \
        jl__strbuf_puts(&miss, nmiss++ ? ", " : ""); \
        jl__strbuf_puts(&miss, what);                \
    }
    MISS(pos(G), "num_gpus");
    MISS(pos(m->gpu_memory_bytes), "GPU memory (gpu_memory_bytes or a GPU descriptor)");
    MISS(pos(m->weight_bytes), "weight bytes (total_params and precision, or a model descriptor)");
    MISS(pos(m->kv_bytes_per_token),
         "KV bytes per token (kv_bytes_per_token or a model descriptor)");
#undef MISS
    double pool = extra_number(a, "kv_pool_tokens");
    double cap_tokens = NAN;
    if (!nmiss) {
        cap_tokens = capacity_tokens(m, G, opt);
        /* The trace's own pool size wins for its own GPU count; for another
         * count it is rescaled by the arithmetic. */
        if (pos(pool) && pos(G0)) {
            double c0 = capacity_tokens(m, G0, opt);
            cap_tokens = (G == G0 || !pos(c0)) ? pool : pool * cap_tokens / c0;
        }
    } else if (pos(pool) && G == G0) {
        cap_tokens = pool;
    }
    m->kv_capacity_tokens = cap_tokens;
    if (isfinite(cap_tokens) && cap_tokens <= 0) {
        jl__strbuf_puts(&miss, nmiss++ ? ", " : "");
        jl__strbuf_puts(&miss, "room for the KV cache (the weights do not fit)");
        m->value = m->arithmetic_value = 0;
        m->method = "arithmetic";
    } else if (isfinite(cap_tokens)) {
        if (pos(m->context_tokens))
            m->arithmetic_value = cap_tokens / m->context_tokens;
        else {
            jl__strbuf_puts(&miss, nmiss++ ? ", " : "");
            jl__strbuf_puts(&miss, "mean context (avg_output_tokens, mean input tokens)");
        }
    }
    /* measured: the footprint per sequence the trace recorded */
    double b = s->fig[JL_FIG_AVG_BATCH_SIZE];
    if (pos(m->kv_usage) && pos(b)) {
        double ceil_own = b / m->kv_usage;
        if (pos(pool))
            m->tokens_per_sequence = m->kv_usage * pool / b;
        if (G == G0 || !(gpus > 0)) {
            m->value = ceil_own;
            m->method = "measured";
        } else if (isfinite(m->tokens_per_sequence) && pos(cap_tokens)) {
            m->value = cap_tokens / m->tokens_per_sequence;
            m->method = "measured";
        } else if (pos(cap_tokens) && !nmiss) {
            double c0 = capacity_tokens(m, G0, opt);
            if (pos(c0)) {
                m->value = ceil_own * cap_tokens / c0;
                m->method = "measured";
            }
        }
    }
    if (!strcmp(m->method, "none") && isfinite(m->arithmetic_value)) {
        m->value = m->arithmetic_value;
        m->method = "arithmetic";
    }
    if (nmiss) {
        m->missing = jl__strbuf_take(&miss);
        if (!m->missing)
            return JL_ENOMEM;
    } else {
        jl__strbuf_free(&miss);
    }
    return JL_OK;
}

void jl_batch_ceiling_clear(jl_batch_ceiling *c)
{
    if (!c)
        return;
    jl_memory_ceiling_clear(&c->memory);
    free(c->evidence);
    c->evidence = NULL;
}

int jl_memory_ceiling_assumed(const jl_memory_ceiling *m)
{
    return !strcmp(m->method, "arithmetic") && m->input_source &&
           !strcmp(m->input_source, "task_default");
}

static void memory_words(jl__strbuf *sb, const jl_memory_ceiling *m)
{
    if (!strcmp(m->method, "measured")) {
        jl__strbuf_printf(sb, "memory ceiling ~%.0f (measured: b / KV use", m->value);
        if (isfinite(m->tokens_per_sequence))
            jl__strbuf_printf(sb, ", %.0f tokens per sequence of a %.0f-token pool",
                              m->tokens_per_sequence, m->kv_capacity_tokens);
        jl__strbuf_puts(sb, ")");
    } else if (!strcmp(m->method, "arithmetic")) {
        char win[96] = "";
        if (m->window_layers > 0)
            snprintf(win, sizeof win, " (%ld window-limited layers at %ld tokens)",
                     m->window_layers, m->window);
        jl__strbuf_printf(sb,
                          "memory ceiling ~%.0f (arithmetic: %.0f x %.1f GB x %.2f - %.1f GB "
                          "weights = %.0fk KV tokens at %.0f B/token%s, / %.0f tokens per "
                          "sequence = %.0f input%s + %.0f/2 output)",
                          m->value, m->num_gpus, m->gpu_memory_bytes / 1e9,
                          m->usable_bytes / (m->num_gpus * m->gpu_memory_bytes),
                          m->weight_bytes / 1e9, m->kv_capacity_tokens / 1e3, m->kv_bytes_per_token,
                          win, m->context_tokens, m->mean_input_tokens,
                          jl_memory_ceiling_assumed(m) ? " (assumed: the task's default)" : "",
                          m->mean_output_tokens);
    } else {
        jl__strbuf_printf(sb, "memory ceiling unknown (missing: %s)",
                          m->missing ? m->missing : "KV-cache data");
    }
}

/* Evidence that points another way than the verdict: said in words and
 * flagged (c->mixed). docs/diagnose.md, "Mixed evidence". */
static void mixed_evidence(jl__strbuf *sb, jl_batch_ceiling *c, const jl_summary *s,
                           const jl_ceiling_options *opt, int k_known, double r)
{
    double b = c->achieved, k = c->kv_usage_avg, Ma = c->memory.arithmetic_value;
    int n = 0;
#define MIXED(...)                                              \
    do {                                                        \
        jl__strbuf_puts(sb, n++ ? "; " : "; mixed evidence: "); \
        jl__strbuf_printf(sb, __VA_ARGS__);                     \
    } while (0)
    if (k_known && k > opt->kv_room && k < opt->kv_full)
        MIXED("the KV cache is %.0f%% full, between room (<= %.0f%%) and full (>= %.0f%%)", 100 * k,
              100 * opt->kv_room, 100 * opt->kv_full);
    if (k_known && k <= opt->kv_room && isfinite(Ma) && Ma <= opt->memory_match * b)
        MIXED("the memory arithmetic (~%.0f sequences%s) says memory would bind near the "
              "achieved batch, the measured KV use says it has room (the measurement is taken)",
              Ma,
              !strcmp(c->memory.input_source ? c->memory.input_source : "", "task_default")
                  ? ", on an assumed input length"
                  : "");
    if (k_known && k >= opt->kv_full && isfinite(Ma) && Ma > opt->memory_match * b)
        MIXED("the memory arithmetic (~%.0f sequences) leaves room, the measured KV use is full "
              "(the measurement is taken)",
              Ma);
    if (k_known && k <= opt->kv_room && isfinite(c->kv_usage_peak) &&
        c->kv_usage_peak >= opt->kv_full)
        MIXED("the KV cache peaks at %.0f%%: memory binds at moments", 100 * c->kv_usage_peak);
    if (s->published) {
        /* the series' own batch against the published one used here */
        double rb = s->published->recomputed[JL_FIG_AVG_BATCH_SIZE];
        double rr = rb / c->cap;
        int side = (r >= opt->at_cap) + (r >= opt->churn_floor);
        int rside = (rr >= opt->at_cap) + (rr >= opt->churn_floor);
        if (isfinite(rr) && side != rside)
            MIXED("the time series give batch %.1f (%.0f%% of the cap) against the published "
                  "%.1f: on the other side of a threshold (%.0f%%, %.0f%%)",
                  rb, 100 * rr, b, 100 * opt->churn_floor, 100 * opt->at_cap);
        else if (isfinite(rr) && jl_summary_figure_marked(s, JL_FIG_AVG_BATCH_SIZE))
            jl__strbuf_printf(sb,
                              "; the time series give batch %.1f against the published %.1f "
                              "(the same verdict)",
                              rb, b);
    }
#undef MIXED
    c->mixed = n > 0;
}

jl_status jl_batch_ceiling_run(const jl_summary *s, const jl_descriptors *d,
                               const jl_ceiling_options *opt, jl_batch_ceiling *c)
{
    jl_ceiling_options defo;
    if (!opt) {
        jl_ceiling_options_default(&defo);
        opt = &defo;
    }
    memset(c, 0, sizeof *c);
    c->limit = JL_BATCH_LIMIT_UNKNOWN;
    c->ceiling = NAN;
    c->cap = s->attrs.max_batch_size > 0 ? (double)s->attrs.max_batch_size : NAN;
    c->achieved = s->fig[JL_FIG_AVG_BATCH_SIZE];
    c->kv_usage_avg = kv_mean(s, &c->kv_source);
    c->kv_usage_peak = s->fig[JL_FIG_PEAK_KV_CACHE_USAGE];
    if (jl_memory_ceiling_run(s, d, opt, 0, &c->memory) != JL_OK)
        return JL_ENOMEM;
    jl__strbuf sb;
    jl__strbuf_init(&sb);
    if (jl_attrs_is_diffusion(&s->attrs)) {
        c->limit = JL_BATCH_LIMIT_CONFIG;
        c->ceiling = c->cap;
        c->achieved = isfinite(c->achieved) ? c->achieved : c->cap;
        c->achieved_over_cap = c->achieved / c->cap;
        c->memory_headroom = NAN;
        jl__strbuf_printf(&sb, "diffusion: every batch has the configured size %.0f", c->cap);
        goto done;
    }
    double b = c->achieved, cap = c->cap, M = c->memory.value, k = c->kv_usage_avg;
    c->achieved_over_cap = b / cap;
    c->memory_headroom = pos(b) && isfinite(M) ? M / b : NAN;
    if (!pos(b) || !pos(cap)) {
        /* say which is missing: the cap may well be known */
        if (pos(cap))
            jl__strbuf_printf(&sb,
                              "no achieved batch (avg_batch_size: the engine's running "
                              "requests) to compare with the cap of %.0f",
                              cap);
        else if (pos(b))
            jl__strbuf_printf(&sb,
                              "no batch-size cap (max_batch_size) to compare the achieved batch "
                              "of %.3g with",
                              b);
        else
            jl__strbuf_puts(&sb, "neither an achieved batch (avg_batch_size) nor a batch-size "
                                 "cap (max_batch_size) to compare");
        goto done;
    }
    double r = b / cap;
    int k_known = pos(k) || k == 0;
    int mem_full =
        (k_known && k >= opt->kv_full) || (!k_known && isfinite(M) && M <= opt->memory_match * b);
    int mem_room = k_known ? k <= opt->kv_room : (isfinite(M) && M > opt->memory_match * b);
    if (r >= opt->at_cap) {
        c->limit = JL_BATCH_LIMIT_CONFIG;
        c->ceiling = cap;
    } else if (mem_full) {
        c->limit = JL_BATCH_LIMIT_MEMORY;
        /* The arithmetic may sit below the achieved batch when it is an upper
         * bound on KV use (e.g. sliding-window layers counted as full): the
         * observed batch is then the best estimate of where memory binds. */
        c->ceiling = isfinite(M) && M > b ? M : b;
    } else if (r >= opt->churn_floor && mem_room) {
        c->limit = JL_BATCH_LIMIT_CONFIG;
        c->ceiling = cap;
    } else if (r < opt->churn_floor && mem_room) {
        c->limit = JL_BATCH_LIMIT_UPSTREAM;
        c->ceiling = b;
    }
    jl__strbuf_printf(&sb, "achieved batch %.1f of cap %.0f (%.0f%%)", b, cap, r * 100);
    if (k_known)
        jl__strbuf_printf(&sb, "; KV cache %.*f%% used on average", k < 0.1 ? 1 : 0, k * 100);
    if (k_known && isfinite(c->kv_usage_peak))
        jl__strbuf_printf(&sb, " (peak %.*f%%; %s)", c->kv_usage_peak < 0.1 ? 1 : 0,
                          c->kv_usage_peak * 100, c->kv_source);
    else if (k_known)
        jl__strbuf_printf(&sb, " (%s)", c->kv_source);
    jl__strbuf_puts(&sb, "; ");
    memory_words(&sb, &c->memory);
    switch (c->limit) {
    case JL_BATCH_LIMIT_CONFIG:
        if (r >= opt->at_cap)
            jl__strbuf_puts(&sb, " => the configured cap binds");
        else
            jl__strbuf_printf(&sb,
                              " => the configured cap binds (the %.0f%% shortfall is "
                              "scheduling churn: memory has room)",
                              (1 - r) * 100);
        if (mem_full && !k_known && isfinite(M) && M < b)
            jl__strbuf_puts(&sb, "; the memory arithmetic is below the achieved batch, so it "
                                 "overstates KV use for this model (e.g. sliding-window layers "
                                 "counted as full): memory is near");
        else if (mem_full)
            jl__strbuf_puts(&sb, "; memory is also close to full");
        break;
    case JL_BATCH_LIMIT_MEMORY:
        if (k_known)
            jl__strbuf_puts(&sb, " => the KV cache is full: memory binds");
        else if (isfinite(M) && M < b)
            jl__strbuf_puts(&sb, " => below the cap and at or past the memory arithmetic "
                                 "(an upper bound on KV use): memory binds");
        else
            jl__strbuf_puts(&sb, " => below the cap at the memory ceiling: memory binds");
        break;
    case JL_BATCH_LIMIT_UPSTREAM:
        jl__strbuf_printf(&sb, " => the batch stays at %.*f%% of the cap", r < 0.01 ? 1 : 0,
                          r * 100);
        if (isfinite(M) && M > 0)
            jl__strbuf_printf(&sb, " and %.*f%% of the memory ceiling", b / M < 0.01 ? 1 : 0,
                              100 * b / M);
        if (k_known)
            jl__strbuf_printf(&sb, " with the KV cache %.*f%% full (room: <= %.0f%%)",
                              k < 0.1 ? 1 : 0, k * 100, 100 * opt->kv_room);
        jl__strbuf_puts(&sb,
                        ": neither the cap nor memory binds; sequences do not reach the GPU "
                        "fast enough (upstream, e.g. CPU-side preprocessing or request supply, "
                        "paper §3.2)");
        break;
    default: jl__strbuf_puts(&sb, " => not enough evidence to say which ceiling binds"); break;
    }
    mixed_evidence(&sb, c, s, opt, k_known, r);
done:
    c->evidence = jl__strbuf_take(&sb);
    return c->evidence ? JL_OK : JL_ENOMEM;
}

void jl_group_ceiling_clear(jl_group_ceiling *g)
{
    if (g) {
        free(g->reason);
        g->reason = NULL;
    }
}

static int cmp_run_cap(const void *pa, const void *pb)
{
    const jl_summary *a = *(const jl_summary *const *)pa, *b = *(const jl_summary *const *)pb;
    return (a->attrs.max_batch_size > b->attrs.max_batch_size) -
           (a->attrs.max_batch_size < b->attrs.max_batch_size);
}

/* The run's (b, T) when both are usable, as the fit takes its points. */
static int sweep_point(const jl_summary *s, double *b, double *T)
{
    *b = s->fig[JL_FIG_AVG_BATCH_SIZE];
    *T = s->fig[JL_FIG_OUTPUT_THROUGHPUT_TOK_S];
    return pos(*b) && pos(*T) && pos(s->fig[JL_FIG_AVG_POWER_W]);
}

/* What the group ceiling finds along the way, for its reason: the memory
 * ceilings behind the median, the collapse of throughput along the sweep
 * (between collapse and after), the run whose higher throughput past the
 * upstream ceiling undoes it, and the upstream ceiling as detected before
 * it was held to the batches measured. */
typedef struct gc_found {
    size_t nm, n_assumed;
    const jl_summary *collapse, *after, *recovered;
    double detected;
} gc_found;

/* keep[i]: run i of the fitted regime (jl__model_regime_keep over the
 * usable runs, as the fit does); the count set apart into g. vb, vT, vk:
 * scratch of n each. */
static void gc_regime(const jl_summary *const *runs, size_t n, const jl_ceiling_options *opt,
                      int *keep, double *vb, double *vT, int *vk, jl_group_ceiling *g)
{
    size_t nv = 0;
    for (size_t i = 0; i < n; i++)
        if (sweep_point(runs[i], &vb[nv], &vT[nv]))
            nv++;
    jl__model_regime_keep(vb, vT, nv, opt->regime_ratio, vk);
    for (size_t i = 0, k = 0; i < n; i++) {
        double b, T;
        keep[i] = sweep_point(runs[i], &b, &T) ? vk[k++] : 1;
        g->n_regime_excluded += !keep[i];
    }
}

/* The median memory ceiling over the runs, and the largest batch a run of
 * the fitted regime was held back at upstream. mem: scratch of n.
 * JL_ENOMEM only. */
static jl_status gc_runs(const jl_summary *const *runs, size_t n, const jl_descriptors *d,
                         const jl_ceiling_options *opt, const int *keep, double *mem,
                         jl_group_ceiling *g, gc_found *fd)
{
    for (size_t i = 0; i < n; i++) {
        jl_batch_ceiling c;
        if (jl_batch_ceiling_run(runs[i], d, opt, &c) != JL_OK) {
            jl_batch_ceiling_clear(&c);
            return JL_ENOMEM;
        }
        /* a memory-bound run's ceiling is at least its achieved batch */
        double v = c.limit == JL_BATCH_LIMIT_MEMORY ? c.ceiling : c.memory.value;
        if (isfinite(v)) {
            mem[fd->nm++] = v;
            fd->n_assumed += jl_memory_ceiling_assumed(&c.memory);
        }
        if (keep[i] && c.limit == JL_BATCH_LIMIT_UPSTREAM &&
            (!isfinite(g->upstream) || c.achieved > g->upstream)) {
            g->upstream = c.achieved;
            g->upstream_run = runs[i];
        }
        jl_batch_ceiling_clear(&c);
    }
    if (fd->nm)
        g->memory = jl__median_d(mem, fd->nm);
    return JL_OK;
}

/* Throughput collapsing along the sweep (sorted by cap, one regime): the
 * batch grows 1.5x while throughput and power fall. An earlier upstream
 * ceiling than the runs' own. */
static void gc_collapse(const jl_summary **sorted, size_t ns, jl_group_ceiling *g, gc_found *fd)
{
    for (size_t i = 0; i + 1 < ns && !fd->collapse; i++) {
        const jl_summary *p = sorted[i], *q = sorted[i + 1];
        double bp = p->fig[JL_FIG_AVG_BATCH_SIZE], bq = q->fig[JL_FIG_AVG_BATCH_SIZE];
        double tp = p->fig[JL_FIG_OUTPUT_THROUGHPUT_TOK_S],
               tq = q->fig[JL_FIG_OUTPUT_THROUGHPUT_TOK_S];
        double pp = p->fig[JL_FIG_AVG_POWER_W], pq = q->fig[JL_FIG_AVG_POWER_W];
        if (pos(bp) && pos(bq) && pos(tp) && pos(tq) && pos(pp) && pos(pq) && bq >= 1.5 * bp &&
            tq < 0.95 * tp && pq < pp) {
            fd->collapse = p;
            fd->after = q;
        }
    }
    if (fd->collapse) {
        double bc = fd->collapse->fig[JL_FIG_AVG_BATCH_SIZE];
        if (!isfinite(g->upstream) || bc < g->upstream) {
            g->upstream = bc;
            g->upstream_run = fd->collapse;
        }
    }
}

/* The upstream ceiling not below a batch measured in the same regime: gone
 * when a larger batch got more throughput (a dip), else at least the
 * largest batch measured. */
static void gc_not_below_measured(const jl_summary **sorted, size_t ns, jl_group_ceiling *g,
                                  gc_found *fd)
{
    double bmax = NAN;
    fd->detected = g->upstream;
    if (!isfinite(g->upstream))
        return;
    double be, Te;
    sweep_point(g->upstream_run, &be, &Te);
    for (size_t i = 0; i < ns; i++) {
        double b, T;
        if (!sweep_point(sorted[i], &b, &T))
            continue;
        if (!(b <= bmax))
            bmax = b;
        if (b > be && T > Te && !fd->recovered)
            fd->recovered = sorted[i];
    }
    if (fd->recovered)
        g->upstream = NAN;
    else if (bmax > g->upstream)
        g->upstream = bmax;
}

/* g->reason: the memory ceiling and the upstream one, with their evidence.
 * NULL on out-of-memory. */
static char *gc_reason(const jl_group_ceiling *g, const gc_found *fd)
{
    jl__strbuf sb;
    jl__strbuf_init(&sb);
    if (isfinite(g->memory)) {
        jl__strbuf_printf(&sb, "memory ceiling ~%.0f sequences (median over %zu runs", g->memory,
                          fd->nm);
        if (fd->n_assumed)
            jl__strbuf_printf(&sb, "; %zu of them on an assumed per-task input length",
                              fd->n_assumed);
        jl__strbuf_puts(&sb, ")");
    } else
        jl__strbuf_puts(&sb, "memory ceiling unknown");
    const jl_summary *collapse = fd->collapse, *after = fd->after, *recovered = fd->recovered;
    const char *lead = recovered ? "no upstream ceiling" : "upstream ceiling";
    if (collapse && g->upstream_run == collapse) {
        jl__strbuf_printf(&sb, "; %s", lead);
        if (!recovered)
            jl__strbuf_printf(&sb, " ~%.0f", g->upstream);
        jl__strbuf_printf(&sb,
                          ": from cap %ld to %ld the batch grew %.1fx but throughput fell "
                          "%.0f%% and power %.0f%%",
                          collapse->attrs.max_batch_size, after->attrs.max_batch_size,
                          after->fig[JL_FIG_AVG_BATCH_SIZE] / collapse->fig[JL_FIG_AVG_BATCH_SIZE],
                          (1 - after->fig[JL_FIG_OUTPUT_THROUGHPUT_TOK_S] /
                                   collapse->fig[JL_FIG_OUTPUT_THROUGHPUT_TOK_S]) *
                              100,
                          (1 - after->fig[JL_FIG_AVG_POWER_W] / collapse->fig[JL_FIG_AVG_POWER_W]) *
                              100);
    } else if (isfinite(fd->detected)) {
        jl__strbuf_printf(&sb, "; %s", lead);
        if (!recovered)
            jl__strbuf_printf(&sb, " ~%.0f", g->upstream);
        jl__strbuf_printf(&sb, ": the run at cap %ld was held back upstream at batch %.0f",
                          g->upstream_run->attrs.max_batch_size, fd->detected);
    }
    if (recovered)
        jl__strbuf_printf(&sb,
                          ", but at cap %ld (batch %.0f) throughput was higher again: a dip, "
                          "not a ceiling",
                          recovered->attrs.max_batch_size, recovered->fig[JL_FIG_AVG_BATCH_SIZE]);
    else if (isfinite(g->upstream) && g->upstream > fd->detected)
        jl__strbuf_printf(&sb,
                          " (the GPU got less work) and no larger batch got more throughput; "
                          "batches up to %.0f were measured, so predictions stop there",
                          g->upstream);
    else if (collapse && g->upstream_run == collapse)
        jl__strbuf_puts(&sb, " (the GPU got less work)");
    if (g->n_regime_excluded)
        jl__strbuf_printf(&sb,
                          "; %zu run%s of another regime at the ends of the sweep not "
                          "used for the upstream ceiling",
                          g->n_regime_excluded, g->n_regime_excluded == 1 ? "" : "s");
    return jl__strbuf_take(&sb);
}

jl_status jl_group_ceiling_compute(const jl_summary *const *runs, size_t n, const jl_descriptors *d,
                                   const jl_ceiling_options *opt, jl_group_ceiling *g)
{
    jl_ceiling_options defo;
    if (!opt) {
        jl_ceiling_options_default(&defo);
        opt = &defo;
    }
    memset(g, 0, sizeof *g);
    g->value = INFINITY;
    g->memory = g->upstream = NAN;
    g->binding = "none";
    double *mem = n ? malloc(4 * n * sizeof *mem) : NULL;
    const jl_summary **sorted = n ? malloc(n * sizeof *sorted) : NULL;
    int *keep = n ? malloc(2 * n * sizeof *keep) : NULL;
    gc_found fd = {0, 0, NULL, NULL, NULL, NAN};
    jl_status st = JL_ENOMEM;
    if (n && (!mem || !sorted || !keep))
        goto end;
    gc_regime(runs, n, opt, keep, mem + n, mem + 2 * n, keep + n, g);
    if (gc_runs(runs, n, d, opt, keep, mem, g, &fd) != JL_OK)
        goto end;
    /* throughput collapse along the sweep, over the runs of one regime */
    size_t ns = 0;
    for (size_t i = 0; i < n; i++)
        if (keep[i])
            sorted[ns++] = runs[i];
    qsort(sorted, ns, sizeof *sorted, cmp_run_cap);
    gc_collapse(sorted, ns, g, &fd);
    gc_not_below_measured(sorted, ns, g, &fd);
    if (isfinite(g->memory) && (!isfinite(g->upstream) || g->memory <= g->upstream)) {
        g->value = g->memory;
        g->binding = "memory";
    } else if (isfinite(g->upstream)) {
        g->value = g->upstream;
        g->binding = "upstream";
    }
    g->reason = gc_reason(g, &fd);
    st = g->reason ? JL_OK : JL_ENOMEM;
end:
    free(mem);
    free(sorted);
    free(keep);
    return st;
}
