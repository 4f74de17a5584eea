/* Study: runs loaded once from paths (jl_study_open, as every analysis
 * command of the CLI loads them), their summaries as typed columns, and
 * the document of every analysis, made by the same library calls the CLI
 * makes (src/cli/cmd_*.c), with errors and provenance. */
#include "pyjoules.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    PyObject_HEAD jl_summary_list runs;
    jl_error_list errors;
    jl_descriptors *desc;
    jl_ruleset rules;
    jl_study_options opt;
    jl_names names;
    size_t n_read;
    char *unmatched;
    jl_context *ctx; /* the study's own (joules/context.h): its files and digests */
} StudyObject;

static void study_dealloc(StudyObject *s)
{
    jl_summary_list_clear(&s->runs);
    jl_error_list_clear(&s->errors);
    jl_descriptors_free(s->desc);
    free(s->unmatched);
    jl_context_free(s->ctx);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

static PyObject *study_new(PyTypeObject *t, PyObject *args, PyObject *kw)
{
    (void)args;
    (void)kw;
    StudyObject *s = (StudyObject *)t->tp_alloc(t, 0);
    if (s) {
        jl_study_options_default(&s->opt);
        jl_ruleset_default(&s->rules);
        if (!(s->ctx = jl_context_new())) {
            Py_DECREF(s);
            return PyErr_NoMemory();
        }
        s->opt.trace.context = s->ctx;
    }
    return (PyObject *)s;
}

/* Study(paths, where, exclude, workers, rules, set_rules, max_rows,
 *       max_dataset_bytes, window, names, fields_only, isolate, hash_inputs) */
static int study_init(StudyObject *s, PyObject *args, PyObject *kw)
{
    static char *kwl[] = {"paths",       "where",    "exclude",           "workers", "rules",
                          "set_rules",   "max_rows", "max_dataset_bytes", "window",  "names",
                          "fields_only", "isolate",  "hash_inputs",       NULL};
    PyObject *paths, *where = Py_None, *exclude = Py_None, *set_rules = Py_None, *window = Py_None;
    const char *rules = NULL, *names = "joules";
    int workers = 1, fields_only = 1, isolate = 1, hash_inputs = 1;
    unsigned long long max_rows = 0, max_bytes = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!|OOizOKKOsppp", kwl, &PyList_Type, &paths, &where,
                                     &exclude, &workers, &rules, &set_rules, &max_rows, &max_bytes,
                                     &window, &names, &fields_only, &isolate, &hash_inputs))
        return -1;
    if (s->runs.count || s->errors.count) {
        PyErr_SetString(PyExc_RuntimeError, "a Study is loaded once");
        return -1;
    }
    if (workers < 1 || workers > 256) {
        pyj_usage("--workers: '%d' is not a whole number in 1..256", workers);
        return -1;
    }
    int nm = jl_names_parse(names);
    if (nm < 0) {
        pyj_usage("--names: '%s' is not one of joules, mlenergy", names);
        return -1;
    }
    s->names = (jl_names)nm;
    s->opt.workers = workers;
    s->opt.isolate = isolate || workers > 1;
    s->opt.hash_inputs = hash_inputs;
    s->opt.trace.summary_fields_only = fields_only;
    if (max_rows)
        s->opt.trace.limits.max_rows = max_rows;
    if (max_bytes)
        s->opt.trace.limits.max_dataset_bytes = max_bytes;
    if (window != Py_None) {
        double a, b;
        if (!PyArg_ParseTuple(window, "dd", &a, &b))
            return -1;
        if (!(b > a)) {
            pyj_usage("--window %g,%g: B must be greater than A", a, b);
            return -1;
        }
        s->opt.summary.custom_window = 1;
        s->opt.summary.window[0] = a;
        s->opt.summary.window[1] = b;
    }
    jl_error *err = NULL;
    jl_status st;
    /* the rules file is the study's input: read in its context */
    jl_context *was = jl_context_use(s->ctx);
    st = rules ? jl_ruleset_load_json(&s->rules, rules, &err) : JL_OK;
    jl_context_use(was);
    if (st != JL_OK) {
        pyj_raise(st, err);
        return -1;
    }
    size_t n = 0;
    const char **sr = pyj_strings(set_rules, &n, "set_rule");
    if (!sr)
        return -1;
    for (size_t i = 0; i < n; i++)
        if ((st = jl_ruleset_set(&s->rules, sr[i], &err)) != JL_OK) {
            PyMem_Free(sr);
            pyj_usage("%s", err ? err->message : "out of memory");
            jl_error_free(err);
            return -1;
        }
    PyMem_Free(sr);
    jl_selector *sel = NULL;
    PyObject *clauses[2] = {where, exclude};
    for (int ex = 0; ex < 2; ex++) {
        const char **c = pyj_strings(clauses[ex], &n, ex ? "exclude" : "where");
        if (!c) {
            jl_selector_free(sel);
            return -1;
        }
        for (size_t i = 0; i < n; i++) {
            if (!sel && !(sel = jl_selector_new())) {
                PyMem_Free(c);
                PyErr_NoMemory();
                return -1;
            }
            if ((st = jl_selector_add(sel, ex, c[i], &err)) != JL_OK) {
                PyMem_Free(c);
                jl_selector_free(sel);
                if (st == JL_ENOMEM) {
                    pyj_raise(st, err);
                    return -1;
                }
                pyj_usage("%s", err ? err->message : "invalid clause");
                jl_error_free(err);
                return -1;
            }
        }
        PyMem_Free(c);
    }
    const char **p = pyj_strings(paths, &n, "paths");
    if (!p) {
        jl_selector_free(sel);
        return -1;
    }
    if (!n) {
        PyMem_Free(p);
        jl_selector_free(sel);
        pyj_usage("no PATH given");
        return -1;
    }
    PYJ_CALL(st = jl_study_open(p, n, &s->opt, sel, &s->rules, &s->runs, &s->errors, &s->desc,
                                &s->n_read, &s->unmatched));
    PyMem_Free(p);
    jl_selector_free(sel);
    if (st != JL_OK) {
        pyj_raise(st, NULL);
        return -1;
    }
    return 0;
}

/* ---- what the study holds ------------------------------------------------------ */

static PyObject *study_errors(StudyObject *s, PyObject *unused)
{
    (void)unused;
    return pyj_errors(&s->errors);
}

/* Raise the first of the study's errors as its exception, with every
 * error of the study in .errors (nothing could be processed). */
static PyObject *study_raise_first(StudyObject *s, PyObject *unused)
{
    (void)unused;
    if (!s->errors.count)
        Py_RETURN_NONE;
    const jl_error *e = s->errors.items[0];
    pyj_raise_copy(e->code, e);
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    PyObject *all = pyj_errors(&s->errors);
    if (all && value)
        PyObject_SetAttrString(value, "errors", all);
    Py_XDECREF(all);
    PyErr_Restore(type, value, tb);
    return NULL;
}

static PyObject *study_unmatched(StudyObject *s, void *closure)
{
    (void)closure;
    if (!s->unmatched)
        Py_RETURN_NONE;
    return PyUnicode_FromString(s->unmatched);
}

static PyObject *study_count(StudyObject *s, void *closure)
{
    (void)closure;
    return PyLong_FromSize_t(s->runs.count);
}

static PyObject *study_n_read(StudyObject *s, void *closure)
{
    (void)closure;
    return PyLong_FromSize_t(s->n_read);
}

static PyObject *study_names(StudyObject *s, void *closure)
{
    (void)closure;
    return PyUnicode_FromString(s->names == JL_NAMES_MLENERGY ? "mlenergy" : "joules");
}

/* A buffer of the library's, given to a NumPy array that frees it. */
static void free_capsule(PyObject *cap)
{
    free(PyCapsule_GetPointer(cap, NULL));
}

static PyObject *owned_array(void *data, npy_intp n, int type)
{
    PyObject *a = PyArray_SimpleNewFromData(1, &n, type, data);
    if (!a) {
        free(data);
        return NULL;
    }
    PyObject *cap = PyCapsule_New(data, NULL, free_capsule);
    if (!cap || PyArray_SetBaseObject((PyArrayObject *)a, cap) < 0) {
        if (!cap)
            free(data);
        Py_DECREF(a);
        return NULL;
    }
    return a;
}

/* The summaries' CSV as typed columns (jl_summaries_table): [(name, kind,
 * values)], kind "number" (a float64 array, NaN where missing), "integer"
 * (an int64 array) or "text" (a list of str, None where empty). */
static PyObject *study_table(StudyObject *s, PyObject *unused)
{
    (void)unused;
    jl_table *t = NULL;
    jl_error *err = NULL;
    jl_status st;
    PYJ_CALL(st = jl_summaries_table(&s->runs, s->names, &t, &err));
    if (st != JL_OK)
        return pyj_raise(st, err);
    PyObject *l = PyList_New((Py_ssize_t)t->n_cols);
    for (size_t k = 0; l && k < t->n_cols; k++) {
        jl_table_column *c = &t->cols[k];
        PyObject *vals = NULL;
        const char *kind = "text";
        if (c->kind == JL_TABLE_NUMBER) {
            kind = "number";
            vals = owned_array(c->num, (npy_intp)t->n_rows, NPY_FLOAT64);
            c->num = NULL; /* the array's now */
        } else if (c->kind == JL_TABLE_INTEGER) {
            kind = "integer";
            int64_t *v = malloc((t->n_rows ? t->n_rows : 1) * sizeof *v);
            for (size_t i = 0; v && i < t->n_rows; i++)
                v[i] = (int64_t)c->num[i];
            vals = v ? owned_array(v, (npy_intp)t->n_rows, NPY_INT64) : PyErr_NoMemory();
        } else {
            vals = PyList_New((Py_ssize_t)t->n_rows);
            for (size_t i = 0; vals && i < t->n_rows; i++) {
                const char *x = c->text[i];
                PyObject *o = x ? PyUnicode_DecodeUTF8(x, (Py_ssize_t)strlen(x), "replace")
                                : Py_NewRef(Py_None);
                if (!o) {
                    Py_CLEAR(vals);
                    break;
                }
                PyList_SET_ITEM(vals, (Py_ssize_t)i, o);
            }
        }
        PyObject *row = vals ? Py_BuildValue("(ssN)", c->name, kind, vals) : NULL;
        if (!row) {
            Py_CLEAR(l);
            break;
        }
        PyList_SET_ITEM(l, (Py_ssize_t)k, row);
    }
    jl_table_free(t);
    return l;
}

/* The run object of run i (jl_summary_to_json, as in every document). */
static PyObject *study_run(StudyObject *s, PyObject *args)
{
    Py_ssize_t i;
    if (!PyArg_ParseTuple(args, "n", &i))
        return NULL;
    if (i < 0 || (size_t)i >= s->runs.count) {
        PyErr_SetString(PyExc_IndexError, "run index out of range");
        return NULL;
    }
    json_t *o = jl_summary_to_json(s->runs.items[i]);
    if (o && s->names == JL_NAMES_MLENERGY)
        jl_json_rename_mlenergy(o);
    return pyj_document(o);
}

/* The runs that are not valid (joules/validity.h), each with the reasons
 * that make it so: [(file, run, [(code, message)])], in order. */
static PyObject *study_invalid(StudyObject *s, PyObject *unused)
{
    (void)unused;
    PyObject *l = PyList_New(0);
    for (size_t i = 0; l && i < s->runs.count; i++) {
        const jl_summary *x = s->runs.items[i];
        if (jl_validity_is_valid(&x->validity))
            continue;
        PyObject *reasons = PyList_New(0);
        for (size_t k = 0; reasons && k < x->validity.n; k++) {
            const jl_reason *r = &x->validity.reasons[k];
            if (jl_reason_severity(r) != JL_SEVERITY_INVALID)
                continue;
            PyObject *t =
                Py_BuildValue("(ss)", r->code ? r->code : "", r->message ? r->message : "");
            if (!t || PyList_Append(reasons, t) < 0)
                Py_CLEAR(reasons);
            Py_XDECREF(t);
        }
        PyObject *row = reasons ? Py_BuildValue("(zzN)", x->file, x->run, reasons) : NULL;
        if (!row || PyList_Append(l, row) < 0)
            Py_CLEAR(l);
        Py_XDECREF(row);
    }
    return l;
}

/* [(file, run)] of the runs, in order. */
static PyObject *study_keys(StudyObject *s, PyObject *unused)
{
    (void)unused;
    PyObject *l = PyList_New((Py_ssize_t)s->runs.count);
    for (size_t i = 0; l && i < s->runs.count; i++) {
        PyObject *t = Py_BuildValue("(zz)", s->runs.items[i]->file, s->runs.items[i]->run);
        if (!t) {
            Py_CLEAR(l);
            break;
        }
        PyList_SET_ITEM(l, (Py_ssize_t)i, t);
    }
    return l;
}

/* ---- documents ------------------------------------------------------------------ */

/* A document as the CLI's --json prints it: names as --names says, the
 * study's errors and the provenance of the call (argv, inputs); takes doc.
 * doc NULL: MemoryError. */
static PyObject *finish(StudyObject *s, json_t *doc, PyObject *argv, PyObject *inputs)
{
    if (!doc)
        return PyErr_NoMemory();
    if (s->names == JL_NAMES_MLENERGY)
        jl_json_rename_mlenergy(doc);
    json_object_set_new(doc, "errors", jl_errors_to_json(&s->errors));
    json_t *prov = pyj_provenance(argv, inputs, &s->rules, &s->opt.summary, s->names, s->ctx);
    if (!prov) {
        json_decref(doc);
        return NULL;
    }
    json_object_set_new(doc, "provenance", prov);
    return pyj_document(doc);
}

/* SLO expressions parsed (the CLI's --slo, message and caret). */
typedef struct {
    jl_slo **items;
    size_t n;
} slos;

static void slos_free(slos *x)
{
    for (size_t i = 0; i < x->n; i++)
        jl_slo_free(x->items[i]);
    free(x->items);
}

static int parse_slos(PyObject *list, slos *out)
{
    memset(out, 0, sizeof *out);
    size_t n;
    const char **e = pyj_strings(list, &n, "slo");
    if (!e)
        return -1;
    out->items = calloc(n ? n : 1, sizeof *out->items);
    if (!out->items) {
        PyMem_Free(e);
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        jl_error *err = NULL;
        size_t off = 0;
        if (jl_slo_parse(e[i], &out->items[i], &off, &err) != JL_OK) {
            char *caret = jl_slo_caret(e[i], off);
            pyj_usage("--slo: %s\n%s", err ? err->message : "out of memory", caret ? caret : "");
            free(caret);
            jl_error_free(err);
            PyMem_Free(e);
            slos_free(out);
            return -1;
        }
        out->n++;
    }
    PyMem_Free(e);
    return 0;
}

/* A figure option by name (--latency p90_itl), with "did you mean". */
static int figure_option(const char *opt, const char *name, int *out)
{
    if (!name)
        return 0;
    int f = jl_slo_resolve_figure(name, NULL);
    if (f < 0) {
        char near[64];
        int hint = jl_slo_suggest_figure(name, near, sizeof near);
        pyj_usage("--%s: unknown figure '%s' (%s%s%se.g. median_itl, p90_itl, p99_itl, ttft_p90, "
                  "batch_latency; summary.md lists them all)",
                  opt, name, hint ? "did you mean '" : "", hint ? near : "", hint ? "'? " : "");
        return -1;
    }
    *out = f;
    return 0;
}

#define ARGV_INPUTS "argv", "inputs"

static PyObject *study_summary_doc(StudyObject *s, PyObject *args, PyObject *kw)
{
    static char *kwl[] = {ARGV_INPUTS, NULL};
    PyObject *argv, *inputs;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO", kwl, &argv, &inputs))
        return NULL;
    json_t *doc;
    PYJ_CALL(doc = jl_summary_document(&s->runs, NULL));
    return finish(s, doc, argv, inputs);
}

static PyObject *study_provenance(StudyObject *s, PyObject *args, PyObject *kw)
{
    static char *kwl[] = {ARGV_INPUTS, NULL};
    PyObject *argv, *inputs;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO", kwl, &argv, &inputs))
        return NULL;
    return pyj_document(pyj_provenance(argv, inputs, &s->rules, &s->opt.summary, s->names, s->ctx));
}

static PyObject *study_check_doc(StudyObject *s, PyObject *args, PyObject *kw)
{
    static char *kwl[] = {ARGV_INPUTS, NULL};
    PyObject *argv, *inputs;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO", kwl, &argv, &inputs))
        return NULL;
    json_t *doc;
    PYJ_CALL(doc = jl_check_document(&s->runs, &s->rules, s->desc, NULL, NULL));
    if (doc) /* jl_check_document lists errors itself: the study's, as finish() adds them */
        json_object_del(doc, "errors");
    return finish(s, doc, argv, inputs);
}

static PyObject *study_frontier(StudyObject *s, PyObject *args, PyObject *kw)
{
    static char *kwl[] = {ARGV_INPUTS, "latency", "energy", "tolerance", NULL};
    PyObject *argv, *inputs;
    const char *lat = NULL, *en = NULL;
    jl_frontier_options fo;
    jl_frontier_options_default(&fo);
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|zzd", kwl, &argv, &inputs, &lat, &en,
                                     &fo.tolerance))
        return NULL;
    if (figure_option("latency", lat, &fo.latency_figure) < 0 ||
        figure_option("energy", en, &fo.energy_figure) < 0)
        return NULL;
    if (!(fo.tolerance >= 0 && fo.tolerance < 1))
        return pyj_usage("--tolerance must be in [0, 1)");
    jl_frontier_set *fs = NULL;
    jl_error *err = NULL;
    jl_status st;
    json_t *doc = NULL;
    PYJ_CALL(st = jl_frontier_compute(&s->runs, &fo, &fs, &err);
             if (st == JL_OK) doc = jl_frontier_document(fs, &s->runs));
    jl_frontier_set_free(fs);
    if (st != JL_OK)
        return pyj_raise(st, err);
    return finish(s, doc, argv, inputs);
}

/* pick, as `joules pick` picks (src/cli/cmd_pick.c): the runs that are
 * not valid answer no pick unless allow_invalid (a view of the study's
 * runs: the study keeps them all), and an SLO that applies to no run is
 * an error, never a quiet "not applicable" everywhere. */
static PyObject *study_pick(StudyObject *s, PyObject *args, PyObject *kw)
{
    static char *kwl[] = {ARGV_INPUTS, "slo", "allow_invalid", NULL};
    PyObject *argv, *inputs, *slo = Py_None;
    int allow = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|Op", kwl, &argv, &inputs, &slo, &allow))
        return NULL;
    slos x;
    if (parse_slos(slo, &x) < 0)
        return NULL;
    jl_summary_list view = {malloc((s->runs.count ? s->runs.count : 1) * sizeof *view.items), 0, 0};
    if (!view.items) {
        slos_free(&x);
        return PyErr_NoMemory();
    }
    for (size_t i = 0; i < s->runs.count; i++)
        if (allow || jl_validity_is_valid(&s->runs.items[i]->validity))
            view.items[view.count++] = s->runs.items[i];
    view.cap = view.count;
    PyObject *ret = NULL;
    if (!view.count && s->runs.count) {
        pyj_raise(JL_ENODATA,
                  jl_error_new(JL_ENODATA, NULL, NULL, NULL, -1,
                               "%zu run%s not valid left out (--allow-invalid keeps them)",
                               s->runs.count, s->runs.count == 1 ? "" : "s"));
        goto out;
    }
    jl_pick_set *ps = NULL;
    jl_error *err = NULL;
    jl_status st;
    json_t *doc = NULL;
    PYJ_CALL(st = jl_pick_all(&view, (const jl_slo *const *)x.items, x.n, NULL, &ps, &err);
             if (st == JL_OK) doc = jl_pick_document(ps, &view));
    for (size_t k = 0; st == JL_OK && ps && k < ps->n_slos; k++) {
        if (!jl_pick_slo_applies(ps, k)) { /* as cmd_pick.c's slos_apply */
            st = jl_fail(&err, JL_ENODATA, NULL, NULL, NULL, -1,
                         "--slo '%s' applies to no run: none has the figures it judges (and the "
                         "energy figure)",
                         ps->slos[k]->text);
            break;
        }
    }
    jl_pick_set_free(ps);
    if (st != JL_OK) {
        json_decref(doc);
        pyj_raise(st, err);
        goto out;
    }
    ret = finish(s, doc, argv, inputs);
out:
    free(view.items); /* the summaries stay the study's */
    slos_free(&x);
    return ret;
}

static PyObject *study_compare(StudyObject *s, PyObject *args, PyObject *kw)
{
    static char *kwl[] = {ARGV_INPUTS, "by", "baseline", "slo", "hold", "bins", "latency", NULL};
    PyObject *argv, *inputs, *slo = Py_None, *hold = Py_None, *bins = Py_None;
    const char *by, *baseline, *lat = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOss|OOOz", kwl, &argv, &inputs, &by, &baseline,
                                     &slo, &hold, &bins, &lat))
        return NULL;
    int precision = !strcmp(by, "precision");
    slos x;
    if (parse_slos(slo, &x) < 0)
        return NULL;
    if (precision && x.n) {
        slos_free(&x);
        return pyj_usage("--by precision pairs runs configuration by configuration: no --slo");
    }
    if (!precision && (bins != Py_None || lat)) {
        slos_free(&x);
        return pyj_usage("--bins and --latency belong to --by precision");
    }
    jl_error *err = NULL;
    jl_status st;
    json_t *doc = NULL;
    if (precision) {
        slos_free(&x); /* none (checked above) */
        memset(&x, 0, sizeof x);
        jl_precision_options po;
        jl_precision_options_default(&po);
        po.baseline = baseline;
        double *edges = NULL;
        if (bins != Py_None) {
            PyObject *seq = PySequence_Fast(bins, "bins: expected a list of numbers");
            if (!seq)
                return NULL;
            Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
            edges = malloc((size_t)(n ? n : 1) * sizeof *edges);
            for (Py_ssize_t i = 0; edges && i < n; i++) {
                edges[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, i));
                if (edges[i] == -1 && PyErr_Occurred()) {
                    Py_DECREF(seq);
                    free(edges);
                    return NULL;
                }
                if (!isfinite(edges[i]) || (i > 0 && !(edges[i] > edges[i - 1]))) {
                    Py_DECREF(seq);
                    free(edges);
                    return pyj_usage("--bins must be strictly ascending");
                }
            }
            Py_DECREF(seq);
            if (!edges)
                return PyErr_NoMemory();
            if (n < 2) {
                free(edges);
                return pyj_usage("--bins needs at least two edges");
            }
            po.bins = edges;
            po.n_bins = (size_t)n;
        }
        if (figure_option("latency", lat, &po.latency_figure) < 0) {
            free(edges);
            return NULL;
        }
        jl_precision_result *r = NULL;
        PYJ_CALL(st = jl_compare_precision(&s->runs, &po, &r, &err);
                 if (st == JL_OK) doc = jl_precision_document(r, &s->runs));
        jl_precision_result_free(r);
        free(edges);
    } else {
        size_t n_hold = 0;
        const char **h = pyj_strings(hold, &n_hold, "hold");
        if (!h) {
            slos_free(&x);
            return NULL;
        }
        const char *def[] = {"gpu_model", NULL};
        if (hold == Py_None && !strcmp(by, "num_gpus")) { /* the CLI's default */
            PyMem_Free(h);
            h = NULL;
            n_hold = 1;
        }
        jl_compare_options co = {by, baseline, h ? h : def, n_hold, {-1, 1e-9}};
        jl_compare_result *r = NULL;
        PYJ_CALL(st = jl_compare(&s->runs, (const jl_slo *const *)x.items, x.n, &co, &r, &err);
                 if (st == JL_OK) doc = jl_compare_document(r, &s->runs));
        jl_compare_result_free(r);
        PyMem_Free(h);
    }
    slos_free(&x);
    if (st != JL_OK)
        return pyj_raise(st, err);
    return finish(s, doc, argv, inputs);
}

/* A series option of emissions and capacity (a number or a CSV file; jl_tseries_parse,
 * jl_tseries_parse_pue for the PUE): a usage error as on the CLI, whatever
 * went wrong but memory. */
static int series_option(const char *arg, int pue, jl_intensity_kind kind, jl_tseries **out)
{
    if (!arg)
        return 0;
    jl_error *err = NULL;
    jl_status st;
    PYJ_CALL(st = pue ? jl_tseries_parse_pue(arg, out, &err)
                      : jl_tseries_parse(arg, kind, out, &err));
    if (st != JL_OK) {
        if (err && st != JL_ENOMEM)
            err->code = JL_EUSAGE;
        pyj_raise(st == JL_ENOMEM ? st : JL_EUSAGE, err);
        return -1;
    }
    return 0;
}

/* capacity's --pue and --grid-intensity: a number (text or a Python
 * number) or a CSV series, its time-weighted mean (as cmd_capacity.c). */
static int series_mean(PyObject *o, int pue, double *out)
{
    if (o == Py_None)
        return 0;
    PyObject *text = PyUnicode_Check(o) ? Py_NewRef(o) : PyObject_Str(o);
    const char *arg = text ? PyUnicode_AsUTF8(text) : NULL;
    jl_tseries *ts = NULL;
    int rc = arg ? series_option(arg, pue, JL_INTENSITY_AVERAGE, &ts) : -1;
    if (rc == 0)
        *out = jl_tseries_mean(ts);
    jl_tseries_free(ts);
    Py_XDECREF(text);
    return rc;
}

static PyObject *study_capacity(StudyObject *s, PyObject *args, PyObject *kw)
{
    static char *kwl[] = {ARGV_INPUTS, "power_budget", "slo", "pue", "grid_intensity", NULL};
    PyObject *argv, *inputs, *slo = Py_None, *pue = Py_None, *grid = Py_None;
    jl_capacity_options co;
    jl_capacity_options_default(&co);
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOd|OOO", kwl, &argv, &inputs, &co.power_budget_w,
                                     &slo, &pue, &grid))
        return NULL;
    if (!(co.power_budget_w > 0) || !isfinite(co.power_budget_w))
        return pyj_usage("--power-budget must be > 0 W");
    if (series_mean(pue, 1, &co.pue) < 0 || series_mean(grid, 0, &co.grid_g_per_kwh) < 0)
        return NULL;
    slos x;
    if (parse_slos(slo, &x) < 0)
        return NULL;
    jl_capacity_result *r = NULL;
    jl_error *err = NULL;
    jl_status st;
    json_t *doc = NULL;
    PYJ_CALL(st = jl_capacity(&s->runs, (const jl_slo *const *)x.items, x.n, &co, &r, &err);
             if (st == JL_OK) doc = jl_capacity_document(r, &s->runs));
    jl_capacity_result_free(r);
    slos_free(&x);
    if (st != JL_OK)
        return pyj_raise(st, err);
    return finish(s, doc, argv, inputs);
}

static PyObject *study_fit(StudyObject *s, PyObject *args, PyObject *kw)
{
    static char *kwl[] = {ARGV_INPUTS,  "grid",   "loo",  "anchor", "what_if_loo",
                          "correction", "robust", "pool", "regime", NULL};
    PyObject *argv, *inputs;
    Py_ssize_t grid = JL_FIT_DEFAULT_GRID;
    int loo = 0, anchor = 0, whatif = 0, correction = 1;
    jl_model_options mo;
    jl_model_options_default(&mo);
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|nppppddd", kwl, &argv, &inputs, &grid, &loo,
                                     &anchor, &whatif, &correction, &mo.robust, &mo.pool_weight,
                                     &mo.regime_ratio))
        return NULL;
    mo.correction = correction;
    if (grid < 0 || grid > 10000)
        return pyj_usage("--grid: '%zd' is not a whole number in 0..10000", grid);
    if (grid == 1)
        grid = 2;
    if (anchor && !loo)
        return pyj_usage("--anchor needs --loo");
    if (!(mo.robust >= 0))
        return pyj_usage("--robust must be >= 0");
    if (!(mo.pool_weight >= 0 && mo.pool_weight <= 1))
        return pyj_usage("--pool must be in [0, 1]");
    if (!(mo.regime_ratio >= 0 && mo.regime_ratio <= 1))
        return pyj_usage("--regime must be in [0, 1]");
    jl_model_set *set = NULL;
    jl_group_fit *const *fits = NULL;
    jl_loo_result lj = {0}, la = {0};
    jl_whatif_loo wl;
    memset(&wl, 0, sizeof wl);
    jl_error *err = NULL;
    jl_status st;
    json_t *doc = NULL;
    PYJ_CALL({
        st = jl_model_set_open(&s->runs, s->desc, &mo, &set, &err);
        if (st == JL_OK)
            st = jl_model_set_fit_all(set, &fits, &err);
        if (st == JL_OK && loo)
            st = jl_model_set_loo(set, JL_LOO_JOULES, &lj, &err);
        if (st == JL_OK && anchor)
            st = jl_model_set_loo(set, JL_LOO_ANCHOR, &la, &err);
        if (st == JL_OK && whatif)
            st = jl_model_set_whatif_loo(set, &wl, &err);
        if (st == JL_OK)
            doc = jl_model_set_fit_document(set, (size_t)grid, loo ? &lj : NULL,
                                            anchor ? &la : NULL, whatif ? &wl : NULL);
    });
    jl_loo_result_clear(&lj);
    jl_loo_result_clear(&la);
    jl_whatif_loo_clear(&wl);
    jl_model_set_free(set);
    if (st != JL_OK)
        return pyj_raise(st, err);
    return finish(s, doc, argv, inputs);
}

/* A list of positive numbers into a malloc'd array (*n its length). */
static double *positives(PyObject *o, const char *what, size_t *n)
{
    *n = 0;
    if (o == Py_None)
        return calloc(1, sizeof(double));
    PyObject *seq = PySequence_Fast(o, "expected a list of numbers");
    if (!seq)
        return NULL;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
    double *v = malloc((size_t)(len ? len : 1) * sizeof *v);
    for (Py_ssize_t i = 0; v && i < len; i++) {
        PyObject *x = PySequence_Fast_GET_ITEM(seq, i);
        v[i] = PyFloat_AsDouble(x);
        if (v[i] == -1 && PyErr_Occurred()) {
            free(v);
            Py_DECREF(seq);
            return NULL;
        }
        if (!(v[i] > 0) || !isfinite(v[i])) {
            PyObject *r = PyObject_Repr(x);
            pyj_usage("%s '%s': expected a positive number", what, r ? PyUnicode_AsUTF8(r) : "?");
            Py_XDECREF(r);
            free(v);
            Py_DECREF(seq);
            return NULL;
        }
    }
    Py_DECREF(seq);
    if (!v)
        PyErr_NoMemory();
    else
        *n = (size_t)len;
    return v;
}

/* The one group sel selects, or UsageError listing the candidates (the
 * CLI's message on stderr). */
static int select_group(const jl_model_group_list *gl, const jl_selector *sel, size_t *which)
{
    size_t *idx = NULL, nm = 0;
    jl_error *err = NULL;
    jl_status st = jl_model_groups_select(gl, sel, &idx, &nm, &err);
    if (st != JL_OK) {
        pyj_raise(st, err);
        return -1;
    }
    if (nm == 1) {
        *which = idx[0];
        free(idx);
        return 0;
    }
    PyObject *lines = PyList_New(0);
    size_t total = nm ? nm : gl->count, shown = total < 40 ? total : 40;
    for (size_t i = 0; lines && i < shown; i++) {
        const jl_model_group *g = &gl->items[nm ? idx[i] : i];
        char *k = jl_group_key_format(&g->key);
        PyObject *line = PyUnicode_FromFormat("  %s  (%zu runs, %zu batch sizes)", k ? k : "?",
                                              g->n_runs, g->n_batch_sizes);
        free(k);
        if (!line || PyList_Append(lines, line) < 0)
            Py_CLEAR(lines);
        Py_XDECREF(line);
    }
    free(idx);
    if (!lines)
        return -1;
    PyObject *sep = PyUnicode_FromString("\n");
    PyObject *text = sep ? PyUnicode_Join(sep, lines) : NULL;
    Py_XDECREF(sep);
    Py_DECREF(lines);
    if (!text)
        return -1;
    if (nm == 0)
        pyj_usage("--group selects no group; the groups are:\n%s%s", PyUnicode_AsUTF8(text),
                  total > shown ? "\n  ..." : "");
    else
        pyj_usage("--group selects %zu groups, it must select one:\n%s%s", nm,
                  PyUnicode_AsUTF8(text), total > shown ? "\n  ..." : "");
    Py_DECREF(text);
    return -1;
}

static PyObject *study_predict(StudyObject *s, PyObject *args, PyObject *kw)
{
    static char *kwl[] = {ARGV_INPUTS, "group", "batch", "cap", "what_if", "pool", NULL};
    PyObject *argv, *inputs, *batch = Py_None, *cap = Py_None;
    const char *group, *whatif = NULL;
    jl_model_options mo;
    jl_model_options_default(&mo);
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOs|OOzd", kwl, &argv, &inputs, &group, &batch,
                                     &cap, &whatif, &mo.pool_weight))
        return NULL;
    if (!(mo.pool_weight >= 0 && mo.pool_weight <= 1))
        return pyj_usage("--pool must be in [0, 1]");
    size_t nb = 0, nc = 0;
    double *b = positives(batch, "--batch", &nb);
    double *c = b ? positives(cap, "--cap", &nc) : NULL;
    jl_selector *sel = c ? jl_selector_new() : NULL;
    double *x = sel ? malloc((nb + nc + 1) * sizeof *x) : NULL;
    int *is_cap = x ? malloc((nb + nc + 1) * sizeof *is_cap) : NULL;
    PyObject *ret = NULL;
    jl_model_set *set = NULL;
    if (!is_cap) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        goto out;
    }
    for (size_t i = 0; i < nb; i++) {
        x[i] = b[i];
        is_cap[i] = 0;
    }
    for (size_t i = 0; i < nc; i++) {
        x[nb + i] = c[i];
        is_cap[nb + i] = 1;
    }
    jl_error *err = NULL;
    jl_status st = jl_selector_add_spec(sel, group, &err);
    if (st != JL_OK) {
        if (st == JL_EUSAGE)
            pyj_usage("--group: %s", err ? err->message : "bad clause");
        else
            pyj_raise(st, err), err = NULL;
        jl_error_free(err);
        goto out;
    }
    if (!nb && !nc && !whatif) {
        pyj_usage("give --batch N, --batch-range A:B[:STEP] or --cap N");
        goto out;
    }
    if (whatif)
        for (size_t i = 0; i < nb + nc; i++)
            if (!is_cap[i] || x[i] != floor(x[i])) {
                pyj_usage("--what-if predicts at caps: give --cap N (whole numbers)");
                goto out;
            }
    PYJ_CALL(st = jl_model_set_open(&s->runs, s->desc, &mo, &set, &err));
    if (st != JL_OK) {
        pyj_raise(st, err);
        goto out;
    }
    size_t which = 0;
    if (select_group(jl_model_set_groups(set), sel, &which) < 0)
        goto out;
    json_t *doc = NULL;
    if (whatif) {
        long *caps = malloc((nc ? nc : 1) * sizeof *caps);
        if (!caps) {
            PyErr_NoMemory();
            goto out;
        }
        for (size_t i = 0; i < nc; i++)
            caps[i] = (long)c[i];
        jl_whatif w;
        memset(&w, 0, sizeof w);
        PYJ_CALL(st = jl_model_set_whatif(set, which, whatif, caps, nc, &w, &err);
                 if (st == JL_OK) doc = jl_whatif_document(&w, jl_model_set_groups(set)));
        free(caps);
        if (st == JL_OK)
            jl_whatif_clear(&w);
        if (st == JL_EUSAGE) {
            pyj_usage("--what-if: %s", err ? err->message : "bad request");
            jl_error_free(err);
            goto out;
        }
    } else {
        jl_prediction *pred = calloc(nb + nc, sizeof *pred);
        const jl_group_fit *fit = NULL;
        if (!pred) {
            PyErr_NoMemory();
            goto out;
        }
        PYJ_CALL(st = jl_model_set_predict(set, which, x, is_cap, nb + nc, pred, &err);
                 if (st == JL_OK) st = jl_model_set_fit(set, which, &fit, &err);
                 if (st == JL_OK) doc = jl_predict_document(fit, pred, nb + nc));
        free(pred);
    }
    if (st != JL_OK) {
        pyj_raise(st, err);
        goto out;
    }
    ret = finish(s, doc, argv, inputs);
out:
    jl_model_set_free(set);
    jl_selector_free(sel);
    free(b);
    free(c);
    free(x);
    free(is_cap);
    return ret;
}

static PyObject *study_diagnose(StudyObject *s, PyObject *args, PyObject *kw)
{
    static char *kwl[] = {ARGV_INPUTS, "reserve_gb", NULL};
    PyObject *argv, *inputs;
    double reserve = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|d", kwl, &argv, &inputs, &reserve))
        return NULL;
    if (!(reserve >= 0 && reserve < 1e4))
        return pyj_usage("--reserve-gb must be in [0, 10000)");
    jl_diagnose_options dopt;
    jl_diagnose_options_default(&dopt);
    dopt.ceiling.reserve_bytes_per_gpu = reserve * 1e9;
    jl_diagnosis *x = NULL;
    jl_error *err = NULL;
    jl_status st;
    json_t *doc = NULL;
    PYJ_CALL(st = jl_diagnose(&s->runs, s->desc, &dopt, &x, &err);
             if (st == JL_OK) doc = jl_diagnose_document(x));
    jl_diagnosis_free(x);
    if (st != JL_OK)
        return pyj_raise(st, err);
    return finish(s, doc, argv, inputs);
}

static PyObject *study_emissions(StudyObject *s, PyObject *args, PyObject *kw)
{
    static char *kwl[] = {ARGV_INPUTS, "grid_intensity", "marginal_intensity",
                          "pue",       "start",          NULL};
    PyObject *argv, *inputs;
    const char *grid = NULL, *marg = NULL, *pue = NULL, *start = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|zzzz", kwl, &argv, &inputs, &grid, &marg, &pue,
                                     &start))
        return NULL;
    jl_emissions_options eo = {NULL, NULL, NULL, NAN};
    jl_tseries *g = NULL, *m = NULL, *p = NULL;
    PyObject *ret = NULL;
    if (start && jl_time_parse(start, &eo.start_unix)) {
        pyj_usage("--start: '%s' is not an ISO 8601 time or Unix seconds", start);
        goto out;
    }
    if (series_option(grid, 0, JL_INTENSITY_AVERAGE, &g) < 0 ||
        series_option(marg, 0, JL_INTENSITY_MARGINAL, &m) < 0 ||
        series_option(pue, 1, JL_INTENSITY_AVERAGE, &p) < 0)
        goto out;
    eo.pue = p;
    eo.intensity = g;
    eo.marginal = m;
    jl_emissions_result *r = NULL;
    jl_error *err = NULL;
    jl_status st;
    json_t *doc = NULL;
    PYJ_CALL(st = jl_emissions_study(&s->runs, &eo, &r, &err);
             if (st == JL_OK) st = jl_emissions_series_holds(r, g, &s->runs, &err);
             if (st == JL_OK) doc = jl_emissions_document(r, &s->runs));
    jl_emissions_result_free(r);
    if (st != JL_OK)
        pyj_raise(st, err);
    else
        ret = finish(s, doc, argv, inputs);
out:
    jl_tseries_free(g);
    jl_tseries_free(m);
    jl_tseries_free(p);
    return ret;
}

static PyObject *study_budget(StudyObject *s, PyObject *args, PyObject *kw)
{
    static char *kwl[] = {ARGV_INPUTS, "budgets", NULL};
    PyObject *argv, *inputs;
    const char *path;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOs", kwl, &argv, &inputs, &path))
        return NULL;
    jl_budgets *b = NULL;
    jl_budget_result *r = NULL;
    jl_error *err = NULL;
    jl_status st;
    json_t *doc = NULL;
    PYJ_CALL(st = jl_budgets_load(path, &b, &err);
             if (st == JL_OK) st = jl_budgets_evaluate(b, &s->runs, &r, &err);
             if (st == JL_OK) doc = jl_budget_document(r, b, &s->runs));
    jl_budget_result_free(r);
    jl_budgets_free(b);
    if (st != JL_OK)
        return pyj_raise(st, err);
    return finish(s, doc, argv, inputs);
}

/* ---- the type -------------------------------------------------------------------- */

#define KW (PyCFunction)(void (*)(void))

static PyMethodDef study_methods[] = {
    {"errors", (PyCFunction)study_errors, METH_NOARGS, "The failures of the load (as --json)."},
    {"raise_first", (PyCFunction)study_raise_first, METH_NOARGS,
     "Raise the first failure, every one in .errors."},
    {"table", (PyCFunction)study_table, METH_NOARGS, "The summaries' CSV as typed columns."},
    {"run", (PyCFunction)study_run, METH_VARARGS, "The run object of run i."},
    {"keys", (PyCFunction)study_keys, METH_NOARGS, "[(file, run)] of the runs."},
    {"invalid", (PyCFunction)study_invalid, METH_NOARGS, "The runs that are not valid, why."},
    {"provenance", KW study_provenance, METH_VARARGS | METH_KEYWORDS, "A provenance block."},
    {"summary", KW study_summary_doc, METH_VARARGS | METH_KEYWORDS, "joules.summary/1"},
    {"check", KW study_check_doc, METH_VARARGS | METH_KEYWORDS, "joules.check/1"},
    {"frontier", KW study_frontier, METH_VARARGS | METH_KEYWORDS, "joules.frontier/1"},
    {"pick", KW study_pick, METH_VARARGS | METH_KEYWORDS, "joules.pick/1"},
    {"compare", KW study_compare, METH_VARARGS | METH_KEYWORDS, "joules.compare/1"},
    {"capacity", KW study_capacity, METH_VARARGS | METH_KEYWORDS, "joules.capacity/1"},
    {"fit", KW study_fit, METH_VARARGS | METH_KEYWORDS, "joules.fit/1"},
    {"predict", KW study_predict, METH_VARARGS | METH_KEYWORDS, "joules.predict/1"},
    {"diagnose", KW study_diagnose, METH_VARARGS | METH_KEYWORDS, "joules.diagnose/1"},
    {"emissions", KW study_emissions, METH_VARARGS | METH_KEYWORDS, "joules.emissions/1"},
    {"budget", KW study_budget, METH_VARARGS | METH_KEYWORDS, "joules.budget/1"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef study_getset[] = {
    {"unmatched", (getter)study_unmatched, NULL, "clauses that selected nothing, or None", NULL},
    {"count", (getter)study_count, NULL, "runs kept", NULL},
    {"n_read", (getter)study_n_read, NULL, "runs read before the selection", NULL},
    {"names", (getter)study_names, NULL, "joules or mlenergy", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject pyj_StudyType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "joules._joules.Study",
    .tp_basicsize = sizeof(StudyObject),
    .tp_dealloc = (destructor)study_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Runs loaded once from paths, summarised (jl_study_open).",
    .tp_methods = study_methods,
    .tp_getset = study_getset,
    .tp_init = (initproc)study_init,
    .tp_new = study_new,
};

int pyj_study_init_type(PyObject *m)
{
    if (PyType_Ready(&pyj_StudyType) < 0)
        return -1;
    return PyModule_AddObjectRef(m, "Study", (PyObject *)&pyj_StudyType);
}
