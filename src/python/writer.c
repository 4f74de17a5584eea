/* Writer: a trace written run by run and in pieces, through the trace
 * writer's streamed runs with its checks on (jl_trace_write_options
 * .validate: each piece against the format's rules as it is appended, the
 * run as a whole when it ends), so memory is bounded by the chunk size,
 * not by the run. import_: an importer of the library's table, written as
 * `joules import` writes it (src/cli/cmd_import.c). */
#include "pyjoules.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    PyObject_HEAD jl_trace_writer *w;
    jl_trace_stream *s; /* the run being written, or NULL */
    jl_run *run;        /* its attributes (and summary/), written at its end */
    char *harness;
    char *path;
} WriterObject;

static void writer_dealloc(WriterObject *o)
{
    PYJ_CALL({
        jl_trace_stream_abort(o->s);
        jl_trace_writer_abort(o->w);
    });
    jl_run_free(o->run);
    free(o->harness);
    free(o->path);
    Py_TYPE(o)->tp_free((PyObject *)o);
}

static int writer_init(WriterObject *o, PyObject *args, PyObject *kw)
{
    static char *kwl[] = {"path", "compression", "level", "chunk_rows", "harness", NULL};
    PyObject *pathobj;
    const char *comp = "deflate", *harness = NULL;
    int level = -1;
    Py_ssize_t chunk = 65536;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|sinz", kwl, PyUnicode_FSConverter, &pathobj,
                                     &comp, &level, &chunk, &harness))
        return -1;
    jl_trace_write_options wo;
    jl_trace_write_options_default(&wo);
    wo.validate = 1;
    if (!strcmp(comp, "deflate"))
        wo.compression = JL_COMPRESS_DEFLATE;
    else if (!strcmp(comp, "zstd"))
        wo.compression = JL_COMPRESS_ZSTD;
    else if (!strcmp(comp, "none"))
        wo.compression = JL_COMPRESS_NONE;
    else {
        Py_DECREF(pathobj);
        pyj_usage("compression: '%s' is not one of deflate, zstd, none", comp);
        return -1;
    }
    wo.level = level;
    if (chunk < 1 || chunk > (1 << 24)) {
        Py_DECREF(pathobj);
        pyj_usage("chunk_rows must be in 1..%d", 1 << 24);
        return -1;
    }
    wo.chunk_rows = (size_t)chunk;
    free(o->harness);
    o->harness = NULL;
    if (harness)
        o->harness = strdup(harness);
    else {
        size_t n = strlen(jl_version()) + 32;
        if ((o->harness = malloc(n)))
            snprintf(o->harness, n, "joules %s (Python TraceWriter)", jl_version());
    }
    if (!o->harness) {
        Py_DECREF(pathobj);
        PyErr_NoMemory();
        return -1;
    }
    wo.harness = o->harness;
    jl_error *err = NULL;
    jl_status st;
    jl_trace_writer *w = NULL;
    const char *path = PyBytes_AS_STRING(pathobj);
    free(o->path);
    if (!(o->path = strdup(path))) {
        Py_DECREF(pathobj);
        PyErr_NoMemory();
        return -1;
    }
    PYJ_CALL(st = jl_trace_writer_open(path, &wo, &w, &err));
    Py_DECREF(pathobj);
    if (st != JL_OK) {
        pyj_raise(st, err);
        return -1;
    }
    o->w = w;
    return 0;
}

static int writing(WriterObject *o, int need_run)
{
    if (!o->w) {
        pyj_usage("the trace writer is closed");
        return 0;
    }
    if (need_run && !o->s) {
        pyj_usage("no run is being written: begin_run() first");
        return 0;
    }
    return 1;
}

/* One attribute of a dict into a: the format's typed ones by their kind,
 * every other one kept as an extra attribute (str or number). */
static jl_status set_attr(jl_attrs *a, const char *k, PyObject *v, jl_error **err)
{
    static const struct {
        const char *name;
        int kind; /* 0 str, 1 whole number, 2 number */
        size_t off;
    } typed[] = {
#define S(f) {#f, 0, offsetof(jl_attrs, f)}
#define L(f)                         \
    {                                \
#f, 1, offsetof(jl_attrs, f) \
    }
#define D(f)                         \
    {                                \
#f, 2, offsetof(jl_attrs, f) \
    }
        S(workload),
        S(model),
        S(task),
        S(gpu_model),
        L(num_gpus),
        S(precision),
        L(max_batch_size),
        D(start_time_unix),
        L(tensor_parallel),
        L(expert_parallel),
        L(data_parallel),
        D(gpu_memory_bytes),
        D(gpu_tdp_w),
        D(gpu_idle_power_w),
        D(total_params),
        D(active_params),
        D(kv_bytes_per_token),
        L(denoising_steps),
        L(height),
        L(width),
        L(num_frames),
        S(notes),
#undef S
#undef L
#undef D
    };
    if (v == Py_None)
        return JL_OK; /* missing */
    for (size_t i = 0; i < sizeof typed / sizeof typed[0]; i++) {
        if (strcmp(typed[i].name, k))
            continue;
        char *base = (char *)a + typed[i].off;
        if (typed[i].kind == 0) {
            if (!PyUnicode_Check(v)) {
                *err = jl_error_new(JL_ETYPE, NULL, NULL, NULL, -1,
                                    "attribute @%s must be a string, found %.80s", k,
                                    Py_TYPE(v)->tp_name);
                return JL_ETYPE;
            }
            const char *s = PyUnicode_AsUTF8(v);
            if (!s)
                return JL_EINTERNAL; /* a Python error is set */
            free(*(char **)base);
            if (!(*(char **)base = strdup(s))) {
                PyErr_NoMemory();
                return JL_EINTERNAL; /* a Python error is set */
            }
            return JL_OK;
        }
        if (PyBool_Check(v) || !PyNumber_Check(v) || PyUnicode_Check(v)) {
            *err =
                jl_error_new(JL_ETYPE, NULL, NULL, NULL, -1,
                             "attribute @%s must be a number, found %.80s", k, Py_TYPE(v)->tp_name);
            return JL_ETYPE;
        }
        double d = PyFloat_AsDouble(v);
        if (d == -1 && PyErr_Occurred())
            return JL_EINTERNAL; /* a Python error is set */
        if (typed[i].kind == 2) {
            if (!isfinite(d)) {
                *err = jl_error_new(JL_EINVALID, NULL, NULL, NULL, -1,
                                    "attribute @%s must be finite, found %g", k, d);
                return JL_EINVALID;
            }
            *(double *)base = d;
            return JL_OK;
        }
        if (!(d == floor(d) && fabs(d) < 9e15)) {
            *err = jl_error_new(JL_ETYPE, NULL, NULL, NULL, -1,
                                "attribute @%s must be an integer, found %g", k, d);
            return JL_ETYPE;
        }
        if (d < 0) {
            *err = jl_error_new(JL_EINVALID, NULL, NULL, NULL, -1,
                                "attribute @%s must be >= 0, found %.0f", k, d);
            return JL_EINVALID;
        }
        *(long *)base = (long)d;
        return JL_OK;
    }
    char buf[64];
    const char *text;
    int number = 0;
    if (PyUnicode_Check(v)) {
        text = PyUnicode_AsUTF8(v);
    } else if (!PyBool_Check(v) && PyNumber_Check(v)) {
        double d = PyFloat_AsDouble(v);
        if (d == -1 && PyErr_Occurred())
            return JL_EINTERNAL; /* a Python error is set */
        if (!isfinite(d)) {
            *err = jl_error_new(JL_EINVALID, NULL, NULL, NULL, -1,
                                "attribute @%s must be finite, found %g", k, d);
            return JL_EINVALID;
        }
        snprintf(buf, sizeof buf, "%.17g", d);
        text = buf;
        number = 1;
    } else {
        *err = jl_error_new(JL_ETYPE, NULL, NULL, NULL, -1,
                            "attribute @%s must be a string or a number, found %.80s", k,
                            Py_TYPE(v)->tp_name);
        return JL_ETYPE;
    }
    if (!text)
        return JL_EINTERNAL; /* a Python error is set */
    if (jl_attrs_add_extra(a, k, text, number) != JL_OK) {
        PyErr_NoMemory();
        return JL_EINTERNAL; /* a Python error is set */
    }
    return JL_OK;
}

static PyObject *writer_begin(WriterObject *o, PyObject *args)
{
    const char *name;
    PyObject *attrs;
    if (!PyArg_ParseTuple(args, "sO!", &name, &PyDict_Type, &attrs) || !writing(o, 0))
        return NULL;
    if (o->s)
        return pyj_usage("run '%s' is still being written: end_run() first",
                         o->run && o->run->name ? o->run->name : "");
    jl_run *run = jl_run_new();
    if (!run)
        return PyErr_NoMemory();
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    jl_error *err = NULL;
    jl_status st = JL_OK;
    while (st == JL_OK && PyDict_Next(attrs, &pos, &k, &v)) {
        const char *key = PyUnicode_Check(k) ? PyUnicode_AsUTF8(k) : NULL;
        if (!key) {
            jl_run_free(run);
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "attribute names must be str");
            return NULL;
        }
        st = set_attr(&run->attrs, key, v, &err);
    }
    if (st == JL_EINTERNAL && PyErr_Occurred()) {
        jl_run_free(run);
        return NULL;
    }
    /* the format's rules on the attributes, at once */
    if (st == JL_OK)
        st = jl_attrs_check(&run->attrs, 1024, &err);
    if (st != JL_OK) {
        char obj[600];
        snprintf(obj, sizeof obj, "/runs/%s", name);
        if (err && !err->object)
            err->object = strdup(obj);
        jl_error_set_context(err, o->path, name);
        jl_run_free(run);
        return pyj_raise(st, err);
    }
    if (!(run->name = strdup(name))) {
        jl_run_free(run);
        return PyErr_NoMemory();
    }
    jl_trace_stream *s = NULL;
    PYJ_CALL(st = jl_trace_writer_begin_run(o->w, name, &s, &err));
    if (st != JL_OK) {
        jl_run_free(run);
        return pyj_raise(st, err);
    }
    o->s = s;
    o->run = run;
    Py_RETURN_NONE;
}

/* append(group, [(name, array)]): float64 C-contiguous arrays of shape
 * [n] or [n, w], every one n rows (the package makes them so). */
static PyObject *writer_append(WriterObject *o, PyObject *args)
{
    const char *group;
    PyObject *cols;
    if (!PyArg_ParseTuple(args, "sO!", &group, &PyList_Type, &cols) || !writing(o, 1))
        return NULL;
    Py_ssize_t k = PyList_GET_SIZE(cols);
    const char **names = PyMem_Malloc((size_t)(k ? k : 1) * sizeof *names);
    size_t *widths = PyMem_Malloc((size_t)(k ? k : 1) * sizeof *widths);
    const double **data = PyMem_Malloc((size_t)(k ? k : 1) * sizeof *data);
    PyObject *ret = NULL;
    npy_intp n = -1;
    if (!names || !widths || !data) {
        PyErr_NoMemory();
        goto out;
    }
    for (Py_ssize_t i = 0; i < k; i++) {
        PyObject *a;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(cols, i), "sO!", &names[i], &PyArray_Type, &a))
            goto out;
        PyArrayObject *arr = (PyArrayObject *)a;
        if (PyArray_TYPE(arr) != NPY_FLOAT64 || !PyArray_IS_C_CONTIGUOUS(arr) ||
            PyArray_NDIM(arr) < 1 || PyArray_NDIM(arr) > 2) {
            PyErr_Format(PyExc_TypeError,
                         "%s/%s: expected a C-contiguous float64 array [N] or "
                         "[N, W]",
                         group, names[i]);
            goto out;
        }
        npy_intp rows = PyArray_DIM(arr, 0);
        if (n >= 0 && rows != n) {
            pyj_usage("%s/%s has %zd rows, %s/%s has %zd: the columns of one call have one "
                      "length",
                      group, names[i], (Py_ssize_t)rows, group, names[0], (Py_ssize_t)n);
            goto out;
        }
        n = rows;
        widths[i] = PyArray_NDIM(arr) == 2 ? (size_t)PyArray_DIM(arr, 1) : 1;
        if (widths[i] == 0) {
            pyj_usage("%s/%s has no columns", group, names[i]);
            goto out;
        }
        data[i] = PyArray_DATA(arr);
    }
    jl_error *err = NULL;
    jl_status st = JL_OK;
    if (k && n > 0)
        PYJ_CALL(st = jl_trace_stream_append_group(o->s, group, (size_t)k, names, widths, data,
                                                   (size_t)n, &err));
    if (st != JL_OK)
        pyj_raise(st, err);
    else
        ret = Py_NewRef(Py_None);
out:
    PyMem_Free(names);
    PyMem_Free(widths);
    PyMem_Free(data);
    return ret;
}

/* A column of the spans dict: its array (of type) or NULL when absent. */
static int span_col(PyObject *d, const char *k, int type, size_t n, void **out, int required)
{
    *out = NULL;
    PyObject *a = PyDict_GetItemString(d, k);
    if (!a || a == Py_None) {
        if (required)
            pyj_raise(JL_EMISSING,
                      jl_error_new(JL_EMISSING, NULL, NULL, NULL, -1, "spans/%s is missing", k));
        return required ? -1 : 0;
    }
    if (!PyArray_Check(a) || PyArray_TYPE((PyArrayObject *)a) != type ||
        !PyArray_IS_C_CONTIGUOUS((PyArrayObject *)a) || PyArray_NDIM((PyArrayObject *)a) != 1 ||
        (size_t)PyArray_DIM((PyArrayObject *)a, 0) != n) {
        pyj_usage("spans/%s: expected a C-contiguous 1-D array of %zu values of its type", k, n);
        return -1;
    }
    *out = PyArray_DATA((PyArrayObject *)a);
    return 0;
}

static PyObject *writer_spans(WriterObject *o, PyObject *args)
{
    PyObject *d;
    if (!PyArg_ParseTuple(args, "O!", &PyDict_Type, &d) || !writing(o, 1))
        return NULL;
    PyObject *names = PyDict_GetItemString(d, "names");
    PyObject *start = PyDict_GetItemString(d, "start");
    if (!names || !PyList_Check(names) || !start || !PyArray_Check(start))
        return pyj_usage("spans: names (a list of str) and start, end, name (arrays) are needed");
    jl_spans sp;
    memset(&sp, 0, sizeof sp);
    sp.window[0] = sp.window[1] = NAN;
    sp.clock_uncertainty_s = NAN;
    size_t nn = 0;
    const char **nm = pyj_strings(names, &nn, "spans names");
    if (!nm)
        return NULL;
    sp.names = (char **)nm;
    sp.n_names = nn;
    sp.n = (size_t)PyArray_SIZE((PyArrayObject *)start);
    void *p;
    if (span_col(d, "name", NPY_INT32, sp.n, &p, 1) < 0)
        goto fail;
    sp.name = p;
    if (span_col(d, "start", NPY_FLOAT64, sp.n, &p, 1) < 0)
        goto fail;
    sp.start = p;
    if (span_col(d, "end", NPY_FLOAT64, sp.n, &p, 1) < 0)
        goto fail;
    sp.end = p;
    if (span_col(d, "parent", NPY_INT32, sp.n, &p, 0) < 0)
        goto fail;
    sp.parent = p;
    if (span_col(d, "gpu", NPY_INT16, sp.n, &p, 0) < 0)
        goto fail;
    sp.gpu = p;
    if (span_col(d, "busy_s", NPY_FLOAT32, sp.n, &p, 0) < 0)
        goto fail;
    sp.busy_s = p;
    if (span_col(d, "tokens", NPY_INT32, sp.n, &p, 0) < 0)
        goto fail;
    sp.tokens = p;
    if (span_col(d, "step", NPY_INT32, sp.n, &p, 0) < 0)
        goto fail;
    sp.step = p;
    const char *text[3] = {NULL, NULL, NULL};
    static const char *const tk[3] = {"source", "side", "clock"};
    for (int i = 0; i < 3; i++) {
        PyObject *t = PyDict_GetItemString(d, tk[i]);
        if (t && t != Py_None && !(text[i] = PyUnicode_AsUTF8(t)))
            goto fail;
    }
    sp.source = (char *)text[0];
    sp.side = (char *)text[1];
    sp.clock = (char *)text[2];
    PyObject *win = PyDict_GetItemString(d, "window");
    if (win && win != Py_None && !PyArg_ParseTuple(win, "dd", &sp.window[0], &sp.window[1]))
        goto fail;
    PyObject *cu = PyDict_GetItemString(d, "clock_uncertainty_s");
    if (cu && cu != Py_None && (sp.clock_uncertainty_s = PyFloat_AsDouble(cu)) == -1 &&
        PyErr_Occurred())
        goto fail;
    jl_error *err = NULL;
    jl_status st;
    PYJ_CALL(st = jl_trace_stream_set_spans(o->s, &sp, &err));
    PyMem_Free(nm);
    if (st != JL_OK)
        return pyj_raise(st, err);
    Py_RETURN_NONE;
fail:
    PyMem_Free(nm);
    return NULL;
}

static PyObject *writer_end(WriterObject *o, PyObject *args)
{
    PyObject *summary = Py_None;
    if (!PyArg_ParseTuple(args, "|O", &summary) || !writing(o, 1))
        return NULL;
    jl_run_summary_attrs *m = &o->run->summary;
    if (summary != Py_None) {
        if (!PyDict_Check(summary))
            return PyErr_Format(PyExc_TypeError, "summary: expected a dict of figures");
        static const struct {
            const char *k;
            size_t off;
        } f[] = {
#define F(x) {#x, offsetof(jl_run_summary_attrs, x)}
            F(energy_per_token_j),
            F(energy_per_request_j),
            F(avg_power_w),
            F(output_throughput_tok_s),
            F(median_itl_s),
            F(p90_itl_s),
            F(p95_itl_s),
            F(p99_itl_s),
            F(avg_batch_size),
            F(avg_output_tokens),
            F(steady_state_duration_s),
            F(steady_state_energy_j),
            F(batch_latency_s),
            F(energy_per_item_j),
#undef F
        };
        PyObject *k, *v;
        Py_ssize_t pos = 0;
        while (PyDict_Next(summary, &pos, &k, &v)) {
            const char *key = PyUnicode_Check(k) ? PyUnicode_AsUTF8(k) : NULL;
            if (!key)
                return PyErr_Format(PyExc_TypeError, "summary: names must be str");
            double d = PyFloat_AsDouble(v);
            if (d == -1 && PyErr_Occurred())
                return NULL;
            if (!isfinite(d))
                return pyj_raise(JL_EINVALID,
                                 jl_error_new(JL_EINVALID, NULL, o->run->name, "summary", -1,
                                              "summary figure %s must be finite, found %g", key,
                                              d));
            size_t i = 0;
            while (i < sizeof f / sizeof f[0] && strcmp(f[i].k, key))
                i++;
            if (i < sizeof f / sizeof f[0]) {
                *(double *)((char *)m + f[i].off) = d;
            } else {
                char buf[64];
                snprintf(buf, sizeof buf, "%.17g", d);
                jl_kv *x = realloc(m->extra, (m->n_extra + 1) * sizeof *x);
                if (!x)
                    return PyErr_NoMemory();
                m->extra = x;
                x[m->n_extra].key = strdup(key);
                x[m->n_extra].value = strdup(buf);
                x[m->n_extra].is_number = 1;
                m->n_extra++;
            }
            m->present = 1;
        }
    }
    jl_error *err = NULL;
    jl_status st;
    PYJ_CALL(st = jl_trace_stream_end(o->s, o->run, &err));
    o->s = NULL; /* ended, or aborted on failure */
    jl_run_free(o->run);
    o->run = NULL;
    if (st != JL_OK)
        return pyj_raise(st, err);
    Py_RETURN_NONE;
}

static PyObject *writer_abort_run(WriterObject *o, PyObject *unused)
{
    (void)unused;
    PYJ_CALL(jl_trace_stream_abort(o->s));
    o->s = NULL;
    jl_run_free(o->run);
    o->run = NULL;
    Py_RETURN_NONE;
}

static PyObject *writer_rows(WriterObject *o, PyObject *args)
{
    const char *group, *name;
    if (!PyArg_ParseTuple(args, "ss", &group, &name) || !writing(o, 1))
        return NULL;
    return PyLong_FromSize_t(jl_trace_stream_rows(o->s, group, name));
}

static PyObject *writer_commit(WriterObject *o, PyObject *unused)
{
    (void)unused;
    if (!writing(o, 0))
        return NULL;
    if (o->s)
        return pyj_usage("run '%s' is still being written: end_run() (or abort_run()) first",
                         o->run && o->run->name ? o->run->name : "");
    jl_error *err = NULL;
    jl_status st;
    PYJ_CALL(st = jl_trace_writer_commit(o->w, &err));
    o->w = NULL;
    if (st != JL_OK)
        return pyj_raise(st, err);
    Py_RETURN_NONE;
}

static PyObject *writer_abort(WriterObject *o, PyObject *unused)
{
    (void)unused;
    PYJ_CALL({
        jl_trace_stream_abort(o->s);
        jl_trace_writer_abort(o->w);
    });
    o->s = NULL;
    o->w = NULL;
    jl_run_free(o->run);
    o->run = NULL;
    Py_RETURN_NONE;
}

static PyObject *writer_open(WriterObject *o, void *c)
{
    (void)c;
    return PyBool_FromLong(o->w != NULL);
}

static PyMethodDef writer_methods[] = {
    {"begin_run", (PyCFunction)writer_begin, METH_VARARGS, "Start a run: name, attributes."},
    {"append", (PyCFunction)writer_append, METH_VARARGS, "Append rows to a group's columns."},
    {"spans", (PyCFunction)writer_spans, METH_VARARGS, "Write the run's spans/."},
    {"end_run", (PyCFunction)writer_end, METH_VARARGS, "End the run (optional summary/)."},
    {"abort_run", (PyCFunction)writer_abort_run, METH_NOARGS, "Remove the run being written."},
    {"rows", (PyCFunction)writer_rows, METH_VARARGS, "Rows appended to GROUP/NAME."},
    {"commit", (PyCFunction)writer_commit, METH_NOARGS, "Close the file, renamed into place."},
    {"abort", (PyCFunction)writer_abort, METH_NOARGS, "Discard the file."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef writer_getset[] = {
    {"open", (getter)writer_open, NULL, "whether the file is still being written", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject pyj_WriterType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "joules._joules.Writer",
    .tp_basicsize = sizeof(WriterObject),
    .tp_dealloc = (destructor)writer_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A trace written run by run, checked as it is written.",
    .tp_methods = writer_methods,
    .tp_getset = writer_getset,
    .tp_init = (initproc)writer_init,
    .tp_new = PyType_GenericNew,
};

int pyj_writer_init_type(PyObject *m)
{
    if (PyType_Ready(&pyj_WriterType) < 0)
        return -1;
    return PyModule_AddObjectRef(m, "Writer", (PyObject *)&pyj_WriterType);
}

/* ---- import_ ------------------------------------------------------------------ */

/* import_(format, paths, args, output, into, force, groups, argv, inputs):
 * the joules.import/1 document of `joules import FORMAT PATH... -o OUTPUT`
 * (or --into TRACE.h5:RUN), with errors and provenance. */
PyObject *pyj_import(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwl[] = {"format", "paths",  "args", "output", "into",
                          "force",  "groups", "argv", "inputs", NULL};
    const char *format, *output = NULL, *into = NULL;
    PyObject *paths, *opts, *argv, *inputs;
    int force = 0, groups = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "sO!O!zzppOO", kwl, &format, &PyList_Type, &paths,
                                     &PyList_Type, &opts, &output, &into, &force, &groups, &argv,
                                     &inputs))
        return NULL;
    const jl_importer *im = jl_importer_find(format);
    if (!im) {
        size_t n;
        const jl_importer *const *t = jl_importers(&n);
        const char **names = malloc((n ? n : 1) * sizeof *names);
        for (size_t i = 0; names && i < n; i++)
            names[i] = t[i]->name;
        char near[64];
        int hint = names && jl_suggest_name(format, names, n, near, sizeof near);
        free(names);
        return pyj_usage("unknown format '%s'%s%s%s (joules.importers() lists them)", format,
                         hint ? "; did you mean '" : "", hint ? near : "", hint ? "'?" : "");
    }
    size_t n_paths = 0;
    const char **p = pyj_strings(paths, &n_paths, "paths");
    if (!p)
        return NULL;
    Py_ssize_t n_opts = PyList_GET_SIZE(opts);
    jl_importer_arg *a = PyMem_Calloc((size_t)n_opts + 3, sizeof *a);
    PyObject *ret = NULL;
    json_t *prov = NULL;
    char *prov_text = NULL, *harness = NULL;
    jl_import_result *r = NULL;
    jl_error_list errors = {0};
    jl_error *err = NULL;
    jl_trace_writer *w = NULL;
    jl_status st = JL_OK;
    if (!a) {
        PyErr_NoMemory();
        goto out;
    }
    size_t na = 0;
    for (Py_ssize_t i = 0; i < n_opts; i++) {
        const char *name, *value;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(opts, i), "ss", &name, &value))
            goto out;
        const jl_importer_option *o = im->options;
        while (o->name && strcmp(o->name, name))
            o++;
        if (!o->name) {
            pyj_usage("'%s' has no option %s (joules.importers() lists them)", im->name, name);
            goto out;
        }
        a[na++] = (jl_importer_arg){o->name, value};
    }
    if (n_paths < im->min_paths || (im->max_paths && n_paths > im->max_paths)) {
        if (im->max_paths == 1)
            pyj_usage("give exactly one %s after '%s'", im->paths, im->name);
        else
            pyj_usage("give %s after '%s'", im->paths, im->name);
        goto out;
    }
    if (!(prov = pyj_provenance(argv, inputs, NULL, NULL, JL_NAMES_JOULES, NULL)))
        goto out;
    if (im->into || into) {
        if (!im->into) {
            pyj_usage("'%s' writes a new trace (output=FILE.h5), not into=", im->name);
            goto out;
        }
        if (output) {
            pyj_usage("'%s' adds to an existing run: into=TRACE.h5:RUN, not output=", im->name);
            goto out;
        }
        const char *colon = into ? strrchr(into, ':') : NULL;
        if (!colon || colon == into || !colon[1]) {
            pyj_usage("--into TRACE.h5:RUN names the trace and the run");
            goto out;
        }
        char *trace = strndup(into, (size_t)(colon - into));
        if (!trace) {
            PyErr_NoMemory();
            goto out;
        }
        PYJ_CALL(st = im->into(p, n_paths, a, na, trace, colon + 1, &r, &errors));
        free(trace);
        output = into;
    } else {
        if (!output) {
            pyj_usage("no output file: -o FILE.h5");
            goto out;
        }
        if (!force && access(output, F_OK) == 0) {
            pyj_usage("%s already exists (use --force to replace it)", output);
            goto out;
        }
        /* as `joules import` writes: deflate level 1 (or Zstandard where the
         * importer asks), the summary table unless groups, the provenance */
        jl_trace_write_options wo;
        jl_trace_write_options_default(&wo);
        wo.level = 1;
        wo.summary_table = !groups;
        if (im->write_zstd)
            wo.compression = JL_COMPRESS_ZSTD;
        prov_text = jl_json_dumps(prov, JSON_SORT_KEYS | JSON_COMPACT);
        wo.provenance = prov_text;
        for (size_t i = 0; im->options[i].name; i++)
            if (!strcmp(im->options[i].name, "runs-out")) {
                a[na++] = (jl_importer_arg){"output", output};
                if (force)
                    a[na++] = (jl_importer_arg){"force", ""};
            }
        size_t hlen = strlen("joules import : ") + strlen(im->name) + 1;
        for (size_t i = 0; i < n_paths; i++)
            hlen += strlen(p[i]) + 1;
        if (!prov_text || !(harness = malloc(hlen + 4096))) {
            PyErr_NoMemory();
            goto out;
        }
        snprintf(harness, hlen, "joules import %s:", im->name);
        for (size_t i = 0; i < n_paths; i++) {
            strcat(harness, " ");
            strcat(harness, p[i]);
        }
        wo.harness = harness;
        PYJ_CALL({
            if (im->write) {
                st = jl_trace_writer_open(output, &wo, &w, &err);
                if (st == JL_OK)
                    st = im->write(p, n_paths, a, na, w, &r, &errors);
            } else {
                st = im->run(p, n_paths, a, na, &r, &errors);
            }
            if (st == JL_OK && r && !w) {
                const char *source = r->source ? r->source : p[0];
                snprintf(harness, hlen + 4096, "joules import %s: %.4000s", im->name, source);
                st = jl_trace_write(output, (const jl_run *const *)r->runs, r->n_runs, &wo, &err);
            } else if (st == JL_OK && r && w) {
                st = jl_trace_writer_commit(w, &err);
                w = NULL;
            }
        });
    }
    if (st != JL_OK || !r) {
        /* the error that stopped the import, else the first of the inputs'
         * (every one in .errors, as the CLI prints them all) */
        if (err) {
            pyj_raise(st, err);
            err = NULL;
        } else if (errors.count) {
            const jl_error *last = pyj_last_error(&errors);
            const jl_error *e = last->code == st ? last : errors.items[0];
            pyj_raise_copy(e->code, e);
        } else {
            pyj_raise(st != JL_OK ? st : JL_ENODATA, NULL);
        }
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyErr_NormalizeException(&type, &value, &tb);
        PyObject *all = pyj_errors(&errors);
        if (all && value)
            PyObject_SetAttrString(value, "errors", all);
        Py_XDECREF(all);
        PyErr_Restore(type, value, tb);
        goto out;
    }
    json_t *doc = jl_import_document(r, im->name, output);
    if (!doc) {
        PyErr_NoMemory();
        goto out;
    }
    json_object_set_new(doc, "errors", jl_errors_to_json(&errors));
    json_object_set(doc, "provenance", prov);
    ret = pyj_document(doc);
out:
    PYJ_CALL(jl_trace_writer_abort(w));
    jl_import_result_free(r);
    jl_error_list_clear(&errors);
    jl_error_free(err);
    json_decref(prov);
    free(prov_text);
    free(harness);
    PyMem_Free(a);
    PyMem_Free(p);
    return ret;
}
