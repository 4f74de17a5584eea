/* Validation rules: defaults, tuning, evaluation. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/inputs.h"
#include "core/reasons.h"
#include "core/util.h"
#include "joules/check.h"

const char *jl_check_level_name(jl_check_level l)
{
    switch (l) {
    case JL_CHECK_PASS: return "pass";
    case JL_CHECK_WARN: return "warn";
    case JL_CHECK_FAIL: return "fail";
    default: return "skip";
    }
}

void jl_ruleset_default(jl_ruleset *rs)
{
    static const jl_rule defaults[] = {
#define JL__X_RULE(id, name, unit, hib, w, f, doc) {name, unit, doc, hib, w, f, 1},
        JL_RULE_TABLE(JL__X_RULE)
#undef JL__X_RULE
    };
    memcpy(rs->rules, defaults, sizeof defaults);
}

static int find_rule(const jl_ruleset *rs, const char *name, size_t len)
{
    for (int i = 0; i < JL_RULE_COUNT; i++)
        if (strlen(rs->rules[i].name) == len && !strncmp(rs->rules[i].name, name, len))
            return i;
    return -1;
}

jl_status jl_ruleset_set(jl_ruleset *rs, const char *a, jl_error **err)
{
    const char *eq = strchr(a, '=');
    if (!eq)
        return jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1,
                       "rule setting '%s': expected RULE.warn=X, RULE.fail=X or RULE=off", a);
    const char *dot = memchr(a, '.', (size_t)(eq - a));
    size_t name_len = dot ? (size_t)(dot - a) : (size_t)(eq - a);
    int r = find_rule(rs, a, name_len);
    if (r < 0)
        return jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1,
                       "rule setting '%s': unknown rule '%.*s' (see `joules check --list-rules`)",
                       a, (int)name_len, a);
    if (!dot) {
        if (!strcmp(eq + 1, "off"))
            rs->rules[r].enabled = 0;
        else if (!strcmp(eq + 1, "on"))
            rs->rules[r].enabled = 1;
        else
            return jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1,
                           "rule setting '%s': expected on or off after '='", a);
        return JL_OK;
    }
    char *end = NULL;
    double v = strtod(eq + 1, &end);
    if (!end || *end || end == eq + 1 || !isfinite(v))
        return jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1,
                       "rule setting '%s': '%s' is not a number", a, eq + 1);
    size_t klen = (size_t)(eq - dot - 1);
    if (klen == 4 && !strncmp(dot + 1, "warn", 4))
        rs->rules[r].warn = v;
    else if (klen == 4 && !strncmp(dot + 1, "fail", 4))
        rs->rules[r].fail = v;
    else
        return jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1,
                       "rule setting '%s': expected .warn or .fail after the rule name", a);
    return JL_OK;
}

static jl_status ruleset_from_doc(jl_ruleset *rs, json_t *doc, const char *path, jl_error **err);

jl_status jl_ruleset_load_json(jl_ruleset *rs, const char *path, jl_error **err)
{
    json_error_t je;
    char why[128];
    FILE *f = jl__fopen_input(path, why, sizeof why);
    if (!f)
        return jl_fail(err, JL_EIO, path, NULL, NULL, -1, "cannot read rules: %s", why);
    jl__input_read(path); /* the provenance's inputs */
    json_t *doc = json_loadf(f, 0, &je);
    fclose(f);
    if (!doc)
        return jl_fail(err, JL_EFORMAT, path, NULL, NULL, je.line > 0 ? je.line : -1,
                       "cannot read rules: %s (line %d, column %d)", je.text, je.line, je.column);
    return ruleset_from_doc(rs, doc, path, err);
}

jl_status jl_ruleset_load_json_buffer(jl_ruleset *rs, const char *buf, size_t len, const char *name,
                                      jl_error **err)
{
    json_error_t je;
    json_t *doc = json_loadb(buf, len, 0, &je);
    if (!doc)
        return jl_fail(err, JL_EFORMAT, name, NULL, NULL, je.line > 0 ? je.line : -1,
                       "cannot read rules: %s (line %d, column %d)", je.text, je.line, je.column);
    return ruleset_from_doc(rs, doc, name, err);
}

/* Takes ownership of doc. */
static jl_status ruleset_from_doc(jl_ruleset *rs, json_t *doc, const char *path, jl_error **err)
{
    jl_status st = JL_OK;
    json_t *ver = json_object_get(doc, "version");
    json_t *rules = json_object_get(doc, "rules");
    if (!json_is_string(ver) || strcmp(json_string_value(ver), JL_RULES_VERSION)) {
        st = jl_fail(err, JL_EFORMAT, path, NULL, "version", -1, "expected \"version\": \"%s\"",
                     JL_RULES_VERSION);
        goto end;
    }
    if (!json_is_object(rules)) {
        st = jl_fail(err, JL_EFORMAT, path, NULL, "rules", -1, "expected an object of rules");
        goto end;
    }
    const char *name;
    json_t *v;
    json_object_foreach(rules, name, v) {
        int r = find_rule(rs, name, strlen(name));
        if (r < 0) {
            st = jl_fail(err, JL_EFORMAT, path, NULL, name, -1, "unknown rule");
            goto end;
        }
        if (!json_is_object(v)) {
            st = jl_fail(err, JL_EFORMAT, path, NULL, name, -1, "expected an object");
            goto end;
        }
        const char *k;
        json_t *x;
        json_object_foreach(v, k, x) {
            if (!strcmp(k, "enabled") && json_is_boolean(x))
                rs->rules[r].enabled = json_is_true(x);
            else if (!strcmp(k, "warn") && json_is_number(x))
                rs->rules[r].warn = json_number_value(x);
            else if (!strcmp(k, "fail") && json_is_number(x))
                rs->rules[r].fail = json_number_value(x);
            else {
                st = jl_fail(
                    err, JL_EFORMAT, path, NULL, name, -1,
                    "unknown key or wrong type: \"%s\" (expected warn/fail numbers, enabled boolean)",
                    k);
                goto end;
            }
        }
    }
end:
    json_decref(doc);
    return st;
}

/* The figure a rule judges; NaN (skip) when it does not apply or the data
 * lacks it. `why` explains a skip. */
static double rule_value(int r, const jl_summary *s, const jl_descriptors *desc, const char **why)
{
    const double *f = s->fig;
    double g = s->attrs.num_gpus > 0 ? (double)s->attrs.num_gpus : NAN;
    *why = "the figure the rule judges is missing";
    if (s->steady_method == JL_STEADY_SUMMARY && r != JL_RULE_BATCH_SATURATION &&
        r != JL_RULE_POWER_BELOW_TDP && r != JL_RULE_POWER_ABOVE_IDLE &&
        !(r == JL_RULE_PUBLISHED_AGREES && s->published)) {
        *why = "summary-only run: no time series to judge";
        return NAN;
    }
    if ((r == JL_RULE_POWER_BELOW_TDP || r == JL_RULE_POWER_ABOVE_IDLE ||
         r == JL_RULE_PEAK_WITHIN_LIMIT) &&
        !strcmp(jl_attrs_power_scope(&s->attrs), "node_ac")) {
        *why = "node AC power (@power_scope node_ac): not the GPUs' power";
        return NAN;
    }
    switch (r) {
    case JL_RULE_POWER_SAMPLE_COVERAGE:
        *why = "no power_sample_coverage: no power/ samples in the steady-state window";
        return f[JL_FIG_POWER_SAMPLE_COVERAGE];
    case JL_RULE_STEADY_DURATION:
        *why = "no steady_duration_s: no steady-state window was found";
        return f[JL_FIG_STEADY_DURATION_S];
    case JL_RULE_BATCH_SATURATION:
        if (!jl_attrs_is_llm(&s->attrs)) {
            *why = "not an LLM/MLLM run";
            return NAN;
        }
        *why = s->attrs.max_batch_size > 0
                   ? "no avg_batch_size: no engine/running series (nor a published mean batch)"
                   : "no max_batch_size attribute";
        return s->attrs.max_batch_size > 0
                   ? f[JL_FIG_AVG_BATCH_SIZE] / (double)s->attrs.max_batch_size
                   : NAN;
    case JL_RULE_POWER_BELOW_TDP: {
        double tdp = jl_run_gpu_tdp_w(&s->attrs, desc);
        *why = !isfinite(tdp) ? "the GPU's power limit is unknown (no gpu_tdp_w, no descriptor)"
               : !isfinite(g) ? "no num_gpus attribute"
                              : "no avg_power_w: no power/ samples in the window";
        return f[JL_FIG_AVG_POWER_W] / g / tdp;
    }
    case JL_RULE_POWER_ABOVE_IDLE: {
        double idle = isfinite(s->attrs.gpu_idle_power_w) ? s->attrs.gpu_idle_power_w : NAN;
        *why = !isfinite(idle) ? "no measured idle power (gpu_idle_power_w)"
               : !isfinite(g)  ? "no num_gpus attribute"
                               : "no avg_power_w: no power/ samples in the window";
        return f[JL_FIG_AVG_POWER_W] / g / idle;
    }
    case JL_RULE_PEAK_WITHIN_LIMIT: {
        double tdp = jl_run_gpu_tdp_w(&s->attrs, desc);
        *why = !isfinite(tdp) ? "the GPU's power limit is unknown (no gpu_tdp_w, no descriptor)"
               : !isfinite(g) ? "no num_gpus attribute"
                              : "no peak_power_w: no power/ samples in the window";
        /* peak_power_w is the peak of the sum over GPUs: per GPU, divide by G */
        return f[JL_FIG_PEAK_POWER_W] / g / tdp;
    }
    case JL_RULE_ENERGY_SOURCES_AGREE:
        *why = "needs both power/energy_j and power/watts";
        return fabs(f[JL_FIG_ENERGY_SOURCE_DISAGREEMENT]);
    case JL_RULE_SM_CLOCK_SANITY: *why = "no gpu/sm_clock_mhz"; return f[JL_FIG_AVG_SM_CLOCK_MHZ];
    case JL_RULE_PUBLISHED_AGREES: {
        jl_disagreement d[JL_FIG_COUNT];
        size_t n = jl_summary_disagreements(s, d);
        double worst = NAN;
        *why = s->published ? "no figure is both published and recomputable from the series"
                            : "no published figures beside time series";
        for (size_t i = 0; i < n; i++) {
            /* a published 0 against a non-zero recomputed value: infinitely far */
            double x =
                isfinite(d[i].relative_difference) ? fabs(d[i].relative_difference) : DBL_MAX;
            if (!(x <= worst))
                worst = x;
        }
        return worst;
    }
    case JL_RULE_WINDOW_ALIGNMENT:
        switch (s->power_rise_skip) {
        case JL_RISE_NO_REQUESTS: *why = "no requests/ arrival times"; break;
        case JL_RISE_NO_WATTS: *why = "no power/watts samples"; break;
        case JL_RISE_FLAT: *why = "power does not rise by 10 % of its median in the window"; break;
        default: break;
        }
        return s->power_rise_lag_s;
    case JL_RULE_FAILED_REQUESTS: {
        double c = f[JL_FIG_COMPLETED_REQUESTS], x = f[JL_FIG_FAILED_REQUESTS];
        *why = "no requests/ table";
        return c + x > 0 ? x / (c + x) : NAN;
    }
    default: return NAN;
    }
}

/* Rule r's level and value into *res (message left NULL); *why says why
 * a rule was skipped. */
static void check_one(int r, const jl_summary *s, const jl_ruleset *rs, const jl_descriptors *desc,
                      jl_check_result *res, const char **why)
{
    const jl_rule *rule = &rs->rules[r];
    *why = "";
    res->message = NULL;
    res->value = NAN;
    if (!rule->enabled) {
        res->level = JL_CHECK_SKIP;
        *why = NULL;
        return;
    }
    double v = rule_value(r, s, desc, why);
    res->value = v;
    if (!isfinite(v)) {
        res->level = JL_CHECK_SKIP;
        res->value = NAN;
        return;
    }
    int hib = rule->higher_is_better;
    int fail = hib ? v < rule->fail : v > rule->fail;
    int warn = hib ? v < rule->warn : v > rule->warn;
    res->level = fail ? JL_CHECK_FAIL : warn ? JL_CHECK_WARN : JL_CHECK_PASS;
}

/* The message of a result from check_one (NULL when out of memory). */
static char *check_message(const jl_rule *rule, const jl_check_result *res, const char *why)
{
    if (res->level == JL_CHECK_SKIP)
        return why ? jl__asprintf("skipped: %s", why) : jl__strdup("rule disabled");
    int hib = rule->higher_is_better;
    /* a ratio has unit "1": print no unit for it */
    const char *unit = strcmp(rule->unit, "1") ? rule->unit : "";
    return jl__asprintf("%s = %.4g%s%s (warn %s %.4g, fail %s %.4g)", rule->name, res->value,
                        *unit ? " " : "", unit, hib ? "below" : "above", rule->warn,
                        hib ? "below" : "above", rule->fail);
}

jl_status jl_check_run(const jl_summary *s, const jl_ruleset *rs, const jl_descriptors *desc,
                       jl_check_result *res)
{
    for (int r = 0; r < JL_RULE_COUNT; r++)
        res[r].message = NULL;
    for (int r = 0; r < JL_RULE_COUNT; r++) {
        const char *why;
        check_one(r, s, rs, desc, &res[r], &why);
        if (!(res[r].message = check_message(&rs->rules[r], &res[r], why))) {
            jl_check_results_clear(res);
            return JL_ENOMEM;
        }
    }
    return JL_OK;
}

void jl_check_results_clear(jl_check_result *res)
{
    for (int r = 0; r < JL_RULE_COUNT; r++) {
        free(res[r].message);
        res[r].message = NULL;
    }
}

/* The rules whose failure makes a run not valid, and the reason each
 * gives (docs/check.md, "Reason codes"). The others judge how a run was
 * run (a batch below its cap, power below idle), not whether its figures
 * are measured right. */
static const struct {
    int rule;
    jl__reason reason;
} rule_reasons[] = {
    {JL_RULE_WINDOW_ALIGNMENT, JL__R_WINDOW_MISALIGNED},
    {JL_RULE_ENERGY_SOURCES_AGREE, JL__R_ENERGY_SOURCES_DISAGREE},
};
#define N_RULE_REASONS (sizeof rule_reasons / sizeof rule_reasons[0])

jl_status jl_check_annotate(jl_summary *s, const jl_ruleset *rs, const jl_descriptors *desc)
{
    /* a message only for the rules that warn or fail: the others say nothing here */
    jl_status st = JL_OK;
    /* the marks of published-vs-recomputed figures follow the rule's warn
     * threshold, so that tuning the rule moves the marks too */
    if (rs->rules[JL_RULE_PUBLISHED_AGREES].enabled)
        jl_summary_set_mark_threshold(s, rs->rules[JL_RULE_PUBLISHED_AGREES].warn);
    for (int r = 0; r < JL_RULE_COUNT && st == JL_OK; r++) {
        jl_check_result res;
        const char *why;
        check_one(r, s, rs, desc, &res, &why);
        if (res.level != JL_CHECK_WARN && res.level != JL_CHECK_FAIL)
            continue;
        char *msg = check_message(&rs->rules[r], &res, why);
        if (!msg)
            return JL_ENOMEM;
        char rule[96];
        snprintf(rule, sizeof rule, "check:%s", rs->rules[r].name);
        st = jl_summary_warn(s, rule, "%s: %s", jl_check_level_name(res.level), msg);
        /* a rule whose failure says the measurement is not what it claims
         * gives its reason code (core/reasons.h): the one vocabulary */
        for (size_t k = 0; st == JL_OK && res.level == JL_CHECK_FAIL && k < N_RULE_REASONS; k++)
            if (rule_reasons[k].rule == r)
                st = jl__validity_add(&s->validity, rule_reasons[k].reason, NAN,
                                      "check rule %s fails: %s", rs->rules[r].name, msg);
        free(msg);
    }
    return st;
}
