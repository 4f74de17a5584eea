/* Import of nvidia-smi CSV logs (joules/import.h; the mapping is
 * docs/import.md, "nvidia-smi"), with runs cut by RUNS.csv and requests from
 * vLLM's `bench serve --save-result --save-detailed` JSON. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

#include "import/nvsmi_internal.h"

void jl_import_nvsmi_options_default(jl_import_nvsmi_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->max_rows = 100000000;
    opt->max_gpus = 1024;
    opt->max_request_bytes = (size_t)1 << 30;
    opt->power_lag_s = NAN;
    opt->auto_min_run_s = 5.0;
    opt->auto_merge_s = 1.0;
}

static jl_status check_set(const jl_import_nvsmi_options *opt, jl_error_list *errors)
{
    if (!isnan(opt->power_lag_s) && !(opt->power_lag_s >= 0 && opt->power_lag_s <= 10))
        return jl__imp_err_at(errors, JL_EUSAGE, NULL, 0, 0, NULL,
                              "power lag %g s: from 0 to 10 s (NaN: auto)", opt->power_lag_s);
    for (size_t i = 0; i < opt->n_set; i++) {
        jl_attrs probe;
        jl_attrs_init(&probe);
        const char *why = jl__imp_set_attr(&probe, opt->set[i].key, opt->set[i].value);
        jl_attrs_clear(&probe);
        if (why)
            return jl__imp_err_at(errors, JL_EUSAGE, NULL, 0, 0, NULL, "--set %s=%s: %s",
                                  opt->set[i].key, opt->set[i].value, why);
    }
    return JL_OK;
}

/* The context of one import: the options checked, the zone opened (freed
 * by the caller on JL_OK). */
static jl_status ctx_open(ctx *c, const jl_import_nvsmi_options *opt, jl_error_list *errors)
{
    *c = (ctx){.opt = opt, .errors = errors, .lag_used = NAN, .log_t0 = NAN, .log_t1 = NAN};
    jl_error *err = NULL;
    jl_status st = check_set(opt, errors);
    if (st == JL_OK && (st = jl__zone_open(opt->timezone, &c->zone, &err)) != JL_OK)
        jl_error_list_push(errors, err);
    return st;
}

jl_status jl_import_nvidia_smi(const char *const *logs, size_t n,
                               const jl_import_nvsmi_options *opt, jl_import_result **out,
                               jl_error_list *errors)
{
    jl_import_nvsmi_options def;
    if (!opt) {
        jl_import_nvsmi_options_default(&def);
        opt = &def;
    }
    *out = NULL;
    ctx c;
    jl_error *err = NULL;
    jl_status st = ctx_open(&c, opt, errors);
    if (st != JL_OK)
        return st;
    jl__csv **csvs = calloc(n ? n : 1, sizeof *csvs);
    jl__csv *runs = NULL;
    if (!csvs) {
        jl__zone_free(c.zone);
        return JL_ENOMEM;
    }
    if (opt->runs_csv && jl__csv_open_file(opt->runs_csv, &runs, &err) != JL_OK) {
        st = err ? (err->code == JL_EIO ? JL_EUSAGE : err->code) : JL_ENOMEM;
        jl_error_list_push(errors, err);
        goto end;
    }
    for (size_t k = 0; k < n; k++) {
        err = NULL;
        if (jl__csv_open_file(logs[k], &csvs[k], &err) != JL_OK)
            jl_error_list_push(errors, err);
    }
    st = jl__nvsmi_import_logs(&c, csvs, n, runs, out);
end:
    for (size_t k = 0; k < n; k++)
        jl__csv_close(csvs[k]);
    free(csvs);
    jl__csv_close(runs);
    jl__zone_free(c.zone);
    return st;
}

jl_status jl_import_nvidia_smi_buffer(const char *log, size_t len, const char *name,
                                      const char *runs_csv, size_t runs_len,
                                      const jl_import_nvsmi_options *opt, jl_import_result **out,
                                      jl_error_list *errors)
{
    jl_import_nvsmi_options o;
    if (opt)
        o = *opt;
    else
        jl_import_nvsmi_options_default(&o);
    o.runs_csv = NULL;
    *out = NULL;
    ctx c;
    jl_error *err = NULL;
    jl_status st = ctx_open(&c, &o, errors);
    if (st != JL_OK)
        return st;
    jl__csv *csv = NULL, *runs = NULL;
    if (jl__csv_open_buffer(log, len, name, &csv, &err) != JL_OK ||
        (runs_csv && jl__csv_open_buffer(runs_csv, runs_len, "RUNS.csv", &runs, &err) != JL_OK)) {
        jl_error_list_push(errors, err);
        st = JL_ENOMEM;
    } else {
        /* requests columns name files: not read from buffers */
        st = jl__nvsmi_import_logs(&c, &csv, 1, runs, out);
    }
    jl__csv_close(csv);
    jl__csv_close(runs);
    jl__zone_free(c.zone);
    return st;
}

jl_status jl_import_nvidia_smi_write(const char *const *logs, size_t n,
                                     const jl_import_nvsmi_options *opt, jl_trace_writer *w,
                                     jl_import_result **out, jl_error_list *errors)
{
    jl_import_nvsmi_options def;
    if (!opt) {
        jl_import_nvsmi_options_default(&def);
        opt = &def;
    }
    *out = NULL;
    if (opt->sort || (opt->runs_csv && n > 1) || (opt->runs_auto && n > 1)) {
        /* sorting needs every row; runs over several logs need every log:
         * in memory, then written */
        jl_status st = jl_import_nvidia_smi(logs, n, opt, out, errors);
        for (size_t i = 0; st == JL_OK && i < (*out)->n_runs; i++) {
            jl_error *err = NULL;
            if (jl_trace_writer_add_run(w, (*out)->runs[i], &err) != JL_OK) {
                jl_error_list_push(errors, err);
                jl_import_result_free(*out);
                *out = NULL;
                return JL_EIO;
            }
        }
        return st;
    }
    ctx c;
    jl_error *err = NULL;
    jl__imp_run_spec *specs = NULL;
    size_t n_specs = 0, rows = 0, G = 0;
    int inst = 0;
    jl__csv *runs = NULL;
    jl_status st = ctx_open(&c, opt, errors);
    if (st != JL_OK)
        return st;
    jl__imp kit;
    if (jl__imp_start(&kit, NULL, errors)) {
        jl__zone_free(c.zone);
        return JL_ENOMEM;
    }
    c.k = &kit;
    c.res = kit.res;
    if (opt->runs_csv) {
        if (jl__csv_open_file(opt->runs_csv, &runs, &err) != JL_OK) {
            st = err ? (err->code == JL_EIO ? JL_EUSAGE : err->code) : JL_ENOMEM;
            jl_error_list_push(errors, err);
            goto end;
        }
        if ((st = jl__imp_runs_read(runs, c.zone, errors, &specs, &n_specs)) != JL_OK)
            goto end;
    }
    for (size_t k = 0; k < n; k++) {
        jl__csv *csv = NULL;
        jl__imp_idle *idle = NULL;
        err = NULL;
        if ((st = jl__nvsmi_stream_prepare(&c, logs[k], &specs, &n_specs, &idle)) != JL_OK)
            goto end;
        if (jl__csv_open_file(logs[k], &csv, &err) != JL_OK) {
            jl_error_list_push(errors, err);
            if (idle) {
                jl__imp_idle_free(idle);
                free(idle);
            }
            continue;
        }
        st = jl__nvsmi_stream_log(&c, w, csv, specs, n_specs, k, &rows, &G, &inst, idle);
        jl__csv_close(csv);
        if (st != JL_OK)
            goto end;
    }
    if (c.res->n_files == 0 || c.res->n_runs == 0) {
        if (c.res->n_files)
            jl__nvsmi_windows_outside(&c, specs, n_specs);
        st = JL_ENODATA;
        goto end;
    }
    jl__nvsmi_result_details(&c, n, rows, G, inst);
end:
    jl__imp_run_specs_free(specs, n_specs);
    jl__csv_close(runs);
    jl__zone_free(c.zone);
    free(c.auto_path);
    return jl__imp_end(&kit, st, out);
}

/* ---- the importer table's row ---------------------------------------------- */

static const jl_importer_option nvsmi_options[] = {
    {"runs", "RUNS.csv|auto",
     "runs to cut from the log: columns run,start,end then any run "
     "attribute, gpus, requests, requests_offset, log; auto: cut at the power's rises and "
     "falls (thresholds printed) and written to a RUNS.csv to edit"},
    {"runs-out", "FILE",
     "with --runs auto: where to write the runs found (default: -o's name with .runs.csv)"},
    {"auto-min-run", "S", "with --runs auto: drop runs shorter than S seconds (default 5)"},
    {"auto-merge", "S", "with --runs auto: merge dips in power shorter than S seconds (default 1)"},
    {"set", "KEY=VALUE", "a run attribute for every run (repeatable; RUNS.csv wins)"},
    {"timezone", "ZONE",
     "zone of the log's timestamps: UTC, +05:30, America/Chicago "
     "(default: this machine's)"},
    {"columns", "LIST", "field names of a noheader log, in order (timestamp,index,power.draw)"},
    {"sort", NULL, "sort rows by time instead of refusing time that goes backwards"},
    {"power-lag", "auto|off|SECONDS",
     "auto (default): power.draw, the 1-s average, placed 0.5 s before its timestamp; off: "
     "power.draw.instant where logged, times as logged; SECONDS: power.draw shifted so much"},
    {NULL, NULL, NULL},
};

/* The CLI's options into o (set and keys allocated for --set; freed by the
 * caller). */
static jl_status parse_args(const jl_importer_arg *args, size_t n_args, jl_import_nvsmi_options *o,
                            jl_kv **set, char ***keys, jl_error_list *errors)
{
    jl_import_nvsmi_options_default(o);
    *set = calloc(n_args ? n_args : 1, sizeof **set);
    *keys = calloc(n_args ? n_args : 1, sizeof **keys);
    if (!*set || !*keys)
        return JL_ENOMEM;
    for (size_t i = 0; i < n_args; i++) {
        const char *k = args[i].name, *v = args[i].value;
        if (!strcmp(k, "runs") && !strcmp(v, "auto"))
            o->runs_auto = 1, o->runs_csv = NULL;
        else if (!strcmp(k, "runs"))
            o->runs_csv = v, o->runs_auto = 0;
        else if (!strcmp(k, "runs-out"))
            o->runs_out = v;
        else if (!strcmp(k, "output"))
            o->output = v;
        else if (!strcmp(k, "force"))
            o->force = 1;
        else if (!strcmp(k, "auto-min-run") || !strcmp(k, "auto-merge")) {
            double x;
            if (!jl__imp_number(v, &x) || x < 0)
                return jl__imp_err_at(errors, JL_EUSAGE, NULL, 0, 0, NULL,
                                      "--%s wants seconds >= 0, found '%s'", k, v);
            *(!strcmp(k, "auto-min-run") ? &o->auto_min_run_s : &o->auto_merge_s) = x;
        } else if (!strcmp(k, "timezone"))
            o->timezone = v;
        else if (!strcmp(k, "columns"))
            o->columns = v;
        else if (!strcmp(k, "sort"))
            o->sort = 1;
        else if (!strcmp(k, "power-lag")) {
            char *e = NULL;
            double d = strcmp(v, "auto") ? strcmp(v, "off") ? strtod(v, &e) : 0 : NAN;
            if (e && (e == v || *e || !(d >= 0 && d <= 10)))
                return jl__imp_err_at(errors, JL_EUSAGE, NULL, 0, 0, NULL,
                                      "--power-lag wants auto, off or seconds from 0 to 10, "
                                      "found '%s'",
                                      v);
            o->power_lag_s = d;
        } else if (!strcmp(k, "set")) {
            const char *eq = strchr(v, '=');
            if (!eq || eq == v)
                return jl__imp_err_at(errors, JL_EUSAGE, NULL, 0, 0, NULL,
                                      "--set wants KEY=VALUE, found '%s'", v);
            if (!((*keys)[o->n_set] = jl__asprintf("%.*s", (int)(eq - v), v)))
                return JL_ENOMEM;
            (*set)[o->n_set].key = (*keys)[o->n_set];
            (*set)[o->n_set].value = (char *)(eq + 1);
            o->n_set++;
        }
    }
    o->set = *set;
    return JL_OK;
}

static void free_args(jl_kv *set, char **keys, size_t n_args)
{
    for (size_t i = 0; keys && i < n_args; i++)
        free(keys[i]);
    free(keys);
    free(set);
}

static jl_status nvsmi_run(const char *const *paths, size_t n_paths, const jl_importer_arg *args,
                           size_t n_args, jl_import_result **out, jl_error_list *errors)
{
    jl_import_nvsmi_options o;
    jl_kv *set = NULL;
    char **keys = NULL;
    jl_status st = parse_args(args, n_args, &o, &set, &keys, errors);
    if (st == JL_OK)
        st = jl_import_nvidia_smi(paths, n_paths, &o, out, errors);
    free_args(set, keys, n_args);
    return st;
}

static jl_status nvsmi_write(const char *const *paths, size_t n_paths, const jl_importer_arg *args,
                             size_t n_args, jl_trace_writer *w, jl_import_result **out,
                             jl_error_list *errors)
{
    jl_import_nvsmi_options o;
    jl_kv *set = NULL;
    char **keys = NULL;
    jl_status st = parse_args(args, n_args, &o, &set, &keys, errors);
    if (st == JL_OK)
        st = jl_import_nvidia_smi_write(paths, n_paths, &o, w, out, errors);
    free_args(set, keys, n_args);
    return st;
}

const jl_importer jl__importer_nvidia_smi = {
    .name = "nvidia-smi",
    .summary = "CSV logs of nvidia-smi --query-gpu=... --format=csv -lms N, cut into runs",
    .paths = "LOG.csv...",
    .description =
        "Import CSV logs written by `nvidia-smi --query-gpu=FIELDS --format=csv[,noheader]\n"
        "[,nounits] -lms N`: any fields with timestamp and a power field. Units in the\n"
        "header or the values, [N/A] and [Not Supported] are missing (never 0); rows of\n"
        "several GPUs become watts [N, G] by index (or uuid). Power is power.draw, the\n"
        "driver's 1-s average on Ampere and newer, each reading placed 0.5 s before its\n"
        "timestamp (--power-lag), else power.draw.instant; the run's notes say which.\n"
        "Without --runs each log is one run named after its file; with it each row of\n"
        "RUNS.csv is a run [start, end] (Unix seconds or ISO 8601), its power\n"
        "interpolated to both edges so its energy covers exactly the window,\n"
        "on the GPUs of its gpus column, with attributes from the other columns and\n"
        "requests from a vLLM `bench serve --save-result --save-detailed` JSON named in a\n"
        "requests column. --runs auto cuts runs where the total power rises and falls\n"
        "(the thresholds are printed) and writes them as a RUNS.csv to edit\n"
        "(OUT.runs.csv for -o OUT.h5, or --runs-out FILE); without --set for every required\n"
        "attribute it stops there, naming the columns to fill and the command to re-run.\n"
        "A required attribute given by none of RUNS.csv, --set, the request file or the\n"
        "log is an error naming it. A run given no gpu_idle_power_w gets the median\n"
        "power of the log's quiet stretches outside every run (its notes say which).\n"
        "Field mapping and units: import.md, \"nvidia-smi\".\n",
    .options = nvsmi_options,
    .min_paths = 1,
    .max_paths = 0,
    .run = nvsmi_run,
    .write = nvsmi_write,
};
