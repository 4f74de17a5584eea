/* joules explain — why run A costs more energy per token than run B. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/exit_codes.h"
#include "joules/explain.h"

static const char *const help =
    "usage: joules explain [--json] RUN_A RUN_B\n\n"
    "Why A costs more (or less) energy per token (per item for diffusion) than B:\n"
    "the measured ratio split into factors that multiply — GPU count, static and\n"
    "dynamic power per GPU, step time (batch / throughput) and batch — each tied\n"
    "to the knobs (model, gpu_model, num_gpus, precision, max_batch_size, task)\n"
    "that differ between the two runs. explain.md has the formulas.\n\n"
    "RUN is FILE:RUN (the run's name under /runs, e.g.\n"
    "  traces/h100/h100-qwen3-8b-shape-chat.h5:b0004)\n"
    "or FILE:KEY=VALUE[,KEY=VALUE...] — attribute clauses that must pick exactly\n"
    "one run of FILE, e.g.\n"
    "  mlenergy.h5:model=openai/gpt-oss-120b,task=gpqa,gpu_model=H100,num_gpus=2,max_batch_size=64\n\n"
    "  --json      print the joules.explain/1 document\n"
    "  --allow-external-storage\n"
    "              read datasets a trace keeps in other files (HDF5 external\n"
    "              storage, virtual datasets): only for traces you trust (default:\n"
    "              refused, security.md)\n"
    "  --require-valid  exit 1 when either run is not valid (check.md, \"Reason codes\")\n"
    "  -h, --help  this help\n";

/* Load the run a spec names into *out (a copy). Returns 0 or an exit code
 * (printed). */
static int load_run(const char *cmd, const char *spec, const jl_study_options *opt,
                    jl_summary **out)
{
    jl_error_list errors = {0};
    jl_error *err = NULL;
    int rc = 0;
    jl_status st = jl_study_load_run(spec, opt, out, &errors, &err);
    for (size_t i = 0; i < errors.count; i++)
        cli_print_error(cmd, errors.items[i]);
    jl_error_list_clear(&errors);
    if (st == JL_EUSAGE && err)
        rc = cli_usage_error(cmd, "%s", err->message);
    else if (st != JL_OK && (err || st == JL_ENOMEM))
        return cli_fail(cmd, st, err);
    else if (st != JL_OK)
        rc = cli_exit_for_status(st); /* the file's errors, printed above */
    jl_error_free(err);
    return rc;
}

/* The factors as a table under the sentence: for people who scan rather
 * than read. Their product is the measured ratio (shown in the last row). */
static void print_factor_table(const jl_explanation *x)
{
    printf("\n  %-22s %14s %14s %9s %7s  %s\n", "factor", "A", "B", "x A/B", "share",
           "knobs that differ");
    for (int i = 0; i < JL_EXPLAIN_FACTOR_COUNT; i++) {
        const jl_explain_factor *f = &x->factors[i];
        char a[32], b[32], share[16];
        snprintf(a, sizeof a, "%.4g %s", f->value_a, f->unit ? f->unit : "");
        snprintf(b, sizeof b, "%.4g %s", f->value_b, f->unit ? f->unit : "");
        if (isfinite(f->share))
            snprintf(share, sizeof share, "%.0f%%", 100 * f->share);
        else
            snprintf(share, sizeof share, "-");
        printf("  %-22s %14s %14s %8.3fx %7s  ", jl_explain_factor_name(f->id), a, b, f->ratio,
               share);
        for (size_t k = 0; k < f->n_knobs; k++)
            printf("%s%s", k ? ", " : "", x->knobs[f->knobs[k]].knob);
        printf("%s\n", f->n_knobs ? "" : "-");
    }
    printf("  %-22s %14.4g %14.4g %8.3fx %7s  (J/%s, measured)\n", "energy per work", x->energy_a,
           x->energy_b, x->ratio, "100%", x->work_unit);
}

enum { OPT_JSON = CLI_OPT_FIRST_FREE };
static const struct option longopts[] = {
    {"json", no_argument, NULL, OPT_JSON},
    {"allow-external-storage", no_argument, NULL, CLI_OPT_ALLOW_EXTERNAL},
    {"require-valid", no_argument, NULL, CLI_OPT_REQUIRE_VALID},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};
const cli_options cli_options_explain = {":h", longopts};

int cli_cmd_explain(int argc, char **argv)
{
    const char *cmd = "explain";
    int json = 0, c, rc = 0, require_valid = 0;
    optind = 1; /* no study options: not the shared loop */
    while ((c = getopt_long(argc, argv, cli_options_explain.optstring, longopts, NULL)) != -1) {
        switch (c) {
        case 'h': cli_help("explain", help); return CLI_EXIT_OK;
        case OPT_JSON: json = 1; break;
        case CLI_OPT_ALLOW_EXTERNAL: jl_trace_default_allow_external_storage(1); break;
        case CLI_OPT_REQUIRE_VALID: require_valid = 1; break;
        default: return cli_bad_option(cmd, c, argv);
        }
    }
    if (argc - optind != 2)
        return cli_usage_error(cmd, "expected two runs (RUN_A RUN_B), got %d", argc - optind);
    jl_study_options opt;
    jl_study_options_default(&opt);
    jl_summary *a = NULL, *b = NULL;
    jl_descriptors *desc = NULL;
    jl_explanation *x = NULL;
    jl_error *err = NULL;
    if ((rc = load_run(cmd, argv[optind], &opt, &a)) ||
        (rc = load_run(cmd, argv[optind + 1], &opt, &b)))
        goto end;
    jl_summary *pair[2] = {a, b};
    jl_summary_list both = {pair, 2, 2};
    if ((rc = cli_require_valid(cmd, require_valid, &both)))
        goto end;
    if (jl_descriptors_load(NULL, &desc, &err) != JL_OK) {
        desc = NULL;
        jl_error_free(err);
        err = NULL;
    }
    jl_status st = jl_explain(a, b, desc, &x, &err);
    if (st != JL_OK) {
        rc = cli_fail(cmd, st, err);
        err = NULL;
        goto end;
    }
    if (json) {
        rc = cli_print_document(cmd, jl_explain_document(x), NULL);
    } else {
        printf("%s\n", x->sentence);
        print_factor_table(x);
        for (size_t i = 0; i < x->n_notes; i++)
            printf("note: %s\n", x->notes[i]);
        cli_print_boundaries(&both);
    }
end:
    jl_error_free(err);
    jl_explanation_free(x);
    jl_descriptors_free(desc);
    jl_summary_free(a);
    jl_summary_free(b);
    return rc;
}
