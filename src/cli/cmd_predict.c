/* joules predict — the model of one group at unmeasured batch sizes
 * (docs/model.md "joules predict"). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/exit_codes.h"
#include "joules/model.h"

static const char *const help =
    "usage: joules predict --group SELECTOR (--batch N | --batch-range A:B[:STEP] | --cap N)\n"
    "                      [--what-if K=V[,K=V]]\n"
    "                      [--json] [options] PATH...\n\n"
    "Energy per token, power, step time and throughput of one group at batch sizes\n"
    "that were not measured, each with its 95% interval, from the model `joules fit`\n"
    "fits (physical model + correction; log-log interpolation for groups with fewer\n"
    "than 4 batch sizes, without intervals). Batches are achieved batches\n"
    "(avg_batch_size). A batch beyond the group's ceiling is refused (exit 1).\n\n"
    "  --group SELECTOR   KEY=V[,KEY=V...] that selects exactly one group, e.g.\n"
    "                     model=Qwen/Qwen3-8B,task=gpqa,gpu_model=H100,num_gpus=1,precision=bfloat16\n"
    "                     (keys are run attributes; a bare value after KEY=V is another value\n"
    "                     of KEY, as in --where)\n"
    "  --batch N          one achieved batch (repeatable)\n"
    "  --batch-range A:B[:STEP]  A, A+STEP, ... up to B; without STEP: A, 2A, 4A, ... and B\n"
    "  --cap N            a batch cap (max_batch_size): predicts at the achieved batch\n"
    "                     N x the group's median avg_batch_size/max_batch_size (repeatable)\n"
    "  --pool W           outside the measured batch range, mix energy per token with the\n"
    "                     prediction pooled from the model's other sweeps in PATH, as the\n"
    "                     leave-one-out does (weight, default 0.7; 0 = off; model.md)\n"
    "  --what-if K=V[,K=V]  an unmeasured configuration of the --group's model and task:\n"
    "                     num_gpus=N, gpu_model=G and/or precision=P replace the group's;\n"
    "                     predicted from the model's measured configurations, the\n"
    "                     descriptors (models/) and factors learned across the other models\n"
    "                     in PATH, at --cap N (repeatable; default: powers of two up to twice\n"
    "                     the largest measured cap), each with a 95% interval, and the new\n"
    "                     memory ceiling (model.md \"What if\")\n"
    "  --json             print the joules.predict/1 document\n" CLI_STUDY_HELP
    "  -h, --help         this help\n";

typedef struct batches {
    double *v;
    size_t n, cap;
    int *is_cap; /* 1: v is a cap to convert */
} batches;

static int push(batches *b, double v, int is_cap)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 16;
        double *nv = realloc(b->v, cap * sizeof *nv);
        if (!nv)
            return -1;
        b->v = nv;
        int *ncap = realloc(b->is_cap, cap * sizeof *ncap);
        if (!ncap)
            return -1;
        b->is_cap = ncap;
        b->cap = cap;
    }
    b->v[b->n] = v;
    b->is_cap[b->n++] = is_cap;
    return 0;
}

static int parse_positive(const char *s, double *v)
{
    char *end = NULL;
    errno = 0;
    *v = strtod(s, &end);
    return !errno && end != s && (*end == '\0' || *end == ':') && isfinite(*v) && *v > 0;
}

/* --batch-range A:B[:STEP] appended to b. Returns 0 or an exit code (printed). */
static int parse_range(const char *cmd, const char *arg, batches *b)
{
    double a, z, step = NAN;
    const char *c1 = strchr(arg, ':');
    if (!c1 || !parse_positive(arg, &a) || !parse_positive(c1 + 1, &z))
        goto bad;
    const char *c2 = strchr(c1 + 1, ':');
    if (c2 && !parse_positive(c2 + 1, &step))
        goto bad;
    if (c2 && strchr(c2 + 1, ':'))
        goto bad;
    if (z < a)
        return cli_usage_error(cmd, "--batch-range %s: B < A", arg);
    if (isfinite(step) && (z - a) / step > 10000)
        return cli_usage_error(cmd, "--batch-range %s: more than 10000 batches", arg);
    double x = a;
    for (int i = 0; x <= z * (1 + 1e-12) && i <= 10000; i++) {
        if (push(b, x, 0))
            return cli_oom(cmd);
        x = isfinite(step) ? a + step * (double)(i + 1) : 2 * x;
    }
    if (!isfinite(step) && b->v[b->n - 1] < z && push(b, z, 0))
        return cli_oom(cmd);
    return 0;
bad:
    return cli_usage_error(cmd,
                           "--batch-range '%s': expected A:B or A:B:STEP with positive numbers",
                           arg);
}

/* The groups idx[0..n) names, or all of them when n is 0, on stderr (40 at
 * most). */
static void print_candidates(const char *cmd, const jl_model_group_list *gl, const size_t *idx,
                             size_t n)
{
    size_t total = n ? n : gl->count, shown = total < 40 ? total : 40;
    for (size_t i = 0; i < shown; i++) {
        const jl_model_group *g = &gl->items[n ? idx[i] : i];
        char *k = jl_group_key_format(&g->key);
        fprintf(stderr, "joules %s:   %s  (%zu runs, %zu batch sizes)\n", cmd, k ? k : "?",
                g->n_runs, g->n_batch_sizes);
        free(k);
    }
    if (total > shown)
        fprintf(stderr, "joules %s:   ... and %zu more\n", cmd, total - shown);
}

static void print_text(const jl_group_fit *f, const jl_prediction *p, size_t n)
{
    char *k = jl_group_key_format(&f->key);
    printf("%s\n  method %s (%s), measured batch %.4g..%.4g, ceiling %.4g (%s)\n", k ? k : "?",
           jl_fit_method_name(f->method),
           f->method == JL_FIT_MODEL
               ? (f->has_correction ? "physical model + GP correction" : "physical model")
               : "no intervals",
           f->batch_min, f->batch_max, f->batch_ceiling, f->ceiling_reason);
    free(k);
    if (f->method == JL_FIT_MODEL && !f->has_ci)
        printf("  intervals unavailable: %s\n", f->ci_note ? f->ci_note : "");
    printf("  %9s  %-32s %-28s %-26s %-28s %s\n", "batch", "energy/token J [95%]", "power W [95%]",
           "step ms [95%]", "throughput tok/s [95%]", "util");
    for (size_t i = 0; i < n; i++) {
        char e[64], w[64], s[64], t[64];
        snprintf(e, sizeof e, "%.4g [%.4g, %.4g]", p[i].energy_per_token_j.value,
                 p[i].energy_per_token_j.lo, p[i].energy_per_token_j.hi);
        snprintf(w, sizeof w, "%.4g [%.4g, %.4g]", p[i].power_w.value, p[i].power_w.lo,
                 p[i].power_w.hi);
        snprintf(s, sizeof s, "%.4g [%.4g, %.4g]", 1e3 * p[i].step_time_s.value,
                 1e3 * p[i].step_time_s.lo, 1e3 * p[i].step_time_s.hi);
        snprintf(t, sizeof t, "%.4g [%.4g, %.4g]", p[i].throughput_tok_s.value,
                 p[i].throughput_tok_s.lo, p[i].throughput_tok_s.hi);
        if (p[i].method == JL_FIT_POOLED)
            snprintf(e, sizeof e, "%.4g (pooled)", p[i].energy_per_token_j.value);
        printf("  %9.2f  %-32s %-28s %-26s %-28s %.3f%s\n", p[i].batch, e, w, s, t,
               p[i].utilisation, p[i].extrapolated ? "  (extrapolated)" : "");
    }
    for (size_t i = 0; i < n; i++)
        if (p[i].method == JL_FIT_POOLED)
            printf("  pooled at batch %.2f: %.0f%% model + GP, %.0f%% the measured end (cap %ld, "
                   "batch %.4g) moved by the median elasticity of %zu other sweep%s of the "
                   "model (%s; %.4g J/token alone); no interval\n",
                   p[i].batch, 100 * (1 - p[i].pool_weight), 100 * p[i].pool_weight,
                   p[i].pool_anchor_cap, p[i].pool_anchor_batch, p[i].pool_siblings,
                   p[i].pool_siblings == 1 ? "" : "s",
                   p[i].pool_interpolated ? "interpolated over their measured range"
                                          : "between the same two caps",
                   p[i].pooled_energy_per_token_j);
}

/* The thin-evidence rules that widened the intervals, each once, with its
 * numbers (docs/model.md "Thin evidence"). */
static void print_widened(const jl_whatif *w)
{
    unsigned all = 0;
    double floor_ln = 0;
    for (size_t i = 0; i < w->n_points; i++) {
        all |= w->points[i].widened;
        floor_ln = fmax(floor_ln, w->points[i].widen_floor);
    }
    if (all & JL_WHATIF_WIDE_FEW_PAIRS)
        printf("  intervals widened (few pairs): %s (%zu pairs of this kind from %zu other "
               "model%s), so at least x/ %.2f (+-%.2f in ln): the factor fit's own residuals do "
               "not say how a new model transfers\n",
               w->transfer == JL_TRANSFER_PRECISION
                   ? "a precision transfer is not calibrated on held-out groups"
                   : "no calibration on the held-out groups of at least 3 models",
               w->n_pairs_kind, w->n_models_kind, w->n_models_kind == 1 ? "" : "s", exp(floor_ln),
               floor_ln);
    if (all & JL_WHATIF_WIDE_GPU_PAIR)
        printf("  intervals widened (GPU pair never seen): no other model is measured on both "
               "%s and the sources' GPU model, so sd %.3f (in ln: half the ln ratio of their "
               "memory bandwidths) is added\n",
               w->target.gpu_model, w->gpu_pair_sd);
    if (all & JL_WHATIF_WIDE_EXTRAPOLATED)
        printf("  intervals widened (extrapolated): at caps farther from the sources' measured "
               "caps than any held-out point of the calibration (without one: than a measured "
               "cap), sd 0.15 in ln per e-fold beyond is added\n");
}

static void print_whatif(const jl_whatif *w, const jl_model_group_list *gl)
{
    char *k = jl_group_key_format(&w->target);
    printf("what if %s\n  not measured: predicted by %s transfer from", k ? k : "?",
           jl_transfer_name(w->transfer));
    free(k);
    for (size_t i = 0; i < w->n_sources; i++)
        printf("%s %ldx%s %s", i ? "," : "", gl->items[w->sources[i]].key.num_gpus,
               gl->items[w->sources[i]].key.gpu_model, gl->items[w->sources[i]].key.precision);
    if (w->roofline)
        printf(" (same model and task), by its own roofline: the share of its step that "
               "streams weights and KV moved by the two GPUs' bandwidth ratio, its power held "
               "(the GPU models differ in memory only, and %zu other model%s measured on "
               "both: too few for the factors)\n",
               w->n_gpu_pair_models, w->n_gpu_pair_models == 1 ? "" : "s");
    else
        printf(" (same model and task), with factors learned across other models (%zu pairs, "
               "%zu of this kind)\n",
               w->n_pairs, w->n_pairs_kind);
    size_t cal = 0;
    for (size_t i = 0; i < w->n_points; i++)
        cal = w->points[i].calibrated > cal ? w->points[i].calibrated : cal;
    if (cal)
        printf("  intervals: how far the same method missed on measured configurations held out "
               "(up to %zu points of the same kind of transfer)\n",
               cal);
    else
        printf("  intervals: from the factor fit's residuals (no held-out calibration for a %s "
               "transfer)\n",
               jl_transfer_name(w->transfer));
    print_widened(w);
    if (isfinite(w->memory_ceiling))
        printf("  memory ceiling: ~%.0f sequences%s\n", w->memory_ceiling,
               w->memory_assumed ? " (on an assumed per-task input length)" : "");
    else
        printf("  memory ceiling: unknown (the descriptors lack what it needs)\n");
    printf("  %6s %8s  %-30s %-26s %-24s %s\n", "cap", "batch", "energy/token J [95%]",
           "power W [95%]", "step (ITL) ms [95%]", "tok/s");
    for (size_t i = 0; i < w->n_points; i++) {
        const jl_whatif_point *p = &w->points[i];
        char e[64], pw[64], st[64];
        snprintf(e, sizeof e, "%.4g [%.4g, %.4g]", p->energy_per_token_j.value,
                 p->energy_per_token_j.lo, p->energy_per_token_j.hi);
        snprintf(pw, sizeof pw, "%.4g [%.4g, %.4g]", p->power_w.value, p->power_w.lo,
                 p->power_w.hi);
        snprintf(st, sizeof st, "%.4g [%.4g, %.4g]", 1e3 * p->step_time_s.value,
                 1e3 * p->step_time_s.lo, 1e3 * p->step_time_s.hi);
        printf("  %6ld %8.1f  %-30s %-26s %-24s %.4g%s%s%s%s\n", p->cap, p->batch, e, pw, st,
               p->throughput_tok_s, p->beyond_ceiling ? "  (beyond the memory ceiling)" : "",
               p->unlocked ? "  (unlocked: above every measured cap)" : "",
               p->extrapolated && !p->unlocked ? "  (no source measured this cap)" : "",
               p->widened & JL_WHATIF_WIDE_EXTRAPOLATED ? "  (interval widened: extrapolated)"
                                                        : "");
    }
}

/* The one group gsel selects into *which. Returns 0, or an exit code after
 * listing the candidates (none or several match: a usage error). */
static int select_group(const char *cmd, const jl_model_group_list *gl, const jl_selector *gsel,
                        size_t *which)
{
    size_t *idx = NULL, nm = 0;
    jl_error *err = NULL;
    jl_status st = jl_model_groups_select(gl, gsel, &idx, &nm, &err);
    if (st != JL_OK)
        return cli_fail(cmd, st, err);
    if (nm == 1)
        *which = idx[0];
    else if (nm == 0)
        fprintf(stderr, "joules %s: --group selects no group; the groups are:\n", cmd);
    else
        fprintf(stderr, "joules %s: --group selects %zu groups, it must select one:\n", cmd, nm);
    if (nm != 1)
        print_candidates(cmd, gl, idx, nm);
    free(idx);
    return nm == 1 ? 0 : cli_exit_for_status(JL_EUSAGE);
}

enum { OPT_GROUP = CLI_OPT_FIRST_FREE, OPT_BATCH, OPT_RANGE, OPT_CAP, OPT_POOL, OPT_WHATIF };

/* predict's own options */
typedef struct predict_args {
    jl_selector *gsel;
    int have_group;
    batches bs;
    char *whatif;
    jl_model_options mo;
} predict_args;

static int own_option(void *ctx, const char *cmd, int code, const char *arg)
{
    predict_args *a = ctx;
    double v;
    switch (code) {
    case OPT_GROUP: {
        jl_error *err = NULL;
        a->have_group = 1;
        jl_status st = jl_selector_add_spec(a->gsel, arg, &err);
        if (st == JL_EUSAGE) {
            int rc = cli_usage_error(cmd, "--group: %s", err ? err->message : "bad clause");
            jl_error_free(err);
            return rc;
        }
        return st != JL_OK ? cli_fail(cmd, st, err) : 0;
    }
    case OPT_BATCH:
    case OPT_CAP:
        if (!parse_positive(arg, &v) || strchr(arg, ':'))
            return cli_usage_error(cmd, "%s '%s': expected a positive number",
                                   code == OPT_CAP ? "--cap" : "--batch", arg);
        return push(&a->bs, v, code == OPT_CAP) ? cli_oom(cmd) : 0;
    case OPT_RANGE: return parse_range(cmd, arg, &a->bs);
    case OPT_WHATIF: free(a->whatif); return (a->whatif = strdup(arg)) ? 0 : cli_oom(cmd);
    default: /* --pool */
        return cli_parse_number(cmd, "--pool", arg, 0, nextafter(1.0, 2.0), "in [0, 1]",
                                &a->mo.pool_weight);
    }
}

/* The --json document or the --jsonl rows of a prediction (takes doc). */
static int emit_doc(const char *cmd, const cli_study *cs, json_t *doc)
{
    if (doc && cs->names == JL_NAMES_MLENERGY)
        jl_json_rename_mlenergy(doc);
    return cs->json ? cli_print_document(cmd, doc, &cs->errors)
                    : cli_print_jsonl(cmd, cs, doc, "predictions");
}

/* --what-if on group which: predicted and written. Returns the exit code. */
static int run_whatif(const char *cmd, const cli_study *cs, const predict_args *a,
                      jl_model_set *set, size_t which)
{
    long *caps = a->bs.n ? malloc(a->bs.n * sizeof *caps) : NULL;
    if (a->bs.n && !caps)
        return cli_oom(cmd);
    for (size_t i = 0; i < a->bs.n; i++)
        caps[i] = (long)a->bs.v[i];
    jl_whatif w;
    jl_error *err = NULL;
    jl_status st = jl_model_set_whatif(set, which, a->whatif, caps, a->bs.n, &w, &err);
    free(caps);
    if (st == JL_EUSAGE) { /* the request itself */
        int rc = cli_usage_error(cmd, "--what-if: %s", err ? err->message : "bad request");
        jl_error_free(err);
        return rc;
    }
    if (st != JL_OK)
        return cli_fail(cmd, st, err);
    const jl_model_group_list *gl = jl_model_set_groups(set);
    int rc = 0;
    if (cs->json || cs->jsonl)
        rc = emit_doc(cmd, cs, jl_whatif_document(&w, gl));
    else
        print_whatif(&w, gl);
    jl_whatif_clear(&w);
    return rc ? rc : cli_study_exit(cs);
}

/* Batches predicted on group which and written. Returns the exit code. */
static int run_predict(const char *cmd, const cli_study *cs, const predict_args *a,
                       jl_model_set *set, size_t which)
{
    const jl_group_fit *fit = NULL;
    jl_error *err = NULL;
    jl_prediction *pred = calloc(a->bs.n, sizeof *pred);
    if (!pred)
        return cli_oom(cmd);
    jl_status st = jl_model_set_predict(set, which, a->bs.v, a->bs.is_cap, a->bs.n, pred, &err);
    if (st == JL_OK)
        st = jl_model_set_fit(set, which, &fit, &err);
    int rc = 0;
    if (st != JL_OK)
        rc = cli_fail(cmd, st, err);
    else if (cs->json || cs->jsonl)
        rc = emit_doc(cmd, cs, jl_predict_document(fit, pred, a->bs.n));
    else {
        print_text(fit, pred, a->bs.n);
        cli_print_boundaries(&cs->runs); /* what the fitted energy covers */
    }
    free(pred);
    return rc ? rc : cli_study_exit(cs);
}

static const struct option longopts[] = {
    CLI_JSON_LONG_OPTION,
    {"group", required_argument, NULL, OPT_GROUP},
    {"batch", required_argument, NULL, OPT_BATCH},
    {"batch-range", required_argument, NULL, OPT_RANGE},
    {"cap", required_argument, NULL, OPT_CAP},
    {"pool", required_argument, NULL, OPT_POOL},
    {"what-if", required_argument, NULL, OPT_WHATIF},
    CLI_END_LONG_OPTIONS,
};
const cli_options cli_options_predict = {":h", longopts};

int cli_cmd_predict(int argc, char **argv)
{
    const char *cmd = "predict";
    predict_args a = {.gsel = jl_selector_new()};
    jl_model_options_default(&a.mo);
    jl_model_set *set = NULL;
    cli_study cs;
    cli_study_init(&cs);
    int rc = a.gsel ? cli_parse(&cs, cmd, help, argc, argv, cli_options_predict.optstring, longopts,
                                own_option, &a)
                    : cli_oom(cmd);
    if (rc || cs.helped)
        goto out;
    if (!a.have_group) {
        rc = cli_usage_error(cmd, "--group SELECTOR is required");
        goto out;
    }
    if (!a.bs.n && !a.whatif) {
        rc = cli_usage_error(cmd, "give --batch N, --batch-range A:B[:STEP] or --cap N");
        goto out;
    }
    if (a.whatif)
        for (size_t i = 0; i < a.bs.n; i++)
            if (!a.bs.is_cap[i] || a.bs.v[i] != floor(a.bs.v[i])) {
                rc = cli_usage_error(cmd, "--what-if predicts at caps: give --cap N (whole "
                                          "numbers), not --batch / --batch-range");
                goto out;
            }
    static const cli_output rows = {NULL, NULL, NULL, "predictions", 0, 0};
    if ((rc = cli_study_start(&cs, cmd, argc, argv, &rows)))
        goto out;
    jl_error *err = NULL;
    jl_status st = jl_model_set_open(&cs.runs, cs.desc, &a.mo, &set, &err);
    if (st != JL_OK) {
        rc = cli_fail(cmd, st, err);
        goto out;
    }
    size_t which = 0;
    if ((rc = select_group(cmd, jl_model_set_groups(set), a.gsel, &which)))
        goto out;
    rc = a.whatif ? run_whatif(cmd, &cs, &a, set, which) : run_predict(cmd, &cs, &a, set, which);
out:
    free(a.whatif);
    jl_model_set_free(set);
    free(a.bs.v);
    free(a.bs.is_cap);
    jl_selector_free(a.gsel);
    cli_study_free(&cs);
    return rc;
}
