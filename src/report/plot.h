/* The gnuplot kit (plot.c): what the figure builders (fig_*.c,
 * model_section.c) write their ID.gp scripts and ID.dat files with. It
 * stands on the report kit (report_internal.h) and knows no figure. */
#ifndef JOULES_REPORT_PLOT_H
#define JOULES_REPORT_PLOT_H

#include "report/report_internal.h"

extern const char *const jl__report_palette[]; /* Okabe–Ito, RP_N_PALETTE colours */
#define RP_N_PALETTE 8
/* Point types after the palette wraps (curve c: jl__report_point_types[(c /
 * RP_N_PALETTE) % RP_N_POINT_TYPES]). */
#define RP_N_POINT_TYPES 6
extern const int jl__report_point_types[RP_N_POINT_TYPES];

/* Text from the data reaches a script or a .dat only through these, each
 * for its context (control bytes as spaces, ill-formed UTF-8 as U+FFFD):
 * a gnuplot string (a single-quoted literal: no backquote substitution,
 * no macro, no escape; ' doubled); the same used as a format (tic labels,
 * sprintf: % doubled too); text inside a "# ..." comment (one line, no
 * backslash to continue it); a string column of a .dat (double-quoted,
 * quotes replaced). */
void jl__report_gp_str(jl__strbuf *b, const char *s);
void jl__report_gp_fmt_str(jl__strbuf *b, const char *s);
void jl__report_gp_comment(jl__strbuf *b, const char *s);
void jl__report_dat_str(jl__strbuf *b, const char *s);
/* One comment line "# TEXT\n" of a script or .dat, TEXT formatted from fmt
 * and made one line by jl__report_gp_comment's rule (whatever the
 * arguments hold). */
void jl__report_comment_line(jl__strbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* A number column in a .dat file (" NaN" when missing). */
void jl__report_dat_num(jl__strbuf *b, double v);
/* The script's head: comments (title, what it shows, how to redraw), the
 * terminal of each format (`fmt`: svg, png, pdf, pdf1), `out`, `narrow`,
 * `lblfont` and the common style. wide: 1000 x 460 px, else 900 x 520. */
void jl__report_gp_header(jl__strbuf *b, const char *id, const char *title, const char *what,
                          int wide);
/* The same with sizes: SVG w x h pixels (PNG 1.5x), PDF 7 in x pdf_h_in and
 * 3.3 in x pdf1_h_in. */
void jl__report_gp_header_sized(jl__strbuf *b, const char *id, const char *title, const char *what,
                                int w, int h, double pdf_h_in, double pdf1_h_in);
/* figures/ID.dat and figures/ID.gp of f; notes the SVG's pixel size. */
jl_status jl__report_write_fig_files(jl__report_report *r, jl__report_figure *f, jl__strbuf *dat,
                                     jl__strbuf *gp, jl_error **err);
/* One colour and marker per class across the page: a GPU model's (what
 * 0) or a precision's (1) place among every one of the study, sorted;
 * *pt (may be NULL) its filled point type. */
#define RP_CLASS_GPU 0
#define RP_CLASS_PRECISION 1
const char *jl__report_class_colour(const jl__report_report *r, int what, const char *name,
                                    int *pt);
/* colour (#RRGGBB) mixed with white by t (0: itself, 1: white) into out[8]:
 * the curves of one class told apart within its hue. */
void jl__report_shade(char *out, const char *colour, double t);
/* A GPU model for a label: "?" when unknown. */
const char *jl__report_gpu_label(const char *s);

/* Ticks: batch sizes on a log2 axis (each measured batch a tick, labels
 * spaced so they do not collide: as many as fit in the wide outputs,
 * fewer in the 3.3 in PDF; panels: the figure's panels side by side); a
 * log axis over [lo, hi] (1, 1-2-5, 1-2-3-5-7 or 1..9 per decade, the
 * first giving four or more). */
void jl__report_batch_xtics(jl__strbuf *gp, const long *b, size_t n, int panels);
void jl__report_log_tics(jl__strbuf *gp, const char *axis, double lo, double hi);
/* 1 when the positive finite values of v span more than ratio. */
int jl__report_wide_range(const double *v, size_t n, double ratio);

/* Point labels that do not collide: placed greedily in axis-normalised
 * coordinates, one placer for the wide outputs and one for the 3.3 in PDF
 * (plot.c says how). A label's place is found here and written to the
 * .dat as its anchor in axis values, so the script draws it exactly where
 * it was checked: the plot's x and y ranges must be the placer's. */
typedef struct jl__report_box {
    double x0, y0, x1, y1;
} jl__report_box;
typedef struct jl__report_placer {
    double xlo, xhi, ylo, yhi;
    int logx, logy;
    double cw, ch; /* one character and one line, shares of the plot's width and height */
    double mw, mh; /* half a marker, the same */
    jl__report_box *boxes;
    size_t n, cap;
} jl__report_placer;

/* pl[0] (wide) and pl[1] (3.3 in PDF) over the points (xs, ys) with the
 * given margins, every point's marker taken; taller[w] (NULL: 1, 1): the
 * figure's height over the usual one for each (a line of text and a
 * marker take less of it). */
void jl__report_placers_init(jl__report_placer *pl, int logx, int logy, const double *xs,
                             const double *ys, size_t n, double mx0, double mx1, double my0,
                             double my1, const double *taller);
double jl__report_place_norm(double v, double lo, double hi, int logs);
int jl__report_place_push(jl__report_placer *p, jl__report_box bx);
/* Where a label with this text goes (its width from its characters): one
 * of RP_LABEL_PLACES places around the point (right-above, right-below,
 * left-above, left-below, right, left, above, below; near, then farther
 * out with a leader line), the first
 * that overlaps no label or marker taken before and stays inside the plot;
 * -1 nowhere. ax[0], ay[0]: its anchor in axis values (vertical middle;
 * the left edge of a label right of the point, the right edge of one left
 * of it, x itself for one centred: jl__report_plot_label_layers justifies
 * each so); ax[1], ay[1]: the leader line's end at the label (NaN when
 * placed near, or nowhere). _always: the least overlapping place instead
 * of -1. */
#define RP_LABEL_PLACES 16
int jl__report_place_label(jl__report_placer *p, double x, double y, const char *text, double *ax,
                           double *ay);
int jl__report_place_label_always(jl__report_placer *p, double x, double y, const char *text,
                                  double *ax, double *ay);
/* The label columns of a .dat row (a: per placement, wide then 3.3 in,
 * the anchor's x, y and the leader's end x, y; then the text), the
 * script's choice of them (lc, le, lt), and the label layers of a plot
 * command (leaders, labels). */
void jl__report_dat_labels(jl__strbuf *dat, const double *a, const char *text);
void jl__report_label_columns(jl__strbuf *gp, int col);
void jl__report_plot_label_layers(jl__strbuf *gp, const char *src, const char *colour);

#endif
