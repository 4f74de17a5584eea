/* The report kit: the state every part of a report shares (jl__report_report,
 * report_internal.h) and the helpers they all stand on — files under the
 * report root, notes, the registries of data files and figures, units and
 * labels of a run, numbers and CSV fields for people and programs. It calls
 * no part of the report: the parts (figures, pages, notebooks, the model
 * section) call it, and report.c calls them. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/hash.h"
#include "joules/diagnose.h"
#include "joules/output.h"
#include "report/knobs.h"
#include "report/report_internal.h"

const char *jl__report_fig_kind_name(jl__report_fig_kind k)
{
    static const char *const names[] = {"power",          "batch_trends", "frontier",
                                        "gpu_comparison", "precision",    "model_fit",
                                        "task_overview"};
    return (unsigned)k < RP_FIG_KIND_COUNT ? names[k] : "?";
}

char *jl__report_path(const jl__report_report *r, const char *rel)
{
    return jl__asprintf("%s/%s", r->root, rel);
}

jl_status jl__report_mkdir(jl__report_report *r, const char *rel, jl_error **err)
{
    char *p = jl__report_path(r, rel);
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

jl_status jl__report_write_text(jl__report_report *r, const char *rel, const char *text,
                                jl_error **err)
{
    if (!text)
        return jl_fail(err, JL_ENOMEM, rel, NULL, NULL, -1, "out of memory");
    char *p = jl__report_path(r, rel);
    if (!p)
        return jl_fail(err, JL_ENOMEM, rel, NULL, NULL, -1, "out of memory");
    jl_status st = jl_write_file_atomic(p, text, strlen(text), err);
    free(p);
    return st;
}

jl_status jl__report_write_buf(jl__report_report *r, const char *rel, jl__strbuf *b, jl_error **err)
{
    char *text = jl__strbuf_take(b);
    jl_status st = jl__report_write_text(r, rel, text, err);
    free(text);
    return st;
}

jl_status jl__report_write_json(jl__report_report *r, const char *rel, const json_t *doc,
                                jl_error **err)
{
    if (!doc)
        return jl_fail(err, JL_ENOMEM, rel, NULL, NULL, -1, "out of memory");
    char *p = jl__report_path(r, rel);
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

void jl__report_progress(jl__report_report *r, const char *phase, size_t done, size_t total,
                         const char *current)
{
    if (r->opt.progress)
        r->opt.progress(r->opt.progress_ctx, phase, done, total, current ? current : "");
}

void jl__report_note(jl__report_report *r, const char *fmt, ...)
{
    if (!grow((void **)&r->notes, &r->cap_notes, r->n_notes, sizeof *r->notes))
        return;
    va_list ap;
    va_start(ap, fmt);
    char *s = jl__vasprintf(fmt, ap);
    va_end(ap);
    if (s)
        r->notes[r->n_notes++] = s;
}

jl_status jl__report_add_data(jl__report_report *r, const char *path, const char *what,
                              const char *cmd)
{
    if (!grow((void **)&r->data, &r->cap_data, r->n_data, sizeof *r->data))
        return JL_ENOMEM;
    jl__report_data_file *d = &r->data[r->n_data];
    d->path = jl__strdup(path);
    d->what = jl__strdup(what);
    d->cmd = cmd ? jl__strdup(cmd) : NULL;
    if (!d->path || !d->what) {
        free(d->path);
        free(d->what);
        return JL_ENOMEM;
    }
    r->n_data++;
    return JL_OK;
}

jl__report_figure *jl__report_add_figure(jl__report_report *r, jl__report_fig_kind kind, long group,
                                         const char *id)
{
    if (!grow((void **)&r->figs, &r->cap_figs, r->n_figs, sizeof *r->figs))
        return NULL;
    jl__report_figure *f = &r->figs[r->n_figs];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->group = group;
    if (!(f->id = jl__strdup(id)))
        return NULL;
    /* the id names files and appears in the figure's script ("ID.dat"):
     * letters, digits, '.', '-' and '_' only, whatever the builder made of
     * the data (a leading '.' too would hide the files) */
    for (char *c = f->id; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              (*c == '.' && c != f->id) || *c == '-' || *c == '_'))
            *c = '-';
    /* and short enough for a file name with its longest suffix (.1col.pdf,
     * .svg.part): a long one keeps its start and a hash of the whole */
    size_t n = strlen(f->id);
    if (n > RP_FIG_ID_MAX) {
        uint64_t h = jl__fnv1a_add(JL__FNV1A_INIT, f->id, n);
        snprintf(f->id + RP_FIG_ID_MAX - 9, 10, "-%08x", (unsigned)(uint32_t)h);
    }
    r->n_figs++;
    return f;
}

jl__report_kind jl__report_kind_of(const jl_summary *s)
{
    if (!jl_attrs_is_diffusion(&s->attrs))
        return RP_KIND_LLM;
    char buf[32];
    if (jl_attrs_get(&s->attrs, "item", buf, sizeof buf) == 0)
        return !strcmp(buf, "video") ? RP_KIND_VIDEO : RP_KIND_IMAGE;
    return s->attrs.num_frames > 1 ? RP_KIND_VIDEO : RP_KIND_IMAGE;
}

const char *jl__report_item(const jl_summary *s)
{
    static const char *const items[] = {"token", "image", "video"};
    return items[jl__report_kind_of(s)];
}

const char *jl__report_energy_unit(const jl_summary *s)
{
    static const char *const u[] = {"J/token", "J/image", "J/video"};
    return u[jl__report_kind_of(s)];
}

const char *jl__report_throughput_unit(const jl_summary *s)
{
    static const char *const u[] = {"tokens/s", "images/s", "videos/s"};
    return u[jl__report_kind_of(s)];
}

void jl__report_cmp_note(jl__report_report *r, const char *fmt, ...)
{
    char **p = realloc(r->cmp_notes, (r->n_cmp_notes + 1) * sizeof *p);
    if (!p)
        return;
    r->cmp_notes = p;
    va_list ap;
    va_start(ap, fmt);
    char *s = jl__vasprintf(fmt, ap);
    va_end(ap);
    if (s)
        r->cmp_notes[r->n_cmp_notes++] = s;
}

void jl__report_figure_free(jl__report_figure *f)
{
    free(f->id);
    free(f->title);
    free(f->caption);
    free(f->note);
    json_decref(f->meta);
}

void jl__report_drop_last_figure(jl__report_report *r)
{
    if (r->n_figs)
        jl__report_figure_free(&r->figs[--r->n_figs]);
}

int jl__report_energy_fig(const jl_summary *s)
{
    return jl_attrs_counts_items(&s->attrs) ? JL_FIG_ENERGY_PER_ITEM_J : JL_FIG_ENERGY_PER_TOKEN_J;
}

int jl__report_latency_fig(const jl_summary *s)
{
    return jl_attrs_is_diffusion(&s->attrs) ? JL_FIG_BATCH_LATENCY_S : JL_FIG_MEDIAN_ITL_S;
}

int jl__report_throughput_fig(const jl_summary *s)
{
    return jl_attrs_counts_items(&s->attrs) ? JL_FIG_ITEMS_PER_S : JL_FIG_OUTPUT_THROUGHPUT_TOK_S;
}

char *jl__report_config_label(const jl_summary *s)
{
    const jl_attrs *a = &s->attrs;
    char k[160];
    jl__report_knobs_text(s, k, sizeof k);
    return jl__asprintf("%s x%ld, %s, batch %ld%s%s", a->gpu_model ? a->gpu_model : "?",
                        a->num_gpus, a->precision ? a->precision : "?", a->max_batch_size,
                        k[0] ? ", " : "", k);
}

double jl__report_tdp_w(const jl__report_report *r, const jl_summary *s)
{
    return jl_run_gpu_tdp_w(&s->attrs, r->opt.desc);
}

void jl__report_fmt_num(char *buf, size_t cap, double v, int sig)
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

const char *jl__report_kind_name(jl__report_kind k)
{
    static const char *const names[] = {"llm", "image", "video"};
    return (unsigned)k < RP_KIND_COUNT ? names[k] : "?";
}

void jl__report_esc(jl__strbuf *b, const char *s)
{
    for (; s && *s; s++)
        switch (*s) {
        case '<': jl__strbuf_puts(b, "&lt;"); break;
        case '>': jl__strbuf_puts(b, "&gt;"); break;
        case '&': jl__strbuf_puts(b, "&amp;"); break;
        case '"': jl__strbuf_puts(b, "&quot;"); break;
        default: jl__strbuf_append(b, s, 1);
        }
}

const char *jl__report_base_name(const char *p)
{
    const char *s = p ? strrchr(p, '/') : NULL;
    return s ? s + 1 : (p ? p : "?");
}

jl_status jl__report_write_json_with_errors(jl__report_report *r, const char *rel, json_t *doc,
                                            jl_error **err)
{
    if (doc)
        json_object_set_new(doc, "errors", jl_errors_to_json(r->errors));
    jl_status st = jl__report_write_json(r, rel, doc, err);
    json_decref(doc);
    return st;
}

/* The outputs of one figure: gnuplot's fmt value and the file extension. */
typedef struct jl__report_out {
    unsigned flag;
    const char *fmt, *ext;
} jl__report_out;

static const jl__report_out outs_all[] = {
    {JL_REPORT_SVG, "svg", "svg"},
    {JL_REPORT_PNG, "png", "png"},
    {JL_REPORT_PDF, "pdf", "pdf"},       /* 7 in: double column */
    {JL_REPORT_PDF, "pdf1", "1col.pdf"}, /* 3.3 in: single column */
};
#define N_OUTS_ALL (sizeof outs_all / sizeof outs_all[0])
_Static_assert(N_OUTS_ALL == RP_N_OUTPUTS, "RP_N_OUTPUTS counts outs_all");

size_t jl__report_figure_outputs(unsigned formats, const char **fmt, const char **ext, size_t cap)
{
    size_t n = 0;
    if (!formats)
        formats = JL_REPORT_SVG;
    for (size_t i = 0; i < N_OUTS_ALL && n < cap; i++)
        if (formats & outs_all[i].flag) {
            if (fmt)
                fmt[n] = outs_all[i].fmt;
            if (ext)
                ext[n] = outs_all[i].ext;
            n++;
        }
    return n;
}

char *jl__report_read_file_n(const char *path, size_t *len)
{
    FILE *fp = jl__fopen_input(path, NULL, 0);
    if (!fp)
        return NULL;
    jl__strbuf b;
    jl__strbuf_init(&b);
    char buf[8192];
    size_t k;
    while ((k = fread(buf, 1, sizeof buf, fp)) > 0)
        jl__strbuf_append(&b, buf, k);
    fclose(fp);
    if (len)
        *len = b.len;
    return jl__strbuf_take(&b);
}

char *jl__report_read_file(const char *path)
{
    return jl__report_read_file_n(path, NULL);
}

const jl_run_diagnosis *jl__report_diagnosis_of(const jl__report_report *r, size_t run)
{
    if (!r->diag || run >= r->diag->count || r->diag->runs[run].run != r->l->items[run])
        return NULL;
    return &r->diag->runs[run];
}

/* The suggestion predicted to save the most, else NULL. */
const struct jl_finding *jl__report_best_change(const jl_run_diagnosis *d, double *change)
{
    const jl_finding *best = NULL;
    *change = INFINITY;
    for (size_t k = 0; k < d->n_findings; k++) {
        const jl_finding *f = &d->findings[k];
        if (strcmp(f->severity, "suggestion"))
            continue;
        for (size_t j = 0; j < f->n_numbers; j++)
            if (!strcmp(f->numbers[j].name, "predicted_energy_change") &&
                f->numbers[j].value < *change) {
                *change = f->numbers[j].value;
                best = f;
            }
    }
    return best;
}

const char *jl__report_figure_label(int f)
{
    static const struct {
        int fig;
        const char *label;
    } labels[] = {
        {JL_FIG_MEDIAN_ITL_S, "median ITL"},
        {JL_FIG_P90_ITL_S, "p90 ITL"},
        {JL_FIG_P95_ITL_S, "p95 ITL"},
        {JL_FIG_P99_ITL_S, "p99 ITL"},
        {JL_FIG_TTFT_MEDIAN_S, "median TTFT"},
        {JL_FIG_TTFT_P90_S, "p90 TTFT"},
        {JL_FIG_AVG_TPOT_S, "mean TPOT"},
        {JL_FIG_BATCH_LATENCY_S, "batch latency"},
        {JL_FIG_OUTPUT_THROUGHPUT_TOK_S, "throughput"},
        {JL_FIG_ITEMS_PER_S, "throughput"},
        {JL_FIG_AVG_POWER_W, "avg power"},
    };
    for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++)
        if (labels[i].fig == f)
            return labels[i].label;
    return f >= 0 ? jl_figure_name((jl_figure)f) : "?";
}

void jl__report_fmt_figure(char *buf, size_t cap, int f, double v)
{
    char n[48];
    const char *unit = f >= 0 ? jl_figure_unit((jl_figure)f) : "";
    if (!strcmp(unit, "s") && isfinite(v) && fabs(v) < 1) {
        jl__report_fmt_num(n, sizeof n, v * 1000, 3);
        snprintf(buf, cap, "%s ms", n);
    } else {
        jl__report_fmt_num(n, sizeof n, v, 3);
        snprintf(buf, cap, "%s%s%s", n, strcmp(unit, "1") && *unit ? " " : "",
                 strcmp(unit, "1") ? unit : "");
    }
}
