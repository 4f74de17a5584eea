#define _POSIX_C_SOURCE 200809L
#include "cli/common.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/mpi.h"

void cli_print_error(const char *cmd, const jl_error *e)
{
    char *msg = jl_error_format(e);
    fprintf(stderr, "joules %s: %s\n", cmd, msg ? msg : "out of memory");
    free(msg);
}

int cli_fail(const char *cmd, jl_status st, jl_error *err)
{
    if (err)
        cli_print_error(cmd, err);
    else
        fprintf(stderr, "joules %s: %s\n", cmd, jl_strerror(st));
    int rc = cli_exit_for_error(err, st);
    jl_error_free(err);
    return rc;
}

int cli_oom(const char *cmd)
{
    return cli_fail(cmd, JL_ENOMEM, NULL);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "joules %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see `joules %s --help`)\n", cmd);
    return cli_exit_for_status(JL_EUSAGE);
}

int cli_parse_long(const char *cmd, const char *opt, const char *arg, long min, long max, long *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (errno || !end || *end || end == arg || v < min || v > max)
        return cli_usage_error(cmd, "%s: '%s' is not a whole number in %ld..%ld", opt, arg, min,
                               max);
    *out = v;
    return 0;
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
    if (!doc)
        return cli_oom(cmd);
    jl_error *err = NULL;
    jl_status st = jl_write_json("-", doc, &err);
    return st != JL_OK ? cli_fail(cmd, st, err) : 0;
}

int cli_print_document(const char *cmd, json_t *doc, const jl_error_list *errors)
{
    if (doc)
        json_object_set_new(doc, "errors", jl_errors_to_json(errors));
    int rc = cli_write_document(cmd, doc);
    json_decref(doc);
    return rc;
}

/* What an interrupted command did not write, said by the handler (set
 * before the work starts; written with write(2), async-signal-safe). */
static char interrupt_message[2048];
static size_t interrupt_len;

void cli_set_interrupt_message(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(interrupt_message, sizeof interrupt_message, fmt, ap);
    va_end(ap);
    interrupt_len = n < 0                                  ? 0
                    : (size_t)n < sizeof interrupt_message ? (size_t)n
                                                           : sizeof interrupt_message - 1;
}

static void on_signal(int sig)
{
    jl_atomic_cleanup_signal();
    if (interrupt_len && sig != SIGPIPE) {
        ssize_t w = write(STDERR_FILENO, interrupt_message, interrupt_len);
        (void)w;
    }
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

int cli_text_width(const char *const *texts, size_t n, size_t stride, int min)
{
    size_t w = (size_t)(min > 1 ? min : 1);
    for (size_t i = 0; i < n; i++) {
        const char *t = *(const char *const *)((const char *)texts + i * stride);
        size_t len = strlen(t ? t : "-");
        if (len > w)
            w = len;
    }
    return w > 4096 ? 4096 : (int)w;
}

void cli_model_task_widths(const void *rows, size_t n, size_t stride, size_t model_off,
                           size_t task_off, int *wm, int *wt)
{
    const char *base = rows;
    *wm = n ? cli_text_width((const char *const *)(base + model_off), n, stride, 5) : 5;
    *wt = n ? cli_text_width((const char *const *)(base + task_off), n, stride, 4) : 4;
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

/* What a command would free just before it exits (the study's summaries,
 * an import's runs) is left to the operating system: freeing ~2,000
 * summaries one string at a time is ~2 ms of a 20 ms command
 * (docs/performance.md, "Left to the operating system at exit"). It stays
 * reachable from here, so leak checkers (valgrind, LeakSanitizer) see
 * memory in use, not a leak. JOULES_FREE_AT_EXIT=1 frees it as before. */
static jl_summary_list kept_runs;
static jl_import_result *kept_import;

static int free_at_exit(void)
{
    const char *e = getenv("JOULES_FREE_AT_EXIT");
    return e && *e && strcmp(e, "0") != 0;
}

void cli_import_result_release(jl_import_result *r)
{
    jl_import_result_free(kept_import);
    kept_import = NULL;
    if (free_at_exit())
        jl_import_result_free(r);
    else
        kept_import = r;
}

void cli_study_free(cli_study *cs)
{
    cli_slos_free(&cs->slos);
    jl_selector_free(cs->sel);
    jl_descriptors_free(cs->desc);
    jl_summary_list_clear(&kept_runs);
    if (free_at_exit())
        jl_summary_list_clear(&cs->runs);
    else
        kept_runs = cs->runs;
    memset(&cs->runs, 0, sizeof cs->runs);
    jl_error_list_clear(&cs->errors);
}

int cli_study_where(cli_study *cs, const char *cmd, int exclude, const char *clause)
{
    if (!cs->sel && !(cs->sel = jl_selector_new()))
        return cli_oom(cmd);
    jl_error *err = NULL;
    jl_status st = jl_selector_add(cs->sel, exclude, clause, &err);
    if (st != JL_OK && st != JL_ENOMEM) {
        int rc = cli_usage_error(cmd, "%s", err ? err->message : "out of memory");
        jl_error_free(err);
        return rc;
    }
    return st != JL_OK ? cli_fail(cmd, st, err) : 0;
}

/* A shared option: 0 or an exit code (printed); -1 when code is not one. */
static int study_option(cli_study *cs, const char *cmd, int code, const char *arg)
{
    long v = 0; /* set by cli_parse_long on success (gcc -O3 cannot tell) */
    int rc;
    switch (code) {
    case CLI_OPT_WHERE:
    case CLI_OPT_EXCLUDE: return cli_study_where(cs, cmd, code == CLI_OPT_EXCLUDE, arg);
    case CLI_OPT_WORKERS:
        if (!(rc = cli_parse_long(cmd, "--workers", arg, 1, 256, &v)))
            cs->opt.workers = (int)v;
        return rc;
    case CLI_OPT_MAX_ROWS:
        if (!(rc = cli_parse_long(cmd, "--max-rows", arg, 1, LONG_MAX, &v)))
            cs->opt.trace.limits.max_rows = (uint64_t)v;
        return rc;
    case CLI_OPT_MAX_DATASET_BYTES:
        if (!(rc = cli_parse_long(cmd, "--max-dataset-bytes", arg, 1, LONG_MAX, &v)))
            cs->opt.trace.limits.max_dataset_bytes = (uint64_t)v;
        return rc;
    case CLI_OPT_JSONL: cs->jsonl = 1; return 0;
    case CLI_OPT_JSON: cs->json = 1; return 0;
    case CLI_OPT_CSV: cs->csv = arg; return 0;
    case CLI_OPT_FORCE: cs->force = 1; return 0;
    case CLI_OPT_ALLOW_EXTERNAL:
        /* the study's reads and every later one (the report's series) */
        cs->opt.trace.allow_external_storage = 1;
        jl_trace_default_allow_external_storage(1);
        return 0;
    case CLI_OPT_REQUIRE_VALID: cs->valid_only = 1; return 0;
    case CLI_OPT_SLO: return cli_slos_add(&cs->slos, cmd, arg);
    case CLI_OPT_NAMES: {
        int n = jl_names_parse(arg);
        if (n < 0)
            return cli_usage_error(cmd, "--names: '%s' is not one of joules, mlenergy", arg);
        cs->names = (jl_names)n;
        return 0;
    }
    case CLI_OPT_RULES:
    case CLI_OPT_SET_RULE: {
        jl_error *err = NULL;
        jl_status st = code == CLI_OPT_RULES ? jl_ruleset_load_json(&cs->rules, arg, &err)
                                             : jl_ruleset_set(&cs->rules, arg, &err);
        if (st == JL_OK)
            return 0;
        /* a rules file that cannot be used is said as it is, and is a usage
         * error like a bad --set-rule */
        if (code == CLI_OPT_RULES) {
            cli_print_error(cmd, err);
            rc = cli_exit_for_status(JL_EUSAGE);
        } else {
            rc = cli_usage_error(cmd, "%s", err ? err->message : "out of memory");
        }
        jl_error_free(err);
        return rc;
    }
    default: return -1;
    }
}

int cli_parse(cli_study *cs, const char *cmd, const char *help, int argc, char **argv,
              const char *optstring, const struct option *longopts, cli_own_option own, void *ctx)
{
    int c, rc = 0;
    optind = 1;
    while (!rc && (c = getopt_long(argc, argv, optstring, longopts, NULL)) != -1) {
        if (c == 'h') {
            cli_help(cmd, help);
            cs->helped = 1;
            return 0;
        }
        if (c == '?' || c == ':')
            return cli_bad_option(cmd, c, argv);
        if ((rc = study_option(cs, cmd, c, optarg)) < 0)
            rc = own ? own(ctx, cmd, c, optarg) : cli_bad_option(cmd, c, argv);
    }
    return rc;
}

/* Progress only when a person is watching: stderr is a terminal. */
static void progress(void *ctx, size_t done, size_t total, const char *current)
{
    (void)ctx;
    fprintf(stderr, "\r[%zu/%zu] %-60.60s", done, total, cli_basename(current));
    if (done == total)
        fputs("\r\033[K", stderr);
}

double cli_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void cli_progress_init(cli_progress_state *p, const char *cmd)
{
    memset(p, 0, sizeof *p);
    p->cmd = cmd;
    p->tty = isatty(STDERR_FILENO);
    p->t0 = cli_now_s();
}

void cli_progress(void *ctx, const char *phase, size_t done, size_t total, const char *current)
{
    cli_progress_state *p = ctx;
    if (p->tty) {
        fprintf(stderr, "\r[%s: %s %zu/%zu] %-50.50s", p->cmd, phase, done, total,
                current ? current : "");
        if (done == total)
            fputs("\r\033[K", stderr);
        return;
    }
    double t = cli_now_s();
    int changed = strncmp(p->phase, phase, sizeof p->phase - 1) != 0;
    if (!changed && t - p->last < 1.5 && done != total)
        return;
    if (!changed && done == total && t - p->last < 0.3)
        return;
    snprintf(p->phase, sizeof p->phase, "%s", phase);
    p->last = t;
    fprintf(stderr, "joules %s: [%.1f s] %s %zu/%zu%s%s\n", p->cmd, t - p->t0, phase, done, total,
            current && *current ? " " : "", current ? current : "");
}

int cli_study_load(cli_study *cs, const char *cmd, char **paths, int n_paths)
{
    if (n_paths <= 0)
        return cli_usage_error(cmd, "no PATH given");
    cli_provenance_study(cs);
    /* a document's provenance hashes every input: where the study reads
     * each file (in its worker, on its rank), in parallel, rather than all
     * at the end in this process. Only where the hash runs changes. */
    cs->opt.hash_inputs = cs->json || !strcmp(cmd, "report");
    if (isatty(STDERR_FILENO)) {
        cs->opt.progress = progress;
        cs->opt.progress_ctx = NULL;
    }
    cli_mpi_study(&cs->opt, cmd); /* under mpirun: this rank's share, gathered on rank 0 */
    char *unmatched = NULL;
    size_t before = 0;
    jl_status st =
        jl_study_open((const char *const *)paths, (size_t)n_paths, &cs->opt, cs->sel, &cs->rules,
                      &cs->runs, &cs->errors, &cs->desc, &before, &unmatched);
    for (size_t i = 0; i < cs->errors.count; i++)
        cli_print_error(cmd, cs->errors.items[i]);
    if (st != JL_OK && cli_mpi_size() > 1)
        cli_mpi_abort(cli_fail(cmd, st, NULL));
    cli_mpi_secondary_done(); /* ranks but 0: their share went to rank 0 */
    for (char *line = unmatched, *next; line; line = next) {
        if ((next = strchr(line, '\n')))
            *next++ = '\0';
        fprintf(stderr, "joules %s: %s\n", cmd, line);
    }
    free(unmatched);
    if (st != JL_OK)
        return cli_fail(cmd, st, NULL);
    if (before && !cs->runs.count) {
        fprintf(stderr, "joules %s: no run left after --where/--exclude (%zu run%s read)\n", cmd,
                before, before == 1 ? "" : "s");
        return cli_exit_for_status(JL_ENODATA);
    }
    return cli_require_valid(cmd, cs->valid_only, &cs->runs);
}

/* One line per reason of a run that is not valid. */
static void print_invalid(const char *cmd, const jl_summary *s)
{
    for (size_t k = 0; k < s->validity.n; k++)
        if (jl_reason_severity(&s->validity.reasons[k]) == JL_SEVERITY_INVALID)
            fprintf(stderr, "joules %s: %s:%s is not valid: [%s] %s\n", cmd,
                    s->file ? s->file : "-", s->run ? s->run : "-", s->validity.reasons[k].code,
                    s->validity.reasons[k].message);
}

int cli_require_valid(const char *cmd, int require, const jl_summary_list *runs)
{
    size_t bad = 0;
    for (size_t i = 0; require && runs && i < runs->count; i++)
        if (!jl_validity_is_valid(&runs->items[i]->validity)) {
            print_invalid(cmd, runs->items[i]);
            bad++;
        }
    if (!bad)
        return 0;
    fprintf(stderr,
            "joules %s: --require-valid: %zu of %zu run%s not valid (check.md, \"Reason "
            "codes\")\n",
            cmd, bad, runs->count, runs->count == 1 ? " is" : "s are");
    return CLI_EXIT_PARTIAL;
}

int cli_study_drop_invalid(cli_study *cs, const char *cmd, int allow)
{
    size_t kept = 0, dropped = 0;
    for (size_t i = 0; i < cs->runs.count; i++) {
        jl_summary *s = cs->runs.items[i];
        if (allow || jl_validity_is_valid(&s->validity)) {
            cs->runs.items[kept++] = s;
            continue;
        }
        print_invalid(cmd, s);
        jl_summary_free(s);
        dropped++;
    }
    cs->runs.count = kept;
    if (dropped)
        fprintf(stderr, "joules %s: %zu run%s not valid left out (--allow-invalid keeps them)\n",
                cmd, dropped, dropped == 1 ? "" : "s");
    if (dropped && !kept)
        return cli_exit_for_status(JL_ENODATA);
    return 0;
}

int cli_study_start(cli_study *cs, const char *cmd, int argc, char **argv, const cli_output *out)
{
    int rc = cli_check_outputs(cmd, cs, cs->csv, cs->json, out);
    if (rc)
        return rc;
    cli_install_signal_cleanup();
    /* checked absent without --force: not replaced by a file made meanwhile */
    if (cs->csv && strcmp(cs->csv, "-") && !cs->force)
        (void)jl_atomic_keep_existing(cs->csv);
    if (cs->csv && strcmp(cs->csv, "-"))
        cli_set_interrupt_message("joules %s: interrupted: %s was not written%s\n", cmd, cs->csv,
                                  access(cs->csv, F_OK) == 0 ? " (the existing file is unchanged)"
                                                             : "");
    return cli_study_load(cs, cmd, argv + optind, argc - optind);
}

int cli_study_exit(const cli_study *cs)
{
    return cli_exit_for(cs->runs.count, cs->errors.count);
}

int cli_check_outputs(const char *cmd, const cli_study *cs, const char *csv, int json,
                      const cli_output *out)
{
    int to_stdout = csv && !strcmp(csv, "-");
    if (json && cs->jsonl)
        return cli_usage_error(cmd, "--json and --jsonl: choose one");
    if ((json || cs->jsonl) && to_stdout)
        return cli_usage_error(cmd,
                               "--%s and --csv - would both write to stdout: give --csv a "
                               "FILE",
                               json ? "json" : "jsonl");
    if (cs->jsonl && (!out || !out->rows))
        return cli_usage_error(cmd, "--jsonl: this command has no rows to write one per line");
    if (cs->names == JL_NAMES_MLENERGY && !json && !cs->jsonl && !(csv && out && out->csv))
        return cli_usage_error(cmd, "--names mlenergy names the keys of --json, --jsonl%s",
                               out && out->csv ? " and --csv" : "");
    /* one rule for outputs that exist, as import and report: --force */
    struct stat sb;
    if (csv && !to_stdout && !cs->force && stat(csv, &sb) == 0 && S_ISREG(sb.st_mode)) {
        fprintf(stderr, "joules %s: %s already exists (use --force to replace it)\n", cmd, csv);
        return cli_exit_for_status(JL_EUSAGE);
    }
    return 0;
}

/* Append the rows of arr to out; parent (may be NULL): its scalar fields
 * are added to each row that lacks them. */
static int add_rows(json_t *out, json_t *arr, const json_t *parent)
{
    size_t i;
    json_t *row;
    json_array_foreach(arr, i, row) {
        if (parent && json_is_object(row)) {
            const char *k;
            json_t *v;
            json_object_foreach((json_t *)parent, k, v)
                if (!json_is_array(v) && !json_is_object(v) && !json_object_get(row, k))
                    json_object_set(row, k, v);
        }
        if (json_array_append(out, row))
            return -1;
    }
    return 0;
}

int cli_print_jsonl(const char *cmd, const cli_study *cs, json_t *doc, const char *rows)
{
    if (!doc)
        return cli_oom(cmd);
    char key[64];
    snprintf(key, sizeof key, "%s", rows);
    char *sub = strchr(key, '/');
    if (sub)
        *sub++ = '\0';
    json_t *all = json_array(), *top = json_object_get(doc, key);
    int bad = !all;
    size_t i;
    json_t *e;
    if (!bad && !sub)
        bad = add_rows(all, top, NULL);
    else if (!bad)
        json_array_foreach(top, i, e)
            if ((bad = add_rows(all, json_object_get(e, sub), e)))
                break;
    if (!bad && cs->names == JL_NAMES_MLENERGY)
        jl_json_rename_mlenergy(all);
    jl_status st = bad ? JL_ENOMEM : JL_OK;
    jl_error *err = NULL;
    json_array_foreach(all, i, e) {
        if (st != JL_OK)
            break;
        char *line = jl_json_dumps(e, JSON_SORT_KEYS | JSON_COMPACT |
                                          JSON_REAL_PRECISION(JL_JSON_REAL_PRECISION));
        if (!line) {
            st = JL_ENOMEM;
            break;
        }
        if (fputs(line, stdout) == EOF || putchar('\n') == EOF)
            st = jl_fail_output(&err, JL_EIO, "<stdout>", NULL, NULL, -1, "%s", strerror(errno));
        free(line);
    }
    if (st == JL_OK && fflush(stdout) != 0)
        st = jl_fail_output(&err, JL_EIO, "<stdout>", NULL, NULL, -1, "%s", strerror(errno));
    json_decref(all);
    json_decref(doc);
    return st != JL_OK ? cli_fail(cmd, st, err) : 0;
}

/* The whole of f (caller frees), NULL out of memory. */
static char *read_all(FILE *f, size_t *len)
{
    size_t cap = 65536, n = 0, got;
    char *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                return NULL;
            }
            buf = nb;
        }
    }
    *len = n;
    return buf;
}

/* --csv with --names mlenergy for a command whose CSV writer knows only
 * joules' names: written to a scratch file, renamed column by column
 * (jl_csv_rename_mlenergy) and written whole to its place. */
static int csv_named(const char *cmd, const cli_study *cs, const cli_output *out,
                     const void *result)
{
    const char *dir = getenv("TMPDIR");
    size_t tcap = strlen(dir && *dir ? dir : "/tmp") + 24;
    char *tmpl = malloc(tcap);
    if (!tmpl)
        return cli_oom(cmd);
    snprintf(tmpl, tcap, "%s/joules-csv-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(tmpl);
    if (fd < 0) {
        fprintf(stderr, "joules %s: cannot create a scratch file in %s: %s\n", cmd,
                dir && *dir ? dir : "/tmp", strerror(errno));
        free(tmpl);
        return CLI_EXIT_OUTPUT;
    }
    close(fd);
    jl_error *err = NULL;
    jl_status st = out->csv(tmpl, result, &cs->runs, &err);
    char *text = NULL, *named = NULL;
    size_t len = 0, nlen = 0;
    if (st == JL_OK) {
        FILE *f = fopen(tmpl, "rb");
        if (f) {
            text = read_all(f, &len);
            fclose(f);
        }
    }
    unlink(tmpl);
    free(tmpl);
    if (st != JL_OK)
        return cli_fail(cmd, st, err);
    if (!text) {
        fprintf(stderr, "joules %s: cannot read back the scratch CSV for --names mlenergy\n", cmd);
        return CLI_EXIT_OUTPUT;
    }
    named = jl_csv_rename_mlenergy(text, len, &nlen);
    free(text);
    if (!named) /* out of memory, or its own CSV not CSV: neither is the input's fault */
        return cli_fail(cmd,
                        jl_fail_output(&err, JL_EINTERNAL, cs->csv, NULL, NULL, -1,
                                       "the CSV could not be renamed for --names mlenergy "
                                       "(out of memory, or not well-formed CSV)"),
                        err);
    if (!strcmp(cs->csv, "-")) {
        int ok = fwrite(named, 1, nlen, stdout) == nlen;
        free(named);
        return ok ? 0 : CLI_EXIT_OUTPUT;
    }
    st = jl_write_file_atomic(cs->csv, named, nlen, &err);
    free(named);
    return st == JL_OK ? 0 : cli_fail(cmd, st, err);
}

int cli_emit(const char *cmd, const cli_study *cs, const cli_output *out, const void *result)
{
    return cli_emit_written(cmd, cs, out, result, NULL);
}

int cli_emit_written(const char *cmd, const cli_study *cs, const cli_output *out,
                     const void *result, cli_json_writer json_write)
{
    const char *csv = cs->csv;
    int json = cs->json, rc = 0;
    if (csv && cs->names == JL_NAMES_MLENERGY && !out->csv_names) {
        if ((rc = csv_named(cmd, cs, out, result)))
            return rc;
    } else if (csv) {
        jl_error *err = NULL;
        const void *r = out->csv_names ? (const void *)&cs->names : result;
        jl_status st = out->csv(csv, r, &cs->runs, &err);
        if (st != JL_OK)
            return cli_fail(cmd, st, err);
    }
    if (json && json_write && cs->names != JL_NAMES_MLENERGY) {
        jl_error *err = NULL;
        jl_status st = json_write("-", result, &cs->runs, &cs->errors, &err);
        if (st != JL_OK)
            rc = cli_fail(cmd, st, err);
    } else if (json) {
        json_t *doc = out->json(result, &cs->runs);
        if (doc && cs->names == JL_NAMES_MLENERGY)
            jl_json_rename_mlenergy(doc);
        rc = cli_print_document(cmd, doc, &cs->errors);
    } else if (cs->jsonl) {
        rc = cli_print_jsonl(cmd, cs, out->json(result, &cs->runs), out->rows);
    } else if (!csv || strcmp(csv, "-")) {
        out->table(result, &cs->runs);
        if (out->boundaries)
            cli_print_boundaries(&cs->runs);
    }
    return rc ? rc : cli_study_exit(cs);
}

void cli_fmt_figure(char *buf, size_t cap, int fig, double v)
{
    const char *unit = fig >= 0 ? jl_figure_unit((jl_figure)fig) : "";
    const char *name = fig >= 0 ? jl_figure_name((jl_figure)fig) : "?";
    /* the name without its unit suffix: the unit follows the number */
    size_t n = strlen(name), un = strlen(unit);
    static const char *const suffixes[] = {"_s", "_j", "_w", "_tok_s"};
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        size_t m = strlen(suffixes[i]);
        if (n > m && !strcmp(name + n - m, suffixes[i])) {
            n -= m;
            break;
        }
    }
    if (!strcmp(unit, "s") && (strstr(name, "itl") || strstr(name, "ttft") ||
                               strstr(name, "tpot") || strstr(name, "percentile_latency")))
        snprintf(buf, cap, "%.*s %.4g ms", (int)n, name, v * 1000);
    else
        snprintf(buf, cap, "%.*s %.4g%s%s", (int)n, name, v, un && strcmp(unit, "1") ? " " : "",
                 strcmp(unit, "1") ? unit : "");
}

const char *cli_fmt_cap(char *buf, size_t cap, const jl_summary *s)
{
    if (jl_attrs_known(&s->attrs, "max_batch_size"))
        snprintf(buf, cap, "b%ld", s->attrs.max_batch_size);
    else
        snprintf(buf, cap, "b-");
    return buf;
}

void cli_fmt_run_figure(char *buf, size_t cap, int fig, double v, const jl_summary *s)
{
    char pct[32], per[16];
    if (fig == JL_FIG_PERCENTILE_LATENCY_S && s &&
        jl_attrs_get(&s->attrs, "latency_percentile", pct, sizeof pct) == 0 &&
        jl_attrs_get(&s->attrs, "latency_per", per, sizeof per) == 0)
        snprintf(buf, cap, "p%s latency/%s %.4g ms", pct, per, v * 1000);
    else
        cli_fmt_figure(buf, cap, fig, v);
}

/* ---- the order runs are printed in ------------------------------------------------- */

/* by file, then by run name with its numbers compared as numbers (b8 before
 * b16 before b128), whatever the file's order */
static int natural_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            while (*a == '0')
                a++;
            while (*b == '0')
                b++;
            size_t na = 0, nb = 0;
            while (isdigit((unsigned char)a[na]))
                na++;
            while (isdigit((unsigned char)b[nb]))
                nb++;
            if (na != nb)
                return na < nb ? -1 : 1;
            int c = memcmp(a, b, na);
            if (c)
                return c;
            a += na;
            b += nb;
            continue;
        }
        if (*a != *b)
            return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++;
        b++;
    }
    return *a ? 1 : *b ? -1 : 0;
}

static const jl_summary_list *g_order_list; /* for run_cmp (one command per process) */

static int run_cmp(const void *x, const void *y)
{
    size_t i = *(const size_t *)x, j = *(const size_t *)y;
    const jl_summary *a = g_order_list->items[i], *b = g_order_list->items[j];
    int c = strcmp(a->file ? a->file : "", b->file ? b->file : "");
    if (!c)
        c = natural_cmp(a->run ? a->run : "", b->run ? b->run : "");
    return c ? c : (i > j) - (i < j);
}

void cli_run_order(const jl_summary_list *l, size_t *order)
{
    for (size_t i = 0; i < l->count; i++)
        order[i] = i;
    g_order_list = l;
    qsort(order, l->count, sizeof *order, run_cmp);
}

int cli_account_boundary(const char *cmd, const char *window, const char *scope, int allow_facility,
                         const char *why_not, jl_account_boundary *out)
{
    jl_error *err = NULL;
    jl_account_boundary_default(out);
    if (jl_account_boundary_parse(out, window, scope, &err) != JL_OK) {
        cli_print_error(cmd, err);
        jl_error_free(err);
        return CLI_EXIT_USAGE;
    }
    if (out->scope == JL_SCOPE_FACILITY && !allow_facility)
        return cli_usage_error(cmd, "--scope facility: %s", why_not);
    return 0;
}

void cli_print_boundaries(const jl_summary_list *l)
{
    size_t n[JL_WINDOW_COUNT][JL_SCOPE_COUNT] = {{0}}, kinds = 0;
    for (size_t i = 0; i < l->count; i++)
        kinds += !n[l->items[i]->boundary.window][l->items[i]->boundary.scope]++;
    if (!kinds)
        return;
    printf("energy: ");
    size_t k = 0;
    for (int w = 0; w < JL_WINDOW_COUNT; w++)
        for (int s = 0; s < JL_SCOPE_COUNT; s++) {
            if (!n[w][s])
                continue;
            printf("%s%s at %s power (%s/%s: %s%zu run%s)", k++ ? "; " : "",
                   jl_window_words((jl_window)w), jl_scope_words((jl_scope)s),
                   jl_window_name((jl_window)w), jl_scope_name((jl_scope)s),
                   kinds == 1 && n[w][s] > 1 ? "all " : "", n[w][s], n[w][s] == 1 ? "" : "s");
        }
    printf(" (summary.md, \"Every figure and its boundary\")\n");
}

void cli_left_out_add(cli_left_out *t, const jl_counted *c)
{
    t->n++;
    t->nm_host += (c->not_measured >> JL_SCOPE_HOST) & 1u;
    t->nm_node += (c->not_measured >> JL_SCOPE_NODE) & 1u;
    t->fallbacks += c->window_fallback != 0;
    if (isfinite(c->outside_window_j))
        t->outside_j += c->outside_window_j;
    else
        t->outside_unknown++;
    if (c->wider < JL_SCOPE_COUNT && isfinite(c->wider_j))
        t->wider_j += c->wider_j;
}

void cli_left_out_print(const cli_left_out *t, const char *window, const char *scope,
                        const char *rows)
{
    if (!t->n)
        return;
    const int scope_given = scope && strcmp(scope, "auto");
    printf("counted: %s at %s%s; left out: ",
           window ? (!strcmp(window, "run") ? "the whole run" : "the steady state")
                  : "the whole run (--window run)",
           scope_given ? "scope " : "",
           scope_given ? scope : "each run's widest measured scope (--scope auto)");
    if (t->outside_unknown == t->n)
        printf("energy outside the windows counted not known");
    else
        printf("%.4g kWh outside the windows counted", t->outside_j / 3.6e6);
    if (t->outside_unknown && t->outside_unknown < t->n)
        printf(" (not known in %zu)", t->outside_unknown);
    printf(", %.4g kWh measured at wider scopes than counted; not measured: host power in %zu of "
           "%zu %s, node power in %zu of %zu",
           t->wider_j / 3.6e6, t->nm_host, t->n, rows, t->nm_node, t->n);
    if (t->fallbacks)
        printf("; %zu counted over %s own window (no whole-run energy)", t->fallbacks,
               t->fallbacks == 1 ? "its" : "their");
    printf("\n");
}
