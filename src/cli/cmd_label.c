/* joules label — AI-Energy-Score-style labels: per (model, task, GPU model,
 * GPU count) GPU Wh per 1,000 queries at the least-energy configuration
 * meeting the SLOs, 1-5 stars relative to the models of the same task in
 * the data given; as SVG files and a JSON document. */
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
    "usage: joules label [--slo EXPR]... [-o DIR] [--json] [options] PATH...\n\n"
    "An energy label per (model, task, GPU model, GPU count): the GPU energy of\n"
    "1,000 queries (images for diffusion; Wh) at the configuration of least\n"
    "energy per request that meets every SLO, the hardware, the configuration,\n"
    "the measurement date, the provenance hash to verify it with, and 1-5 stars:\n"
    "5 in the lowest fifth of the range of the labels of the same task in the\n"
    "data given, 1 in the highest (relative to this set only). accounting.md.\n\n"
    "  --slo EXPR     a service-level objective the configuration must meet\n"
    "                 (repeatable)\n"
    "  -o, --output DIR  write DIR/<model>_<task>_<gpu>x<N>.svg per label and\n"
    "                 DIR/labels.json\n"
    "  --json         print the joules.label/1 document\n" CLI_STUDY_HELP
    "  -h, --help     this help\n";

typedef struct label_ctx {
    jl_label_set ls;
    char slo_text[1024];
    char hash[65];
    int have_hash;
    const char *dir;
} label_ctx;

static label_ctx the;

static void print_table(const void *result, const jl_summary_list *l)
{
    (void)result;
    for (size_t i = 0; i < the.ls.n; i++) {
        const jl_label *b = &the.ls.items[i];
        const jl_summary *s = l->items[b->run];
        printf("%-32s %-16s %-5s x%ld  b%-4ld %10.4g Wh/1000  %d star%s (of %zu in %s)\n", b->model,
               b->task, b->gpu_model ? b->gpu_model : "-", b->num_gpus, s->attrs.max_batch_size,
               b->wh_per_1000, b->stars, b->stars == 1 ? "" : "s", b->task_models, b->task);
    }
}

static json_t *to_json(const void *r, const jl_summary_list *l)
{
    (void)r;
    return jl_label_document(&the.ls, l, the.slo_text[0] ? the.slo_text : NULL,
                             the.have_hash ? the.hash : NULL);
}

static const cli_output output = {NULL, to_json, print_table, "labels", 0};

static int own_option(void *vctx, const char *cmd, int code, const char *arg)
{
    (void)vctx;
    (void)cmd;
    (void)code;
    the.dir = arg;
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

int cli_cmd_label(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_JSON_LONG_OPTION,
        CLI_SLO_LONG_OPTION,
        {"output", required_argument, NULL, 'o'},
        CLI_END_LONG_OPTIONS,
    };
    const char *cmd = "label";
    cli_study cs;
    cli_study_init(&cs);
    memset(&the, 0, sizeof the);
    int rc = cli_parse(&cs, cmd, help, argc, argv, ":ho:", longopts, own_option, NULL);
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
        jl_status st =
            jl_labels(&cs.runs, (const jl_slo *const *)cs.slos.items, cs.slos.n, &the.ls, &err);
        if (st != JL_OK)
            rc = cli_fail(cmd, st, err);
        else if (the.dir)
            rc = write_dir(cmd, &cs.runs);
        if (!rc)
            rc = cli_emit(cmd, &cs, &output, &the.ls);
    }
    jl_label_set_clear(&the.ls);
    cli_study_free(&cs);
    return rc;
}
