/* Curves split by every knob that changes a configuration (knobs.h), and
 * the knobs of a run in words (jl__report_knobs_text). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/knobs.h"

/* ---- curves split by the work done ------------------------------------------------- */

/* The knobs that change a configuration beyond (GPU model, count,
 * precision): a run's value of knob k, or -1 when it has none. */
enum {
    KN_TP,
    KN_EP,
    KN_DP,
    KN_ULYSSES,
    KN_RING,
    KN_STEPS,
    KN_WIDTH,
    KN_HEIGHT,
    KN_FRAMES,
    KN_COUNT
};

static long extra_long(const jl_attrs *a, const char *key)
{
    char buf[64], *end;
    if (jl_attrs_get(a, key, buf, sizeof buf) != 0)
        return -1;
    double v = strtod(buf, &end);
    return end != buf && isfinite(v) ? (long)v : -1;
}

static long knob(const jl_summary *s, int k)
{
    const jl_attrs *a = &s->attrs;
    switch (k) {
    case KN_TP: return a->tensor_parallel > 0 ? a->tensor_parallel : -1;
    case KN_EP: return a->expert_parallel > 0 ? a->expert_parallel : -1;
    case KN_DP: return a->data_parallel > 0 ? a->data_parallel : -1;
    case KN_ULYSSES: return extra_long(a, "ulysses_degree");
    case KN_RING: return extra_long(a, "ring_degree");
    case KN_STEPS: return a->denoising_steps > 0 ? a->denoising_steps : -1;
    case KN_WIDTH: return a->width > 0 ? a->width : -1;
    case KN_HEIGHT: return a->height > 0 ? a->height : -1;
    case KN_FRAMES: return a->num_frames > 0 ? a->num_frames : -1;
    default: return -1;
    }
}

/* The label of a run's values of the knobs in mask ("ulysses 2, ring 1"). */
static void variant_label(const jl_summary *s, unsigned mask, char *buf, size_t cap)
{
    static const char *const names[] = {"TP",    "EP", "DP", "ulysses", "ring",
                                        "steps", "",   "",   "frames"};
    size_t o = 0;
    buf[0] = 0;
    for (int k = 0; k < KN_COUNT && o < cap; k++) {
        if (!(mask & (1u << k)) || k == KN_HEIGHT)
            continue;
        long v = knob(s, k);
        const char *sep = o ? ", " : "";
        if (k == KN_WIDTH || (k == KN_HEIGHT))
            o += (size_t)snprintf(buf + o, cap - o, "%s%ldx%ld", sep, v, knob(s, KN_HEIGHT));
        else if (k == KN_STEPS || k == KN_FRAMES)
            o += (size_t)snprintf(buf + o, cap - o, "%s%ld %s", sep, v, names[k]);
        else
            o += (size_t)snprintf(buf + o, cap - o, "%s%s %ld", sep, names[k], v);
    }
}

void jl__report_knobs_text(const jl_summary *s, char *buf, size_t cap)
{
    unsigned mask = 0;
    for (int k = KN_TP; k <= KN_RING; k++)
        if (knob(s, k) > 1)
            mask |= 1u << k;
    if (knob(s, KN_STEPS) > 0)
        mask |= 1u << KN_STEPS;
    variant_label(s, mask, buf, cap);
}

static int same_variant(const jl_summary *a, const jl_summary *b)
{
    for (int k = 0; k < KN_COUNT; k++)
        if (knob(a, k) != knob(b, k))
            return 0;
    return 1;
}

void jl__report_series_free(jl__report_series *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(s[i].cv.points);
        free(s[i].variant);
    }
    free(s);
}

size_t jl__report_split_curves(const jl_summary_list *l, const jl_frontier *fr,
                               jl__report_series **out)
{
    jl__report_series *res = NULL;
    size_t n = 0;
    char k1[160];
    for (size_t c = 0; c < fr->n_curves; c++) {
        const jl_curve *cv = &fr->curves[c];
        if (!cv->n_points)
            continue;
        /* the knobs that differ within the curve */
        unsigned mask = 0;
        const jl_summary *s0 = l->items[cv->points[0].run];
        for (size_t i = 1; i < cv->n_points; i++)
            for (int k = 0; k < KN_COUNT; k++)
                if (knob(l->items[cv->points[i].run], k) != knob(s0, k))
                    mask |= 1u << k;
        if (mask & ((1u << KN_WIDTH) | (1u << KN_HEIGHT)))
            mask |= (1u << KN_WIDTH) | (1u << KN_HEIGHT);
        unsigned char *done = jl__calloc_array(cv->n_points, 1);
        if (!done)
            break;
        for (size_t i = 0; i < cv->n_points; i++) {
            if (done[i])
                continue;
            jl__report_series *p = realloc(res, (n + 1) * sizeof *p);
            if (!p)
                break;
            res = p;
            jl__report_series *sr = &res[n++];
            memset(sr, 0, sizeof *sr);
            sr->cv = *cv;
            sr->cv.points = jl__calloc_array(cv->n_points, sizeof *sr->cv.points);
            sr->cv.n_points = 0;
            const jl_summary *si = l->items[cv->points[i].run];
            variant_label(si, mask, k1, sizeof k1);
            sr->variant = mask && k1[0] ? jl__strdup(k1) : NULL;
            for (size_t j = i; j < cv->n_points && sr->cv.points; j++)
                if (!done[j] && same_variant(si, l->items[cv->points[j].run])) {
                    done[j] = 1;
                    sr->cv.points[sr->cv.n_points++] = cv->points[j];
                }
        }
        free(done);
    }
    *out = res;
    return n;
}
