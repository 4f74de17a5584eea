/* joules import — published summaries into a trace file. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/exit_codes.h"
#include "joules/import.h"
#include "joules/output.h"
#include "joules/trace_write.h"

static const char *const help =
    "usage: joules import FORMAT PATH... -o FILE.h5 [--json] [--quiet]\n"
    "       joules import --list\n\n"
    "Import published or raw measurements as a trace file (docs/import.md):\n"
    "every field kept, one run per configuration or measured run.\n\n"
    "  mlenergy DIR          ML.ENERGY Leaderboard data: v3 (index.json, models/,\n"
    "                        tasks/), v2 (a data/ tree of per-configuration JSON)\n"
    "                        and v1 (legacy/*_benchmark.csv); summary-only runs\n"
    "  mlenergy-benchmark DIR...  ML.ENERGY Benchmark run directories (results.json,\n"
    "                        prometheus.json) or trees of them: power, requests,\n"
    "                        ITL, engine rows and the harness's own figures\n"
    "  mlperf-power PATH...  MLPerf Inference power runs (spl.txt +\n"
    "                        mlperf_log_detail.txt), node AC power, one column\n\n"
    "  -o, --output FILE  the trace file to write (required; written atomically)\n"
    "  --list             the formats, one a line: name, arguments, what\n"
    "  --compression C    deflate, zstd or none (level 1; default zstd for\n"
    "                     mlenergy-benchmark, whose ITL series are large, deflate\n"
    "                     otherwise; zstd files need hdf5plugin to be read by h5py)\n"
    "  --json             print the joules.import/1 document (counts, notes, errors)\n"
    "  --quiet            no notes on stderr\n"
    "  -h, --help         this help\n";

typedef jl_status (*import_fn)(const char *const *paths, size_t n, jl_import_result **out,
                               jl_error_list *errors);

static jl_status import_mlenergy_dir(const char *const *paths, size_t n, jl_import_result **out,
                                     jl_error_list *errors)
{
    (void)n;
    return jl_import_mlenergy_auto(paths[0], NULL, out, errors);
}

static jl_status import_mlperf(const char *const *paths, size_t n, jl_import_result **out,
                               jl_error_list *errors)
{
    return jl_import_mlperf_power(paths, n, NULL, out, errors);
}

static jl_status import_bench(const char *const *paths, size_t n, jl_import_result **out,
                              jl_error_list *errors)
{
    return jl_import_mlenergy_benchmark(paths, n, NULL, out, errors);
}

/* The importers: name, arguments, many paths?, what, entry. */
static const struct importer {
    const char *name, *args;
    int many;
    const char *what;
    import_fn fn;
    jl_trace_compression compression; /* the default of --compression */
} importers[] = {
    {"mlenergy", "DIR", 0, "ML.ENERGY Leaderboard data (v3 index.json/models/tasks, v2 data/, v1 legacy CSV)",
     import_mlenergy_dir, JL_COMPRESS_DEFLATE},
    {"mlenergy-benchmark", "DIR...", 1,
     "ML.ENERGY Benchmark run directories (results.json + prometheus.json): series and harness figures",
     import_bench, JL_COMPRESS_ZSTD},
    {"mlperf-power", "RUN_DIR...", 1, "MLPerf Inference power runs (PTDaemon spl.txt + LoadGen logs)",
     import_mlperf, JL_COMPRESS_DEFLATE},
};

static const struct importer *find_importer(const char *name)
{
    for (size_t i = 0; i < sizeof importers / sizeof importers[0]; i++)
        if (!strcmp(importers[i].name, name))
            return &importers[i];
    return NULL;
}

static json_t *import_doc(const jl_import_result *r, const char *out)
{
    json_t *doc = json_object(), *notes = json_array();
    json_object_set_new(doc, "schema", json_string("joules.import/1"));
    json_object_set_new(doc, "source", r->source ? json_string(r->source) : json_null());
    json_object_set_new(doc, "output", json_string(out));
    json_object_set_new(doc, "n_runs", json_integer((json_int_t)r->n_runs));
    json_object_set_new(doc, "n_files", json_integer((json_int_t)r->n_files));
    json_object_set_new(doc, "n_duplicates", json_integer((json_int_t)r->n_duplicates));
    json_object_set_new(doc, "n_with_timelines", json_integer((json_int_t)r->n_with_timelines));
    for (size_t i = 0; i < r->n_notes; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "file", json_string(r->notes[i].file));
        json_object_set_new(o, "field", json_string(r->notes[i].field));
        json_object_set_new(o, "message", json_string(r->notes[i].message));
        json_object_set_new(o, "count", json_integer((json_int_t)r->notes[i].count));
        json_array_append_new(notes, o);
    }
    json_object_set_new(doc, "notes", notes);
    return doc;
}

int jl_cmd_import(int argc, char **argv)
{
    enum { OPT_JSON = CLI_OPT_FIRST_FREE, OPT_QUIET, OPT_LIST, OPT_COMPRESSION };
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"json", no_argument, NULL, OPT_JSON},
        {"quiet", no_argument, NULL, OPT_QUIET},
        {"list", no_argument, NULL, OPT_LIST},
        {"compression", required_argument, NULL, OPT_COMPRESSION},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "import", *out = NULL;
    int json = 0, quiet = 0, list = 0, compression = -1, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
        switch (c) {
        case 'h': fputs(help, stdout); return JL_EXIT_OK;
        case 'o': out = optarg; break;
        case OPT_JSON: json = 1; break;
        case OPT_QUIET: quiet = 1; break;
        case OPT_LIST: list = 1; break;
        case OPT_COMPRESSION:
            if (!strcmp(optarg, "deflate"))
                compression = JL_COMPRESS_DEFLATE;
            else if (!strcmp(optarg, "zstd"))
                compression = JL_COMPRESS_ZSTD;
            else if (!strcmp(optarg, "none"))
                compression = JL_COMPRESS_NONE;
            else
                return cli_usage_error(cmd, "--compression is deflate, zstd or none, not '%s'",
                                       optarg);
            break;
        default: return cli_bad_option(cmd, c, argv);
        }
    }
    if (list) {
        for (size_t i = 0; i < sizeof importers / sizeof importers[0]; i++)
            printf("%-18s %-10s %s\n", importers[i].name, importers[i].args, importers[i].what);
        return JL_EXIT_OK;
    }
    if (argc - optind < 1)
        return cli_usage_error(cmd, "which format? (joules import --list)");
    const struct importer *imp = find_importer(argv[optind]);
    if (!imp)
        return cli_usage_error(cmd, "unknown format '%s' (joules import --list)", argv[optind]);
    const size_t n_paths = (size_t)(argc - optind - 1);
    if (n_paths < 1 || (!imp->many && n_paths != 1))
        return cli_usage_error(cmd, "give %s after '%s'", imp->many ? "one or more paths" : "exactly one DIR",
                               imp->name);
    if (!out)
        return cli_usage_error(cmd, "no output file: -o FILE.h5");
    const char *const *paths = (const char *const *)argv + optind + 1;
    const char *dir = paths[0];
    cli_install_signal_cleanup();
    jl_import_result *r = NULL;
    jl_error_list errors = {0};
    jl_status st = imp->fn(paths, n_paths, &r, &errors);
    for (size_t i = 0; i < errors.count; i++)
        cli_print_error(cmd, errors.items[i]);
    if (st != JL_OK || !r) {
        int rc = st == JL_ENOMEM ? JL_EXIT_INTERNAL : JL_EXIT_NOINPUT;
        jl_error_list_clear(&errors);
        return rc;
    }
    if (!quiet && !json)
        for (size_t i = 0; i < r->n_notes; i++)
            fprintf(stderr, "joules import: note: %s: %s: %s%s\n", r->notes[i].file,
                    r->notes[i].field, r->notes[i].message,
                    r->notes[i].count > 1 ? " (and more like it)" : "");
    /* The harness attribute names the source in full, however long. */
    const char *source = r->source ? r->source : dir;
    size_t hlen = strlen("joules import : ") + strlen(imp->name) + strlen(source) + 1;
    char *harness = malloc(hlen);
    if (harness)
        snprintf(harness, hlen, "joules import %s: %s", imp->name, source);
    jl_trace_write_options wo;
    jl_trace_write_options_default(&wo);
    wo.harness = harness;
    /* level 1: on ITL-heavy runs deflate 1 is ~3x faster than its default
     * and zstd 1 ~3x faster again at the same size (docs/import.md) */
    wo.level = 1;
    wo.compression = compression >= 0 ? (jl_trace_compression)compression : imp->compression;
    jl_error *err = NULL;
    int rc = JL_EXIT_OK;
    if (!harness) {
        fprintf(stderr, "joules %s: out of memory\n", cmd);
        rc = JL_EXIT_INTERNAL;
    } else if (jl_trace_write(out, (const jl_run *const *)r->runs, r->n_runs, &wo, &err) !=
               JL_OK) {
        rc = cli_fail(cmd, err, JL_EXIT_OUTPUT);
    } else if (json) {
        rc = cli_print_document(cmd, import_doc(r, out), &errors);
    } else {
        printf("imported %zu runs from %zu files (%zu re-measurements as __dupN, %zu with "
               "timelines, %zu notes) into %s\n",
               r->n_runs, r->n_files, r->n_duplicates, r->n_with_timelines, r->n_notes, out);
    }
    if (rc == JL_EXIT_OK)
        rc = jl_exit_for(r->n_runs, errors.count);
    free(harness);
    jl_import_result_free(r);
    jl_error_list_clear(&errors);
    return rc;
}
