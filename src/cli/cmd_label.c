/* joules label — labels after the AI Energy Score's rules: per (model, task,
 * GPU model, GPU count) Wh per 1,000 queries at the boundary counted (the
 * whole run at the widest measured scope by default) at the least-energy
 * configuration meeting the SLOs, 1-5 stars within the task, GPU model and
 * size class in the data given; as SVG files and a JSON document. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/exit_codes.h"
#include "joules/account.h"

static const char *const help =
    "usage: joules label [--slo EXPR]... [--window W] [--scope S] [-o DIR] [--json]\n"
    "                    [options] PATH...\n\n"
    "An energy label per (model, task, GPU model, GPU count), after the AI Energy\n"
    "Score's rules: the energy of 1,000 queries (images for diffusion; Wh; by\n"
    "default over the whole run at the widest scope measured, named on the label)\n"
    "at the configuration of least energy per request that meets the SLOs of its\n"
    "workload, the hardware, the configuration, the measurement date, the\n"
    "provenance hash to verify it with, and 1-5 stars: five equal bands of the\n"
    "range of the labels of the same task, GPU model, size class (text generation:\n"
    "A <= 20 B parameters, B <= 66 B, C larger) and boundary in the data given, 5 in\n"
    "the lowest (relative to this set only). accounting.md.\n\n"
    "  --slo EXPR     a service-level objective the configuration must meet\n"
    "                 (repeatable; each applies to the workloads it names figures\n"
    "                 of: a run none applies to is left out and counted)\n"
    "  --window W     run (default: the whole run; a run with no whole-run energy is\n"
    "                 counted over its own window) or steady (the steady state)\n"
    "  --scope S      auto (default: the widest measured: node, else GPUs + host,\n"
    "                 else GPUs), gpu, host, node or provisioned\n"
    "  -o, --output DIR  write DIR/<model>_<task>_<gpu>x<N>.svg per label and\n"
    "                 DIR/labels.json\n"
    "  --json         print the joules.label/1 document\n" CLI_STUDY_HELP
    "  -h, --help     this help\n";

typedef struct label_ctx {
    jl_label_set ls;
    char slo_text[1024];
    char hash[65];
    int have_hash;
    const char *dir, *window, *scope;
} label_ctx;

static label_ctx the;

static void print_table(const void *result, const jl_summary_list *l)
{
    (void)result;
    cli_left_out lo = {0};
    for (size_t i = 0; i < the.ls.n; i++) {
        const jl_label *b = &the.ls.items[i];
        const jl_summary *s = l->items[b->run];
        cli_left_out_add(&lo, &b->counted);
        char cls[16] = "", cap[24];
        if (b->size_class[0])
            snprintf(cls, sizeof cls, " class %s", b->size_class);
        cli_fmt_cap(cap, sizeof cap, s);
        char stars[24] = "not rated";
        if (b->stars)
            snprintf(stars, sizeof stars, "%d star%s", b->stars, b->stars == 1 ? "" : "s");
        printf("%-32s %-16s %-5s x%ld  %-5s %10.4g Wh/1000 (%s/%s)  %s (of %zu label%s in "
               "%s, %s%s)\n",
               b->model, b->task, b->gpu_model ? b->gpu_model : "-", b->num_gpus, cap,
               b->wh_per_1000, jl_window_name(b->counted.boundary.window),
               jl_scope_name(b->counted.boundary.scope), stars, b->task_models,
               b->task_models == 1 ? "" : "s", b->task, b->gpu_model ? b->gpu_model : "-", cls);
    }
    cli_left_out_print(&lo, the.window, the.scope, "labels' runs");
    if (the.ls.skipped_no_slo)
        printf("left out: %zu run%s of a workload no --slo applies to (a diffusion run under an "
               "ITL SLO: give one of its own, e.g. --slo 'batch_latency<=30s')\n",
               the.ls.skipped_no_slo, the.ls.skipped_no_slo == 1 ? "" : "s");
}

static json_t *to_json(const void *r, const jl_summary_list *l)
{
    (void)r;
    return jl_label_document(&the.ls, l, the.slo_text[0] ? the.slo_text : NULL,
                             the.have_hash ? the.hash : NULL);
}

static const cli_output output = {NULL, to_json, print_table, "labels", 0, 0};

enum { OPT_WINDOW = CLI_OPT_FIRST_FREE, OPT_SCOPE };

static int own_option(void *vctx, const char *cmd, int code, const char *arg)
{
    (void)vctx;
    (void)cmd;
    *(code == OPT_WINDOW ? &the.window : code == OPT_SCOPE ? &the.scope : &the.dir) = arg;
    return 0;
}

static void file_name(char *buf, size_t n, const jl_label *b)
{
    snprintf(buf, n, "%s_%s_%sx%ld.svg", b->model, b->task, b->gpu_model ? b->gpu_model : "gpu",
             b->num_gpus);
    for (char *p = buf; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '.' && *p != '-' && *p != '_')
            *p = '_';
}

static int print_str(FILE *f, const void *ctx)
{
    const char *s = ctx;
    return fputs(s, f) == EOF;
}

static int write_dir(const char *cmd, const jl_summary_list *l)
{
    if (mkdir(the.dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "joules %s: %s: cannot create: %s\n", cmd, the.dir, strerror(errno));
        return CLI_EXIT_OUTPUT;
    }
    for (size_t i = 0; i < the.ls.n; i++) {
        const jl_label *b = &the.ls.items[i];
        const jl_summary *s = l->items[b->run];
        char date[16] = "";
        time_t t = (time_t)s->attrs.start_time_unix;
        struct tm tm;
        if (isfinite(s->attrs.start_time_unix) && gmtime_r(&t, &tm))
            strftime(date, sizeof date, "%Y-%m-%d", &tm);
        /* its verify line names labels.json as typed from here (-o DIR/) */
        char doc[4096];
        size_t dl = strlen(the.dir);
        snprintf(doc, sizeof doc, "%.*s/labels.json",
                 (int)(dl && the.dir[dl - 1] == '/' ? dl - 1 : dl), the.dir);
        char *svg = jl_label_svg_doc(b, s, the.slo_text[0] ? the.slo_text : NULL,
                                     the.have_hash ? the.hash : NULL, date[0] ? date : NULL, doc);
        char name[512], path[4096];
        file_name(name, sizeof name, b);
        snprintf(path, sizeof path, "%s/%s", the.dir, name);
        jl_error *err = NULL;
        jl_status st = svg ? jl_write_text(path, print_str, svg, &err) : JL_ENOMEM;
        free(svg);
        if (st != JL_OK)
            return cli_fail(cmd, st, err);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/labels.json", the.dir);
    json_t *doc = to_json(NULL, l);
    jl_error *err = NULL;
    jl_status st = doc ? jl_write_json(path, doc, &err) : JL_ENOMEM;
    json_decref(doc);
    return st != JL_OK ? cli_fail(cmd, st, err) : 0;
}

static const struct option longopts[] = {
    CLI_JSON_LONG_OPTION,
    CLI_SLO_LONG_OPTION,
    {"output", required_argument, NULL, 'o'},
    {"window", required_argument, NULL, OPT_WINDOW},
    {"scope", required_argument, NULL, OPT_SCOPE},
    CLI_END_LONG_OPTIONS,
};
const cli_options cli_options_label = {":ho:", longopts};

int cli_cmd_label(int argc, char **argv)
{
    const char *cmd = "label";
    jl_account_boundary bound;
    jl_account_boundary_default(&bound);
    cli_study cs;
    cli_study_init(&cs);
    memset(&the, 0, sizeof the);
    int rc = cli_parse(&cs, cmd, help, argc, argv, cli_options_label.optstring, longopts,
                       own_option, NULL);
    if (!rc && !cs.helped)
        rc = cli_account_boundary(cmd, the.window, the.scope, 0,
                                  "a label counts measured energy (x PUE is for emissions and "
                                  "card, which take --pue)",
                                  &bound);
    if (!rc && !cs.helped && !(rc = cli_study_start(&cs, cmd, argc, argv, &output))) {
        for (size_t i = 0; i < cs.slos.n; i++) {
            size_t len = strlen(the.slo_text);
            snprintf(the.slo_text + len, sizeof the.slo_text - len, "%s%s", i ? " and " : "",
                     cs.slos.items[i]->text);
        }
        const json_t *prov = jl_output_provenance();
        if (prov) {
            jl_provenance_hash(prov, the.hash);
            the.have_hash = 1;
        }
        jl_error *err = NULL;
        jl_status st = jl_labels_at(&cs.runs, (const jl_slo *const *)cs.slos.items, cs.slos.n,
                                    &bound, &the.ls, &err);
        if (st != JL_OK)
            rc = cli_fail(cmd, st, err);
        else if (the.dir)
            rc = write_dir(cmd, &cs.runs);
        if (!rc)
            rc = cli_emit(cmd, &cs, &output, &the.ls);
        for (size_t i = 0; st == JL_OK && i < the.ls.n_refused; i++)
            fprintf(stderr, "joules %s: %s\n", cmd, the.ls.refused[i]);
        if (!rc && st == JL_OK && the.ls.n_refused)
            rc = the.ls.n ? CLI_EXIT_PARTIAL : CLI_EXIT_NOINPUT;
    }
    jl_label_set_clear(&the.ls);
    cli_study_free(&cs);
    return rc;
}
