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
    "usage: joules import mlenergy DIR -o FILE.h5 [--json] [--quiet]\n\n"
    "Import the ML.ENERGY Leaderboard's published data (DIR holds index.json,\n"
    "models/*.json, tasks/*.json) as a trace file of summary-only runs: one run\n"
    "per configuration, every field kept (import.md). Re-measurements of\n"
    "the same configuration become distinct runs named ...__dup2.\n\n"
    "  -o, --output FILE  the trace file to write (required; written atomically)\n"
    "  --json             print the joules.import/1 document (counts, notes, errors)\n"
    "  --quiet            no notes on stderr\n"
    "  -h, --help         this help\n";

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
    enum { OPT_JSON = CLI_OPT_FIRST_FREE, OPT_QUIET };
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"json", no_argument, NULL, OPT_JSON},
        {"quiet", no_argument, NULL, OPT_QUIET},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "import", *out = NULL;
    int json = 0, quiet = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
        switch (c) {
        case 'h': cli_help("import", help); return JL_EXIT_OK;
        case 'o': out = optarg; break;
        case OPT_JSON: json = 1; break;
        case OPT_QUIET: quiet = 1; break;
        default: return cli_bad_option(cmd, c, argv);
        }
    }
    if (argc - optind < 1)
        return cli_usage_error(cmd, "which source? (only 'mlenergy' so far)");
    if (strcmp(argv[optind], "mlenergy"))
        return cli_usage_error(cmd, "unknown source '%s' (only 'mlenergy' so far)", argv[optind]);
    if (argc - optind != 2)
        return cli_usage_error(cmd, "give exactly one DIR after 'mlenergy'");
    if (!out)
        return cli_usage_error(cmd, "no output file: -o FILE.h5");
    const char *dir = argv[optind + 1];
    cli_install_signal_cleanup();
    jl_import_result *r = NULL;
    jl_error_list errors = {0};
    jl_status st = jl_import_mlenergy(dir, NULL, &r, &errors);
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
    size_t hlen = strlen("joules import mlenergy: ") + strlen(source) + 1;
    char *harness = malloc(hlen);
    if (harness)
        snprintf(harness, hlen, "joules import mlenergy: %s", source);
    jl_trace_write_options wo;
    jl_trace_write_options_default(&wo);
    wo.harness = harness;
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
