/* joules import — other formats into a trace file. The formats are the
 * library's importer table (jl_importers(), src/import/registry.c): this
 * file only parses argv, runs the importer and writes its runs. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/exit_codes.h"
#include "cli/mpi.h"
#include "joules/account.h"
#include "joules/import.h"
#include "joules/output.h"
#include "joules/trace_write.h"

#define COMMON_HELP                                                                          \
    "  -o, --output FILE  the trace file to write (required; written whole or not at all)\n" \
    "  --each             one trace per input PATH, into the folder -o DIR (made if\n"       \
    "                     absent) as DIR/<PATH's name>.h5; a failed input does not\n"        \
    "                     stop the others. Under mpirun the inputs are shared by\n"          \
    "                     the ranks (scaling.md); the analysis commands read DIR\n"          \
    "                     as one study\n"                                                    \
    "  --force            replace FILE if it exists\n"                                       \
    "  --groups           summary-only runs as one group of attributes each, for\n"          \
    "                     readers that predate the summary table (default: one\n"            \
    "                     table, /summary_table; trace-format.md)\n"                         \
    "  --json             print the joules.import/1 document (counts, notes, errors)\n"      \
    "  --quiet            no notes on stderr\n"                                              \
    "  -h, --help         this help\n"

#define INTO_HELP                                                                       \
    "  --into TRACE.h5:RUN the existing trace and run to add to (copied, changed and\n" \
    "                     renamed into place: left as it was on any failure)\n"         \
    "  --json             print the joules.import/1 document (counts, notes, errors)\n" \
    "  --quiet            no notes on stderr\n"                                         \
    "  -h, --help         this help\n"

typedef struct import_flags {
    int json, quiet, force, groups;
} import_flags;

static int import_to(const jl_importer *im, const char *cmd, const char *const *paths,
                     size_t n_paths, const jl_importer_arg *args, size_t n_args, const char *out,
                     const import_flags *f);
static int import_each(const jl_importer *im, const char *cmd, const char *const *paths,
                       size_t n_paths, const jl_importer_arg *args, size_t n_args, const char *dir,
                       const import_flags *f);

static void list_formats(FILE *out)
{
    size_t n;
    const jl_importer *const *t = jl_importers(&n);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "  %-18s %s\n", t[i]->name, t[i]->summary);
}

static void general_help(void)
{
    printf(
        "usage: joules import FORMAT PATH... -o FILE.h5 [--force] [--groups] [--json] [--quiet] "
        "[FORMAT's options]\n"
        "       joules import FORMAT PATH --into TRACE.h5:RUN [--json] [--quiet] (kineto, nsys)\n"
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
    if (im->into)
        printf("usage: joules import %s %s --into TRACE.h5:RUN [--json] [--quiet]", im->name,
               im->paths);
    else
        printf("usage: joules import %s %s -o FILE.h5 [--force] [--groups] [--json] [--quiet]",
               im->name, im->paths);
    for (const jl_importer_option *o = im->options; o->name; o++)
        printf(o->arg ? " [--%s %s]" : " [--%s]", o->name, o->arg);
    printf("\n\n%s\n%s", im->description, im->into ? INTO_HELP : COMMON_HELP);
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

/* A file given to importer `im` that is plainly of another known format (a
 * vLLM result or a CodeCarbon CSV given to nvidia-smi, a Kineto trace given
 * to nsys, a Git LFS pointer): an error saying what it is and the command
 * that reads it, before the importer misreads it (jl_import_guess_path,
 * the recogniser every command shares). nvidia-smi's own other outputs
 * (its table, dmon without -o DT, ';' exports) are left to its importer,
 * which names them in more detail. Returns the exit code, CLI_EXIT_OK when
 * every file may be this importer's. */
static int foreign_paths(const char *cmd, const jl_importer *im, const char *const *paths, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct stat sb;
        if (stat(paths[i], &sb) != 0 || !S_ISREG(sb.st_mode))
            continue;
        jl_import_guess g;
        if (!jl_import_guess_path(paths[i], &g) || !strcmp(g.format, im->name))
            continue;
        if (!g.format[0] && !strcmp(im->name, "nvidia-smi") && strstr(g.what, "nvidia-smi") &&
            !strstr(g.what, "vLLM"))
            continue;
        if (g.command[0])
            fprintf(stderr,
                    "joules %s: %s: not a file `joules import %s` reads: it looks like %s. "
                    "Import it with `%s`\n",
                    cmd, paths[i], im->name, g.what, g.command);
        else
            fprintf(stderr,
                    "joules %s: %s: not a file `joules import %s` reads: it looks like %s\n", cmd,
                    paths[i], im->name, g.what);
        return cli_exit_for_status(JL_EFORMAT);
    }
    return CLI_EXIT_OK;
}

/* The joules.import/1 document (--json), whatever the outcome: the result's
 * counts and notes when something was imported (r), an empty result
 * otherwise, and every error; "output" is what was written (NULL: nothing,
 * null). The one place the import command writes it. Returns the exit code
 * of writing it (CLI_EXIT_OK when written). */
static int import_document(const char *cmd, const jl_importer *im, const jl_import_result *r,
                           const char *written, const jl_error_list *errors)
{
    jl_import_result none;
    memset(&none, 0, sizeof none);
    return cli_print_document(cmd, jl_import_document(r ? r : &none, im->name, written), errors);
}

/* `--into TRACE.h5:RUN`: an importer that adds to an existing run. */
static int cli_import_into(const char *cmd, const jl_importer *im, const char *into,
                           const char *out, const char *const *paths, size_t n_paths,
                           const jl_importer_arg *args, size_t n_args, int json, int quiet)
{
    if (!im->into)
        return cli_usage_error(cmd, "'%s' writes a new trace (-o FILE.h5), not --into", im->name);
    if (out)
        return cli_usage_error(cmd, "'%s' adds to an existing run: --into TRACE.h5:RUN, not -o",
                               im->name);
    const char *colon = into ? strrchr(into, ':') : NULL;
    if (!colon || colon == into || !colon[1])
        return cli_usage_error(cmd, "--into TRACE.h5:RUN names the trace and the run");
    char *trace = strndup(into, (size_t)(colon - into));
    if (!trace)
        return cli_oom(cmd);
    cli_install_signal_cleanup();
    jl_import_result *r = NULL;
    jl_error_list errors = {0};
    jl_status st = im->into(paths, n_paths, args, n_args, trace, colon + 1, &r, &errors);
    for (size_t i = 0; i < errors.count; i++)
        cli_print_error(cmd, errors.items[i]);
    int rc;
    if (st != JL_OK || !r) {
        const jl_error *last = errors.count ? errors.items[errors.count - 1] : NULL;
        rc = cli_exit_for_error(last && last->code == st ? last : NULL,
                                st != JL_OK ? st : JL_ENODATA);
        if (json) /* the document with the errors, nothing written */
            import_document(cmd, im, NULL, NULL, &errors);
    } else {
        if (!quiet && !json)
            for (size_t i = 0; i < r->n_notes; i++)
                fprintf(stderr, "joules import: note: %s: %s\n", r->notes[i].file,
                        r->notes[i].message);
        if (json)
            rc = import_document(cmd, im, r, into, &errors);
        else {
            printf("imported %s into %s (%s)\n", paths[0], into,
                   r->detail_text ? r->detail_text : "");
            rc = CLI_EXIT_OK;
        }
    }
    jl_import_result_free(r);
    jl_error_list_clear(&errors);
    free(trace);
    return rc;
}

enum { OPT_JSON = CLI_OPT_FIRST_FREE, OPT_QUIET, OPT_FORCE, OPT_GROUPS, OPT_INTO, OPT_EACH };
enum { OPT_FORMAT_FIRST = CLI_IMPORT_FORMAT_FIRST };
/* every format's options; the format's own follow (cli_import_longopts) */
static const struct option common_opts[] = {
    {"output", required_argument, NULL, 'o'},
    {"json", no_argument, NULL, OPT_JSON},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"force", no_argument, NULL, OPT_FORCE},
    {"groups", no_argument, NULL, OPT_GROUPS},
    {"each", no_argument, NULL, OPT_EACH},
    {"help", no_argument, NULL, 'h'},
    {"into", required_argument, NULL, OPT_INTO},
    {NULL, 0, NULL, 0},
};
const cli_options cli_options_import = {":ho:", common_opts};

struct option *cli_import_longopts(const jl_importer *im)
{
    size_t n_fmt = 0, n_common = sizeof common_opts / sizeof common_opts[0] - 1;
    while (im->options[n_fmt].name)
        n_fmt++;
    struct option *o = calloc(n_common + n_fmt + 1, sizeof *o);
    if (!o)
        return NULL;
    memcpy(o, common_opts, n_common * sizeof *o);
    for (size_t i = 0; i < n_fmt; i++)
        o[n_common + i] = (struct option){im->options[i].name,
                                          im->options[i].arg ? required_argument : no_argument,
                                          NULL, OPT_FORMAT_FIRST + (int)i};
    return o;
}

int cli_cmd_import(int argc, char **argv)
{
    const char *cmd = "import";
    if (argc < 2)
        return cli_usage_error(cmd, "which format? (`joules import --list`)");
    if (!strcmp(argv[1], "--list")) {
        list_formats(stdout);
        return CLI_EXIT_OK;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        general_help();
        return CLI_EXIT_OK;
    }
    const jl_importer *im = jl_importer_find(argv[1]);
    if (!im) {
        fprintf(stderr, "joules import: unknown format '%s'; the formats are:\n", argv[1]);
        list_formats(stderr);
        return cli_exit_for_status(JL_EUSAGE);
    }
    size_t n_fmt = 0;
    while (im->options[n_fmt].name)
        n_fmt++;
    struct option *longopts = cli_import_longopts(im);
    jl_importer_arg *args = calloc(argc, sizeof *args);
    if (!longopts || !args) {
        free(longopts);
        free(args);
        return cli_oom(cmd);
    }
    const char *out = NULL, *into = NULL;
    import_flags f = {0};
    int each = 0, c, rc = CLI_EXIT_OK;
    size_t n_args = 0;
    optind = 1;
    /* argv[0] is "import": parse the arguments after FORMAT */
    int sub_argc = argc - 1;
    char **sub_argv = argv + 1;
    while ((c = getopt_long(sub_argc, sub_argv, cli_options_import.optstring, longopts, NULL)) !=
           -1) {
        switch (c) {
        case 'h': format_help(im); goto done;
        case 'o': out = optarg; break;
        case OPT_JSON: f.json = 1; break;
        case OPT_QUIET: f.quiet = 1; break;
        case OPT_FORCE: f.force = 1; break;
        case OPT_GROUPS: f.groups = 1; break;
        case OPT_EACH: each = 1; break;
        case OPT_INTO: into = optarg; break;
        default:
            if (c >= OPT_FORMAT_FIRST && c < OPT_FORMAT_FIRST + (int)n_fmt) {
                args[n_args].name = im->options[c - OPT_FORMAT_FIRST].name;
                args[n_args].value = optarg ? optarg : "";
                n_args++;
                break;
            }
            rc = cli_bad_option(cmd, c, sub_argv);
            goto done;
        }
    }
    size_t n_paths = (size_t)(sub_argc - optind);
    if (n_paths < im->min_paths || (im->max_paths && n_paths > im->max_paths)) {
        rc = im->max_paths == 1
                 ? cli_usage_error(cmd, "give exactly one %s after '%s'", im->paths, im->name)
                 : cli_usage_error(cmd, "give %s after '%s'", im->paths, im->name);
        goto done;
    }
    if ((rc = foreign_paths(cmd, im, (const char *const *)(sub_argv + optind), n_paths)) !=
        CLI_EXIT_OK)
        goto done;
    if (im->into || into) {
        rc = each ? cli_usage_error(cmd, "--each writes new traces; '%s' adds to one (--into)",
                                    im->name)
                  : cli_import_into(cmd, im, into, out, (const char *const *)(sub_argv + optind),
                                    n_paths, args, n_args, f.json, f.quiet);
        goto done;
    }
    if (!out) {
        rc = cli_usage_error(cmd, each ? "no output folder: --each -o DIR"
                                       : "no output file: -o FILE.h5");
        goto done;
    }
    if (each && im->min_paths > 1) {
        rc = cli_usage_error(cmd, "--each: %s imports %s together", im->name, im->paths);
        goto done;
    }
    if (!each && !f.force && access(out, F_OK) == 0) {
        fprintf(stderr, "joules %s: %s already exists (use --force to replace it)\n", cmd, out);
        rc = cli_exit_for_status(JL_EUSAGE);
        goto done;
    }
    cli_install_signal_cleanup();
    if (!each)
        cli_set_interrupt_message("joules %s: interrupted: %s was not written%s\n", cmd, out,
                                  access(out, F_OK) == 0 ? " (the existing file is unchanged)"
                                                         : "");
    else
        cli_set_interrupt_message("joules %s: interrupted: the trace being written into %s was "
                                  "not written (those already written are whole)\n",
                                  cmd, out);
    if (each) {
        rc = import_each(im, cmd, (const char *const *)(sub_argv + optind), n_paths, args, n_args,
                         out, &f);
        goto done;
    }
    rc = import_to(im, cmd, (const char *const *)(sub_argv + optind), n_paths, args, n_args, out,
                   &f);
done:
    free(longopts);
    free(args);
    return rc;
}

/* One import: PATHs into the trace file `out`. Returns the exit code. */
static int import_to(const jl_importer *im, const char *cmd, const char *const *paths,
                     size_t n_paths, const jl_importer_arg *args, size_t n_args, const char *out,
                     const import_flags *f)
{
    int rc = CLI_EXIT_OK;
    int json = f->json, quiet = f->quiet, groups = f->groups;
    /* The harness attribute names the source in full, however long; an
     * importer that writes as it reads gets the writer first (the file's
     * source is then the format and its paths). */
    jl_trace_write_options wo;
    jl_trace_write_options_default(&wo);
    /* deflate level 1: a long log's series compress almost as well as at
     * the default 4, in a third of the time (docs/import.md, "Speed") */
    wo.level = 1;
    wo.summary_table = !groups;
    /* without --force the path was free when the import began: a file that
     * appears there meanwhile is not replaced */
    wo.no_replace = !f->force;
    if (im->write_zstd)
        wo.compression = JL_COMPRESS_ZSTD;
    /* the sources' hashes and the command, kept in the trace (accounting.md):
     * made once the importer has read them (the files it opened are the
     * inputs), so below, after the import */
    char *prov_text = NULL;
    jl_import_result *r = NULL;
    jl_error_list errors = {0};
    jl_error *err = NULL;
    char *harness = NULL;
    jl_trace_writer *w = NULL;
    jl_status st;
    /* an importer that writes a file of its own beside the trace (nvidia-smi's
     * --runs auto: OUT.runs.csv) is told the output and --force */
    jl_importer_arg *all = calloc(n_args + 2, sizeof *all);
    if (!all) {
        free(prov_text);
        return cli_oom(cmd);
    }
    memcpy(all, args, n_args * sizeof *args);
    for (size_t i = 0; im->options[i].name; i++)
        if (!strcmp(im->options[i].name, "runs-out")) {
            all[n_args++] = (jl_importer_arg){"output", out};
            if (f->force)
                all[n_args++] = (jl_importer_arg){"force", ""};
        }
    args = all;
    if (im->write) {
        /* the sources by their absolute, resolved names: every spelling of
         * one input gives one harness (docs/import.md, "Paths as typed") */
        char **real = calloc(n_paths ? n_paths : 1, sizeof *real);
        size_t hlen = strlen("joules import : ") + strlen(im->name) + 1;
        for (size_t i = 0; real && i < n_paths; i++) {
            real[i] = realpath(paths[i], NULL);
            hlen += strlen(real[i] ? real[i] : paths[i]) + 1;
        }
        if (real && (harness = malloc(hlen))) {
            snprintf(harness, hlen, "joules import %s:", im->name);
            for (size_t i = 0; i < n_paths; i++) {
                strcat(harness, " ");
                strcat(harness, real[i] ? real[i] : paths[i]);
            }
        }
        for (size_t i = 0; real && i < n_paths; i++)
            free(real[i]);
        free(real);
        wo.harness = harness;
        if (!harness) {
            free(all);
            free(prov_text);
            return cli_oom(cmd);
        }
        if ((st = jl_trace_writer_open(out, &wo, &w, &err)) != JL_OK) {
            free(harness);
            free(all);
            free(prov_text);
            return cli_fail(cmd, st, err);
        }
        st = im->write(paths, n_paths, args, n_args, w, &r, &errors);
    } else {
        st = im->run(paths, n_paths, args, n_args, &r, &errors);
    }
    for (size_t i = 0; i < errors.count; i++)
        cli_print_error(cmd, errors.items[i]);
    if (st != JL_OK || !r) {
        /* the error that stopped the import is the last one listed when it
         * carries that status (a write failure is on the output side) */
        const jl_error *last = errors.count ? errors.items[errors.count - 1] : NULL;
        rc = cli_exit_for_error(last && last->code == st ? last : NULL,
                                st != JL_OK ? st : JL_ENODATA);
        if (st == JL_EUSAGE)
            fprintf(stderr, "(see `joules import %s --help`)\n", im->name);
        jl_trace_writer_abort(w);
        if (json) /* the document with the errors, nothing written */
            import_document(cmd, im, r, NULL, &errors);
        free(harness);
        free(all);
        free(prov_text);
        jl_import_result_free(r);
        jl_error_list_clear(&errors);
        return rc;
    }
    if (!quiet && !json)
        for (size_t i = 0; i < r->n_notes; i++)
            fprintf(stderr, "joules import: note: %s%s%s%s%s%s\n", r->notes[i].file,
                    *r->notes[i].file ? ": " : "", r->notes[i].field,
                    *r->notes[i].field ? ": " : "", r->notes[i].message,
                    r->notes[i].count > 1 ? " (and more like it)" : "");
    if (!w) {
        const char *source = r->source ? r->source : paths[0];
        size_t hlen = strlen("joules import : ") + strlen(im->name) + strlen(source) + 1;
        if ((harness = malloc(hlen)))
            snprintf(harness, hlen, "joules import %s: %s", im->name, source);
        wo.harness = harness;
    }
    const json_t *prov = jl_output_provenance();
    prov_text = prov ? jl_json_dumps(prov, JSON_SORT_KEYS | JSON_COMPACT) : NULL;
    wo.provenance = prov_text;
    if (w && (st = jl_trace_writer_set_provenance(w, prov_text, &err)) != JL_OK) {
        jl_trace_writer_abort(w);
        rc = cli_fail(cmd, st, err);
    } else if (!harness) {
        jl_trace_writer_abort(w);
        rc = cli_oom(cmd);
    } else if ((st = w ? jl_trace_writer_commit(w, &err)
                       : jl_trace_write(out, (const jl_run *const *)r->runs, r->n_runs, &wo,
                                        &err)) != JL_OK) {
        if (err)
            cli_print_error(cmd, err);
        else
            fprintf(stderr, "joules %s: %s\n", cmd, jl_strerror(st));
        rc = cli_exit_for_error(err, st);
        /* the document says so too: the runs read, nothing written */
        if (json) {
            jl_error_list_push(&errors, err); /* taken over (freed if it cannot be) */
            import_document(cmd, im, r, NULL, &errors);
        } else {
            jl_error_free(err);
        }
        err = NULL;
    } else if (json) {
        rc = import_document(cmd, im, r, out, &errors);
    } else {
        printf("imported %zu runs from %zu files (%s) into %s\n", r->n_runs, r->n_files,
               r->detail_text ? r->detail_text : "", out);
    }
    if (rc == CLI_EXIT_OK)
        rc = cli_exit_for(r->n_runs, errors.count);
    free(harness);
    free(all);
    free(prov_text);
    cli_import_result_release(r);
    jl_error_list_clear(&errors);
    return rc;
}

/* The name of PATH's trace in DIR: the last component of its absolute,
 * resolved name (`.`, `./`, `../run_1/` and a link name the input as its
 * absolute path does: docs/import.md, "Paths as typed"; as typed when it
 * cannot be resolved), its extension (.csv, .json, ...) replaced by .h5. */
static char *each_output(const char *dir, const char *typed)
{
    char *real = realpath(typed, NULL);
    const char *path = real ? real : typed;
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    size_t b = n;
    while (b > 0 && path[b - 1] != '/')
        b--;
    size_t e = n;
    struct stat sb; /* a folder's name is kept whole (mlperf-v1.0/) */
    for (size_t i = n; i > b + 1 && stat(path, &sb) == 0 && S_ISREG(sb.st_mode); i--)
        if (path[i - 1] == '.') {
            e = i - 1;
            break;
        }
    size_t len = strlen(dir) + 1 + (e - b) + 4;
    char *o = malloc(len);
    if (o)
        snprintf(o, len, "%s/%.*s.h5", dir, (int)(e - b), path + b);
    free(real);
    return o;
}

/* --each: every input into its own trace in the folder `dir`; under mpirun
 * the inputs are cut into one contiguous share per rank of about equal
 * bytes (a folder's: its files'), and each rank imports its share. */
static int import_each(const jl_importer *im, const char *cmd, const char *const *paths,
                       size_t n_paths, const jl_importer_arg *args, size_t n_args, const char *dir,
                       const import_flags *f)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "joules %s: cannot make the folder %s: %s\n", cmd, dir, strerror(errno));
        return CLI_EXIT_OUTPUT;
    }
    char **outs = calloc(n_paths ? n_paths : 1, sizeof *outs);
    double *bytes = calloc(n_paths ? n_paths : 1, sizeof *bytes);
    int rc = CLI_EXIT_OK;
    if (!outs || !bytes) {
        free(outs);
        free(bytes);
        return cli_oom(cmd);
    }
    int rank = cli_mpi_rank(), ranks = cli_mpi_size();
    double total = 0;
    for (size_t i = 0; i < n_paths && rc == CLI_EXIT_OK; i++) {
        bytes[i] = ranks > 1 ? jl_import_input_bytes(paths[i]) : 0;
        total += bytes[i];
        if (!(outs[i] = each_output(dir, paths[i])))
            rc = cli_oom(cmd);
        /* two inputs of one name would write one file: refused before any */
        for (size_t j = 0; j < i && rc == CLI_EXIT_OK; j++)
            if (!strcmp(outs[i], outs[j]))
                rc = cli_usage_error(cmd, "--each: %s and %s would both be written to %s", paths[j],
                                     paths[i], outs[i]);
    }
    size_t n_ok = 0, n_failed = 0;
    int worst = CLI_EXIT_OK;
    double before = 0;
    for (size_t i = 0; i < n_paths && rc == CLI_EXIT_OK; i++) {
        double mid = total > 0 ? (before + bytes[i] / 2) / total : (i + 0.5) / (double)n_paths;
        before += bytes[i];
        int owner = (int)(mid * ranks);
        if ((owner < ranks ? owner : ranks - 1) != rank)
            continue;
        if (!f->force && access(outs[i], F_OK) == 0) {
            fprintf(stderr, "joules %s: %s already exists (use --force to replace it)\n", cmd,
                    outs[i]);
            n_failed++;
            if (worst < CLI_EXIT_USAGE)
                worst = CLI_EXIT_USAGE;
            continue;
        }
        cli_provenance_restart_inputs(); /* this trace's sources only */
        /* 1: written, with some of its runs failed */
        int one = import_to(im, cmd, paths + i, 1, args, n_args, outs[i], f);
        n_ok += one == CLI_EXIT_OK || one == CLI_EXIT_PARTIAL;
        n_failed += one != CLI_EXIT_OK;
        if (one > worst)
            worst = one;
    }
    for (size_t i = 0; i < n_paths; i++)
        free(outs[i]);
    free(outs);
    free(bytes);
    if (rc != CLI_EXIT_OK)
        return rc;
    /* all imported whole: 0; some written: 1 (like a study with bad files);
     * none: the worst of their codes */
    return n_failed == 0 ? CLI_EXIT_OK : n_ok > 0 ? CLI_EXIT_PARTIAL : worst;
}
