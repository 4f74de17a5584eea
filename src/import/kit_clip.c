/* A run's power over exactly its window [start, end] (kit.h, "clipping to a window"):
 * the samples inside it and a point at each edge, interpolated between the
 * samples either side, built sample by sample so an importer that streams
 * its log and one that holds it give the same series. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "import/kit.h"

double jl__imp_lerp(double ta, double va, double tb, double vb, double x)
{
    return va + (vb - va) * (x - ta) / (tb - ta);
}

int jl__imp_clip_init(jl__imp_clip *w, double start, double end, size_t g, int two,
                      jl__imp_clip_emit emit, void *ctx)
{
    memset(w, 0, sizeof *w);
    w->start = start;
    w->end = end;
    w->g = g;
    w->two = two;
    w->emit = emit;
    w->ctx = ctx;
    w->buf = jl__malloc_array(6 * (g ? g : 1), sizeof *w->buf);
    return w->buf ? 0 : -1;
}

void jl__imp_clip_free(jl__imp_clip *w)
{
    if (!w)
        return;
    free(w->buf);
    w->buf = NULL;
}

/* Emit a point at time x: v held or, with u, interpolated between (tu, u)
 * and (tv, v); v may be the point buffer itself (read element by element
 * before it is written). */
static void point(jl__imp_clip *w, double x, double tu, const double *u, double tv, const double *v)
{
    size_t m = w->g * (w->two ? 2 : 1);
    double *p = w->buf + 4 * w->g;
    for (size_t i = 0; i < m; i++)
        p[i] = u ? jl__imp_lerp(tu, u[i], tv, v[i], x) : v[i];
    w->emit(w->ctx, x, p, w->two ? p + w->g : NULL);
    w->n++;
}

/* Copy a sample's values (a, then b) into dst. */
static void keep(const jl__imp_clip *w, double *dst, const double *a, const double *b)
{
    memcpy(dst, a, w->g * sizeof *dst);
    if (w->two)
        memcpy(dst + w->g, b, w->g * sizeof *dst);
}

void jl__imp_clip_sample(jl__imp_clip *w, double t, const double *a, const double *b, int ok)
{
    double *before = w->buf, *last = w->buf + 2 * w->g;
    if (t < w->start) {
        w->before = ok ? 1 : 2;
        w->bt = t;
        if (ok)
            keep(w, before, a, b);
        return;
    }
    if (t <= w->end) {
        if (!ok) {
            w->dropped++;
            return;
        }
        if (w->n == 0 && isfinite(w->start)) {
            w->edge[0] = t == w->start    ? JL__IMP_EDGE_SAMPLE
                         : w->before == 1 ? JL__IMP_EDGE_LERP
                         : w->before == 2 ? JL__IMP_EDGE_HELD
                                          : JL__IMP_EDGE_CUT;
            keep(w, last, a, b);
            if (w->edge[0] == JL__IMP_EDGE_LERP)
                point(w, w->start, w->bt, before, t, last);
            else if (w->edge[0] == JL__IMP_EDGE_HELD)
                point(w, w->start, 0, NULL, 0, last);
        }
        w->emit(w->ctx, t, a, w->two ? b : NULL);
        w->n++;
        w->lt = t;
        keep(w, last, a, b);
        return;
    }
    if (w->closed)
        return;
    w->closed = 1;
    if (w->n == 0)
        return;
    if (w->lt == w->end) {
        w->edge[1] = JL__IMP_EDGE_SAMPLE;
    } else if (ok) {
        double *p = w->buf + 4 * w->g; /* the sample after the window (point() reads it in place) */
        keep(w, p, a, b);
        w->edge[1] = JL__IMP_EDGE_LERP;
        point(w, w->end, w->lt, last, t, p);
    } else {
        w->edge[1] = JL__IMP_EDGE_HELD;
        point(w, w->end, 0, NULL, 0, last);
    }
}

void jl__imp_clip_end(jl__imp_clip *w, int hold)
{
    if (w->closed || w->n == 0 || !isfinite(w->end))
        return;
    w->closed = 1;
    if (w->lt == w->end) {
        w->edge[1] = JL__IMP_EDGE_SAMPLE;
    } else if (hold) {
        w->edge[1] = JL__IMP_EDGE_HELD;
        point(w, w->end, 0, NULL, 0, w->buf + 2 * w->g);
    } else {
        w->edge[1] = JL__IMP_EDGE_CUT;
    }
}

const char *jl__imp_edge_name(int edge)
{
    switch (edge) {
    case JL__IMP_EDGE_SAMPLE: return "a sample on it";
    case JL__IMP_EDGE_LERP: return "interpolated";
    case JL__IMP_EDGE_HELD: return "held";
    case JL__IMP_EDGE_CUT: return "cut (beyond the log)";
    default: return "none";
    }
}
