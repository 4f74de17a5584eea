/* The Python module's C extension, joules._joules (docs/python.md): what
 * its files share. The extension calls the library through its public
 * headers only, like the CLI; the package around it (src/python/joules/)
 * turns what it returns into pandas DataFrames.
 *
 *  module.c  the module: errors as exceptions, the library lock, JSON
 *            documents as Python objects, the figure table, provenance
 *  study.c   Study: paths loaded once (jl_study_open), the summaries as
 *            typed columns, and every analysis's document
 *  trace.c   TraceFile and RunData: one trace read in this process after
 *            an isolated check, its series as NumPy arrays without a copy
 *  writer.c  Writer: a trace written run by run, in pieces, checked as it
 *            is written; import_ (the importer table)
 */
#ifndef JOULES_PYTHON_PYJOULES_H
#define JOULES_PYTHON_PYJOULES_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL pyj_ARRAY_API
#ifndef PYJ_IMPORT_ARRAY
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include <jansson.h>

#include "joules/account.h"
#include "joules/attribution.h"
#include "joules/attrs.h"
#include "joules/budget.h"
#include "joules/carbon.h"
#include "joules/check.h"
#include "joules/choice.h"
#include "joules/descriptors.h"
#include "joules/diagnose.h"
#include "joules/error.h"
#include "joules/frontier.h"
#include "joules/import.h"
#include "joules/model.h"
#include "joules/output.h"
#include "joules/provenance.h"
#include "joules/slo.h"
#include "joules/spans.h"
#include "joules/study.h"
#include "joules/summary.h"
#include "joules/trace.h"
#include "joules/trace_write.h"
#include "joules/validity.h"
#include "joules/version.h"

/* ---- the library lock (module.c) -------------------------------------------
 * Library work runs with the GIL released and under one lock, so other
 * Python threads go on while joules works, and two joules calls from two
 * threads take turns (the library keeps per-process state: the provenance
 * hook, HDF5's own lock, worker processes). PYJ_CALL(statement) runs the
 * statement so; it must not touch a Python object. */
void pyj_lock(void);
void pyj_unlock(void);
#define PYJ_CALL(stmt)                     \
    do {                                   \
        Py_BEGIN_ALLOW_THREADS pyj_lock(); \
        stmt;                              \
        pyj_unlock();                      \
        Py_END_ALLOW_THREADS               \
    } while (0)

/* ---- errors (module.c) ------------------------------------------------------ */

/* Raise the exception of st (its joules.Error subclass) from err, which it
 * frees (may be NULL: the status's own message). Returns NULL. */
PyObject *pyj_raise(jl_status st, jl_error *err);
/* A usage error (joules.UsageError, a ValueError too) with a message. */
PyObject *pyj_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The first error of a list when the whole call failed (NULL when empty). */
const jl_error *pyj_last_error(const jl_error_list *l);
/* Raise as pyj_raise from a copy of e (the list keeps it). */
PyObject *pyj_raise_copy(jl_status st, const jl_error *e);

/* ---- documents (module.c) --------------------------------------------------- */

/* A JSON value as a Python object: objects as dicts with sorted keys,
 * arrays as lists, integers as int, reals as float, null as None. NULL
 * with a Python error set when memory ran out. */
PyObject *pyj_from_json(const json_t *v);
/* pyj_from_json(doc) and json_decref(doc); NULL doc: MemoryError. */
PyObject *pyj_document(json_t *doc);
/* [{"file", "run", "object", "row", "code", "message"}] (jl_errors_to_json). */
PyObject *pyj_errors(const jl_error_list *l);

/* ---- provenance (module.c) -------------------------------------------------- */

/* A provenance block (joules/provenance.h) of a document made by the call
 * the CLI command argv names (a list of str: "joules", the command, its
 * arguments: the command `joules verify` re-runs), inputs (a list of
 * paths hashed), the study's rules and summary options (may be NULL)
 * and names. ctx (may be NULL: the current context) is the study's
 * context (joules/context.h): its read log's files are inputs too, after
 * the given ones, and its digests spare hashing them again. NULL with a
 * Python error set. */
json_t *pyj_provenance(PyObject *argv, PyObject *inputs, const jl_ruleset *rules,
                       const jl_summary_options *so, jl_names names, jl_context *ctx);

/* ---- helpers (module.c) ----------------------------------------------------- */

/* A list of str (or None: empty) as a NULL-terminated array of UTF-8
 * strings owned by the list's objects (valid while it lives); *n its
 * length. NULL with a Python error set (a non-str item: TypeError). The
 * array is PyMem_Free'd by the caller. */
const char **pyj_strings(PyObject *list, size_t *n, const char *what);
/* A path-like (str, bytes or os.PathLike) as a new bytes object. */
PyObject *pyj_fspath(PyObject *o);

/* ---- types ------------------------------------------------------------------ */

extern PyTypeObject pyj_StudyType, pyj_TraceFileType, pyj_RunDataType, pyj_WriterType;
int pyj_study_init_type(PyObject *m);
int pyj_trace_init_type(PyObject *m);
int pyj_writer_init_type(PyObject *m);
/* module-level functions of writer.c and trace.c */
PyObject *pyj_import(PyObject *self, PyObject *args, PyObject *kw);
PyObject *pyj_attribute(PyObject *self, PyObject *args, PyObject *kw);

#endif
