/* joules card — a Markdown energy card of one model, with YAML front matter
 * a model card can take (Hugging Face co2_eq_emissions keys). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/exit_codes.h"
#include "joules/account.h"

static const char *const help =
    "usage: joules card [--model M] [--slo EXPR]... [--grid-intensity G] [--pue P]\n"
    "                   [--location L] [-o FILE.md] [options] PATH...\n\n"
    "A Markdown energy card of model M (default: the one model in the data): YAML\n"
    "front matter with the Hugging Face co2_eq_emissions keys (emissions in grams\n"
    "for 1,000 queries at the first labelled configuration, source, hardware_used,\n"
    "geographical_location) and a joules_energy block; then per task and hardware\n"
    "the configuration of least energy per request meeting the SLOs (as joules label\n"
    "picks it, stars relative to the models of the same task in the data given):\n"
    "energy per token and request, prefill share, static share, average and peak\n"
    "power, calibration (steady window, energy source, sample coverage, counter vs\n"
    "integral), carbon and PUE assumptions, provenance. accounting.md.\n\n"
    "  --model M          the card's model (its model attribute)\n"
    "  --slo EXPR         a service-level objective (repeatable)\n"
    "  --grid-intensity G gCO2eq/kWh: a number (5..2,000, or 0.4kg/kWh) or a CSV series\n"
    "  --pue P            1.0..3.0 (above: P:forced) or a CSV series (default 1)\n"
    "  --location L       geographical_location in the front matter\n"
    "  -o, --output FILE  write the card to FILE (default: stdout)\n" CLI_STUDY_HELP
    "  -h, --help         this help\n";

typedef struct card_opts {
    const char *model, *location, *out, *grid_arg, *pue_arg;
    jl_tseries *grid, *pue;
} card_opts;

enum { OPT_MODEL = CLI_OPT_FIRST_FREE, OPT_GRID, OPT_PUE, OPT_LOCATION };

static int own_option(void *ctx, const char *cmd, int code, const char *arg)
{
    card_opts *o = ctx;
    if (code == OPT_MODEL || code == OPT_LOCATION || code == 'o') {
        *(code == OPT_MODEL ? &o->model : code == OPT_LOCATION ? &o->location : &o->out) = arg;
        return 0;
    }
    jl_tseries **slot = code == OPT_GRID ? &o->grid : &o->pue;
    *(code == OPT_GRID ? &o->grid_arg : &o->pue_arg) = arg;
    jl_tseries_free(*slot);
    *slot = NULL;
    jl_error *err = NULL;
    jl_status st = code == OPT_PUE ? jl_tseries_parse_pue(arg, slot, &err)
                                   : jl_tseries_parse(arg, JL_INTENSITY_AVERAGE, slot, &err);
    if (st != JL_OK) {
        cli_print_error(cmd, err);
        jl_error_free(err);
        return st == JL_ENOMEM ? cli_oom(cmd) : cli_exit_for_status(JL_EUSAGE);
    }
    return 0;
}

static int print_str(FILE *f, const void *ctx)
{
    const char *s = ctx;
    return fputs(s, f) == EOF;
}

int cli_cmd_card(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_SLO_LONG_OPTION,
        {"model", required_argument, NULL, OPT_MODEL},
        {"grid-intensity", required_argument, NULL, OPT_GRID},
        {"pue", required_argument, NULL, OPT_PUE},
        {"location", required_argument, NULL, OPT_LOCATION},
        {"output", required_argument, NULL, 'o'},
        CLI_END_LONG_OPTIONS,
    };
    const char *cmd = "card";
    card_opts o;
    memset(&o, 0, sizeof o);
    jl_label_set ls = {0}, mine = {0};
    jl_emissions_result *em = NULL;
    char *md = NULL;
    cli_study cs;
    cli_study_init(&cs);
    int rc = cli_parse(&cs, cmd, help, argc, argv, ":ho:", longopts, own_option, &o);
    if (!rc && !cs.helped && !(rc = cli_study_start(&cs, cmd, argc, argv, NULL))) {
        char slo_text[1024] = "";
        for (size_t i = 0; i < cs.slos.n; i++) {
            size_t len = strlen(slo_text);
            snprintf(slo_text + len, sizeof slo_text - len, "%s%s", i ? " and " : "",
                     cs.slos.items[i]->text);
        }
        jl_error *err = NULL;
        jl_status st =
            jl_labels(&cs.runs, (const jl_slo *const *)cs.slos.items, cs.slos.n, &ls, &err);
        if (st != JL_OK) {
            rc = cli_fail(cmd, st, err);
            goto end;
        }
        const char *model = o.model;
        for (size_t i = 0; !model && i < ls.n; i++)
            for (size_t j = 0; j < ls.n; j++)
                if (strcmp(ls.items[j].model, ls.items[0].model)) {
                    rc = cli_usage_error(cmd,
                                         "the data holds several models (%s, %s, ...): "
                                         "choose one with --model",
                                         ls.items[0].model, ls.items[j].model);
                    goto end;
                }
        if (!model && ls.n)
            model = ls.items[0].model;
        mine.items = calloc(ls.n ? ls.n : 1, sizeof *mine.items);
        if (!mine.items) {
            rc = cli_oom(cmd);
            goto end;
        }
        for (size_t i = 0; model && i < ls.n; i++)
            if (!strcmp(ls.items[i].model, model))
                mine.items[mine.n++] = ls.items[i];
        if (!mine.n) {
            fprintf(stderr, "joules %s: no run of model '%s' with energy per request%s\n", cmd,
                    model ? model : "?", cs.slos.n ? " meeting the SLOs" : "");
            rc = CLI_EXIT_NOINPUT;
            goto end;
        }
        char carbon[512] = "";
        if (o.grid) {
            jl_emissions_options eo = {o.pue, o.grid, NULL, NAN};
            if ((st = jl_emissions_study(&cs.runs, &eo, &em, &err)) != JL_OK) {
                rc = cli_fail(cmd, st, err);
                goto end;
            }
            snprintf(carbon, sizeof carbon, "grid intensity %s%s, PUE %s%s", o.grid_arg,
                     jl_tseries_is_constant(o.grid) ? " gCO2eq/kWh" : " (time series)",
                     o.pue_arg ? o.pue_arg : "1",
                     o.pue && !jl_tseries_is_constant(o.pue) ? " (time series)" : "");
        }
        char hash[65];
        const json_t *prov = jl_output_provenance();
        if (prov)
            jl_provenance_hash(prov, hash);
        jl_card_options co = {slo_text[0] ? slo_text : NULL, o.location, o.grid ? carbon : NULL,
                              prov ? hash : NULL, prov};
        md = jl_card_markdown(&mine, &cs.runs, em, &co);
        if (!md) {
            rc = cli_oom(cmd);
            goto end;
        }
        st = jl_write_text(o.out ? o.out : "-", print_str, md, &err);
        rc = st != JL_OK ? cli_fail(cmd, st, err) : cli_study_exit(&cs);
    }
end:
    free(md);
    free(mine.items);
    jl_label_set_clear(&ls);
    jl_emissions_result_free(em);
    jl_tseries_free(o.grid);
    jl_tseries_free(o.pue);
    cli_study_free(&cs);
    return rc;
}
