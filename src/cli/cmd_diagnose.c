/* joules diagnose — per run: utilisation, static waste, batch ceiling,
 * headroom, and what would change the energy (model-predicted). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/exit_codes.h"
#include "joules/diagnose.h"

static const char *const help =
    "usage: joules diagnose [--json] [--reserve-gb X] [options] PATH...\n\n"
    "For every run: utilisation (from the group's fitted model, else the data),\n"
    "the share of energy that is static power and the static energy wasted while\n"
    "under-utilised, which ceiling binds the batch (config, memory, upstream,\n"
    "unknown) with the evidence, the headroom, and what would change the energy\n"
    "(a larger batch, more GPUs), predicted by the fitted model of a measured\n"
    "group. Definitions: diagnose.md.\n\n"
    "  --json           print the joules.diagnose/1 document\n"
    "  --reserve-gb X   memory per GPU reserved for activations etc. in the memory\n"
    "                   arithmetic (default 0)\n" CLI_STUDY_HELP "  -h, --help       this help\n";

static void print_text(const void *result, const jl_summary_list *l)
{
    const jl_diagnosis *x = result;
    (void)l;
    for (size_t i = 0; i < x->count; i++) {
        const jl_run_diagnosis *r = &x->runs[i];
        const jl_summary *s = r->run;
        const jl_attrs *a = &s->attrs;
        int diffusion = jl_attrs_is_diffusion(a);
        printf("%s:%s  %s  %s  %ldx%s  %s  cap %ld\n", cli_basename(s->file ? s->file : "?"),
               s->run ? s->run : "?", a->model ? a->model : "-", a->task ? a->task : "-",
               a->num_gpus, a->gpu_model ? a->gpu_model : "-", a->precision ? a->precision : "-",
               a->max_batch_size);
        double e = s->fig[diffusion ? JL_FIG_ENERGY_PER_ITEM_J : JL_FIG_ENERGY_PER_TOKEN_J];
        printf("  %.4g J/%s", e, diffusion ? "item" : "token");
        if (isfinite(r->utilisation))
            printf("; utilisation %.2f (%s)", r->utilisation, r->utilisation_source);
        else
            printf("; utilisation unknown");
        if (isfinite(r->static_energy_share))
            printf("; static power %.0f W = %.0f%% of the energy (%s)", r->static_power_w,
                   r->static_energy_share * 100, r->static_power_source);
        if (isfinite(r->static_wasted_j))
            printf("; %.0f J static wasted", r->static_wasted_j);
        else if (isfinite(r->static_wasted_j_per_token))
            printf("; %.3g J/%s static wasted", r->static_wasted_j_per_token,
                   diffusion ? "item" : "token");
        printf("\n");
        for (size_t k = 0; k < r->n_findings; k++)
            printf("  - [%s] %s\n", r->findings[k].severity, r->findings[k].message);
    }
}

static json_t *to_json(const void *x, const jl_summary_list *l)
{
    (void)l;
    return jl_diagnose_document(x);
}

static const cli_output output = {NULL, to_json, print_text, "runs", 0, 1};

static int own_option(void *ctx, const char *cmd, int code, const char *arg)
{
    jl_diagnose_options *dopt = ctx;
    double reserve_gb = 0;
    (void)code; /* --reserve-gb, the only one */
    int rc = cli_parse_number(cmd, "--reserve-gb", arg, 0, 1e4, "in [0, 10000)", &reserve_gb);
    dopt->ceiling.reserve_bytes_per_gpu = reserve_gb * 1e9;
    return rc;
}

static const struct option longopts[] = {
    CLI_JSON_LONG_OPTION,
    {"reserve-gb", required_argument, NULL, CLI_OPT_FIRST_FREE},
    CLI_END_LONG_OPTIONS,
};
const cli_options cli_options_diagnose = {":h", longopts};

int cli_cmd_diagnose(int argc, char **argv)
{
    const char *cmd = "diagnose";
    jl_diagnosis *x = NULL;
    jl_diagnose_options dopt;
    jl_diagnose_options_default(&dopt);
    cli_study cs;
    cli_study_init(&cs);
    int rc = cli_parse(&cs, cmd, help, argc, argv, cli_options_diagnose.optstring, longopts,
                       own_option, &dopt);
    if (!rc && !cs.helped && !(rc = cli_study_start(&cs, cmd, argc, argv, &output))) {
        jl_error *err = NULL;
        jl_status st = jl_diagnose(&cs.runs, cs.desc, &dopt, &x, &err);
        rc = st != JL_OK ? cli_fail(cmd, st, err) : cli_emit(cmd, &cs, &output, x);
    }
    jl_diagnosis_free(x);
    cli_study_free(&cs);
    return rc;
}
