/* Internal helpers of the trace subsystem (reader, writer, zstd filter,
 * summary table). Not part of the public API. */
#ifndef JOULES_TRACE_INTERNAL_H
#define JOULES_TRACE_INTERNAL_H

#include <hdf5.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "core/attrs_internal.h"
#include "joules/error.h"
#include "joules/trace.h"

/* HDF5 registered filter id of Zstandard. */
#define JL__ZSTD_FILTER_ID 32015

/* Silence HDF5's automatic error printing (idempotent) and register the
 * Zstandard filter. Called before any HDF5 use by the reader and writer. */
jl_status jl__h5_init(void);
/* A small fixed metadata cache on a file access list (trace_read.c). */
herr_t jl__h5_small_cache(hid_t fapl);
/* From now on, jl_trace_open maps the files it would read whole (those of
 * at most 16 MiB) instead of copying them into memory (trace_read.c). Only
 * for a study's worker processes (study/load.c): a file truncated while
 * mapped raises SIGBUS, which there is an error for that file. */
void jl__trace_map_files(void);

/* Close a file being written (the writer's temporary, a copy changed for
 * --into). keep: flushed first, where a full disk fails, then closed.
 * Without keep (an abort) the file's descriptor is first pointed at a
 * scratch memory file, so what HDF5 still writes while closing goes nowhere
 * and cannot fail. HDF5 1.10 can neither close a file whose flush failed
 * nor survive its exit handler once a close has failed (it frees the file
 * and keeps it in its table: SIGSEGV at exit, issue 35); when either
 * happens the file is left open and the process, when it exits, skips
 * HDF5's exit handler (on_exit: stdio flushed, the same status). 0 when
 * closed; -1 when a flush or close failed (the HDF5 stack left for the
 * caller's message, *err_no the errno of the failed write, 0 when unknown).
 * The caller removes a file it did not keep. */
int jl__h5_close_written(hid_t file, int keep, int *err_no);

/* After H5Fcreate failed with errno err_no: a failed write (a full disk,
 * an I/O error) makes the process leave without HDF5's exit handler, as
 * jl__h5_close_written does after a failed close. */
void jl__h5_create_failed(int err_no);

/* Build an error describing the current HDF5 error stack (walked with
 * H5Ewalk2, outermost call first), then clear the stack. NULL when the
 * stack is empty or memory is exhausted. */
jl_error *jl__h5_stack_error(void);

/* Set *err (first error wins) with the HDF5 stack as its cause; returns
 * code. */
jl_status jl__h5_fail(jl_error **err, jl_status code, const char *file, const char *run,
                      const char *object, long long row, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 7, 8)))
#endif
    ;

/* The decoded size of one chunk of the dataset the calling thread is about
 * to read, so the Zstandard filter can refuse frames that claim more (0 =
 * unknown: the filter falls back to the size stored in its client values
 * by set_local, then to HDF5's own chunk-size limit). */
void jl__zstd_set_chunk_bytes(size_t bytes);

/* Why the Zstandard filter last failed in this thread ("" if it did not);
 * reset by jl__zstd_set_chunk_bytes(). */
const char *jl__zstd_last_error(void);

/* One chunk compressed as the Zstandard filter does it, byte for byte,
 * with a context kept between calls (zstd_filter.c; the trace writer's
 * direct chunk writes): the frame's size, or 0 (jl__zstd_last_error). */
size_t jl__zstd_compress_chunk(void **cctx, void *dst, size_t cap, const void *src, size_t n,
                               int level);
size_t jl__zstd_bound(size_t n); /* ZSTD_compressBound */
void jl__zstd_free_cctx(void *cctx);

/* Read all rows of the rank-1 or rank-2 (dims[1] columns) dataset dset,
 * creation properties dcpl, file type ftype, into dst as mtype, decoding its chunks (cbytes decoded
 * bytes each) with libdeflate or libzstd instead of HDF5's filter pipeline
 * (chunk_read.c). 1 when done; 0 when the dataset's layout, filters or
 * types are not the ones this path handles or a chunk does not decode, and
 * then the caller must read it with H5Dread(); -1 when a chunk is not
 * stored at all (*missing_row its first row: HDF5 would read fill values,
 * the caller refuses the dataset). */
int jl__read_chunks_direct(hid_t dset, hid_t dcpl, hid_t ftype, hid_t mtype, const hsize_t dims[2],
                           int rank, size_t cbytes, void *dst, size_t *missing_row);

/* The same path one chunk at a time (chunk_read.c): jl__chunks_open() takes
 * the arguments of jl__read_chunks_direct() (without dst) and returns NULL
 * when the path does not apply; jl__chunks_read() decodes the chunk that
 * starts at `row` (a multiple of jl__chunks_rows()) into out_rows (its rows
 * x columns in the memory type), 1 when done, 0 when the chunk does not
 * decode (then read it with H5Dread()). dset stays the caller's. */
typedef struct jl__chunks jl__chunks;
jl__chunks *jl__chunks_open(hid_t dset, hid_t dcpl, hid_t ftype, hid_t mtype, const hsize_t dims[2],
                            int rank, size_t cbytes);
size_t jl__chunks_rows(const jl__chunks *c);
int jl__chunks_read(jl__chunks *c, size_t row, void *out_rows);
void jl__chunks_free(jl__chunks *c);

/* itl/ streamed instead of read whole (column_stream.c; jl_trace_options
 * .stream_itl): the reader checks each column's type, shape, length and
 * chunking as for a read, then hands the open dataset to the run's stream
 * (created on the first column), which decodes it chunk by chunk whenever
 * it is walked. Only columns the chunk path decodes without conversion
 * (float32 seconds, int32 request) are streamed: 1 when kept (dset is the
 * stream's now), 0 when the caller must read the column whole, or -1 when
 * out of memory. col: 0 seconds, 1 request. */
int jl__itl_stream_keep(jl_run *run, int col, const char *obj, hid_t dset, hid_t dcpl, hid_t ftype,
                        size_t rows, size_t cbytes);
/* The reader's itl/ rule on a streamed itl/ is made by the stream's first
 * whole walk (the summary's first pass), not by a walk of its own: the
 * same messages at the same rows, a block handed on only once checked, a
 * chunk the chunk path cannot decode read with both columns whole as the
 * reader did (docs/trace-reading.md, "Streaming itl/"). R: request indices
 * must be below it; has_req: requests/ is there (req_n rows), for the
 * message. */
void jl__itl_stream_defer(jl_run *run, uint32_t R, int has_req, size_t req_n);
/* 1 while a streamed itl/ of run is not checked yet. */
int jl__itl_stream_pending(const jl_run *run);
/* The reader's check of itl/ in memory (one pass over both columns):
 * *bad_lat = the first row whose latency is not finite or negative (its
 * value in *lat), *bad_q = the first row whose request index is >= R (its
 * value in *q); SIZE_MAX when none (the scan stops at a bad latency). */
void jl__itl_scan(const jl_run *run, uint32_t R, size_t *bad_lat, float *lat, size_t *bad_q,
                  int32_t *q);
/* The reader's error for what jl__itl_scan found (nothing: JL_OK): a bad
 * latency is named before a bad index; *err set when not set yet. */
jl_status jl__itl_fail(jl_error **err, const char *file, const char *run, const char *obj_seconds,
                       const char *obj_request, int has_req, size_t req_n, size_t bad_lat,
                       float lat, size_t bad_q, int32_t q);
/* Drop the run's stream (closing its datasets). */
void jl__itl_stream_drop(jl_run *run);

/* Close an open HDF5 id with fn and set it to -1, so single-exit cleanup
 * can close every id unconditionally. */
static inline void jl__h5_close(hid_t *id, herr_t (*fn)(hid_t))
{
    if (*id >= 0)
        fn(*id);
    *id = -1;
}
#define CLOSE(id, fn) jl__h5_close(&(id), fn)

/* The summary/ figures that have a typed field in jl_run_summary_attrs:
 * attribute name and offsetof(jl_run_summary_attrs, field). */
typedef struct {
    const char *name;
    size_t off;
} jl__summary_field;
extern const jl__summary_field jl__summary_fields[];
extern const size_t jl__n_summary_fields;

/* The run attributes with typed fields: jl__attr_fields (core/attrs_internal.h). */

/* The summary table (docs/trace-format.md, "summary_table/"; summary_table.c):
 * summary-only runs of one file stored as columns instead of one group of
 * attributes per run. The reader lists its rows as runs beside /runs and
 * reads a row's cells through the same attribute rules as a group's. */
#define JL__TABLE_NAME "summary_table"
#define JL__TABLE_VERSION 1
enum { JL__TSET_ATTRS, JL__TSET_SUMMARY, JL__TSET_N };
typedef enum {
    JL__CELL_ABSENT,
    JL__CELL_INT,
    JL__CELL_UINT,
    JL__CELL_FLOAT,
    JL__CELL_STR
} jl__cell_kind;
typedef struct {
    jl__cell_kind kind;
    long long i;
    unsigned long long u;
    double d;
    const char *s; /* JL__CELL_STR: s[0..len), not NUL-terminated */
    size_t len;
} jl__cell;
typedef struct jl__table jl__table;

/* Open /summary_table of an open file: *out = NULL (and JL_OK) when the
 * file has none. Every structural problem is an error naming the column.
 * file_bytes, allow_external: what its columns' storage is checked against
 * (jl__check_storage).
 * map: the file's bytes when it is mapped (jl__trace_map_files), else NULL:
 * columns stored as they would be read are then used in place; the table
 * must be freed before the mapping goes. */
jl_status jl__table_open(hid_t file, const char *path, const jl_trace_limits *lim, const void *map,
                         size_t map_len, uint64_t file_bytes, int allow_external, jl__table **out,
                         jl_error **err);
void jl__table_free(jl__table *t);
size_t jl__table_rows(const jl__table *t);
const char *jl__table_run(const jl__table *t, size_t row);
size_t jl__table_cols(const jl__table *t, int set);
/* Column k's field: its index in jl__attr_fields (set attrs) or
 * jl__summary_fields (set summary), their count for an extra; found once
 * when the table is opened, not once per row (jl__attr_field_index,
 * jl__summary_field_index, h5_read.c). */
size_t jl__table_col_field(const jl__table *t, int set, size_t k);
size_t jl__attr_field_index(const char *name);
size_t jl__summary_field_index(const char *name);
const char *jl__table_col_name(const jl__table *t, int set, size_t k);
/* "/summary_table/attrs" or "/summary_table/summary", for messages. */
const char *jl__table_set_path(int set);
void jl__table_cell(const jl__table *t, int set, size_t k, size_t row, jl__cell *out);

/* Write the runs that fit the table (summary-only, every attribute of a
 * type its column can hold) as /summary_table of an open file; in_table[i]
 * = 1 for each run written there (the caller writes the others as groups).
 * Writes nothing when none fits. */
jl_status jl__table_write(hid_t file, const char *path, const jl_run *const *runs, size_t n,
                          unsigned char *in_table, jl_error **err);

/* ------------------------------------------------------------------ */
/* The reader (h5_read.c: the ground every room stands on, the read   */
/* context's one way to fail, links, types; trace_read.c: the open,    */
/* the run list, a run's context; trace_attrs.c: attributes;           */
/* trace_columns.c: datasets, their checks and jl_trace_read_run;      */
/* trace_describe.c: describe, inspect).                               */

struct jl_trace {
    char *path;
    hid_t file;
    jl_trace_limits lim;
    int summary_fields_only; /* jl_trace_options.summary_fields_only */
    int stream_itl;          /* jl_trace_options.stream_itl */
    char **runs;
    size_t n_runs, cap_runs;
    char *harness;
    char *created_utc;
    char *provenance; /* root @provenance (JSON text), NULL when absent */
    hid_t runs_grp;   /* /runs, open while the trace is */
    hid_t vstr[2];    /* variable-length string memory types (ASCII, UTF-8) */
    jl__table *table; /* /summary_table, NULL when the file has none */
    size_t *row_of;   /* per run: its table row, SIZE_MAX for a group; NULL: all groups */
    void *map;        /* the file mapped (jl__trace_map_files), or NULL */
    size_t map_len;
    uint64_t file_bytes; /* the file's size (an image's length) */
    int allow_external;  /* jl_trace_options.allow_external_storage */
};

/* Context of one read: where we are, for messages. */
typedef struct {
    const char *file;
    const char *run; /* NULL at the root */
    const jl_trace_limits *lim;
    jl_error **err;
    hid_t *vstr;         /* the trace's variable-length string types by cset, or NULL */
    long long run_links; /* links in the run group; RUN_LINKS_UNKNOWN when not counted */
    const char *obj;     /* the object messages name; NULL: the file or run itself */
    const char *attr;    /* with obj: its attribute, named "<obj>@<attr>"; or NULL */
    /* what a dataset's storage is checked against (jl__check_storage): the
     * file's size (0: unknown, not checked) and whether data outside the
     * file may be read (jl_trace_options.allow_external_storage) */
    uint64_t file_bytes;
    int allow_external;
} rctx;
#define RUN_LINKS_UNKNOWN (-1LL)

/* c bound to object obj (no attribute), for messages. */
static inline rctx rctx_at(const rctx *c, const char *obj)
{
    rctx a = *c;
    a.obj = obj;
    a.attr = NULL;
    return a;
}

/* The reader's one way to fail: set *c->err (the first error wins) naming
 * c's file, run and object, and the row (-1: none), with cause (owned; NULL:
 * none) as its cause; return code. fmt NULL: the status's own text. */
jl_status jl__rctx_vfail(const rctx *c, jl_status code, long long row, jl_error *cause,
                         const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 0)))
#endif
    ;
/* jl__rctx_vfail at no row and no cause. */
jl_status jl__rctx_fail(const rctx *c, jl_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* jl__rctx_vfail at row `row`. */
jl_status jl__rctx_fail_row(const rctx *c, jl_status code, long long row, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* jl__rctx_vfail with cause (owned) and no row. */
jl_status jl__rctx_fail_cause(const rctx *c, jl_status code, jl_error *cause, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* jl__rctx_vfail with HDF5's error stack as the cause (taken, and so cleared,
 * even when an error was already set). */
jl_status jl__rctx_h5_fail(const rctx *c, jl_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* After a failed H5Dread of the dataset at->obj (chunk_read.c): the error,
 * JL_EFORMAT "cannot read the data (corrupt compressed chunk)" when a chunk
 * did not decode, JL_EIO otherwise; ends the Zstandard chunk-size hint. */
jl_status jl__read_failed(const rctx *at);

/* The context of run i of t, its errors going to err, or to *local (NULL
 * on entry) when err is NULL; JL_EUSAGE when t has no run i. */
jl_status jl__run_ctx(jl_trace *t, size_t i, jl_error **err, jl_error **local, rctx *c);

/* A dataset holds its own data, and no more of it than its file can
 * (h5_read.c; docs/security.md, "Traces hold their own data"), checked from
 * its creation properties dcpl before anything is allocated for it:
 *  - virtual datasets and external raw storage (bytes in other files) are
 *    refused unless c->allow_external;
 *  - the values it declares (dims[0..rank) of fsize bytes) must fit in the
 *    file: raw (unfiltered) data in as many bytes, data through filters in
 *    bytes / the filters' largest compression ratio, each chunk in a byte;
 *    contiguous data must lie inside the file and have been written; a
 *    chunked dataset that alone declares more than 64 times the file's
 *    bytes must have its last chunk stored (a dataset whose extent was set
 *    beyond what was written reads as fill values, never as data; the
 *    chunk reader refuses a missing chunk of the others).
 * JL_OK or the error (JL_EFORMAT; JL_ELIMIT for sizes) naming c's object. */
typedef struct {
    H5D_layout_t layout;
    int crank; /* the chunk's rank (0: not chunked, or unknown) */
    hsize_t chunk[H5S_MAX_RANK];
    int nf; /* filters in the pipeline; their ids (the first 8) */
    H5Z_filter_t filter[8];
} jl__storage;
/* out (NULL: not wanted): what was read of dcpl, for the caller's own
 * checks (the chunk size, the filters), so nothing is asked twice. */
jl_status jl__check_storage(const rctx *c, hid_t dset, hid_t dcpl, const hsize_t *dims, int rank,
                            size_t fsize, jl__storage *out);

/* "integer", "float", ...: the name of an HDF5 type class. */
const char *jl__class_name(H5T_class_t c);
/* "float32", "int64", "string", ... into buf. */
void jl__type_name(hid_t t, char *buf, size_t cap);
/* *present = 1 when a hard link named `name` exists in grp, 0 when absent. */
jl_status jl__child_exists(rctx *c, hid_t grp, const char *obj, const char *name, int *present);
/* Open child `name` of grp expecting an object of type `want` (H5I_GROUP or
 * H5I_DATASET). *id = -1 and returns JL_OK when absent. */
jl_status jl__open_child(rctx *c, hid_t grp, const char *obj, const char *name, H5I_type_t want,
                         hid_t *id);
/* jl__open_child for a child known to be there as a hard link. */
jl_status jl__open_present(rctx *c, hid_t grp, const char *obj, const char *name, H5I_type_t want,
                           hid_t *id);
/* The error for child obj that is a soft or external link. */
jl_status jl__not_hard(rctx *c, const char *obj);

/* Attributes (trace_attrs.c). */
typedef enum { AV_NONE, AV_STRING, AV_INT, AV_FLOAT, AV_ARRAY, AV_OTHER } av_kind;
typedef enum { AN_FLOAT, AN_INT, AN_UINT } av_num;

/* One attribute's value. Strings, arrays and other types carry their text
 * from the read; a scalar number gets its text (and the type's name) only
 * when something asks for it: a message or an extra attribute. */
typedef struct {
    av_kind kind;
    char *text; /* heap; NULL for a scalar number until jl__av_str() */
    long long i;
    double d;
    unsigned long long u;
    av_num num;  /* how a scalar number was stored, for its text */
    hid_t ftype; /* the file type, for jl__av_tname(); -1 when none */
    char tname[32];
} attr_val;

void jl__attr_val_init(attr_val *v);
void jl__attr_val_clear(attr_val *v);
/* "float64", "string", ...: the name of the attribute's file type. */
const char *jl__av_tname(attr_val *v);
/* The value as text ("" when out of memory while formatting a number). */
const char *jl__av_str(attr_val *v);
/* "a string", "an integer", ...: the kind of value, for messages. */
const char *jl__kind_word(const attr_val *v);
/* Read attribute `name` of obj (object path `opath`, for messages) into v. */
jl_status jl__read_attr(rctx *c, hid_t obj, const char *opath, const char *name, attr_val *v);
/* A run group's attributes into a, then the spec's rules on them. */
jl_status jl__read_run_attrs(rctx *c, hid_t grp, const char *opath, jl_attrs *a);
/* Every figure "missing" (NaN), no extra. */
void jl__summary_init(jl_run_summary_attrs *s);
/* summary/ of a run (group grp at opath) into s. */
jl_status jl__read_summary(rctx *c, hid_t grp, const char *opath, jl_run_summary_attrs *s);
/* Run `row` of the summary table: each cell goes through the rules of the
 * attribute it stands for (attributes, then summary/), as a group's would. */
jl_status jl__read_table_run(const jl__table *tb, size_t row, rctx *c, jl_run *r);

/* host/ (host_read.c): @source of the group (grp at gpath) and
 * @max_energy_range_j of each counter read into r, whose host/ datasets
 * are read; a counter outside 0..its wrap value is an error naming the row
 * and socket. */
jl_status jl__read_host_attrs(rctx *c, hid_t grp, const char *gpath, jl_run *r);
/* power/'s @watts_kind (host_read.c): "instant" or "average_1s", anything
 * else refused, naming the group. */
jl_status jl__read_power_attrs(rctx *c, hid_t grp, const char *gpath, jl_run *r);

/* Append a copy of name to the list names[0..*n) (capacity *cap, grown by
 * doubling); -1 when out of memory (the list unchanged). */
int jl__names_push(char ***names, size_t *n, size_t *cap, const char *name);

/* Shortest text that reads back as the same double (for messages). */
void jl__fmt_double(char *buf, size_t cap, double v);

#endif
