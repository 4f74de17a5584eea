/* What an account counts of a run (docs/accounting.md, "What each command
 * counts"): the boundary asked for (--window, --scope) resolved against
 * what the run measured (jl_summary_energy), and what is left out. The
 * defaults count all of it: the whole run at the widest measured scope. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "joules/account.h"
#include "joules/output.h"

void jl_account_boundary_default(jl_account_boundary *a)
{
    a->window = -1;
    a->scope = -1;
}

jl_status jl_account_boundary_parse(jl_account_boundary *a, const char *window, const char *scope,
                                    jl_error **err)
{
    if (window) {
        int w = jl_window_lookup(window);
        if (w != JL_WINDOW_RUN && w != JL_WINDOW_STEADY)
            return jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1,
                           "--window: '%s' is not a window an account counts (run, steady)",
                           window);
        a->window = w;
    }
    if (scope) {
        int sc = strcmp(scope, "auto") ? jl_scope_lookup(scope) : -1;
        if (sc < 0 && strcmp(scope, "auto"))
            return jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1,
                           "--scope: '%s' is not a scope (auto, gpu, host, node, facility, "
                           "provisioned)",
                           scope);
        a->scope = sc;
    }
    return JL_OK;
}

const char *jl_scope_words(jl_scope s)
{
    switch (s) {
    case JL_SCOPE_GPU: return "GPU";
    case JL_SCOPE_HOST: return "GPU + host";
    case JL_SCOPE_NODE: return "node";
    case JL_SCOPE_FACILITY: return "facility";
    case JL_SCOPE_PROVISIONED: return "provisioned (TDP)";
    default: return "?";
    }
}

const char *jl_window_words(jl_window w)
{
    switch (w) {
    case JL_WINDOW_STEADY: return "steady state";
    case JL_WINDOW_RUN: return "whole run";
    case JL_WINDOW_PROFILED: return "profiled window";
    case JL_WINDOW_CUSTOM: return "source's window";
    default: return "?";
    }
}

static int rank_of(jl_scope s)
{
    return s == JL_SCOPE_GPU ? 0 : s == JL_SCOPE_HOST ? 1 : s == JL_SCOPE_NODE ? 2 : -1;
}

static jl_status refuse(const jl_summary *s, const char *what, jl_error **err)
{
    char have[256];
    jl_summary_boundaries_text(s, have, sizeof have);
    jl_status st = jl_fail(err, JL_ENODATA, s->file, s->run, NULL, -1,
                           "no %s energy: the run has %s", what, have);
    if (err)
        jl_error_set_side(*err, JL_SIDE_REQUEST);
    return st;
}

jl_status jl_account_count(const jl_summary *s, const jl_account_boundary *a, jl_counted *out,
                           jl_error **err)
{
    jl_account_boundary d;
    if (!a) {
        jl_account_boundary_default(&d);
        a = &d;
    }
    memset(out, 0, sizeof *out);
    out->energy_j = out->per_token_j = out->per_request_j = out->per_item_j = NAN;
    out->duration_s = out->outside_window_j = out->wider_j = NAN;
    out->wider = JL_SCOPE_COUNT;
    jl_window w;
    if (a->window >= 0) {
        w = (jl_window)a->window;
    } else {
        w = JL_WINDOW_RUN;
        if (jl_summary_widest_scope(s, w) < 0) {
            w = s->boundary.window;
            out->window_fallback = 1;
        }
    }
    int widest = jl_summary_widest_scope(s, w);
    jl_scope base;
    if (a->scope < 0 || a->scope == JL_SCOPE_FACILITY) {
        if (widest < 0) {
            char what[64];
            snprintf(what, sizeof what, "%s", jl_window_words(w));
            return refuse(s, what, err);
        }
        base = (jl_scope)widest;
    } else {
        base = (jl_scope)a->scope;
    }
    jl_boundary b = {w, base};
    double e = jl_summary_energy(s, b, JL_PER_TOTAL);
    double pt = jl_summary_energy(s, b, JL_PER_TOKEN), pr = jl_summary_energy(s, b, JL_PER_REQUEST),
           pi = jl_summary_energy(s, b, JL_PER_ITEM);
    if (!isfinite(e) && !isfinite(pt) && !isfinite(pr) && !isfinite(pi)) {
        char what[96];
        snprintf(what, sizeof what, "%s/%s (%s, %s)", jl_window_name(w), jl_scope_name(base),
                 jl_window_words(w), jl_scope_words(base));
        return refuse(s, what, err);
    }
    out->boundary.window = w;
    out->boundary.scope = a->scope == JL_SCOPE_FACILITY ? JL_SCOPE_FACILITY : base;
    out->base_scope = base;
    out->energy_j = e;
    out->per_token_j = pt;
    out->per_request_j = pr;
    out->per_item_j = pi;
    out->duration_s =
        w == JL_WINDOW_RUN ? s->fig[JL_FIG_RUN_DURATION_S] : s->fig[JL_FIG_STEADY_DURATION_S];
    /* left out: the energy outside the window, at the same scope */
    if (w == JL_WINDOW_RUN) {
        out->outside_window_j = 0;
    } else {
        jl_boundary r = {JL_WINDOW_RUN, base};
        double er = jl_summary_energy(s, r, JL_PER_TOTAL);
        out->outside_window_j = isfinite(er) ? er - e : NAN;
    }
    /* ... the energy measured at a wider scope, and the scopes not measured */
    if (widest >= 0 && rank_of(base) >= 0 && rank_of((jl_scope)widest) > rank_of(base)) {
        jl_boundary x = {w, (jl_scope)widest};
        out->wider = (jl_scope)widest;
        out->wider_j = jl_summary_energy(s, x, JL_PER_TOTAL) - e;
    }
    int top = widest >= 0 ? rank_of((jl_scope)widest) : 0;
    if (top < 1)
        out->not_measured |= 1u << JL_SCOPE_HOST;
    if (top < 2)
        out->not_measured |= 1u << JL_SCOPE_NODE;
    return JL_OK;
}

json_t *jl_counted_left_out_to_json(const jl_counted *c)
{
    json_t *nm = json_array();
    for (int sc = JL_SCOPE_HOST; nm && sc <= JL_SCOPE_NODE; sc++)
        if (c->not_measured & (1u << sc))
            json_array_append_new(nm, json_string(jl_scope_name((jl_scope)sc)));
    return json_pack("{s:o,s:s?,s:o,s:o*,s:b}", "outside_window_kwh",
                     jl_json_number(c->outside_window_j / 3.6e6), "wider_scope",
                     c->wider < JL_SCOPE_COUNT ? jl_scope_name(c->wider) : NULL, "wider_scope_kwh",
                     jl_json_number(c->wider_j / 3.6e6), "scopes_not_measured", nm,
                     "window_fallback", c->window_fallback);
}
