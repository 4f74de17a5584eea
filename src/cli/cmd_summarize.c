/* joules summarize — one row per run. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/exit_codes.h"
#include "cli/table.h"
#include "joules/slo.h"

static const char *const help =
    "usage: joules summarize [--json | --jsonl] [--csv FILE] [-o COLUMNS] [options] PATH...\n\n"
    "Summarise every run of every trace: the steady-state window and, over it,\n"
    "energy, energy per token / request / item, power (average, peak, idle share),\n"
    "throughput, batch occupancy, KV-cache use, latency percentiles.\n"
    "PATH is a trace file or a directory (searched recursively for *.h5).\n"
    "The table has one section per kind of output (LLM/MLLM per token, diffusion per\n"
    "image or video), columns as wide as their widest value.\n\n"
    "  --json         print the joules.summary/1 document on stdout\n"
    "  --csv FILE     also write a CSV with one row per run (FILE '-' = stdout): every\n"
    "                 attribute (extra ones too) and figure, units in the column names\n"
    "  -o, --columns LIST  the table's columns, e.g. -o model,cap,energy,latency,p99_itl:\n"
    "                 default headers (gpu, G, cap, J/token, ...), file, run, window,\n"
    "                 valid, warn, figures (energy/latency/throughput follow the workload),\n"
    "                 any attribute (nickname, tensor_parallel, ...)\n"
    "  --window A,B   every run over [A, B] seconds of its clock instead of its steady\n"
    "                 state (A or B empty: from its first or to its last sample; 'run':\n"
    "                 the whole run); steady_method is then custom\n" CLI_STUDY_HELP
    "  -h, --help     this help\n\n"
    "Figures and JSON keys: summary.md. Exit status: cli.md.\n";

/* The table's columns. A column is a run attribute, a figure (scaled and
 * rounded for people) or one of file, run, window, scope, valid, warn. */
enum { C_FILE, C_RUN, C_ATTR, C_METHOD, C_SOURCE, C_FIG, C_WARN, C_SCOPE, C_VALID };

typedef struct col {
    const char *key;    /* attribute / figure name */
    const char *header; /* NULL: the resolved figure's or the attribute's name */
    int kind;
    double scale; /* figures: shown = value x scale */
    int decimals; /* figures: -1 = %.6g */
} col;

/* The columns both tables start with, and their power columns. */
/* clang-format off */
#define HEAD_COLS                                                              \
    {"file", "file", C_FILE, 1, 0}, {"run", "run", C_RUN, 1, 0},               \
    {"model", "model", C_ATTR, 1, 0}, {"gpu_model", "gpu", C_ATTR, 1, 0},      \
    {"num_gpus", "G", C_ATTR, 1, 0}, {"max_batch_size", "cap", C_ATTR, 1, 0},  \
    {"window", "window", C_METHOD, 1, 0},                                      \
    {"scope", "scope", C_SCOPE, 1, 0},                                         \
    {"steady_duration_s", "dur_s", C_FIG, 1, 1},                               \
    {"steady_energy_j", "energy_J", C_FIG, 1, 0},                              \
    {"outside_energy_share", "outside%", C_FIG, 100, 0}
#define POWER_COLS                                                             \
    {"avg_power_w", "avg_W", C_FIG, 1, 0}, {"peak_power_w", "peak_W", C_FIG, 1, 0}, \
    {"static_energy_share", "idle%", C_FIG, 100, 0}
/* clang-format on */

static const col llm_cols[] = {
    HEAD_COLS,
    {"energy_per_token_j", "J/token", C_FIG, 1, 4},
    {"run_energy_per_token_j", "run_J/token", C_FIG, 1, 4},
    POWER_COLS,
    {"output_throughput_tok_s", "tok/s", C_FIG, 1, 0},
    {"avg_batch_size", "batch", C_FIG, 1, 1},
    {"median_itl_s", "mITL_ms", C_FIG, 1000, 1},
    {"p90_itl_s", "p90ms", C_FIG, 1000, 1},
    {"valid", "valid", C_VALID, 1, 0},
    {"warn", "warn", C_WARN, 1, 0},
};

/* Diffusion: per item, batch latency and denoising steps, never under the
 * token headers; "ITEM" becomes image or video per section. */
static const col diffusion_cols[] = {
    HEAD_COLS,
    {"energy_per_item_j", "J/ITEM", C_FIG, 1, 1},
    {"run_energy_per_item_j", "run_J/ITEM", C_FIG, 1, 1},
    POWER_COLS,
    {"items_per_s", "ITEM/s", C_FIG, 1, 3},
    {"batch_latency_s", "batch_lat_s", C_FIG, 1, 2},
    {"denoising_steps", "steps", C_ATTR, 1, 0},
    {"valid", "valid", C_VALID, 1, 0},
    {"warn", "warn", C_WARN, 1, 0},
};

/* Per-sample workloads (vision, speech, recommendation, graph, other:
 * MLPerf's benchmarks beside the language and diffusion ones): per sample
 * and per query, no tokens or batch latency. */
static const col sample_cols[] = {
    HEAD_COLS,
    {"energy_per_item_j", "J/ITEM", C_FIG, 1, 4},
    POWER_COLS,
    {"items_per_s", "ITEM/s", C_FIG, 1, 1},
    {"energy_per_request_j", "J/query", C_FIG, 1, 4},
    /* LoadGen's latency at the run's target percentile, per sample or query */
    {"percentile_latency_s", "lat_ms", C_FIG, 1000, 2},
    {"latency_percentile", "lat_pct", C_ATTR, 1, 0},
    {"latency_per", "lat_per", C_ATTR, 1, 0},
    {"workload", "workload", C_ATTR, 1, 0},
    {"valid", "valid", C_VALID, 1, 0},
    {"warn", "warn", C_WARN, 1, 0},
};

#define N_LLM_COLS (sizeof llm_cols / sizeof llm_cols[0])
#define N_DIF_COLS (sizeof diffusion_cols / sizeof diffusion_cols[0])
#define N_SAMPLE_COLS (sizeof sample_cols / sizeof sample_cols[0])

/* Sections: runs of one kind of output share one header. */
enum { SEC_TOKENS, SEC_IMAGES, SEC_VIDEOS, SEC_SAMPLES, SEC_OTHER, SEC_COUNT };
static const char *const sec_title[] = {
    "LLM / MLLM runs (per output token)", "diffusion runs: images (per image)",
    "diffusion runs: videos (per video)",
    "per-sample runs: language, vision, speech, recommendation, graph (per sample)",
    "runs of other workloads"};
static const char *const sec_item[] = {"token", "image", "video", "sample", "item"};

static int section_of(const jl_summary *s)
{
    if (jl_attrs_is_diffusion(&s->attrs)) {
        const char *t = s->attrs.task;
        return t && strstr(t, "video") ? SEC_VIDEOS : SEC_IMAGES;
    }
    if (jl_attrs_is_per_sample(&s->attrs))
        return SEC_SAMPLES;
    return jl_attrs_is_llm(&s->attrs) ? SEC_TOKENS : SEC_OTHER;
}

/* The table options: -o COLUMNS (parsed into cols, keys pointing into
 * text, which the options own). */
typedef struct table_opts {
    char *text;
    col *cols;
    size_t n;
} table_opts;

static void table_opts_free(table_opts *o)
{
    free(o->text);
    free(o->cols);
}

/* A column's name is a typed name: whatever its case (jl_name_eq). */
static const col *known_column(const char *name)
{
    for (size_t i = 0; i < N_LLM_COLS; i++)
        if (!strcmp(name, llm_cols[i].key) || !strcmp(name, llm_cols[i].header))
            return &llm_cols[i];
    for (size_t i = 0; i < N_DIF_COLS; i++)
        if (!strcmp(name, diffusion_cols[i].key) || !strcmp(name, diffusion_cols[i].header))
            return &diffusion_cols[i];
    for (size_t i = 0; i < N_LLM_COLS; i++)
        if (jl_name_eq(name, llm_cols[i].key) || jl_name_eq(name, llm_cols[i].header))
            return &llm_cols[i];
    for (size_t i = 0; i < N_DIF_COLS; i++)
        if (jl_name_eq(name, diffusion_cols[i].key) || jl_name_eq(name, diffusion_cols[i].header))
            return &diffusion_cols[i];
    if (jl_name_eq(name, "steady_method"))
        return &llm_cols[6];
    if (jl_name_eq(name, "warnings"))
        return &llm_cols[N_LLM_COLS - 1];
    return NULL;
}

/* -o: names of default columns (their key or header), file, run, window,
 * warn, energy_source, figures (with or without unit suffix; energy,
 * latency and throughput by workload), any attribute. */
static int parse_columns(const char *cmd, const char *arg, table_opts *o)
{
    table_opts_free(o);
    memset(o, 0, sizeof *o);
    if (!(o->text = strdup(arg)))
        return cli_oom(cmd);
    for (char *save = NULL, *tok = strtok_r(o->text, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        col c = {tok, NULL, C_ATTR, 1, -1};
        const col *k = known_column(tok);
        if (k)
            c = *k;
        else if (jl_name_eq(tok, "energy_source"))
            c.kind = C_SOURCE;
        else if (jl_slo_resolve_figure(tok, "llm") >= 0 ||
                 jl_slo_resolve_figure(tok, "diffusion") >= 0 ||
                 jl_slo_resolve_figure(tok, "vision") >= 0)
            c.kind = C_FIG;
        col *nc = realloc(o->cols, (o->n + 1) * sizeof *nc);
        if (!nc)
            return cli_oom(cmd);
        o->cols = nc;
        o->cols[o->n++] = c;
    }
    if (!o->n)
        return cli_usage_error(cmd, "-o: no column named (e.g. -o model,cap,energy,latency)");
    return 0;
}

/* The figure a column shows for a section: its key resolved for the
 * section's workload (energy: per token or per item). */
static int column_figure(const col *c, int sec)
{
    return jl_slo_resolve_figure(c->key, sec == SEC_TOKENS    ? "llm"
                                         : sec == SEC_OTHER   ? NULL
                                         : sec == SEC_SAMPLES ? "vision"
                                                              : "diffusion");
}

static void column_header(const col *c, int sec, char *buf, size_t cap)
{
    if (c->header) {
        /* J/ITEM, ITEM/s: the section's item */
        const char *p = strstr(c->header, "ITEM");
        if (p)
            snprintf(buf, cap, "%.*s%s%s", (int)(p - c->header), c->header, sec_item[sec], p + 4);
        else
            snprintf(buf, cap, "%s", c->header);
        return;
    }
    int f = c->kind == C_FIG ? column_figure(c, sec) : -1;
    snprintf(buf, cap, "%s", f >= 0 ? jl_figure_name((jl_figure)f) : c->key);
}

static void column_cell(cli_table *t, size_t i, const col *c, int sec, const jl_summary *s)
{
    char buf[1024];
    switch (c->kind) {
    case C_FILE: cli_table_set(t, i, cli_basename(s->file ? s->file : "-")); return;
    case C_RUN: cli_table_set(t, i, s->run); return;
    case C_METHOD: cli_table_set(t, i, jl_steady_method_name(s->steady_method)); return;
    case C_SOURCE: cli_table_set(t, i, jl_energy_source_name(s->energy_source)); return;
    case C_WARN: cli_table_setf(t, i, "%zu", s->n_warnings); return;
    case C_SCOPE: cli_table_set(t, i, jl_scope_name(s->boundary.scope)); return;
    case C_VALID: cli_table_set(t, i, jl_validity_is_valid(&s->validity) ? "yes" : "NO"); return;
    case C_ATTR:
        if (!jl_attrs_known(&s->attrs, c->key))
            cli_table_set(t, i, "-"); /* a placeholder (@unknown_attributes) */
        else if (jl_attrs_get(&s->attrs, c->key, buf, sizeof buf) == 0)
            cli_table_set(t, i, buf);
        return;
    default: {
        int f = column_figure(c, sec);
        double v = f >= 0 ? s->fig[f] : NAN;
        if (!isfinite(v))
            return;
        /* '*': published and recomputed differ beyond the threshold (spec 1.1);
         * '~': a peak of power averaged over 1 s (peak_power_kind) */
        const char *mark = jl_summary_figure_marked(s, (jl_figure)f) ? "*"
                           : f == JL_FIG_PEAK_POWER_W && s->peak_power_kind &&
                                   !strcmp(s->peak_power_kind, "average_1s")
                               ? "~"
                               : "";
        if (c->decimals < 0)
            cli_table_setf(t, i, "%.6g%s", v * c->scale, mark);
        else
            cli_table_setf(t, i, "%.*f%s", c->decimals, v * c->scale, mark);
    }
    }
}

/* A column of -o that names nothing: an attribute no run has. Exit 2 with
 * the closest name (a column, a figure or an attribute the runs have). */
static int check_columns(const char *cmd, table_opts *o, const jl_summary_list *l)
{
    char v[256];
    for (size_t i = 0; i < o->n; i++) {
        col *c = &o->cols[i];
        if (c->kind != C_ATTR || known_column(c->key))
            continue;
        /* an attribute, as the runs spell it (TEAM is team) */
        const char *spelt = jl_study_attribute_name(l, c->key);
        if (spelt)
            c->key = spelt;
        size_t r = 0;
        while (r < l->count && jl_attrs_get(&l->items[r]->attrs, c->key, v, sizeof v) != 0)
            r++;
        if (r < l->count)
            continue;
        const char *names[2 * (N_LLM_COLS + N_DIF_COLS) + 4];
        size_t n = 0;
        for (size_t k = 0; k < N_LLM_COLS; k++) {
            names[n++] = llm_cols[k].key;
            names[n++] = llm_cols[k].header;
        }
        for (size_t k = 0; k < N_DIF_COLS; k++) {
            names[n++] = diffusion_cols[k].key;
            names[n++] = diffusion_cols[k].header;
        }
        names[n++] = "energy_source";
        names[n++] = "steady_method";
        names[n++] = "warnings";
        char near[128];
        int hint = jl_suggest_name(c->key, names, n, near, sizeof near) ||
                   jl_slo_suggest_figure(c->key, near, sizeof near) ||
                   jl_study_suggest_attribute(l, c->key, near, sizeof near);
        return cli_usage_error(cmd,
                               "-o: unknown column '%s': no figure, and no run has such an "
                               "attribute (%s%s%scolumns: default headers or keys, file, run, "
                               "window, warn, energy_source, a figure, an attribute)",
                               c->key, hint ? "did you mean '" : "", hint ? near : "",
                               hint ? "'? " : "");
    }
    return 0;
}

static const table_opts *g_table; /* -o, for print_table (one command per process) */

/* Under the table: each run's published figures beside the recomputed. */
static void print_disagreements(const jl_summary_list *l, const size_t *order)
{
    int any = 0;
    for (size_t i = 0; i < l->count; i++) {
        const jl_summary *s = l->items[order[i]];
        jl_disagreement d[JL_FIG_COUNT];
        size_t n = jl_summary_disagreements(s, d);
        if (!s->published)
            continue;
        if (!any++)
            printf("\npublished figures beside time series (headline = published; '*' = "
                   "recomputed differs by more than the threshold):\n");
        printf("  %s %s: published by %s; %zu figure%s both ways\n", cli_basename(s->file), s->run,
               s->published->source ? s->published->source : "(unnamed source)", n,
               n == 1 ? "" : "s");
        for (size_t k = 0; k < n; k++) {
            char rd[32];
            if (isfinite(d[k].relative_difference))
                snprintf(rd, sizeof rd, "%+.1f %%", 100 * d[k].relative_difference);
            else
                snprintf(rd, sizeof rd, "n/a");
            printf("    %s %-24s published %.6g, recomputed %.6g (%s; threshold %.0f %%)%s\n",
                   d[k].marked ? "*" : " ", jl_figure_name(d[k].figure), d[k].published,
                   d[k].recomputed, rd, 100 * s->published->mark_threshold,
                   strcmp(d[k].recomputed_from, "the time series") ? " [energy of the series / "
                                                                     "published rate]"
                                                                   : "");
        }
    }
}

static const jl_summary_list *g_sort_list; /* for warn_cmp (one command per process) */

/* Warnings in words under the table. A warning said the same way of more
 * than three runs (every run of an ML.ENERGY import is summary-only) is one
 * line with the count and the first run. */
typedef struct warn_ref {
    size_t run, w;
} warn_ref;

static int warn_cmp(const void *x, const void *y)
{
    const warn_ref *a = x, *b = y;
    const jl_warning *u = &g_sort_list->items[a->run]->warnings[a->w],
                     *v = &g_sort_list->items[b->run]->warnings[b->w];
    int c = strcmp(u->rule, v->rule);
    if (!c)
        c = strcmp(u->message ? u->message : "", v->message ? v->message : "");
    if (!c)
        c = (a->run > b->run) - (a->run < b->run);
    return c ? c : (a->w > b->w) - (a->w < b->w);
}

static void print_warnings(const jl_summary_list *l, const size_t *order)
{
    size_t n = 0;
    for (size_t i = 0; i < l->count; i++)
        n += l->items[i]->n_warnings;
    if (!n)
        return;
    warn_ref *refs = malloc(n * sizeof *refs);
    size_t *count = calloc(n, sizeof *count); /* per sorted ref: size of its run of equals */
    if (!refs || !count) {
        free(refs);
        free(count);
        return;
    }
    size_t k = 0;
    for (size_t i = 0; i < l->count; i++)
        for (size_t w = 0; w < l->items[order[i]]->n_warnings; w++)
            refs[k++] = (warn_ref){order[i], w};
    g_sort_list = l;
    warn_ref *sorted = malloc(n * sizeof *sorted);
    if (!sorted) {
        free(refs);
        free(count);
        return;
    }
    memcpy(sorted, refs, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, warn_cmp);
    printf("\nwarnings:\n");
    for (size_t a = 0; a < n;) {
        size_t b = a + 1;
        const jl_warning *u = &l->items[sorted[a].run]->warnings[sorted[a].w];
        while (b < n) {
            const jl_warning *v = &l->items[sorted[b].run]->warnings[sorted[b].w];
            if (strcmp(u->rule, v->rule) ||
                strcmp(u->message ? u->message : "", v->message ? v->message : ""))
                break;
            b++;
        }
        count[a] = b - a;
        a = b;
    }
    /* in table order: each warning, or once for a run of more than three */
    for (size_t i = 0; i < n; i++) {
        const jl_summary *s = l->items[refs[i].run];
        const jl_warning *u = &s->warnings[refs[i].w];
        size_t lo = 0, hi = n; /* the sorted run of u */
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            const jl_warning *v = &l->items[sorted[mid].run]->warnings[sorted[mid].w];
            int c = strcmp(v->rule, u->rule);
            if (!c)
                c = strcmp(v->message ? v->message : "", u->message ? u->message : "");
            if (c < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        size_t same = count[lo];
        if (same <= 3) {
            printf("  %s %s: [%s] %s\n", cli_basename(s->file), s->run, u->rule, u->message);
            continue;
        }
        if (count[lo] == (size_t)-1)
            continue; /* said already */
        printf("  %zu runs (%s %s and %zu more): [%s] %s\n", same, cli_basename(s->file), s->run,
               same - 1, u->rule, u->message);
        count[lo] = (size_t)-1;
    }
    free(sorted);
    free(refs);
    free(count);
}

/* Under the default table: what its energy columns cover (summary.md,
 * "Every figure and its boundary"). */
static void print_boundaries(const jl_summary_list *l)
{
    int avg = 0;
    for (size_t i = 0; i < l->count; i++)
        avg |= l->items[i]->peak_power_kind && !strcmp(l->items[i]->peak_power_kind, "average_1s");
    printf("\nboundaries: energy_J, J/token (J/image), avg_W and peak_W cover each run's window\n"
           "  (the window column: a steady-state rule, or whole_run) at its scope (gpu: the GPUs'\n"
           "  power; node: the node's AC power at the wall); run_J/token (run_J/image): all the\n"
           "  energy of the whole run at that scope over all its tokens (images); outside%%: the\n"
           "  share of the whole run's energy outside the window (summary.md, \"Every figure and\n"
           "  its boundary\")\n");
    if (avg)
        printf("  '~' after peak_W: the peak of power averaged over 1 s, not an instant\n");
}

/* Validity in words under the table (issue 37): each run's reasons, the
 * invalid ones first, in table order; what was done to the input (info)
 * is left to --json. */
static void print_validity(const jl_summary_list *l, const size_t *order)
{
    int header = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < l->count; i++) {
            const jl_summary *s = l->items[order[i]];
            for (size_t k = 0; k < s->validity.n; k++) {
                const jl_reason *r = &s->validity.reasons[k];
                jl_severity sev = jl_reason_severity(r);
                if ((pass == 0) != (sev == JL_SEVERITY_INVALID) || sev == JL_SEVERITY_INFO)
                    continue;
                if (!header++)
                    printf("\nvalidity (check.md, \"Reason codes\"):\n");
                printf("  %s %s: %s [%s] %s\n", cli_basename(s->file), s->run,
                       sev == JL_SEVERITY_INVALID ? "NOT VALID" : "caution", r->code, r->message);
            }
        }
}

static void print_table(const void *result, const jl_summary_list *l)
{
    (void)result;
    size_t per_sec[SEC_COUNT] = {0}, n_sec = 0;
    size_t *order = malloc((l->count ? l->count : 1) * sizeof *order);
    if (!order)
        return;
    for (size_t i = 0; i < l->count; i++) {
        per_sec[section_of(l->items[i])]++;
        order[i] = i;
    }
    g_sort_list = l;
    cli_run_order(l, order);
    for (int k = 0; k < SEC_COUNT; k++)
        n_sec += per_sec[k] > 0;
    int printed = 0, shortened = 0;
    for (int sec = 0; sec < SEC_COUNT; sec++) {
        /* no run (every input refused, its reason on stderr): no table, not an
         * empty header (issue 38) */
        if (!per_sec[sec])
            continue;
        const col *cols = g_table && g_table->n                    ? g_table->cols
                          : sec == SEC_IMAGES || sec == SEC_VIDEOS ? diffusion_cols
                          : sec == SEC_SAMPLES                     ? sample_cols
                                                                   : llm_cols;
        size_t n = g_table && g_table->n                    ? g_table->n
                   : sec == SEC_IMAGES || sec == SEC_VIDEOS ? N_DIF_COLS
                   : sec == SEC_SAMPLES                     ? N_SAMPLE_COLS
                                                            : N_LLM_COLS;
        char hbuf[64][64];
        const char *headers[64];
        int right[64];
        long file_col = -1;
        if (n > 64)
            n = 64;
        for (size_t i = 0; i < n; i++) {
            column_header(&cols[i], sec, hbuf[i], sizeof hbuf[i]);
            headers[i] = hbuf[i];
            right[i] = cols[i].kind == C_FIG || cols[i].kind == C_WARN ||
                       (cols[i].kind == C_ATTR && (!strcmp(cols[i].key, "num_gpus") ||
                                                   !strcmp(cols[i].key, "max_batch_size") ||
                                                   !strcmp(cols[i].key, "denoising_steps")));
            if (cols[i].kind == C_FILE)
                file_col = (long)i;
        }
        cli_table *t = cli_table_new(n, headers, right);
        if (!t)
            break;
        for (size_t r = 0; r < l->count; r++) {
            const jl_summary *s = l->items[order[r]];
            if (section_of(s) != sec || cli_table_row(t))
                continue;
            for (size_t i = 0; i < n; i++)
                column_cell(t, i, &cols[i], sec, s);
        }
        if (printed++)
            putchar('\n');
        if (n_sec > 1)
            printf("%s\n", sec_title[sec]);
        shortened |= cli_table_print(t, stdout, file_col);
        cli_table_free(t);
    }
    if (shortened)
        printf("(file names shortened in the middle to fit the terminal; -o chooses columns)\n");
    if (!(g_table && g_table->n) && l->count)
        print_boundaries(l);
    print_disagreements(l, order);
    print_validity(l, order);
    print_warnings(l, order);
    free(order);
}

static jl_status write_csv(const char *path, const void *result, const jl_summary_list *l,
                           jl_error **err)
{
    const jl_names *names = result; /* cli_emit passes --names (csv_names) */
    return jl_write_summaries_csv_named(path, l, names ? *names : JL_NAMES_JOULES, err);
}

static json_t *to_json(const void *result, const jl_summary_list *l)
{
    (void)result;
    return jl_summary_document(l, NULL); /* cli_emit adds the errors */
}

static jl_status write_json(const char *path, const void *result, const jl_summary_list *l,
                            const jl_error_list *errors, jl_error **err)
{
    (void)result;
    return jl_write_summary_json(path, l, errors, err);
}

/* The result is the study's runs themselves. */
static const cli_output output = {write_csv, to_json, print_table, "runs", 1, 0};

enum { OPT_WINDOW = CLI_OPT_FIRST_FREE };

/* summarize's own options: -o and --window */
typedef struct own_args {
    table_opts *topt;
    jl_summary_options *so;
} own_args;

/* --window A,B (either may be empty) or run, into so. */
static int parse_window(const char *cmd, const char *arg, jl_summary_options *so)
{
    double w[2] = {-INFINITY, INFINITY};
    const char *comma = strchr(arg, ',');
    if (strcmp(arg, "run") != 0) {
        char *end = NULL;
        if (!comma)
            goto bad;
        if (comma > arg && ((w[0] = strtod(arg, &end)), end != comma || !isfinite(w[0])))
            goto bad;
        if (comma[1] && ((w[1] = strtod(comma + 1, &end)), *end || !isfinite(w[1])))
            goto bad;
        if (!(w[1] > w[0]))
            return cli_usage_error(cmd, "--window %s: B must be greater than A", arg);
    }
    so->custom_window = 1;
    so->window[0] = w[0];
    so->window[1] = w[1];
    return 0;
bad:
    return cli_usage_error(cmd,
                           "--window: expected A,B in seconds (A or B may be empty) or run, "
                           "got '%s'",
                           arg);
}

static int own_option(void *ctx, const char *cmd, int code, const char *arg)
{
    own_args *a = ctx;
    if (code == OPT_WINDOW)
        return parse_window(cmd, arg, a->so);
    return parse_columns(cmd, arg, a->topt);
}

static const struct option longopts[] = {
    CLI_JSON_LONG_OPTION,
    CLI_CSV_LONG_OPTION,
    {"columns", required_argument, NULL, 'o'},
    {"window", required_argument, NULL, OPT_WINDOW},
    CLI_END_LONG_OPTIONS,
};
const cli_options cli_options_summarize = {":ho:", longopts};

int cli_cmd_summarize(int argc, char **argv)
{
    const char *cmd = "summarize";
    table_opts topt = {0};
    cli_study cs;
    cli_study_init(&cs);
    cs.opt.trace.summary_fields_only = 1; /* summaries only: skip unused datasets */
    own_args oa = {&topt, &cs.opt.summary};
    int rc = cli_parse(&cs, cmd, help, argc, argv, cli_options_summarize.optstring, longopts,
                       own_option, &oa);
    if (rc || cs.helped)
        goto out;
    if ((rc = cli_check_outputs(cmd, &cs, cs.csv, cs.json, &output)))
        goto out;
    if (topt.n && (cs.json || cs.jsonl || (cs.csv && !strcmp(cs.csv, "-")))) {
        rc = cli_usage_error(cmd,
                             "-o chooses the table's columns: not with --json, --jsonl or --csv -");
        goto out;
    }
    g_table = &topt;
    if (!(rc = cli_study_start(&cs, cmd, argc, argv, &output)) &&
        !(rc = check_columns(cmd, &topt, &cs.runs)))
        rc = cli_emit_written(cmd, &cs, &output, NULL, write_json);
out:
    g_table = NULL;
    table_opts_free(&topt);
    cli_study_free(&cs);
    return rc;
}
