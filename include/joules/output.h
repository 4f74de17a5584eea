/* joules/output.h — machine-readable documents and files written whole.
 *
 * JSON documents are jansson objects (jansson is a public dependency of the
 * library for that reason). The output kit knows no analysis: the run
 * object and the summaries' CSV are the summary's (joules/summary.h).
 *
 * Every file joules writes goes to a temporary name in the same folder and is
 * renamed into place only when complete, so an interrupted or failed write
 * never leaves a half-written file behind.
 */
#ifndef JOULES_OUTPUT_H
#define JOULES_OUTPUT_H

#ifdef JOULES_EXPERIMENTAL
#include <jansson.h>
#endif
#include <stdio.h>
#include <sys/types.h>

#include "joules/context.h"
#include "joules/error.h"
#include "joules/json.h"

#ifdef __cplusplus
extern "C" {
#endif
JL_API_BEGIN
/* ---- stable (docs/library.md, "Stable and experimental") ---- */

/* The JSON text itself (jl_json_dump, jl_json_dumps, jl_json_number,
 * jl_errors_to_json) is joules/json.h's, included here. */

#ifdef JOULES_EXPERIMENTAL
/* Write a whole document to path atomically ("-" = stdout). */
jl_status jl_write_json(const char *path, const json_t *doc, jl_error **err);
#endif /* JOULES_EXPERIMENTAL */

/* Atomic files: open a temporary beside `path`, write, then commit (fsync +
 * rename) or abort (unlink). A jl_atomic_file that is neither committed nor
 * aborted is removed by jl_atomic_abort. */
typedef struct jl_atomic_file {
    char *path;
    char *tmp_path;
    FILE *fp;
} jl_atomic_file;

jl_status jl_atomic_open(jl_atomic_file *af, const char *path, jl_error **err);
/* From now on, a commit to path (jl_atomic_commit, jl_write_text, ...) puts
 * the file there only if none exists by then, in one step with the move
 * (jl__rename_noreplace): an output the caller checked to be absent (a
 * --csv FILE without --force) is never replaced by a file another writer
 * made meanwhile; the commit then fails (output side) saying so. 0, or -1
 * when the list (16 paths) is full. */
int jl_atomic_keep_existing(const char *path);
/* Forget every path jl_atomic_keep_existing named (the list is the
 * process's: a long-lived program clears it before its next command). */
void jl_atomic_keep_existing_clear(void);
jl_status jl_atomic_commit(jl_atomic_file *af, jl_error **err);
void jl_atomic_abort(jl_atomic_file *af);
/* Write text produced by fn to path atomically, or to stdout when path is
 * "-". fn returns non-zero (or leaves the stream in error) on failure; the
 * error then names the path (or <stdout>) and the reason. Every CSV and JSON
 * writer goes through this one function. */
jl_status jl_write_text(const char *path, int (*fn)(FILE *f, const void *ctx), const void *ctx,
                        jl_error **err);

/* Write a buffer to path atomically. */
jl_status jl_write_file_atomic(const char *path, const void *data, size_t len, jl_error **err);

/* Unlink every temporary file still being written: for a signal handler
 * (async-signal-safe), so an interrupted command leaves nothing partial. */
void jl_atomic_cleanup_signal(void);

/* Directories written whole (a report): jl_atomic_dir_open() creates a
 * temporary directory beside `target` ("TARGET.tmp.PID.XXXXXX") and
 * registers it, so jl_atomic_cleanup_signal() removes it, recursively, if
 * the process is interrupted; write into it (each file still atomically),
 * then jl_atomic_dir_commit() renames it into place — refusing (JL_EUSAGE)
 * when target exists unless replace, in which case the old directory is
 * swapped out and removed — or jl_atomic_dir_abort() removes it. */
jl_status jl_atomic_dir_open(const char *target, char **tmp_out, jl_error **err);
jl_status jl_atomic_dir_commit(const char *tmp, const char *target, int replace, jl_error **err);
void jl_atomic_dir_abort(const char *tmp);

/* The registration hook itself, for other temporaries that must not outlive
 * an interrupted command: a directory (removed recursively) and a child
 * process writing into one (killed and reaped before the removal).
 * register_dir returns 0, or -1 when the registry is full. At most
 * JL_ATOMIC_MAX_CHILDREN children are tracked at once (a command keeps its
 * live children under it: the report's gnuplot workers). */
#define JL_ATOMIC_MAX_CHILDREN 64
int jl_atomic_register_dir(const char *path);
void jl_atomic_unregister_dir(const char *path);
/* A temporary file (the trace writer's, an --into copy): unlinked by
 * jl_atomic_cleanup_signal() until unregistered. 0, or -1 when full. */
int jl_atomic_register_file(const char *path);
void jl_atomic_unregister_file(const char *path);
void jl_atomic_register_child(pid_t pid);
void jl_atomic_unregister_child(pid_t pid);

/* Remove a file or a directory tree (not for signal handlers). */
jl_status jl_remove_tree(const char *path, jl_error **err);

/* Names of keys and columns: joules' own (default), or the ML.ENERGY data
 * toolkit's (`--names mlenergy`: energy_per_token_joules, median_itl_ms,
 * max_num_seqs / batch_size, weight_precision, model_id, ...; docs/cli.md
 * lists them), with values converted to its units (ms, billions). */
typedef enum { JL_NAMES_JOULES = 0, JL_NAMES_MLENERGY = 1 } jl_names;

/* "joules" or "mlenergy"; -1 otherwise. */
int jl_names_parse(const char *s);
/* The toolkit's name of a joules key and the factor from joules' unit to
 * its unit (*scale, may be NULL); NULL when the toolkit has no other name
 * (the key stays). diffusion: the run is a diffusion run (max_batch_size is
 * batch_size there, max_num_seqs otherwise). */
const char *jl_mlenergy_name(const char *key, int diffusion, double *scale);
/* The other way: the joules key of a toolkit name ("median_itl_ms" ->
 * "median_itl_s") and the factor from the toolkit's unit to joules' (*scale,
 * 1e-3 there; may be NULL); NULL when the name is not one of the toolkit's. */
const char *jl_mlenergy_key(const char *name, double *scale);
#ifdef JOULES_EXPERIMENTAL
/* Rename, in place and recursively, every key of doc the toolkit names
 * otherwise, converting the values; extra_attributes are lifted beside the
 * other keys (where no key has their name). */
void jl_json_rename_mlenergy(json_t *doc);
#endif /* JOULES_EXPERIMENTAL */

/* Any joules CSV (text in[0..len), header first) with its columns named
 * as the toolkit names them, a key after a prefix too (baseline_, side_:
 * baseline_energy_per_token_joules), and the values of those columns
 * converted (ms, billions, at %.17g); max_batch_size stays (the toolkit's
 * name depends on each row's workload). Read with the core's CSV reader and
 * written back with the one CSV writer. NULL out of memory or when in is
 * not CSV (a quote left open); caller frees. */
char *jl_csv_rename_mlenergy(const char *in, size_t len, size_t *out_len);

/* CSV quoting of one field (RFC 4180: quoted when it holds a comma, a
 * quote, CR or LF, or starts or ends with a space or tab; NULL writes
 * nothing). Every CSV joules writes goes through the one row writer this
 * quoting belongs to (docs/architecture.md, "Conventions"). */
void jl_csv_field(FILE *f, const char *s);
/* One CSV row of n text cells (each quoted as jl_csv_field, NULL an empty
 * cell) and its newline. */
void jl_csv_row(FILE *f, size_t n, const char *const *cells);

#ifdef JOULES_EXPERIMENTAL
/* The document writers' hook (src/output/provenance_hook.c): when set,
 * every joules.*\/N document written by jl_write_json or the document
 * writers of the library carries "provenance" = fn(ctx) (the writer keeps no reference; fn may return
 * NULL, then no block). One per context: this sets the current context's
 * (jl_context_set_provenance, joules/context.h); NULL unsets it. The CLI
 * sets the default context's once per command. */
void jl_output_set_provenance(jl_provenance_fn fn, void *ctx);
/* The block the hook gives now (NULL: none). */
const json_t *jl_output_provenance(void);
#endif /* JOULES_EXPERIMENTAL */

/* A CSV of the library as typed columns instead of text (the Python
 * module's DataFrames, src/python/): the same columns, names and cells the
 * CSV writer writes (e.g. jl_summaries_table, summary.h). A column is
 * JL_TABLE_INTEGER when every cell is a whole number written as one (an
 * integer attribute: num_gpus, max_batch_size) and none is empty,
 * JL_TABLE_NUMBER when every cell that is not empty is a number (empty:
 * NaN), JL_TABLE_TEXT otherwise (empty: NULL; number cells as the CSV
 * writes them). */
typedef enum { JL_TABLE_NUMBER = 0, JL_TABLE_INTEGER = 1, JL_TABLE_TEXT = 2 } jl_table_kind;

typedef struct jl_table_column {
    char *name;
    jl_table_kind kind;
    double *num; /* [n_rows]: NUMBER and INTEGER columns (NaN where empty); else NULL */
    char **text; /* [n_rows]: TEXT columns (NULL where empty); else NULL */
} jl_table_column;

typedef struct jl_table {
    size_t n_cols, n_rows;
    jl_table_column *cols;
    struct jl__tbl_rows *rows_; /* the cells while the table is built (internal) */
} jl_table;

void jl_table_free(jl_table *t);

JL_API_END
#ifdef __cplusplus
}
#endif
#endif
