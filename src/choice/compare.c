/* compare: matched-constraint comparisons of one attribute's values against
 * a baseline value (joules/choice.h, docs/choice.md). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "choice/choice_internal.h"
#include "core/util.h"
#include "frontier/frontier_internal.h"
#include "joules/frontier.h"
#include "joules/output.h"
#include "joules/study.h"

void jl_compare_result_free(jl_compare_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++) {
        jl_comparison *c = &r->items[i];
        if (c->group_values)
            for (size_t k = 0; k < r->n_group_keys; k++)
                free(c->group_values[k]);
        free(c->group_values);
        free(c->side);
        free(c->reason);
        jl_pick_clear(&c->base);
        jl_pick_clear(&c->other);
    }
    free(r->items);
    for (size_t k = 0; k < r->n_group_keys; k++)
        free(r->group_keys[k]);
    free(r->group_keys);
    for (size_t k = 0; k < r->n_sides; k++)
        free(r->sides[k].side);
    free(r->sides);
    free(r->by);
    free(r->baseline);
    free(r);
}

/* Runs of group g whose `by` value equals v. */
static size_t runs_with(const jl_summary_list *l, const jl_group *g, const char *by, const char *v,
                        size_t *out)
{
    char buf[1024];
    size_t n = 0;
    for (size_t i = 0; i < g->n_runs; i++)
        if (jl_attrs_get(&l->items[g->runs[i]]->attrs, by, buf, sizeof buf) == 0 &&
            jl__attr_value_cmp(buf, v) == 0)
            out[n++] = g->runs[i];
    return n;
}

static char *why_not(const jl_pick *p, const char *by, const char *v, int have_slo)
{
    switch (p->status) {
    case JL_PICK_NO_RUNS: return jl__asprintf("no run with %s=%s", by, v);
    case JL_PICK_NOT_APPLICABLE:
        return jl__asprintf("no run with %s=%s has the %s figures", by, v,
                            have_slo ? "SLO's and energy" : "energy");
    case JL_PICK_INFEASIBLE:
        return jl__asprintf("no configuration with %s=%s meets the SLO", by, v);
    default: return NULL;
    }
}

static jl_status oom(jl_error **err)
{
    return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
}

/* jl_compare, phase 1: the sides, every value of `by` but the baseline,
 * which some selected run must have. */
static jl_status find_sides(const jl_summary_list *l, const jl_compare_options *opt,
                            jl_compare_result *r, jl_error **err)
{
    jl_group_set sides = {0};
    const char *bykey[1] = {opt->by};
    jl_status st = jl_group_runs(l, bykey, 1, NULL, &sides, err);
    int have_baseline = 0;
    for (size_t k = 0; !st && k < sides.n; k++) {
        const char *v = sides.groups[k].values[0];
        if (!v)
            continue;
        if (!jl__attr_value_cmp(v, opt->baseline)) {
            have_baseline = 1;
            continue;
        }
        jl_compare_side *ns = realloc(r->sides, (r->n_sides + 1) * sizeof *ns);
        if (!ns) {
            st = oom(err);
            break;
        }
        r->sides = ns;
        memset(&ns[r->n_sides], 0, sizeof *ns);
        if (!(ns[r->n_sides].side = jl__strdup(v))) {
            st = oom(err);
            break;
        }
        r->n_sides++;
    }
    if (!st && !have_baseline) {
        jl__strbuf b;
        jl__strbuf_init(&b);
        for (size_t k = 0; k < sides.n; k++)
            if (sides.groups[k].values[0])
                jl__strbuf_printf(&b, "%s%s", b.len ? ", " : "", sides.groups[k].values[0]);
        char *vals = jl__strbuf_take(&b);
        char near[128];
        if (vals && !*vals && jl_study_suggest_attribute(l, opt->by, near, sizeof near))
            st = jl_fail(err, JL_ENODATA, NULL, NULL, NULL, -1,
                         "no selected run has the attribute '%s' (did you mean '%s'?)", opt->by,
                         near);
        else if (vals && !*vals)
            st = jl_fail(err, JL_ENODATA, NULL, NULL, NULL, -1,
                         "no selected run has the attribute '%s'", opt->by);
        else {
            const char **names = jl__calloc_array(sides.n ? sides.n : 1, sizeof *names);
            size_t nn = 0;
            for (size_t k = 0; names && k < sides.n; k++)
                if (sides.groups[k].values[0])
                    names[nn++] = sides.groups[k].values[0];
            int hint = names && jl_suggest_value(opt->baseline, names, nn, near, sizeof near);
            free(names);
            st = jl_fail(err, JL_ENODATA, NULL, NULL, NULL, -1,
                         "no selected run has %s=%s (%s%s%svalues present: %s)", opt->by,
                         opt->baseline, hint ? "did you mean '" : "", hint ? near : "",
                         hint ? "'? " : "", vals ? vals : "none");
        }
        free(vals);
    }
    jl_group_set_clear(&sides);
    return st;
}

/* jl_compare, phase 2: the groups' key (model, task, the held attributes). */
static jl_status set_group_keys(jl_compare_result *r, const jl_compare_options *opt, jl_error **err)
{
    r->n_group_keys = 2 + opt->n_hold;
    if (!(r->group_keys = jl__calloc_array(r->n_group_keys, sizeof *r->group_keys)))
        return oom(err);
    if (!(r->group_keys[0] = jl__strdup("model")) || !(r->group_keys[1] = jl__strdup("task")))
        return oom(err);
    for (size_t k = 0; k < opt->n_hold; k++)
        if (!(r->group_keys[2 + k] = jl__strdup(opt->hold[k])))
            return oom(err);
    return JL_OK;
}

/* jl_compare, phase 3: the next comparison of group gr under SLO k (slo):
 * a copy of the baseline's pick (base) against the pick among the group's
 * runs of side sd, and who wins, or why it is not counted. */
static jl_status compare_side(jl_compare_result *r, const jl_summary_list *l, const jl_group *gr,
                              const jl_pick *base, const jl_slo *slo, size_t k, size_t sd,
                              const jl_compare_options *opt, size_t *buf_side, jl_error **err)
{
    jl_comparison *c = &r->items[r->n++];
    c->slo = r->n_slos ? k : (size_t)-1;
    c->winner = -1;
    c->reduction = NAN;
    if (!(c->group_values = jl__calloc_array(r->n_group_keys, sizeof *c->group_values)) ||
        !(c->side = jl__strdup(r->sides[sd].side)))
        return oom(err);
    for (size_t q = 0; q < r->n_group_keys; q++)
        if (gr->values[q] && !(c->group_values[q] = jl__strdup(gr->values[q])))
            return oom(err);
    size_t ns = runs_with(l, gr, opt->by, c->side, buf_side);
    c->base = *base;
    c->base.ties = NULL;
    c->base.n_ties = 0;
    if (base->n_ties) {
        if (!(c->base.ties = jl__malloc_array(base->n_ties, sizeof *c->base.ties)))
            return oom(err);
        memcpy(c->base.ties, base->ties, base->n_ties * sizeof *base->ties);
        c->base.n_ties = base->n_ties;
    }
    jl_status st = jl_pick_runs(l, buf_side, ns, slo, &opt->pick, &c->other, err);
    if (st)
        return st;
    int bok = c->base.status == JL_PICK_FEASIBLE;
    int sok = c->other.status == JL_PICK_FEASIBLE;
    if (bok && sok) {
        c->counted = 1;
        c->reduction = 1.0 - c->other.energy / c->base.energy;
        c->winner = c->other.energy < c->base.energy   ? 1
                    : c->other.energy > c->base.energy ? 0
                                                       : -1;
        return JL_OK;
    }
    char *a = why_not(&c->base, opt->by, opt->baseline, slo != NULL);
    char *b = why_not(&c->other, opt->by, c->side, slo != NULL);
    c->reason = a && b ? jl__asprintf("%s; %s", a, b) : jl__strdup(a ? a : b);
    free(a);
    free(b);
    return c->reason ? JL_OK : oom(err);
}

/* jl_compare, phase 4: the totals, over every comparison and per side (red:
 * room for every comparison's reduction). */
static void compare_totals(jl_compare_result *r, double *red)
{
    size_t nred = 0;
    for (size_t i = 0; i < r->n; i++) {
        const jl_comparison *c = &r->items[i];
        if (!c->counted)
            continue;
        r->n_counted++;
        red[nred++] = c->reduction;
        if (c->winner == 0)
            r->baseline_wins++;
        else if (c->winner < 0)
            r->n_ties++;
    }
    jl__stats(red, nred, &r->median_reduction, &r->min_reduction, &r->max_reduction);
    for (size_t sd = 0; sd < r->n_sides; sd++) {
        jl_compare_side *s = &r->sides[sd];
        nred = 0;
        for (size_t i = 0; i < r->n; i++) {
            const jl_comparison *c = &r->items[i];
            if (!c->counted || jl__attr_value_cmp(c->side, s->side))
                continue;
            s->n++;
            red[nred++] = c->reduction;
            s->wins += c->winner == 1;
            s->losses += c->winner == 0;
        }
        jl__stats(red, nred, &s->median_reduction, &s->min_reduction, &s->max_reduction);
    }
}

jl_status jl_compare(const jl_summary_list *l, const jl_slo *const *slos, size_t n_slos,
                     const jl_compare_options *opt, jl_compare_result **out, jl_error **err)
{
    *out = NULL;
    if (!opt || !opt->by || !opt->baseline)
        return jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1, "compare needs --by and --baseline");
    jl_compare_result *r = calloc(1, sizeof *r);
    jl_group_set groups = {0};
    size_t *buf_base = NULL, *buf_side = NULL;
    double *red = NULL;
    jl_status st = JL_OK;
    if (!r)
        return oom(err);
    r->slos = slos;
    r->n_slos = n_slos;
    /* --by and --baseline are typed names: the attribute and the value as
     * the runs spell them, whatever the case (jl_name_eq) */
    jl_compare_options typed = *opt;
    opt = &typed;
    const char *by = jl_study_attribute_name(l, typed.by);
    if (by)
        typed.by = by;
    char have[1024];
    const char *exact = NULL;
    for (size_t i = 0; i < l->count && !exact; i++)
        if (jl_attrs_get(&l->items[i]->attrs, typed.by, have, sizeof have) == 0 &&
            !jl__attr_value_cmp(have, typed.baseline))
            exact = typed.baseline;
    char *spelt = NULL;
    for (size_t i = 0; i < l->count && !exact && !spelt; i++)
        if (jl_attrs_get(&l->items[i]->attrs, typed.by, have, sizeof have) == 0 &&
            jl_name_eq(typed.baseline, have))
            spelt = jl__strdup(have);
    if (spelt)
        typed.baseline = spelt;
    /* --hold: attributes some run has, spelt as the runs spell them */
    const char *holds[16];
    for (size_t k = 0; k < typed.n_hold && k < 16; k++) {
        const char *h = jl_study_attribute_name(l, typed.hold[k]);
        char near[128];
        if (!h && jl_study_suggest_attribute(l, typed.hold[k], near, sizeof near))
            st = jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1,
                         "--hold: no selected run has the attribute '%s' (did you mean '%s'?)",
                         typed.hold[k], near);
        else if (!h)
            st = jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1,
                         "--hold: no selected run has the attribute '%s'", typed.hold[k]);
        if (st) {
            free(spelt);
            free(r);
            return st;
        }
        holds[k] = h;
    }
    if (typed.n_hold <= 16)
        typed.hold = holds;
    if (!(r->by = jl__strdup(opt->by)) || !(r->baseline = jl__strdup(opt->baseline))) {
        st = oom(err);
        goto fail;
    }
    if ((st = find_sides(l, opt, r, err)) || (st = set_group_keys(r, opt, err)) ||
        (st = jl_group_runs(l, (const char **)r->group_keys, r->n_group_keys, NULL, &groups, err)))
        goto fail;
    size_t per_slo = n_slos ? n_slos : 1;
    size_t total = groups.n * per_slo * r->n_sides;
    if ((total && !(r->items = jl__calloc_array(total, sizeof *r->items))) ||
        !(buf_base = jl__calloc_array(l->count ? l->count : 1, sizeof *buf_base)) ||
        !(buf_side = jl__calloc_array(l->count ? l->count : 1, sizeof *buf_side)) ||
        !(red = jl__calloc_array(total ? total : 1, sizeof *red))) {
        st = oom(err);
        goto fail;
    }
    for (size_t g = 0; g < groups.n; g++) {
        const jl_group *gr = &groups.groups[g];
        size_t nb = runs_with(l, gr, opt->by, opt->baseline, buf_base);
        for (size_t k = 0; k < per_slo; k++) {
            const jl_slo *slo = n_slos ? slos[k] : NULL;
            jl_pick base;
            if ((st = jl_pick_runs(l, buf_base, nb, slo, &opt->pick, &base, err)))
                goto fail;
            for (size_t sd = 0; sd < r->n_sides && !st; sd++)
                st = compare_side(r, l, gr, &base, slo, k, sd, opt, buf_side, err);
            jl_pick_clear(&base);
            if (st)
                goto fail;
        }
    }
    compare_totals(r, red);
    goto end;
fail:
    jl_compare_result_free(r);
    r = NULL;
end:
    jl_group_set_clear(&groups);
    free(buf_base);
    free(buf_side);
    free(red);
    free(spelt);
    *out = r;
    return r ? JL_OK : st;
}

/* ---- documents ----------------------------------------------------------------- */

/* median/min/max_energy_change from the reduction statistics: the same
 * numbers with the sign of energy_change (the min change is minus the max
 * reduction); then the reductions themselves. */
static void change_stats_write(jl__jw *w, double median_red, double min_red, double max_red)
{
    jl__jw_knumber(w, "median_energy_change", -median_red);
    jl__jw_knumber(w, "min_energy_change", -max_red);
    jl__jw_knumber(w, "max_energy_change", -min_red);
    jl__jw_knumber(w, "median_reduction", median_red);
    jl__jw_knumber(w, "min_reduction", min_red);
    jl__jw_knumber(w, "max_reduction", max_red);
}

static void count_write(jl__jw *w, const char *key, size_t v)
{
    jl__jw_key(w, key);
    jl__jw_integer(w, (json_int_t)v);
}

static void pick_side_write(jl__jw *w, const char *key, const jl_pick *p, const jl_slo *slo,
                            const jl_summary_list *l)
{
    jl__jw_key(w, key);
    jl__jw_object(w);
    jl__pick_write(w, p, slo, l);
    jl__jw_end(w);
}

static void comparison_write(jl__jw *w, const jl_compare_result *r, const jl_comparison *c,
                             const jl_summary_list *l)
{
    const jl_slo *slo = c->slo < r->n_slos ? r->slos[c->slo] : NULL;
    jl__jw_object(w);
    for (size_t k = 0; k < r->n_group_keys && k < 2; k++)
        jl__jw_kstring(w, r->group_keys[k], c->group_values[k]);
    jl__jw_key(w, "group");
    jl__jw_object(w);
    for (size_t k = 0; k < r->n_group_keys; k++)
        jl__jw_kstring(w, r->group_keys[k], c->group_values[k]);
    jl__jw_end(w);
    jl__jw_kstring(w, "slo", slo ? slo->text : NULL);
    jl__jw_kstring(w, "side", c->side);
    pick_side_write(w, "baseline", &c->base, slo, l);
    pick_side_write(w, "other", &c->other, slo, l);
    jl__jw_kbool(w, "counted", c->counted);
    jl__jw_kstring(w, "reason", c->reason);
    /* one sign convention (docs/choice.md): energy_change < 0 = the side
     * needs less energy than the baseline; reduction (= -energy_change)
     * stays for the readers written against it */
    jl__jw_knumber(w, "energy_change", -c->reduction);
    /* what the change compares: the baseline side's headline boundary */
    jl__jw_key(w, "boundary");
    if (c->base.choice >= 0) {
        json_t *b = jl_boundary_to_json(l->items[c->base.choice]->boundary);
        jl__jw_json(w, b);
        json_decref(b);
    } else {
        jl__jw_null(w);
    }
    jl__jw_knumber(w, "reduction", c->reduction);
    jl__jw_kstring(w, "winner",
                   c->winner == 1   ? c->side
                   : c->winner == 0 ? r->baseline
                   : c->counted     ? "tie"
                                    : NULL);
    jl__jw_end(w);
}

static void totals_write(jl__jw *w, const jl_compare_result *r)
{
    jl__jw_object(w);
    count_write(w, "n", r->n_counted);
    count_write(w, "n_listed", r->n);
    count_write(w, "n_not_counted", r->n - r->n_counted);
    count_write(w, "ties", r->n_ties);
    jl__jw_key(w, "wins");
    jl__jw_object(w);
    count_write(w, r->baseline, r->baseline_wins);
    for (size_t sd = 0; sd < r->n_sides; sd++)
        count_write(w, r->sides[sd].side, r->sides[sd].wins);
    jl__jw_end(w);
    change_stats_write(w, r->median_reduction, r->min_reduction, r->max_reduction);
    jl__jw_key(w, "sides");
    jl__jw_array(w);
    for (size_t sd = 0; sd < r->n_sides; sd++) {
        const jl_compare_side *s = &r->sides[sd];
        jl__jw_object(w);
        jl__jw_kstring(w, "side", s->side);
        count_write(w, "n", s->n);
        count_write(w, "wins", s->wins);
        count_write(w, "losses", s->losses);
        change_stats_write(w, s->median_reduction, s->min_reduction, s->max_reduction);
        jl__jw_end(w);
    }
    jl__jw_end(w);
    jl__jw_end(w);
}

/* The document; with "errors" when errors_json is non-NULL. */
static void compare_document_write(jl__jw *w, const void *result, const jl_summary_list *l,
                                   const json_t *errors_json)
{
    const jl_compare_result *r = result;
    jl__jw_object(w);
    jl__jw_kstring(w, "schema", "joules.compare/1");
    jl__jw_kstring(w, "by", r->by);
    jl__jw_kstring(w, "baseline", r->baseline);
    jl__jw_key(w, "group_by");
    jl__jw_array(w);
    for (size_t k = 0; k < r->n_group_keys; k++)
        jl__jw_string(w, r->group_keys[k]);
    jl__jw_end(w);
    jl__jw_key(w, "comparisons");
    jl__jw_array(w);
    for (size_t i = 0; i < r->n; i++)
        comparison_write(w, r, &r->items[i], l);
    jl__jw_end(w);
    jl__jw_key(w, "totals");
    totals_write(w, r);
    if (errors_json) {
        jl__jw_key(w, "errors");
        jl__jw_json(w, errors_json);
    }
    jl__jw_end(w);
}

json_t *jl_compare_document(const jl_compare_result *r, const jl_summary_list *l)
{
    return jl__jw_document_tree(compare_document_write, r, l);
}

jl_status jl_write_compare_json(const char *path, const jl_compare_result *r,
                                const jl_summary_list *l, const jl_error_list *errors,
                                jl_error **err)
{
    return jl__jw_write_document(path, compare_document_write, r, l, errors, err);
}

typedef struct cmp_csv_ctx {
    const jl_compare_result *r;
    const jl_summary_list *l;
} cmp_csv_ctx;

static void side_cells(jl__csvw *w, const jl_pick *p, const jl_summary_list *l,
                       const jl__figcols *en)
{
    const jl_summary *s =
        p->choice >= 0 && p->status == JL_PICK_FEASIBLE ? l->items[p->choice] : NULL;
    jl__csvw_cell(w, jl_pick_status_name(p->status));
    jl__csvw_cell(w, s ? s->run : "");
    if (s) {
        jl__csvw_cellf(w, "%ld", s->attrs.num_gpus);
        jl__csvw_cellf(w, "%ld", s->attrs.max_batch_size);
    } else {
        jl__csvw_empty(w);
        jl__csvw_empty(w);
    }
    jl__figcols_cells(w, en, s ? p->energy_figure : -1, p->energy);
}

/* The side's latency at its pick: every latency column (the workloads'
 * own and each SLO's figures), empty where it has none. */
static void latency_cells(jl__csvw *w, const jl_pick *p, const jl_summary_list *l,
                          const jl__figcols *lat)
{
    const jl_summary *s =
        p->choice >= 0 && p->status == JL_PICK_FEASIBLE ? l->items[p->choice] : NULL;
    for (int i = 0; i < lat->n; i++)
        if (s && isfinite(s->fig[lat->fig[i]]))
            jl__csvw_num(w, s->fig[lat->fig[i]]);
        else
            jl__csvw_empty(w);
}

static int print_compare(FILE *f, const void *vctx)
{
    const cmp_csv_ctx *ctx = vctx;
    const jl_compare_result *r = ctx->r;
    /* energies under columns named by their figure (baseline_energy_per_token_j,
     * ...): never J/token and J/item in one column */
    static const int en_default[] = {JL_FIG_ENERGY_PER_TOKEN_J, JL_FIG_ENERGY_PER_ITEM_J, -1};
    jl__figcols en;
    jl__figcols_init(&en, en_default);
    for (size_t i = 0; i < r->n; i++) {
        jl__figcols_add(&en, r->items[i].base.energy_figure);
        jl__figcols_add(&en, r->items[i].other.energy_figure);
    }
    /* both sides' latency at their picks: the workloads' own (median ITL,
     * batch latency) and every figure an SLO bounds */
    static const int lat_default[] = {JL_FIG_MEDIAN_ITL_S, JL_FIG_BATCH_LATENCY_S, -1};
    jl__figcols lat;
    jl__figcols_init(&lat, lat_default);
    for (size_t k = 0; k < r->n_slos; k++)
        for (size_t c = 0; r->slos[k] && c < r->slos[k]->n; c++) {
            jl__figcols_add(&lat, r->slos[k]->conds[c].figure_llm);
            jl__figcols_add(&lat, r->slos[k]->conds[c].figure_diffusion);
            jl__figcols_add(&lat, r->slos[k]->conds[c].figure_sample);
        }
    static const char *const head[] = {"slo",
                                       "by",
                                       "baseline",
                                       "side",
                                       "baseline_status",
                                       "baseline_run",
                                       "baseline_num_gpus",
                                       "baseline_max_batch_size",
                                       NULL};
    static const char *const side[] = {"side_status", "side_run", "side_num_gpus",
                                       "side_max_batch_size", NULL};
    /* energy_change = E_side / E_baseline - 1 (negative: less energy);
     * reduction, its opposite, last: kept one release for existing scripts
     * (docs/choice.md) */
    static const char *const tail[] = {"counted", "energy_change", "winner",
                                       "reason",  "reduction",     NULL};
    jl__csvw w;
    jl__csvw_begin(&w, f);
    for (size_t k = 0; k < r->n_group_keys; k++)
        jl__csvw_cellf(&w, "%s", r->group_keys[k]); /* attribute names, as given */
    jl__csvw_cells(&w, head);
    jl__figcols_header(&w, &en, "baseline_");
    jl__figcols_header(&w, &lat, "baseline_");
    jl__csvw_cells(&w, side);
    jl__figcols_header(&w, &en, "side_");
    jl__figcols_header(&w, &lat, "side_");
    jl__csvw_cells(&w, tail);
    jl__csvw_end(&w);
    for (size_t i = 0; i < r->n; i++) {
        const jl_comparison *c = &r->items[i];
        const jl_slo *slo = c->slo < r->n_slos ? r->slos[c->slo] : NULL;
        for (size_t k = 0; k < r->n_group_keys; k++)
            jl__csvw_cell(&w, c->group_values[k] ? c->group_values[k] : "");
        jl__csvw_cell(&w, slo ? slo->text : "");
        jl__csvw_cell(&w, r->by);
        jl__csvw_cell(&w, r->baseline);
        jl__csvw_cell(&w, c->side);
        side_cells(&w, &c->base, ctx->l, &en);
        latency_cells(&w, &c->base, ctx->l, &lat);
        side_cells(&w, &c->other, ctx->l, &en);
        latency_cells(&w, &c->other, ctx->l, &lat);
        jl__csvw_cellf(&w, "%d", c->counted);
        jl__csvw_num(&w, -c->reduction);
        jl__csvw_cell(&w, c->winner == 1   ? c->side
                          : c->winner == 0 ? r->baseline
                          : c->counted     ? "tie"
                                           : "");
        jl__csvw_cell(&w, c->reason ? c->reason : "");
        jl__csvw_num(&w, c->reduction);
        jl__csvw_end(&w);
    }
    return ferror(f) ? -1 : 0;
}

jl_status jl_write_compare_csv(const char *path, const jl_compare_result *r,
                               const jl_summary_list *l, jl_error **err)
{
    cmp_csv_ctx ctx = {r, l};
    return jl_write_text(path, print_compare, &ctx, err);
}
