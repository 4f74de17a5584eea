/* The report's data/ documents: each one built by the library function the
 * command printing the same bytes uses (summary, check, frontier, pick,
 * compare, precision; the model's: model_section.c), data/answers.csv (the
 * answer tables' cells) and data/report.json (joules.report/1). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "joules/choice.h"
#include "joules/descriptors.h"
#include "joules/diagnose.h"
#include "joules/frontier.h"
#include "joules/output.h"
#include "output/csv_row.h"
#include "report/knobs.h"
#include "report/sections.h"

static jl_status write_csv_file(jl__report_report *r, const char *rel,
                                jl_status (*fn)(const char *, const void *, const void *,
                                                jl_error **),
                                const void *a, const void *b, jl_error **err)
{
    char *p = jl__report_path(r, rel);
    if (!p)
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    jl_status st = fn(p, a, b, err);
    free(p);
    return st;
}

static jl_status summaries_csv(const char *p, const void *a, const void *b, jl_error **err)
{
    (void)b;
    return jl_write_summaries_csv(p, a, err);
}

static jl_status frontier_csv(const char *p, const void *a, const void *b, jl_error **err)
{
    return jl_write_frontier_csv(p, a, b, err);
}

/* The SLOs in use, each once, in group order (the --slo list of the
 * equivalent `joules pick` / `joules compare` command). */
static size_t slos_in_use(const jl__report_report *r, const jl_slo **out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n_groups; i++) {
        const jl_slo *s = r->groups[i].slo;
        size_t k = 0;
        while (k < n && out[k] != s)
            k++;
        if (k == n && n < cap && s)
            out[n++] = s;
    }
    return n;
}

static char *slo_args(const jl_slo *const *slos, size_t n)
{
    jl__strbuf b;
    jl__strbuf_init(&b);
    for (size_t i = 0; i < n; i++) {
        char *q = jl_shell_quote(slos[i]->text);
        jl__strbuf_printf(&b, " --slo %s", q ? q : "''");
        free(q);
    }
    if (!n)
        jl__strbuf_puts(&b, "");
    return jl__strbuf_take(&b);
}

/* Distinct values of an attribute among the runs, sorted; caller frees. */
static size_t distinct_values(const jl_summary_list *l, const char *key, char ***out)
{
    char **v = NULL;
    size_t n = 0;
    char buf[512];
    for (size_t i = 0; i < l->count; i++) {
        if (jl_attrs_get(&l->items[i]->attrs, key, buf, sizeof buf) != 0)
            continue;
        size_t j = 0;
        while (j < n && strcmp(v[j], buf) < 0)
            j++;
        if (j < n && !strcmp(v[j], buf))
            continue;
        char **p = realloc(v, (n + 1) * sizeof *p);
        if (!p)
            break;
        v = p;
        memmove(v + j + 1, v + j, (n - j) * sizeof *v);
        v[j] = jl__strdup(buf);
        n++;
    }
    *out = v;
    return n;
}

static void free_values(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* data/summary.*, data/check.json (kept for the findings), data/frontier.*. */
static jl_status write_run_documents(jl__report_report *r, jl_error **err)
{
    jl_status st;
    json_t *doc = jl_summary_document(r->l, r->errors);
    st = jl__report_write_json(r, "data/summary.json", doc, err);
    json_decref(doc);
    if (st || (st = write_csv_file(r, "data/summary.csv", summaries_csv, r->l, NULL, err)))
        return st;
    jl__report_add_data(r, "data/summary.json", "joules.summary/1: every run's figures",
                        "joules summarize --json PATH...");
    jl__report_add_data(r, "data/summary.csv", "one row per run, full precision",
                        "joules summarize --csv FILE PATH...");

    jl__report_progress(r, "documents", 1, 6, "check");
    r->check_doc = jl_check_document(r->l, &r->rules, r->opt.desc, r->errors, NULL);
    if ((st = jl__report_write_json(r, "data/check.json", r->check_doc, err)))
        return st;
    jl__report_add_data(r, "data/check.json", "joules.check/1: every validation rule for every run",
                        "joules check --json PATH...");
    jl__report_progress(r, "documents", 2, 6, "frontier");

    if (r->fs) {
        if ((st = jl__report_write_json_with_errors(r, "data/frontier.json",
                                                    jl_frontier_document(r->fs, r->l), err)) ||
            (st = write_csv_file(r, "data/frontier.csv", frontier_csv, r->fs, r->l, err)))
            return st;
        jl__report_add_data(r, "data/frontier.json",
                            "joules.frontier/1: time-energy frontiers and curves per (model, task)",
                            "joules frontier --json PATH...");
        jl__report_add_data(r, "data/frontier.csv", "one row per frontier point",
                            "joules frontier --csv FILE PATH...");
    }
    return JL_OK;
}

/* data/pick.*: every (model, task) at every SLO in use (sa: their
 * --slo arguments, for the commands recorded). */
static jl_status write_pick_documents(jl__report_report *r, const jl_slo *const *slos, size_t ns,
                                      const char *sa, jl_error **err)
{
    jl__report_progress(r, "documents", 3, 6, "pick");
    jl_pick_set *ps = NULL;
    jl_status st;
    if ((st = jl_pick_all(r->l, slos, ns, NULL, &ps, err)))
        return st;
    st = jl__report_write_json_with_errors(r, "data/pick.json", jl_pick_document(ps, r->l), err);
    if (!st) {
        char *p = jl__asprintf("%s/data/pick.csv", r->root);
        st = p ? jl_write_picks_csv(p, ps, r->l, err) : JL_ENOMEM;
        free(p);
    }
    jl_pick_set_free(ps);
    if (st)
        return st;
    char *cmdl = jl__asprintf("joules pick --json%s PATH...", sa ? sa : "");
    jl__report_add_data(r, "data/pick.json",
                        "joules.pick/1: the minimum-energy configuration per (model, task) and SLO",
                        cmdl);
    free(cmdl);
    cmdl = jl__asprintf("joules pick --csv FILE%s PATH...", sa ? sa : "");
    jl__report_add_data(r, "data/pick.csv", "one row per pick", cmdl);
    free(cmdl);
    return JL_OK;
}

/* data/compare-BY.*: one comparison by `by` against base_v; a comparison
 * that cannot be made is a note. */
static jl_status write_compare_document(jl__report_report *r, const char *by, const char *base_v,
                                        int hold_gpu, const jl_slo *const *slos, size_t ns,
                                        const char *sa, jl_error **err)
{
    const char *hold[] = {"gpu_model"};
    jl_compare_options co = {by, base_v, hold, hold_gpu ? 1 : 0, {-1, 1e-9}};
    jl_compare_result *cr = NULL;
    jl_error *cerr = NULL;
    jl_status st = JL_OK;
    if (jl_compare(r->l, (const jl_slo **)slos, ns, &co, &cr, &cerr) == JL_OK) {
        char *rel = jl__asprintf("data/compare-%s.json", by);
        char *relc = jl__asprintf("data/compare-%s.csv", by);
        char *pc = jl__asprintf("%s/%s", r->root, relc ? relc : "");
        st = jl__report_write_json_with_errors(r, rel, jl_compare_document(cr, r->l), err);
        if (!st)
            st = jl_write_compare_csv(pc, cr, r->l, err);
        if (!st) {
            char *what = jl__asprintf("joules.compare/1: each %s against %s=%s at matched SLOs "
                                      "(the paper's Sec. 4.3)",
                                      by, by, base_v);
            /* the baseline is a value from the data: one shell word */
            char *qb = jl_shell_quote(base_v);
            char *cmdl = jl__asprintf("joules compare --json --by %s --baseline %s%s PATH...", by,
                                      qb ? qb : "''", sa ? sa : "");
            jl__report_add_data(r, rel, what, cmdl);
            free(cmdl);
            cmdl = jl__asprintf("joules compare --csv FILE --by %s --baseline %s%s PATH...", by,
                                qb ? qb : "''", sa ? sa : "");
            free(qb);
            jl__report_add_data(r, relc, "one row per comparison", cmdl);
            free(cmdl);
            free(what);
        }
        free(rel);
        free(relc);
        free(pc);
    } else {
        char *m = cerr ? jl_error_format(cerr) : NULL;
        jl__report_note(r, "comparison by %s not written: %s", by, m ? m : "?");
        free(m);
    }
    jl_error_free(cerr);
    jl_compare_result_free(cr);
    return st;
}

/* data/compare-precision.*, when two or more precisions were measured. */
static jl_status write_precision_document(jl__report_report *r, jl_error **err)
{
    char **precs = NULL;
    size_t np = distinct_values(r->l, "precision", &precs);
    jl_status st = JL_OK;
    if (np >= 2) {
        const char *base_p = precs[0];
        for (size_t i = 0; i < np; i++)
            if (jl_precision_is_reference(precs[i]))
                base_p = precs[i];
        /* the defaults of `joules compare --by precision` */
        jl_precision_options po;
        jl_precision_options_default(&po);
        po.baseline = base_p;
        jl_precision_result *pr = NULL;
        jl_error *perr = NULL;
        if (jl_compare_precision(r->l, &po, &pr, &perr) == JL_OK) {
            char *pc = jl__asprintf("%s/data/compare-precision.csv", r->root);
            st = jl__report_write_json_with_errors(r, "data/compare-precision.json",
                                                   jl_precision_document(pr, r->l), err);
            if (!st)
                st = jl_write_precision_csv(pc, pr, r->l, err);
            free(pc);
            if (!st) {
                char *qb = jl_shell_quote(base_p);
                char *cmdl =
                    jl__asprintf("joules compare --json --by precision --baseline %s PATH...",
                                 qb ? qb : "''");
                jl__report_add_data(
                    r, "data/compare-precision.json",
                    "joules.compare/1: each run of another precision against its twin (the paper's Sec. 4.4)",
                    cmdl);
                free(cmdl);
                cmdl =
                    jl__asprintf("joules compare --csv FILE --by precision --baseline %s PATH...",
                                 qb ? qb : "''");
                free(qb);
                jl__report_add_data(r, "data/compare-precision.csv", "one row per precision pair",
                                    cmdl);
                free(cmdl);
            }
        } else {
            char *m = perr ? jl_error_format(perr) : NULL;
            jl__report_note(r, "precision comparison not written: %s", m ? m : "?");
            free(m);
        }
        jl_error_free(perr);
        jl_precision_result_free(pr);
    }
    free_values(precs, np);
    return st;
}

/* Every command's document in data/, in phases: the runs' (summary,
 * check, frontier), the picks, the comparisons by GPU model (baseline:
 * the page's, r->gpu_baseline) and by GPU count (the smallest, GPU model
 * held) when the runs have two or more values, the precision pairs. */
jl_status jl__report_write_documents(jl__report_report *r, jl_error **err)
{
    jl_status st = write_run_documents(r, err);
    if (st)
        return st;
    const jl_slo *slos[16];
    size_t ns = slos_in_use(r, slos, 16);
    char *sa = slo_args(slos, ns);
    st = write_pick_documents(r, slos, ns, sa, err);
    static const char *const bys[] = {"gpu_model", "num_gpus"};
    for (size_t k = 0; k < 2 && !st; k++) {
        jl__report_progress(r, "documents", 4 + k, 6, bys[k]);
        char **vals = NULL;
        size_t nv = distinct_values(r->l, bys[k], &vals);
        if (nv >= 2) {
            const char *base_v = vals[0];
            if (k == 1) { /* numerically smallest GPU count */
                for (size_t i = 1; i < nv; i++)
                    if (atof(vals[i]) < atof(base_v))
                        base_v = vals[i];
            } else if (r->gpu_baseline) { /* the page's baseline (groups.c) */
                base_v = r->gpu_baseline;
            }
            st = write_compare_document(r, bys[k], base_v, k == 1, slos, ns, sa, err);
        }
        free_values(vals, nv);
    }
    if (!st)
        st = write_precision_document(r, err);
    free(sa);
    return st;
}

/* data/answers.csv: every cell of the answer tables, one row per (model,
 * task), GPU scope ("all" or a GPU model) and SLO of the group's set. The
 * energy is per item (token, image or video: the `item` column), and for
 * LLMs per response too. */
jl_status jl__report_write_answers_csv(jl__report_report *r, jl_error **err)
{
    jl__strbuf b;
    jl__strbuf_init(&b);
    static const char *const head[] = {"model",
                                       "task",
                                       "workload",
                                       "item",
                                       "gpu_scope",
                                       "slo",
                                       "is_group_slo",
                                       "runs_meeting_slo",
                                       "file",
                                       "run",
                                       "gpu_model",
                                       "num_gpus",
                                       "precision",
                                       "max_batch_size",
                                       "energy_per_item_j",
                                       "energy_per_response_j",
                                       "median_itl_s",
                                       "batch_latency_s",
                                       "avg_power_w",
                                       "closest_worst_miss",
                                       "slo_figure",
                                       "slo_value",
                                       NULL};
    jl__csvw w;
    jl__csvw_begin_buf(&w, &b);
    jl__csvw_cells(&w, head);
    jl__csvw_end(&w);
    for (size_t i = 0; i < r->n_groups; i++) {
        jl__report_group *g = &r->groups[i];
        for (long k = -1; k < (long)g->n_gpu_models; k++)
            for (size_t j = 0; j < g->n_set; j++) {
                const jl__report_pick *p =
                    k < 0 ? &g->set_picks[j] : &g->gpu_set_picks[(size_t)k * g->n_set + j];
                jl__csvw_cell(&w, g->model);
                jl__csvw_cell(&w, g->task);
                jl__csvw_cell(&w, g->workload);
                jl__csvw_cell(&w, g->item);
                jl__csvw_cell(&w, k < 0 ? "all" : g->gpu_models[k]);
                jl__csvw_cell(&w, g->set[j]->text);
                jl__csvw_cell(&w, j == g->primary ? "true" : "false");
                jl__csvw_cellf(&w, "%zu", p->n_meeting);
                const jl_summary *s = p->run >= 0 ? r->l->items[p->run] : NULL;
                if (s) {
                    jl__csvw_cell(&w, s->file);
                    jl__csvw_cell(&w, s->run);
                    jl__csvw_cell(&w, s->attrs.gpu_model);
                    jl__csvw_cellf(&w, "%ld", s->attrs.num_gpus);
                    jl__csvw_cell(&w, s->attrs.precision);
                    jl__csvw_cellf(&w, "%ld", s->attrs.max_batch_size);
                    jl__csvw_num(&w, s->fig[jl__report_energy_fig(s)]);
                    jl__csvw_num(&w, jl_attrs_is_diffusion(&s->attrs)
                                         ? NAN
                                         : s->fig[JL_FIG_ENERGY_PER_REQUEST_J]);
                    jl__csvw_num(&w, s->fig[JL_FIG_MEDIAN_ITL_S]);
                    jl__csvw_num(&w, s->fig[JL_FIG_BATCH_LATENCY_S]);
                    jl__csvw_num(&w, s->fig[JL_FIG_AVG_POWER_W]);
                    jl__csvw_empty(&w); /* closest_worst_miss: a run meets the SLO */
                } else {
                    for (int q = 0; q < 11; q++) /* file .. avg_power_w */
                        jl__csvw_empty(&w);
                    jl__csvw_num(&w, p->closest >= 0 ? p->worst_miss : NAN);
                }
                /* the figure of the SLO's first condition, and the pick's value */
                int sf = g->set[j]->n
                             ? (g->kind == RP_KIND_LLM ? g->set[j]->conds[0].figure_llm
                                                       : g->set[j]->conds[0].figure_diffusion)
                             : -1;
                jl__csvw_cell(&w, sf >= 0 ? jl_figure_name((jl_figure)sf) : NULL);
                jl__csvw_num(&w, s && sf >= 0 ? s->fig[sf] : NAN);
                jl__csvw_end(&w);
            }
    }
    jl_status st = jl__report_write_buf(r, "data/answers.csv", &b, err);
    if (!st)
        jl__report_add_data(
            r, "data/answers.csv",
            "the answer tables: per (model, task), GPU scope (all or one GPU model) and SLO "
            "of the set, the minimum-energy run meeting it (energy per item: token, image "
            "or video; empty when none meets: closest_worst_miss)",
            NULL);
    return st;
}

/* The report group's diagnosis summary for report.json: that of its pick
 * (else its representative run), null when none. */
static json_t *jl__report_group_diagnosis_json(const jl__report_report *r, size_t gi)
{
    const jl__report_group *g = &r->groups[gi];
    long run = g->pick.run >= 0 ? g->pick.run : g->representative;
    const jl_run_diagnosis *d = run >= 0 ? jl__report_diagnosis_of(r, (size_t)run) : NULL;
    if (!d)
        return json_null();
    double best_change;
    const jl_finding *best = jl__report_best_change(d, &best_change);
    json_t *bo = best ? json_pack("{s:s,s:o,s:s}", "kind", best->kind, "predicted_energy_change",
                                  jl_json_number(best_change), "message", best->message)
                      : json_null();
    return json_pack("{s:o,s:s,s:o,s:s,s:o,s:o,s:s,s:s?,s:o}", "run", jl_run_key_to_json(d->run),
                     "basis", g->pick.run >= 0 ? "pick" : "representative", "utilisation",
                     jl_json_number(d->utilisation), "utilisation_source", d->utilisation_source,
                     "static_energy_share", jl_json_number(d->static_energy_share), "batch_ceiling",
                     jl_json_number(d->ceiling.ceiling), "batch_limit",
                     jl_batch_limit_name(d->ceiling.limit), "batch_evidence", d->ceiling.evidence,
                     "best_change", bo);
}

static json_t *run_key_or_null(const jl__report_report *r, long run)
{
    return run >= 0 ? jl_run_key_to_json(r->l->items[run]) : json_null();
}

/* report.json: what the page and the figures show, for notebooks. */
/* The first screen's answer of one kind of work (groups.c). */
static json_t *headline_json(const jl__report_report *r, const jl__report_headline *h)
{
    json_t *o = json_object(), *sides = json_array();
    json_object_set_new(o, "n_groups", json_integer((json_int_t)h->n_groups));
    json_object_set_new(o, "n_on_two_or_more_gpu_models", json_integer((json_int_t)h->n_multi));
    for (size_t j = 0; j < h->n_sides; j++)
        for (int set = 0; set < 2; set++) {
            const jl__report_side *sd = set ? &h->in_set[j] : &h->at_slo[j];
            json_t *so = json_object();
            json_object_set_new(so, "gpu_model", json_string(sd->gpu));
            json_object_set_new(so, "at", json_string(set ? "every_slo_of_the_sets" : "group_slo"));
            json_object_set_new(so, "n", json_integer((json_int_t)sd->n));
            json_object_set_new(so, "wins", json_integer((json_int_t)sd->wins));
            json_object_set_new(so, "losses", json_integer((json_int_t)sd->losses));
            json_object_set_new(so, "ties", json_integer((json_int_t)sd->ties));
            json_object_set_new(so, "median_energy_change", jl_json_number(sd->median));
            json_object_set_new(so, "min_energy_change", jl_json_number(sd->min));
            json_object_set_new(so, "max_energy_change", jl_json_number(sd->max));
            json_array_append_new(sides, so);
        }
    json_object_set_new(o, "vs_baseline", sides);
    json_object_set_new(o, "least_energy_most_often",
                        h->most_often ? json_string(h->most_often) : json_null());
    json_object_set_new(o, "least_energy_most_often_n", json_integer((json_int_t)h->most_often_n));
    json_object_set_new(o, "cheapest", run_key_or_null(r, h->cheapest));
    return o;
}

json_t *jl__report_report_document(jl__report_report *r)
{
    json_t *doc = json_object(), *groups = json_array(), *figs = json_array();
    json_object_set_new(doc, "schema", json_string("joules.report/1"));
    /* the first screen: the baseline of every change, the answer per kind of work */
    json_object_set_new(doc, "gpu_baseline",
                        r->gpu_baseline ? json_string(r->gpu_baseline) : json_null());
    json_t *hl = json_object();
    for (int k = 0; k < RP_KIND_COUNT; k++)
        if (r->headline[k].n_groups)
            json_object_set_new(hl, jl__report_kind_name((jl__report_kind)k),
                                headline_json(r, &r->headline[k]));
    json_object_set_new(doc, "headline", hl);
    for (size_t i = 0; i < r->n_groups; i++) {
        jl__report_group *g = &r->groups[i];
        json_t *o = json_object(), *gp = json_array(), *fd = json_array();
        json_object_set_new(o, "model", g->model ? json_string(g->model) : json_null());
        json_object_set_new(o, "task", g->task ? json_string(g->task) : json_null());
        json_object_set_new(o, "workload", g->workload ? json_string(g->workload) : json_null());
        json_object_set_new(o, "slug", json_string(g->slug));
        json_object_set_new(o, "slo", json_string(g->slo_text));
        char *canon = g->slo ? jl_slo_canonical(g->slo) : NULL;
        json_object_set_new(o, "slo_canonical", canon ? json_string(canon) : json_null());
        free(canon);
        json_object_set_new(o, "n_runs", json_integer((json_int_t)g->n_runs));
        json_object_set_new(o, "pick", run_key_or_null(r, g->pick.run));
        json_object_set_new(o, "runs_meeting_slo", json_integer((json_int_t)g->pick.n_meeting));
        for (size_t k = 0; k < g->n_gpu_models; k++) {
            json_t *p = json_object();
            json_object_set_new(p, "gpu_model", json_string(g->gpu_models[k]));
            json_object_set_new(p, "pick", run_key_or_null(r, g->gpu_picks[k].run));
            json_object_set_new(p, "runs_meeting_slo",
                                json_integer((json_int_t)g->gpu_picks[k].n_meeting));
            json_array_append_new(gp, p);
        }
        json_object_set_new(o, "gpu_picks", gp);
        json_object_set_new(o, "item", json_string(g->item));
        json_t *set = json_array();
        for (size_t j = 0; j < g->n_set; j++) {
            json_t *so = json_object(), *per = json_object();
            json_object_set_new(so, "slo", json_string(g->set[j]->text));
            json_object_set_new(so, "pick", run_key_or_null(r, g->set_picks[j].run));
            json_object_set_new(so, "runs_meeting_slo",
                                json_integer((json_int_t)g->set_picks[j].n_meeting));
            for (size_t k = 0; k < g->n_gpu_models; k++)
                json_object_set_new(per, g->gpu_models[k],
                                    run_key_or_null(r, g->gpu_set_picks[k * g->n_set + j].run));
            json_object_set_new(so, "pick_per_gpu_model", per);
            json_array_append_new(set, so);
        }
        json_object_set_new(o, "slo_set", set);
        json_object_set_new(o, "representative", run_key_or_null(r, g->representative));
        for (size_t k = 0; k < g->n_findings; k++)
            json_array_append_new(fd, json_string(g->findings[k]));
        json_object_set_new(o, "findings", fd);
        json_object_set_new(o, "diagnosis", jl__report_group_diagnosis_json(r, i));
        json_array_append_new(groups, o);
    }
    json_object_set_new(doc, "groups", groups);
    for (size_t i = 0; i < r->n_figs; i++) {
        jl__report_figure *f = &r->figs[i];
        json_t *o = f->meta ? json_deep_copy(f->meta) : json_object();
        json_object_set_new(o, "id", json_string(f->id));
        json_object_set_new(o, "kind", json_string(jl__report_fig_kind_name(f->kind)));
        json_object_set_new(o, "title", json_string(f->title ? f->title : f->id));
        json_object_set_new(o, "group",
                            f->group >= 0 ? json_string(r->groups[f->group].slug) : json_null());
        json_object_set_new(o, "n_points", json_integer((json_int_t)f->n_points));
        json_array_append_new(figs, o);
    }
    json_object_set_new(doc, "figures", figs);
    /* every data document and the command printing the same bytes (PATH...
     * stands for the report's inputs and selection, FILE for a CSV path) */
    json_t *files = json_array();
    for (size_t i = 0; i < r->n_data; i++)
        json_array_append_new(files, json_pack("{s:s,s:s,s:s?}", "path", r->data[i].path, "what",
                                               r->data[i].what, "command", r->data[i].cmd));
    json_object_set_new(doc, "data", files);
    json_object_set_new(doc, "errors", jl_errors_to_json(r->errors));
    return doc;
}
