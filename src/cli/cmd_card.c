/* joules card — a Markdown energy card of one model, with YAML front matter
 * a model card on the Hub can take: inference figures under joules_energy,
 * the Hub's co2_eq_emissions only for training emissions the author
 * declares. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/exit_codes.h"
#include "joules/account.h"
#include "joules/version.h"

static const char *const help =
    "usage: joules card [--model M] [--slo EXPR]... [--grid-intensity G] [--pue P]\n"
    "                   [--window W] [--scope S] [--location L]\n"
    "                   [--training-type T (--training-energy-kwh E | --training-emissions-g G)\n"
    "                    [--training-hardware H]] [-o FILE.md] [options] PATH...\n\n"
    "A Markdown energy card of model M (default: the one model in the data): YAML\n"
    "front matter a model card on the Hugging Face Hub can take -- every labelled\n"
    "configuration's inference figures under their own key, joules_energy\n"
    "(boundary, Wh per 1,000 queries, J/token, marginal prefill share, stars,\n"
    "gCO2eq per 1,000 queries with --grid-intensity) -- and the Hub's\n"
    "co2_eq_emissions only for training or fine-tuning emissions you declare\n"
    "(--training-type); then per task and hardware the configuration of least\n"
    "energy per request meeting the SLOs (as joules label picks it and stars it):\n"
    "energy per token and request, the marginal prefill share, static share,\n"
    "average and peak power, calibration (steady window, energy source, sample\n"
    "coverage, counter vs integral), carbon and PUE assumptions, provenance.\n"
    "accounting.md.\n\n"
    "  --model M          the card's model (its model attribute)\n"
    "  --slo EXPR         a service-level objective (repeatable)\n"
    "  --grid-intensity G gCO2eq/kWh: a number (5..2,000, or 0.4kg/kWh) or a CSV series\n"
    "  --pue P            1.0..3.0 (above: P:forced) or a CSV series (default 1)\n"
    "  --window W         run (default: the whole run) or steady, as joules label\n"
    "  --scope S          auto (default: the widest measured), gpu, host, node or\n"
    "                     provisioned, as joules label\n"
    "  --location L       geographical_location in the front matter\n"
    "  --training-type T  pre-training or fine-tuning: the model's training you declare\n"
    "  --training-energy-kwh E  its energy, kWh (x PUE x the grid intensity: a\n"
    "                     series' time-weighted mean)\n"
    "  --training-emissions-g G  or its emissions, grams CO2eq\n"
    "  --training-hardware H  hardware_used of the training\n"
    "  -o, --output FILE  write the card to FILE (default: stdout)\n" CLI_STUDY_HELP
    "  -h, --help         this help\n";

typedef struct card_opts {
    const char *model, *location, *out, *grid_arg, *pue_arg, *window, *scope;
    const char *training_type, *training_hardware;
    double training_kwh, training_g;
    jl_tseries *grid, *pue;
} card_opts;

enum {
    OPT_MODEL = CLI_OPT_FIRST_FREE,
    OPT_GRID,
    OPT_PUE,
    OPT_LOCATION,
    OPT_WINDOW,
    OPT_SCOPE,
    OPT_TRAINING_TYPE,
    OPT_TRAINING_KWH,
    OPT_TRAINING_G,
    OPT_TRAINING_HW
};

static int own_option(void *ctx, const char *cmd, int code, const char *arg)
{
    card_opts *o = ctx;
    switch (code) {
    case OPT_MODEL: o->model = arg; return 0;
    case OPT_LOCATION: o->location = arg; return 0;
    case 'o': o->out = arg; return 0;
    case OPT_WINDOW: o->window = arg; return 0;
    case OPT_SCOPE: o->scope = arg; return 0;
    case OPT_TRAINING_HW: o->training_hardware = arg; return 0;
    case OPT_TRAINING_TYPE:
        if (strcmp(arg, "pre-training") && strcmp(arg, "fine-tuning"))
            return cli_usage_error(cmd, "--training-type: '%s' is not pre-training or fine-tuning",
                                   arg);
        o->training_type = arg;
        return 0;
    case OPT_TRAINING_KWH:
        return cli_parse_number(cmd, "--training-energy-kwh", arg, 0, INFINITY, "a number >= 0",
                                &o->training_kwh);
    case OPT_TRAINING_G:
        return cli_parse_number(cmd, "--training-emissions-g", arg, 0, INFINITY, "a number >= 0",
                                &o->training_g);
    default: break;
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

/* The declared training emissions and their source: 0, or an exit code. */
static int training(const char *cmd, const card_opts *o, double *g, char *src, size_t cap)
{
    *g = NAN;
    int have_e = !isnan(o->training_kwh), have_g = !isnan(o->training_g);
    if (!o->training_type) {
        if (have_e || have_g || o->training_hardware)
            return cli_usage_error(cmd, "--training-energy-kwh, --training-emissions-g and "
                                        "--training-hardware describe a training: give "
                                        "--training-type pre-training|fine-tuning");
        return 0;
    }
    if (have_e == have_g)
        return cli_usage_error(cmd, "--training-type needs one of --training-energy-kwh and "
                                    "--training-emissions-g");
    if (have_g) {
        *g = o->training_g;
        snprintf(src, cap,
                 "joules %s: %s emissions declared by the card's author "
                 "(--training-emissions-g); not measured by joules",
                 jl_version(), o->training_type);
        return 0;
    }
    if (!o->grid)
        return cli_usage_error(cmd, "--training-energy-kwh needs --grid-intensity (or give "
                                    "--training-emissions-g)");
    double in = jl_tseries_mean(o->grid), pue = o->pue ? jl_tseries_mean(o->pue) : 1;
    *g = o->training_kwh * pue * in;
    snprintf(src, cap,
             "joules %s: %s energy declared by the card's author, %.6g kWh "
             "(--training-energy-kwh) x PUE %.6g%s x %.6g gCO2eq/kWh%s; not measured by joules",
             jl_version(), o->training_type, o->training_kwh, pue,
             o->pue && !jl_tseries_is_constant(o->pue) ? " (the series' mean)" : "", in,
             jl_tseries_is_constant(o->grid) ? "" : " (the series' time-weighted mean)");
    return 0;
}

static int print_str(FILE *f, const void *ctx)
{
    const char *s = ctx;
    return fputs(s, f) == EOF;
}

static const struct option longopts[] = {
    CLI_SLO_LONG_OPTION,
    {"model", required_argument, NULL, OPT_MODEL},
    {"grid-intensity", required_argument, NULL, OPT_GRID},
    {"pue", required_argument, NULL, OPT_PUE},
    {"location", required_argument, NULL, OPT_LOCATION},
    {"output", required_argument, NULL, 'o'},
    {"window", required_argument, NULL, OPT_WINDOW},
    {"scope", required_argument, NULL, OPT_SCOPE},
    {"training-type", required_argument, NULL, OPT_TRAINING_TYPE},
    {"training-energy-kwh", required_argument, NULL, OPT_TRAINING_KWH},
    {"training-emissions-g", required_argument, NULL, OPT_TRAINING_G},
    {"training-hardware", required_argument, NULL, OPT_TRAINING_HW},
    CLI_END_LONG_OPTIONS,
};
const cli_options cli_options_card = {":ho:", longopts};

int cli_cmd_card(int argc, char **argv)
{
    const char *cmd = "card";
    card_opts o;
    memset(&o, 0, sizeof o);
    o.training_kwh = o.training_g = NAN;
    jl_account_boundary bound;
    jl_account_boundary_default(&bound);
    double train_g = NAN;
    char train_src[512] = "";
    jl_label_set ls = {0}, mine = {0};
    jl_emissions_result *em = NULL;
    char *md = NULL;
    cli_study cs;
    cli_study_init(&cs);
    int rc =
        cli_parse(&cs, cmd, help, argc, argv, cli_options_card.optstring, longopts, own_option, &o);
    if (!rc && !cs.helped &&
        !(rc = cli_account_boundary(cmd, o.window, o.scope, 0,
                                    "the card's labels count measured energy; its carbon "
                                    "table applies --pue",
                                    &bound)))
        rc = training(cmd, &o, &train_g, train_src, sizeof train_src);
    if (!rc && !cs.helped && !(rc = cli_study_start(&cs, cmd, argc, argv, NULL))) {
        char slo_text[1024] = "";
        for (size_t i = 0; i < cs.slos.n; i++) {
            size_t len = strlen(slo_text);
            snprintf(slo_text + len, sizeof slo_text - len, "%s%s", i ? " and " : "",
                     cs.slos.items[i]->text);
        }
        jl_error *err = NULL;
        jl_status st = jl_labels_at(&cs.runs, (const jl_slo *const *)cs.slos.items, cs.slos.n,
                                    &bound, &ls, &err);
        if (st != JL_OK) {
            rc = cli_fail(cmd, st, err);
            goto end;
        }
        for (size_t i = 0; i < ls.n_refused; i++)
            fprintf(stderr, "joules %s: %s\n", cmd, ls.refused[i]);
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
            jl_emissions_options eo = {o.pue, o.grid, NULL, NAN, &bound, JL_SCI_NONE, NULL, NULL};
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
        jl_card_options co = {slo_text[0] ? slo_text : NULL,
                              o.location,
                              o.grid ? carbon : NULL,
                              prov ? hash : NULL,
                              prov,
                              o.training_type,
                              train_g,
                              train_src[0] ? train_src : NULL,
                              o.training_hardware};
        md = jl_card_markdown(&mine, &cs.runs, em, &co);
        if (!md) {
            rc = cli_oom(cmd);
            goto end;
        }
        st = jl_write_text(o.out ? o.out : "-", print_str, md, &err);
        rc = st != JL_OK ? cli_fail(cmd, st, err) : cli_study_exit(&cs);
        if (!rc && ls.n_refused)
            rc = CLI_EXIT_PARTIAL;
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
