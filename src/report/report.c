/* joules report: the analysis (groups, SLO picks, findings), the data/
 * documents, and the order in which the directory is built. Figures:
 * figures.c; the page: html.c; notebooks: notebooks.c. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "joules/choice.h"
#include "joules/output.h"
#include "joules/frontier.h"
#include "report/report_internal.h"
#include "report/series.h"

void jl_report_options_default(jl_report_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->max_plot_points = 1200;
}

void jl_report_result_clear(jl_report_result *res)
{
    if (!res)
        return;
    for (size_t i = 0; i < res->n_notes; i++)
        free(res->notes[i]);
    free(res->notes);
    memset(res, 0, sizeof *res);
}

const char *rp_fig_kind_name(rp_fig_kind k)
{
    static const char *const names[] = {"power", "batch_trends", "frontier", "gpu_comparison",
                                        "precision", "model_fit", "task_overview"};
    return (unsigned)k < RP_FIG_KIND_COUNT ? names[k] : "?";
}

/* ---- helpers ---------------------------------------------------------------- */

static char *rp_path(const rp_report *r, const char *rel)
{
    return jl_asprintf("%s/%s", r->root, rel);
}

jl_status rp_mkdir(rp_report *r, const char *rel, jl_error **err)
{
    char *p = rp_path(r, rel);
    if (!p)
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    if (mkdir(p, 0755) != 0 && errno != EEXIST) {
        jl_status st = jl_fail_output(err, JL_EIO, p, NULL, NULL, -1, "cannot create directory: %s",
                               strerror(errno));
        free(p);
        return st;
    }
    free(p);
    return JL_OK;
}

jl_status rp_write_text(rp_report *r, const char *rel, const char *text, jl_error **err)
{
    if (!text)
        return jl_fail(err, JL_ENOMEM, rel, NULL, NULL, -1, "out of memory");
    char *p = rp_path(r, rel);
    if (!p)
        return jl_fail(err, JL_ENOMEM, rel, NULL, NULL, -1, "out of memory");
    jl_status st = jl_write_file_atomic(p, text, strlen(text), err);
    free(p);
    return st;
}

jl_status rp_write_json(rp_report *r, const char *rel, const json_t *doc, jl_error **err)
{
    if (!doc)
        return jl_fail(err, JL_ENOMEM, rel, NULL, NULL, -1, "out of memory");
    char *p = rp_path(r, rel);
    if (!p)
        return jl_fail(err, JL_ENOMEM, rel, NULL, NULL, -1, "out of memory");
    jl_status st = jl_write_json(p, doc, err);
    free(p);
    return st;
}

static int grow(void **arr, size_t *cap, size_t n, size_t sz)
{
    if (n < *cap)
        return 1;
    size_t nc = *cap ? *cap * 2 : 16;
    void *p = realloc(*arr, nc * sz);
    if (!p)
        return 0;
    memset((char *)p + *cap * sz, 0, (nc - *cap) * sz);
    *arr = p;
    *cap = nc;
    return 1;
}

void rp_progress(rp_report *r, const char *phase, size_t done, size_t total, const char *current)
{
    if (r->opt.progress)
        r->opt.progress(r->opt.progress_ctx, phase, done, total, current ? current : "");
}

void rp_note(rp_report *r, const char *fmt, ...)
{
    if (!grow((void **)&r->notes, &r->cap_notes, r->n_notes, sizeof *r->notes))
        return;
    va_list ap;
    va_start(ap, fmt);
    char *s = jl_vasprintf(fmt, ap);
    va_end(ap);
    if (s)
        r->notes[r->n_notes++] = s;
}

jl_status rp_add_data(rp_report *r, const char *path, const char *what, const char *cmd)
{
    if (!grow((void **)&r->data, &r->cap_data, r->n_data, sizeof *r->data))
        return JL_ENOMEM;
    rp_data_file *d = &r->data[r->n_data];
    d->path = jl_strdup(path);
    d->what = jl_strdup(what);
    d->cmd = cmd ? jl_strdup(cmd) : NULL;
    if (!d->path || !d->what) {
        free(d->path);
        free(d->what);
        return JL_ENOMEM;
    }
    r->n_data++;
    return JL_OK;
}

rp_figure *rp_add_figure(rp_report *r, rp_fig_kind kind, long group, const char *id)
{
    if (!grow((void **)&r->figs, &r->cap_figs, r->n_figs, sizeof *r->figs))
        return NULL;
    rp_figure *f = &r->figs[r->n_figs];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->group = group;
    if (!(f->id = jl_strdup(id)))
        return NULL;
    r->n_figs++;
    return f;
}

rp_kind rp_kind_of(const jl_summary *s)
{
    if (!jl_attrs_is_diffusion(&s->attrs))
        return RP_KIND_LLM;
    char buf[32];
    if (jl_attrs_get(&s->attrs, "item", buf, sizeof buf) == 0)
        return !strcmp(buf, "video") ? RP_KIND_VIDEO : RP_KIND_IMAGE;
    return s->attrs.num_frames > 1 ? RP_KIND_VIDEO : RP_KIND_IMAGE;
}

const char *rp_item(const jl_summary *s)
{
    static const char *const items[] = {"token", "image", "video"};
    return items[rp_kind_of(s)];
}

const char *rp_energy_unit(const jl_summary *s)
{
    static const char *const u[] = {"J/token", "J/image", "J/video"};
    return u[rp_kind_of(s)];
}

const char *rp_throughput_unit(const jl_summary *s)
{
    static const char *const u[] = {"tokens/s", "images/s", "videos/s"};
    return u[rp_kind_of(s)];
}

void rp_cmp_note(rp_report *r, const char *fmt, ...)
{
    char **p = realloc(r->cmp_notes, (r->n_cmp_notes + 1) * sizeof *p);
    if (!p)
        return;
    r->cmp_notes = p;
    va_list ap;
    va_start(ap, fmt);
    char *s = jl_vasprintf(fmt, ap);
    va_end(ap);
    if (s)
        r->cmp_notes[r->n_cmp_notes++] = s;
}

static void figure_free(rp_figure *f)
{
    free(f->id);
    free(f->title);
    free(f->caption);
    free(f->note);
    free(f->svg);
    json_decref(f->meta);
}

void rp_drop_last_figure(rp_report *r)
{
    if (r->n_figs)
        figure_free(&r->figs[--r->n_figs]);
}

int rp_energy_fig(const jl_summary *s)
{
    return jl_attrs_is_diffusion(&s->attrs) ? JL_FIG_ENERGY_PER_ITEM_J : JL_FIG_ENERGY_PER_TOKEN_J;
}

int rp_latency_fig(const jl_summary *s)
{
    return jl_attrs_is_diffusion(&s->attrs) ? JL_FIG_BATCH_LATENCY_S : JL_FIG_MEDIAN_ITL_S;
}

int rp_throughput_fig(const jl_summary *s)
{
    return jl_attrs_is_diffusion(&s->attrs) ? JL_FIG_ITEMS_PER_S : JL_FIG_OUTPUT_THROUGHPUT_TOK_S;
}

char *rp_config_label(const jl_summary *s)
{
    const jl_attrs *a = &s->attrs;
    char k[160];
    rp_knobs_text(s, k, sizeof k);
    return jl_asprintf("%s x%ld, %s, batch %ld%s%s", a->gpu_model ? a->gpu_model : "?", a->num_gpus,
                       a->precision ? a->precision : "?", a->max_batch_size, k[0] ? ", " : "", k);
}

void rp_csv_str(jl_strbuf *b, const char *s)
{
    if (!s)
        return;
    if (!strpbrk(s, ",\"\r\n")) {
        jl_strbuf_puts(b, s);
        return;
    }
    jl_strbuf_puts(b, "\"");
    for (; *s; s++)
        jl_strbuf_append(b, *s == '"' ? "\"\"" : s, *s == '"' ? 2 : 1);
    jl_strbuf_puts(b, "\"");
}

void rp_csv_num(jl_strbuf *b, double v)
{
    jl_strbuf_puts(b, ",");
    if (isfinite(v))
        jl_strbuf_printf(b, "%.17g", v);
}

double rp_tdp_w(const rp_report *r, const jl_summary *s)
{
    return jl_run_gpu_tdp_w(&s->attrs, r->opt.desc);
}

void rp_fmt_num(char *buf, size_t cap, double v, int sig)
{
    if (!isfinite(v)) {
        snprintf(buf, cap, "\xe2\x80\x94"); /* em dash */
        return;
    }
    double a = fabs(v);
    if (a == 0) {
        snprintf(buf, cap, "0");
        return;
    }
    int mag = (int)floor(log10(a));
    if (mag >= sig - 1) {
        /* an integer, with thousands separators */
        char tmp[64];
        snprintf(tmp, sizeof tmp, "%.0f", a);
        size_t n = strlen(tmp), o = 0;
        char out[96];
        if (v < 0)
            out[o++] = '-';
        for (size_t i = 0; i < n && o < sizeof out - 2; i++) {
            if (i && (n - i) % 3 == 0)
                out[o++] = ',';
            out[o++] = tmp[i];
        }
        out[o] = 0;
        snprintf(buf, cap, "%s", out);
        return;
    }
    int dec = sig - 1 - mag;
    if (dec > 9)
        dec = 9;
    snprintf(buf, cap, "%.*f", dec, v);
}

/* ---- groups, picks, findings --------------------------------------------------- */

/* The SLOs judging a group of this workload and kind: the last --slo
 * matching it (one), else the paper's set for the kind (the middle one is
 * the group's SLO). */
static size_t slo_set_for(rp_report *r, const char *workload, rp_kind kind,
                          const jl_slo **set, size_t *primary)
{
    static const char *const kind_names[] = {"llm", "image", "video"};
    const jl_slo *best = NULL;
    for (size_t i = 0; i < r->opt.n_slos; i++) {
        const jl_report_slo *e = &r->opt.slos[i];
        if (!e->workload || (workload && !strcmp(e->workload, workload)) ||
            (kind != RP_KIND_LLM && !strcmp(e->workload, kind_names[kind])))
            best = e->slo;
    }
    *primary = 0;
    if (best) {
        set[0] = best;
        return 1;
    }
    size_t n = 0;
    for (size_t k = 0; k < RP_SET_MAX; k++)
        if (r->slo_sets[kind][k])
            set[n++] = r->slo_sets[kind][k];
    *primary = n / 2;
    return n;
}

/* The minimum-energy run meeting the SLO among runs[0..n) (optionally only
 * those on one GPU model): jl_pick_runs(), the same rule as `joules pick`. */
static jl_status pick_min_energy(const jl_summary_list *l, const size_t *runs, size_t n,
                                 const jl_slo *slo, const char *gpu_model, rp_pick *out,
                                 jl_error **err)
{
    out->run = -1;
    out->n_meeting = out->n_missing = 0;
    out->closest = -1;
    out->worst_miss = NAN;
    size_t *sub = jl_calloc_array(n ? n : 1, sizeof *sub);
    if (!sub)
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    size_t m = 0;
    for (size_t k = 0; k < n; k++) {
        const jl_summary *s = l->items[runs[k]];
        if (gpu_model && (!s->attrs.gpu_model || strcmp(s->attrs.gpu_model, gpu_model)))
            continue;
        sub[m++] = runs[k];
    }
    jl_pick p;
    memset(&p, 0, sizeof p);
    jl_status st = jl_pick_runs(l, sub, m, slo, NULL, &p, err);
    free(sub);
    if (st)
        return st;
    if (p.status == JL_PICK_FEASIBLE)
        out->run = p.choice;
    else if (p.status == JL_PICK_INFEASIBLE) {
        out->closest = p.choice;
        out->worst_miss = p.worst_miss;
    }
    out->n_meeting = p.n_feasible;
    out->n_missing = p.n_missing;
    jl_pick_clear(&p);
    return JL_OK;
}

static char *slugify(const char *model, const char *task)
{
    const char *m = model ? strrchr(model, '/') : NULL;
    m = m ? m + 1 : (model ? model : "model");
    char *raw = jl_asprintf("%s-%s", m, task ? task : "task");
    if (!raw)
        return NULL;
    size_t o = 0;
    int dash = 0;
    for (size_t i = 0; raw[i]; i++) {
        char c = raw[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.') {
            raw[o++] = c;
            dash = 0;
        } else if (!dash && o) {
            raw[o++] = '-';
            dash = 1;
        }
    }
    while (o && raw[o - 1] == '-')
        o--;
    raw[o] = 0;
    return raw;
}

static void add_finding(rp_group *g, char *s)
{
    if (!s)
        return;
    char **p = realloc(g->findings, (g->n_findings + 1) * sizeof *p);
    if (!p) {
        free(s);
        return;
    }
    g->findings = p;
    g->findings[g->n_findings++] = s;
}

/* Latency for people: ms for ITL, s for batch latency. */
static void fmt_latency(char *buf, size_t cap, const jl_summary *s, double v)
{
    char n[48];
    if (jl_attrs_is_diffusion(&s->attrs)) {
        rp_fmt_num(n, sizeof n, v, 3);
        snprintf(buf, cap, "%s s", n);
    } else {
        rp_fmt_num(n, sizeof n, v * 1000, 3);
        snprintf(buf, cap, "%s ms", n);
    }
}

static void group_findings(rp_report *r, rp_group *g)
{
    const jl_summary_list *l = r->l;
    char a[48], b[48], c[64], d[64];
    /* SLO outcome */
    if (g->pick.run < 0 && g->pick.closest >= 0) {
        char *cfg = rp_config_label(l->items[g->pick.closest]);
        rp_fmt_num(a, sizeof a, g->pick.worst_miss * 100, 2);
        add_finding(g, jl_asprintf("No run meets %s; the closest (%s) misses it by %s%%.",
                                   g->slo_text, cfg ? cfg : "?", a));
        free(cfg);
    } else if (g->pick.run < 0) {
        add_finding(g, jl_asprintf("No run can be judged by %s: the runs lack the figures it "
                                   "needs.", g->slo_text));
    }
    /* GPU comparison at the SLO */
    if (g->n_gpu_models >= 2) {
        long best = -1, worst = -1;
        for (size_t k = 0; k < g->n_gpu_models; k++) {
            long run = g->gpu_picks[k].run;
            if (run < 0)
                continue;
            double e = l->items[run]->fig[rp_energy_fig(l->items[run])];
            if (best < 0 || e < l->items[best]->fig[rp_energy_fig(l->items[best])])
                best = run;
            if (worst < 0 || e > l->items[worst]->fig[rp_energy_fig(l->items[worst])])
                worst = run;
        }
        if (best >= 0 && worst >= 0 && best != worst) {
            const jl_summary *sb = l->items[best], *sw = l->items[worst];
            double eb = sb->fig[rp_energy_fig(sb)], ew = sw->fig[rp_energy_fig(sw)];
            rp_fmt_num(a, sizeof a, (1 - eb / ew) * 100, 2);
            add_finding(g, jl_asprintf("At %s, %s x%ld (batch %ld) uses %s%% less energy than "
                                       "the best %s configuration (%s x%ld, batch %ld).",
                                       g->slo_text, sb->attrs.gpu_model, sb->attrs.num_gpus,
                                       sb->attrs.max_batch_size, a, sw->attrs.gpu_model,
                                       sw->attrs.gpu_model, sw->attrs.num_gpus,
                                       sw->attrs.max_batch_size));
        }
    }
    /* batch-size effect, per curve of the frontier */
    rp_series *ser = NULL;
    size_t nser = g->frontier ? rp_split_curves(l, g->frontier, &ser) : 0;
    for (size_t ci = 0; ci < nser; ci++) {
        const jl_curve *cv = &ser[ci].cv;
        char cfgname[256];
        snprintf(cfgname, sizeof cfgname, "%s x%ld (%s%s%s)", cv->gpu_model ? cv->gpu_model : "?",
                 cv->num_gpus, cv->precision ? cv->precision : "?", ser[ci].variant ? ", " : "",
                 ser[ci].variant ? ser[ci].variant : "");
        if (cv->n_points < 2)
            continue;
        const jl_curve_point *lo = &cv->points[0], *hi = &cv->points[cv->n_points - 1];
        if (lo->batch == hi->batch || !isfinite(lo->energy) || !isfinite(hi->energy) ||
            hi->energy <= 0)
            continue;
        const jl_summary *s = l->items[lo->run];
        rp_fmt_num(a, sizeof a, lo->energy, 3);
        rp_fmt_num(b, sizeof b, hi->energy, 3);
        fmt_latency(c, sizeof c, s, lo->latency);
        fmt_latency(d, sizeof d, s, hi->latency);
        double er = lo->energy / hi->energy, lr = hi->latency / lo->latency;
        char ers[32], lrs[32];
        rp_fmt_num(ers, sizeof ers, er, 2);
        rp_fmt_num(lrs, sizeof lrs, lr, 2);
        const char *item = rp_item(s);
        const char *latname = jl_attrs_is_diffusion(&s->attrs) ? "batch latency" : "median ITL";
        if (er >= 0.95 && er < 1.1) {
            char pct[32];
            rp_fmt_num(pct, sizeof pct, fabs(1 - 1 / er) * 100, 2);
            add_finding(g, jl_asprintf(
                               "On %s, the batch size barely matters for energy: batch "
                               "%ld \xe2\x86\x92 %ld changes energy per %s by %s%s%% (%s "
                               "\xe2\x86\x92 %s %s) while %s rises %s\xc3\x97 (%s \xe2\x86\x92 %s): "
                               "the GPU is already busy at batch %ld.",
                               cfgname, lo->batch, hi->batch, item, er >= 1 ? "\xe2\x88\x92" : "+",
                               pct, a, b, rp_energy_unit(s), latname, lrs, c, d, lo->batch));
        } else if (er >= 1)
            add_finding(g, jl_asprintf(
                               "On %s, raising the batch size from %ld to %ld cuts energy "
                               "per %s %s\xc3\x97 (%s \xe2\x86\x92 %s %s) while %s rises %s\xc3\x97 "
                               "(%s \xe2\x86\x92 %s).",
                               cfgname, lo->batch, hi->batch, item, ers, a, b, rp_energy_unit(s),
                               latname, lrs, c, d));
        else
            add_finding(g, jl_asprintf("On %s, energy per %s grows with batch size "
                                       "(%s \xe2\x86\x92 %s %s from batch %ld to %ld).",
                                       cfgname, item, a, b, rp_energy_unit(s), lo->batch, hi->batch));
        /* saturation: the last step of the curve */
        const jl_curve_point *pr = &cv->points[cv->n_points - 2];
        if (pr->batch != hi->batch && isfinite(pr->energy) && pr->energy > 0 && er >= 1) {
            double step = (hi->energy - pr->energy) / pr->energy * 100;
            char st[32];
            rp_fmt_num(st, sizeof st, fabs(step), 2);
            if (step < -10)
                add_finding(g, jl_asprintf("Not saturated on %s: going from batch %ld to %ld "
                                           "still cuts energy %s%% \xe2\x80\x94 larger batches "
                                           "(if memory allows) should save more.",
                                           cfgname, pr->batch, hi->batch, st));
            else if (step <= 3)
                add_finding(g, jl_asprintf("Near saturation on %s: batch %ld \xe2\x86\x92 %ld "
                                           "changes energy by only %s%s%%.",
                                           cfgname, pr->batch, hi->batch, step < 0 ? "\xe2\x88\x92" : "+",
                                           st));
        }
    }
    rp_series_free(ser, nser);
    /* static power at the pick */
    if (g->pick.run >= 0) {
        const jl_summary *s = l->items[g->pick.run];
        double share = s->fig[JL_FIG_STATIC_ENERGY_SHARE];
        if (isfinite(share)) {
            rp_fmt_num(a, sizeof a, share * 100, 2);
            add_finding(g, jl_asprintf("At the pick, idle (static) power is %s%% of the average "
                                       "power: that share of the energy is spent just keeping "
                                       "the GPU%s on.",
                                       a, s->attrs.num_gpus > 1 ? "s" : ""));
        }
    }
    /* validation */
    size_t warned = 0, failed = 0;
    for (size_t k = 0; k < g->n_runs; k++) {
        const jl_summary *s = l->items[g->runs[k]];
        int w = 0, fl = 0;
        for (size_t i = 0; i < s->n_warnings; i++) {
            const char *msg = s->warnings[i].message ? s->warnings[i].message : "";
            if (!strncmp(s->warnings[i].rule, "check:", 6)) {
                if (!strncmp(msg, "fail", 4))
                    fl = 1;
                else
                    w = 1;
            } else {
                w = 1;
            }
        }
        failed += fl;
        warned += w && !fl;
    }
    if (warned || failed)
        add_finding(g, jl_asprintf("Validation: %zu of %zu runs fail a rule and %zu more carry "
                                   "warnings (see the run table; their figures are less "
                                   "trustworthy).",
                                   failed, g->n_runs, warned));
}

static jl_status build_groups(rp_report *r, jl_error **err)
{
    static const char *const keys[] = {"model", "task"};
    jl_group_set gs;
    jl_status st = jl_group_runs(r->l, keys, 2, NULL, &gs, err);
    if (st)
        return st;
    r->groups = jl_calloc_array(gs.n ? gs.n : 1, sizeof *r->groups);
    if (!r->groups) {
        jl_group_set_clear(&gs);
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    }
    for (size_t i = 0; i < gs.n; i++) {
        rp_group *g = &r->groups[r->n_groups++];
        g->runs = gs.groups[i].runs;
        g->n_runs = gs.groups[i].n_runs;
        gs.groups[i].runs = NULL;
        const jl_summary *s0 = r->l->items[g->runs[0]];
        g->model = s0->attrs.model;
        g->task = s0->attrs.task;
        g->workload = s0->attrs.workload;
        for (size_t k = 0; r->fs && k < r->fs->n; k++) {
            const jl_frontier *f = &r->fs->frontiers[k];
            if (((!f->model && !g->model) || (f->model && g->model && !strcmp(f->model, g->model))) &&
                ((!f->task && !g->task) || (f->task && g->task && !strcmp(f->task, g->task))))
                g->frontier = f;
        }
        g->kind = rp_kind_of(s0);
        g->item = rp_item(s0);
        g->n_set = slo_set_for(r, g->workload, g->kind, g->set, &g->primary);
        g->slo = g->n_set ? g->set[g->primary] : NULL;
        g->slo_text = jl_strdup(g->slo ? g->slo->text : "");
        for (size_t j = 0; j < g->n_set; j++)
            if ((st = pick_min_energy(r->l, g->runs, g->n_runs, g->set[j], NULL, &g->set_picks[j],
                                      err))) {
                jl_group_set_clear(&gs);
                return st;
            }
        g->pick = g->set_picks[g->primary];
        /* distinct GPU models, sorted */
        for (size_t k = 0; k < g->n_runs; k++) {
            const char *gm = r->l->items[g->runs[k]]->attrs.gpu_model;
            if (!gm)
                continue;
            size_t j = 0;
            while (j < g->n_gpu_models && strcmp(g->gpu_models[j], gm) < 0)
                j++;
            if (j < g->n_gpu_models && !strcmp(g->gpu_models[j], gm))
                continue;
            char **nm = realloc(g->gpu_models, (g->n_gpu_models + 1) * sizeof *nm);
            if (!nm)
                break;
            g->gpu_models = nm;
            memmove(nm + j + 1, nm + j, (g->n_gpu_models - j) * sizeof *nm);
            nm[j] = jl_strdup(gm);
            g->n_gpu_models++;
        }
        g->gpu_picks = jl_calloc_array(g->n_gpu_models ? g->n_gpu_models : 1, sizeof *g->gpu_picks);
        g->gpu_set_picks = jl_calloc_array((g->n_gpu_models ? g->n_gpu_models : 1) * RP_SET_MAX,
                                           sizeof *g->gpu_set_picks);
        for (size_t k = 0; g->gpu_picks && g->gpu_set_picks && k < g->n_gpu_models; k++) {
            for (size_t j = 0; j < g->n_set; j++)
                if ((st = pick_min_energy(r->l, g->runs, g->n_runs, g->set[j], g->gpu_models[k],
                                          &g->gpu_set_picks[k * g->n_set + j], err))) {
                    jl_group_set_clear(&gs);
                    return st;
                }
            g->gpu_picks[k] = g->gpu_set_picks[k * g->n_set + g->primary];
        }
        /* representative run: the pick, else the lowest energy */
        g->representative = g->pick.run;
        if (g->representative < 0) {
            double best = INFINITY;
            for (size_t k = 0; k < g->n_runs; k++) {
                const jl_summary *s = r->l->items[g->runs[k]];
                double e = s->fig[rp_energy_fig(s)];
                if (g->representative < 0 || (isfinite(e) && e < best)) {
                    if (isfinite(e))
                        best = e;
                    g->representative = (long)g->runs[k];
                }
            }
        }
        /* a unique slug */
        char *slug = slugify(g->model, g->task);
        for (size_t k = 0; slug && k + 1 < r->n_groups; k++)
            if (!strcmp(r->groups[k].slug, slug)) {
                char *s2 = jl_asprintf("%s-%zu", slug, i + 1);
                free(slug);
                slug = s2;
                break;
            }
        g->slug = slug;
        if (!g->slug || !g->slo_text || !g->gpu_picks || !g->gpu_set_picks) {
            jl_group_set_clear(&gs);
            return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
        }
        group_findings(r, g);
    }
    jl_group_set_clear(&gs);
    return JL_OK;
}

/* ---- data/ ------------------------------------------------------------------------ */

static jl_status write_csv_file(rp_report *r, const char *rel,
                                jl_status (*fn)(const char *, const void *, const void *, jl_error **),
                                const void *a, const void *b, jl_error **err)
{
    char *p = rp_path(r, rel);
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
static size_t slos_in_use(const rp_report *r, const jl_slo **out, size_t cap)
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
    jl_strbuf b;
    jl_strbuf_init(&b);
    for (size_t i = 0; i < n; i++)
        jl_strbuf_printf(&b, " --slo '%s'", slos[i]->text);
    if (!n)
        jl_strbuf_puts(&b, "");
    return jl_strbuf_take(&b);
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
        v[j] = jl_strdup(buf);
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

static jl_status write_doc_with_errors(rp_report *r, const char *rel, json_t *doc, jl_error **err)
{
    if (doc)
        json_object_set_new(doc, "errors", jl_errors_to_json(r->errors));
    jl_status st = rp_write_json(r, rel, doc, err);
    json_decref(doc);
    return st;
}

static jl_status write_documents(rp_report *r, jl_error **err)
{
    jl_status st;
    json_t *doc = jl_summary_document(r->l, r->errors);
    st = rp_write_json(r, "data/summary.json", doc, err);
    json_decref(doc);
    if (st || (st = write_csv_file(r, "data/summary.csv", summaries_csv, r->l, NULL, err)))
        return st;
    rp_add_data(r, "data/summary.json", "joules.summary/1: every run's figures", "joules summarize --json PATH...");
    rp_add_data(r, "data/summary.csv", "one row per run, full precision", "joules summarize --csv FILE PATH...");

    rp_progress(r, "documents", 1, 6, "check");
    r->check_doc = jl_check_document(r->l, &r->rules, r->opt.desc, r->errors, NULL);
    if ((st = rp_write_json(r, "data/check.json", r->check_doc, err)))
        return st;
    rp_add_data(r, "data/check.json", "joules.check/1: every validation rule for every run", "joules check --json PATH...");
    rp_progress(r, "documents", 2, 6, "frontier");

    if (r->fs) {
        if ((st = write_doc_with_errors(r, "data/frontier.json", jl_frontier_set_to_json(r->fs, r->l), err)) ||
            (st = write_csv_file(r, "data/frontier.csv", frontier_csv, r->fs, r->l, err)))
            return st;
        rp_add_data(r, "data/frontier.json", "joules.frontier/1: time-energy frontiers and curves per (model, task)", "joules frontier --json PATH...");
        rp_add_data(r, "data/frontier.csv", "one row per frontier point", "joules frontier --csv FILE PATH...");
    }

    const jl_slo *slos[16];
    size_t ns = slos_in_use(r, slos, 16);
    char *sa = slo_args(slos, ns);
    char *cmdl = NULL;
    /* pick: every (model, task) at every SLO in use */
    rp_progress(r, "documents", 3, 6, "pick");
    jl_pick_set *ps = NULL;
    if ((st = jl_pick_all(r->l, slos, ns, NULL, &ps, err)))
        goto end;
    st = write_doc_with_errors(r, "data/pick.json", jl_pick_set_to_json(ps, r->l), err);
    if (!st) {
        char *p = jl_asprintf("%s/data/pick.csv", r->root);
        st = p ? jl_write_picks_csv(p, ps, r->l, err) : JL_ENOMEM;
        free(p);
    }
    jl_pick_set_free(ps);
    if (st)
        goto end;
    cmdl = jl_asprintf("joules pick --json%s PATH...", sa ? sa : "");
    rp_add_data(r, "data/pick.json", "joules.pick/1: the minimum-energy configuration per (model, task) and SLO", cmdl);
    free(cmdl);
    cmdl = jl_asprintf("joules pick --csv FILE%s PATH...", sa ? sa : "");
    rp_add_data(r, "data/pick.csv", "one row per pick", cmdl);
    free(cmdl);
    cmdl = NULL;

    /* compare: GPU models (baseline: the first), GPU counts (baseline: the
     * smallest, GPU model held), when the runs have two or more values */
    static const char *const bys[] = {"gpu_model", "num_gpus"};
    for (size_t k = 0; k < 2 && !st; k++) {
        rp_progress(r, "documents", 4 + k, 6, bys[k]);
        char **vals = NULL;
        size_t nv = distinct_values(r->l, bys[k], &vals);
        if (nv >= 2) {
            const char *base_v = vals[0];
            if (k == 1) { /* numerically smallest GPU count */
                for (size_t i = 1; i < nv; i++)
                    if (atof(vals[i]) < atof(base_v))
                        base_v = vals[i];
            } else if (r->opt.gpu_baseline) {
                base_v = r->opt.gpu_baseline;
            }
            const char *hold[] = {"gpu_model"};
            jl_compare_options co = {bys[k], base_v, hold, k == 1 ? 1 : 0, {-1, 1e-9}};
            jl_compare_result *cr = NULL;
            jl_error *cerr = NULL;
            if (jl_compare(r->l, slos, ns, &co, &cr, &cerr) == JL_OK) {
                char *rel = jl_asprintf("data/compare-%s.json", bys[k]);
                char *relc = jl_asprintf("data/compare-%s.csv", bys[k]);
                char *pc = jl_asprintf("%s/%s", r->root, relc ? relc : "");
                st = write_doc_with_errors(r, rel, jl_compare_to_json(cr, r->l), err);
                if (!st)
                    st = jl_write_compare_csv(pc, cr, r->l, err);
                if (!st) {
                    char *what = jl_asprintf("joules.compare/1: each %s against %s=%s at matched SLOs "
                                             "(the paper's Sec. 4.3)", bys[k], bys[k], base_v);
                    cmdl = jl_asprintf("joules compare --json --by %s --baseline %s%s PATH...", bys[k], base_v, sa ? sa : "");
                    rp_add_data(r, rel, what, cmdl);
                    free(cmdl);
                    cmdl = jl_asprintf("joules compare --csv FILE --by %s --baseline %s%s PATH...", bys[k], base_v, sa ? sa : "");
                    rp_add_data(r, relc, "one row per comparison", cmdl);
                    free(cmdl);
                    cmdl = NULL;
                    free(what);
                }
                free(rel);
                free(relc);
                free(pc);
            } else {
                char *m = cerr ? jl_error_format(cerr) : NULL;
                rp_note(r, "comparison by %s not written: %s", bys[k], m ? m : "?");
                free(m);
            }
            jl_error_free(cerr);
            jl_compare_result_free(cr);
        }
        free_values(vals, nv);
    }
    /* precision pairs, when two or more precisions were measured */
    char **precs = NULL;
    size_t np = st ? 0 : distinct_values(r->l, "precision", &precs);
    if (np >= 2) {
        const char *base_p = precs[0];
        for (size_t i = 0; i < np; i++)
            if (!strcmp(precs[i], "bfloat16") || !strcmp(precs[i], "bf16"))
                base_p = precs[i];
        /* the defaults of `joules compare --by precision` */
        jl_precision_options po;
        jl_precision_options_default(&po);
        po.baseline = base_p;
        jl_precision_result *pr = NULL;
        jl_error *perr = NULL;
        if (jl_compare_precision(r->l, &po, &pr, &perr) == JL_OK) {
            char *pc = jl_asprintf("%s/data/compare-precision.csv", r->root);
            st = write_doc_with_errors(r, "data/compare-precision.json", jl_precision_to_json(pr, r->l), err);
            if (!st)
                st = jl_write_precision_csv(pc, pr, r->l, err);
            free(pc);
            if (!st) {
                cmdl = jl_asprintf("joules compare --json --by precision --baseline %s PATH...", base_p);
                rp_add_data(r, "data/compare-precision.json",
                            "joules.compare/1: each run of another precision against its twin (the paper's Sec. 4.4)", cmdl);
                free(cmdl);
                cmdl = jl_asprintf("joules compare --csv FILE --by precision --baseline %s PATH...", base_p);
                rp_add_data(r, "data/compare-precision.csv", "one row per precision pair", cmdl);
                free(cmdl);
                cmdl = NULL;
            }
        } else {
            char *m = perr ? jl_error_format(perr) : NULL;
            rp_note(r, "precision comparison not written: %s", m ? m : "?");
            free(m);
        }
        jl_error_free(perr);
        jl_precision_result_free(pr);
    }
    free_values(precs, np);
end:
    free(sa);
    return st;
}

/* data/answers.csv: every cell of the answer tables, one row per (model,
 * task), GPU scope ("all" or a GPU model) and SLO of the group's set. The
 * energy is per item (token, image or video: the `item` column), and for
 * LLMs per response too. */
static jl_status write_answers_csv(rp_report *r, jl_error **err)
{
    jl_strbuf b;
    jl_strbuf_init(&b);
    jl_strbuf_puts(&b, "model,task,workload,item,gpu_scope,slo,is_group_slo,runs_meeting_slo,"
                       "file,run,gpu_model,num_gpus,precision,max_batch_size,energy_per_item_j,"
                       "energy_per_response_j,median_itl_s,batch_latency_s,avg_power_w,"
                       "closest_worst_miss\n");
    for (size_t i = 0; i < r->n_groups; i++) {
        rp_group *g = &r->groups[i];
        for (long k = -1; k < (long)g->n_gpu_models; k++)
            for (size_t j = 0; j < g->n_set; j++) {
                const rp_pick *p = k < 0 ? &g->set_picks[j] : &g->gpu_set_picks[(size_t)k * g->n_set + j];
                rp_csv_str(&b, g->model);
                jl_strbuf_puts(&b, ",");
                rp_csv_str(&b, g->task);
                jl_strbuf_puts(&b, ",");
                rp_csv_str(&b, g->workload);
                jl_strbuf_printf(&b, ",%s,", g->item);
                rp_csv_str(&b, k < 0 ? "all" : g->gpu_models[k]);
                jl_strbuf_puts(&b, ",");
                rp_csv_str(&b, g->set[j]->text);
                jl_strbuf_printf(&b, ",%s,%zu,", j == g->primary ? "true" : "false", p->n_meeting);
                const jl_summary *s = p->run >= 0 ? r->l->items[p->run] : NULL;
                if (s) {
                    rp_csv_str(&b, s->file);
                    jl_strbuf_puts(&b, ",");
                    rp_csv_str(&b, s->run);
                    jl_strbuf_puts(&b, ",");
                    rp_csv_str(&b, s->attrs.gpu_model);
                    jl_strbuf_printf(&b, ",%ld,", s->attrs.num_gpus);
                    rp_csv_str(&b, s->attrs.precision);
                    jl_strbuf_printf(&b, ",%ld", s->attrs.max_batch_size);
                    rp_csv_num(&b, s->fig[rp_energy_fig(s)]);
                    rp_csv_num(&b, jl_attrs_is_diffusion(&s->attrs) ? NAN : s->fig[JL_FIG_ENERGY_PER_REQUEST_J]);
                    rp_csv_num(&b, s->fig[JL_FIG_MEDIAN_ITL_S]);
                    rp_csv_num(&b, s->fig[JL_FIG_BATCH_LATENCY_S]);
                    rp_csv_num(&b, s->fig[JL_FIG_AVG_POWER_W]);
                    rp_csv_num(&b, NAN);
                } else {
                    jl_strbuf_puts(&b, ",,,,,");
                    for (int q = 0; q < 5; q++)
                        rp_csv_num(&b, NAN);
                    rp_csv_num(&b, p->closest >= 0 ? p->worst_miss : NAN);
                }
                jl_strbuf_puts(&b, "\n");
            }
    }
    char *text = jl_strbuf_take(&b);
    jl_status st = rp_write_text(r, "data/answers.csv", text, err);
    free(text);
    if (!st)
        rp_add_data(r, "data/answers.csv",
                    "the answer tables: per (model, task), GPU scope (all or one GPU model) and SLO "
                    "of the set, the minimum-energy run meeting it (energy per item: token, image "
                    "or video; empty when none meets: closest_worst_miss)", NULL);
    return st;
}

static json_t *run_key_or_null(const rp_report *r, long run)
{
    return run >= 0 ? jl_run_key_to_json(r->l->items[run]) : json_null();
}

/* report.json: what the page and the figures show, for notebooks. */
static json_t *report_document(rp_report *r)
{
    json_t *doc = json_object(), *groups = json_array(), *figs = json_array();
    json_object_set_new(doc, "schema", json_string("joules.report/1"));
    for (size_t i = 0; i < r->n_groups; i++) {
        rp_group *g = &r->groups[i];
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
            json_object_set_new(p, "runs_meeting_slo", json_integer((json_int_t)g->gpu_picks[k].n_meeting));
            json_array_append_new(gp, p);
        }
        json_object_set_new(o, "gpu_picks", gp);
        json_object_set_new(o, "item", json_string(g->item));
        json_t *set = json_array();
        for (size_t j = 0; j < g->n_set; j++) {
            json_t *so = json_object(), *per = json_object();
            json_object_set_new(so, "slo", json_string(g->set[j]->text));
            json_object_set_new(so, "pick", run_key_or_null(r, g->set_picks[j].run));
            json_object_set_new(so, "runs_meeting_slo", json_integer((json_int_t)g->set_picks[j].n_meeting));
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
        json_object_set_new(o, "diagnosis", rp_group_diagnosis_json(r, i));
        json_array_append_new(groups, o);
    }
    json_object_set_new(doc, "groups", groups);
    for (size_t i = 0; i < r->n_figs; i++) {
        rp_figure *f = &r->figs[i];
        json_t *o = f->meta ? json_deep_copy(f->meta) : json_object();
        json_object_set_new(o, "id", json_string(f->id));
        json_object_set_new(o, "kind", json_string(rp_fig_kind_name(f->kind)));
        json_object_set_new(o, "title", json_string(f->title ? f->title : f->id));
        json_object_set_new(o, "group", f->group >= 0 ? json_string(r->groups[f->group].slug) : json_null());
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

/* ---- the whole report -------------------------------------------------------------- */

static void report_free(rp_report *r)
{
    for (size_t i = 0; i < r->n_groups; i++) {
        rp_group *g = &r->groups[i];
        free(g->runs);
        free(g->slo_text);
        for (size_t k = 0; k < g->n_gpu_models; k++)
            free(g->gpu_models[k]);
        free(g->gpu_models);
        free(g->gpu_picks);
        free(g->gpu_set_picks);
        free(g->figure_note);
        free(g->slug);
        for (size_t k = 0; k < g->n_findings; k++)
            free(g->findings[k]);
        free(g->findings);
    }
    free(r->groups);
    for (size_t i = 0; i < r->n_figs; i++)
        figure_free(&r->figs[i]);
    free(r->figs);
    for (size_t i = 0; i < r->n_data; i++) {
        free(r->data[i].path);
        free(r->data[i].what);
        free(r->data[i].cmd);
    }
    free(r->data);
    for (size_t i = 0; i < r->n_notes; i++)
        free(r->notes[i]);
    free(r->notes);
    free(r->gnuplot_version);
    json_decref(r->check_doc);
    rp_model_free(r);
    jl_frontier_set_free(r->fs);
    for (int k = 0; k < RP_KIND_COUNT; k++)
        for (int j = 0; j < RP_SET_MAX; j++)
            jl_slo_free(r->slo_sets[k][j]);
    for (size_t i = 0; i < r->n_cmp_notes; i++)
        free(r->cmp_notes[i]);
    free(r->cmp_notes);
    free(r->root);
}

/* A previous report (data/report.json inside) or an empty directory. */
static int looks_like_report(const char *dir, const struct stat *sb)
{
    if (!S_ISDIR(sb->st_mode))
        return 0;
    char *marker = jl_asprintf("%s/data/report.json", dir);
    int ok = marker && access(marker, F_OK) == 0;
    free(marker);
    if (ok)
        return 1;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *de;
    int empty = 1;
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            empty = 0;
    closedir(d);
    return empty;
}

jl_status jl_report_write(const char *dir, const jl_summary_list *runs,
                          const jl_error_list *errors, const jl_report_options *opt,
                          jl_report_result *res, jl_error **err)
{
    rp_report r;
    memset(&r, 0, sizeof r);
    if (res)
        memset(res, 0, sizeof *res);
    r.l = runs;
    r.errors = errors;
    if (opt)
        r.opt = *opt;
    else
        jl_report_options_default(&r.opt);
    if (!r.opt.max_plot_points)
        r.opt.max_plot_points = 1200;
    if (r.opt.rules)
        r.rules = *r.opt.rules;
    else
        jl_ruleset_default(&r.rules);

    struct stat sb;
    if (!r.opt.replace && lstat(dir, &sb) == 0)
        return jl_fail(err, JL_EUSAGE, dir, NULL, NULL, -1,
                       "already exists (use --force to replace it)");
    /* --force replaces only what joules wrote: a directory holding a
     * previous report (data/report.json), or an empty one. Anything else
     * could be a user's own folder, and replacing it would lose data. */
    if (r.opt.replace && lstat(dir, &sb) == 0 && !looks_like_report(dir, &sb))
        return jl_fail(err, JL_EUSAGE, dir, NULL, NULL, -1,
                       "exists and is not a joules report (no data/report.json): not replacing it, even with --force");
    jl_status st = JL_OK;
    /* the paper's SLO sets (JL_REPORT_DEFAULT_SLO_* are their middle ones) */
    static const char *const sets[RP_KIND_COUNT][RP_SET_MAX] = {
        JL_REPORT_SLO_SET_LLM, JL_REPORT_SLO_SET_IMAGE, JL_REPORT_SLO_SET_VIDEO};
    for (int k = 0; !st && k < RP_KIND_COUNT; k++)
        for (int j = 0; !st && j < RP_SET_MAX; j++)
            st = jl_slo_parse(sets[k][j], &r.slo_sets[k][j], NULL, err);
    if (!st)
        st = jl_atomic_dir_open(dir, &r.root, err);
    if (st) {
        report_free(&r);
        return st;
    }
    /* the steps, each announced to the progress callback (a line per step
     * off a terminal, so no step is silent for long) */
    enum { N_STEPS = 9 };
    size_t step = 0;
#define RP_STEP(name)                                                                          \
    do {                                                                                       \
        if (!st && r.opt.progress)                                                             \
            r.opt.progress(r.opt.progress_ctx, "analysis", step, N_STEPS, name);               \
        step++;                                                                                \
    } while (0)
    if (!st)
        st = rp_mkdir(&r, "data", err);
    if (!st)
        st = rp_mkdir(&r, "data/timeseries", err);
    if (!st)
        st = rp_mkdir(&r, "figures", err);
    if (!st)
        st = rp_mkdir(&r, "notebooks-export", err);
    RP_STEP("frontiers");
    if (!st)
        st = jl_frontier_compute(runs, NULL, &r.fs, err);
    RP_STEP("groups and picks");
    if (!st)
        st = build_groups(&r, err);
    RP_STEP("model fits and diagnosis");
    if (!st)
        st = rp_model_compute(&r, err);
    RP_STEP("data documents");
    if (!st)
        st = write_documents(&r, err);
    if (!st)
        st = rp_model_write_documents(&r, err);
    if (!st)
        st = write_answers_csv(&r, err);
    RP_STEP("figure scripts");
    if (!st)
        st = rp_figures_plan_and_write(&r, err);
    if (!st)
        st = rp_model_figures(&r, err);
    RP_STEP("drawing");
    if (!st)
        st = rp_figures_render(&r, err);
    RP_STEP("report.json and notebooks");
    if (!st) {
        json_t *doc = report_document(&r);
        st = rp_write_json(&r, "data/report.json", doc, err);
        json_decref(doc);
        rp_add_data(&r, "data/report.json",
                    "joules.report/1: SLOs, picks, findings and the figures of this report", NULL);
    }
    if (!st)
        st = rp_notebooks_write(&r, err);
    RP_STEP("pages");
    if (!st)
        st = rp_html_write(&r, err);
    RP_STEP("done");
#undef RP_STEP
    if (!st) {
        st = jl_atomic_dir_commit(r.root, dir, r.opt.replace, err);
    } else {
        jl_atomic_dir_abort(r.root);
    }
    if (res) {
        res->n_groups = r.n_groups;
        res->n_figures = r.n_figs;
        for (size_t i = 0; i < r.n_figs; i++)
            res->n_figures_drawn += r.figs[i].drawn;
        res->figures_s = r.figures_s;
        res->n_data_files = r.n_data;
        res->notes = r.notes;
        res->n_notes = r.n_notes;
        r.notes = NULL;
        r.n_notes = 0;
    }
    report_free(&r);
    return st;
}
