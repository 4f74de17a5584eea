#define _POSIX_C_SOURCE 200809L
#include "cli/common.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/exit_codes.h"

void cli_print_error(const char *cmd, const jl_error *e)
{
    char *msg = jl_error_format(e);
    fprintf(stderr, "joules %s: %s\n", cmd, msg ? msg : "out of memory");
    free(msg);
}

int cli_fail(const char *cmd, jl_error *err, int rc)
{
    cli_print_error(cmd, err);
    jl_error_free(err);
    return rc;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "joules %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see `joules %s --help`)\n", cmd);
    return JL_EXIT_USAGE;
}

long cli_parse_long(const char *cmd, const char *opt, const char *arg, long min, long max)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (errno || !end || *end || end == arg || v < min || v > max) {
        cli_usage_error(cmd, "%s: '%s' is not a whole number in %ld..%ld", opt, arg, min, max);
        return -1;
    }
    return v;
}

int cli_parse_number(const char *cmd, const char *opt, const char *arg, double lo, double hi,
                     const char *must, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(arg, &end);
    if (errno || !end || *end || end == arg || !isfinite(v))
        return cli_usage_error(cmd, "%s: '%s' is not a number", opt, arg);
    if (!(v >= lo && v < hi))
        return cli_usage_error(cmd, "%s must be %s", opt, must);
    *out = v;
    return 0;
}

int cli_bad_option(const char *cmd, int code, char *const *argv)
{
    if (code == ':')
        return cli_usage_error(cmd, "option '%s' needs an argument", argv[optind - 1]);
    return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
}

int cli_write_document(const char *cmd, const json_t *doc)
{
    if (!doc) {
        fprintf(stderr, "joules %s: out of memory\n", cmd);
        return JL_EXIT_INTERNAL;
    }
    jl_error *err = NULL;
    if (jl_write_json("-", doc, &err) != JL_OK)
        return cli_fail(cmd, err, JL_EXIT_OUTPUT);
    return 0;
}

int cli_print_document(const char *cmd, json_t *doc, const jl_error_list *errors)
{
    if (doc)
        json_object_set_new(doc, "errors", jl_errors_to_json(errors));
    int rc = cli_write_document(cmd, doc);
    json_decref(doc);
    return rc;
}

static void on_signal(int sig)
{
    jl_atomic_cleanup_signal();
    signal(sig, SIG_DFL);
    raise(sig);
}

void cli_install_signal_cleanup(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGPIPE, &sa, NULL);
}

const char *cli_basename(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

void cli_study_init(cli_study *cs)
{
    memset(cs, 0, sizeof *cs);
    jl_study_options_default(&cs->opt);
    jl_ruleset_default(&cs->rules);
}

void cli_study_free(cli_study *cs)
{
    jl_selector_free(cs->sel);
    jl_descriptors_free(cs->desc);
    jl_summary_list_clear(&cs->runs);
    jl_error_list_clear(&cs->errors);
}

int cli_study_option(cli_study *cs, const char *cmd, int code, const char *arg)
{
    switch (code) {
    case CLI_OPT_WHERE:
    case CLI_OPT_EXCLUDE: {
        if (!cs->sel && !(cs->sel = jl_selector_new()))
            return -1;
        jl_error *err = NULL;
        if (jl_selector_add(cs->sel, code == CLI_OPT_EXCLUDE, arg, &err) != JL_OK) {
            cli_usage_error(cmd, "%s", err ? err->message : "out of memory");
            jl_error_free(err);
            return -1;
        }
        return 1;
    }
    case CLI_OPT_WORKERS: {
        long v = cli_parse_long(cmd, "--workers", arg, 1, 256);
        if (v < 0)
            return -1;
        cs->opt.workers = (int)v;
        return 1;
    }
    case CLI_OPT_MAX_ROWS: {
        long v = cli_parse_long(cmd, "--max-rows", arg, 1, LONG_MAX);
        if (v < 0)
            return -1;
        cs->opt.trace.limits.max_rows = (uint64_t)v;
        return 1;
    }
    case CLI_OPT_MAX_DATASET_BYTES: {
        long v = cli_parse_long(cmd, "--max-dataset-bytes", arg, 1, LONG_MAX);
        if (v < 0)
            return -1;
        cs->opt.trace.limits.max_dataset_bytes = (uint64_t)v;
        return 1;
    }
    case CLI_OPT_RULES:
    case CLI_OPT_SET_RULE: {
        jl_error *err = NULL;
        jl_status st = code == CLI_OPT_RULES ? jl_ruleset_load_json(&cs->rules, arg, &err)
                                             : jl_ruleset_set(&cs->rules, arg, &err);
        if (st != JL_OK) {
            if (code == CLI_OPT_RULES) {
                cli_print_error(cmd, err);
            } else {
                cli_usage_error(cmd, "%s", err ? err->message : "out of memory");
            }
            jl_error_free(err);
            return -1;
        }
        return 1;
    }
    default:
        return 0;
    }
}

int cli_other_option(cli_study *cs, const char *cmd, int code, char *const *argv)
{
    int h = cli_study_option(cs, cmd, code, optarg);
    if (h == 1)
        return 0;
    return h == 0 ? cli_bad_option(cmd, code, argv) : JL_EXIT_USAGE;
}

/* Progress only when a person is watching: stderr is a terminal. */
static void progress(void *ctx, size_t done, size_t total, const char *current)
{
    (void)ctx;
    fprintf(stderr, "\r[%zu/%zu] %-60.60s", done, total, cli_basename(current));
    if (done == total)
        fputs("\r\033[K", stderr);
}

int cli_study_load(cli_study *cs, const char *cmd, char **paths, int n_paths)
{
    if (n_paths <= 0)
        return cli_usage_error(cmd, "no PATH given");
    if (isatty(STDERR_FILENO)) {
        cs->opt.progress = progress;
        cs->opt.progress_ctx = NULL;
    }
    jl_status st = jl_study_load((const char *const *)paths, (size_t)n_paths,
                                 &cs->opt, &cs->runs, &cs->errors);
    for (size_t i = 0; i < cs->errors.count; i++)
        cli_print_error(cmd, cs->errors.items[i]);
    if (st != JL_OK) {
        fprintf(stderr, "joules %s: %s\n", cmd, jl_strerror(st));
        return jl_exit_for_status(st);
    }
    jl_summary_list_select(&cs->runs, cs->sel);
    /* Descriptors are optional: without them rules that need a GPU's power
     * limit are skipped (and say why). */
    jl_error *derr = NULL;
    if (jl_descriptors_load(NULL, &cs->desc, &derr) != JL_OK)
        cs->desc = NULL;
    jl_error_free(derr);
    for (size_t i = 0; i < cs->runs.count; i++)
        if (jl_check_annotate(cs->runs.items[i], &cs->rules, cs->desc) != JL_OK) {
            fprintf(stderr, "joules %s: out of memory\n", cmd);
            return JL_EXIT_INTERNAL;
        }
    return 0;
}

int cli_study_exit(const cli_study *cs)
{
    return jl_exit_for(cs->runs.count, cs->errors.count);
}

int cli_emit(const char *cmd, const cli_study *cs, const char *csv, int json,
             const cli_output *out, const void *result)
{
    int rc = 0;
    if (csv) {
        jl_error *err = NULL;
        if (out->csv(csv, result, &cs->runs, &err) != JL_OK)
            return cli_fail(cmd, err, JL_EXIT_OUTPUT);
    }
    if (json)
        rc = cli_print_document(cmd, out->json(result, &cs->runs), &cs->errors);
    else if (!csv || strcmp(csv, "-"))
        out->table(result, &cs->runs);
    return rc ? rc : cli_study_exit(cs);
}
