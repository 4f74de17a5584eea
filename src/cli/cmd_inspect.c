/* joules inspect — what is in each file: runs, key attributes, datasets with
 * sample counts, time spans, sampling rates and compression, and every
 * validation problem found. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/exit_codes.h"
#include "joules/trace.h"

static const char *const help =
    "usage: joules inspect [--json | --jsonl] [--allow-external-storage] FILE...\n\n"
    "Describe each trace file: its runs, their key attributes, every dataset\n"
    "(type, shape, chunking, compression, stored size), sample counts, time\n"
    "spans and sampling rates, and every validation problem found.\n"
    "A directory is searched recursively for *.h5.\n\n"
    "  --json       print a joules.inspect/1 document on stdout\n"
    "  --jsonl      one run per line (with its file's name), no envelope\n"
    "  --allow-external-storage\n"
    "               read datasets a trace keeps in other files (HDF5 external\n"
    "               storage, virtual datasets): only for traces you trust (default:\n"
    "               refused, security.md)\n"
    "  -h, --help   this help\n";

/* The root's @provenance: the command that made the file and its sources. */
static void print_provenance(const json_t *pv)
{
    if (!pv)
        return;
    if (json_is_string(pv)) {
        printf("  provenance: %s\n", json_string_value(pv));
        return;
    }
    const char *ver = json_string_value(json_object_get(json_object_get(pv, "joules"), "version"));
    const char *when = json_string_value(json_object_get(pv, "created"));
    json_t *cmd = json_object_get(pv, "command"), *arg;
    size_t i;
    printf("  provenance: made by joules %s,", ver ? ver : "?");
    if (json_is_string(cmd))
        printf(" %s", json_string_value(cmd));
    json_array_foreach(cmd, i, arg)
        printf(" %s", json_is_string(arg) ? json_string_value(arg) : "?");
    printf("%s%s%s\n", when ? " (" : "", when ? when : "", when ? ")" : "");
    json_t *in;
    json_array_foreach(json_object_get(pv, "inputs"), i, in) {
        const char *path = json_string_value(json_object_get(in, "path"));
        const char *sha = json_string_value(json_object_get(in, "sha256"));
        const char *err = json_string_value(json_object_get(in, "error"));
        if (sha)
            printf("    source %s, %lld bytes, sha256 %s\n", path ? path : "?",
                   (long long)json_integer_value(json_object_get(in, "bytes")), sha);
        else
            printf("    source %s: %s\n", path ? path : "?", err ? err : "not hashed");
    }
}

/* host/ of a run (format 1.2): what it records, beside its sampling line. */
static void print_host(const json_t *h)
{
    if (!h)
        return;
    printf("    host/:");
    size_t i;
    json_t *c;
    const char *sep = " ";
    json_array_foreach(json_object_get(h, "counters"), i, c) {
        printf("%s%s", sep, json_string_value(c));
        json_t *w = json_object_get(json_object_get(h, "max_energy_range_j"), json_string_value(c));
        if (w) { /* one value per socket ("?" where unknown), or one for all */
            size_t k, n = json_array_size(w);
            json_t *x;
            int same = 1;
            json_array_foreach(w, k, x)
                same = same && json_equal(x, json_array_get(w, 0));
            printf(" (wraps at ");
            for (k = 0; k < (same ? 1 : n); k++) {
                x = json_array_get(w, k);
                if (json_is_number(x))
                    printf("%s%.12g", k ? "/" : "", json_number_value(x));
                else
                    printf("%s?", k ? "/" : "");
            }
            printf(" J)");
        }
        sep = ", ";
    }
    if (json_array_size(json_object_get(h, "counters")))
        printf(" on %lld socket%s", (long long)json_integer_value(json_object_get(h, "sockets")),
               json_integer_value(json_object_get(h, "sockets")) == 1 ? "" : "s");
    if (json_is_true(json_object_get(h, "node_watts")))
        printf("%snode_watts", sep);
    const char *src = json_string_value(json_object_get(h, "source"));
    printf("%s%s\n", src ? "; source: " : "", src ? src : "");
}

static void print_file(const json_t *fo)
{
    printf("%s\n", json_string_value(json_object_get(fo, "file")));
    const char *h = json_string_value(json_object_get(fo, "harness"));
    const char *c = json_string_value(json_object_get(fo, "created_utc"));
    if (h)
        printf("  harness: %s\n", h);
    if (c)
        printf("  created: %s\n", c);
    print_provenance(json_object_get(fo, "provenance"));
    json_t *runs = json_object_get(fo, "runs");
    printf("  runs: %zu\n", json_array_size(runs));
    size_t i;
    json_t *ro;
    json_array_foreach(runs, i, ro) {
        json_t *a = json_object_get(ro, "attributes");
        printf("  run %s", json_string_value(json_object_get(ro, "run")));
        if (a) {
            const json_t *mb = json_object_get(a, "max_batch_size");
            char cap[32] = "unknown"; /* null: a placeholder the importer marked */
            if (json_is_integer(mb))
                snprintf(cap, sizeof cap, "%lld", (long long)json_integer_value(mb));
            printf(": %s %s/%s on %lld x %s, %s, max_batch_size %s",
                   json_string_value(json_object_get(a, "workload")),
                   json_string_value(json_object_get(a, "model")),
                   json_string_value(json_object_get(a, "task")),
                   (long long)json_integer_value(json_object_get(a, "num_gpus")),
                   json_string_value(json_object_get(a, "gpu_model")),
                   json_string_value(json_object_get(a, "precision")), cap);
        }
        printf("\n");
        json_t *so = json_object_get(ro, "series");
        const char *key;
        json_t *v;
        json_object_foreach(so, key, v) {
            if (!json_is_object(v))
                continue;
            json_t *rate = json_object_get(v, "rate_hz");
            if (rate && json_is_number(rate))
                printf("    %-8s %8lld samples, %.2f..%.2f s, %.1f Hz\n", key,
                       (long long)json_integer_value(json_object_get(v, "samples")),
                       json_number_value(json_object_get(v, "start_s")),
                       json_number_value(json_object_get(v, "end_s")), json_number_value(rate));
            else if (json_object_get(v, "samples"))
                printf("    %-8s %8lld samples\n", key,
                       (long long)json_integer_value(json_object_get(v, "samples")));
            else
                printf("    %-8s %8lld rows\n", key,
                       (long long)json_integer_value(json_object_get(v, "rows")));
        }
        print_host(json_object_get(so, "host"));
        size_t k;
        json_t *d;
        json_array_foreach(json_object_get(ro, "datasets"), k, d) {
            json_t *shape = json_object_get(d, "shape");
            char dims[64] = "scalar";
            if (json_array_size(shape) == 1)
                snprintf(dims, sizeof dims, "[%lld]",
                         (long long)json_integer_value(json_array_get(shape, 0)));
            else if (json_array_size(shape) == 2)
                snprintf(dims, sizeof dims, "[%lld, %lld]",
                         (long long)json_integer_value(json_array_get(shape, 0)),
                         (long long)json_integer_value(json_array_get(shape, 1)));
            const char *filt = json_string_value(json_object_get(d, "filters"));
            printf("      %-40s %-8s %-14s %-10s %s, %lld bytes stored\n",
                   json_string_value(json_object_get(d, "path")),
                   json_string_value(json_object_get(d, "type")), dims,
                   json_is_null(json_object_get(d, "chunk")) ? "contiguous" : "chunked",
                   filt && *filt ? filt : "no filters",
                   (long long)json_integer_value(json_object_get(d, "storage_bytes")));
        }
        const char *problem = json_string_value(json_object_get(ro, "problem"));
        if (problem)
            printf("    PROBLEM: %s\n", problem);
    }
}

enum { OPT_JSON = CLI_OPT_FIRST_FREE };
static const struct option longopts[] = {
    {"json", no_argument, NULL, OPT_JSON},
    {"jsonl", no_argument, NULL, CLI_OPT_JSONL},
    {"allow-external-storage", no_argument, NULL, CLI_OPT_ALLOW_EXTERNAL},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};
const cli_options cli_options_inspect = {":h", longopts};

int cli_cmd_inspect(int argc, char **argv)
{
    const char *cmd = "inspect";
    int json = 0, jsonl = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, cli_options_inspect.optstring, longopts, NULL)) != -1) {
        switch (c) {
        case 'h': cli_help("inspect", help); return CLI_EXIT_OK;
        case OPT_JSON: json = 1; break;
        case CLI_OPT_JSONL: jsonl = 1; break;
        case CLI_OPT_ALLOW_EXTERNAL: jl_trace_default_allow_external_storage(1); break;
        default: return cli_bad_option(cmd, c, argv);
        }
    }
    if (json && jsonl)
        return cli_usage_error(cmd, "--json and --jsonl: choose one");
    if (optind >= argc)
        return cli_usage_error(cmd, "no FILE given");
    jl_error_list errors = {0};
    char **files = NULL;
    size_t n_files = 0;
    jl_status st = jl_collect_paths((const char *const *)(argv + optind), (size_t)(argc - optind),
                                    &files, &n_files, &errors);
    if (st != JL_OK) { /* out of memory: nothing was opened */
        fprintf(stderr, "joules %s: %s\n", cmd, jl_strerror(st));
        jl_error_list_clear(&errors);
        return cli_exit_for_status(st);
    }
    size_t n_ok = 0, n_bad = 0;
    json_t *doc = jl_inspect_document((const char *const *)files, n_files, &errors, &n_ok, &n_bad);
    size_t f;
    json_t *fo;
    if (!json && !jsonl)
        json_array_foreach(json_object_get(doc, "files"), f, fo)
            print_file(fo);
    for (size_t i = 0; i < errors.count; i++)
        cli_print_error(cmd, errors.items[i]);
    n_bad += errors.count && !n_bad ? 1 : 0;
    int rc = cli_exit_for(n_ok, n_bad);
    if (json) {
        int wrc = cli_write_document(cmd, doc);
        rc = wrc ? wrc : rc;
    } else if (jsonl) {
        /* one run per line, with its file's name, harness and date */
        cli_study none;
        cli_study_init(&none);
        int wrc = cli_print_jsonl(cmd, &none, doc, "files/runs");
        cli_study_free(&none);
        doc = NULL; /* released */
        rc = wrc ? wrc : rc;
    }
    json_decref(doc);
    jl_paths_free(files, n_files);
    jl_error_list_clear(&errors);
    return rc;
}
