/* joules verify — re-derive a document from its provenance: re-hash the
 * inputs, re-run the command that made it, compare figure by figure. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/exit_codes.h"
#include "joules/account.h"
#include "joules/output.h"

static const char *const help =
    "usage: joules verify [-C DIR] [--json] [--max-items N] DOC.json\n"
    "       joules verify --options\n\n"
    "Re-derive a joules document from its provenance block: re-hash every input\n"
    "it lists (path, size, SHA-256), re-run the command that made it (in this\n"
    "directory: relative input paths resolve from here) and compare the two\n"
    "documents figure by figure, and what made them: joules' version, the rules,\n"
    "the method choices (the build is a note; the time is not compared).\n"
    "The document is not trusted: its command is parsed with that command's own\n"
    "options, every output it names (in any spelling) goes to a scratch folder\n"
    "that is removed afterwards, --force is left out, and a command verify cannot\n"
    "keep to its scratch folder (import --into, report --gnuplot,\n"
    "--allow-external-storage, verify itself, an unknown option) is not re-run\n"
    "(security.md). Formulas and cases: accounting.md.\n\n"
    "  -C DIR          work in DIR (where the document was made: its input paths\n"
    "                  are relative to it), DOC.json named from here\n"
    "  --json          print a joules.verify/1 document instead of the lines\n"
    "  --max-items N   list at most N differing figures (default 20; all are counted)\n"
    "  --options       what verify does with each option of each command\n"
    "  -h, --help      this help\n\n"
    "Exit status: 0 the document reproduces; 1 it differs (an input's hash, joules'\n"
    "version, a rule or a figure: each listed); 3 it cannot be re-derived:\n"
    "something is missing (DOC, its provenance, an input) or its command is\n"
    "refused (the reason is printed); 2 usage.\n";

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    char *s = NULL;
    if (vasprintf(&s, f, ap) < 0)
        s = NULL;
    va_end(ap);
    return s;
}

/* ---- what verify re-runs, and how ------------------------------------------------- */

/* What an option of a document's command does, and so what verify does with
 * it (docs/security.md, "verify"): passes it as written (a value, a file it
 * reads), points it at the scratch folder (a file or folder it writes),
 * leaves it out (--force: nothing in the scratch folder is to be replaced)
 * or refuses the document (an option verify cannot confine). */
typedef enum { OPT_PASS, OPT_INPUT, OPT_OUTPUT, OPT_DROP, OPT_REFUSE } opt_role;

typedef struct {
    const char *cmd; /* NULL: every command that has the option */
    const char *opt; /* its long name */
    opt_role role;
    const char *why; /* OPT_REFUSE: what it would do */
} opt_rule;

/* Every option that takes an argument must be here: one that is not is
 * refused (verify does not know what it does with it). Options without an
 * argument pass, but for the ones listed. `joules verify --options` prints
 * the result for every command's table. */
static const opt_rule rules[] = {
    /* the study loop's, and --json/--csv/--slo (cli/common.h) */
    {NULL, "where", OPT_PASS, NULL},
    {NULL, "exclude", OPT_PASS, NULL},
    {NULL, "workers", OPT_PASS, NULL},
    {NULL, "max-rows", OPT_PASS, NULL},
    {NULL, "max-dataset-bytes", OPT_PASS, NULL},
    {NULL, "rules", OPT_INPUT, NULL},
    {NULL, "set-rule", OPT_PASS, NULL},
    {NULL, "names", OPT_PASS, NULL},
    {NULL, "slo", OPT_PASS, NULL},
    {NULL, "csv", OPT_OUTPUT, NULL},
    {NULL, "force", OPT_DROP, NULL},
    {NULL, "window", OPT_PASS, NULL}, /* the accounts' boundary (accounting.md) */
    {NULL, "scope", OPT_PASS, NULL},
    {NULL, "allow-external-storage", OPT_REFUSE,
     "it reads data a trace keeps in other files (re-run it yourself if you trust them)"},
    /* the commands' own */
    {"summarize", "columns", OPT_PASS, NULL},
    {"attribute", "by", OPT_PASS, NULL},
    {"attribute", "calibration", OPT_INPUT, NULL},
    {"attribute", "class", OPT_PASS, NULL},
    {"attribute", "static-w", OPT_PASS, NULL},
    {"attribute", "window", OPT_PASS, NULL},
    {"attribute", "stall-min", OPT_PASS, NULL},
    {"attribute", "sensor-from", OPT_INPUT, NULL},
    {"attribute", "set-warning", OPT_PASS, NULL},
    {"attribute", "budgets", OPT_INPUT, NULL},
    {"attribute", "calibration-mode", OPT_PASS, NULL},
    {"attribute", "clock-correction", OPT_PASS, NULL},
    {"attribute", "host-launch", OPT_PASS, NULL},
    {"attribute", "into", OPT_REFUSE, "it writes into a trace in place"},
    {"budget", "budgets", OPT_INPUT, NULL},
    {"capacity", "power-budget", OPT_PASS, NULL},
    {"capacity", "pue", OPT_INPUT, NULL},
    {"capacity", "grid-intensity", OPT_INPUT, NULL},
    {"card", "model", OPT_PASS, NULL},
    {"card", "grid-intensity", OPT_INPUT, NULL},
    {"card", "pue", OPT_INPUT, NULL},
    {"card", "location", OPT_PASS, NULL},
    {"card", "output", OPT_OUTPUT, NULL},
    {"card", "training-type", OPT_PASS, NULL},
    {"card", "training-energy-kwh", OPT_PASS, NULL},
    {"card", "training-emissions-g", OPT_PASS, NULL},
    {"card", "training-hardware", OPT_PASS, NULL},
    {"compare", "by", OPT_PASS, NULL},
    {"compare", "baseline", OPT_PASS, NULL},
    {"compare", "hold", OPT_PASS, NULL},
    {"compare", "bins", OPT_PASS, NULL},
    {"compare", "latency", OPT_PASS, NULL},
    {"diagnose", "reserve-gb", OPT_PASS, NULL},
    {"emissions", "grid-intensity", OPT_INPUT, NULL},
    {"emissions", "marginal-intensity", OPT_INPUT, NULL},
    {"emissions", "pue", OPT_INPUT, NULL},
    {"emissions", "start", OPT_PASS, NULL},
    {"emissions", "functional-unit", OPT_PASS, NULL},
    {"emissions", "embodied-g-per-gpu-hour", OPT_PASS, NULL},
    {"emissions", "embodied-source", OPT_PASS, NULL},
    {"fit", "grid", OPT_PASS, NULL},
    {"fit", "robust", OPT_PASS, NULL},
    {"fit", "pool", OPT_PASS, NULL},
    {"fit", "regime", OPT_PASS, NULL},
    {"frontier", "latency", OPT_PASS, NULL},
    {"frontier", "energy", OPT_PASS, NULL},
    {"frontier", "tolerance", OPT_PASS, NULL},
    {"label", "output", OPT_OUTPUT, NULL},
    {"predict", "group", OPT_PASS, NULL},
    {"predict", "batch", OPT_PASS, NULL},
    {"predict", "batch-range", OPT_PASS, NULL},
    {"predict", "cap", OPT_PASS, NULL},
    {"predict", "pool", OPT_PASS, NULL},
    {"predict", "what-if", OPT_PASS, NULL},
    {"report", "output", OPT_OUTPUT, NULL},
    {"report", "gnuplot", OPT_REFUSE, "it names a program for joules to run"},
    {"report", "templates", OPT_INPUT, NULL},
    {"report", "formats", OPT_PASS, NULL},
    {"report", "gpus", OPT_PASS, NULL},
    {"report", "baseline", OPT_PASS, NULL},
    {"report", "budgets", OPT_INPUT, NULL},
    {"report", "calibration", OPT_INPUT, NULL},
    /* import, every format: its own, then the formats' (import.md) */
    {"import", "output", OPT_OUTPUT, NULL},
    {"import", "into", OPT_REFUSE, "it changes a trace in place"},
    {"import", "runs", OPT_INPUT, NULL},
    {"import", "runs-out", OPT_OUTPUT, NULL},
    {"import", "set", OPT_PASS, NULL},
    {"import", "timezone", OPT_PASS, NULL},
    {"import", "columns", OPT_PASS, NULL},
    {"import", "power-lag", OPT_PASS, NULL},
    {"import", "auto-min-run", OPT_PASS, NULL},
    {"import", "auto-merge", OPT_PASS, NULL},
    {"import", "power-timeline", OPT_PASS, NULL},
    {"import", "runs-by", OPT_PASS, NULL},
    {"import", "align", OPT_INPUT, NULL},
    {"import", "offset", OPT_PASS, NULL},
    {"import", "side", OPT_PASS, NULL},
    {"import", "kernel-pattern", OPT_PASS, NULL},
};

static const opt_rule *rule_of(const char *cmd, const char *opt)
{
    const opt_rule *any = NULL;
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (!strcmp(rules[i].opt, opt)) {
            if (rules[i].cmd && !strcmp(rules[i].cmd, cmd))
                return &rules[i];
            if (!rules[i].cmd)
                any = &rules[i];
        }
    return any;
}

/* The role of option o of command cmd; *why for a refusal. */
static opt_role role_of(const char *cmd, const struct option *o, const char **why)
{
    const opt_rule *r = rule_of(cmd, o->name);
    *why = r ? r->why : NULL;
    if (r)
        return r->role;
    if (o->has_arg == no_argument)
        return OPT_PASS;
    *why = "verify does not know what the command does with its argument";
    return OPT_REFUSE;
}

#define CLI_X_TABLE(name, summary) {#name, &cli_options_##name},
static const struct {
    const char *name;
    const cli_options *opts;
} tables[] = {CLI_COMMANDS(CLI_X_TABLE)};
#undef CLI_X_TABLE

static const cli_options *table_of(const char *name)
{
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        if (!strcmp(tables[i].name, name))
            return tables[i].opts;
    return NULL;
}

/* The command a document names, confined: its argv for the re-run (the
 * running joules, every option as --name=VALUE, the paths after --), where
 * each output went (from[k] -> to[k] under the scratch folder), or why it
 * is refused. */
typedef struct {
    char **av;
    size_t n, cap;
    char **from, **to;
    size_t n_out;
    char *refused; /* why the command is not re-run (NULL: it is) */
    int oom;
} confined;

static void push(confined *cf, char *s)
{
    if (!s || cf->oom) {
        free(s);
        cf->oom = 1;
        return;
    }
    if (cf->n + 2 > cf->cap) {
        size_t cap = cf->cap ? 2 * cf->cap : 16;
        char **a = realloc(cf->av, cap * sizeof *a);
        if (!a) {
            free(s);
            cf->oom = 1;
            return;
        }
        cf->av = a;
        cf->cap = cap;
    }
    cf->av[cf->n++] = s;
    cf->av[cf->n] = NULL;
}

static void refuse(confined *cf, char *why)
{
    if (!why)
        cf->oom = 1;
    else if (!cf->refused)
        cf->refused = why;
    else
        free(why);
}

static void confined_free(confined *cf)
{
    for (size_t i = 0; i < cf->n; i++)
        free(cf->av[i]);
    for (size_t i = 0; i < cf->n_out; i++) {
        free(cf->from[i]);
        free(cf->to[i]);
    }
    free(cf->av);
    free(cf->from);
    free(cf->to);
    free(cf->refused);
    memset(cf, 0, sizeof *cf);
}

/* A name from the document made safe to show and to use in the scratch
 * folder: [A-Za-z0-9._-] kept, anything else '_', at most 64 bytes. */
static void plain_name(char *out, size_t cap, const char *in)
{
    const char *b = strrchr(in, '/');
    b = b && b[1] ? b + 1 : in;
    size_t k = 0;
    for (; b[k] && k + 1 < cap && k < 64; k++) {
        unsigned char ch = (unsigned char)b[k];
        out[k] = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                         ch == '.' || ch == '-'
                     ? (char)ch
                     : '_';
    }
    out[k] = '\0';
    if (!k || !strcmp(out, ".") || !strcmp(out, ".."))
        snprintf(out, cap, "out");
}

/* An output's value orig moved under tmp: the re-run's name for it. */
static const char *add_output(confined *cf, const char *orig, const char *tmp)
{
    char base[72];
    plain_name(base, sizeof base, orig);
    char *to = fmt("%s/out%zu-%s", tmp, cf->n_out, base);
    char **f = realloc(cf->from, (cf->n_out + 1) * sizeof *f);
    if (f)
        cf->from = f;
    char **t = f ? realloc(cf->to, (cf->n_out + 1) * sizeof *t) : NULL;
    if (t)
        cf->to = t;
    char *from = strdup(orig);
    if (!to || !f || !t || !from) {
        free(to);
        free(from);
        cf->oom = 1;
        return NULL;
    }
    cf->from[cf->n_out] = from;
    cf->to[cf->n_out] = to;
    return cf->to[cf->n_out++];
}

/* Parse the document's command (strings: joules, CMD, ...) against the
 * command table and the command's own getopt table, as the command itself
 * parses it (in order: '-' first in the optstring, so nothing is permuted
 * and each option's words are known), and build what is re-run: the same
 * words, but an output's value moved into the scratch folder and --force
 * left out; any option verify cannot confine refuses the document. */
static void confine(const json_t *command, const char *tmp, confined *cf)
{
    memset(cf, 0, sizeof *cf);
    size_t n = json_array_size(command);
    const char *name = json_string_value(json_array_get(command, 1));
    for (size_t i = 0; i < n; i++)
        if (!json_is_string(json_array_get(command, i)))
            return refuse(cf, fmt("the command's argument %zu is not a string", i));
    if (!name)
        return refuse(cf, fmt("the document names no command"));
    if (!strcmp(name, "verify"))
        return refuse(cf, fmt("it names joules verify, which verify does not re-run (a document "
                              "that verifies itself would re-run it without end)"));
    const cli_options *t = table_of(name);
    if (!t)
        return refuse(cf, fmt("'%s' is not a joules command", name));
    const jl_importer *im = NULL;
    size_t first = 2; /* the command's words: after joules, CMD (and import's FORMAT) */
    if (!strcmp(name, "import")) {
        const char *format = json_string_value(json_array_get(command, 2));
        if (!format || !(im = jl_importer_find(format)))
            return refuse(cf, fmt("'%s' is not an import format", format ? format : ""));
        first = 3;
    }
    struct option *own = im ? cli_import_longopts(im) : NULL;
    const struct option *lo = im ? own : t->longopts;
    char *optstring = fmt("-%s", t->optstring);
    size_t m = n - first + 1;
    char **av = calloc(m + 1, sizeof *av);
    if (!av || !optstring || (im && !own)) {
        free(av);
        free(own);
        free(optstring);
        cf->oom = 1;
        return;
    }
    av[0] = (char *)name;
    for (size_t i = first; i < n; i++)
        av[i - first + 1] = (char *)json_string_value(json_array_get(command, i));
    push(cf, strdup("/proc/self/exe"));
    push(cf, strdup(name));
    if (im)
        push(cf, strdup(im->name));
    optind = 0; /* a full reset of getopt's state */
    opterr = 0;
    int c, li, at = 1;
    while (!cf->refused && !cf->oom &&
           (li = -1, c = getopt_long((int)m, av, optstring, lo, &li)) != -1) {
        const char *word = av[at] ? av[at] : "?";
        if (optind == at) { /* inside a cluster of short options (-hx) */
            refuse(cf, fmt("'%s': verify re-runs short options one to a word", word));
            break;
        }
        int words = optind - at;
        if (c == 1) { /* a PATH */
            push(cf, strdup(word));
            at = optind;
            continue;
        }
        if (c == '?' || c == ':') {
            refuse(cf, fmt(c == '?' ? "unknown option '%s' of joules %s"
                                    : "option '%s' of joules %s lacks its argument",
                           word, name));
            break;
        }
        const struct option *o = li >= 0 ? &lo[li] : NULL;
        for (size_t k = 0; !o && lo[k].name; k++)
            if (lo[k].val == c && !lo[k].flag)
                o = &lo[k];
        if (!o) { /* no command has a short option without a long name */
            refuse(cf, fmt("option '-%c' of joules %s has no long name", c, name));
            break;
        }
        const char *why = NULL;
        opt_role role = role_of(name, o, &why);
        if (role == OPT_REFUSE) {
            refuse(cf, fmt("--%s: %s", o->name, why));
        } else if (role == OPT_OUTPUT && optarg && strcmp(optarg, "-")) {
            const char *to = add_output(cf, optarg, tmp);
            if (words == 2) { /* -o FILE, --csv FILE */
                push(cf, strdup(word));
                push(cf, to ? strdup(to) : NULL);
            } else if (to) { /* --csv=FILE, -oFILE */
                const char *eq = word[1] == '-' ? strchr(word, '=') : word + 1;
                push(cf, fmt("%.*s%s", (int)(eq - word + 1), word, to));
            }
        } else if (role != OPT_DROP) {
            for (int k = at; k < optind; k++)
                push(cf, strdup(av[k]));
        }
        at = optind;
    }
    for (int k = at; !cf->refused && k < (int)m; k++) /* what follows "--" */
        push(cf, strdup(av[k]));
    free(av);
    free(own);
    free(optstring);
    optind = 1;
}

/* `joules verify --options`: what verify does with each option of each
 * command's table (import: of every format). */
static void print_options(void)
{
    static const char *const words[] = {"passed", "read (passed)", "into the scratch folder",
                                        "left out", "refused"};
    size_t ni = 0;
    const jl_importer *const *imps = jl_importers(&ni);
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        const char *name = tables[i].name;
        if (!strcmp(name, "verify")) {
            printf("%-10s (not re-run: a document that verifies itself would re-run it without "
                   "end)\n",
                   name);
            continue;
        }
        for (size_t f = 0; f < (!strcmp(name, "import") ? ni : 1); f++) {
            struct option *own = !strcmp(name, "import") ? cli_import_longopts(imps[f]) : NULL;
            const struct option *lo = own ? own : tables[i].opts->longopts;
            for (size_t k = 0; lo && lo[k].name; k++) {
                const char *why = NULL;
                opt_role r = role_of(name, &lo[k], &why);
                printf("%-10s %-18s --%-24s %s%s%s\n", name, own ? imps[f]->name : "", lo[k].name,
                       words[r], why ? ": " : "", why ? why : "");
            }
            free(own);
        }
    }
}

/* The re-run wrote its outputs to other names: in its document, a string
 * that names one (a path under it, a message that says where it wrote) is
 * put back as the original names it. */
typedef struct {
    char *text;
    size_t len;
} membuf;

static void put_back_outputs(json_t *v, const confined *cf)
{
    if (json_is_object(v) || json_is_array(v)) {
        const char *k;
        json_t *x;
        size_t i;
        if (json_is_object(v))
            json_object_foreach(v, k, x)
                put_back_outputs(x, cf);
        else
            json_array_foreach(v, i, x)
                put_back_outputs(x, cf);
        return;
    }
    for (size_t i = 0; json_is_string(v) && i < cf->n_out; i++) {
        const char *s = json_string_value(v), *hit = strstr(s, cf->to[i]);
        if (!hit)
            continue;
        /* every mention, in a path or inside a message */
        membuf b = {NULL, 0};
        FILE *f = open_memstream(&b.text, &b.len);
        size_t n = strlen(cf->to[i]);
        for (; f && hit; s = hit + n, hit = strstr(s, cf->to[i]))
            fprintf(f, "%.*s%s", (int)(hit - s), s, cf->from[i]);
        if (f) {
            fputs(s, f);
            fclose(f);
            json_string_set(v, b.text);
        }
        free(b.text);
    }
}

/* Where the re-made document is: the re-run's stdout, or the output the
 * document was written to (or a file under an output folder). */
static char *made_at(const confined *cf, const char *doc, const char *tmp)
{
    char *doc_real = realpath(doc, NULL);
    char *made = NULL;
    for (size_t i = 0; doc_real && !made && i < cf->n_out; i++) {
        char *out_real = realpath(cf->from[i], NULL);
        size_t len = out_real ? strlen(out_real) : 0;
        if (out_real && !strcmp(doc_real, out_real))
            made = strdup(cf->to[i]);
        else if (out_real && !strncmp(doc_real, out_real, len) && doc_real[len] == '/')
            made = fmt("%s%s", cf->to[i], doc_real + len);
        free(out_real);
    }
    free(doc_real);
    return made ? made : fmt("%s/stdout", tmp);
}

/* Run argv with stdout and stderr into files under tmp; its exit status,
 * or -1 when it could not run. */
static int run_joules(char **av, const char *tmp)
{
    char out[PATH_MAX], err[PATH_MAX];
    snprintf(out, sizeof out, "%s/stdout", tmp);
    snprintf(err, sizeof err, "%s/stderr", tmp);
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
            _exit(127);
        /* one process, even when verify itself runs under mpirun (cli/mpi.h) */
        setenv("JOULES_NO_MPI", "1", 1);
        execv("/proc/self/exe", av);
        _exit(127);
    }
    /* an interrupt stops it before the scratch folder is removed */
    jl_atomic_register_child(pid);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            jl_atomic_unregister_child(pid);
            return -1;
        }
    jl_atomic_unregister_child(pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* A string of the document shown on a terminal: control bytes as '?' (a
 * command line from a file must not move the cursor or retitle a window). */
static void print_safe(const char *s)
{
    for (; *s; s++)
        putchar((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s);
}

static const char *verdict_word(jl_verify_verdict v)
{
    return v == JL_VERIFY_SAME      ? "reproduces"
           : v == JL_VERIFY_DIFFERS ? "differs"
           : v == JL_VERIFY_REFUSED ? "refused"
                                    : "missing";
}

static void print_lines(const char *doc, const confined *cf, const jl_verify_report *r, int ran,
                        int rerun_rc)
{
    printf("verify ");
    print_safe(doc);
    printf(": %zu input%s re-hashed", r->n_inputs, r->n_inputs == 1 ? "" : "s");
    if (ran) {
        printf("; re-ran `joules");
        for (size_t i = 1; i < cf->n; i++) {
            putchar(' ');
            print_safe(cf->av[i]);
        }
        printf("` (exit %d); %zu figures compared", rerun_rc, r->n_figures);
    }
    putchar('\n');
    if (cf->refused) {
        printf("refused  the command is not re-run: ");
        print_safe(cf->refused);
        putchar('\n');
    }
    for (size_t i = 0; i < r->n; i++) {
        const jl_verify_item *it = &r->items[i];
        printf("%-8s ", it->what);
        print_safe(it->where);
        printf(": ");
        print_safe(it->before ? it->before : "(absent)");
        printf(" -> ");
        print_safe(it->after ? it->after : "(absent)");
        putchar('\n');
    }
    printf("verdict: %s\n", verdict_word(r->verdict));
}

static json_t *report_json(const char *doc, const confined *cf, const jl_verify_report *r, int ran,
                           int rerun_rc)
{
    json_t *items = json_array();
    for (size_t i = 0; items && i < r->n; i++) {
        const jl_verify_item *it = &r->items[i];
        json_array_append_new(items,
                              json_pack("{s:s,s:s,s:s?,s:s?}", "what", it->what, "where", it->where,
                                        "before", it->before, "after", it->after));
    }
    json_t *rerun = NULL;
    if (ran) {
        rerun = json_array();
        for (size_t i = 1; rerun && i < cf->n; i++)
            json_array_append_new(rerun, json_string(cf->av[i]));
    }
    return json_pack("{s:s,s:s,s:s,s:I,s:I,s:b,s:o,s:o,s:o,s:o}", "schema", "joules.verify/1",
                     "document", doc, "verdict", verdict_word(r->verdict), "inputs",
                     (json_int_t)r->n_inputs, "figures", (json_int_t)r->n_figures, "rerun", ran,
                     "rerun_exit", ran ? json_integer(rerun_rc) : json_null(), "rerun_command",
                     rerun ? rerun : json_null(), "refused",
                     cf->refused ? json_string(cf->refused) : json_null(), "items",
                     items ? items : json_array());
}

enum { OPT_JSON = CLI_OPT_FIRST_FREE, OPT_MAX, OPT_OPTIONS };
static const struct option longopts[] = {
    {"json", no_argument, NULL, OPT_JSON},
    {"max-items", required_argument, NULL, OPT_MAX},
    {"options", no_argument, NULL, OPT_OPTIONS},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};
const cli_options cli_options_verify = {":hC:", longopts};

/* Re-run the confined command in the scratch folder tmp and compare. */
static jl_status rerun(const confined *cf, const json_t *doc, const char *doc_path, const char *tmp,
                       size_t max_items, jl_verify_report *r, int *ran, int *rerun_rc)
{
    char *made = made_at(cf, doc_path, tmp);
    if (!made)
        return JL_ENOMEM;
    *rerun_rc = run_joules(cf->av, tmp);
    *ran = *rerun_rc >= 0;
    jl_status st = JL_OK;
    json_error_t je;
    json_t *twin = *ran ? json_load_file(made, 0, &je) : NULL;
    if (twin) {
        put_back_outputs(twin, cf);
        st = jl_verify_documents(doc, twin, max_items, r);
    } else {
        char err[PATH_MAX];
        snprintf(err, sizeof err, "%s/stderr", tmp);
        FILE *f = fopen(err, "r");
        char line[512] = "";
        if (f && !fgets(line, sizeof line, f))
            line[0] = 0;
        if (f)
            fclose(f);
        line[strcspn(line, "\n")] = 0;
        fprintf(stderr, "joules verify: the command made no document%s%s\n", *line ? ": " : "",
                line);
        if (r->verdict == JL_VERIFY_SAME)
            r->verdict = JL_VERIFY_DIFFERS; /* nothing to compare with */
    }
    json_decref(twin);
    free(made);
    return st;
}

/* Inputs missing because the document was made in another folder (its
 * paths are relative to that one): the folder beside the document, or
 * above it, that holds every missing input, as a command to type
 * (`joules verify -C DIR DOC`, DOC named from here); else what to do. */
static void missing_hint(const char *cmd, const char *doc_path, const char *doc_abs,
                         const char *dir, const jl_verify_report *r)
{
    fflush(stdout); /* after the lines it explains */
    size_t n_rel = 0;
    for (size_t i = 0; i < r->n; i++)
        n_rel += !strcmp(r->items[i].what, "missing") && r->items[i].where &&
                 r->items[i].where[0] != '/';
    if (!n_rel)
        return;
    char *abs = doc_abs ? strdup(doc_abs) : NULL, cand[PATH_MAX];
    char *slash = abs ? strrchr(abs, '/') : NULL;
    if (slash)
        *slash = '\0';
    for (int up = 0; abs && up < 4; up++) {
        if (!*abs)
            break;
        int all = 1;
        for (size_t i = 0; all && i < r->n; i++) {
            const jl_verify_item *it = &r->items[i];
            if (strcmp(it->what, "missing") || !it->where || it->where[0] == '/')
                continue;
            snprintf(cand, sizeof cand, "%s/%s", abs, it->where);
            all = access(cand, F_OK) == 0;
        }
        if (all) {
            char cwd[PATH_MAX];
            const char *here = getcwd(cwd, sizeof cwd) && !dir ? cwd : NULL;
            /* the folder as short as it reads from here */
            const char *shown = abs;
            size_t hl = here ? strlen(here) : 0;
            if (here && !strcmp(abs, here))
                shown = ".";
            else if (here && !strncmp(abs, here, hl) && abs[hl] == '/')
                shown = abs + hl + 1;
            char *qd = jl_shell_quote(shown), *qdoc = jl_shell_quote(doc_path);
            fprintf(stderr,
                    "joules %s: the missing inputs are where the document was made; from here: "
                    "joules verify -C %s %s\n",
                    cmd, qd ? qd : shown, qdoc ? qdoc : doc_path);
            free(qd);
            free(qdoc);
            free(abs);
            return;
        }
        slash = strrchr(abs, '/');
        if (!slash)
            break;
        *slash = '\0';
    }
    free(abs);
    fprintf(stderr,
            "joules %s: %zu input%s named relative to the folder the document was made in: run "
            "verify there, or name it with -C DIR (DOC.json named from here)\n",
            cmd, n_rel, n_rel == 1 ? " is" : "s are");
}

int cli_cmd_verify(int argc, char **argv)
{
    const char *cmd = "verify", *dir = NULL;
    int json = 0, c;
    long max_items = 20;
    optind = 1;
    while ((c = getopt_long(argc, argv, cli_options_verify.optstring, longopts, NULL)) != -1) {
        int rc = 0;
        if (c == 'C') {
            dir = optarg;
        } else if (c == 'h') {
            cli_help(cmd, help);
            return CLI_EXIT_OK;
        } else if (c == OPT_JSON) {
            json = 1;
        } else if (c == OPT_MAX) {
            rc = cli_parse_long(cmd, "--max-items", optarg, 0, 1000000, &max_items);
        } else if (c == OPT_OPTIONS) {
            print_options();
            return CLI_EXIT_OK;
        } else {
            return cli_bad_option(cmd, c, argv);
        }
        if (rc)
            return rc;
    }
    if (argc - optind != 1)
        return cli_usage_error(cmd, "give one DOC.json");
    const char *doc_path = argv[optind];
    jl_error *lerr = NULL;
    json_t *doc = jl_verify_load(doc_path, &lerr);
    if (!doc) {
        cli_print_error(cmd, lerr);
        jl_error_free(lerr);
        return CLI_EXIT_NOINPUT;
    }
    char *doc_abs = realpath(doc_path, NULL); /* before -C moves */
    if (dir && chdir(dir) != 0) {
        fprintf(stderr, "joules verify: -C %s: %s\n", dir, strerror(errno));
        free(doc_abs);
        json_decref(doc);
        return CLI_EXIT_NOINPUT;
    }
    const json_t *prov = json_object_get(doc, "provenance");
    const json_t *command = json_object_get(prov, "command");
    if (!json_is_array(command) || json_array_size(command) < 2) {
        fprintf(stderr,
                "joules verify: %s: no provenance block with a command (made by a "
                "joules without provenance, or not a joules document)\n",
                doc_path);
        free(doc_abs);
        json_decref(doc);
        return CLI_EXIT_NOINPUT;
    }
    /* the scratch folder: removed on every way out, an interrupt too (the
     * re-run is stopped first) */
    cli_install_signal_cleanup();
    const char *tdir = getenv("TMPDIR");
    char *tmp = fmt("%s/joules-verify-XXXXXX", tdir && *tdir == '/' ? tdir : "/tmp");
    int made_tmp = tmp && mkdtemp(tmp) != NULL;
    if (made_tmp && jl_atomic_register_dir(tmp) != 0) {
        rmdir(tmp);
        made_tmp = 0;
    }
    if (!made_tmp) {
        fprintf(stderr, "joules verify: cannot make a scratch folder: %s\n",
                tmp ? strerror(errno) : "out of memory");
        free(tmp);
        free(doc_abs);
        json_decref(doc);
        return CLI_EXIT_OUTPUT;
    }
    unsetenv("POSIXLY_CORRECT"); /* the command is parsed as the command parses it */
    confined cf;
    confine(command, tmp, &cf);
    jl_verify_report r = {0};
    r.check_resolved = !dir; /* -C DIR: the inputs are where DIR says */
    jl_status st = cf.oom ? JL_ENOMEM : jl_verify_inputs(prov, &r);
    int ran = 0, rerun_rc = -1, rc = 0;
    if (st == JL_OK && cf.refused) {
        fprintf(stderr, "joules verify: %s: not re-run: %s\n", doc_path, cf.refused);
        r.verdict = JL_VERIFY_REFUSED;
    } else if (st == JL_OK && r.verdict != JL_VERIFY_MISSING) {
        st = rerun(&cf, doc, doc_abs ? doc_abs : doc_path, tmp, (size_t)max_items, &r, &ran,
                   &rerun_rc);
    }
    jl_remove_tree(tmp, NULL);
    jl_atomic_unregister_dir(tmp);
    free(tmp);
    if (st == JL_OK && r.verdict == JL_VERIFY_MISSING)
        missing_hint(cmd, doc_path, doc_abs, dir, &r);
    free(doc_abs);
    if (st != JL_OK) {
        rc = cli_oom(cmd);
    } else if (json) {
        json_t *out = report_json(doc_path, &cf, &r, ran, rerun_rc);
        rc = cli_write_document(cmd, out);
        json_decref(out);
    } else {
        print_lines(doc_path, &cf, &r, ran, rerun_rc);
    }
    if (!rc)
        rc = r.verdict == JL_VERIFY_SAME      ? CLI_EXIT_OK
             : r.verdict == JL_VERIFY_DIFFERS ? 1
                                              : CLI_EXIT_NOINPUT;
    confined_free(&cf);
    jl_verify_report_clear(&r);
    json_decref(doc);
    return rc;
}
