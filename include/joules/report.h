/* joules/report.h — the whole analysis as a directory a person can open.
 *
 * jl_report_write() takes the summaries of a study and writes DIR with
 *
 *   index.html          the page (CSS inline, figures referenced from
 *                       figures/ with lazy loading, no JavaScript, no
 *                       network): the answer first (per (model, task) and
 *                       GPU model the minimum-energy configuration at each
 *                       SLO of the workload's set), the task overviews, the
 *                       findings, then a section per group
 *   runs.html           every run (one table per workload kind)
 *   diagnosis.html      every run's diagnosis findings
 *   data/               the documents of the commands, byte-identical to
 *                       what they print (summary.json/.csv, check.json,
 *                       frontier.json/.csv and the rest), report.json (what the page
 *                       and the figures show) and the time series CSVs
 *   figures/            every figure as .svg (and on request .png and .pdf
 *                       at 7 in and 3.3 in widths), drawn by gnuplot from the
 *                       .gp script and .dat data kept beside it (re-run
 *                       `gnuplot NAME.gp` to restyle); gnuplot runs in
 *                       `workers` processes at once, each fed many scripts
 *   notebooks-export/   Jupyter notebooks (from the templates in the
 *                       repository's notebooks-export/) that load data/ with
 *                       pandas and redraw each figure with matplotlib
 *
 * The directory is built under a temporary name beside DIR and renamed into
 * place at the end (jl_atomic_dir_open/commit), every file inside written
 * atomically; an interrupted run leaves nothing (the temporary directory is
 * registered for jl_atomic_cleanup_signal(), gnuplot children too). A
 * missing or failing gnuplot does not fail the report: figures are skipped,
 * the page says so, and res->notes carries a warning for stderr.
 *
 * Figures and how each is computed: docs/report.md.
 */
#ifndef JOULES_REPORT_H
#define JOULES_REPORT_H

#include <stddef.h>

#include "joules/budget.h"
#include "joules/check.h"
#include "joules/descriptors.h"
#include "joules/error.h"
#include "joules/slo.h"
#include "joules/summary.h"

#ifdef __cplusplus
extern "C" {
#endif
JL_API_BEGIN
/* ---- stable (docs/library.md, "Stable and experimental") ---- */

/* An SLO for the runs of one workload ("llm", "mllm", "diffusion"), or for
 * every workload when workload is NULL. The last matching entry wins. */
typedef struct jl_report_slo {
    const char *workload;
    const jl_slo *slo;
} jl_report_slo;

/* The SLOs used when none is given for a workload: the paper's Fig. 6
 * constraints (median ITL <= 100 ms for LLMs and MLLMs, generation latency
 * <= 30 s for images, <= 500 s for videos). Without --slo for a workload,
 * the answer tables judge each group at the paper's whole set for it:
 * LLM/MLLM 50/100/250 ms median ITL, text-to-image 10/30/60 s, text-to-video
 * 100/500/1000 s (the middle one is the group's SLO). Workload names for
 * jl_report_slo: "llm", "mllm", "diffusion" (images and videos), "image",
 * "video". */
#define JL_REPORT_DEFAULT_SLO_LLM "median_itl<=100ms"
#define JL_REPORT_DEFAULT_SLO_DIFFUSION "batch_latency<=30s"
#define JL_REPORT_DEFAULT_SLO_VIDEO "batch_latency<=500s"
/* clang-format off */
#define JL_REPORT_SLO_SET_LLM {"median_itl<=50ms", "median_itl<=100ms", "median_itl<=250ms"}
/* clang-format on */
/* clang-format off */
#define JL_REPORT_SLO_SET_IMAGE {"batch_latency<=10s", "batch_latency<=30s", "batch_latency<=60s"}
/* clang-format on */
/* clang-format off */
#define JL_REPORT_SLO_SET_VIDEO {"batch_latency<=100s", "batch_latency<=500s", "batch_latency<=1000s"}
/* clang-format on */

/* Figure formats (jl_report_options.formats). PDF is written twice: ID.pdf
 * 7 in wide (double column) and ID.1col.pdf 3.3 in wide (single column). */
enum { JL_REPORT_SVG = 1, JL_REPORT_PDF = 2, JL_REPORT_PNG = 4 };

/* Progress: called with a short phase name ("figures") and counts. */
typedef void (*jl_report_progress_fn)(void *ctx, const char *phase, size_t done, size_t total,
                                      const char *current);

typedef struct jl_report_options {
    const jl_report_slo *slos; /* may be NULL: the defaults */
    size_t n_slos;
    /* The gnuplot program (searched in PATH). NULL = "gnuplot"; "" = draw
     * no figures (the .gp and .dat files are still written). */
    const char *gnuplot;
    /* Notebook templates; NULL = $JOULES_NOTEBOOKS_DIR, the checkout's
     * notebooks-export/ or the installed share/joules/notebooks-export. */
    const char *templates_dir;
    int replace;               /* replace DIR when it exists (--force) */
    const char *gpu_baseline;  /* baseline of the GPU comparison; NULL = the oldest GPU model */
    const char *generated_at;  /* a line in the page; NULL = none */
    const char *const *inputs; /* the PATHs given, shown in the page */
    size_t n_inputs;
    const jl_ruleset *rules;    /* NULL = default rules */
    const jl_descriptors *desc; /* GPU power limits etc.; may be NULL */
    size_t max_plot_points;     /* time series are downsampled to this; default 1200 */
    unsigned formats;           /* JL_REPORT_SVG|PDF|PNG; 0 = SVG only */
    int workers;                /* gnuplot processes at once; 0 = the online CPUs */
    /* GPU models the study was restricted to (shown in the page; the
     * restriction itself is the caller's selection); NULL = all */
    const char *const *gpus;
    size_t n_gpus;
    jl_report_progress_fn progress;
    void *progress_ctx;
    int no_data;     /* no data/ nor notebooks-export/: the pages and figures */
    int single_page; /* one self-contained index.html (figures inline as data: URIs; no
                      * runs.html, diagnosis.html); implies no_data */
    /* a budgets file (jl_budgets_load): the page gets a budgets section (each
     * run's and group's verdicts, the adherence, figures vs ceilings), data/
     * budget.json, and attribution.html the per-class verdicts; NULL = none.
     * budgets_path: its path as the page and the recorded command name it. */
    const jl_budgets *budgets;
    const char *budgets_path;
    /* per-class weights from isolated loops (jl_class_weights_from_trace):
     * the profiled runs' page splits their energy with them instead of
     * equal weights (attribute.md); NULL: equal weights */
    const struct jl_class_weights *weights;
} jl_report_options;

void jl_report_options_default(jl_report_options *opt);

typedef struct jl_report_result {
    size_t n_groups;
    size_t n_figures;       /* figures planned */
    size_t n_figures_drawn; /* drawn by gnuplot (every format asked for) */
    double figures_s;       /* wall time spent drawing figures */
    size_t n_data_files;
    char **notes; /* warnings for stderr, e.g. gnuplot missing */
    size_t n_notes;
} jl_report_result;

void jl_report_result_clear(jl_report_result *res);

/* Write the report of runs (errors: inputs that failed, listed in the page
 * and in every document; may be NULL) to dir. opt may be NULL. JL_EUSAGE
 * when dir exists and opt->replace is 0. */
jl_status jl_report_write(const char *dir, const jl_summary_list *runs, const jl_error_list *errors,
                          const jl_report_options *opt, jl_report_result *res, jl_error **err);

JL_API_END
#ifdef __cplusplus
}
#endif
#endif
