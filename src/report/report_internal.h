/* The report kit (kit.c): the state every part of `joules report` shares
 * (jl__report_report and its groups, figures, data files, notes) and the helpers
 * they all stand on. The files of src/report/ in layers, each calling only
 * the layers below it:
 *
 *   report.c         orchestration: the order of the build
 *   sections.h       the parts: groups.c (groups, SLO picks, findings),
 *                    documents.c (data/, report.json), model_section.c,
 *                    figures.c (the plan) with one builder per figure
 *                    (figures.h: fig_*.c), render.c (running gnuplot),
 *                    html.c, notebooks.c
 *   plot.h           the gnuplot script kit (plot.c)
 *   this header      the report kit (kit.c)
 *   knobs.h          a run's knobs, curves split by them (knobs.c)
 */
#ifndef JOULES_REPORT_INTERNAL_H
#define JOULES_REPORT_INTERNAL_H

#include <jansson.h>
#include <stddef.h>

#include "core/util.h"
#include "joules/report.h"

/* The frontier and model types are named by forward declaration, so the
 * parts that do not use them need not include joules/frontier.h and
 * joules/diagnose.h. */
struct jl_frontier;
struct jl_frontier_set;
struct jl_model_group_list;
struct jl_group_fit;
struct jl_diagnosis;
struct jl_run_diagnosis;
struct jl_finding;

typedef enum {
    RP_FIG_POWER,       /* power over time, steady window, occupancy */
    RP_FIG_TRENDS,      /* paper Fig. 4: normalised trends vs batch size */
    RP_FIG_FRONTIER,    /* paper Fig. 8-9: time-energy curves */
    RP_FIG_GPU_COMPARE, /* paper Fig. 6: GPU models at matched SLOs */
    RP_FIG_PRECISION,   /* paper Fig. 7: precisions vs batch, crossover */
    RP_FIG_MODEL,       /* fitted batch-size model with its band over the runs */
    RP_FIG_OVERVIEW,    /* every model of a task at its pick: energy per response vs latency */
    RP_FIG_KIND_COUNT
} jl__report_fig_kind;

typedef struct jl__report_figure {
    jl__report_fig_kind kind;
    char *id; /* file stem in figures/, e.g. "frontier-qwen3-8b-chat" */
    char *title;
    char *caption;   /* what it shows, for the page (plain text) */
    long group;      /* index into jl__report_report.groups, or -1 */
    size_t n_points; /* data rows in the .dat (one per run, or per sample) */
    int drawn;       /* every format asked for written */
    char *note;      /* why it was not drawn (NULL when drawn) */
    json_t *meta;    /* the figure's entry in report.json */
    int number;      /* "Figure N" in the page (page order) */
    int px_w, px_h;  /* the SVG's size in pixels (0: unknown) */
} jl__report_figure;

/* A selection: the minimum-energy run meeting an SLO. */
typedef struct jl__report_pick {
    long run;          /* index into the list; -1 when no run meets the SLO */
    size_t n_meeting;  /* runs meeting the SLO */
    size_t n_missing;  /* runs lacking a figure the SLO needs */
    long closest;      /* no run meets it: the closest run (jl_pick), else -1 */
    double worst_miss; /* the closest run's largest relative miss */
} jl__report_pick;

/* The kind of work a group does: what its items are and which SLO set
 * judges it. */
typedef enum { RP_KIND_LLM, RP_KIND_IMAGE, RP_KIND_VIDEO, RP_KIND_COUNT } jl__report_kind;
#define RP_SET_MAX 3

typedef struct jl__report_group {
    const char *model, *task, *workload;
    jl__report_kind kind;
    const char *item; /* "token", "image", "video" */
    /* the SLOs the answer tables judge the group at: the paper's set for its
     * kind, or the one --slo given for its workload; slo = set[primary] */
    const jl_slo *set[RP_SET_MAX];
    size_t n_set, primary;
    jl__report_pick set_picks[RP_SET_MAX]; /* all GPU models */
    jl__report_pick *gpu_set_picks;        /* [k * n_set + j]: GPU model k, SLO j */
    char *figure_note; /* why a figure of the group is not shown (one line), or NULL */
    size_t *runs;      /* indices into the list, list order */
    size_t n_runs;
    const struct jl_frontier *frontier; /* NULL when none */
    const jl_slo *slo;                  /* the SLO for this group's workload */
    char *slo_text;                     /* as given, for people */
    jl__report_pick pick;               /* over every run of the group */
    /* per GPU model: the minimum-energy run meeting the SLO */
    char **gpu_models;
    jl__report_pick *gpu_picks;
    size_t n_gpu_models;
    long representative; /* run shown over time: pick, else lowest energy */
    char *slug;          /* for file names and anchors */
    char **findings;     /* sentences (HTML-safe plain text) */
    size_t n_findings;
} jl__report_group;

/* One GPU model against the baseline over the groups of a kind of work:
 * comparisons where both have a pick meeting the SLO, the side's wins
 * (less energy), losses and ties (within 1e-9), and the energy change
 * E_side / E_baseline - 1 (negative = less energy): median, min, max. */
typedef struct jl__report_side {
    const char *gpu; /* borrowed from a group */
    size_t n, wins, losses, ties;
    double median, min, max;
} jl__report_side;

#define RP_HEADLINE_SIDES 15
/* The first screen's answer for one kind of work (groups.c). */
typedef struct jl__report_headline {
    size_t n_groups;                           /* groups of this kind */
    size_t n_multi;                            /* of them, measured on two or more GPU models */
    jl__report_side at_slo[RP_HEADLINE_SIDES]; /* at each group's SLO */
    jl__report_side in_set[RP_HEADLINE_SIDES]; /* at every SLO of the groups' sets */
    size_t n_sides;
    /* the GPU model needing the least energy in the most groups (of those
     * with two or more meeting the SLO), and in how many */
    const char *most_often;
    size_t most_often_n, n_decided;
    long cheapest; /* the run of least energy per item among the groups' picks, -1 none */
    long cheapest_group;
} jl__report_headline;

typedef struct jl__report_data_file {
    char *path; /* relative to the report root */
    char *what;
    char *cmd; /* the command printing the same bytes, or NULL */
} jl__report_data_file;

typedef struct jl__report_report {
    const jl_summary_list *l;
    const jl_error_list *errors;
    jl_report_options opt;
    jl_ruleset rules;
    char *root; /* the temporary directory being built */
    struct jl_frontier_set *fs;
    jl__report_group *groups;
    size_t n_groups;
    jl__report_figure *figs;
    size_t n_figs, cap_figs;
    jl__report_data_file *data;
    size_t n_data, cap_data;
    char **notes; /* warnings for the page and stderr */
    size_t n_notes, cap_notes;
    char *gnuplot_version; /* NULL when gnuplot is unavailable */
    int gnuplot_missing;
    json_t *check_doc;                           /* joules.check/1, for findings */
    jl_slo *slo_sets[RP_KIND_COUNT][RP_SET_MAX]; /* the paper's SLO sets, parsed */
    char **cmp_notes; /* why a comparison figure is not shown (one line each) */
    size_t n_cmp_notes;
    double elapsed_analysis_s;
    double figures_s; /* wall time of jl__report_figures_render */
    /* the batch-size model (model_section.c): groups of jl_model_groups(), their
     * fits, the report group each belongs to (-1 none) */
    struct jl_model_group_list *fit_groups;
    struct jl_group_fit **fits; /* n_fits, NULL when not fitted */
    size_t n_fits;
    long *fit_group_of;
    struct jl_diagnosis *diag; /* runs[i] is the list's item i; NULL when not computed */
    /* per --slo (the first 64): the kinds (1 << jl__report_kind) already
     * told it does not apply to them */
    unsigned slo_skip_noted[64];
    /* the GPU comparisons' baseline (groups.c): --baseline as the data spell
     * it, else the GPU model of the most groups (ties: the first by name);
     * NULL with fewer than two GPU models */
    const char *gpu_baseline;
    jl__report_headline headline[RP_KIND_COUNT];
    /* one colour per class across the page (plot.c, jl__report_class_colour):
     * every GPU model and every precision of the study, sorted (borrowed
     * from the runs) */
    const char **gpu_classes, **prec_classes;
    size_t n_gpu_classes, n_prec_classes;
    char *budgets_html; /* the budgets section's body (budgets_section.c); NULL: none */
    /* per profiled run, its per-class budgets' adherence as <li> lines
     * (attribution_section.c, for the budgets section); NULL: none */
    char *span_budget_lines;
} jl__report_report;

const char *jl__report_fig_kind_name(jl__report_fig_kind k);
/* "llm", "image", "video" */
const char *jl__report_kind_name(jl__report_kind k);

/* Files under the report root: the path of rel (caller frees); text and
 * JSON written atomically. */
char *jl__report_path(const jl__report_report *r, const char *rel);
jl_status jl__report_write_text(jl__report_report *r, const char *rel, const char *text,
                                jl_error **err);
/* b's text (b is emptied) */
jl_status jl__report_write_buf(jl__report_report *r, const char *rel, jl__strbuf *b,
                               jl_error **err);
jl_status jl__report_write_json(jl__report_report *r, const char *rel, const json_t *doc,
                                jl_error **err);
/* The same with the study's error list as `errors` (as the commands print
 * it); takes doc (NULL: out of memory, an error). */
jl_status jl__report_write_json_with_errors(jl__report_report *r, const char *rel, json_t *doc,
                                            jl_error **err);
jl_status jl__report_mkdir(jl__report_report *r, const char *rel, jl_error **err);
/* The whole file at path (caller frees); NULL when it cannot be opened. */
char *jl__report_read_file(const char *path);
/* The same, with its length (*len; binary files: a PNG holds NUL bytes). */
char *jl__report_read_file_n(const char *path, size_t *len);

/* Notes: warnings for the page and stderr; why a comparison figure is not
 * shown. */
void jl__report_note(jl__report_report *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void jl__report_cmp_note(jl__report_report *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The progress callback, when there is one. */
void jl__report_progress(jl__report_report *r, const char *phase, size_t done, size_t total,
                         const char *current);

/* The registries: data files (the page's list of files) and figures. */
jl_status jl__report_add_data(jl__report_report *r, const char *path, const char *what,
                              const char *cmd);
/* The figure's id is made safe here, whatever the builder made of the
 * data: letters, digits, '.', '-' and '_' (others become '-'), at most
 * RP_FIG_ID_MAX bytes (a longer one keeps its start and a hash of it). */
#define RP_FIG_ID_MAX 120
jl__report_figure *jl__report_add_figure(jl__report_report *r, jl__report_fig_kind kind, long group,
                                         const char *id);
/* Forget the figure added last (one that turns out not to be drawable). */
void jl__report_drop_last_figure(jl__report_report *r);
void jl__report_figure_free(jl__report_figure *f);
/* The gnuplot fmt values and file extensions of the formats asked for (0 =
 * SVG): svg -> "svg"; png -> "png"; pdf -> "pdf" (7 in) and "pdf1" ->
 * "1col.pdf" (3.3 in). Returns how many (at most RP_N_OUTPUTS). */
#define RP_N_OUTPUTS 4
size_t jl__report_figure_outputs(unsigned formats, const char **fmt, const char **ext, size_t cap);

/* A run in the report's words. The kind of work and its item ("token",
 * "image", "video"): the `item` attribute when present, else a video when
 * it has frames. */
jl__report_kind jl__report_kind_of(const jl_summary *s);
const char *jl__report_item(const jl_summary *s);
/* "J/token", "J/image", "J/video"; "images/s" etc. */
const char *jl__report_energy_unit(const jl_summary *s);
const char *jl__report_throughput_unit(const jl_summary *s);
/* The energy, latency and throughput figures of a run (workload default). */
int jl__report_energy_fig(const jl_summary *s);
int jl__report_latency_fig(const jl_summary *s);
int jl__report_throughput_fig(const jl_summary *s);
/* A short configuration label: "H100 x1, bfloat16, batch 64" (caller frees). */
char *jl__report_config_label(const jl_summary *s);
/* Power limit per GPU (attribute, else descriptor), NaN when unknown. */
double jl__report_tdp_w(const jl__report_report *r, const jl_summary *s);
/* The last component of a path or model id ("Qwen/Qwen3-8B" -> "Qwen3-8B");
 * "?" for NULL. */
const char *jl__report_base_name(const char *p);
/* s (NULL: nothing) appended to b with & < > " escaped for HTML */
void jl__report_esc(jl__strbuf *b, const char *s);
/* The diagnosis of the list's run `run`, NULL when none. */
const struct jl_run_diagnosis *jl__report_diagnosis_of(const jl__report_report *r, size_t run);
/* Its suggestion predicted to save the most energy (*change: the predicted
 * energy change, most negative), else NULL. */
const struct jl_finding *jl__report_best_change(const struct jl_run_diagnosis *d, double *change);

/* A figure for people: its label ("p90 ITL", "batch latency"; else its
 * name), and its value with its unit (times under 1 s in ms: "68.4 ms"). */
const char *jl__report_figure_label(int fig);
void jl__report_fmt_figure(char *buf, size_t cap, int fig, double v);

/* Numbers and text for people and programs. */
/* v with `sig` significant digits, thousands separated, "—" when missing. */
void jl__report_fmt_num(char *buf, size_t cap, double v, int sig);
/* CSV files of the report are written through output/csv_row.h's row
 * writer into a jl__strbuf (jl__csvw_begin_buf). */

#endif
