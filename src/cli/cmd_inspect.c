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
    "usage: joules inspect [--json | --jsonl] FILE...\n\n"
    "Describe each trace file: its runs, their key attributes, every dataset\n"
    "(type, shape, chunking, compression, stored size), sample counts, time\n"
    "spans and sampling rates, and every validation problem found.\n"
    "A directory is searched recursively for *.h5.\n\n"
    "  --json       print a joules.inspect/1 document on stdout\n"
    "  --jsonl      one run per line (with its file's name), no envelope\n"
    "  -h, --help   this help\n";

typedef struct series_info {
    const char *name;
    size_t n;
    const double *t;
} series_info;

static json_t *series_json(const series_info *si)
{
    json_t *o = json_object();
    json_object_set_new(o, "samples", json_integer((json_int_t)si->n));
    double span = si->n ? si->t[si->n - 1] - si->t[0] : NAN;
    json_object_set_new(o, "start_s", jl_json_number(si->n ? si->t[0] : NAN));
    json_object_set_new(o, "end_s", jl_json_number(si->n ? si->t[si->n - 1] : NAN));
    json_object_set_new(o, "rate_hz", jl_json_number(si->n > 1 && span > 0 ? (double)(si->n - 1) / span : NAN));
    return o;
}

static json_t *inspect_run(jl_trace *t, size_t i, jl_error_list *errors, int *bad)
{
    json_t *ro = json_object();
    const char *path = jl_trace_path(t);
    json_object_set_new(ro, "run", json_string(jl_trace_run_name(t, i)));
    jl_run_info info = {0};
    jl_error *err = NULL;
    if (jl_trace_describe_run(t, i, &info, &err) == JL_OK) {
        json_t *ds = json_array();
        for (size_t k = 0; k < info.n_datasets; k++) {
            const jl_dataset_info *d = &info.datasets[k];
            json_t *o = json_object();
            json_object_set_new(o, "path", json_string(d->path));
            json_object_set_new(o, "type", json_string(d->type ? d->type : "?"));
            json_t *dims = json_array();
            for (int r = 0; r < d->rank && r < 2; r++)
                json_array_append_new(dims, json_integer((json_int_t)d->dims[r]));
            json_object_set_new(o, "shape", dims);
            if (d->chunked) {
                json_t *ch = json_array();
                for (int r = 0; r < d->rank && r < 2; r++)
                    json_array_append_new(ch, json_integer((json_int_t)d->chunk[r]));
                json_object_set_new(o, "chunk", ch);
            } else {
                json_object_set_new(o, "chunk", json_null());
            }
            json_object_set_new(o, "filters", json_string(d->filters ? d->filters : ""));
            json_object_set_new(o, "storage_bytes", json_integer((json_int_t)d->storage_bytes));
            json_array_append_new(ds, o);
        }
        json_object_set_new(ro, "datasets", ds);
        jl_run_info_clear(&info);
    } else {
        jl_error_set_context(err, path, jl_trace_run_name(t, i));
        jl_error_list_push(errors, err);
        err = NULL;
        *bad = 1;
    }
    jl_run *run = NULL;
    if (jl_trace_read_run(t, i, &run, &err) == JL_OK) {
        const jl_attrs *a = &run->attrs;
        json_t *ao = json_object();
        json_object_set_new(ao, "workload", json_string(a->workload));
        json_object_set_new(ao, "model", json_string(a->model));
        json_object_set_new(ao, "task", json_string(a->task));
        json_object_set_new(ao, "gpu_model", json_string(a->gpu_model));
        json_object_set_new(ao, "num_gpus", json_integer(a->num_gpus));
        json_object_set_new(ao, "precision", json_string(a->precision));
        json_object_set_new(ao, "max_batch_size", json_integer(a->max_batch_size));
        json_object_set_new(ro, "attributes", ao);
        json_t *so = json_object();
        series_info si[] = {
            {"power", run->power_n, run->power_time}, {"gpu", run->gpu_n, run->gpu_time},
            {"engine", run->engine_n, run->engine_time},
        };
        for (size_t k = 0; k < sizeof si / sizeof si[0]; k++)
            if (si[k].n)
                json_object_set_new(so, si[k].name, series_json(&si[k]));
        if (run->req_n)
            json_object_set_new(so, "requests", json_pack("{s:I}", "rows", (json_int_t)run->req_n));
        if (run->itl_n)
            json_object_set_new(so, "itl", json_pack("{s:I}", "samples", (json_int_t)run->itl_n));
        if (run->batch_n)
            json_object_set_new(so, "batches", json_pack("{s:I}", "rows", (json_int_t)run->batch_n));
        json_object_set_new(so, "summary_only", json_boolean(run->summary.present && !run->power_n));
        json_object_set_new(ro, "series", so);
        json_object_set_new(ro, "valid", json_true());
    } else {
        jl_error_set_context(err, path, jl_trace_run_name(t, i));
        char *msg = jl_error_format(err);
        json_object_set_new(ro, "valid", json_false());
        json_object_set_new(ro, "problem", json_string(msg ? msg : "?"));
        free(msg);
        jl_error_list_push(errors, err);
        *bad = 1;
    }
    jl_run_free(run);
    return ro;
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
    json_t *runs = json_object_get(fo, "runs");
    printf("  runs: %zu\n", json_array_size(runs));
    size_t i;
    json_t *ro;
    json_array_foreach(runs, i, ro) {
        json_t *a = json_object_get(ro, "attributes");
        printf("  run %s", json_string_value(json_object_get(ro, "run")));
        if (a)
            printf(": %s %s/%s on %lld x %s, %s, max_batch_size %lld",
                   json_string_value(json_object_get(a, "workload")),
                   json_string_value(json_object_get(a, "model")),
                   json_string_value(json_object_get(a, "task")),
                   (long long)json_integer_value(json_object_get(a, "num_gpus")),
                   json_string_value(json_object_get(a, "gpu_model")),
                   json_string_value(json_object_get(a, "precision")),
                   (long long)json_integer_value(json_object_get(a, "max_batch_size")));
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
        size_t k;
        json_t *d;
        json_array_foreach(json_object_get(ro, "datasets"), k, d) {
            json_t *shape = json_object_get(d, "shape");
            char dims[64] = "scalar";
            if (json_array_size(shape) == 1)
                snprintf(dims, sizeof dims, "[%lld]", (long long)json_integer_value(json_array_get(shape, 0)));
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

int jl_cmd_inspect(int argc, char **argv)
{
    enum { OPT_JSON = CLI_OPT_FIRST_FREE };
    static const struct option longopts[] = {
        {"json", no_argument, NULL, OPT_JSON},
        {"jsonl", no_argument, NULL, CLI_OPT_JSONL},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "inspect";
    int json = 0, jsonl = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case 'h': cli_help("inspect", help); return JL_EXIT_OK;
        case OPT_JSON: json = 1; break;
        case CLI_OPT_JSONL: jsonl = 1; break;
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
    jl_status st = jl_collect_paths((const char *const *)(argv + optind),
                                    (size_t)(argc - optind), &files, &n_files, &errors);
    if (st != JL_OK) { /* out of memory: nothing was opened */
        fprintf(stderr, "joules %s: %s\n", cmd, jl_strerror(st));
        jl_error_list_clear(&errors);
        return jl_exit_for_status(st);
    }
    json_t *doc = json_object(), *farr = json_array();
    json_object_set_new(doc, "schema", json_string("joules.inspect/1"));
    size_t n_ok = 0, n_bad = 0;
    for (size_t f = 0; f < n_files; f++) {
        jl_trace *t = NULL;
        jl_error *err = NULL;
        if (jl_trace_open(files[f], NULL, &t, &err) != JL_OK) {
            jl_error_set_context(err, files[f], NULL);
            jl_error_list_push(&errors, err);
            n_bad++;
            continue;
        }
        json_t *fo = json_object(), *runs = json_array();
        json_object_set_new(fo, "file", json_string(files[f]));
        if (jl_trace_harness(t))
            json_object_set_new(fo, "harness", json_string(jl_trace_harness(t)));
        if (jl_trace_created_utc(t))
            json_object_set_new(fo, "created_utc", json_string(jl_trace_created_utc(t)));
        int bad = 0;
        for (size_t i = 0; i < jl_trace_run_count(t); i++)
            json_array_append_new(runs, inspect_run(t, i, &errors, &bad));
        json_object_set_new(fo, "runs", runs);
        json_array_append_new(farr, fo);
        if (bad)
            n_bad++;
        else
            n_ok++;
        if (!json && !jsonl)
            print_file(fo);
        jl_trace_close(t);
    }
    json_object_set_new(doc, "files", farr);
    json_object_set_new(doc, "errors", jl_errors_to_json(&errors));
    for (size_t i = 0; i < errors.count; i++)
        cli_print_error(cmd, errors.items[i]);
    n_bad += errors.count && !n_bad ? 1 : 0;
    int rc = jl_exit_for(n_ok, n_bad);
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
