/* The provenance block every document of this command carries
 * (joules/account.h; docs/accounting.md): set up once in main() before the
 * command runs, completed by the study commands (rules, method choices),
 * made (inputs hashed) only when a document is written. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/common.h"
#include "joules/account.h"

static jl_provenance *prov;
static json_t *block;

static const json_t *give_block(void *ctx)
{
    (void)ctx;
    if (!block && prov)
        block = jl_provenance_to_json(prov);
    return block;
}

/* Options whose value is an output (or a tool), never an input. */
static int output_option(const char *a)
{
    static const char *const outs[] = {"-o", "--output", "--csv", "--gnuplot", "--svg", "--png"};
    for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++) {
        size_t n = strlen(outs[i]);
        if (!strncmp(a, outs[i], n) && (a[n] == '\0' || a[n] == '='))
            return a[n] == '\0' ? 2 : 1; /* 2: the value is the next argument */
    }
    return 0;
}

static int exists(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && (S_ISREG(sb.st_mode) || S_ISDIR(sb.st_mode));
}

static void add_arg(const char *a)
{
    const char *v = a;
    if (a[0] == '-' && a[1] == '-' && strchr(a, '='))
        v = strchr(a, '=') + 1; /* --rules=FILE */
    if (exists(v)) {
        jl_provenance_add_input(prov, v);
        return;
    }
    const char *colon = strchr(v, ':'); /* explain's FILE:RUN and FILE:KEY=V */
    if (colon && colon > v) {
        char *f = strndup(v, (size_t)(colon - v));
        if (f && exists(f))
            jl_provenance_add_input(prov, f);
        free(f);
    }
}

void cli_provenance_begin(int argc, char **argv)
{
    if (!(prov = jl_provenance_new()))
        return;
    jl_provenance_set_command(prov, argc, argv);
    for (int i = 2; i < argc; i++) {
        int o = output_option(argv[i]);
        if (o == 2)
            i++;
        else if (!o && argv[i][0] != '-')
            add_arg(argv[i]);
        else if (!o && !strncmp(argv[i], "--", 2) && strchr(argv[i], '='))
            add_arg(argv[i]);
        /* an option's value ("--rules FILE") is looked at as the next
         * argument: a file is an input, anything else is not */
    }
    jl_output_set_provenance(give_block, NULL);
}

void cli_provenance_study(const cli_study *cs)
{
    if (!prov)
        return;
    jl_provenance_set_rules(prov, &cs->rules);
    const jl_summary_options *so = &cs->opt.summary;
    json_t *m = json_pack("{s:f,s:f,s:f,s:f}", "occupancy_share", so->occupancy_share,
                          "disagreement_warn", so->disagreement_warn, "counter_restart_min_drop_j",
                          so->counter_restart_min_drop_j, "published_mark", so->published_mark);
    if (m && so->custom_window) /* summarize --window: only then, so other documents keep theirs */
        json_object_set_new(m, "window",
                            json_pack("[oo]", jl_json_number(so->window[0]),
                                      jl_json_number(so->window[1])));
    if (m)
        jl_provenance_set_method(prov, "summary", m);
    json_decref(m);
    json_t *names = json_string(cs->names == JL_NAMES_MLENERGY ? "mlenergy" : "joules");
    jl_provenance_set_method(prov, "names", names);
    json_decref(names);
}

void cli_provenance_method(const char *key, const json_t *v)
{
    if (prov)
        jl_provenance_set_method(prov, key, v);
}
