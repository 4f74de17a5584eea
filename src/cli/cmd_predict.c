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
    "                     the largest measured cap), each with a 95%% interval, and the new\n"
    "                     memory ceiling (model.md \"What if\")\n"
    "  --json             print the joules.predict/1 document\n"
    CLI_STUDY_HELP
    "  -h, --help         this help\n";

/* "k1=v1,v2,k2=v3" -> clauses "k1=v1,v2" and "k2=v3" added to sel. */
static int parse_group_selector(const char *cmd, const char *text, jl_selector *sel)
{
    char *s = strdup(text), *clause = NULL;
    size_t len = 0;
    int rc = 0;
    if (!s)
        return -1;
    char *save = NULL;
    for (char *tok = strtok_r(s, ",", &save);; tok = strtok_r(NULL, ",", &save)) {
        if (!tok || strchr(tok, '=')) {
            if (clause) {
                jl_error *err = NULL;
                if (jl_selector_add(sel, 0, clause, &err) != JL_OK) {
                    cli_usage_error(cmd, "--group: %s", err ? err->message : "bad clause");
                    jl_error_free(err);
                    rc = -1;
                    break;
                }
                free(clause);
                clause = NULL;
            }
            if (!tok)
                break;
            clause = strdup(tok);
            len = strlen(tok);
        } else {
            if (!clause) {
                cli_usage_error(cmd, "--group: '%s' is not KEY=VALUE", tok);
                rc = -1;
                break;
            }
            char *c2 = realloc(clause, len + strlen(tok) + 2);
            if (!c2) {
                rc = -1;
                break;
            }
            clause = c2;
            clause[len++] = ',';
            strcpy(clause + len, tok);
            len += strlen(tok);
        }
        if (clause && clause[0] == '=') {
            cli_usage_error(cmd, "--group: empty key in '%s'", clause);
            rc = -1;
            break;
        }
    }
    free(clause);
    free(s);
    return rc;
}

typedef struct batches {
    double *v;
    size_t n, cap;
    int *is_cap; /* 1: v is a cap to convert */
} batches;

static int push(batches *b, double v, int is_cap)
{
    if (b->n == b->cap) {
        size_t nc = b->cap ? 2 * b->cap : 16;
        double *v2 = realloc(b->v, nc * sizeof *v2);
        if (!v2)
            return -1;
        b->v = v2;
        int *c2 = realloc(b->is_cap, nc * sizeof *c2);
        if (!c2)
            return -1;
        b->is_cap = c2;
        b->cap = nc;
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
    if (z < a) {
        cli_usage_error(cmd, "--batch-range %s: B < A", arg);
        return -1;
    }
    if (isfinite(step) && (z - a) / step > 10000) {
        cli_usage_error(cmd, "--batch-range %s: more than 10000 batches", arg);
        return -1;
    }
    double x = a;
    for (int i = 0; x <= z * (1 + 1e-12) && i <= 10000; i++) {
        if (push(b, x, 0))
            return -1;
        x = isfinite(step) ? a + step * (double)(i + 1) : 2 * x;
    }
    if (!isfinite(step) && b->v[b->n - 1] < z && push(b, z, 0))
        return -1;
    return 0;
bad:
    cli_usage_error(cmd, "--batch-range '%s': expected A:B or A:B:STEP with positive numbers", arg);
    return -1;
}

static void print_candidates(const char *cmd, const jl_model_group_list *gl, const int *match,
                             int only_matching)
{
    size_t shown = 0, total = 0;
    for (size_t i = 0; i < gl->count; i++)
        if (!only_matching || match[i])
            total++;
    for (size_t i = 0; i < gl->count && shown < 40; i++) {
        if (only_matching && !match[i])
            continue;
        char *k = jl_group_key_format(&gl->items[i].key);
        fprintf(stderr, "joules %s:   %s  (%zu runs, %zu batch sizes)\n", cmd, k ? k : "?",
                gl->items[i].n_runs, gl->items[i].n_batch_sizes);
        free(k);
        shown++;
    }
    if (total > shown)
        fprintf(stderr, "joules %s:   ... and %zu more\n", cmd, total - shown);
}

static void print_text(const jl_group_fit *f, const jl_prediction *p, size_t n)
{
    char *k = jl_group_key_format(&f->key);
    printf("%s\n  method %s (%s), measured batch %.4g..%.4g, ceiling %.4g (%s)\n", k ? k : "?",
           jl_fit_method_name(f->method),
           f->method == JL_FIT_MODEL ? (f->has_correction ? "physical model + GP correction"
                                                          : "physical model")
                                     : "no intervals",
           f->batch_min, f->batch_max, f->batch_ceiling, f->ceiling_reason);
    free(k);
    if (f->method == JL_FIT_MODEL && !f->has_ci)
        printf("  intervals unavailable: %s\n", f->ci_note ? f->ci_note : "");
    printf("  %9s  %-32s %-28s %-26s %-28s %s\n", "batch", "energy/token J [95%]",
           "power W [95%]", "step ms [95%]", "throughput tok/s [95%]", "util");
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

static json_t *predict_doc(const jl_group_fit *fit, const jl_prediction *pred, size_t n)
{
    json_t *doc = json_object(), *arr = json_array(), *go = json_object();
    char *k = jl_group_key_format(&fit->key);
    json_object_set_new(doc, "schema", json_string("joules.predict/1"));
    json_object_set_new(go, "group", k ? json_string(k) : json_null());
    free(k);
    json_object_set_new(go, "method", json_string(jl_fit_method_name(fit->method)));
    json_object_set_new(go, "note", fit->note ? json_string(fit->note) : json_null());
    json_object_set_new(go, "intervals", json_boolean(fit->method == JL_FIT_MODEL && fit->has_ci));
    json_object_set_new(go, "intervals_note", fit->ci_note ? json_string(fit->ci_note) : json_null());
    json_object_set_new(go, "correction", json_boolean(fit->has_correction));
    json_object_set_new(go, "batch_min", jl_json_number(fit->batch_min));
    json_object_set_new(go, "batch_max", jl_json_number(fit->batch_max));
    json_object_set_new(go, "batch_per_cap", jl_json_number(fit->batch_per_cap));
    json_object_set_new(go, "ceiling_batch", jl_json_number(fit->batch_ceiling));
    json_object_set_new(go, "ceiling_reason", json_string(fit->ceiling_reason));
    json_object_set_new(go, "pool_weight", jl_json_number(fit->pool_weight));
    json_object_set_new(go, "pool_siblings", json_integer((json_int_t)fit->pool_n_siblings));
    json_object_set_new(doc, "group", go);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(arr, jl_prediction_to_json(&pred[i]));
    json_object_set_new(doc, "predictions", arr);
    return doc;
}

/* "num_gpus=2,gpu_model=B200" applied to key t (strings borrowed from the
 * argument copy `buf`). 0, or -1 after a usage error. */
static int parse_whatif(const char *cmd, char *buf, jl_group_key *t)
{
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq || !eq[1]) {
            cli_usage_error(cmd, "--what-if: '%s' is not KEY=VALUE", tok);
            return -1;
        }
        *eq = '\0';
        const char *v = eq + 1;
        if (!strcmp(tok, "num_gpus")) {
            char *end = NULL;
            long n = strtol(v, &end, 10);
            if (!end || *end || n < 1 || n > 4096) {
                cli_usage_error(cmd, "--what-if: num_gpus '%s' is not a GPU count", v);
                return -1;
            }
            t->num_gpus = n;
        } else if (!strcmp(tok, "gpu_model")) {
            t->gpu_model = (char *)v;
        } else if (!strcmp(tok, "precision")) {
            t->precision = (char *)v;
        } else if (!strcmp(tok, "model")) {
            t->model = (char *)v;
        } else {
            cli_usage_error(cmd, "--what-if: '%s' cannot be changed (num_gpus, gpu_model, "
                                 "precision or model: the FP8/BF16 twin)", tok);
            return -1;
        }
    }
    return 0;
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
    printf(" (same model and task), with factors learned across other models (%zu pairs, %zu of "
           "this kind)\n",
           w->n_pairs, w->n_pairs_kind);
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
        printf("  %6ld %8.1f  %-30s %-26s %-24s %.4g%s%s%s\n", p->cap, p->batch, e, pw, st,
               p->throughput_tok_s, p->beyond_ceiling ? "  (beyond the memory ceiling)" : "",
               p->unlocked ? "  (unlocked: above every measured cap)" : "",
               p->extrapolated && !p->unlocked ? "  (no source measured this cap)" : "");
    }
}

static json_t *whatif_doc(const jl_whatif *w, const jl_model_group_list *gl)
{
    json_t *doc = json_object(), *src = json_array(), *pts = json_array();
    char *k = jl_group_key_format(&w->target);
    json_object_set_new(doc, "schema", json_string("joules.predict/1"));
    json_object_set_new(doc, "what_if", json_true());
    json_object_set_new(doc, "group", k ? json_string(k) : json_null());
    free(k);
    json_object_set_new(doc, "transfer", json_string(jl_transfer_name(w->transfer)));
    for (size_t i = 0; i < w->n_sources; i++) {
        char *s = jl_group_key_format(&gl->items[w->sources[i]].key);
        json_array_append_new(src, s ? json_string(s) : json_null());
        free(s);
    }
    json_object_set_new(doc, "sources", src);
    json_object_set_new(doc, "factor_pairs", json_integer((json_int_t)w->n_pairs));
    json_object_set_new(doc, "factor_pairs_of_this_kind", json_integer((json_int_t)w->n_pairs_kind));
    json_object_set_new(doc, "memory_ceiling", jl_json_number(w->memory_ceiling));
    json_object_set_new(doc, "memory_ceiling_assumed", json_boolean(w->memory_assumed));
    for (size_t i = 0; i < w->n_points; i++) {
        const jl_whatif_point *p = &w->points[i];
        json_t *o = json_object();
        json_object_set_new(o, "max_batch_size", json_integer((json_int_t)p->cap));
        json_object_set_new(o, "batch", jl_json_number(p->batch));
        json_object_set_new(o, "energy_per_token_j", jl_interval_to_json(&p->energy_per_token_j));
        json_object_set_new(o, "power_w", jl_interval_to_json(&p->power_w));
        json_object_set_new(o, "step_time_s", jl_interval_to_json(&p->step_time_s));
        json_object_set_new(o, "throughput_tok_s", jl_json_number(p->throughput_tok_s));
        json_object_set_new(o, "beyond_ceiling", json_boolean(p->beyond_ceiling));
        json_object_set_new(o, "unlocked", json_boolean(p->unlocked));
        json_object_set_new(o, "extrapolated", json_boolean(p->extrapolated));
        json_object_set_new(o, "n_sources", json_integer((json_int_t)p->n_sources));
        json_array_append_new(pts, o);
    }
    json_object_set_new(doc, "predictions", pts);
    return doc;
}

/* The one group gsel selects, or -1 after listing the candidates (none or
 * several match). */
static long select_group(const char *cmd, const jl_model_group_list *gl, const jl_selector *gsel)
{
    int *match = calloc(gl->count ? gl->count : 1, sizeof *match);
    size_t nm = 0, which = 0;
    if (!match) {
        fprintf(stderr, "joules %s: out of memory\n", cmd);
        return -1;
    }
    for (size_t i = 0; i < gl->count; i++) {
        for (size_t r = 0; r < gl->items[i].n_runs && !match[i]; r++)
            match[i] = jl_selector_match(gsel, gl->items[i].runs[r]);
        if (match[i]) {
            nm++;
            which = i;
        }
    }
    if (nm == 0)
        fprintf(stderr, "joules %s: --group selects no group; the groups are:\n", cmd);
    else if (nm > 1)
        fprintf(stderr, "joules %s: --group selects %zu groups, it must select one:\n", cmd, nm);
    if (nm != 1)
        print_candidates(cmd, gl, match, nm > 0);
    free(match);
    return nm == 1 ? (long)which : -1;
}

int jl_cmd_predict(int argc, char **argv)
{
    enum { OPT_JSON = CLI_OPT_FIRST_FREE, OPT_GROUP, OPT_BATCH, OPT_RANGE, OPT_CAP, OPT_POOL,
           OPT_WHATIF };
    static const struct option longopts[] = {
        {"json", no_argument, NULL, OPT_JSON},
        {"group", required_argument, NULL, OPT_GROUP},
        {"batch", required_argument, NULL, OPT_BATCH},
        {"batch-range", required_argument, NULL, OPT_RANGE},
        {"cap", required_argument, NULL, OPT_CAP},
        {"pool", required_argument, NULL, OPT_POOL},
        {"what-if", required_argument, NULL, OPT_WHATIF},
        {"help", no_argument, NULL, 'h'},
        CLI_STUDY_LONG_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "predict";
    char *whatif = NULL;
    int json = 0, c, rc = JL_EXIT_OK, have_group = 0;
    batches bs = {0};
    jl_selector *gsel = jl_selector_new();
    jl_model_group_list gl = {0};
    jl_group_fit *fit = NULL;
    jl_prediction *pred = NULL;
    jl_error *err = NULL;
    jl_model_options mo;
    jl_model_options_default(&mo);
    cli_study cs;
    cli_study_init(&cs);
    optind = 1;
    if (!gsel) {
        fprintf(stderr, "joules %s: out of memory\n", cmd);
        rc = JL_EXIT_INTERNAL;
        goto out;
    }
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        double v;
        switch (c) {
        case 'h': cli_help("predict", help); goto out;
        case OPT_JSON: json = 1; break;
        case OPT_GROUP:
            rc = parse_group_selector(cmd, optarg, gsel) ? JL_EXIT_USAGE : 0;
            have_group = 1;
            break;
        case OPT_BATCH:
        case OPT_CAP:
            if (!parse_positive(optarg, &v) || strchr(optarg, ':'))
                rc = cli_usage_error(cmd, "%s '%s': expected a positive number",
                                     c == OPT_CAP ? "--cap" : "--batch", optarg);
            else if (push(&bs, v, c == OPT_CAP))
                rc = JL_EXIT_USAGE;
            break;
        case OPT_RANGE: rc = parse_range(cmd, optarg, &bs) ? JL_EXIT_USAGE : 0; break;
        case OPT_WHATIF:
            free(whatif);
            if (!(whatif = strdup(optarg)))
                rc = JL_EXIT_INTERNAL;
            break;
        case OPT_POOL:
            rc = cli_parse_number(cmd, "--pool", optarg, 0, nextafter(1.0, 2.0), "in [0, 1]",
                                  &mo.pool_weight);
            break;
        default: rc = cli_other_option(&cs, cmd, c, argv); break;
        }
        if (rc)
            goto out;
    }
    if (!have_group) {
        rc = cli_usage_error(cmd, "--group SELECTOR is required");
        goto out;
    }
    if (!bs.n && !whatif) {
        rc = cli_usage_error(cmd, "give --batch N, --batch-range A:B[:STEP] or --cap N");
        goto out;
    }
    if (whatif)
        for (size_t i = 0; i < bs.n; i++)
            if (!bs.is_cap[i] || bs.v[i] != floor(bs.v[i])) {
                rc = cli_usage_error(cmd, "--what-if predicts at caps: give --cap N (whole "
                                          "numbers), not --batch / --batch-range");
                goto out;
            }
    static const cli_output rows = {NULL, NULL, NULL, "predictions", 0};
    if ((rc = cli_check_outputs(cmd, &cs, NULL, json, &rows)))
        goto out;
    if ((rc = cli_study_load(&cs, cmd, argv + optind, argc - optind)))
        goto out;
    if (jl_model_groups(&cs.runs, &gl, &err) != JL_OK)
        goto fail;
    long which = select_group(cmd, &gl, gsel);
    if (which < 0) {
        rc = JL_EXIT_USAGE;
        goto out;
    }
    const jl_model_group *g = &gl.items[which];
    if (whatif) {
        jl_group_key t = g->key;
        if (parse_whatif(cmd, whatif, &t)) {
            rc = JL_EXIT_USAGE;
            goto out;
        }
        long *caps = bs.n ? malloc(bs.n * sizeof *caps) : NULL;
        for (size_t i = 0; caps && i < bs.n; i++)
            caps[i] = (long)bs.v[i];
        jl_whatif w;
        jl_status ws = jl_whatif_predict(&gl, cs.desc, &t, JL_TRANSFER_NONE, caps, bs.n, &w, &err);
        free(caps);
        if (ws != JL_OK)
            goto fail;
        if (json || cs.jsonl) {
            json_t *doc = whatif_doc(&w, &gl);
            if (doc && cs.names == JL_NAMES_MLENERGY)
                jl_json_rename_mlenergy(doc);
            rc = json ? cli_print_document(cmd, doc, &cs.errors)
                      : cli_print_jsonl(cmd, &cs, doc, "predictions");
        } else
            print_whatif(&w, &gl);
        jl_whatif_clear(&w);
        if (!rc)
            rc = cli_study_exit(&cs);
        goto out;
    }
    if (jl_model_fit_group(g->runs, g->n_runs, &mo, cs.desc, &fit, &err) != JL_OK)
        goto fail;
    /* the model's other sweeps in the loaded data: sweep ends pooled as in
     * the leave-one-out */
    if (jl_model_fit_pool(fit, &gl, (size_t)which, &mo) != JL_OK) {
        fprintf(stderr, "joules %s: out of memory\n", cmd);
        rc = JL_EXIT_INTERNAL;
        goto out;
    }
    for (size_t i = 0; i < bs.n; i++) {
        if (bs.is_cap[i])
            bs.v[i] *= fit->batch_per_cap;
        if (jl_model_check_batch(fit, bs.v[i], &err) != JL_OK) {
            cli_print_error(cmd, err);
            rc = err->code == JL_ELIMIT ? JL_EXIT_PARTIAL : jl_exit_for_status(err->code);
            goto out; /* beyond the ceiling: exit 1 */
        }
    }
    if (!(pred = calloc(bs.n, sizeof *pred))) {
        fprintf(stderr, "joules %s: out of memory\n", cmd);
        rc = JL_EXIT_INTERNAL;
        goto out;
    }
    for (size_t i = 0; i < bs.n; i++)
        jl_model_predict(fit, bs.v[i], &pred[i]);
    if (json || cs.jsonl) {
        json_t *doc = predict_doc(fit, pred, bs.n);
        if (doc && cs.names == JL_NAMES_MLENERGY)
            jl_json_rename_mlenergy(doc);
        rc = json ? cli_print_document(cmd, doc, &cs.errors)
                  : cli_print_jsonl(cmd, &cs, doc, "predictions");
    } else
        print_text(fit, pred, bs.n);
    if (!rc)
        rc = cli_study_exit(&cs);
    goto out;
fail:
    cli_print_error(cmd, err);
    rc = jl_exit_for_status(err ? err->code : JL_ENOMEM);
out:
    free(whatif);
    jl_error_free(err);
    free(pred);
    jl_group_fit_free(fit);
    jl_group_list_clear(&gl);
    free(bs.v);
    free(bs.is_cap);
    jl_selector_free(gsel);
    cli_study_free(&cs);
    return rc;
}
