/* joules verify — re-derive a document from its provenance: re-hash the
 * inputs, re-run the command that made it, compare figure by figure. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
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
    "usage: joules verify [-C DIR] [--json] [--max-items N] DOC.json\n\n"
    "Re-derive a joules document from its provenance block: re-hash every input\n"
    "it lists (path, size, SHA-256), re-run the command that made it (in this\n"
    "directory: relative input paths resolve from here; outputs go to a scratch\n"
    "folder) and compare the two documents figure by figure, and what made them:\n"
    "joules' version, the rules, the method choices (the build is a note; the\n"
    "time is not compared). Formulas and cases: accounting.md.\n\n"
    "  -C DIR          work in DIR (where the document was made: its input paths\n"
    "                  are relative to it), DOC.json named from here\n"
    "  --json          print a joules.verify/1 document instead of the lines\n"
    "  --max-items N   list at most N differing figures (default 20; all are counted)\n"
    "  -h, --help      this help\n\n"
    "Exit status: 0 the document reproduces; 1 it differs (an input's hash, joules'\n"
    "version, a rule or a figure: each listed); 3 something is missing (DOC, its\n"
    "provenance, an input) so it cannot be re-derived; 2 usage.\n";

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

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
    (void)sb;
    (void)flag;
    (void)f;
    return remove(p);
}

/* The command of prov as argv (NULL-terminated, argv[0] = this joules),
 * its outputs (-o/--output/--csv) moved under tmp. *made: where the
 * document will be (tmp/stdout, or under the -o output when doc was
 * written there). NULL on out of memory or a malformed command. */
static char **rerun_argv(const json_t *cmd, const char *doc, const char *tmp, char **made)
{
    size_t n = json_array_size(cmd);
    char **av = calloc(n + 1, sizeof *av);
    char *doc_real = realpath(doc, NULL);
    if (!av || n < 2)
        goto fail;
    *made = fmt("%s/stdout", tmp);
    av[0] = strdup("/proc/self/exe");
    for (size_t i = 1; i < n; i++) {
        const char *a = json_string_value(json_array_get(cmd, i));
        if (!a)
            goto fail;
        int is_o = !strcmp(a, "-o") || !strcmp(a, "--output"), is_csv = !strcmp(a, "--csv");
        if ((is_o || is_csv) && i + 1 < n) {
            av[i] = strdup(a);
            const char *v = json_string_value(json_array_get(cmd, i + 1));
            if (!v)
                goto fail;
            i++;
            if (is_csv && !strcmp(v, "-")) {
                av[i] = strdup(v);
                continue;
            }
            av[i] = fmt("%s/%s%zu", tmp, is_o ? "out" : "csv", i);
            char *out_real = realpath(v, NULL);
            size_t len = out_real ? strlen(out_real) : 0;
            if (is_o && doc_real && out_real && !strcmp(doc_real, out_real)) {
                free(*made);
                *made = strdup(av[i]);
            } else if (is_o && doc_real && out_real && !strncmp(doc_real, out_real, len) &&
                       doc_real[len] == '/') {
                free(*made);
                *made = fmt("%s%s", av[i], doc_real + len);
            }
            free(out_real);
        } else {
            av[i] = strdup(a);
        }
    }
    for (size_t i = 0; i < n; i++)
        if (!av[i])
            goto fail;
    free(doc_real);
    return av;
fail:
    for (size_t i = 0; av && i < n; i++)
        free(av[i]);
    free(av);
    free(doc_real);
    return NULL;
}

/* The re-run wrote its outputs to other names: in its document, a string
 * that names one (or a path under it) is put back as the original names it. */
static void put_back_outputs(json_t *v, const json_t *cmd, char *const *av)
{
    if (json_is_object(v) || json_is_array(v)) {
        const char *k;
        json_t *x;
        size_t i;
        if (json_is_object(v))
            json_object_foreach(v, k, x)
                put_back_outputs(x, cmd, av);
        else
            json_array_foreach(v, i, x)
                put_back_outputs(x, cmd, av);
        return;
    }
    const char *s = json_string_value(v);
    for (size_t i = 1; s && av[i]; i++) {
        const char *orig = json_string_value(json_array_get(cmd, i));
        size_t n = strlen(av[i]);
        if (!orig || !strcmp(orig, av[i]) || strncmp(s, av[i], n) || (s[n] && s[n] != '/'))
            continue;
        char *back = fmt("%s%s", orig, s + n);
        if (back)
            json_string_set(v, back);
        free(back);
        return;
    }
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
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void print_lines(const char *doc, const json_t *cmd, const jl_verify_report *r, int ran,
                        int rerun_rc)
{
    printf("verify %s: %zu input%s re-hashed", doc, r->n_inputs, r->n_inputs == 1 ? "" : "s");
    if (ran)
        printf("; re-ran `joules");
    for (size_t i = 1; ran && i < json_array_size(cmd); i++)
        printf(" %s", json_string_value(json_array_get(cmd, i)));
    if (ran)
        printf("` (exit %d); %zu figures compared", rerun_rc, r->n_figures);
    putchar('\n');
    for (size_t i = 0; i < r->n; i++) {
        const jl_verify_item *it = &r->items[i];
        printf("%-8s %s: %s -> %s\n", it->what, it->where, it->before ? it->before : "(absent)",
               it->after ? it->after : "(absent)");
    }
    printf("verdict: %s\n", r->verdict == JL_VERIFY_SAME      ? "reproduces"
                            : r->verdict == JL_VERIFY_DIFFERS ? "differs"
                                                              : "missing");
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

static json_t *report_json(const char *doc, const jl_verify_report *r, int ran, int rerun_rc)
{
    json_t *items = json_array();
    for (size_t i = 0; items && i < r->n; i++) {
        const jl_verify_item *it = &r->items[i];
        json_array_append_new(items,
                              json_pack("{s:s,s:s,s:s?,s:s?}", "what", it->what, "where", it->where,
                                        "before", it->before, "after", it->after));
    }
    return json_pack("{s:s,s:s,s:s,s:I,s:I,s:b,s:o,s:o}", "schema", "joules.verify/1", "document",
                     doc, "verdict",
                     r->verdict == JL_VERIFY_SAME      ? "reproduces"
                     : r->verdict == JL_VERIFY_DIFFERS ? "differs"
                                                       : "missing",
                     "inputs", (json_int_t)r->n_inputs, "figures", (json_int_t)r->n_figures,
                     "rerun", ran, "rerun_exit", ran ? json_integer(rerun_rc) : json_null(),
                     "items", items ? items : json_array());
}

int cli_cmd_verify(int argc, char **argv)
{
    enum { OPT_JSON = CLI_OPT_FIRST_FREE, OPT_MAX };
    static const struct option longopts[] = {
        {"json", no_argument, NULL, OPT_JSON},
        {"max-items", required_argument, NULL, OPT_MAX},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "verify", *dir = NULL;
    int json = 0, c;
    long max_items = 20;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":hC:", longopts, NULL)) != -1) {
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
        } else {
            return cli_bad_option(cmd, c, argv);
        }
        if (rc)
            return rc;
    }
    if (argc - optind != 1)
        return cli_usage_error(cmd, "give one DOC.json");
    const char *doc_path = argv[optind];
    json_error_t je;
    json_t *doc = json_load_file(doc_path, 0, &je);
    if (!doc) {
        fprintf(stderr, "joules verify: %s:%d:%d: %s\n", doc_path, je.line, je.column, je.text);
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
    jl_verify_report r = {0};
    jl_status st = jl_verify_inputs(prov, &r);
    int ran = 0, rerun_rc = -1, rc = 0;
    char tmp[] = "/tmp/joules-verify-XXXXXX";
    char *made = NULL;
    if (st == JL_OK && r.verdict != JL_VERIFY_MISSING && mkdtemp(tmp)) {
        char **av = rerun_argv(command, doc_abs ? doc_abs : doc_path, tmp, &made);
        if (!av || !made) {
            st = JL_ENOMEM;
        } else {
            rerun_rc = run_joules(av, tmp);
            ran = rerun_rc >= 0;
            json_t *twin = ran ? json_load_file(made, 0, &je) : NULL;
            if (twin) {
                put_back_outputs(twin, command, av);
                st = jl_verify_documents(doc, twin, (size_t)max_items, &r);
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
                fprintf(stderr, "joules verify: the command made no document%s%s\n",
                        *line ? ": " : "", line);
                if (r.verdict == JL_VERIFY_SAME)
                    r.verdict = JL_VERIFY_DIFFERS; /* nothing to compare with */
            }
            json_decref(twin);
        }
        for (size_t i = 0; av && av[i]; i++)
            free(av[i]);
        free(av);
        nftw(tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    }
    free(made);
    if (st != JL_OK) {
        rc = cli_oom(cmd);
    } else if (json) {
        json_t *out = report_json(doc_path, &r, ran, rerun_rc);
        rc = cli_write_document(cmd, out);
        json_decref(out);
    } else {
        print_lines(doc_path, command, &r, ran, rerun_rc);
    }
    if (st == JL_OK && r.verdict == JL_VERIFY_MISSING)
        missing_hint(cmd, doc_path, doc_abs, dir, &r);
    free(doc_abs);
    if (!rc)
        rc = r.verdict == JL_VERIFY_SAME      ? CLI_EXIT_OK
             : r.verdict == JL_VERIFY_DIFFERS ? 1
                                              : CLI_EXIT_NOINPUT;
    jl_verify_report_clear(&r);
    json_decref(doc);
    return rc;
}
