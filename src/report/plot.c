/* The gnuplot kit of the report's figures: what every figure builder
 * (fig_*.c, model_section.c) writes its ID.gp script and ID.dat data with —
 * the script header (terminals, sizes, fonts per output format), strings and
 * numbers for scripts and .dat files, tick marks, point labels placed so
 * they do not collide, the palette. Running gnuplot on the scripts is
 * render.c's. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/util.h"
#include "report/plot.h"

/* Okabe–Ito: distinguishable for colour-blind readers, prints well. */
const char *const jl__report_palette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                          "#E69F00", "#56B4E9", "#999999", "#000000"};

/* Text from the data (model names, GPU models, attribute values, run
 * names) reaches a script or a .dat file only through the four functions
 * below, each for its context (docs/security.md, "Figures and generated
 * program text"). They share one copy rule: a control byte (< 0x20, 0x7f)
 * becomes a space, so no newline ends a comment or a command and a script
 * line is always one line; a byte that starts no well-formed UTF-8
 * sequence becomes U+FFFD, so gnuplot's SVG stays valid XML. */
enum { GP_PLAIN = 0, GP_QUOTE = 1, GP_PERCENT = 2, GP_COMMENT = 4, GP_DAT = 8 };

static void gp_copy(jl__strbuf *b, const char *s, int how)
{
    const unsigned char *u = (const unsigned char *)(s ? s : "");
    size_t n = strlen((const char *)u);
    for (size_t i = 0; i < n;) {
        unsigned char c = u[i];
        if (c >= 0x80) {
            size_t k = jl__utf8_next(u + i, n - i);
            jl__strbuf_append(b, k ? (const char *)u + i : "\xEF\xBF\xBD", k ? k : 3);
            i += k ? k : 1;
            continue;
        }
        i++;
        if (c < 0x20 || c == 0x7f)
            jl__strbuf_puts(b, " ");
        else if (c == '\'' && (how & GP_QUOTE))
            jl__strbuf_puts(b, "''");
        else if (c == '%' && (how & GP_PERCENT))
            jl__strbuf_puts(b, "%%");
        else if (c == '\\' && (how & GP_COMMENT))
            jl__strbuf_puts(b, "/"); /* a comment ending in \ would swallow the next line */
        else if (c == '"' && (how & GP_DAT))
            jl__strbuf_puts(b, "'");
        else
            jl__strbuf_append(b, (const char *)&c, 1);
    }
}

/* A string for a gnuplot script: a single-quoted literal, the one form in
 * which gnuplot gives no byte a meaning but the quote (doubled): no
 * backquote command substitution, no @macro, no backslash escape. */
void jl__report_gp_str(jl__strbuf *b, const char *s)
{
    jl__strbuf_puts(b, "'");
    gp_copy(b, s, GP_QUOTE);
    jl__strbuf_puts(b, "'");
}

/* The same for a string gnuplot uses as a format (tic labels, sprintf's
 * first argument): % doubled as well. */
void jl__report_gp_fmt_str(jl__strbuf *b, const char *s)
{
    jl__strbuf_puts(b, "'");
    gp_copy(b, s, GP_QUOTE | GP_PERCENT);
    jl__strbuf_puts(b, "'");
}

/* Text in a "# ..." comment of a script or a .dat header: one line, no
 * backslash (gnuplot continues a comment that ends in one). */
void jl__report_gp_comment(jl__strbuf *b, const char *s)
{
    gp_copy(b, s, GP_COMMENT);
}

void jl__report_comment_line(jl__strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *line = jl__vasprintf(fmt, ap);
    va_end(ap);
    if (!line) {
        b->failed = 1;
        return;
    }
    jl__strbuf_puts(b, "# ");
    gp_copy(b, line, GP_COMMENT);
    jl__strbuf_puts(b, "\n");
    free(line);
}

/* A string column in a .dat file: double-quoted, quotes replaced. */
void jl__report_dat_str(jl__strbuf *b, const char *s)
{
    jl__strbuf_puts(b, "\"");
    gp_copy(b, s, GP_DAT | GP_COMMENT);
    jl__strbuf_puts(b, "\"");
}

void jl__report_dat_num(jl__strbuf *b, double v)
{
    if (isfinite(v))
        jl__strbuf_printf(b, " %.10g", v);
    else
        jl__strbuf_puts(b, " NaN");
}

void jl__report_gp_header(jl__strbuf *b, const char *id, const char *title, const char *what,
                          int wide)
{
    int w = wide ? 1000 : 900, h = wide ? 460 : 520;
    jl__report_gp_header_sized(b, id, title, what, w, h, 7.0 * h / w, wide ? 2.9 : 2.5);
}

void jl__report_gp_header_sized(jl__strbuf *b, const char *id, const char *title, const char *what,
                                int w, int h, double pdf_h_in, double pdf1_h_in)
{
    /* The title is the page's (and this comment's): none is drawn, so
     * nothing is clipped and a paper's caption carries it. */
    jl__strbuf_printf(b, "# joules report figure %s: ", id);
    jl__report_gp_comment(b, title);
    jl__strbuf_puts(b, "\n# ");
    jl__report_gp_comment(b, what);
    jl__strbuf_puts(b, "\n");
    jl__strbuf_printf(
        b,
        "# Data: %s.dat (columns are named in its header). Restyle by editing this\n"
        "# script, then from this folder:\n"
        "#   gnuplot %s.gp                      -> %s.svg\n"
        "#   gnuplot -e \"fmt='png'\" %s.gp       -> %s.png\n"
        "#   gnuplot -e \"fmt='pdf'\" %s.gp       -> %s.pdf       (7 in wide, double column)\n"
        "#   gnuplot -e \"fmt='pdf1'\" %s.gp      -> %s.1col.pdf  (3.3 in wide, single column)\n"
        "# PDF text is 9 pt (8 pt single column); no title is drawn.\n"
        "reset\n"
        "if (!exists(\"fmt\")) fmt = \"svg\"\n"
        "if (!exists(\"out\")) out = \"%s.\" . (fmt eq \"pdf1\" ? \"1col.pdf\" : fmt)\n",
        id, id, id, id, id, id, id, id, id, id);
    /* pdfcairo draws a font of size S at S x fontscale x 4/3 points:
     * fontscale 0.75 makes "Helvetica,9" 9 pt */
    jl__strbuf_printf(
        b,
        "lblfont = \",10\"\n"
        "if (fmt eq \"svg\") set terminal svg size %d,%d font \"Helvetica,13\" linewidth 1.3 background rgb \"white\"\n"
        "if (fmt eq \"png\") set terminal pngcairo size %d,%d font \"Helvetica,14\" linewidth 1.5 background rgb \"white\"; lblfont = \",11\"\n"
        "if (fmt eq \"pdf\") set terminal pdfcairo size 7in,%.2fin font \"Helvetica,9\" fontscale 0.75 linewidth 1.2 pointscale 0.7; lblfont = \",8\"\n"
        "if (fmt eq \"pdf1\") set terminal pdfcairo size 3.3in,%.2fin font \"Helvetica,8\" fontscale 0.75 linewidth 1.0 pointscale 0.55; lblfont = \",8\"\n"
        "# narrow: the 3.3 in PDF (scripts thin ticks and rearrange panels for it)\n"
        "narrow = (fmt eq \"pdf1\")\n"
        "set output out\n"
        "set encoding utf8\n"
        "set termoption noenhanced\n"
        "set datafile missing \"NaN\"\n"
        "set border 3 lc rgb \"#555555\"\n"
        "set tics nomirror out\n"
        "set grid xtics ytics lc rgb \"#e6e6e6\" lt 1 lw 1\n"
        "set key noautotitle\n",
        w, h, w * 3 / 2, h * 3 / 2, pdf_h_in, pdf1_h_in);
}

jl_status jl__report_write_fig_files(jl__report_report *r, jl__report_figure *f, jl__strbuf *dat,
                                     jl__strbuf *gp, jl_error **err)
{
    /* the SVG's pixel size, for the page's <img width height> (a lazy image
     * without them takes no room and so is loaded at once) */
    const char *sz = gp->data ? strstr(gp->data, "set terminal svg size ") : NULL;
    if (!sz || sscanf(sz, "set terminal svg size %d,%d", &f->px_w, &f->px_h) != 2)
        f->px_w = f->px_h = 0;
    char *rel = jl__asprintf("figures/%s.dat", f->id);
    if (!rel)
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    jl_status st = jl__report_write_buf(r, rel, dat, err);
    free(rel);
    if (st)
        return st;
    rel = jl__asprintf("figures/%s.gp", f->id);
    if (!rel)
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    st = jl__report_write_buf(r, rel, gp, err);
    free(rel);
    return st;
}

const char *jl__report_class_colour(const jl__report_report *r, int what, const char *name, int *pt)
{
    const char *const *c = what ? r->prec_classes : r->gpu_classes;
    size_t n = what ? r->n_prec_classes : r->n_gpu_classes, k = 0;
    while (k < n && (!name || strcmp(c[k], name)))
        k++;
    if (k == n) /* not in the study ("?"): the last colour */
        k = RP_N_PALETTE - 1;
    if (pt)
        *pt = jl__report_point_types[(k % RP_N_PALETTE + k / RP_N_PALETTE) % RP_N_POINT_TYPES];
    return jl__report_palette[k % RP_N_PALETTE];
}

void jl__report_shade(char *out, const char *colour, double t)
{
    unsigned rgb = 0;
    if (!colour || sscanf(colour, "#%6x", &rgb) != 1)
        rgb = 0x777777;
    int c[3] = {(int)(rgb >> 16) & 255, (int)(rgb >> 8) & 255, (int)rgb & 255};
    for (int k = 0; k < 3; k++)
        c[k] = (int)lround(c[k] + (255 - c[k]) * fmin(fmax(t, 0), 1));
    snprintf(out, 8, "#%02X%02X%02X", c[0], c[1], c[2]);
}

const char *jl__report_gpu_label(const char *s)
{
    return s ? s : "?";
}

/* Batch-size ticks on a log2 axis: every batch measured gets a tick, but
 * only those at least ~1/8 of the axis (and 0.75 octave) from the last
 * labelled one get a label ("2048" and "3072" side by side collide); the
 * smallest and the largest always do (an axis ending in an unlabelled
 * tick reads as cut off), the one before the largest giving way when they
 * would collide. */
/* Whether the labels of batches a and b clear each other in the wide
 * outputs: a digit takes digit_w of the plot's width (13 px of 785 in the
 * SVG; a panel of a two-panel figure twice that), the axis spans the
 * batches' octaves and 3 % on each side. */
static int batch_labels_clear(long a, long b, double axis, int panels)
{
    double digit_w = 0.0106 * panels, pad = 0.012 * panels;
    double digits = floor(log10((double)a)) + 1 + floor(log10((double)b)) + 1;
    return fabs(log2((double)b) - log2((double)a)) / axis >= digits / 2 * digit_w + pad;
}

/* Which of the distinct ascending batches u[0..m) get a label (lab[i] = 1),
 * the first and the last always. Wide outputs (narrow 0): the powers of
 * two that clear each other, then the last, then every other batch that
 * clears both labelled neighbours. The 3.3 in PDF (narrow 1): one label
 * per octave or per eighth of the span, whichever is wider. */
static void batch_labels(const long *u, size_t m, int narrow, int panels, char *lab)
{
    double span = m > 1 ? log2((double)u[m - 1] / (double)u[0]) : 0;
    double minsep = fmax(span / 8, 0.75), axis = span > 0 ? span * 1.06 : 1;
    memset(lab, 0, m);
    long last_i = -1;
    for (size_t i = 0; i < m; i++) {
        int ok;
        if (narrow)
            ok = last_i < 0 || log2((double)u[i] / (double)u[last_i]) >= minsep - 1e-9;
        else
            ok = (i == 0 || !(u[i] & (u[i] - 1))) &&
                 (last_i < 0 || batch_labels_clear(u[last_i], u[i], axis, panels));
        if (ok) {
            lab[i] = 1;
            last_i = (long)i;
        }
    }
    if (m > 1 && !lab[m - 1]) {
        /* the last batch labelled, its labelled neighbour given up when
         * they would collide */
        lab[m - 1] = 1;
        int clash = narrow ? log2((double)u[m - 1] / (double)u[last_i]) < minsep - 1e-9
                           : !batch_labels_clear(u[last_i], u[m - 1], axis, panels);
        if (last_i > 0 && clash)
            lab[last_i] = 0;
    }
    for (size_t i = 1; !narrow && i + 1 < m; i++) {
        if (lab[i])
            continue;
        size_t a = i, z = i;
        while (a > 0 && !lab[a])
            a--;
        while (z + 1 < m && !lab[z])
            z++;
        if (batch_labels_clear(u[a], u[i], axis, panels) &&
            batch_labels_clear(u[i], u[z], axis, panels))
            lab[i] = 1;
    }
}

void jl__report_batch_xtics(jl__strbuf *gp, const long *b, size_t n, int panels)
{
    /* the distinct batches, in the order given (ascending) */
    long *u = n ? malloc(n * sizeof *u) : NULL;
    char *lab = n ? calloc(n, 1) : NULL;
    size_t m = 0;
    for (size_t i = 0; u && lab && i < n; i++)
        if (b[i] > 0 && (!m || b[i] != u[m - 1]))
            u[m++] = b[i];
    /* every measured batch a tick; the wide outputs label as many as fit,
     * the 3.3 in PDF fewer */
    for (int narrow = 0; narrow < 2 && m; narrow++) {
        batch_labels(u, m, narrow, panels < 1 ? 1 : panels, lab);
        jl__strbuf_puts(gp, narrow ? "if (narrow) set xtics (" : "set xtics (");
        for (size_t i = 0; i < m; i++) {
            if (lab[i])
                jl__strbuf_printf(gp, "%s\"%ld\" %ld", i ? ", " : "", u[i], u[i]);
            else
                jl__strbuf_printf(gp, "%s\"\" %ld 1", i ? ", " : "", u[i]);
        }
        jl__strbuf_puts(gp, ")\n");
    }
    if (!m)
        jl__strbuf_puts(gp, "set xtics ()\n");
    free(u);
    free(lab);
}

int jl__report_wide_range(const double *v, size_t n, double ratio)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]) && v[i] > 0) {
            lo = fmin(lo, v[i]);
            hi = fmax(hi, v[i]);
        }
    return isfinite(lo) && hi / lo > ratio;
}

/* ---- point labels that do not collide ----------------------------------------------- */

/* Labels are placed greedily in axis-normalised coordinates (0..1 over the
 * plotted range, log or linear as the axis): each label tries right-above,
 * right-below, left-above, left-below of its point and takes the first
 * place where it overlaps no label placed before and no marker; else it is
 * left out (the .dat keeps every value). Sizes are for the narrowest output
 * (the 3.3 in PDF), so no format shows a collision. */

/* Two placements per figure: for the wide outputs (SVG, PNG, 7 in PDF)
 * and for the 3.3 in PDF, where text takes twice the share of the plot;
 * the .dat has both sets of label columns and the script picks by fmt. */
static const double jl__report_char_w[2] = {0.012, 0.031}, jl__report_char_h[2] = {0.045, 0.075};
/* half a marker, shares of the plot's width and height (a point of size
 * 1.4 in the 7 in and 3.3 in PDFs: the narrowest of each placement) */
static const double jl__report_mark_w[2] = {0.011, 0.02}, jl__report_mark_h[2] = {0.022, 0.04};
#define RP_MARK_W(p) ((p)->mw)
#define RP_MARK_H(p) ((p)->mh)

double jl__report_place_norm(double v, double lo, double hi, int logs)
{
    if (logs)
        return v > 0 && lo > 0 && hi > lo ? (log(v) - log(lo)) / (log(hi) - log(lo)) : 0.5;
    return hi > lo ? (v - lo) / (hi - lo) : 0.5;
}

/* The plotted range of values v (log: multiplicative margins). */
static void place_range(const double *v, size_t n, int logs, double margin_lo, double margin_hi,
                        double *lo, double *hi)
{
    double a = INFINITY, b = -INFINITY;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]) && (!logs || v[i] > 0)) {
            a = fmin(a, v[i]);
            b = fmax(b, v[i]);
        }
    if (!isfinite(a)) {
        *lo = 0;
        *hi = 1;
        return;
    }
    if (logs) {
        double la = log(a), lb = log(b), s = lb > la ? lb - la : 1;
        *lo = exp(la - s * margin_lo);
        *hi = exp(lb + s * margin_hi);
    } else {
        double s = b > a ? b - a : (a ? fabs(a) : 1);
        *lo = a - s * margin_lo;
        *hi = b + s * margin_hi;
    }
}

int jl__report_place_push(jl__report_placer *p, jl__report_box bx)
{
    if (p->n == p->cap) {
        size_t nc = p->cap ? p->cap * 2 : 64;
        jl__report_box *nb = realloc(p->boxes, nc * sizeof *nb);
        if (!nb)
            return 0;
        p->boxes = nb;
        p->cap = nc;
    }
    p->boxes[p->n++] = bx;
    return 1;
}

static void place_marker(jl__report_placer *p, double x, double y)
{
    double nx = jl__report_place_norm(x, p->xlo, p->xhi, p->logx),
           ny = jl__report_place_norm(y, p->ylo, p->yhi, p->logy);
    jl__report_place_push(p, (jl__report_box){nx - p->mw, ny - p->mh, nx + p->mw, ny + p->mh});
}

/* A label's width in the placers' characters (cw: 0.66 em of the labels'
 * font, DejaVu Sans, what gnuplot's "Helvetica" is drawn in here and the
 * widest of the sans fonts it falls back to): the sum of its characters'
 * advance widths (DejaVu Sans, em) over 0.63 -- a model name of capitals
 * and digits is wider than one of lower-case letters, and both are drawn
 * where they were checked. Bytes past ASCII: a UTF-8 lead byte one
 * character (1 em from three-byte sequences on: CJK), continuations none. */
static double label_chars(const char *text)
{
    /* ' ' .. '~' */
    static const unsigned char em100[95] = {
        32,  40, 46, 84, 64, 95, 78, 28, 39, 39, 50, 84, 32, 36, 32, 34, /*  !"#$%&'()*+,-./ */
        64,  64, 64, 64, 64, 64, 64, 64, 64, 64, 34, 34, 84, 84, 84, 53, /* 0-9 :;<=>? */
        100, 68, 69, 70, 77, 63, 58, 78, 75, 30, 30, 66, 56, 86, 75, 79, /* @A-O */
        60,  79, 69, 63, 61, 73, 68, 99, 69, 61, 69, 39, 34, 39, 84, 50, /* P-Z [\]^_ */
        50,  61, 64, 55, 64, 62, 35, 64, 63, 28, 28, 58, 28, 97, 63, 61, /* `a-o */
        64,  64, 41, 52, 39, 63, 59, 82, 59, 59, 53, 64, 34, 64, 84};    /* p-z {|}~ */
    double em = 0;
    for (const unsigned char *c = (const unsigned char *)text; c && *c; c++) {
        if (*c >= 0x20 && *c < 0x7f)
            em += em100[*c - 0x20] / 100.0;
        else if (*c >= 0xe0)
            em += 1.0;
        else if (*c >= 0xc0)
            em += 0.7;
        else if (*c < 0x80)
            em += 0.6;
    }
    return em / 0.63;
}

/* The box of a w x h label at place pos of the point (nx, ny), in plot
 * units: pos % 8 is the side (0 right-above, 1 right-below, 2 left-above,
 * 3 left-below, 4 right, 5 left, 6 above, 7 below), pos / 8 the distance
 * (near, then a marker farther out). */
static jl__report_box label_box(const jl__report_placer *p, double nx, double ny, double w,
                                double h, int pos)
{
    double far = pos >= 8 ? 2.5 : 1.0;
    double gx = (RP_MARK_W(p) + 0.3 * p->cw) * far, gy = (RP_MARK_H(p) + 0.1 * p->ch) * far;
    jl__report_box bx;
    switch (pos % 8) {
    case 0: bx.x0 = nx + gx * 0.6, bx.y0 = ny + gy * 0.6; break;
    case 1: bx.x0 = nx + gx * 0.6, bx.y0 = ny - gy * 0.6 - h; break;
    case 2: bx.x0 = nx - gx * 0.6 - w, bx.y0 = ny + gy * 0.6; break;
    case 3: bx.x0 = nx - gx * 0.6 - w, bx.y0 = ny - gy * 0.6 - h; break;
    case 4: bx.x0 = nx + gx, bx.y0 = ny - h / 2; break;
    case 5: bx.x0 = nx - gx - w, bx.y0 = ny - h / 2; break;
    case 6: bx.x0 = nx - w / 2, bx.y0 = ny + gy; break;
    default: bx.x0 = nx - w / 2, bx.y0 = ny - gy - h; break;
    }
    bx.x1 = bx.x0 + w;
    bx.y1 = bx.y0 + h;
    return bx;
}

static int box_inside(jl__report_box bx)
{
    return !(bx.x0 < -0.01 || bx.x1 > 1.01 || bx.y0 < -0.01 || bx.y1 > 1.01);
}

/* A plot unit back to the axis' value (log or linear). */
static double place_value(double u, double lo, double hi, int logs)
{
    if (logs)
        return lo > 0 && hi > lo ? exp(log(lo) + u * (log(hi) - log(lo))) : lo;
    return lo + u * (hi - lo);
}

/* The label's anchor in axis values (ax[0], ay[0]): its vertical middle
 * and, as the script justifies it, the edge nearer the point -- the left
 * edge of a label right of its point, the right edge of one left of it,
 * and x itself (the point's own value, so the script can tell) for one
 * centred above or below it. The text then starts at the point's side of
 * its box whatever its drawn width: the box is sized for the output where
 * text takes the most room, and a shorter drawing of it stays beside its
 * point instead of leaving a gap there. For a label placed farther out,
 * the end of a leader line from the point to the box's nearest edge
 * (ax[1], ay[1]; NaN when near). */
static void anchor_of(const jl__report_placer *p, jl__report_box bx, int pos, double x, double nx,
                      double ny, double *ax, double *ay)
{
    int side = pos % 8;
    if (side == 2 || side == 3 || side == 5)
        ax[0] = place_value(bx.x1, p->xlo, p->xhi, p->logx);
    else if (side == 6 || side == 7)
        ax[0] = x;
    else
        ax[0] = place_value(bx.x0, p->xlo, p->xhi, p->logx);
    ay[0] = place_value((bx.y0 + bx.y1) / 2, p->ylo, p->yhi, p->logy);
    ax[1] = ay[1] = NAN;
    if (pos >= 8) {
        double ex = fmin(fmax(nx, bx.x0), bx.x1), ey = fmin(fmax(ny, bx.y0), bx.y1);
        ax[1] = place_value(ex, p->xlo, p->xhi, p->logx);
        ay[1] = place_value(ey, p->ylo, p->yhi, p->logy);
    }
}

int jl__report_place_label(jl__report_placer *p, double x, double y, const char *text, double *ax,
                           double *ay)
{
    /* ax, ay: [0] the anchor, [1] the leader line's end */
    double nx = jl__report_place_norm(x, p->xlo, p->xhi, p->logx),
           ny = jl__report_place_norm(y, p->ylo, p->yhi, p->logy);
    double w = label_chars(text) * p->cw, h = p->ch;
    for (int pos = 0; pos < RP_LABEL_PLACES; pos++) {
        jl__report_box bx = label_box(p, nx, ny, w, h, pos);
        if (!box_inside(bx))
            continue;
        int clash = 0;
        for (size_t i = 0; i < p->n && !clash; i++)
            clash = bx.x0 < p->boxes[i].x1 && p->boxes[i].x0 < bx.x1 && bx.y0 < p->boxes[i].y1 &&
                    p->boxes[i].y0 < bx.y1;
        if (!clash) {
            jl__report_place_push(p, bx);
            anchor_of(p, bx, pos, x, nx, ny, ax, ay);
            return pos;
        }
    }
    ax[0] = ay[0] = ax[1] = ay[1] = NAN;
    return -1;
}

/* As place_label, for a label that must be shown (the overview's model
 * names: an unlabelled point there names nothing): when every place
 * clashes, the one overlapping least (inside the plot where possible). */
int jl__report_place_label_always(jl__report_placer *p, double x, double y, const char *text,
                                  double *ax, double *ay)
{
    int pos = jl__report_place_label(p, x, y, text, ax, ay);
    if (pos >= 0)
        return pos;
    double nx = jl__report_place_norm(x, p->xlo, p->xhi, p->logx),
           ny = jl__report_place_norm(y, p->ylo, p->yhi, p->logy);
    double w = label_chars(text) * p->cw, h = p->ch, best_cost = INFINITY;
    jl__report_box best = {0, 0, 0, 0};
    for (int k = 0; k < RP_LABEL_PLACES; k++) {
        jl__report_box bx = label_box(p, nx, ny, w, h, k);
        /* outside the plot costs more than any overlap inside it */
        double cost = box_inside(bx) ? 0 : 1e6;
        for (size_t i = 0; i < p->n; i++) {
            double ox = fmin(bx.x1, p->boxes[i].x1) - fmax(bx.x0, p->boxes[i].x0);
            double oy = fmin(bx.y1, p->boxes[i].y1) - fmax(bx.y0, p->boxes[i].y0);
            if (ox > 0 && oy > 0)
                cost += ox * oy;
        }
        if (cost < best_cost) {
            best_cost = cost;
            best = bx;
            pos = k;
        }
    }
    jl__report_place_push(p, best);
    anchor_of(p, best, pos, x, nx, ny, ax, ay);
    return pos;
}

/* gnuplot: the leader lines of labels placed farther out, then the labels
 * at the anchors of the .dat (jl__report_label_columns chooses the wide
 * outputs' or the 3.3 in PDF's), justified by where the anchor is against
 * the point (column 1): right of it left-aligned, left of it right-aligned,
 * at it centred. */
void jl__report_plot_label_layers(jl__strbuf *gp, const char *src, const char *colour)
{
    static const char *const just[3][2] = {{">", "left"}, {"<", "right"}, {"==", "center"}};
    jl__strbuf_printf(gp,
                      ", \\\n     %s using 1:2:(column(le)-$1):(column(le+1)-$2) with vectors "
                      "nohead lw 0.6 lc rgb \"#9a9a9a\" notitle",
                      src);
    for (int k = 0; k < 3; k++)
        jl__strbuf_printf(gp,
                          ", \\\n     %s using (column(lc) %s $1 ? column(lc) : NaN):(column(lc+1))"
                          ":(stringcolumn(lt)) with labels %s font lblfont textcolor rgb \"%s\" "
                          "notitle",
                          src, just[k][0], just[k][1], colour);
}

void jl__report_label_columns(jl__strbuf *gp, int col)
{
    jl__strbuf_printf(
        gp,
        "# point labels: anchors (the edge nearer the point, middle) in columns %d-%d "
        "(wide outputs) or %d-%d (3.3 in PDF); the ends of their leader lines (NaN: none) in "
        "%d-%d or %d-%d; the text in column %d\n"
        "lc = (fmt eq \"pdf1\") ? %d : %d\nle = lc + 4\nlt = %d\n",
        col, col + 1, col + 2, col + 3, col + 4, col + 5, col + 6, col + 7, col + 8, col + 2, col,
        col + 8);
}

void jl__report_dat_labels(jl__strbuf *dat, const double *a, const char *text)
{
    /* a: per placement (wide, 3.3 in) x, y, leader x, leader y */
    int shown = 0;
    for (int w = 0; w < 2; w++) {
        jl__report_dat_num(dat, a[4 * w]);
        jl__report_dat_num(dat, a[4 * w + 1]);
        shown |= isfinite(a[4 * w]);
    }
    for (int w = 0; w < 2; w++) {
        jl__report_dat_num(dat, a[4 * w + 2]);
        jl__report_dat_num(dat, a[4 * w + 3]);
    }
    jl__strbuf_puts(dat, " ");
    jl__report_dat_str(dat, shown ? text : "");
}

void jl__report_placers_init(jl__report_placer *pl, int logx, int logy, const double *xs,
                             const double *ys, size_t n, double mx0, double mx1, double my0,
                             double my1, const double *taller)
{
    for (int w = 0; w < 2; w++) {
        memset(&pl[w], 0, sizeof pl[w]);
        pl[w].logx = logx;
        pl[w].logy = logy;
        pl[w].cw = jl__report_char_w[w];
        pl[w].ch = jl__report_char_h[w] / (taller ? taller[w] : 1);
        pl[w].mw = jl__report_mark_w[w];
        pl[w].mh = jl__report_mark_h[w] / (taller ? taller[w] : 1);
        place_range(xs, n, logx, mx0, mx1, &pl[w].xlo, &pl[w].xhi);
        place_range(ys, n, logy, my0, my1, &pl[w].ylo, &pl[w].yhi);
        for (size_t i = 0; i < n; i++)
            place_marker(&pl[w], xs[i], ys[i]);
    }
}

/* Explicit ticks for a log axis over [lo, hi]: the first of 1; 1-2-5;
 * 1-2-3-5-7; 1..9 (x 10^k) giving at least four inside. */
void jl__report_log_tics(jl__strbuf *gp, const char *axis, double lo, double hi)
{
    static const double sets[4][10] = {{1},
                                       {1, 2, 5},
                                       {1, 2, 3, 5, 7},
                                       {1, 2, 3, 4, 5, 6, 7, 8, 9}};
    static const int ns[4] = {1, 3, 5, 9};
    if (!(lo > 0) || !(hi > lo))
        return;
    int k0 = (int)floor(log10(lo)), k1 = (int)ceil(log10(hi));
    for (int s = 0; s < 4; s++) {
        int cnt = 0;
        for (int k = k0; k <= k1; k++)
            for (int i = 0; i < ns[s]; i++) {
                double v = sets[s][i] * pow(10, k);
                cnt += v >= lo && v <= hi;
            }
        if (cnt < 4 && s < 3)
            continue;
        if (cnt < 2) { /* a narrow range: evenly spaced 1-2-5 steps */
            double raw = (hi - lo) / 4, mag = pow(10, floor(log10(raw))), step = mag;
            if (raw / mag >= 5)
                step = 5 * mag;
            else if (raw / mag >= 2)
                step = 2 * mag;
            jl__strbuf_printf(gp, "set %stics (", axis);
            int f1 = 1;
            for (double v = ceil(lo / step) * step; v <= hi; v += step) {
                jl__strbuf_printf(gp, "%s%.6g", f1 ? "" : ", ", v);
                f1 = 0;
            }
            jl__strbuf_printf(gp, ")\nset format %s \"%%.4g\"\n", axis);
            return;
        }
        jl__strbuf_printf(gp, "set %stics (", axis);
        int first = 1;
        for (int k = k0; k <= k1; k++)
            for (int i = 0; i < ns[s]; i++) {
                double v = sets[s][i] * pow(10, k);
                if (v >= lo && v <= hi) {
                    jl__strbuf_printf(gp, "%s%.10g", first ? "" : ", ", v);
                    first = 0;
                }
            }
        /* from 10^4 with SI prefixes (50k, 200k, 1.5M): long numbers run
         * into each other on a log axis */
        jl__strbuf_printf(gp, ")\nset format %s \"%s\"\n", axis, hi >= 1e4 ? "%.0s%c" : "%.7g");
        /* the 3.3 in PDF: decades alone when two or more show */
        int nd = 0;
        for (int k = k0; k <= k1; k++)
            nd += pow(10, k) >= lo && pow(10, k) <= hi;
        if (s > 0 && nd >= 2) {
            jl__strbuf_printf(gp, "if (narrow) set %stics (", axis);
            first = 1;
            for (int k = k0; k <= k1; k++)
                if (pow(10, k) >= lo && pow(10, k) <= hi) {
                    jl__strbuf_printf(gp, "%s%.10g", first ? "" : ", ", pow(10, k));
                    first = 0;
                }
            jl__strbuf_puts(gp, ")\n");
        }
        return;
    }
}

const int jl__report_point_types[RP_N_POINT_TYPES] = {7, 5, 9, 11, 13, 15};
