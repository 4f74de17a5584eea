/* joules/trace.h — reading trace files (format v1, docs/trace-format.md).
 *
 * A trace file holds one or more runs. jl_trace_open() checks the root
 * (format, version) and lists the runs; jl_trace_read_run() reads one run's
 * datasets into a jl_run, validating every MUST of the spec with errors that
 * name the file, run, object path and row. Sizes are checked against
 * jl_trace_limits before anything is allocated.
 *
 * joules registers its own Zstandard filter (HDF5 filter id 32015) with
 * libzstd the first time a trace is opened, so no HDF5 plugin is needed.
 *
 * Ownership: jl_trace and jl_run are owned by the caller and released with
 * jl_trace_close() / jl_run_free(), both of which accept NULL.
 */
#ifndef JOULES_TRACE_H
#define JOULES_TRACE_H

#ifdef JOULES_EXPERIMENTAL
#include <jansson.h>
#endif
#include <stddef.h>
#include <stdint.h>

#include "joules/attrs.h"
#include "joules/context.h"
#include "joules/error.h"

#ifdef __cplusplus
extern "C" {
#endif
JL_API_BEGIN
/* ---- stable (docs/library.md, "Stable and experimental") ---- */

/* Limits that protect against declared sizes far beyond the data. */
typedef struct jl_trace_limits {
    uint64_t max_rows;          /* per dataset; default 2^31 */
    uint64_t max_dataset_bytes; /* decoded size of one dataset; default 4 GiB */
    uint64_t max_gpus;          /* G; default 1024 */
    uint64_t max_runs;          /* per file; default 1,000,000 */
} jl_trace_limits;

void jl_trace_limits_default(jl_trace_limits *lim);

/* A time series with a GPU axis: n rows of g values, row-major. */
typedef struct jl_series {
    size_t n, g;
    double *v; /* NULL when the dataset is absent */
} jl_series;

/* Precomputed figures of summary-only runs (spec: summary/). NaN = absent. */
typedef struct jl_run_summary_attrs {
    int present;
    double energy_per_token_j, energy_per_request_j, avg_power_w, output_throughput_tok_s,
        median_itl_s, p90_itl_s, p95_itl_s, p99_itl_s, avg_batch_size, avg_output_tokens,
        steady_state_duration_s, steady_state_energy_j, batch_latency_s, energy_per_item_j;
    /* further float attributes on summary/, kept for pass-through */
    jl_kv *extra;
    size_t n_extra;
} jl_run_summary_attrs;

/* One run, read whole into memory (but for itl/ when the reader streams it:
 * itl_stream below). Arrays are NULL (and counts 0) when the
 * group or dataset is absent. All time datasets were checked finite and
 * non-decreasing; all [N, G] datasets have G == attrs.num_gpus. */
typedef struct jl_run {
    char *file; /* path as given */
    char *name; /* group name under /runs */
    jl_attrs attrs;

    /* power/ */
    size_t power_n;
    double *power_time;  /* [power_n] */
    jl_series watts;     /* [power_n, G] or absent */
    jl_series energy_j;  /* [power_n, G] or absent */
    jl_series watts_avg; /* [power_n, G] or absent */
    /* power/@watts_kind (format 1.2): how `watts` was sampled, "instant" or
     * "average_1s" (NVML's plain reading on Ampere and newer); NULL: not said */
    char *power_watts_kind;

    /* gpu/ */
    size_t gpu_n;
    double *gpu_time;
    jl_series sm_util, mem_util, mem_used_bytes, sm_clock_mhz, temp_c;

    /* engine/ */
    size_t engine_n;
    double *engine_time;
    int32_t *running;          /* required when engine/ is present */
    int32_t *waiting;          /* optional */
    int64_t *tokens_generated; /* optional; cumulative */
    int64_t *prefill_tokens;   /* optional; cumulative */
    float *kv_cache_usage;     /* optional; 0..1 */

    /* requests/ */
    size_t req_n;
    double *arrival, *first_token, *finish; /* NaN: never got that far */
    int32_t *input_tokens, *output_tokens;

    /* itl/ */
    size_t itl_n;
    float *itl_seconds;
    int32_t *itl_request; /* optional */
    /* itl/ left in the file (jl_trace_options.stream_itl): itl_seconds and
     * itl_request are NULL, itl_n is its length; walk it with
     * jl_run_itl_blocks(). NULL when itl/ is in memory or absent. */
    struct jl_itl_stream *itl_stream;
    /* 1 when the reader checked itl/ (jl_trace_read_run(); for a streamed
     * itl/, jl_run_itl_blocks() hands on checked blocks only): every latency
     * finite and >= 0, every request index a row of requests/ when that
     * group is there. 0 for a run built otherwise (an importer's): the
     * summary checks the samples itself. */
    int itl_checked;

    /* batches/ (diffusion) */
    size_t batch_n;
    double *batch_start, *batch_end;
    int32_t *batch_size;

    /* summary/ */
    jl_run_summary_attrs summary;

    /* host/ (format 1.2; docs/trace-format.md): the rest of the system, on
     * the run's clock. The counters are cumulative per socket, as RAPL
     * exposes them (wraps and restarts handled by the summary); S =
     * host_sockets columns each. The reader checked: time finite and
     * non-decreasing, every value finite, node_watts >= 0, cpu_energy_j
     * and dram_energy_j of one width, counters within 0..max_energy_range_j
     * where that is known, at least one of the three present. */
    size_t host_n;
    double *host_time;       /* [host_n]; NULL when host/ is absent */
    jl_series cpu_energy_j;  /* [host_n, S] package counters, or absent */
    jl_series dram_energy_j; /* [host_n, S] DRAM counters, or absent */
    double *node_watts;      /* [host_n] the node's AC power, or NULL */
    size_t host_sockets;     /* S (0 when neither counter is present) */
    /* @max_energy_range_j of each counter, one value per socket (NaN where
     * unknown): where it wraps back to 0. NULL when the attribute is absent */
    double *cpu_max_energy_range_j, *dram_max_energy_range_j;
    char *host_source; /* host/@source; NULL when absent */
} jl_run;

/* A new, empty run: attributes and summary figures "missing", no data.
 * For writers (tests, importers, generators) that fill a jl_run by hand;
 * every array must come from malloc, since jl_run_free() frees them. */
jl_run *jl_run_new(void);
void jl_run_free(jl_run *run);

typedef struct jl_trace jl_trace;

typedef struct jl_trace_options {
    jl_trace_limits limits;
    /* 1: skip the datasets jl_summarize() never uses (power/watts_avg,
     * gpu/mem_util, gpu/mem_used_bytes, gpu/temp_c, engine/waiting,
     * requests/input_tokens; all optional): their fields stay NULL and
     * they are not validated. Default 0: read and validate everything (what
     * `joules check` and `inspect` do). `joules summarize` sets it. */
    int summary_fields_only;
    /* N > 0: an itl/ of at least N samples (the largest group: one sample
     * per generated token) is not read into memory: the reader checks its
     * type, shape and storage, and the run keeps it open
     * (jl_run.itl_stream) so that jl_summarize() walks it chunk by chunk:
     * memory is bounded by the chunk size, not by the samples. Its values
     * are checked by the first whole walk (jl_run_itl_blocks(), the
     * summary's first pass) instead of by a walk of the reader's own: a bad
     * value is that walk's error, with the reader's message (file, run,
     * dataset, row), and jl_run_itl_check() checks without a walk of the
     * caller's. Only
     * float32 seconds and int32 request stored chunked with [shuffle,]
     * deflate or Zstandard stream (docs/trace-reading.md); other layouts,
     * and smaller itl/ groups, are read whole as before (reading a small
     * group once is cheaper than decoding it three times). The run must be
     * used before jl_trace_close(). Default 0: never. The study loader sets
     * JL_STREAM_ITL_MIN_SAMPLES: it reads runs only to summarise them. */
    int stream_itl;
    /* 1: a trusted file may keep its data outside itself: datasets stored
     * in external files (HDF5 external raw storage) and virtual datasets
     * are read. Default 0: such a dataset is refused with an error naming
     * it, so reading a trace never reads another file (docs/security.md;
     * the CLI's --allow-external-storage; the current context's default:
     * jl_trace_default_allow_external_storage). */
    int allow_external_storage;
    /* Groups of a run that jl_trace_read_run() leaves unread (JL_GROUP_*
     * bits; default 0: none), as if the run had none of them: their
     * fields stay NULL, and the rules that need them are not applied
     * (power/ required without summary/, itl/request within requests/).
     * For a program that wants one series of a large run (the Python
     * module's Run.power()); `joules check` reads everything. */
    unsigned skip_groups;
    /* The context whose read log notes the file (joules/context.h; a
     * study's: every file it reads, its digests). Default NULL: the
     * calling thread's current context. */
    jl_context *context;
} jl_trace_options;

/* The groups of a run, for jl_trace_options.skip_groups. */
enum {
    JL_GROUP_POWER = 1 << 0,
    JL_GROUP_GPU = 1 << 1,
    JL_GROUP_ENGINE = 1 << 2,
    JL_GROUP_REQUESTS = 1 << 3,
    JL_GROUP_ITL = 1 << 4,
    JL_GROUP_BATCHES = 1 << 5,
    JL_GROUP_HOST = 1 << 6,
    JL_GROUP_ALL = (1 << 7) - 1
};

/* The study loader's jl_trace_options.stream_itl: 2^20 samples (8 MiB of
 * itl/ read whole at most; longer runs stream). */
#define JL_STREAM_ITL_MIN_SAMPLES (1 << 20)

void jl_trace_options_default(jl_trace_options *opt);

/* The default of jl_trace_options.allow_external_storage in the current
 * context (jl_context_set_allow_external_storage, joules/context.h): what
 * jl_trace_options_default() sets and what a NULL options gives (0 until a
 * program that trusts its files says 1; the CLI's
 * --allow-external-storage, on the default context). */
void jl_trace_default_allow_external_storage(int allow);

/* Open a trace file and list its runs. opt may be NULL (defaults). */
jl_status jl_trace_open(const char *path, const jl_trace_options *opt, jl_trace **out,
                        jl_error **err);

/* Open a trace from a file image in memory (HDF5 core driver), e.g. for
 * fuzzing. `name` is used in messages. The buffer is copied. */
jl_status jl_trace_open_image(const void *buf, size_t len, const char *name,
                              const jl_trace_options *opt, jl_trace **out, jl_error **err);

void jl_trace_close(jl_trace *t);

const char *jl_trace_path(const jl_trace *t);
size_t jl_trace_run_count(const jl_trace *t);
const char *jl_trace_run_name(const jl_trace *t, size_t i);

/* Read and validate run i. */
jl_status jl_trace_read_run(jl_trace *t, size_t i, jl_run **out, jl_error **err);

/* The itl/ samples of run, block by block, in row order, whether in memory
 * or streamed (jl_run.itl_stream): fn(ctx, seconds, request, n, row0) for
 * consecutive blocks covering rows 0..itl_n-1 (request NULL when itl/request
 * is absent). fn returning other than JL_OK stops the walk with that
 * status. A streamed block that cannot be read is an error naming the file,
 * run and dataset. */
typedef jl_status (*jl_itl_block_fn)(void *ctx, const float *seconds, const int32_t *request,
                                     size_t n, size_t row0);
jl_status jl_run_itl_blocks(const jl_run *run, jl_itl_block_fn fn, void *ctx, jl_error **err);

/* The values of a streamed itl/ (jl_trace_options.stream_itl) are checked
 * by its first whole walk: fn is handed checked blocks only, and a bad
 * value (a latency not finite or negative; a request index that names no
 * row of requests/) ends that walk with the reader's error, a bad latency
 * before a bad index. This checks it if no walk has yet (then walks it
 * once) and returns that error again if one was found; JL_OK at once for
 * an itl/ in memory (checked by jl_trace_read_run()) or absent. */
jl_status jl_run_itl_check(const jl_run *run, jl_error **err);

/* What `joules inspect` shows about one dataset. */
typedef struct jl_dataset_info {
    char *path; /* object path */
    char *type; /* "float32", "float64", "int32", "int64", ... */
    int rank;
    uint64_t dims[2];
    int chunked;
    uint64_t chunk[2];
    char *filters; /* "shuffle+deflate(4)", "zstd(5)", "" */
    uint64_t storage_bytes;
} jl_dataset_info;

typedef struct jl_run_info {
    char *name;
    jl_dataset_info *datasets;
    size_t n_datasets;
} jl_run_info;

/* Describe every dataset of run i without reading its data. */
jl_status jl_trace_describe_run(jl_trace *t, size_t i, jl_run_info *out, jl_error **err);
void jl_run_info_clear(jl_run_info *info);

#ifdef JOULES_EXPERIMENTAL
/* The joules.inspect/1 document that `joules inspect --json` prints
 * (docs/cli.md): {"schema", "files": [one per file opened: {"file",
 * "harness", "created_utc", "provenance" (each when the root has it; the
 * provenance parsed as JSON, or as text when it is not JSON), "runs":
 * [{"run", "datasets" (jl_trace_describe_run), "attributes", "series"
 * (with "host": samples, span, rate, "sockets", "counters", "node_watts",
 * "source", "max_energy_range_j" when the run has host/), "valid",
 * "problem" (when not valid)}]}], "errors"}. Opens each of files[0..n_files)
 * with default options, describes and reads every run; each problem (a file
 * that does not open, a run that does not read) is pushed onto *errors with
 * its file and run, and "errors" is the whole list. *n_ok counts the files
 * whose runs all read, *n_bad the others. */
json_t *jl_inspect_document(const char *const *files, size_t n_files, jl_error_list *errors,
                            size_t *n_ok, size_t *n_bad);
#endif /* JOULES_EXPERIMENTAL */
/* jl_inspect_document's text, without jansson: the bytes jl_json_dump writes for
 * that tree (no provenance block); *len (may be NULL) its length; caller
 * frees. NULL on out of memory. */
char *jl_inspect_document_text(const char *const *files, size_t n_files, jl_error_list *errors,
                               size_t *n_ok, size_t *n_bad, size_t *len);

/* Root attributes (NULL when absent). */
const char *jl_trace_harness(const jl_trace *t);
const char *jl_trace_created_utc(const jl_trace *t);
/* The root's @provenance: what made the file, as JSON text (a
 * joules.provenance/1 block that `joules import` writes: its sources'
 * paths, sizes and SHA-256, the command; docs/accounting.md). NULL when
 * absent. */
const char *jl_trace_provenance(const jl_trace *t);

/* Register the Zstandard filter with HDF5 (idempotent, thread-safe enough for
 * a call before any worker starts). Called by jl_trace_open(). */
jl_status jl_zstd_filter_register(void);

JL_API_END
#ifdef __cplusplus
}
#endif
#endif
