/* kit.h — the one kit of src/import/: what every importer shares, so that
 * an importer (src/import/<name>.c) reads as the mapping of its format and
 * little else (docs/architecture.md, "Importers").
 *
 *   the context   one import: options, the result being built, the error
 *                 list, an out-of-memory flag (kit.c)
 *   notes         counted by (field, message), naming the first file
 *   errors        naming file and field (JSON and folder formats) or
 *                 file:line:column (line-oriented text: CSV logs)
 *   runs          pushed with unique names (__dup<k>, a hash of the names
 *                 taken), request columns, extra and summary attributes,
 *                 the result's details
 *   files         whole files read under a size limit, folders listed
 *                 sorted, a folder walk as an importer's entry
 *   CSV           one streaming reader (kit_csv.c), numbers with units
 *   time          one civil-time function, wall-clock times in a zone
 *                 (kit_time.c)
 *   GPU names     one table (gpu_names.c)
 *   clipping      a run's power over exactly [start, end]: its edges
 *                 interpolated (kit_clip.c)
 *   JSON          the streaming reader (src/json/, json/json_internal.h included here) for
 *                 documents read as they come; a read-only tree
 *                 (src/json/json_tree.c, built by the same reader) where a format is
 *                 walked as a whole: jl__imp_json_tree()
 *
 * Internal to src/import/ (jl__imp_* names). Every helper that takes the
 * context records an allocation failure in c->oom and keeps going;
 * jl__imp_finish() turns it into JL_ENOMEM.
 */
#ifndef JOULES_IMPORT_KIT_H
#define JOULES_IMPORT_KIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/attrs_internal.h"
#include "core/civil_time.h"
#include "core/csv.h"
#include "core/hash.h"
#include "core/lines.h"
#include "core/walk.h"
#include "joules/import.h"
#include "json/json_internal.h"

#if defined(__GNUC__)
#define JL__IMP_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define JL__IMP_PRINTF(f, a)
#endif

/* ---- the context ------------------------------------------------------------- */

typedef struct jl__imp {
    const jl_import_options *opt;
    jl_import_options def;
    jl_import_result *res;
    jl_error_list *errors;
    size_t runs_cap;
    jl__strmap names; /* the run names taken -> how often asked */
    int fold_indices; /* notes: "[k]" in a field counted as "[*]" (one note for all elements) */
    int oom;
    jl__walk walk;         /* the folders and files met (core/walk.h): each read once */
    jl__strmap note_index; /* "LEN:field" + message -> its note: notes counted in linear time */
    size_t notes_cap, notes_dropped;
    size_t extras_dropped; /* attributes past JL__IMP_MAX_EXTRAS, noted at the end */
} jl__imp;

/* The most attributes beyond the typed ones one run (or one result's
 * details) keeps. */
#define JL__IMP_MAX_EXTRAS 1000

/* The most distinct notes one import keeps (a crafted file could make one
 * per column or row); more are counted in one last note. */
#define JL__IMP_MAX_NOTES 10000

/* Start: options (defaults when opt is NULL), an empty result. Returns -1
 * when out of memory. */
int jl__imp_start(jl__imp *c, const jl_import_options *opt, jl_error_list *errors);
/* Hand the result over (JL_OK) or free it (nothing imported: JL_ENODATA,
 * "no run could be imported" naming `what`; out of memory: JL_ENOMEM). */
jl_status jl__imp_finish(jl__imp *c, jl_import_result **out, const char *what);
/* The same for an importer that decided its status itself: st != JL_OK
 * (or c->oom) frees the result. An out-of-memory error is pushed unless
 * one is in the list already. */
jl_status jl__imp_end(jl__imp *c, jl_status st, jl_import_result **out);

/* ---- notes and errors ------------------------------------------------------------ */

/* A run found and left out (res->skipped, the document's "skipped"), with
 * a note "skipped: <why>"; when nothing is imported jl__imp_finish() makes
 * each an error, so a failed import says why run by run. */
void jl__imp_skip(jl__imp *c, const char *path, const char *field, const char *fmt, ...)
    JL__IMP_PRINTF(4, 5);
/* path as its absolute, resolved name (realpath: "." and "..", a trailing
 * '/', symbolic links), else a copy of path: what a run's identity is read
 * from, so `import ... run_1` in its folder names the run as
 * `import ... /abs/.../run_1` does (NULL when out of memory). */
char *jl__imp_real_path(jl__imp *c, const char *path);
/* The same without a context: "PREFIX<resolved path>", malloc'd (NULL when
 * out of memory): a source named in a trace or a result. */
char *jl__imp_source_name(const char *prefix, const char *path);
/* 1 when a RUNS.csv's `log` cell (NULL: any log) names the log read from
 * path: the same text, the log's file name, or the same file however
 * spelled (the cell read relative to the RUNS.csv's folder, runs_csv the
 * RUNS.csv's path as given, NULL: none; or to the working folder). */
int jl__imp_log_named(const char *cell, const char *runs_csv, const char *path);
/* The extra attribute key (when r has none yet) naming the file path was
 * read from: its absolute, resolved name (jl__imp_real_path), so every
 * spelling of one file gives one attribute (docs/import.md, "Paths"). */
void jl__imp_extra_path(jl__imp *c, jl_run *r, const char *key, const char *path);

void jl__imp_note(jl__imp *c, const char *file, const char *field, const char *fmt, ...)
    JL__IMP_PRINTF(4, 5);
/* An error naming the file, the field (JSON path, column) and the line
 * (-1: none; written into the text as "line N: "); pushed. Returns code. */
jl_status jl__imp_err(jl__imp *c, jl_status code, const char *file, const char *field,
                      long long line, const char *fmt, ...) JL__IMP_PRINTF(6, 7);
/* An error at file:line:column (line 0: none) with the field in the text
 * ("field 'x': ..."), for line-oriented text (CSV logs); pushed. */
jl_status jl__imp_err_at(jl_error_list *errors, jl_status code, const char *file, long long line,
                         long long column, const char *field, const char *fmt, ...)
    JL__IMP_PRINTF(7, 8);

/* ---- runs and attributes ------------------------------------------------------------ */

/* Make r->name unique among the names claimed so far: a name asked for the
 * k-th time (k >= 2) becomes name__dup<k'> with k' the first free (counted
 * in res->n_duplicates). Returns k' (1: unchanged), 0 when out of memory. */
size_t jl__imp_claim_name(jl__imp *c, jl_run *r);
/* Add a run whose name is claimed (taken over; freed when out of memory). */
void jl__imp_add_run(jl__imp *c, jl_run *r);
/* Claim its name and add it. */
void jl__imp_push_run(jl__imp *c, jl_run *r);
/* r's requests/ columns (arrival, first_token, finish, input_tokens,
 * output_tokens) for R requests, req_n = R; JL_ENOMEM when one is missing
 * (those allocated stay with r, freed by jl_run_free). */
jl_status jl__imp_requests(jl_run *r, size_t R);

/* Extra (attrs) and summary attributes; a key set again is replaced. */
void jl__imp_extra_num(jl__imp *c, jl_run *r, const char *key, double v);
void jl__imp_extra_text(jl__imp *c, jl_run *r, const char *key, const char *text, int is_num);
void jl__imp_extra_str(jl__imp *c, jl_run *r, const char *key, const char *v);
void jl__imp_summary_num(jl__imp *c, jl_run *r, const char *key, double v);
void jl__imp_summary_str(jl__imp *c, jl_run *r, const char *key, const char *v);
/* Extra `key` unless it is set already (a value the user gave wins). */
void jl__imp_extra_default(jl__imp *c, jl_run *r, const char *key, const char *v, int is_num);
/* The value of extra `key` (NULL when not set). */
const char *jl__imp_extra_get(const jl_run *r, const char *key);
/* Set run attribute key=value on a from text (a user's --set, a RUNS.csv
 * column, a label): the typed attributes of the trace format checked
 * (num_gpus and max_batch_size whole >= 1, the others' kinds, workload one
 * of llm/mllm/diffusion), anything else an extra (a number when it reads as
 * one). start_time_unix is refused (it comes from the run's window). NULL,
 * or the reason it cannot be. */
#define JL__IMP_MAX_ATTR_TEXT 60000
/* The typed field of run attribute key (the reader's field table), or NULL
 * for an attribute kept as an extra. */
const jl__attr_field *jl__imp_attr_field(const char *key);
const char *jl__imp_set_attr(jl_attrs *a, const char *key, const char *value);
/* The result's details (the import document's "details"). */
void jl__imp_detail(jl__imp *c, const char *key, const char *value, int is_number);
void jl__imp_detail_num(jl__imp *c, const char *key, double v);

/* v as "%.17g" writes it (buf: 64 bytes), whole numbers without printf's
 * cost; returns buf. A long long as "%lld" (buf: 24 bytes). */
char *jl__imp_fmt_g17(char *buf, double v);
char *jl__imp_fmt_lld(char *buf, long long q);

/* s with '/' as "__" and spaces, '\\' and control bytes as '_' (run
 * names; NULL: "unknown"). NULL when out of memory. */
char *jl__imp_sanitize(const char *s);

/* --set KEY=VALUE (repeatable; each checked as jl__imp_set_attr would set
 * it: a bad one is a usage error) and --timezone ZONE from an importer's
 * options, for the importers whose rows hold no run attributes of the trace
 * format (CodeCarbon, Zeus). kv's keys are allocated, values point into
 * args. */
typedef struct jl__imp_sets {
    jl_kv *kv;
    size_t n;
    const char *timezone; /* NULL: not given */
} jl__imp_sets;
jl_status jl__imp_sets_parse(const jl_importer_arg *args, size_t n_args, jl__imp_sets *s,
                             jl_error_list *errors);
void jl__imp_sets_free(jl__imp_sets *s);
/* Every --set on r (the user's value wins: apply before the file's). */
void jl__imp_sets_apply(jl__imp *c, const jl__imp_sets *s, jl_run *r);
/* The trace format's required run attributes a lacks ("model, task"), or
 * NULL when none is missing: workload, model, task, precision, gpu_model,
 * num_gpus and max_batch_size (>= 1). A missing one is an error naming it,
 * never a placeholder (docs/import.md). */
char *jl__imp_missing_required(const jl_attrs *a);
/* Before anything is read: the required attributes that no row of the
 * format holds (all but num_gpus, and gpu_model when file_gives_gpu) must
 * come from --set; else one error naming them (`format` says whose file
 * lacks them) and JL_EMISSING. */
jl_status jl__imp_sets_check(const jl__imp_sets *s, int file_gives_gpu, const char *path,
                             const char *format, jl_error_list *errors);
/* The start of such an importer: parse (jl__imp_sets_parse), check
 * (jl__imp_sets_check), start k (jl__imp_start). On failure s is freed. */
jl_status jl__imp_sets_start(jl__imp *k, jl__imp_sets *s, const jl_importer_arg *args,
                             size_t n_args, int file_gives_gpu, const char *path,
                             const char *format, jl_error_list *errors);

/* ---- files and folders ------------------------------------------------------------ */

/* Read a whole file (NUL-terminated; *len without the NUL). Errors
 * (missing, larger than opt->max_file_bytes, unreadable) are pushed unless
 * missing_ok and the file does not exist; returns NULL. */
char *jl__imp_read_file(jl__imp *c, const char *path, size_t *len);
char *jl__imp_read_file_opt(jl__imp *c, const char *path, size_t *len, int missing_ok);
/* "a/b" (NULL when out of memory, c->oom set). */
char *jl__imp_join(jl__imp *c, const char *a, const char *b);
/* Names of the sub-folders and files of a folder, sorted; n_dirs/n_files
 * set, through the import's one walk (core/walk.h: links followed, each
 * folder and file once per device and inode, so loops end and a file
 * reached twice is listed once). Returns 0; 1 when the folder was walked
 * before in this import (nothing listed, nothing to do); -1 on an error
 * (pushed). Free with jl__imp_free_names(). */
int jl__imp_list_dir(jl__imp *c, const char *dir, char ***dirs, size_t *n_dirs, char ***files,
                     size_t *n_files);
void jl__imp_free_names(char **names, size_t n);
/* The longest line a line-oriented text reader takes (the Prometheus text
 * format): a longer one is an error, so memory stays bounded whatever the
 * file holds (the CSV reader's row limit is kit_csv.c's CSV_MAX_ROW). */
#define JL__IMP_MAX_LINE ((size_t)1 << 20)

/* Claim path for this import (a file read from a list of paths): 1 the
 * first time its device and inode are met, 0 when read before, -2 when it
 * cannot be stat'ed, -1 out of memory (c->oom set). */
int jl__imp_claim_path(jl__imp *c, const char *path);
/* 1 when path names an existing regular file (folder). */
int jl__imp_is_file(const char *path);
int jl__imp_is_dir(const char *path);
/* 1 (and an error naming the path, pushed) when path exists and is neither
 * a folder nor a regular file: a FIFO, a device or a socket named as an
 * importer's input is refused, never opened (docs/security.md). */
int jl__imp_refuse_special(jl_error_list *errors, const char *path);
int jl__imp_ends_with(const char *s, const char *suffix);

/* The usual entry of a folder importer: start, walk(c, path, 0, &found)
 * for every path (none found: an error naming `marker`, with `none_msg`),
 * res->source = source, finish. */
typedef void (*jl__imp_walk_fn)(jl__imp *c, const char *dir, int depth, size_t *found);
jl_status jl__imp_paths(const char *const *paths, size_t n_paths, const jl_import_options *opt,
                        jl_import_result **out, jl_error_list *errors, jl__imp_walk_fn walk,
                        const char *marker, const char *none_msg, const char *source);

/* An importer table row's run() for an importer without options: fn over
 * the paths with the default options, then the one-line report
 * "<label>, N notes" (label NULL: "N with series, N notes"). */
typedef jl_status (*jl__imp_paths_entry)(const char *const *paths, size_t n_paths,
                                         const jl_import_options *opt, jl_import_result **out,
                                         jl_error_list *errors);
jl_status jl__imp_run_plain(jl__imp_paths_entry fn, const char *const *paths, size_t n_paths,
                            jl_import_result **out, jl_error_list *errors, const char *label);
/* The option list of an importer without options. */
extern const jl_importer_option jl__imp_no_options[];

/* ---- JSON ------------------------------------------------------------------------- */

/* A document as a read-only tree (src/json/json_tree.c), for the formats walked as a
 * whole (the ML.ENERGY Leaderboard's files). The streaming reader builds
 * it; what it declines (a syntax error, a key twice, ...) goes through
 * jansson, whose message the error carries ("not valid JSON: ... (line L,
 * column C)"). dups: JL__IMP_DUPS_REFUSE refuses a key given twice
 * (jansson's JSON_REJECT_DUPLICATES); JL__IMP_DUPS_NOTE keeps equal repeats
 * once with a note and refuses differing ones naming both lines
 * (src/json/json_dups.c). NULL on any error (pushed). */
struct jl__jv;
enum { JL__IMP_DUPS_REFUSE, JL__IMP_DUPS_NOTE };
struct jl__jv *jl__imp_json_tree(jl__imp *c, const char *name, const char *text, size_t len,
                                 int dups);

/* ---- readers of request logs -------------------------------------------------- */

/* A vLLM `bench serve --save-result --save-detailed` result file
 * (vllm_requests.c) as r's requests/ and itl/: per request input_lens,
 * output_lens, ttfts, itls, start_times, errors. Times are placed so the
 * first request starts `offset` seconds after the run's t = 0; extras
 * requests_clock, requests_source, client_max_concurrency, the model from
 * model_id when r has none. Errors name the file and the field
 * (`itls[3][7]`); a file over max_bytes is refused. */
jl_status jl__imp_vllm_requests(jl__imp *kit, const char *path, jl_run *r, double offset,
                                int offset_given, size_t max_bytes, jl_error_list *errors);

/* ---- CSV (kit_csv.c) ------------------------------------------------------------- */

/* The CSV reader is core's (core/csv.h: jl__csv_open_file, jl__csv_next,
 * ...); the kit adds a file read row by row with its notes and errors,
 * header names with units and the numbers of logs. */

/* A CSV file with a header, row by row: header(ctx, first row) (nonzero:
 * stop), then data(ctx, row) for every other row; the encoding a
 * byte-order mark gave is a note, a file that cannot be read or a row that
 * cannot be split is an error (pushed). */
void jl__imp_csv_each(jl__imp *k, const char *path, void *ctx,
                      int (*header)(void *ctx, const jl__csv_row *row),
                      void (*data)(void *ctx, const jl__csv_row *row));
/* "power.draw [W]" -> name "power.draw" (written into name), unit "W" (into
 * unit, "" when none). Both buffers of cap bytes. */
void jl__imp_csv_split_unit(const char *header, char *name, char *unit, size_t cap);
/* "[N/A]", "[Not Supported]", "N/A", "" and other "[...]" texts. */
int jl__imp_csv_missing(const char *s);

/* A number with an optional unit after it ("72.19 W", "0 %", "81559 MiB",
 * "1.5e3"). Returns 1 and sets *v and *unit (pointer into s, "" when none);
 * 0 when s does not start with a number. */
int jl__imp_number_unit(const char *s, double *v, const char **unit);
/* The whole of s as a finite number (strtod; nothing after it). 1 or 0. */
int jl__imp_number(const char *s, double *v);

/* ---- RUNS.csv (kit_runs.c) ------------------------------------------------------ */

/* One run of a RUNS.csv: its name and window, the format's own columns
 * (gpus, requests, requests_offset, log; docs/import.md, "Runs") and
 * its other non-empty cells as run attributes (checked by
 * jl__imp_set_attr's rules when read, set when the run is built). */
typedef struct jl__imp_run_spec {
    char *name;
    double start, end;           /* Unix seconds */
    long long line;              /* its row's line */
    char *gpus, *requests, *log; /* NULL: not given */
    double req_offset;           /* NaN: not given */
    jl_kv *attrs;
    size_t n_attrs;
} jl__imp_run_spec;

/* RUNS.csv from csv: a header naming run, start and end (then any run
 * attribute; no column twice), one row per run (a unique name without '/',
 * start and end as Unix seconds or ISO 8601, a time without an offset in
 * zone z, end after start). The one return convention: JL_OK and
 * *out[0..*n_out) (at least one run), or the status of the first error,
 * pushed to errors naming file:line:column and the field. */
jl_status jl__imp_runs_read(jl__csv *csv, jl__zone *z, jl_error_list *errors,
                            jl__imp_run_spec **out, size_t *n_out);
void jl__imp_run_specs_free(jl__imp_run_spec *s, size_t n);

/* ---- clipping to a window (kit_clip.c) ------------------------------------------------------- */

/* The value at x on the line through (ta, va) and (tb, vb): the one
 * interpolation of the importers (prometheus' grid, window edges). */
double jl__imp_lerp(double ta, double va, double tb, double vb, double x);

/* A run's series over exactly its window [start, end] (±INFINITY: open),
 * fed the log's samples in time order (t: the time the reading describes,
 * a lag already taken off): each sample inside it is emitted, and a point
 * at each edge the first and last samples inside do not reach — interpolated
 * between them and the sample just outside (JL__IMP_EDGE_LERP), held from
 * the inside one when the outside sample has no value (ok == 0: _HELD), or
 * none when the log does not reach the edge (_CUT). Emitted are g values
 * (a) and, with `two`, g more (b) carried with them (an average beside the
 * power). Samples inside with ok == 0 are counted in `dropped`, not
 * emitted (the trapezoid bridges them). The importer that streams its log
 * and the one that holds it build the same series through it. */
typedef void (*jl__imp_clip_emit)(void *ctx, double t, const double *a, const double *b);
enum {
    JL__IMP_EDGE_NONE,
    JL__IMP_EDGE_SAMPLE,
    JL__IMP_EDGE_LERP,
    JL__IMP_EDGE_HELD,
    JL__IMP_EDGE_CUT
};
typedef struct jl__imp_clip {
    double start, end;
    size_t g;
    int two;
    jl__imp_clip_emit emit;
    void *ctx;
    double *buf; /* [6g]: the sample before start, the last point, a point */
    double bt, lt;
    int before; /* 0: no sample before start yet, 1: one with values, 2: one without */
    int closed; /* a sample after end seen (or the log's end) */
    size_t n, dropped;
    int edge[2]; /* how the start and end were reached: JL__IMP_EDGE_* */
} jl__imp_clip;

int jl__imp_clip_init(jl__imp_clip *w, double start, double end, size_t g, int two,
                      jl__imp_clip_emit emit, void *ctx); /* -1: out of memory */
void jl__imp_clip_sample(jl__imp_clip *w, double t, const double *a, const double *b, int ok);
/* The log ended: an end not reached is _CUT, or _HELD (the last point
 * carried to it) with `hold` — the log's own timestamps reached the end and
 * only the lag taken off them falls short. */
void jl__imp_clip_end(jl__imp_clip *w, int hold);
void jl__imp_clip_free(jl__imp_clip *w);
/* "interpolated", "held", "a sample on it", "cut (beyond the log)", "none". */
const char *jl__imp_edge_name(int edge);

/* ---- GPU names (gpu_names.c) ------------------------------------------------------ */

/* A vendor name ("NVIDIA A100-SXM4-40GB", "H100 80GB HBM3") to joules'
 * gpu_model id through the one table, jl_gpu_model_from_name(): writes the
 * id into id (cap bytes) and returns 1 when the table knows the name (0:
 * id holds the name as jl_gpu_model_from_name leaves it). *memory_bytes:
 * the variant's memory, NaN when the name does not say which. */
int jl__imp_gpu_name(const char *vendor_name, char *id, size_t cap, double *memory_bytes);
/* 1 for a GPU older than Ampere by its vendor name (or id): there NVML's
 * plain power reading is instantaneous, on Ampere and newer a 1-s average
 * (power/@watts_kind). */
int jl__imp_gpu_before_ampere(const char *name);
/* The accelerator and its count in an MLPerf-style system name
 * (`XE8545_A100-SXM-80GBx4_TRT`, `A30x3_R4900G5_TRT_MaxQ`,
 * `H200-SXM-141GBx8_TRT_MaxQ`, `SR780a_V3_B200SXMx8_TRT`, `8xH100_...`,
 * `Xavier_NX_TRT_MaxQ`): the '_'-separated segments are searched for
 * "<name>x<N>" or "<N>x<name>" whose name the GPU table knows, then for any
 * segment (or two) the table knows (count 1). 1 with acc (the name as
 * written), *count, id and *memory_bytes (jl__imp_gpu_name) set; 0 when no
 * known GPU is named (acc then holds the first counted name, if any, with
 * its count; id empty). */
int jl__imp_system_accelerators(const char *system, char *acc, size_t cap, long *count, char *id,
                                size_t id_cap, double *memory_bytes);

/* ---- validity (kit_validity.c; issue 37) ------------------------------------------- */

/* A reason (core/reasons.h) on run r: appended to its attribute
 * validity_reasons (JSON text, which jl_summarize() reads into the run's
 * validity) and said as a note naming the code, file and run. bound: the
 * energy it could move, NaN when none. */
void jl__imp_reason(jl__imp *c, jl_run *r, int reason, double bound, const char *file,
                    const char *fmt, ...) JL__IMP_PRINTF(6, 7);

#endif
