/* The reason table (core/reasons.h) and a run's validity (joules/validity.h):
 * the list of reasons, its copy and merge, and its JSON text form (the run
 * attribute validity_reasons an importer writes). */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/reasons.h"
#include "core/util.h"

static const jl_reason_info table[] = {
#define JL__X(id, code, sev, doc) {code, sev, doc},
    JL__REASON_TABLE(JL__X)
#undef JL__X
};

const char *jl_severity_name(jl_severity s)
{
    switch (s) {
    case JL_SEVERITY_INVALID: return "invalid";
    case JL_SEVERITY_CAUTION: return "caution";
    case JL_SEVERITY_INFO: return "info";
    }
    return "invalid";
}

const jl_reason_info *jl_reason_infos(size_t *n)
{
    if (n)
        *n = JL__R_COUNT;
    return table;
}

const jl_reason_info *jl_reason_find(const char *code)
{
    for (size_t i = 0; code && i < JL__R_COUNT; i++)
        if (!strcmp(table[i].code, code))
            return &table[i];
    return NULL;
}

const char *jl__reason_code(jl__reason r)
{
    return (unsigned)r < JL__R_COUNT ? table[r].code : "unknown";
}

jl_severity jl_reason_severity(const jl_reason *r)
{
    const jl_reason_info *i = r ? jl_reason_find(r->code) : NULL;
    return i ? i->severity : JL_SEVERITY_INVALID;
}

int jl_validity_is_valid(const jl_validity *v)
{
    for (size_t i = 0; v && i < v->n; i++)
        if (jl_reason_severity(&v->reasons[i]) == JL_SEVERITY_INVALID)
            return 0;
    return 1;
}

int jl_validity_has(const jl_validity *v, const char *code)
{
    for (size_t i = 0; v && code && i < v->n; i++)
        if (!strcmp(v->reasons[i].code, code))
            return 1;
    return 0;
}

jl_status jl_validity_add(jl_validity *v, const char *code, double energy_bound_j,
                          const char *message)
{
    if (!code || !*code)
        return JL_EUSAGE;
    if (!message)
        message = "";
    for (size_t i = 0; i < v->n; i++)
        if (!strcmp(v->reasons[i].code, code) && !strcmp(v->reasons[i].message, message))
            return JL_OK;
    jl_reason *x = realloc(v->reasons, (v->n + 1) * sizeof *x);
    if (!x)
        return JL_ENOMEM;
    v->reasons = x;
    jl_reason *r = &x[v->n];
    r->code = jl__strdup(code);
    r->message = jl__strdup(message);
    r->energy_bound_j = isfinite(energy_bound_j) ? energy_bound_j : NAN;
    if (!r->code || !r->message) {
        free(r->code);
        free(r->message);
        return JL_ENOMEM;
    }
    v->n++;
    return JL_OK;
}

jl_status jl__validity_add(jl_validity *v, jl__reason r, double energy_bound_j, const char *fmt,
                           ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = jl__vasprintf(fmt, ap);
    va_end(ap);
    if (!msg)
        return JL_ENOMEM;
    jl_status st = jl_validity_add(v, jl__reason_code(r), energy_bound_j, msg);
    free(msg);
    return st;
}

void jl_validity_clear(jl_validity *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->n; i++) {
        free(v->reasons[i].code);
        free(v->reasons[i].message);
    }
    free(v->reasons);
    v->reasons = NULL;
    v->n = 0;
}

jl_status jl_validity_merge(jl_validity *dst, const jl_validity *src)
{
    for (size_t i = 0; src && i < src->n; i++) {
        jl_status st = jl_validity_add(dst, src->reasons[i].code, src->reasons[i].energy_bound_j,
                                       src->reasons[i].message);
        if (st != JL_OK)
            return st;
    }
    return JL_OK;
}

jl_status jl_validity_copy(jl_validity *dst, const jl_validity *src)
{
    dst->reasons = NULL;
    dst->n = 0;
    jl_status st = jl_validity_merge(dst, src);
    if (st != JL_OK)
        jl_validity_clear(dst);
    return st;
}

/* jansson here for its text writer and reader: the attribute is a small
 * array written and read once per run (import, summary). */
char *jl_validity_to_text(const jl_validity *v)
{
    json_t *a = json_array();
    for (size_t i = 0; a && v && i < v->n; i++) {
        const jl_reason *r = &v->reasons[i];
        json_t *o =
            json_pack("{s:s, s:s, s:o}", "code", r->code, "message", r->message, "energy_bound_j",
                      isfinite(r->energy_bound_j) ? json_real(r->energy_bound_j) : json_null());
        if (!o || json_array_append_new(a, o)) {
            json_decref(a);
            return NULL;
        }
    }
    char *text = a ? json_dumps(a, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
    json_decref(a);
    return text;
}

jl_status jl_validity_parse_text(jl_validity *v, const char *text)
{
    json_error_t je;
    json_t *a = text ? json_loads(text, JSON_REJECT_DUPLICATES, &je) : NULL;
    jl_status st = JL_OK;
    if (!json_is_array(a)) {
        json_decref(a);
        return JL_EINVALID;
    }
    size_t i;
    json_t *o;
    json_array_foreach(a, i, o) {
        json_t *code = json_object_get(o, "code"), *msg = json_object_get(o, "message"),
               *bound = json_object_get(o, "energy_bound_j");
        if (!json_is_object(o) || !json_is_string(code) || !*json_string_value(code) ||
            (msg && !json_is_string(msg)) ||
            (bound && !json_is_null(bound) && !json_is_number(bound)))
            st = JL_EINVALID;
    }
    json_array_foreach(a, i, o) {
        if (st != JL_OK)
            break;
        json_t *msg = json_object_get(o, "message"), *bound = json_object_get(o, "energy_bound_j");
        st = jl_validity_add(v, json_string_value(json_object_get(o, "code")),
                             json_is_number(bound) ? json_number_value(bound) : NAN,
                             msg ? json_string_value(msg) : "");
    }
    json_decref(a);
    return st;
}
