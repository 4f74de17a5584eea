/* joules._joules: the module, its exceptions, the library lock, JSON
 * documents as Python objects, provenance (pyjoules.h). */
#define PYJ_IMPORT_ARRAY
#include "pyjoules.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- the library lock ------------------------------------------------------- */

static pthread_mutex_t lib_lock = PTHREAD_MUTEX_INITIALIZER;

void pyj_lock(void)
{
    pthread_mutex_lock(&lib_lock);
}

void pyj_unlock(void)
{
    pthread_mutex_unlock(&lib_lock);
}

/* ---- exceptions -------------------------------------------------------------
 * joules.Error and one subclass per status (JL_STATUS_TABLE), each also a
 * subclass of the built-in exception a Python user would catch for it. */

static PyObject *Error;
static PyObject *kinds[JL_STATUS_COUNT];

static const struct {
    jl_status st;
    const char *name;
    const char *doc;
} kind_names[] = {
    {JL_ENOMEM, "OutOfMemoryError", "joules ran out of memory (also a MemoryError)"},
    {JL_EIO, "FileError", "a file could not be read or written (also an OSError)"},
    {JL_EFORMAT, "FormatError", "not a joules trace, or not the format an importer reads"},
    {JL_EINVALID, "InvalidDataError", "a value the format does not allow (also a ValueError)"},
    {JL_EMISSING, "MissingFieldError", "a required attribute, dataset or field is missing"},
    {JL_ETYPE, "WrongTypeError", "a value of the wrong type or shape (also a TypeError)"},
    {JL_ELIMIT, "LimitError", "a size beyond the configured limit"},
    {JL_EUSAGE, "UsageError", "an invalid argument (also a ValueError)"},
    {JL_ENUMERIC, "NumericError", "a numerical failure (also an ArithmeticError)"},
    {JL_ENODATA, "NoDataError", "not enough data for what was asked"},
    {JL_EINTERNAL, "InternalError", "an internal error of joules"},
};

static PyObject *builtin_base(jl_status st)
{
    switch (st) {
    case JL_ENOMEM: return PyExc_MemoryError;
    case JL_EIO: return PyExc_OSError;
    case JL_EINVALID:
    case JL_EUSAGE: return PyExc_ValueError;
    case JL_ETYPE: return PyExc_TypeError;
    case JL_ENUMERIC: return PyExc_ArithmeticError;
    default: return NULL;
    }
}

static int make_exceptions(PyObject *m)
{
    Error = PyErr_NewExceptionWithDoc(
        "joules.Error",
        "A failure of joules: the message the command-line tool prints (str(e)) and where it "
        "happened: .kind (the status: io, format, invalid, missing, type, limit, usage, numeric, "
        "nodata, internal, nomem), .file, .run, .field (the HDF5 object or document field), "
        ".row, .line and .column (text inputs), .side (input, output or request), .message (the "
        "message alone) and .causes (the lower-level messages).",
        PyExc_Exception, NULL);
    if (!Error || PyModule_AddObjectRef(m, "Error", Error) < 0)
        return -1;
    /* what an Error raised without the library's error says: nothing known */
    static const char *const fields[] = {"kind", "file",   "run",     "field", "row",
                                         "line", "column", "message", "causes"};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (PyObject_SetAttrString(Error, fields[i], Py_None) < 0)
            return -1;
    PyObject *side = PyUnicode_FromString("input");
    int bad = !side || PyObject_SetAttrString(Error, "side", side) < 0;
    Py_XDECREF(side);
    if (bad)
        return -1;
    for (size_t i = 0; i < sizeof kind_names / sizeof kind_names[0]; i++) {
        char qual[96];
        snprintf(qual, sizeof qual, "joules.%s", kind_names[i].name);
        PyObject *b = builtin_base(kind_names[i].st);
        PyObject *bases = b ? PyTuple_Pack(2, Error, b) : PyTuple_Pack(1, Error);
        if (!bases)
            return -1;
        PyObject *cls = PyErr_NewExceptionWithDoc(qual, kind_names[i].doc, bases, NULL);
        Py_DECREF(bases);
        PyObject *kind = cls ? PyUnicode_FromString(jl_status_name(kind_names[i].st)) : NULL;
        bad = !kind || PyObject_SetAttrString(cls, "kind", kind) < 0;
        Py_XDECREF(kind);
        if (bad || PyModule_AddObjectRef(m, kind_names[i].name, cls) < 0)
            return -1;
        kinds[kind_names[i].st] = cls;
    }
    return 0;
}

static int set_str(PyObject *o, const char *k, const char *v)
{
    PyObject *s =
        v ? PyUnicode_DecodeUTF8(v, (Py_ssize_t)strlen(v), "replace") : Py_NewRef(Py_None);
    int r = s ? PyObject_SetAttrString(o, k, s) : -1;
    Py_XDECREF(s);
    return r;
}

static int set_ll(PyObject *o, const char *k, long long v, int present)
{
    PyObject *x = present ? PyLong_FromLongLong(v) : Py_NewRef(Py_None);
    int r = x ? PyObject_SetAttrString(o, k, x) : -1;
    Py_XDECREF(x);
    return r;
}

/* The exception instance of e (status st). */
static PyObject *exception_of(jl_status st, const jl_error *e)
{
    if ((unsigned)st >= JL_STATUS_COUNT || !kinds[st])
        st = JL_EINTERNAL;
    char *text = e ? jl_error_format(e) : NULL;
    const char *msg = text ? text : e && e->message ? e->message : jl_strerror(st);
    PyObject *inst = PyObject_CallFunction(kinds[st], "s", msg);
    free(text);
    if (!inst)
        return NULL;
    static const char *const sides[] = {"input", "output", "request"};
    PyObject *causes = PyList_New(0);
    int bad = !causes;
    for (const jl_error *c = e ? e->cause : NULL; c && !bad; c = c->cause) {
        char *t = jl_error_format(c);
        PyObject *s = t ? PyUnicode_DecodeUTF8(t, (Py_ssize_t)strlen(t), "replace") : NULL;
        free(t);
        bad = !s || PyList_Append(causes, s) < 0;
        Py_XDECREF(s);
    }
    if (bad || set_str(inst, "kind", jl_status_name(st)) < 0 ||
        set_str(inst, "file", e ? e->file : NULL) < 0 ||
        set_str(inst, "run", e ? e->run : NULL) < 0 ||
        set_str(inst, "field", e ? e->object : NULL) < 0 ||
        set_ll(inst, "row", e ? e->row : -1, e && e->row >= 0) < 0 ||
        set_ll(inst, "line", e ? e->line : 0, e && e->line > 0) < 0 ||
        set_ll(inst, "column", e ? e->column : 0, e && e->column > 0) < 0 ||
        set_str(inst, "side", sides[e && (unsigned)e->side < 3 ? e->side : 0]) < 0 ||
        set_str(inst, "message", e ? e->message : jl_strerror(st)) < 0 ||
        PyObject_SetAttrString(inst, "causes", causes) < 0) {
        Py_XDECREF(causes);
        Py_DECREF(inst);
        return NULL;
    }
    Py_DECREF(causes);
    return inst;
}

PyObject *pyj_raise_copy(jl_status st, const jl_error *e)
{
    if (st == JL_ENOMEM && !e)
        return PyErr_NoMemory();
    PyObject *inst = exception_of(st, e);
    if (inst) {
        PyErr_SetObject((PyObject *)Py_TYPE(inst), inst);
        Py_DECREF(inst);
    }
    return NULL;
}

PyObject *pyj_raise(jl_status st, jl_error *err)
{
    pyj_raise_copy(st, err);
    jl_error_free(err);
    return NULL;
}

PyObject *pyj_usage(const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    jl_error *e = jl_error_new(JL_EUSAGE, NULL, NULL, NULL, -1, "%s", buf);
    return pyj_raise(JL_EUSAGE, e);
}

const jl_error *pyj_last_error(const jl_error_list *l)
{
    return l && l->count ? l->items[l->count - 1] : NULL;
}

/* ---- documents ---------------------------------------------------------------- */

static int cmp_key(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

PyObject *pyj_from_json(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        size_t n = json_object_size(v), k = 0;
        const char **keys = PyMem_Malloc((n ? n : 1) * sizeof *keys);
        PyObject *d = keys ? PyDict_New() : NULL;
        if (!d) {
            PyMem_Free(keys);
            return PyErr_NoMemory();
        }
        const char *key;
        json_t *x;
        json_object_foreach((json_t *)v, key, x)
            keys[k++] = key;
        qsort(keys, n, sizeof *keys, cmp_key);
        for (k = 0; k < n; k++) {
            PyObject *o = pyj_from_json(json_object_get(v, keys[k]));
            if (!o || PyDict_SetItemString(d, keys[k], o) < 0) {
                Py_XDECREF(o);
                Py_DECREF(d);
                PyMem_Free(keys);
                return NULL;
            }
            Py_DECREF(o);
        }
        PyMem_Free(keys);
        return d;
    }
    case JSON_ARRAY: {
        size_t n = json_array_size(v);
        PyObject *l = PyList_New((Py_ssize_t)n);
        for (size_t i = 0; l && i < n; i++) {
            PyObject *o = pyj_from_json(json_array_get(v, i));
            if (!o) {
                Py_DECREF(l);
                return NULL;
            }
            PyList_SET_ITEM(l, (Py_ssize_t)i, o);
        }
        return l;
    }
    case JSON_STRING:
        return PyUnicode_DecodeUTF8(json_string_value(v), (Py_ssize_t)json_string_length(v),
                                    "replace");
    case JSON_INTEGER: return PyLong_FromLongLong((long long)json_integer_value(v));
    case JSON_REAL: return PyFloat_FromDouble(json_real_value(v));
    case JSON_TRUE: Py_RETURN_TRUE;
    case JSON_FALSE: Py_RETURN_FALSE;
    default: Py_RETURN_NONE;
    }
}

PyObject *pyj_document(json_t *doc)
{
    if (!doc)
        return PyErr_NoMemory();
    PyObject *o = pyj_from_json(doc);
    json_decref(doc);
    return o;
}

PyObject *pyj_errors(const jl_error_list *l)
{
    return pyj_document(jl_errors_to_json(l));
}

/* ---- helpers ------------------------------------------------------------------ */

const char **pyj_strings(PyObject *list, size_t *n, const char *what)
{
    *n = 0;
    if (list == Py_None || !list) {
        const char **a = PyMem_Malloc(sizeof *a);
        if (a)
            a[0] = NULL;
        return a ? a : (const char **)PyErr_NoMemory();
    }
    if (!PyList_Check(list)) {
        PyErr_Format(PyExc_TypeError, "%s: expected a list of str", what);
        return NULL;
    }
    Py_ssize_t len = PyList_GET_SIZE(list);
    const char **a = PyMem_Malloc(((size_t)len + 1) * sizeof *a);
    if (!a)
        return (const char **)PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < len; i++) {
        PyObject *s = PyList_GET_ITEM(list, i);
        if (!PyUnicode_Check(s)) {
            PyErr_Format(PyExc_TypeError, "%s: expected str, got %.80s", what, Py_TYPE(s)->tp_name);
            PyMem_Free(a);
            return NULL;
        }
        Py_ssize_t sz;
        a[i] = PyUnicode_AsUTF8AndSize(s, &sz);
        if (!a[i]) {
            PyMem_Free(a);
            return NULL;
        }
        if ((size_t)sz != strlen(a[i])) {
            PyErr_Format(PyExc_ValueError, "%s: embedded null character", what);
            PyMem_Free(a);
            return NULL;
        }
    }
    a[len] = NULL;
    *n = (size_t)len;
    return a;
}

PyObject *pyj_fspath(PyObject *o)
{
    PyObject *b = NULL;
    if (!PyUnicode_FSConverter(o, &b))
        return NULL;
    return b;
}

/* ---- provenance ---------------------------------------------------------------- */

json_t *pyj_provenance(PyObject *argv, PyObject *inputs, const jl_ruleset *rules,
                       const jl_summary_options *so, jl_names names, jl_context *ctx)
{
    size_t argc = 0, n_in = 0;
    const char **av = pyj_strings(argv, &argc, "provenance command");
    const char **in = av ? pyj_strings(inputs, &n_in, "provenance inputs") : NULL;
    if (!av || !in) {
        PyMem_Free(av);
        return NULL;
    }
    json_t *block = NULL;
    int oom = 0;
    PYJ_CALL({
        jl_provenance *p = jl_provenance_new();
        oom = !p || jl_provenance_set_command(p, (int)argc, (char *const *)av) != JL_OK;
        for (size_t i = 0; !oom && i < n_in; i++)
            oom = jl_provenance_add_input(p, in[i]) != JL_OK;
        if (!oom && rules)
            jl_provenance_set_rules(p, rules);
        if (!oom && so) { /* the methods `joules` records (src/cli/provenance.c) */
            json_t *m =
                json_pack("{s:f,s:f,s:f,s:f}", "occupancy_share", so->occupancy_share,
                          "disagreement_warn", so->disagreement_warn, "counter_restart_min_drop_j",
                          so->counter_restart_min_drop_j, "published_mark", so->published_mark);
            if (m && so->custom_window)
                json_object_set_new(m, "window",
                                    json_pack("[oo]", jl_json_number(so->window[0]),
                                              jl_json_number(so->window[1])));
            oom = !m || jl_provenance_set_method(p, "summary", m) != JL_OK;
            json_decref(m);
        }
        if (!oom && (rules || so)) {
            json_t *nm = json_string(names == JL_NAMES_MLENERGY ? "mlenergy" : "joules");
            oom = !nm || jl_provenance_set_method(p, "names", nm) != JL_OK;
            json_decref(nm);
        }
        jl_context *was = ctx ? jl_context_use(ctx) : NULL;
        if (!oom && ctx) /* the study's files, as the CLI's read log lists them */
            oom = jl_provenance_add_inputs_read(p, NULL) != JL_OK;
        if (!oom)
            oom = !(block = jl_provenance_to_json(p));
        if (was)
            jl_context_use(was);
        jl_provenance_free(p);
    });
    PyMem_Free(av);
    PyMem_Free(in);
    if (oom) {
        json_decref(block);
        PyErr_NoMemory();
        return NULL;
    }
    return block;
}

/* ---- module functions ---------------------------------------------------------- */

static PyObject *py_version(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyUnicode_FromString(jl_version());
}

/* [(name, unit, doc)] of every figure (JL_FIGURE_TABLE), in table order. */
static PyObject *py_figures(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    PyObject *l = PyList_New(JL_FIG_COUNT);
    for (int i = 0; l && i < JL_FIG_COUNT; i++) {
        PyObject *t = Py_BuildValue("(sss)", jl_figure_name((jl_figure)i),
                                    jl_figure_unit((jl_figure)i), jl_figure_doc((jl_figure)i));
        if (!t) {
            Py_DECREF(l);
            return NULL;
        }
        PyList_SET_ITEM(l, i, t);
    }
    return l;
}

/* The importer table: [(name, summary, paths, description, [(option, arg, help)])]. */
static PyObject *py_importers(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    size_t n;
    const jl_importer *const *t = jl_importers(&n);
    PyObject *l = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; l && i < n; i++) {
        PyObject *opts = PyList_New(0);
        for (const jl_importer_option *o = t[i]->options; opts && o->name; o++) {
            PyObject *x = Py_BuildValue("(szs)", o->name, o->arg, o->help);
            if (!x || PyList_Append(opts, x) < 0) {
                Py_XDECREF(x);
                Py_CLEAR(opts);
                break;
            }
            Py_DECREF(x);
        }
        PyObject *row = opts ? Py_BuildValue("(ssssNnn)", t[i]->name, t[i]->summary, t[i]->paths,
                                             t[i]->description, opts, (Py_ssize_t)t[i]->min_paths,
                                             (Py_ssize_t)t[i]->max_paths)
                             : NULL;
        if (!row) {
            Py_DECREF(l);
            return NULL;
        }
        PyList_SET_ITEM(l, (Py_ssize_t)i, row);
    }
    return l;
}

/* The "did you mean" of the library (jl_suggest_name): name's nearest of cands, or None. */
static PyObject *py_suggest(PyObject *self, PyObject *args)
{
    (void)self;
    const char *name;
    PyObject *cands;
    if (!PyArg_ParseTuple(args, "sO!", &name, &PyList_Type, &cands))
        return NULL;
    size_t n;
    const char **c = pyj_strings(cands, &n, "suggest");
    if (!c)
        return NULL;
    char buf[256];
    int found = jl_suggest_name(name, c, n, buf, sizeof buf);
    PyMem_Free(c);
    if (!found)
        Py_RETURN_NONE;
    return PyUnicode_FromString(buf);
}

/* The canonical text of an SLO expression, or joules.UsageError with the
 * CLI's message and caret. */
static PyObject *py_slo(PyObject *self, PyObject *args)
{
    (void)self;
    const char *expr;
    if (!PyArg_ParseTuple(args, "s", &expr))
        return NULL;
    jl_slo *slo = NULL;
    jl_error *err = NULL;
    size_t off = 0;
    if (jl_slo_parse(expr, &slo, &off, &err) != JL_OK) {
        char *caret = jl_slo_caret(expr, off);
        PyObject *r =
            pyj_usage("--slo: %s\n%s", err ? err->message : "out of memory", caret ? caret : "");
        free(caret);
        jl_error_free(err);
        return r;
    }
    char *c = jl_slo_canonical(slo);
    jl_slo_free(slo);
    if (!c)
        return PyErr_NoMemory();
    PyObject *r = PyUnicode_FromString(c);
    free(c);
    return r;
}

static PyMethodDef methods[] = {
    {"version", py_version, METH_NOARGS, "The version of libjoules linked (jl_version())."},
    {"figures", py_figures, METH_NOARGS, "[(name, unit, doc)] of every summary figure."},
    {"importers", py_importers, METH_NOARGS, "The importer table."},
    {"suggest", py_suggest, METH_VARARGS, "The library's 'did you mean' of a name."},
    {"slo", py_slo, METH_VARARGS, "An SLO expression checked, in canonical text."},
    {"import_", (PyCFunction)(void (*)(void))pyj_import, METH_VARARGS | METH_KEYWORDS,
     "Import other formats into a trace (the importer table)."},
    {"attribute", (PyCFunction)(void (*)(void))pyj_attribute, METH_VARARGS | METH_KEYWORDS,
     "The joules.attribution/1 document of one profiled run."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moddef = {
    PyModuleDef_HEAD_INIT,
    "joules._joules",
    "The C extension of the joules package: the library's calls (docs/python.md).",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__joules(void);

PyMODINIT_FUNC PyInit__joules(void)
{
    import_array();
    PyObject *m = PyModule_Create(&moddef);
    if (!m)
        return NULL;
    if (make_exceptions(m) < 0 || pyj_study_init_type(m) < 0 || pyj_trace_init_type(m) < 0 ||
        pyj_writer_init_type(m) < 0 ||
        PyModule_AddStringConstant(m, "__version__", JL_VERSION_STRING) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
