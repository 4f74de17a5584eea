/* joules import — other formats into a trace file. The formats are the
 * library's importer table (jl_importers(), src/import/importers.h): this
 * file only parses argv, runs the importer and writes its runs. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/exit_codes.h"
#include "joules/import.h"
#include "joules/output.h"
#include "joules/trace_write.h"

#define COMMON_HELP                                                                          \
    "  -o, --output FILE  the trace file to write (required; written whole or not at all)\n" \
    "  --force            replace FILE if it exists\n"                                       \
    "  --groups           summary-only runs as one group of attributes each, for\n"          \
    "                     readers that predate the summary table (default: one\n"            \
    "                     table, /summary_table; trace-format.md)\n"                         \
    "  --json             print the joules.import/1 document (counts, notes, errors)\n"      \
    "  --quiet            no notes on stderr\n"                                              \
    "  -h, --help         this help\n"

static void list_formats(FILE *out)
{
    size_t n;
    const jl_importer *const *t = jl_importers(&n);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "  %-18s %s\n", t[i]->name, t[i]->summary);
}

static void general_help(void)
{
    printf("usage: joules import FORMAT PATH... -o FILE.h5 [--force] [--groups] [--json] [--quiet] "
           "[FORMAT's options]\n"
           "       joules import --list\n"
           "       joules import FORMAT --help\n\n"
           "Import measurements recorded in another format as a trace file (format v1)\n"
           "that every joules command reads (import.md). Formats:\n\n");
    list_formats(stdout);
    printf("\n" COMMON_HELP);
    cli_help("import", NULL);
}

static void format_help(const jl_importer *im)
{
    printf("usage: joules import %s %s -o FILE.h5 [--force] [--groups] [--json] [--quiet]",
           im->name, im->paths);
    for (const jl_importer_option *o = im->options; o->name; o++)
        printf(o->arg ? " [--%s %s]" : " [--%s]", o->name, o->arg);
    printf("\n\n%s\n" COMMON_HELP, im->description);
    for (const jl_importer_option *o = im->options; o->name; o++) {
        char lhs[64];
        snprintf(lhs, sizeof lhs, o->arg ? "--%s %s" : "--%s", o->name, o->arg);
        if (strlen(lhs) > 18) /* a long option gets its help on the next line */
            printf("  %s\n  %-18s %s\n", lhs, "", o->help);
        else
            printf("  %-18s %s\n", lhs, o->help);
    }
    char page[96];
    snprintf(page, sizeof page, "import-%s", im->name);
    cli_help(page, NULL);
}

/* import's options after FORMAT, and its paths. */
typedef struct import_args {
    const char *out;
    int json, quiet, force, groups, helped;
    jl_importer_arg *args; /* the format's own options */
    size_t n_args;
    char **paths;
    size_t n_paths;
} import_args;

enum { OPT_JSON = CLI_OPT_FIRST_FREE, OPT_QUIET, OPT_FORCE, OPT_GROUPS, OPT_FORMAT_FIRST };

/* The options after FORMAT (argv[0] is "import"), the format's own
 * included; the paths checked against what the format takes. Returns 0 or
 * an exit code (printed); ia->helped when --help was printed. */
static int import_parse(const char *cmd, const jl_importer *im, int argc, char **argv,
                        import_args *ia)
{
    size_t n_fmt = 0;
    while (im->options[n_fmt].name)
        n_fmt++;
    struct option *longopts = calloc(n_fmt + 7, sizeof *longopts);
    if (!longopts || !(ia->args = calloc(argc, sizeof *ia->args))) {
        free(longopts);
        return cli_oom(cmd);
    }
    size_t k = 0;
    longopts[k++] = (struct option){"output", required_argument, NULL, 'o'};
    longopts[k++] = (struct option){"json", no_argument, NULL, OPT_JSON};
    longopts[k++] = (struct option){"quiet", no_argument, NULL, OPT_QUIET};
    longopts[k++] = (struct option){"force", no_argument, NULL, OPT_FORCE};
    longopts[k++] = (struct option){"groups", no_argument, NULL, OPT_GROUPS};
    longopts[k++] = (struct option){"help", no_argument, NULL, 'h'};
    for (size_t i = 0; i < n_fmt; i++)
        longopts[k++] = (struct option){im->options[i].name,
                                        im->options[i].arg ? required_argument : no_argument, NULL,
                                        OPT_FORMAT_FIRST + (int)i};
    int c, rc = 0;
    optind = 1;
    /* argv[0] is "import": parse the arguments after FORMAT */
    int sub_argc = argc - 1;
    char **sub_argv = argv + 1;
    while (!rc && (c = getopt_long(sub_argc, sub_argv, ":ho:", longopts, NULL)) != -1) {
        switch (c) {
        case 'h':
            format_help(im);
            ia->helped = 1;
            free(longopts);
            return 0;
        case 'o': ia->out = optarg; break;
        case OPT_JSON: ia->json = 1; break;
        case OPT_QUIET: ia->quiet = 1; break;
        case OPT_FORCE: ia->force = 1; break;
        case OPT_GROUPS: ia->groups = 1; break;
        default:
            if (c >= OPT_FORMAT_FIRST && c < OPT_FORMAT_FIRST + (int)n_fmt) {
                ia->args[ia->n_args].name = im->options[c - OPT_FORMAT_FIRST].name;
                ia->args[ia->n_args].value = optarg ? optarg : "";
                ia->n_args++;
                break;
            }
            rc = cli_bad_option(cmd, c, sub_argv);
        }
    }
    free(longopts);
    if (rc)
        return rc;
    ia->paths = sub_argv + optind;
    ia->n_paths = (size_t)(sub_argc - optind);
    if (ia->n_paths < im->min_paths || (im->max_paths && ia->n_paths > im->max_paths))
        return im->max_paths == 1
                   ? cli_usage_error(cmd, "give exactly one %s after '%s'", im->paths, im->name)
                   : cli_usage_error(cmd, "give %s after '%s'", im->paths, im->name);
    if (!ia->out)
        return cli_usage_error(cmd, "no output file: -o FILE.h5");
    if (!ia->force && access(ia->out, F_OK) == 0) {
        fprintf(stderr, "joules %s: %s already exists (use --force to replace it)\n", cmd, ia->out);
        return cli_exit_for_status(JL_EUSAGE);
    }
    return 0;
}

/* "joules import FORMAT: PATH PATH ..." (caller frees; NULL out of memory). */
static char *harness_of(const jl_importer *im, char *const *paths, size_t n)
{
    size_t hlen = strlen("joules import : ") + strlen(im->name) + 1;
    for (size_t i = 0; i < n; i++)
        hlen += strlen(paths[i]) + 1;
    char *harness = malloc(hlen);
    if (harness) {
        snprintf(harness, hlen, "joules import %s:", im->name);
        for (size_t i = 0; i < n; i++) {
            strcat(harness, " ");
            strcat(harness, paths[i]);
        }
    }
    return harness;
}

/* After the import ran: its notes, the trace written (committed, or
 * written from the runs), the result said; the exit code. */
static int import_finish(const char *cmd, const jl_importer *im, const import_args *ia,
                         jl_trace_write_options *wo, jl_trace_writer *w, char *harness,
                         jl_import_result *r, jl_error_list *errors)
{
    int rc = JL_EXIT_OK;
    jl_error *err = NULL;
    jl_status st;
    if (!ia->quiet && !ia->json)
        for (size_t i = 0; i < r->n_notes; i++)
            fprintf(stderr, "joules import: note: %s%s%s%s%s%s\n", r->notes[i].file,
                    *r->notes[i].file ? ": " : "", r->notes[i].field,
                    *r->notes[i].field ? ": " : "", r->notes[i].message,
                    r->notes[i].count > 1 ? " (and more like it)" : "");
    if (!w) {
        const char *source = r->source ? r->source : ia->paths[0];
        size_t hlen = strlen("joules import : ") + strlen(im->name) + strlen(source) + 1;
        if ((harness = malloc(hlen)))
            snprintf(harness, hlen, "joules import %s: %s", im->name, source);
        wo->harness = harness;
    }
    if (!harness) {
        jl_trace_writer_abort(w);
        rc = cli_oom(cmd);
    } else if ((st = w ? jl_trace_writer_commit(w, &err)
                       : jl_trace_write(ia->out, (const jl_run *const *)r->runs, r->n_runs, wo,
                                        &err)) != JL_OK) {
        rc = cli_fail(cmd, st, err);
    } else if (ia->json) {
        rc = cli_print_document(cmd, jl_import_result_to_json(r, im->name, ia->out), errors);
    } else {
        printf("imported %zu runs from %zu files (%s) into %s\n", r->n_runs, r->n_files,
               r->detail_text ? r->detail_text : "", ia->out);
    }
    if (rc == JL_EXIT_OK)
        rc = cli_exit_for(r->n_runs, errors->count);
    free(harness);
    return rc;
}

/* Run the importer: an importer that writes as it reads gets the writer
 * first (the file's source is then the format and its paths). */
static int import_run(const char *cmd, const jl_importer *im, const import_args *ia)
{
    cli_install_signal_cleanup();
    jl_trace_write_options wo;
    jl_trace_write_options_default(&wo);
    /* deflate level 1: a long log's series compress almost as well as at
     * the default 4, in a third of the time (docs/import.md, "Speed") */
    wo.level = 1;
    wo.summary_table = !ia->groups;
    if (im->write_zstd)
        wo.compression = JL_COMPRESS_ZSTD;
    jl_import_result *r = NULL;
    jl_error_list errors = {0};
    jl_error *err = NULL;
    char *harness = NULL;
    jl_trace_writer *w = NULL;
    jl_status st;
    const char *const *paths = (const char *const *)ia->paths;
    if (im->write) {
        /* The harness attribute names the source in full, however long */
        if (!(harness = harness_of(im, ia->paths, ia->n_paths)))
            return cli_oom(cmd);
        wo.harness = harness;
        if ((st = jl_trace_writer_open(ia->out, &wo, &w, &err)) != JL_OK) {
            free(harness);
            return cli_fail(cmd, st, err);
        }
        st = im->write(paths, ia->n_paths, ia->args, ia->n_args, w, &r, &errors);
    } else {
        st = im->run(paths, ia->n_paths, ia->args, ia->n_args, &r, &errors);
    }
    for (size_t i = 0; i < errors.count; i++)
        cli_print_error(cmd, errors.items[i]);
    int rc;
    if (st != JL_OK || !r) {
        /* the error that stopped the import is the last one listed when it
         * carries that status (a write failure is on the output side) */
        const jl_error *last = errors.count ? errors.items[errors.count - 1] : NULL;
        rc = jl_exit_for_error(last && last->code == st ? last : NULL,
                               st != JL_OK ? st : JL_ENODATA);
        if (st == JL_EUSAGE)
            fprintf(stderr, "(see `joules import %s --help`)\n", im->name);
        jl_trace_writer_abort(w);
        free(harness);
        jl_import_result_free(r);
    } else {
        rc = import_finish(cmd, im, ia, &wo, w, harness, r, &errors);
        cli_import_result_release(r);
    }
    jl_error_list_clear(&errors);
    return rc;
}

int jl_cmd_import(int argc, char **argv)
{
    const char *cmd = "import";
    if (argc < 2)
        return cli_usage_error(cmd, "which format? (`joules import --list`)");
    if (!strcmp(argv[1], "--list")) {
        list_formats(stdout);
        return JL_EXIT_OK;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        general_help();
        return JL_EXIT_OK;
    }
    const jl_importer *im = jl_importer_find(argv[1]);
    if (!im) {
        fprintf(stderr, "joules import: unknown format '%s'; the formats are:\n", argv[1]);
        list_formats(stderr);
        return cli_exit_for_status(JL_EUSAGE);
    }
    import_args ia;
    memset(&ia, 0, sizeof ia);
    int rc = import_parse(cmd, im, argc, argv, &ia);
    if (!rc && !ia.helped)
        rc = import_run(cmd, im, &ia);
    free(ia.args);
    return rc;
}
