/* Budgets: a joules.budgets/1 file of ceilings, judged per run and group
 * with the figures' intervals (docs/accounting.md, "Budgets"). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/inputs.h"
#include "core/util.h"
#include "joules/budget.h"
#include "joules/carbon.h"
#include "joules/output.h"
#include "joules/study.h"

typedef enum {
    C_PER_TOKEN,
    C_PER_REQUEST,
    C_PER_ITEM,
    C_AVG_POWER,
    C_PEAK_POWER,
    C_KWH_DAY,
    C_CO2_REQUEST,
    C_COUNT
} ckind;

static const struct {
    const char *name;
    int fig; /* the figure judged (kWh/day: set by its load) */
} CEIL[C_COUNT] = {
    {"energy_per_token_j", JL_FIG_ENERGY_PER_TOKEN_J},
    {"energy_per_request_j", JL_FIG_ENERGY_PER_REQUEST_J},
    {"energy_per_item_j", JL_FIG_ENERGY_PER_ITEM_J},
    {"avg_power_w", JL_FIG_AVG_POWER_W},
    {"peak_power_w", JL_FIG_PEAK_POWER_W},
    {"kwh_per_day", -1},
    {"g_co2eq_per_request", JL_FIG_ENERGY_PER_REQUEST_J},
};

typedef struct ceiling {
    ckind kind;
    double max;
    int fig;          /* the per-unit energy figure (kWh/day) */
    double load;      /* units per second (kWh/day) */
    double pue;       /* kWh/day, gCO2eq/request */
    double intensity; /* gCO2eq/kWh */
} ceiling;

/* A ceiling on attribute's rows of a span class (or glob of classes). */
typedef struct span_ceiling {
    char *cls;
    double max[JL_SPAN_FIG_COUNT]; /* NaN: no ceiling on that figure */
} span_ceiling;

typedef struct budget {
    char *name;
    jl_selector *sel;
    double uncertainty;
    ceiling c[C_COUNT];
    size_t n;
    span_ceiling *spans;
    size_t n_spans;
} budget;

struct jl_budgets {
    budget *b;
    size_t n;
};

const char *jl_budget_verdict_name(jl_budget_verdict v)
{
    static const char *const names[] = {"pass", "fail", "undetermined", "unmeasured"};
    return (unsigned)v < 4 ? names[v] : "?";
}

void jl_budgets_free(jl_budgets *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->n; i++) {
        free(b->b[i].name);
        jl_selector_free(b->b[i].sel);
        for (size_t k = 0; k < b->b[i].n_spans; k++)
            free(b->b[i].spans[k].cls);
        free(b->b[i].spans);
    }
    free(b->b);
    free(b);
}

size_t jl_budgets_count(const jl_budgets *b)
{
    return b->n;
}

const char *jl_budgets_name(const jl_budgets *b, size_t i)
{
    return i < b->n ? b->b[i].name : NULL;
}

#define BAD(...) jl_fail(err, JL_EINVALID, name, NULL, NULL, -1, __VA_ARGS__)

/* " (did you mean 'K'?)" for an unknown key among the known ones, or "" */
static const char *near_key(const char *key, const char *const *known, size_t n, char *buf,
                            size_t cap)
{
    char near[96];
    if (!jl_suggest_name(key, known, n, near, sizeof near))
        return "";
    snprintf(buf, cap, " (did you mean '%s'?)", near);
    return buf;
}
#define NEAR(key, ...)                                \
    near_key(key, (const char *const[]){__VA_ARGS__}, \
             sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *), hint, sizeof hint)

static int number(const json_t *v, double *out)
{
    if (!json_is_number(v))
        return -1;
    *out = json_number_value(v);
    return isfinite(*out) ? 0 : -1;
}

/* A member that must be a number > 0 (>= 1 for a PUE, >= 0 for an
 * intensity). */
static jl_status positive(const json_t *o, const char *key, double lo, int strict, double *out,
                          const char *name, size_t i, const char *ceil, jl_error **err)
{
    const json_t *v = json_object_get(o, key);
    if (!v)
        return BAD("budgets[%zu].ceilings.%s: \"%s\" is required", i, ceil, key);
    if (number(v, out) || (strict ? !(*out > lo) : !(*out >= lo)))
        return BAD("budgets[%zu].ceilings.%s.%s must be a number %s %g", i, ceil, key,
                   strict ? ">" : ">=", lo);
    return JL_OK;
}

/* A PUE or a grid intensity in its units and range (issue 37,
 * jl_pue_parse / jl_intensity_parse): a number, or a string with a unit
 * ("0.4kg/kWh") or ":forced". */
static jl_status in_units(const json_t *o, const char *key, double *out, const char *name, size_t i,
                          const char *ceil, jl_error **err)
{
    const json_t *v = json_object_get(o, key);
    if (!v)
        return BAD("budgets[%zu].ceilings.%s: \"%s\" is required", i, ceil, key);
    char text[64];
    if (json_is_string(v))
        snprintf(text, sizeof text, "%s", json_string_value(v));
    else if (json_is_number(v))
        snprintf(text, sizeof text, "%.17g", json_number_value(v));
    else
        return BAD("budgets[%zu].ceilings.%s.%s must be a number or a string with its unit", i,
                   ceil, key);
    jl_error *why = NULL;
    jl_status st =
        key[0] == 'p' ? jl_pue_parse(text, out, &why) : jl_intensity_parse(text, out, &why);
    if (st != JL_OK) {
        jl_status r = BAD("budgets[%zu].ceilings.%s.%s: %s", i, ceil, key,
                          why ? why->message : "out of memory");
        jl_error_free(why);
        return r;
    }
    return JL_OK;
}

static jl_status parse_ceiling(budget *bu, const char *key, const json_t *v, const char *name,
                               size_t i, jl_error **err)
{
    /* a ceiling's name is a typed name: whatever its case (jl_name_eq) */
    int k = -1;
    char hint[160];
    for (int c = 0; c < C_COUNT; c++)
        if (!strcmp(CEIL[c].name, key))
            k = c;
    for (int c = 0; c < C_COUNT && k < 0; c++)
        if (jl_name_eq(key, CEIL[c].name))
            k = c;
    if (k < 0) {
        const char *names[C_COUNT];
        for (int c = 0; c < C_COUNT; c++)
            names[c] = CEIL[c].name;
        char near[96];
        int h = jl_suggest_name(key, names, C_COUNT, near, sizeof near);
        return BAD(
            "budgets[%zu].ceilings: unknown ceiling \"%s\" (%s%s%sknown: energy_per_token_j, "
            "energy_per_request_j, energy_per_item_j, avg_power_w, peak_power_w, "
            "kwh_per_day, g_co2eq_per_request)",
            i, key, h ? "did you mean '" : "", h ? near : "", h ? "'? " : "");
    }
    key = CEIL[k].name;
    ceiling *c = &bu->c[bu->n++];
    memset(c, 0, sizeof *c);
    c->kind = (ckind)k;
    c->fig = CEIL[k].fig;
    c->pue = 1;
    if (k < C_KWH_DAY) {
        if (number(v, &c->max) || !(c->max > 0))
            return BAD("budgets[%zu].ceilings.%s must be a number > 0", i, key);
        return JL_OK;
    }
    if (!json_is_object(v))
        return BAD("budgets[%zu].ceilings.%s must be an object with \"max\"", i, key);
    jl_status st = positive(v, "max", 0, 1, &c->max, name, i, key, err);
    if (st == JL_OK && json_object_get(v, "pue"))
        st = in_units(v, "pue", &c->pue, name, i, key, err);
    const char *k2;
    const json_t *x;
    json_object_foreach((json_t *)v, k2, x) {
        int known =
            !strcmp(k2, "max") || !strcmp(k2, "pue") ||
            (k == C_KWH_DAY && (!strcmp(k2, "tokens_per_s") || !strcmp(k2, "requests_per_s") ||
                                !strcmp(k2, "items_per_s"))) ||
            (k == C_CO2_REQUEST && !strcmp(k2, "grid_intensity"));
        if (st == JL_OK && !known)
            st = BAD("budgets[%zu].ceilings.%s: unknown key \"%s\"%s", i, key, k2,
                     k == C_KWH_DAY
                         ? NEAR(k2, "max", "pue", "tokens_per_s", "requests_per_s", "items_per_s")
                     : k == C_CO2_REQUEST ? NEAR(k2, "max", "pue", "grid_intensity")
                                          : NEAR(k2, "max", "pue"));
    }
    if (st != JL_OK)
        return st;
    if (k == C_CO2_REQUEST)
        return in_units(v, "grid_intensity", &c->intensity, name, i, key, err);
    static const struct {
        const char *key;
        int fig;
    } loads[] = {{"tokens_per_s", JL_FIG_ENERGY_PER_TOKEN_J},
                 {"requests_per_s", JL_FIG_ENERGY_PER_REQUEST_J},
                 {"items_per_s", JL_FIG_ENERGY_PER_ITEM_J}};
    int found = 0;
    for (size_t l = 0; l < 3; l++)
        if (json_object_get(v, loads[l].key)) {
            found++;
            c->fig = loads[l].fig;
            st = positive(v, loads[l].key, 0, 1, &c->load, name, i, key, err);
        }
    if (st == JL_OK && found != 1)
        st = BAD("budgets[%zu].ceilings.kwh_per_day needs one load: tokens_per_s, "
                 "requests_per_s or items_per_s",
                 i);
    return st;
}

static jl_status add_clauses(budget *bu, const json_t *arr, int exclude, const char *name, size_t i,
                             jl_error **err)
{
    if (!arr)
        return JL_OK;
    if (!json_is_array(arr))
        return BAD("budgets[%zu].%s must be an array of clauses", i, exclude ? "exclude" : "where");
    size_t j;
    const json_t *c;
    json_array_foreach(arr, j, c) {
        if (!json_is_string(c))
            return BAD("budgets[%zu].%s[%zu] must be a string", i, exclude ? "exclude" : "where",
                       j);
        jl_error *e = NULL;
        jl_status st = jl_selector_add(bu->sel, exclude, json_string_value(c), &e);
        if (st != JL_OK) {
            st = st == JL_ENOMEM ? st
                                 : BAD("budgets[%zu].%s[%zu]: %s", i, exclude ? "exclude" : "where",
                                       j, e ? e->message : "invalid clause");
            jl_error_free(e);
            return st;
        }
    }
    return JL_OK;
}

const char *jl_span_figure_name(jl_span_figure f)
{
    static const char *const names[] = {"j_per_call", "j_per_token", "share"};
    return (unsigned)f < JL_SPAN_FIG_COUNT ? names[f] : "?";
}

/* "spans": [{"class": "attention", "j_per_call": X, "j_per_token": X,
 * "share": X}, ...]: per-class ceilings on attribute's rows. */
static jl_status parse_spans(budget *bu, const json_t *arr, const char *name, size_t i,
                             jl_error **err)
{
    if (!json_is_array(arr) || !json_array_size(arr))
        return BAD("budgets[%zu].spans must be a non-empty array of {\"class\", "
                   "\"j_per_call\", \"j_per_token\", \"share\"}",
                   i);
    if (!(bu->spans = calloc(json_array_size(arr), sizeof *bu->spans)))
        return JL_ENOMEM;
    size_t j;
    const json_t *e;
    json_array_foreach(arr, j, e) {
        span_ceiling *sc = &bu->spans[bu->n_spans++];
        for (int f = 0; f < JL_SPAN_FIG_COUNT; f++)
            sc->max[f] = NAN;
        if (!json_is_object(e))
            return BAD("budgets[%zu].spans[%zu] must be an object", i, j);
        const char *k;
        const json_t *v;
        int n_fig = 0;
        json_object_foreach((json_t *)e, k, v) {
            int f = -1;
            for (int q = 0; q < JL_SPAN_FIG_COUNT; q++)
                if (!strcmp(k, jl_span_figure_name((jl_span_figure)q)))
                    f = q;
            char hint[160];
            if (f < 0 && strcmp(k, "class"))
                return BAD("budgets[%zu].spans[%zu]: unknown key \"%s\"%s (known: class, "
                           "j_per_call, j_per_token, share)",
                           i, j, k, NEAR(k, "class", "j_per_call", "j_per_token", "share"));
            if (f < 0)
                continue;
            if (number(v, &sc->max[f]) || !(sc->max[f] > 0) ||
                (f == JL_SPAN_SHARE && sc->max[f] > 1))
                return BAD("budgets[%zu].spans[%zu].%s must be a number > 0%s", i, j, k,
                           f == JL_SPAN_SHARE ? " and <= 1 (a fraction of the window's energy)"
                                              : "");
            n_fig++;
        }
        const char *cls = json_string_value(json_object_get(e, "class"));
        if (!cls || !*cls)
            return BAD("budgets[%zu].spans[%zu]: \"class\" (a class name as `attribute --by "
                       "class` prints it, or a glob) is required",
                       i, j);
        if (!n_fig)
            return BAD("budgets[%zu].spans[%zu]: no ceiling (j_per_call, j_per_token or share)", i,
                       j);
        if (!(sc->cls = jl__strdup(cls)))
            return JL_ENOMEM;
    }
    return JL_OK;
}

static jl_status parse(const json_t *doc, const char *name, jl_budgets *b, jl_error **err)
{
    if (!json_is_object(doc))
        return BAD("a joules.budgets/1 document is an object");
    const char *schema = json_string_value(json_object_get(doc, "schema"));
    if (!schema || strcmp(schema, JL_BUDGETS_SCHEMA))
        return BAD("\"schema\" must be \"%s\"", JL_BUDGETS_SCHEMA);
    double unc = 0.05;
    const json_t *u = json_object_get(doc, "uncertainty");
    if (u && (number(u, &unc) || unc < 0 || unc >= 1))
        return BAD("\"uncertainty\" must be a number in [0, 1)");
    const char *k;
    const json_t *v;
    char hint[160];
    json_object_foreach((json_t *)doc, k, v) {
        if (strcmp(k, "schema") && strcmp(k, "uncertainty") && strcmp(k, "budgets") &&
            strcmp(k, "provenance"))
            return BAD("unknown key \"%s\"%s", k,
                       NEAR(k, "schema", "uncertainty", "budgets", "provenance"));
    }
    const json_t *arr = json_object_get(doc, "budgets");
    if (!json_is_array(arr) || !json_array_size(arr))
        return BAD("\"budgets\" must be a non-empty array");
    if (!(b->b = calloc(json_array_size(arr), sizeof *b->b)))
        return JL_ENOMEM;
    size_t i;
    const json_t *e;
    json_array_foreach(arr, i, e) {
        budget *bu = &b->b[b->n++];
        bu->uncertainty = unc;
        if (!json_is_object(e))
            return BAD("budgets[%zu] must be an object", i);
        json_object_foreach((json_t *)e, k, v) {
            if (strcmp(k, "name") && strcmp(k, "where") && strcmp(k, "exclude") &&
                strcmp(k, "uncertainty") && strcmp(k, "ceilings") && strcmp(k, "spans"))
                return BAD("budgets[%zu]: unknown key \"%s\"%s", i, k,
                           NEAR(k, "name", "where", "exclude", "uncertainty", "ceilings", "spans"));
        }
        const char *nm = json_string_value(json_object_get(e, "name"));
        bu->name = nm ? jl__strdup(nm) : jl__asprintf("budget %zu", i + 1);
        if (!bu->name || !(bu->sel = jl_selector_new()))
            return JL_ENOMEM;
        u = json_object_get(e, "uncertainty");
        if (u && (number(u, &bu->uncertainty) || bu->uncertainty < 0 || bu->uncertainty >= 1))
            return BAD("budgets[%zu].uncertainty must be a number in [0, 1)", i);
        jl_status st = add_clauses(bu, json_object_get(e, "where"), 0, name, i, err);
        if (st == JL_OK)
            st = add_clauses(bu, json_object_get(e, "exclude"), 1, name, i, err);
        if (st != JL_OK)
            return st;
        const json_t *ce = json_object_get(e, "ceilings"), *sp = json_object_get(e, "spans");
        if (!ce && !sp)
            return BAD("budgets[%zu] needs \"ceilings\" (per run) or \"spans\" (per span "
                       "class)",
                       i);
        if (ce && (!json_is_object(ce) || !json_object_size(ce)))
            return BAD("budgets[%zu].ceilings must be a non-empty object", i);
        json_object_foreach((json_t *)ce, k, v) {
            if ((st = parse_ceiling(bu, k, v, name, i, err)) != JL_OK)
                return st;
        }
        if (sp && (st = parse_spans(bu, sp, name, i, err)) != JL_OK)
            return st;
    }
    return JL_OK;
}

jl_status jl_budgets_load_buffer(const char *buf, size_t len, const char *name, jl_budgets **out,
                                 jl_error **err)
{
    *out = NULL;
    json_error_t je;
    json_t *doc = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
    if (!doc) {
        jl_status st = jl_fail(err, JL_EINVALID, name, NULL, NULL, -1, "%s", je.text);
        if (err && *err)
            jl_error_set_position(*err, je.line, je.column);
        return st;
    }
    jl_budgets *b = calloc(1, sizeof *b);
    jl_status st = b ? parse(doc, name, b, err) : JL_ENOMEM;
    json_decref(doc);
    if (st != JL_OK) {
        jl_budgets_free(b);
        return st == JL_ENOMEM ? jl_fail(err, st, name, NULL, NULL, -1, "out of memory") : st;
    }
    *out = b;
    return JL_OK;
}

jl_status jl_budgets_load(const char *path, jl_budgets **out, jl_error **err)
{
    *out = NULL;
    char why[128];
    FILE *f = jl__fopen_input(path, why, sizeof why);
    if (!f)
        return jl_fail(err, JL_EIO, path, NULL, NULL, -1, "cannot open the budgets file: %s",
                       errno == EINVAL ? why : strerror(errno));
    jl__input_read(path); /* the provenance's inputs */
    char *buf = NULL;
    size_t len = 0, cap = 0, n;
    char chunk[8192];
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (len + n > cap) {
            cap = (len + n) * 2;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return jl_fail(err, JL_ENOMEM, path, NULL, NULL, -1, "out of memory");
            }
            buf = nb;
        }
        memcpy(buf + len, chunk, n);
        len += n;
    }
    fclose(f);
    jl_status st = jl_budgets_load_buffer(buf ? buf : "", len, path, out, err);
    free(buf);
    return st;
}

/* ---- judging ---- */

static jl_budget_verdict worse(jl_budget_verdict a, jl_budget_verdict b)
{
    static const int rank[] = {0, 3, 2, 1}; /* pass < unmeasured < undetermined < fail */
    return rank[b] > rank[a] ? b : a;
}

/* The figure of ceiling c at the boundary counted (jl_counted). */
static double counted_figure(const ceiling *c, const jl_summary *s, const jl_counted *n,
                             jl_boundary *b)
{
    *b = n->boundary;
    switch (c->fig) {
    case JL_FIG_ENERGY_PER_TOKEN_J: return n->per_token_j;
    case JL_FIG_ENERGY_PER_REQUEST_J: return n->per_request_j;
    case JL_FIG_ENERGY_PER_ITEM_J: return n->per_item_j;
    case JL_FIG_AVG_POWER_W: return n->duration_s > 0 ? n->energy_j / n->duration_s : NAN;
    default:
        /* peak_power_w: its own boundary */
        jl_figure_boundary(s, (jl_figure)c->fig, b);
        return s->fig[c->fig];
    }
}

static void judge(const budget *bu, const ceiling *c, const jl_summary *s, const jl_counted *n,
                  jl_budget_check *k)
{
    double v = counted_figure(c, s, n, &k->boundary);
    switch (c->kind) {
    case C_KWH_DAY: v = v * c->load * 86400.0 / 3.6e6 * c->pue; break;
    case C_CO2_REQUEST: v = v / 3.6e6 * c->pue * c->intensity; break;
    default: break;
    }
    double u = bu->uncertainty, d = s->fig[JL_FIG_ENERGY_SOURCE_DISAGREEMENT];
    if (isfinite(d) && fabs(d) > u)
        u = fabs(d);
    k->ceiling = CEIL[c->kind].name;
    k->value = v;
    k->max = c->max;
    k->lo = v * (1 - u);
    k->hi = v * (1 + u);
    k->verdict = !isfinite(v)      ? JL_BUDGET_UNMEASURED
                 : k->hi <= c->max ? JL_BUDGET_PASS
                 : k->lo > c->max  ? JL_BUDGET_FAIL
                                   : JL_BUDGET_UNDETERMINED;
}

static int same_group(const jl_summary *a, const jl_summary *b)
{
    const jl_attrs *x = &a->attrs, *y = &b->attrs;
#define SAME(f) ((!x->f && !y->f) || (x->f && y->f && !strcmp(x->f, y->f)))
    return SAME(model) && SAME(task) && SAME(gpu_model) && x->num_gpus == y->num_gpus;
#undef SAME
}

void jl_budget_result_free(jl_budget_result *r)
{
    if (!r)
        return;
    free(r->checks);
    free(r->groups);
    for (size_t i = 0; i < r->n_refused; i++)
        free(r->refused[i]);
    free(r->refused);
    free(r);
}

static void count(jl_budget_result *r, jl_budget_verdict v)
{
    r->runs_judged++;
    if (v == JL_BUDGET_PASS)
        r->runs_pass++;
    else if (v == JL_BUDGET_FAIL)
        r->runs_fail++;
    else if (v == JL_BUDGET_UNDETERMINED)
        r->runs_undetermined++;
    else
        r->runs_unmeasured++;
}

jl_status jl_budgets_evaluate(const jl_budgets *b, const jl_summary_list *runs,
                              jl_budget_result **out, jl_error **err)
{
    return jl_budgets_evaluate_at(b, runs, NULL, out, err);
}

/* Run s cannot give the boundary: one message in r->refused. */
static int refuse_run(jl_budget_result *r, jl_error *e)
{
    char *m = jl_error_format(e);
    char **nr = m ? realloc(r->refused, (r->n_refused + 1) * sizeof *nr) : NULL;
    if (!nr) {
        free(m);
        return -1;
    }
    r->refused = nr;
    r->refused[r->n_refused++] = m;
    return 0;
}

jl_status jl_budgets_evaluate_at(const jl_budgets *b, const jl_summary_list *runs,
                                 const jl_account_boundary *bound, jl_budget_result **out,
                                 jl_error **err)
{
    *out = NULL;
    jl_budget_result *r = calloc(1, sizeof *r);
    size_t cap = 0, gcap = 0;
    for (size_t i = 0; r && i < b->n; i++)
        cap += b->b[i].n * runs->count;
    if (r && cap && !(r->checks = calloc(cap, sizeof *r->checks)))
        goto oom;
    gcap = b->n * runs->count;
    if (r && gcap && !(r->groups = calloc(gcap, sizeof *r->groups)))
        goto oom;
    if (!r)
        goto oom;
    for (size_t i = 0; i < b->n; i++) {
        const budget *bu = &b->b[i];
        size_t g0 = r->n_groups;
        if (!bu->n)
            continue; /* per span class only: attribute --budgets judges it */
        size_t matched = 0;
        for (size_t j = 0; j < runs->count; j++) {
            const jl_summary *s = runs->items[j];
            if (!jl_selector_match(bu->sel, s))
                continue;
            matched++;
            jl_counted n;
            jl_error *e = NULL;
            if (jl_account_count(s, bound, &n, &e) != JL_OK) {
                int bad = refuse_run(r, e);
                jl_error_free(e);
                if (bad)
                    goto oom;
                continue;
            }
            jl_budget_verdict rv = JL_BUDGET_PASS;
            for (size_t c = 0; c < bu->n; c++) {
                jl_budget_check *k = &r->checks[r->n_checks++];
                k->budget = i;
                k->run = j;
                k->counted = n;
                judge(bu, &bu->c[c], s, &n, k);
                rv = worse(rv, k->verdict);
            }
            count(r, rv);
            jl_budget_group *g = NULL;
            for (size_t q = g0; q < r->n_groups && !g; q++)
                if (same_group(runs->items[r->groups[q].first_run], s))
                    g = &r->groups[q];
            if (!g) {
                g = &r->groups[r->n_groups++];
                g->budget = i;
                g->first_run = j;
                g->verdict = JL_BUDGET_PASS;
            }
            g->n_runs++;
            g->n_pass += rv == JL_BUDGET_PASS;
            g->n_fail += rv == JL_BUDGET_FAIL;
            g->n_undetermined += rv == JL_BUDGET_UNDETERMINED;
            g->verdict = worse(g->verdict, rv);
        }
        if (!matched) { /* never a vacuous pass (issue 37) */
            char *why = NULL;
            if (jl_selector_unmatched(bu->sel, runs, &why) != JL_OK) {
                jl_budget_result_free(r);
                return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
            }
            jl_status st = jl_fail(err, JL_ENODATA, NULL, NULL, NULL, -1,
                                   "budget '%s' selects none of the %zu run%s given%s%s: a budget "
                                   "that judges nothing cannot pass (fix its \"where\", or drop "
                                   "it)",
                                   bu->name ? bu->name : "?", runs->count,
                                   runs->count == 1 ? "" : "s", why ? ": " : "", why ? why : "");
            free(why);
            jl_budget_result_free(r);
            return st;
        }
    }
    size_t judged = r->runs_pass + r->runs_fail + r->runs_undetermined;
    r->adherence = judged ? (double)r->runs_pass / (double)judged : NAN;
    *out = r;
    return JL_OK;
oom:
    jl_budget_result_free(r);
    return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
}

json_t *jl_budget_document(const jl_budget_result *r, const jl_budgets *b,
                           const jl_summary_list *runs)
{
    json_t *doc = json_object(), *arr = json_array();
    int bad = !doc || !arr;
    for (size_t i = 0; !bad && i < b->n; i++) {
        json_t *groups = json_array(), *rj = json_array();
        bad = !groups || !rj;
        for (size_t q = 0; !bad && q < r->n_groups; q++) {
            const jl_budget_group *g = &r->groups[q];
            if (g->budget != i)
                continue;
            const jl_attrs *a = &runs->items[g->first_run]->attrs;
            bad = json_array_append_new(
                groups,
                json_pack("{s:s?,s:s?,s:s?,s:I,s:I,s:I,s:I,s:I,s:s}", "model", a->model, "task",
                          a->task, "gpu_model", a->gpu_model, "num_gpus", (json_int_t)a->num_gpus,
                          "runs", (json_int_t)g->n_runs, "pass", (json_int_t)g->n_pass, "fail",
                          (json_int_t)g->n_fail, "undetermined", (json_int_t)g->n_undetermined,
                          "verdict", jl_budget_verdict_name(g->verdict)));
        }
        for (size_t c = 0; !bad && c < r->n_checks;) {
            const jl_budget_check *k = &r->checks[c];
            if (k->budget != i) {
                c++;
                continue;
            }
            json_t *run = jl_run_key_to_json(runs->items[k->run]), *checks = json_object();
            jl_budget_verdict rv = JL_BUDGET_PASS;
            size_t run_idx = k->run;
            for (; c < r->n_checks && r->checks[c].budget == i && r->checks[c].run == run_idx;
                 c++) {
                const jl_budget_check *x = &r->checks[c];
                rv = worse(rv, x->verdict);
                json_object_set_new(checks, x->ceiling,
                                    json_pack("{s:o,s:o,s:o,s:o,s:s,s:{s:s,s:s}}", "value",
                                              jl_json_number(x->value), "lo", jl_json_number(x->lo),
                                              "hi", jl_json_number(x->hi), "max",
                                              jl_json_number(x->max), "verdict",
                                              jl_budget_verdict_name(x->verdict), "boundary",
                                              "window", jl_window_name(x->boundary.window), "scope",
                                              jl_scope_name(x->boundary.scope)));
            }
            bad = !run || !checks;
            if (!bad) {
                json_object_set_new(run, "checks", checks);
                json_object_set_new(run, "left_out", jl_counted_left_out_to_json(&k->counted));
                json_object_set_new(run, "verdict", json_string(jl_budget_verdict_name(rv)));
                bad = json_array_append_new(rj, run);
            } else {
                json_decref(run);
                json_decref(checks);
            }
        }
        if (!bad)
            bad = json_array_append_new(arr, json_pack("{s:s,s:o,s:o}", "name", b->b[i].name,
                                                       "groups", groups, "runs", rj));
        else {
            json_decref(groups);
            json_decref(rj);
        }
    }
    json_t *refused = json_array();
    for (size_t i = 0; refused && i < r->n_refused; i++)
        json_array_append_new(refused, json_string(r->refused[i]));
    if (!bad && refused && json_object_set_new(doc, "refused", refused))
        bad = 1;
    else if (!refused || bad)
        json_decref(refused), bad = 1;
    if (!bad)
        bad = json_object_set_new(doc, "schema", json_string("joules.budget/1")) ||
              json_object_set_new(doc, "budgets", arr) ||
              json_object_set_new(doc, "totals",
                                  json_pack("{s:I,s:I,s:I,s:I,s:I,s:o}", "judged",
                                            (json_int_t)r->runs_judged, "pass",
                                            (json_int_t)r->runs_pass, "fail",
                                            (json_int_t)r->runs_fail, "undetermined",
                                            (json_int_t)r->runs_undetermined, "unmeasured",
                                            (json_int_t)r->runs_unmeasured, "adherence",
                                            jl_json_number(r->adherence)));
    else
        json_decref(arr);
    if (bad) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}

size_t jl_budgets_run_ceilings(const jl_budgets *b, size_t i)
{
    return i < b->n ? b->b[i].n : 0;
}

size_t jl_budgets_span_ceilings(const jl_budgets *b, size_t i)
{
    return i < b->n ? b->b[i].n_spans : 0;
}

/* ---- per-component budgets: attribute's rows ---- */

void jl_span_budget_result_free(jl_span_budget_result *r)
{
    if (!r)
        return;
    free(r->checks);
    free(r->row_verdict);
    free(r->budgets);
    free(r->unmatched);
    free(r);
}

/* The row's figure f and its interval from the row's energy interval. */
static void span_figure(const jl_attribution *a, const jl_attribution_row *row, jl_span_figure f,
                        double *v, double *lo, double *hi)
{
    double div = NAN;
    switch (f) {
    case JL_SPAN_J_PER_CALL: div = row->calls ? (double)row->calls : NAN; break;
    case JL_SPAN_J_PER_TOKEN: div = row->tokens > 0 ? row->tokens : NAN; break;
    case JL_SPAN_SHARE: div = a->window_energy_j > 0 ? a->window_energy_j : NAN; break;
    default: break;
    }
    *v = row->energy_j / div;
    *lo = row->energy_lo_j / div;
    *hi = row->energy_hi_j / div;
}

jl_status jl_budgets_evaluate_spans(const jl_budgets *b, const jl_summary *run,
                                    const jl_attribution *a, jl_span_budget_result **out,
                                    jl_error **err)
{
    *out = NULL;
    if (a->by != JL_ATTRIBUTION_BY_CLASS)
        return jl_fail(err, JL_EUSAGE, a->file, a->run, NULL, -1,
                       "per-class budgets judge the rows of an attribution by class");
    jl_span_budget_result *r = calloc(1, sizeof *r);
    size_t cap = 0, ucap = 0;
    for (size_t i = 0; r && i < b->n; i++) {
        cap += b->b[i].n_spans * JL_SPAN_FIG_COUNT * a->n_rows;
        ucap += b->b[i].n_spans;
    }
    if (!r || (cap && !(r->checks = calloc(cap, sizeof *r->checks))) ||
        (ucap && !(r->unmatched = calloc(ucap, sizeof *r->unmatched))) ||
        (b->n && !(r->budgets = calloc(b->n, sizeof *r->budgets))) ||
        (a->n_rows && !(r->row_verdict = calloc(a->n_rows, sizeof *r->row_verdict)))) {
        jl_span_budget_result_free(r);
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    }
    r->n_rows = a->n_rows;
    for (size_t i = 0; i < b->n; i++)
        if (b->b[i].n_spans && (!run || jl_selector_match(b->b[i].sel, run)))
            r->budgets[r->n_budgets++] = i;
    /* unmatched ceilings first (they name no row) */
    for (size_t q = 0; q < r->n_budgets; q++) {
        const budget *bu = &b->b[r->budgets[q]];
        for (size_t k = 0; k < bu->n_spans; k++) {
            int hit = 0;
            for (size_t row = 0; row < a->n_rows && !hit; row++)
                hit = !fnmatch(bu->spans[k].cls, a->rows[row].key, 0);
            if (!hit)
                r->unmatched[r->n_unmatched++] =
                    (jl_span_unmatched){r->budgets[q], k, bu->spans[k].cls};
        }
    }
    for (size_t row = 0; row < a->n_rows; row++) {
        const jl_attribution_row *ar = &a->rows[row];
        int judged = 0;
        jl_budget_verdict rv = JL_BUDGET_PASS;
        for (size_t q = 0; q < r->n_budgets; q++) {
            const budget *bu = &b->b[r->budgets[q]];
            for (size_t k = 0; k < bu->n_spans; k++) {
                const span_ceiling *sc = &bu->spans[k];
                if (fnmatch(sc->cls, ar->key, 0))
                    continue;
                for (int f = 0; f < JL_SPAN_FIG_COUNT; f++) {
                    if (isnan(sc->max[f]))
                        continue;
                    jl_span_check *c = &r->checks[r->n_checks++];
                    c->budget = r->budgets[q];
                    c->ceiling = k;
                    c->cls = sc->cls;
                    c->figure = (jl_span_figure)f;
                    c->row = row;
                    c->max = sc->max[f];
                    span_figure(a, ar, c->figure, &c->value, &c->lo, &c->hi);
                    c->verdict = !isfinite(c->value) || !isfinite(c->lo) || !isfinite(c->hi)
                                     ? JL_BUDGET_UNMEASURED
                                 : c->hi <= c->max ? JL_BUDGET_PASS
                                 : c->lo > c->max  ? JL_BUDGET_FAIL
                                                   : JL_BUDGET_UNDETERMINED;
                    rv = worse(rv, c->verdict);
                    judged = 1;
                }
            }
        }
        r->row_verdict[row] = judged ? (int)rv : -1;
        if (!judged)
            continue;
        r->rows_judged++;
        r->rows_pass += rv == JL_BUDGET_PASS;
        r->rows_fail += rv == JL_BUDGET_FAIL;
        r->rows_undetermined += rv == JL_BUDGET_UNDETERMINED;
        r->rows_unmeasured += rv == JL_BUDGET_UNMEASURED;
    }
    size_t det = r->rows_pass + r->rows_fail;
    r->adherence = det ? (double)r->rows_pass / (double)det : NAN;
    *out = r;
    return JL_OK;
}

json_t *jl_span_budget_row_json(const jl_span_budget_result *r, const jl_budgets *b, size_t row)
{
    json_t *o = json_object(), *checks = json_array();
    if (!o || !checks || row >= r->n_rows) {
        json_decref(o);
        json_decref(checks);
        return NULL;
    }
    int bad = 0;
    for (size_t i = 0; !bad && i < r->n_checks; i++) {
        const jl_span_check *c = &r->checks[i];
        if (c->row != row)
            continue;
        bad = json_array_append_new(
            checks, json_pack("{s:s,s:s,s:s,s:o,s:o,s:o,s:o,s:s}", "budget", b->b[c->budget].name,
                              "class", c->cls, "figure", jl_span_figure_name(c->figure), "value",
                              jl_json_number(c->value), "lo", jl_json_number(c->lo), "hi",
                              jl_json_number(c->hi), "max", jl_json_number(c->max), "verdict",
                              jl_budget_verdict_name(c->verdict)));
    }
    int v = r->row_verdict[row];
    if (bad ||
        json_object_set_new(o, "verdict",
                            v < 0 ? json_null()
                                  : json_string(jl_budget_verdict_name((jl_budget_verdict)v))) ||
        json_object_set_new(o, "checks", checks)) {
        json_decref(o);
        return NULL;
    }
    return o;
}

const char *jl_span_budget_verdict(const jl_span_budget_result *r)
{
    return r->rows_fail           ? "fail"
           : r->rows_undetermined ? "undetermined"
           : r->rows_unmeasured   ? "unmeasured"
           : r->rows_judged       ? "pass"
                                  : NULL;
}

json_t *jl_span_budget_summary_json(const jl_span_budget_result *r, const jl_budgets *b)
{
    json_t *names = json_array(), *un = json_array();
    int bad = !names || !un;
    for (size_t i = 0; !bad && i < r->n_budgets; i++)
        bad = json_array_append_new(names, json_string(b->b[r->budgets[i]].name));
    for (size_t i = 0; !bad && i < r->n_unmatched; i++)
        bad = json_array_append_new(un, json_pack("{s:s,s:s}", "budget",
                                                  b->b[r->unmatched[i].budget].name, "class",
                                                  r->unmatched[i].cls));
    if (bad) {
        json_decref(names);
        json_decref(un);
        return NULL;
    }
    const char *v = jl_span_budget_verdict(r);
    return json_pack("{s:o,s:o,s:I,s:I,s:I,s:I,s:I,s:I,s:o,s:o}", "verdict",
                     v ? json_string(v) : json_null(), "budgets", names, "rows_judged",
                     (json_int_t)r->rows_judged, "pass", (json_int_t)r->rows_pass, "fail",
                     (json_int_t)r->rows_fail, "undetermined", (json_int_t)r->rows_undetermined,
                     "unmeasured", (json_int_t)r->rows_unmeasured, "determined",
                     (json_int_t)(r->rows_pass + r->rows_fail), "adherence",
                     jl_json_number(r->adherence), "unmatched", un);
}

jl_status jl_span_budget_annotate(const jl_span_budget_result *r, const jl_budgets *b, json_t *doc)
{
    json_t *rows = json_object_get(doc, "rows");
    if (!json_is_array(rows) || json_array_size(rows) != r->n_rows)
        return JL_EINVALID;
    for (size_t i = 0; i < r->n_rows; i++) {
        json_t *o = jl_span_budget_row_json(r, b, i);
        if (!o || json_object_set_new(json_array_get(rows, i), "budget", o))
            return JL_ENOMEM;
    }
    json_t *s = jl_span_budget_summary_json(r, b);
    return s && !json_object_set_new(doc, "budgets", s) ? JL_OK : JL_ENOMEM;
}

jl_status jl_span_budget_csv_columns(const jl_span_budget_result *r, const jl_budgets *b,
                                     char ***values)
{
    (void)b;
    char **v = calloc(2 * r->n_rows + 1, sizeof *v);
    if (!v)
        return JL_ENOMEM;
    jl_status st = JL_OK;
    for (size_t row = 0; !st && row < r->n_rows; row++) {
        int rv = r->row_verdict[row];
        v[2 * row] = jl__strdup(rv < 0 ? "" : jl_budget_verdict_name((jl_budget_verdict)rv));
        char *acc = jl__strdup("");
        for (size_t i = 0; acc && i < r->n_checks; i++) {
            const jl_span_check *c = &r->checks[i];
            if (c->row != row)
                continue;
            char *n =
                jl__asprintf("%s%s%s<=%g %s", acc, *acc ? "; " : "", jl_span_figure_name(c->figure),
                             c->max, jl_budget_verdict_name(c->verdict));
            free(acc);
            acc = n;
        }
        v[2 * row + 1] = acc;
        if (!v[2 * row] || !acc)
            st = JL_ENOMEM;
    }
    if (st) {
        for (size_t i = 0; i < 2 * r->n_rows; i++)
            free(v[i]);
        free(v);
        return st;
    }
    *values = v;
    return JL_OK;
}
