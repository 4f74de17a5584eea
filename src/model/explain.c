/* Energy-per-work ratio of two runs as multiplying factors (joules/explain.h,
 * docs/explain.md). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "joules/explain.h"
#include "joules/output.h"

static const char *const factor_names[] = {
#define JL__X_EF_NAME(id, name, words) #name,
    JL_EXPLAIN_FACTOR_TABLE(JL__X_EF_NAME)
#undef JL__X_EF_NAME
};
static const char *const factor_words[] = {
#define JL__X_EF_WORDS(id, name, words) words,
    JL_EXPLAIN_FACTOR_TABLE(JL__X_EF_WORDS)
#undef JL__X_EF_WORDS
};

const char *jl_explain_factor_name(jl_explain_factor_id f)
{
    return (unsigned)f < JL_EXPLAIN_FACTOR_COUNT ? factor_names[f] : "?";
}

/* The knobs, and which factors each can move (bit i = factor i). */
#define F(x) (1u << JL_EXPLAIN_##x)
#define ALL_WORK (F(DYNAMIC_POWER) | F(STEP_TIME))
static const struct {
    const char *name;
    unsigned factors;
} knob_table[] = {
    {"model", ALL_WORK | F(BATCH)},
    {"task", ALL_WORK | F(BATCH)},
    {"gpu_model", F(STATIC_POWER) | ALL_WORK | F(BATCH)},
    {"num_gpus", F(GPU_COUNT) | ALL_WORK | F(BATCH)},
    {"precision", ALL_WORK | F(BATCH)},
    {"max_batch_size", ALL_WORK | F(BATCH)},
    {"denoising_steps", ALL_WORK},
    {"height", ALL_WORK},
    {"width", ALL_WORK},
    {"num_frames", ALL_WORK},
};
#undef F
#define N_KNOBS (sizeof knob_table / sizeof knob_table[0])

/* Logarithmic mean; L(x, x) = x. */
static double logmean(double x, double y)
{
    if (x == y)
        return x;
    double d = log(x) - log(y);
    if (d == 0)
        return 0.5 * (x + y);
    return (x - y) / d;
}

static int note(jl_explanation *x, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static int note(jl_explanation *x, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = jl__vasprintf(fmt, ap);
    va_end(ap);
    if (!s)
        return -1;
    char **n = realloc(x->notes, (x->n_notes + 1) * sizeof *n);
    if (!n) {
        free(s);
        return -1;
    }
    x->notes = n;
    x->notes[x->n_notes++] = s;
    return 0;
}

void jl_explanation_free(jl_explanation *x)
{
    if (!x)
        return;
    for (size_t i = 0; i < x->n_knobs; i++) {
        free(x->knobs[i].a);
        free(x->knobs[i].b);
    }
    free(x->knobs);
    for (size_t i = 0; i < x->n_notes; i++)
        free(x->notes[i]);
    free(x->notes);
    free(x->sentence);
    free(x);
}

static const char *run_label(const jl_summary *s)
{
    return s->run ? s->run : "(run)";
}

/* "file.h5:run" for sentences (the base name of the file). */
static void put_label(jl__strbuf *sb, const jl_summary *s)
{
    if (s->file) {
        const char *base = strrchr(s->file, '/');
        jl__strbuf_printf(sb, "%s:", base ? base + 1 : s->file);
    }
    jl__strbuf_puts(sb, run_label(s));
}

/* Batch, throughput and energy of a run (per token or per item). */
typedef struct inputs {
    double e, P, T, b, G, idle;
    const char *idle_src;
} inputs;

static jl_status gather(const jl_summary *s, int diffusion, const jl_descriptors *d, inputs *in,
                        jl_error **err)
{
    const double *f = s->fig;
    jl_figure fe = diffusion ? JL_FIG_ENERGY_PER_ITEM_J : JL_FIG_ENERGY_PER_TOKEN_J;
    jl_figure ft = diffusion ? JL_FIG_ITEMS_PER_S : JL_FIG_OUTPUT_THROUGHPUT_TOK_S;
    in->e = f[fe];
    in->P = f[JL_FIG_AVG_POWER_W];
    in->T = f[ft];
    in->b = f[JL_FIG_AVG_BATCH_SIZE];
    if (!(isfinite(in->b) && in->b > 0) && s->attrs.max_batch_size > 0)
        in->b = (double)s->attrs.max_batch_size;
    in->G = s->attrs.num_gpus > 0 ? (double)s->attrs.num_gpus : NAN;
    struct {
        const char *name;
        double v;
    } need[] = {{jl_figure_name(fe), in->e},
                {"avg_power_w", in->P},
                {jl_figure_name(ft), in->T},
                {"avg_batch_size (or max_batch_size)", in->b},
                {"num_gpus", in->G}};
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        if (!(isfinite(need[i].v) && need[i].v > 0))
            return jl_fail(err, JL_ENODATA, s->file, s->run, NULL, -1, "cannot explain: %s is %s",
                           need[i].name, isfinite(need[i].v) ? "not positive" : "missing");
    in->idle_src = "none";
    in->idle = NAN;
    if (isfinite(s->attrs.gpu_idle_power_w) && s->attrs.gpu_idle_power_w > 0) {
        in->idle = s->attrs.gpu_idle_power_w;
        in->idle_src = "trace";
    } else if (d) {
        double v = jl_run_gpu_idle_w(&s->attrs, d);
        if (isfinite(v) && v > 0) {
            in->idle = v;
            in->idle_src = "descriptor";
        }
    }
    return JL_OK;
}

static int add_knobs(jl_explanation *x)
{
    const jl_summary *a = x->a, *b = x->b;
    x->knobs = calloc(N_KNOBS, sizeof *x->knobs);
    if (!x->knobs)
        return -1;
    for (size_t k = 0; k < N_KNOBS; k++) {
        char va[512], vb[512];
        int ha = jl_attrs_get(&a->attrs, knob_table[k].name, va, sizeof va) == 0;
        int hb = jl_attrs_get(&b->attrs, knob_table[k].name, vb, sizeof vb) == 0;
        if (!ha && !hb)
            continue;
        if (ha && hb) {
            char *ea = NULL, *eb = NULL;
            double na = strtod(va, &ea), nb = strtod(vb, &eb);
            if ((*ea == '\0' && *eb == '\0' && ea != va && eb != vb) ? na == nb : !strcmp(va, vb))
                continue;
        }
        jl_knob_diff *kd = &x->knobs[x->n_knobs];
        kd->knob = knob_table[k].name;
        kd->a = jl__strdup(ha ? va : "(missing)");
        kd->b = jl__strdup(hb ? vb : "(missing)");
        x->n_knobs++;
        if (!kd->a || !kd->b)
            return -1;
        for (int f = 0; f < JL_EXPLAIN_FACTOR_COUNT; f++)
            if (knob_table[k].factors & (1u << f)) {
                jl_explain_factor *fa = &x->factors[f];
                if (fa->n_knobs < sizeof fa->knobs / sizeof fa->knobs[0])
                    fa->knobs[fa->n_knobs++] = x->n_knobs - 1;
            }
    }
    return 0;
}

static void fmt_value(jl__strbuf *sb, double v, const char *unit)
{
    if (!isfinite(v)) {
        jl__strbuf_puts(sb, "?");
    } else if (!strcmp(unit, "s")) {
        if (v < 1)
            jl__strbuf_printf(sb, "%.3g ms", v * 1e3);
        else
            jl__strbuf_printf(sb, "%.3g s", v);
    } else if (!strcmp(unit, "W")) {
        jl__strbuf_printf(sb, "%.0f W", v);
    } else if (!strcmp(unit, "GPUs")) {
        jl__strbuf_printf(sb, "%.0f", v);
    } else {
        jl__strbuf_printf(sb, "%.4g", v);
    }
}

static void fmt_ratio(jl__strbuf *sb, double r)
{
    if (r >= 10 || r < 0.1)
        jl__strbuf_printf(sb, "%.3gx", r);
    else
        jl__strbuf_printf(sb, "%.2fx", r);
}

static int cmp_abs_desc(const void *pa, const void *pb)
{
    const jl_explain_factor *a = *(const jl_explain_factor *const *)pa;
    const jl_explain_factor *b = *(const jl_explain_factor *const *)pb;
    double x = fabs(a->log_ratio), y = fabs(b->log_ratio);
    if (x != y)
        return x < y ? 1 : -1;
    return (a->id > b->id) - (a->id < b->id);
}

/* Factors within this of 1 (0.5 %) are "about the same". */
#define SAME_LOG 0.005

static char *make_sentence(const jl_explanation *x)
{
    jl__strbuf sb;
    jl__strbuf_init(&sb);
    jl__strbuf_puts(&sb, "A (");
    put_label(&sb, x->a);
    jl__strbuf_puts(&sb, ") uses ");
    fmt_ratio(&sb, x->ratio);
    jl__strbuf_printf(&sb, " the energy per %s of B (", x->work_unit);
    put_label(&sb, x->b);
    jl__strbuf_printf(&sb, "): %.4g vs %.4g J/%s", x->energy_a, x->energy_b, x->work_unit);
    if (x->ratio < 1)
        jl__strbuf_printf(&sb, ", %.0f%% less", (1 - x->ratio) * 100);
    else if (x->ratio > 1 && x->ratio < 2)
        jl__strbuf_printf(&sb, ", %.0f%% more", (x->ratio - 1) * 100);
    const jl_explain_factor *order[JL_EXPLAIN_FACTOR_COUNT];
    for (int i = 0; i < JL_EXPLAIN_FACTOR_COUNT; i++)
        order[i] = &x->factors[i];
    qsort(order, JL_EXPLAIN_FACTOR_COUNT, sizeof order[0], cmp_abs_desc);
    int n_listed = 0;
    for (int i = 0; i < JL_EXPLAIN_FACTOR_COUNT; i++) {
        const jl_explain_factor *f = order[i];
        if (fabs(f->log_ratio) < SAME_LOG)
            continue;
        if (f->id == JL_EXPLAIN_STATIC_POWER && !x->power_split)
            continue;
        jl__strbuf_puts(&sb, n_listed++ ? "; " : ". ");
        fmt_ratio(&sb, f->ratio);
        jl__strbuf_printf(&sb, " from %s", factor_words[f->id]);
        if (f->id == JL_EXPLAIN_DYNAMIC_POWER && !x->power_split)
            jl__strbuf_puts(&sb, " (all power; idle power unknown)");
        jl__strbuf_puts(&sb, " (");
        fmt_value(&sb, f->value_a, f->unit);
        jl__strbuf_puts(&sb, " vs ");
        fmt_value(&sb, f->value_b, f->unit);
        if (f->id == JL_EXPLAIN_BATCH)
            jl__strbuf_puts(&sb, f->value_a > f->value_b ? ", larger batch in A"
                                                         : ", smaller batch in A");
        if (f->n_knobs) {
            jl__strbuf_puts(&sb, f->n_knobs == 1 ? "; knob " : "; knobs ");
            for (size_t k = 0; k < f->n_knobs; k++) {
                const jl_knob_diff *kd = &x->knobs[f->knobs[k]];
                jl__strbuf_printf(&sb, "%s%s %s vs %s", k ? ", " : "", kd->knob, kd->a, kd->b);
            }
        } else {
            jl__strbuf_puts(&sb, "; no knob differs: measurement or serving variation");
        }
        jl__strbuf_puts(&sb, ")");
    }
    if (!n_listed)
        jl__strbuf_puts(&sb, ". No factor differs by more than 0.5%");
    int n_same = 0;
    for (int i = 0; i < JL_EXPLAIN_FACTOR_COUNT; i++) {
        const jl_explain_factor *f = &x->factors[i];
        if (fabs(f->log_ratio) >= SAME_LOG || (f->id == JL_EXPLAIN_STATIC_POWER && !x->power_split))
            continue;
        jl__strbuf_puts(&sb, n_same++ ? ", " : ". About the same: ");
        jl__strbuf_puts(&sb, factor_words[f->id]);
    }
    jl__strbuf_puts(&sb, ".");
    return jl__strbuf_take(&sb);
}

jl_status jl_explain(const jl_summary *a, const jl_summary *b, const jl_descriptors *d,
                     jl_explanation **out, jl_error **err)
{
    *out = NULL;
    int da = jl_attrs_is_diffusion(&a->attrs), db = jl_attrs_is_diffusion(&b->attrs);
    if (da != db)
        return jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1,
                       "cannot explain %s against %s: one is diffusion (energy per item), the "
                       "other is not (energy per token)",
                       run_label(a), run_label(b));
    inputs A, B;
    jl_status st;
    if ((st = gather(a, da, d, &A, err)) != JL_OK || (st = gather(b, da, d, &B, err)) != JL_OK)
        return st;
    jl_explanation *x = calloc(1, sizeof *x);
    if (!x)
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    x->a = a;
    x->b = b;
    x->energy_figure = da ? "energy_per_item_j" : "energy_per_token_j";
    x->work_unit = da ? "item" : "token";
    x->energy_a = A.e;
    x->energy_b = B.e;
    x->ratio = A.e / B.e;
    x->log_ratio = log(A.e) - log(B.e);
    x->power_a = A.P / A.G;
    x->power_b = B.P / B.G;
    x->static_source_a = A.idle_src;
    x->static_source_b = B.idle_src;

    double tauA = A.b / A.T, tauB = B.b / B.T;
    jl_explain_factor *f = x->factors;
    for (int i = 0; i < JL_EXPLAIN_FACTOR_COUNT; i++) {
        f[i].id = (jl_explain_factor_id)i;
        f[i].share = NAN;
    }
    f[JL_EXPLAIN_GPU_COUNT].log_ratio = log(A.G) - log(B.G);
    f[JL_EXPLAIN_GPU_COUNT].value_a = A.G;
    f[JL_EXPLAIN_GPU_COUNT].value_b = B.G;
    f[JL_EXPLAIN_GPU_COUNT].unit = "GPUs";
    f[JL_EXPLAIN_STEP_TIME].log_ratio = log(tauA) - log(tauB);
    f[JL_EXPLAIN_STEP_TIME].value_a = tauA;
    f[JL_EXPLAIN_STEP_TIME].value_b = tauB;
    f[JL_EXPLAIN_STEP_TIME].unit = "s";
    f[JL_EXPLAIN_BATCH].log_ratio = -(log(A.b) - log(B.b));
    f[JL_EXPLAIN_BATCH].value_a = A.b;
    f[JL_EXPLAIN_BATCH].value_b = B.b;
    f[JL_EXPLAIN_BATCH].unit = da ? "items" : "sequences";

    /* Power per GPU: static + dynamic with LMDI weights. */
    double pA = x->power_a, pB = x->power_b, lnp = log(pA) - log(pB);
    f[JL_EXPLAIN_STATIC_POWER].unit = "W";
    f[JL_EXPLAIN_DYNAMIC_POWER].unit = "W";
    int fail = 0;
    if (isfinite(A.idle) && isfinite(B.idle)) {
        x->power_split = 1;
        double sA = A.idle, sB = B.idle;
        if (sA > pA) {
            fail |= note(x,
                         "A: idle power %.0f W per GPU is above its mean power %.0f W per GPU; "
                         "static power taken as the mean power (dynamic 0)",
                         sA, pA);
            sA = pA;
        }
        if (sB > pB) {
            fail |= note(x,
                         "B: idle power %.0f W per GPU is above its mean power %.0f W per GPU; "
                         "static power taken as the mean power (dynamic 0)",
                         sB, pB);
            sB = pB;
        }
        double L = logmean(pA, pB);
        double ls = (sA - sB) / L;
        f[JL_EXPLAIN_STATIC_POWER].log_ratio = ls;
        /* The dynamic part takes the remainder, so the two add to ln(pA/pB)
         * exactly in floating point too ((dA − dB)/L up to rounding). */
        f[JL_EXPLAIN_DYNAMIC_POWER].log_ratio = lnp - ls;
        f[JL_EXPLAIN_STATIC_POWER].value_a = sA;
        f[JL_EXPLAIN_STATIC_POWER].value_b = sB;
        f[JL_EXPLAIN_DYNAMIC_POWER].value_a = pA - sA;
        f[JL_EXPLAIN_DYNAMIC_POWER].value_b = pB - sB;
        x->static_a = sA;
        x->static_b = sB;
    } else {
        x->power_split = 0;
        x->static_a = A.idle;
        x->static_b = B.idle;
        f[JL_EXPLAIN_STATIC_POWER].log_ratio = 0;
        f[JL_EXPLAIN_STATIC_POWER].value_a = A.idle;
        f[JL_EXPLAIN_STATIC_POWER].value_b = B.idle;
        f[JL_EXPLAIN_DYNAMIC_POWER].log_ratio = lnp;
        f[JL_EXPLAIN_DYNAMIC_POWER].value_a = pA;
        f[JL_EXPLAIN_DYNAMIC_POWER].value_b = pB;
        fail |= note(x,
                     "idle power unknown for %s (no gpu_idle_power_w, no GPU descriptor): the "
                     "whole power-per-GPU factor is reported as dynamic_power, with "
                     "values the total power per GPU",
                     !isfinite(A.idle) && !isfinite(B.idle) ? "both runs"
                     : !isfinite(A.idle)                    ? "A"
                                                            : "B");
    }

    double sum = 0;
    for (int i = 0; i < JL_EXPLAIN_FACTOR_COUNT; i++) {
        f[i].ratio = exp(f[i].log_ratio);
        sum += f[i].log_ratio;
    }
    x->residual = x->log_ratio - sum;
    for (int i = 0; i < JL_EXPLAIN_FACTOR_COUNT; i++)
        f[i].share = x->log_ratio != 0 ? f[i].log_ratio / x->log_ratio : NAN;
    if (fabs(x->residual) > 1e-6)
        fail |= note(x,
                     "the energy figures disagree with power / throughput by %.3g%% "
                     "(reported as residual)",
                     (exp(x->residual) - 1) * 100);
    if (!strcmp(A.idle_src, "descriptor") || !strcmp(B.idle_src, "descriptor"))
        fail |= note(x,
                     "static power from the GPU descriptor (typical idle), not measured, "
                     "for %s",
                     strcmp(A.idle_src, "descriptor")   ? "B"
                     : strcmp(B.idle_src, "descriptor") ? "A"
                                                        : "both runs");
    if (fail || add_knobs(x) || !(x->sentence = make_sentence(x))) {
        jl_explanation_free(x);
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    }
    *out = x;
    return JL_OK;
}

json_t *jl_explain_document(const jl_explanation *x)
{
    json_t *doc = json_object();
    if (!doc)
        return NULL;
    int bad = 0;
    bad |= json_object_set_new(doc, "schema", json_string("joules.explain/1"));
    bad |= json_object_set_new(doc, "a", jl_run_key_to_json(x->a));
    bad |= json_object_set_new(doc, "b", jl_run_key_to_json(x->b));
    bad |= json_object_set_new(doc, "energy_figure", json_string(x->energy_figure));
    bad |= json_object_set_new(doc, "energy_a", jl_json_number(x->energy_a));
    bad |= json_object_set_new(doc, "energy_b", jl_json_number(x->energy_b));
    bad |= json_object_set_new(doc, "ratio", jl_json_number(x->ratio));
    bad |= json_object_set_new(doc, "log_ratio", jl_json_number(x->log_ratio));
    bad |= json_object_set_new(doc, "residual_log_ratio", jl_json_number(x->residual));
    json_t *pw = json_object();
    bad |= json_object_set_new(doc, "power_per_gpu", pw);
    if (pw) {
        json_object_set_new(pw, "a_w", jl_json_number(x->power_a));
        json_object_set_new(pw, "b_w", jl_json_number(x->power_b));
        json_object_set_new(pw, "static_a_w", jl_json_number(x->static_a));
        json_object_set_new(pw, "static_b_w", jl_json_number(x->static_b));
        json_object_set_new(pw, "static_source_a", json_string(x->static_source_a));
        json_object_set_new(pw, "static_source_b", json_string(x->static_source_b));
        json_object_set_new(pw, "split", json_boolean(x->power_split));
    }
    json_t *fs = json_array();
    bad |= json_object_set_new(doc, "factors", fs);
    for (int i = 0; fs && i < JL_EXPLAIN_FACTOR_COUNT; i++) {
        const jl_explain_factor *f = &x->factors[i];
        json_t *o = json_object(), *k = json_array();
        if (!o || !k) {
            json_decref(o);
            json_decref(k);
            bad = 1;
            break;
        }
        json_object_set_new(o, "factor", json_string(factor_names[i]));
        json_object_set_new(o, "log_ratio", jl_json_number(f->log_ratio));
        json_object_set_new(o, "ratio", jl_json_number(f->ratio));
        json_object_set_new(o, "share", jl_json_number(f->share));
        json_object_set_new(o, "a", jl_json_number(f->value_a));
        json_object_set_new(o, "b", jl_json_number(f->value_b));
        json_object_set_new(o, "unit", json_string(f->unit));
        for (size_t j = 0; j < f->n_knobs; j++)
            json_array_append_new(k, json_string(x->knobs[f->knobs[j]].knob));
        json_object_set_new(o, "knobs", k);
        json_array_append_new(fs, o);
    }
    json_t *ks = json_array();
    bad |= json_object_set_new(doc, "knobs_differing", ks);
    for (size_t i = 0; ks && i < x->n_knobs; i++) {
        json_t *o = json_object();
        if (!o) {
            bad = 1;
            break;
        }
        json_object_set_new(o, "knob", json_string(x->knobs[i].knob));
        json_object_set_new(o, "a", json_string(x->knobs[i].a));
        json_object_set_new(o, "b", json_string(x->knobs[i].b));
        json_array_append_new(ks, o);
    }
    json_t *ns = json_array();
    bad |= json_object_set_new(doc, "notes", ns);
    for (size_t i = 0; ns && i < x->n_notes; i++)
        json_array_append_new(ns, json_string(x->notes[i]));
    bad |= json_object_set_new(doc, "sentence", json_string(x->sentence));
    if (bad) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}
