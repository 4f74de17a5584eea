/* joules/trace_write.h — writing trace files (format v1).
 *
 * Writes jl_run objects (attributes, every group present in the run,
 * summary/ attributes and extras) to a new HDF5 file. Users: test fixtures,
 * the ML.ENERGY importer (summary-only runs), the benchmark generator.
 *
 * The file is written under a temporary name in the destination folder
 * and renamed into place by jl_trace_writer_commit(): a failed or aborted
 * write leaves no partial file behind (and an existing file at the path is
 * replaced only on success).
 *
 * The writer does not validate runs against the spec's MUSTs (tests use it
 * to build malformed traces); it only refuses arrays whose sizes it cannot
 * write. Absent data (NULL arrays, NaN / -1 / NULL attributes) is omitted.
 *
 * Ownership: jl_trace_writer is owned by the caller; jl_trace_writer_commit()
 * and jl_trace_writer_abort() both release it (abort accepts NULL). Runs are
 * borrowed: the writer copies what it needs.
 */
#ifndef JOULES_TRACE_WRITE_H
#define JOULES_TRACE_WRITE_H

#include <stddef.h>

#include "joules/error.h"
#include "joules/trace.h"

#ifdef __cplusplus
extern "C" {
#endif
JL_API_BEGIN
/* ---- stable (docs/library.md, "Stable and experimental") ---- */

typedef enum {
    JL_LAYOUT_CONTIGUOUS, /* datasets stored in one piece, no filters */
    JL_LAYOUT_CHUNKED     /* chunks of chunk_rows rows */
} jl_trace_layout;

typedef enum {
    JL_COMPRESS_NONE,
    JL_COMPRESS_DEFLATE, /* gzip, level 0..9 */
    JL_COMPRESS_ZSTD     /* Zstandard, filter id 32015, level 1..22 */
} jl_trace_compression;

typedef struct jl_trace_write_options {
    jl_trace_layout layout;           /* default chunked */
    size_t chunk_rows;                /* default 65536 */
    jl_trace_compression compression; /* default deflate; needs chunked */
    int level;                        /* -1 = the method's default (deflate 4, zstd 3) */
    int shuffle;                      /* byte shuffle before compressing; default 1 */
    int watts_float32;                /* watts, watts_avg as float32 (default 1) or float64 */
    /* jl_trace_write() only: summary-only runs as one table, /summary_table
     * (1, the default; docs/trace-format.md), or each as a group under /runs
     * (0: files for readers that predate the table). */
    int summary_table;
    const char *harness;     /* @harness; NULL = "joules <version>" */
    const char *created_utc; /* @created_utc; NULL = now */
    /* @provenance: what made the file, as JSON text (a joules.provenance/1
     * block: the sources' paths and SHA-256, the command; docs/accounting.md);
     * NULL = none */
    const char *provenance;
    /* 1: the file is put at its path only if none is there by then, the
     * check and the move one step (RENAME_NOREPLACE): a writer that found
     * the path free (import -o without --force) never replaces a file
     * another made meanwhile; the commit fails instead (output side).
     * Default 0: an existing file is replaced. */
    int no_replace;
    /* 1: runs written piece by piece (jl_trace_stream_*) are checked as
     * they are written, against the rules the reader applies
     * (docs/trace-format.md): each append against its dataset's rule
     * (times finite and non-decreasing across appends, power finite and
     * >= 0, counts >= 0, cumulative counts never decreasing, KV use in
     * 0..1, latencies finite and >= 0, request times never infinite,
     * batches ending no earlier than they start), whole numbers where the
     * dataset holds integers, the columns of a group appended together
     * (jl_trace_stream_append_group); spans against jl_spans_check; and at
     * jl_trace_stream_end the run's attributes (jl_attrs_check), each
     * group's required datasets, one length per group, widths of
     * num_gpus (or of the sockets), itl/request within requests/, power/
     * present. The first problem fails the call naming the dataset and
     * row, before any of its rows are kept (an append) or the run is
     * written (the end: the run is then removed). Default 0 (importers
     * check their inputs themselves; tests write malformed traces). */
    int validate;
} jl_trace_write_options;

void jl_trace_write_options_default(jl_trace_write_options *opt);

typedef struct jl_trace_writer jl_trace_writer;

/* Start writing `path` (created in the same folder under a temporary name).
 * opt may be NULL (defaults). */
jl_status jl_trace_writer_open(const char *path, const jl_trace_write_options *opt,
                               jl_trace_writer **out, jl_error **err);

/* Write one run as /runs/<run->name>. Names must be unique and non-empty
 * and contain no '/'. */
jl_status jl_trace_writer_add_run(jl_trace_writer *w, const jl_run *run, jl_error **err);

/* ---- a run written piece by piece ------------------------------------------
 * For importers whose input is larger than memory: the time series of one
 * run are appended a few rows at a time and written a chunk at a time, so
 * memory is bounded by chunk_rows, not by the run. Several runs may be open
 * at once. Datasets are chunked and extendible, with the writer's filters;
 * watts and watts_avg are stored as float32 when watts_float32 is set. */
typedef struct jl_trace_stream jl_trace_stream;

/* Create /runs/<name> (unique, no '/'). */
jl_status jl_trace_writer_begin_run(jl_trace_writer *w, const char *name, jl_trace_stream **out,
                                    jl_error **err);

/* Append n rows of g values (g = 1 for a 1-D dataset such as time) to
 * GROUP/NAME, created on first use; every append to one dataset must give
 * the same g. A dataset of the format is stored in the format's type
 * (engine/running int32, engine/tokens_generated int64, itl/seconds
 * float32, ...; watts as watts_float32 says; any other float64): values
 * for an integer dataset must be whole numbers in its range (JL_ETYPE). */
jl_status jl_trace_stream_append(jl_trace_stream *s, const char *group, const char *name, size_t g,
                                 const double *rows, size_t n, jl_error **err);

/* Append n rows to n_cols datasets of GROUP at once: names[k], widths[k]
 * values a row, cols[k] (n x widths[k] values). A checked writer
 * (validate) checks them all, and that the group's datasets grow
 * together, before it keeps any. */
jl_status jl_trace_stream_append_group(jl_trace_stream *s, const char *group, size_t n_cols,
                                       const char *const *names, const size_t *widths,
                                       const double *const *cols, size_t n, jl_error **err);

/* Write spans/ (joules/attribute.h) into the run, now (a checked writer
 * checks them first, jl_spans_check); spans stay the caller's. */
struct jl_spans;
jl_status jl_trace_stream_set_spans(jl_trace_stream *s, const struct jl_spans *spans,
                                    jl_error **err);

/* Rows appended so far to GROUP/NAME (0 when none). */
size_t jl_trace_stream_rows(const jl_trace_stream *s, const char *group, const char *name);

/* Remove GROUP/NAME (e.g. a series that turned out to hold a value the
 * format does not allow); no-op when it does not exist. */
jl_status jl_trace_stream_drop(jl_trace_stream *s, const char *group, const char *name,
                               jl_error **err);

/* Flush and close the streamed datasets, then write `run`'s attributes and
 * every array it holds (its streamed groups left NULL); releases s. */
jl_status jl_trace_stream_end(jl_trace_stream *s, const jl_run *run, jl_error **err);

/* Remove the run from the file and release s (NULL accepted). */
void jl_trace_stream_abort(jl_trace_stream *s);

/* The root's @provenance, set once the sources are read (an importer that
 * writes as it reads knows its inputs only at the end); text NULL: none. A
 * writer opened with options.provenance must not be given another. */
jl_status jl_trace_writer_set_provenance(jl_trace_writer *w, const char *text, jl_error **err);

/* Close the file and rename it into place; releases w in every case. */
jl_status jl_trace_writer_commit(jl_trace_writer *w, jl_error **err);

/* Discard everything written so far (the temporary file is removed). */
void jl_trace_writer_abort(jl_trace_writer *w);

/* All in one: write n runs to path. With opt->summary_table (the default)
 * the summary-only runs go into /summary_table, one column per attribute
 * (a run with an attribute its column cannot hold, e.g. a string where
 * other runs have numbers, stays a group); every other run is a group. */
jl_status jl_trace_write(const char *path, const jl_run *const *runs, size_t n,
                         const jl_trace_write_options *opt, jl_error **err);

JL_API_END
#ifdef __cplusplus
}
#endif
#endif
