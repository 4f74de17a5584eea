/* SLO expressions: parsing, figure resolution, evaluation (joules/slo.h). */
#define _POSIX_C_SOURCE 200809L
#include "joules/slo.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "joules/output.h"

const char *jl_slo_op_name(jl_slo_op op)
{
    switch (op) {
    case JL_SLO_LE: return "<=";
    case JL_SLO_LT: return "<";
    case JL_SLO_GE: return ">=";
    case JL_SLO_GT: return ">";
    }
    return "?";
}

/* ---- names ---------------------------------------------------------------- */

/* Names whose figure depends on the workload. */
static const struct {
    const char *name;
    jl_figure llm, diffusion, sample; /* sample: the per-sample workloads */
} workload_names[] = {
    {"throughput", JL_FIG_OUTPUT_THROUGHPUT_TOK_S, JL_FIG_ITEMS_PER_S, JL_FIG_ITEMS_PER_S},
    {"latency", JL_FIG_MEDIAN_ITL_S, JL_FIG_BATCH_LATENCY_S, JL_FIG_PERCENTILE_LATENCY_S},
    {"energy", JL_FIG_ENERGY_PER_TOKEN_J, JL_FIG_ENERGY_PER_ITEM_J, JL_FIG_ENERGY_PER_ITEM_J},
};

/* A latency at a named percentile: p90_latency, latency_p99 (with "_s"
 * after them too): the per-sample workloads' percentile_latency_s at that
 * percentile (MLPerf LoadGen's target percentile of the run). Returns the
 * percentile (0 < p < 100), or 0 when name is not such a name. */
static double percentile_name(const char *name)
{
    char buf[64];
    size_t n = strlen(name);
    if (n >= sizeof buf)
        return 0;
    memcpy(buf, name, n + 1);
    if (n > 2 && !strcmp(buf + n - 2, "_s"))
        buf[n -= 2] = '\0';
    const char *digits = NULL;
    if (!strncmp(buf, "latency_p", 9))
        digits = buf + 9;
    else if (buf[0] == 'p' && n > 9 && !strcmp(buf + n - 8, "_latency")) {
        buf[n - 8] = '\0';
        digits = buf + 1;
    }
    if (!digits || !isdigit((unsigned char)digits[0]))
        return 0;
    for (const char *q = digits; *q; q++)
        if (!isdigit((unsigned char)*q))
            return 0;
    double p = strtod(digits, NULL);
    return p > 0 && p < 100 ? p : 0;
}

/* Suffixes a name may omit ("median_itl" for median_itl_s). */
static const char *const unit_suffixes[] = {"_s", "_j", "_w", "_tok_s", "_mhz"};

static int resolve_plain(const char *name)
{
    int f = jl_figure_lookup(name);
    if (f >= 0)
        return f;
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof unit_suffixes / sizeof unit_suffixes[0]; i++) {
        size_t m = strlen(unit_suffixes[i]);
        char buf[128];
        if (n + m + 1 > sizeof buf)
            return -1;
        memcpy(buf, name, n);
        memcpy(buf + n, unit_suffixes[i], m + 1);
        f = jl_figure_lookup(buf);
        if (f >= 0)
            return f;
    }
    return -1;
}

/* Names people write for figures joules names otherwise: the percentile
 * after or before the figure (p90_ttft, itl_p90), vLLM's mean TPOT. With
 * "_s" after them too (p90_ttft_s). */
static const struct {
    const char *name, *figure;
} aliases[] = {
    {"p90_ttft", "ttft_p90_s"},
    {"median_ttft", "ttft_median_s"},
    {"itl_median", "median_itl_s"},
    {"itl_p90", "p90_itl_s"},
    {"itl_p95", "p95_itl_s"},
    {"itl_p99", "p99_itl_s"},
    {"mean_tpot", "avg_tpot_s"},
    {"tpot_mean", "avg_tpot_s"},
    /* the 50th percentile is the median */
    {"p50_itl", "median_itl_s"},
    {"itl_p50", "median_itl_s"},
    {"p50_ttft", "ttft_median_s"},
    {"ttft_p50", "ttft_median_s"},
};

/* A name's figure, whatever the workload: a figure's name with or without
 * its unit suffix, an alias, an ML.ENERGY toolkit name (median_itl_ms,
 * energy_per_token_joules), or a time figure with "_ms" for "_s"
 * (ttft_p90_ms). *bare: the unit of a bare number written after the name,
 * in the figure's unit (1e-3 after "_ms"); *unit_named: the name carries
 * its unit (median_itl_s, median_itl_ms), so a bare number is not refused. */
static int resolve_named(const char *name, double *bare, int *unit_named)
{
    *bare = 1;
    *unit_named = 0;
    int f = resolve_plain(name);
    if (f >= 0) {
        size_t n = strlen(name);
        *unit_named = jl_figure_lookup(name) >= 0 && n > 2 && name[n - 2] == '_' &&
                      strchr("sjw", name[n - 1]);
        return f;
    }
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
        size_t m = strlen(aliases[i].name);
        int with_s = n == m + 2 && !strcmp(name + m, "_s");
        if (!strncmp(name, aliases[i].name, m) && (n == m || with_s)) {
            *unit_named = with_s;
            return jl_figure_lookup(aliases[i].figure);
        }
    }
    double scale = 1;
    const char *key = jl_mlenergy_key(name, &scale);
    if (key && (f = jl_figure_lookup(key)) >= 0) {
        *bare = scale;
        *unit_named = 1;
        return f;
    }
    char buf[128];
    if (n > 3 && n < sizeof buf && !strcmp(name + n - 3, "_ms")) {
        memcpy(buf, name, n - 3);
        memcpy(buf + n - 3, "_s", 3);
        double b2;
        int u2;
        f = resolve_named(buf, &b2, &u2);
        if (f >= 0 && !strcmp(jl_figure_unit((jl_figure)f), "s")) {
            *bare = 1e-3;
            *unit_named = 1;
            return f;
        }
    }
    return -1;
}

/* Work counted in items (diffusion, the per-sample workloads): figures
 * resolve to their item forms (energy per item, items per second). */
static int is_diffusion_workload(const char *w)
{
    return jl_workload_counts_items(w);
}

/* jl_slo_resolve_figure, with what resolve_named says of the name. */
static int resolve_for(const char *name, const char *workload, double *bare, int *unit_named)
{
    *bare = 1;
    *unit_named = 0;
    if (!name)
        return -1;
    /* a typed name, whatever its case (jl_name_eq): figure names are lower case */
    char low[128];
    size_t n = strlen(name);
    int upper = 0;
    for (size_t i = 0; i < n; i++)
        upper |= name[i] >= 'A' && name[i] <= 'Z';
    if (upper && n < sizeof low) {
        for (size_t i = 0; i <= n; i++)
            low[i] = (char)tolower((unsigned char)name[i]);
        name = low;
    }
    for (size_t i = 0; i < sizeof workload_names / sizeof workload_names[0]; i++)
        if (!strcmp(name, workload_names[i].name))
            return jl_workload_is_per_sample(workload) ? (int)workload_names[i].sample
                   : is_diffusion_workload(workload)   ? (int)workload_names[i].diffusion
                                                       : (int)workload_names[i].llm;
    if (percentile_name(name) > 0) {
        size_t m = strlen(name);
        *unit_named = m > 2 && !strcmp(name + m - 2, "_s");
        return jl_workload_is_per_sample(workload) ? JL_FIG_PERCENTILE_LATENCY_S : -1;
    }
    return resolve_named(name, bare, unit_named);
}

int jl_slo_resolve_figure(const char *name, const char *workload)
{
    double bare;
    int unit_named;
    return resolve_for(name, workload, &bare, &unit_named);
}

/* What a name people write for a figure joules does not have should use
 * instead (NULL: nothing to say). */
static const char *no_such_figure(const char *name)
{
    if (strstr(name, "tpot"))
        return "joules has the mean TPOT over requests (mean_tpot, avg_tpot_s) and the "
               "inter-token latency percentiles (median_itl, p90_itl: at steady decode the "
               "median TPOT is close to the median ITL), no TPOT percentile";
    if (strstr(name, "mean_itl") || strstr(name, "avg_itl"))
        return "joules has the ITL's percentiles (median_itl, p90_itl, p95_itl, p99_itl), no "
               "mean ITL";
    return NULL;
}

/* The short form of a figure name (its unit suffix dropped) into buf;
 * 0 when it has none. */
static int short_name(const char *full, char *buf, size_t cap)
{
    size_t n = strlen(full);
    for (size_t i = 0; i < sizeof unit_suffixes / sizeof unit_suffixes[0]; i++) {
        size_t m = strlen(unit_suffixes[i]);
        if (n > m && n - m < cap && !strcmp(full + n - m, unit_suffixes[i])) {
            memcpy(buf, full, n - m);
            buf[n - m] = '\0';
            return 1;
        }
    }
    return 0;
}

static void consider(const char *name, const char *cand, size_t *best, char *buf, size_t cap)
{
    if (*best == 0)
        return;
    size_t d = jl__edit_distance(name, cand, *best - 1);
    if (d < *best && strlen(cand) < cap) {
        *best = d;
        strcpy(buf, cand);
    }
}

int jl_slo_suggest_figure(const char *name, char *buf, size_t cap)
{
    if (!buf || cap == 0)
        return 0;
    buf[0] = '\0';
    if (!name || !*name)
        return 0;
    /* at most 2 edits, and fewer than a third of the name's letters */
    size_t len = strlen(name), limit = len < 9 ? (len < 4 ? 0 : 1) : 2;
    size_t best = limit + 1;
    for (size_t i = 0; i < sizeof workload_names / sizeof workload_names[0]; i++)
        consider(name, workload_names[i].name, &best, buf, cap);
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        consider(name, aliases[i].name, &best, buf, cap);
    for (int f = 0; f < JL_FIG_COUNT; f++) {
        char s[128];
        if (short_name(jl_figure_name((jl_figure)f), s, sizeof s))
            consider(name, s, &best, buf, cap);
        consider(name, jl_figure_name((jl_figure)f), &best, buf, cap);
    }
    return buf[0] != '\0';
}

/* ---- units ---------------------------------------------------------------- */

/* kind: the figure unit (JL_FIGURE_TABLE) the unit converts to. */
static const struct {
    const char *text;
    const char *kind;
    double scale;
} units[] = {
    /* clang-format off */
    {"s", "s", 1.0},          {"ms", "s", 1e-3},         {"us", "s", 1e-6},
    {"\xc2\xb5s", "s", 1e-6}, {"min", "s", 60.0},        {"h", "s", 3600.0},
    {"J", "J", 1.0},          {"mJ", "J", 1e-3},         {"kJ", "J", 1e3},
    {"MJ", "J", 1e6},         {"Wh", "J", 3600.0},       {"kWh", "J", 3.6e6},
    {"J/tok", "J/token", 1.0}, {"J/token", "J/token", 1.0}, {"mJ/tok", "J/token", 1e-3},
    {"mJ/token", "J/token", 1e-3}, {"J/item", "J/item", 1.0}, {"J/image", "J/item", 1.0},
    {"J/video", "J/item", 1.0}, {"kJ/item", "J/item", 1e3}, {"kJ/image", "J/item", 1e3},
    {"kJ/video", "J/item", 1e3},
    {"W", "W", 1.0},          {"mW", "W", 1e-3},         {"kW", "W", 1e3},
    {"MW", "W", 1e6},
    {"tok/s", "tokens/s", 1.0}, {"tokens/s", "tokens/s", 1.0}, {"token/s", "tokens/s", 1.0},
    {"items/s", "items/s", 1.0}, {"item/s", "items/s", 1.0}, {"images/s", "items/s", 1.0},
    {"image/s", "items/s", 1.0}, {"img/s", "items/s", 1.0}, {"videos/s", "items/s", 1.0},
    {"video/s", "items/s", 1.0},
    {"tok/J", "tokens/J", 1.0}, {"tokens/J", "tokens/J", 1.0},
    {"MHz", "MHz", 1.0},      {"GHz", "MHz", 1e3},
    {"%", "1", 0.01},
    /* clang-format on */
};

static int find_unit(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strlen(units[i].text) == n && !memcmp(units[i].text, s, n))
            return (int)i;
    return -1;
}

/* Whether a unit of kind `kind` may bound figure f. Plain joules also bound
 * per-token and per-item energies. */
static int unit_fits(const char *kind, int f)
{
    if (f < 0)
        return 0;
    const char *fu = jl_figure_unit((jl_figure)f);
    if (!strcmp(kind, fu))
        return 1;
    if (!strcmp(kind, "J") && (!strcmp(fu, "J/token") || !strcmp(fu, "J/item")))
        return 1;
    return 0;
}

/* A bare number on a time, energy or power figure is refused: "10" on
 * median_itl would read as 10 s when 10 ms was meant. Returns the units
 * accepted for such a figure, or NULL when a bare number is fine (ratios,
 * counts, rates, clocks). */
static const char *needs_unit(int f_llm, int f_dif)
{
    static const struct {
        const char *unit, *accepted;
    } kinds[] = {
        {"s", "s ms us min h"},
        {"J", "J mJ kJ MJ Wh kWh"},
        {"J/token", "J mJ J/tok mJ/tok"},
        {"J/item", "J kJ J/image J/video kJ/image"},
        {"W", "W mW kW MW"},
    };
    int f = f_llm >= 0 ? f_llm : f_dif;
    if (f < 0)
        return NULL;
    const char *fu = jl_figure_unit((jl_figure)f);
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (!strcmp(fu, kinds[i].unit))
            return kinds[i].accepted;
    return NULL;
}

/* ---- parsing -------------------------------------------------------------- */

void jl_slo_free(jl_slo *slo)
{
    if (!slo)
        return;
    for (size_t i = 0; i < slo->n; i++)
        free(slo->conds[i].name);
    free(slo->conds);
    free(slo->text);
    free(slo);
}

static jl_status perr(jl_error **err, size_t *err_offset, size_t off, const char *expr,
                      const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

static jl_status perr(jl_error **err, size_t *err_offset, size_t off, const char *expr,
                      const char *fmt, ...)
{
    if (err_offset)
        *err_offset = off;
    va_list ap;
    va_start(ap, fmt);
    char *what = jl__vasprintf(fmt, ap);
    va_end(ap);
    jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1, "SLO '%s': %s at offset %zu", expr,
            what ? what : "malformed", off);
    free(what);
    return JL_EUSAGE;
}

static size_t skip_ws(const char *s, size_t i)
{
    while (s[i] == ' ' || s[i] == '\t')
        i++;
    return i;
}

static int is_unit_char(unsigned char c)
{
    return isalpha(c) || c == '/' || c == '%' || c >= 0x80;
}

/* The parser's position in one expression, and where its errors go. */
typedef struct {
    const char *expr;
    size_t i;
    jl_error **err;
    size_t *err_offset;
} parser;

#define PERR(p, off, ...) perr((p)->err, (p)->err_offset, (off), (p)->expr, __VA_ARGS__)

/* A condition's name (namebuf) and the figure it stands for in an LLM run
 * and in a diffusion run (-1 where none; one of them at least). */
static jl_status parse_name(parser *p, char *namebuf, size_t cap, int *f_llm, int *f_dif,
                            int *f_smp)
{
    const char *expr = p->expr;
    size_t i = p->i;
    if (!(isalpha((unsigned char)expr[i]) || expr[i] == '_'))
        return PERR(p, i,
                    expr[i] == '\0' || expr[i] == ','
                        ? "expected a condition such as median_itl<=100ms"
                        : "expected a figure name");
    size_t ns = i;
    while (isalnum((unsigned char)expr[i]) || expr[i] == '_')
        i++;
    size_t nlen = i - ns;
    if (nlen >= cap)
        return PERR(p, ns, "figure name too long");
    memcpy(namebuf, expr + ns, nlen);
    namebuf[nlen] = '\0';
    *f_llm = jl_slo_resolve_figure(namebuf, "llm");
    *f_dif = jl_slo_resolve_figure(namebuf, "diffusion");
    *f_smp = jl_slo_resolve_figure(namebuf, "other"); /* a per-sample workload */
    if (*f_llm < 0 && *f_dif < 0 && *f_smp < 0 && no_such_figure(namebuf))
        return PERR(p, ns, "no figure '%s': %s", namebuf, no_such_figure(namebuf));
    if (*f_llm < 0 && *f_dif < 0 && *f_smp < 0) {
        char hint[96] = "";
        char near[64];
        if (jl_slo_suggest_figure(namebuf, near, sizeof near))
            snprintf(hint, sizeof hint, "did you mean '%s'? ", near);
        return PERR(p, ns,
                    "unknown figure '%s' (%se.g. median_itl, p90_itl, ttft_p90, "
                    "batch_latency, throughput, energy_per_token; every figure: summary.md)",
                    namebuf, hint);
    }
    p->i = i;
    return JL_OK;
}

static jl_status parse_op(parser *p, jl_slo_op *op)
{
    const char *e = p->expr + p->i;
    if (e[0] == '<' && e[1] == '=')
        *op = JL_SLO_LE;
    else if (e[0] == '>' && e[1] == '=')
        *op = JL_SLO_GE;
    else if (e[0] == '<')
        *op = JL_SLO_LT;
    else if (e[0] == '>')
        *op = JL_SLO_GT;
    else
        return PERR(p, p->i, "expected an operator (<=, <, >=, >)");
    p->i += e[1] == '=' ? 2 : 1;
    return JL_OK;
}

/* digits [. digits] [e[+-]digits]: its text (numbuf) and value. */
static jl_status parse_number(parser *p, char *numbuf, size_t cap, double *v)
{
    const char *expr = p->expr;
    size_t i = p->i, vs = i, digits = 0;
    while (isdigit((unsigned char)expr[i])) {
        i++;
        digits++;
    }
    if (expr[i] == '.') {
        i++;
        while (isdigit((unsigned char)expr[i])) {
            i++;
            digits++;
        }
    }
    if (!digits)
        return PERR(p, vs, "expected a non-negative number");
    if (expr[i] == 'e' || expr[i] == 'E') {
        size_t j = i + 1;
        if (expr[j] == '+' || expr[j] == '-')
            j++;
        if (isdigit((unsigned char)expr[j])) {
            while (isdigit((unsigned char)expr[j]))
                j++;
            i = j;
        }
    }
    if (i - vs >= cap)
        return PERR(p, vs, "number too long");
    memcpy(numbuf, expr + vs, i - vs);
    numbuf[i - vs] = '\0';
    *v = strtod(numbuf, NULL);
    if (!isfinite(*v))
        return PERR(p, vs, "number out of range");
    p->i = i;
    return JL_OK;
}

/* The unit after the number (or the one a full figure name carries): v
 * scaled to the figure's unit; a figure the unit does not fit is dropped
 * (-1) from the pair. */
static jl_status parse_unit(parser *p, const char *namebuf, const char *numbuf, double *v,
                            int *f_llm, int *f_dif, int *f_smp)
{
    /* the first figure the name has, for the checks on one figure */
    int f_any = *f_llm >= 0 ? *f_llm : *f_dif >= 0 ? *f_dif : *f_smp;
    const char *expr = p->expr;
    size_t i = p->i, us = i;
    char unitbuf[32];
    while (is_unit_char((unsigned char)expr[i]))
        i++;
    p->i = i;
    if (i == us) {
        /* the name carries the unit: median_itl_s<=0.1 is seconds,
         * median_itl_ms<=50 milliseconds */
        double bare;
        int unit_named;
        resolve_for(namebuf,
                    *f_llm >= 0   ? "llm"
                    : *f_dif >= 0 ? "diffusion"
                                  : "other",
                    &bare, &unit_named);
        const char *need = unit_named ? NULL : needs_unit(f_any, -1);
        if (need)
            return PERR(p, us, "'%s' needs a unit: figure '%s' is %s (accepted: %s)", numbuf,
                        namebuf, jl_figure_unit((jl_figure)f_any), need);
        *v *= bare;
        return JL_OK;
    }
    size_t ulen = i - us;
    int u = find_unit(expr + us, ulen);
    if (ulen >= sizeof unitbuf)
        return PERR(p, us, "unknown unit");
    memcpy(unitbuf, expr + us, ulen);
    unitbuf[ulen] = '\0';
    if (u < 0)
        return PERR(p, us, "unknown unit '%s' (s ms us min h, J kJ Wh, W kW, tok/s, items/s, %%)",
                    unitbuf);
    int fits_llm = unit_fits(units[u].kind, *f_llm);
    int fits_dif = unit_fits(units[u].kind, *f_dif);
    int fits_smp = unit_fits(units[u].kind, *f_smp);
    if (!fits_llm && !fits_dif && !fits_smp) {
        char *m = jl__asprintf("unit '%s' does not fit figure '%s' (%s)", unitbuf, namebuf,
                               jl_figure_unit((jl_figure)f_any));
        jl_status st = PERR(p, us, "%s", m ? m : "unit does not fit");
        free(m);
        return st;
    }
    if (!fits_llm)
        *f_llm = -1;
    if (!fits_dif)
        *f_dif = -1;
    if (!fits_smp)
        *f_smp = -1;
    *v *= units[u].scale;
    return JL_OK;
}

/* Append a condition to slo (capacity *cap). */
static jl_status push_cond(jl_slo *slo, size_t *cap, const jl_slo_cond *cond, jl_error **err)
{
    if (slo->n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 4;
        jl_slo_cond *nc = realloc(slo->conds, ncap * sizeof *nc);
        if (!nc)
            return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
        slo->conds = nc;
        *cap = ncap;
    }
    jl_slo_cond *c = &slo->conds[slo->n];
    *c = *cond;
    if (!(c->name = jl__strdup(cond->name)))
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    slo->n++;
    return JL_OK;
}

/* Conditions "name op number [unit]" separated by commas: name, operator,
 * number and unit each a phase of its own. */
jl_status jl_slo_parse(const char *expr, jl_slo **out, size_t *err_offset, jl_error **err)
{
    *out = NULL;
    if (err_offset)
        *err_offset = 0;
    if (!expr)
        return perr(err, err_offset, 0, "", "empty expression");
    jl_slo *slo = calloc(1, sizeof *slo);
    if (!slo || !(slo->text = jl__strdup(expr))) {
        free(slo);
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    }
    parser p = {expr, 0, err, err_offset};
    size_t cap = 0;
    jl_status st = JL_OK;
    char namebuf[128], numbuf[64];
    for (;;) {
        p.i = skip_ws(expr, p.i);
        size_t start = p.i;
        jl_slo_cond c;
        memset(&c, 0, sizeof c);
        if ((st = parse_name(&p, namebuf, sizeof namebuf, &c.figure_llm, &c.figure_diffusion,
                             &c.figure_sample)) != JL_OK)
            goto fail;
        c.percentile = percentile_name(namebuf);
        p.i = skip_ws(expr, p.i);
        if ((st = parse_op(&p, &c.op)) != JL_OK)
            goto fail;
        p.i = skip_ws(expr, p.i);
        if ((st = parse_number(&p, numbuf, sizeof numbuf, &c.bound)) != JL_OK)
            goto fail;
        p.i = skip_ws(expr, p.i);
        if ((st = parse_unit(&p, namebuf, numbuf, &c.bound, &c.figure_llm, &c.figure_diffusion,
                             &c.figure_sample)) != JL_OK)
            goto fail;
        c.name = namebuf;
        c.offset = start;
        c.length = p.i - start;
        if ((st = push_cond(slo, &cap, &c, err)) != JL_OK)
            goto fail;
        /* separator */
        p.i = skip_ws(expr, p.i);
        if (expr[p.i] == '\0')
            break;
        if (expr[p.i] != ',') {
            st = PERR(&p, p.i, "expected ',' or the end of the expression");
            goto fail;
        }
        p.i++;
    }
    *out = slo;
    return JL_OK;
fail:
    jl_slo_free(slo);
    return st;
}

char *jl_slo_caret(const char *expr, size_t offset)
{
    jl__strbuf b;
    jl__strbuf_init(&b);
    jl__strbuf_puts(&b, "  ");
    jl__strbuf_puts(&b, expr ? expr : "");
    jl__strbuf_puts(&b, "\n  ");
    size_t n = expr ? strlen(expr) : 0;
    if (offset > n)
        offset = n;
    /* count display columns: UTF-8 continuation bytes take none */
    for (size_t k = 0; k < offset; k++)
        if (((unsigned char)expr[k] & 0xC0) != 0x80)
            jl__strbuf_puts(&b, expr[k] == '\t' ? "\t" : " ");
    jl__strbuf_puts(&b, "^");
    return jl__strbuf_take(&b);
}

/* ---- evaluation ----------------------------------------------------------- */

int jl_slo_cond_figure(const jl_slo_cond *c, const jl_summary *s)
{
    return jl_attrs_is_per_sample(&s->attrs)  ? c->figure_sample
           : jl_attrs_counts_items(&s->attrs) ? c->figure_diffusion
                                              : c->figure_llm;
}

/* The run's latency percentile (@latency_percentile), or NaN. */
static double run_percentile(const jl_summary *s)
{
    char buf[32];
    if (jl_attrs_get(&s->attrs, "latency_percentile", buf, sizeof buf) < 0)
        return NAN;
    char *end = NULL;
    double p = strtod(buf, &end);
    return end && *end == '\0' ? p : NAN;
}

/* A condition on a named percentile judges only a run whose latency is at
 * that percentile. */
static int percentile_differs(const jl_slo_cond *c, const jl_summary *s)
{
    if (!(c->percentile > 0) || jl_slo_cond_figure(c, s) != JL_FIG_PERCENTILE_LATENCY_S)
        return 0;
    double p = run_percentile(s);
    return !(fabs(p - c->percentile) <= 1e-9 * c->percentile);
}

int jl_slo_cond_refusal(const jl_slo_cond *c, const jl_summary *s, char *buf, size_t cap)
{
    if (cap)
        buf[0] = '\0';
    int f = jl_slo_cond_figure(c, s);
    if (f == JL_FIG_MEDIAN_ITL_S && !isfinite(s->fig[f]) && isfinite(s->fig[JL_FIG_AVG_TPOT_S])) {
        /* published data with a mean TPOT and no ITL distribution (MLPerf
         * LoadGen's LLM runs, ML.ENERGY v2): never judged on the other
         * figure unasked, but said */
        snprintf(buf, cap,
                 "'%s': run %s has no inter-token latencies, only a mean time per output token "
                 "(avg_tpot_s %.4g ms): judge it with avg_tpot<=...",
                 c->name, s->run ? s->run : "-", 1e3 * s->fig[JL_FIG_AVG_TPOT_S]);
        return 1;
    }
    if (f != JL_FIG_PERCENTILE_LATENCY_S)
        return 0;
    char why[400], per[16];
    if (jl_attrs_get(&s->attrs, "latency_unknown", why, sizeof why) == 0) {
        snprintf(buf, cap, "'%s': run %s has no latency figure: %s", c->name, s->run ? s->run : "-",
                 why);
        return 1;
    }
    if (percentile_differs(c, s) && isfinite(s->fig[JL_FIG_PERCENTILE_LATENCY_S])) {
        if (jl_attrs_get(&s->attrs, "latency_per", per, sizeof per) < 0)
            snprintf(per, sizeof per, "sample");
        snprintf(buf, cap,
                 "'%s' asks for the %.6gth percentile latency; run %s has the %.6gth percentile "
                 "per %s only (its LoadGen target percentile: percentile_latency or latency "
                 "judges it)",
                 c->name, c->percentile, s->run ? s->run : "-", run_percentile(s), per);
        return 1;
    }
    return 0;
}

jl_slo_result jl_slo_cond_eval(const jl_slo_cond *c, const jl_summary *s, double *value,
                               double *miss)
{
    int f = jl_slo_cond_figure(c, s);
    double v = f >= 0 && !percentile_differs(c, s) ? s->fig[f] : NAN;
    if (value)
        *value = v;
    if (!isfinite(v)) {
        if (miss)
            *miss = NAN;
        return JL_SLO_MISSING;
    }
    double d;
    int pass;
    switch (c->op) {
    case JL_SLO_LE:
        d = v - c->bound;
        pass = v <= c->bound;
        break;
    case JL_SLO_LT:
        d = v - c->bound;
        pass = v < c->bound;
        break;
    case JL_SLO_GE:
        d = c->bound - v;
        pass = v >= c->bound;
        break;
    default:
        d = c->bound - v;
        pass = v > c->bound;
        break;
    }
    if (miss)
        *miss = c->bound != 0 ? d / fabs(c->bound) : d;
    return pass ? JL_SLO_PASS : JL_SLO_FAIL;
}

jl_slo_result jl_slo_eval(const jl_slo *slo, const jl_summary *s, double *worst_miss)
{
    jl_slo_result r = JL_SLO_PASS;
    double worst = -INFINITY;
    if (!slo || slo->n == 0) {
        if (worst_miss)
            *worst_miss = 0;
        return JL_SLO_PASS;
    }
    for (size_t i = 0; i < slo->n; i++) {
        double m;
        jl_slo_result ri = jl_slo_cond_eval(&slo->conds[i], s, NULL, &m);
        if (ri == JL_SLO_MISSING) {
            r = JL_SLO_MISSING;
            worst = NAN;
        } else {
            if (ri == JL_SLO_FAIL && r == JL_SLO_PASS)
                r = JL_SLO_FAIL;
            if (r != JL_SLO_MISSING && m > worst)
                worst = m;
        }
    }
    if (worst_miss)
        *worst_miss = worst;
    return r;
}

char *jl_slo_canonical(const jl_slo *slo)
{
    jl__strbuf b;
    jl__strbuf_init(&b);
    for (size_t i = 0; slo && i < slo->n; i++) {
        const jl_slo_cond *c = &slo->conds[i];
        if (i)
            jl__strbuf_puts(&b, ",");
        if (c->figure_llm >= 0 && c->figure_diffusion >= 0 && c->figure_llm != c->figure_diffusion)
            jl__strbuf_printf(&b, "%s[%s|%s]", c->name, jl_figure_name((jl_figure)c->figure_llm),
                              jl_figure_name((jl_figure)c->figure_diffusion));
        else if (c->figure_llm < 0 && c->figure_diffusion < 0 && c->percentile > 0)
            jl__strbuf_printf(&b, "%s[p%.6g]", jl_figure_name((jl_figure)c->figure_sample),
                              c->percentile);
        else
            jl__strbuf_puts(&b, jl_figure_name((jl_figure)(c->figure_llm >= 0 ? c->figure_llm
                                                           : c->figure_diffusion >= 0
                                                               ? c->figure_diffusion
                                                               : c->figure_sample)));
        jl__strbuf_printf(&b, "%s%.12g", jl_slo_op_name(c->op), c->bound);
    }
    if (!slo || !slo->n)
        jl__strbuf_puts(&b, "");
    return jl__strbuf_take(&b);
}
