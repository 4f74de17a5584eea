/* TraceFile and RunData: one trace read in this process (the package has
 * checked it in a worker process first, as the study loader reads every
 * file, so a file that crashes libhdf5 never reaches this process), its
 * runs' series as NumPy arrays over the reader's own buffers (no copy),
 * a group read only when asked (jl_trace_options.skip_groups); spans and
 * the sensor; the attribution of a profiled run (attribute). */
#include "pyjoules.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    PyObject_HEAD jl_trace *t;
    unsigned skip; /* the options this handle was opened with read every group */
} TraceFileObject;

typedef struct {
    PyObject_HEAD jl_run *run;
} RunDataObject;

static void trace_dealloc(TraceFileObject *o)
{
    if (o->t)
        PYJ_CALL(jl_trace_close(o->t));
    Py_TYPE(o)->tp_free((PyObject *)o);
}

static int trace_init(TraceFileObject *o, PyObject *args, PyObject *kw)
{
    static char *kwl[] = {"path", NULL};
    PyObject *pathobj;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&", kwl, PyUnicode_FSConverter, &pathobj))
        return -1;
    const char *path = PyBytes_AS_STRING(pathobj);
    jl_error *err = NULL;
    jl_status st;
    jl_trace *t = NULL;
    PYJ_CALL(st = jl_trace_open(path, NULL, &t, &err));
    Py_DECREF(pathobj);
    if (st != JL_OK) {
        pyj_raise(st, err);
        return -1;
    }
    if (o->t)
        PYJ_CALL(jl_trace_close(o->t));
    o->t = t;
    return 0;
}

static int opened(TraceFileObject *o)
{
    if (!o->t) {
        PyErr_SetString(PyExc_ValueError, "the trace is not open");
        return 0;
    }
    return 1;
}

static PyObject *text_or_none(const char *s)
{
    if (!s)
        Py_RETURN_NONE;
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
}

static PyObject *trace_path(TraceFileObject *o, void *c)
{
    (void)c;
    return opened(o) ? text_or_none(jl_trace_path(o->t)) : NULL;
}

static PyObject *trace_harness(TraceFileObject *o, void *c)
{
    (void)c;
    return opened(o) ? text_or_none(jl_trace_harness(o->t)) : NULL;
}

static PyObject *trace_created(TraceFileObject *o, void *c)
{
    (void)c;
    return opened(o) ? text_or_none(jl_trace_created_utc(o->t)) : NULL;
}

static PyObject *trace_provenance(TraceFileObject *o, void *c)
{
    (void)c;
    return opened(o) ? text_or_none(jl_trace_provenance(o->t)) : NULL;
}

static PyObject *trace_runs(TraceFileObject *o, PyObject *unused)
{
    (void)unused;
    if (!opened(o))
        return NULL;
    size_t n = jl_trace_run_count(o->t);
    PyObject *l = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; l && i < n; i++) {
        PyObject *s = text_or_none(jl_trace_run_name(o->t, i));
        if (!s) {
            Py_CLEAR(l);
            break;
        }
        PyList_SET_ITEM(l, (Py_ssize_t)i, s);
    }
    return l;
}

static int run_index(TraceFileObject *o, Py_ssize_t i)
{
    if (!opened(o))
        return 0;
    if (i < 0 || (size_t)i >= jl_trace_run_count(o->t)) {
        PyErr_SetString(PyExc_IndexError, "run index out of range");
        return 0;
    }
    return 1;
}

/* Run i with only the groups not in skip (JL_GROUP_* bits) read. The trace
 * handle's options are the library's: a second handle with skip_groups is
 * opened for the read, the trace's own path. */
static jl_status read_run(TraceFileObject *o, size_t i, unsigned skip, jl_run **out, jl_error **err)
{
    if (!skip)
        return jl_trace_read_run(o->t, i, out, err);
    jl_trace_options opt;
    jl_trace_options_default(&opt);
    opt.skip_groups = skip;
    jl_trace *t = NULL;
    jl_status st = jl_trace_open(jl_trace_path(o->t), &opt, &t, err);
    if (st == JL_OK)
        st = jl_trace_read_run(t, i, out, err);
    if (st == JL_OK && *out) {
        /* the series keep no reference to the file: nothing is streamed */
    }
    jl_trace_close(t);
    return st;
}

static PyObject *trace_read(TraceFileObject *o, PyObject *args)
{
    Py_ssize_t i;
    unsigned int skip = 0;
    if (!PyArg_ParseTuple(args, "n|I", &i, &skip) || !run_index(o, i))
        return NULL;
    jl_run *run = NULL;
    jl_error *err = NULL;
    jl_status st;
    PYJ_CALL(st = read_run(o, (size_t)i, skip & JL_GROUP_ALL, &run, &err));
    if (st != JL_OK)
        return pyj_raise(st, err);
    RunDataObject *r = PyObject_New(RunDataObject, &pyj_RunDataType);
    if (!r) {
        jl_run_free(run);
        return NULL;
    }
    r->run = run;
    return (PyObject *)r;
}

/* ---- attributes ------------------------------------------------------------------ */

static int put(PyObject *d, const char *k, PyObject *v)
{
    if (!v)
        return -1;
    int r = PyDict_SetItemString(d, k, v);
    Py_DECREF(v);
    return r;
}

/* A run's attributes as a dict: the typed ones by their kind (int, float,
 * str), missing ones left out, every extra attribute (numbers as float). */
static PyObject *attrs_dict(const jl_attrs *a)
{
    PyObject *d = PyDict_New();
    char buf[4096];
    for (size_t k = 0; d && jl_attr_names[k]; k++) {
        const char *name = jl_attr_names[k];
        if (jl_attrs_get(a, name, buf, sizeof buf) != 0)
            continue;
        static const char *const whole[] = {"num_gpus",        "max_batch_size", "tensor_parallel",
                                            "expert_parallel", "data_parallel",  "denoising_steps",
                                            "height",          "width",          "num_frames"};
        static const char *const text[] = {"workload",  "model",     "task",
                                           "gpu_model", "precision", "notes"};
        int kind = 2; /* 0 text, 1 whole, 2 real */
        for (size_t j = 0; j < sizeof text / sizeof text[0]; j++)
            if (!strcmp(name, text[j]))
                kind = 0;
        for (size_t j = 0; j < sizeof whole / sizeof whole[0]; j++)
            if (!strcmp(name, whole[j]))
                kind = 1;
        double v = strtod(buf, NULL);
        /* a placeholder the importer listed in @unknown_attributes (MLPerf
         * records no batch cap; the reader fills 1): None, never its value */
        PyObject *x = !jl_attrs_known(a, name) ? Py_NewRef(Py_None)
                      : kind == 0 ? PyUnicode_DecodeUTF8(buf, (Py_ssize_t)strlen(buf), "replace")
                      : kind == 1 ? PyLong_FromLongLong((long long)v)
                                  : PyFloat_FromDouble(v);
        if (put(d, name, x) < 0)
            Py_CLEAR(d);
    }
    for (size_t i = 0; d && i < a->n_extra; i++) {
        const jl_kv *kv = &a->extra[i];
        PyObject *x = kv->is_number ? PyFloat_FromDouble(strtod(kv->value, NULL))
                                    : PyUnicode_DecodeUTF8(kv->value, (Py_ssize_t)strlen(kv->value),
                                                           "replace");
        if (put(d, kv->key, x) < 0)
            Py_CLEAR(d);
    }
    return d;
}

/* Run i's attributes and its summary/ figures (no dataset read). */
static PyObject *trace_attrs(TraceFileObject *o, PyObject *args)
{
    Py_ssize_t i;
    if (!PyArg_ParseTuple(args, "n", &i) || !run_index(o, i))
        return NULL;
    jl_run *run = NULL;
    jl_error *err = NULL;
    jl_status st;
    PYJ_CALL(st = read_run(o, (size_t)i, JL_GROUP_ALL, &run, &err));
    if (st != JL_OK)
        return pyj_raise(st, err);
    PyObject *a = attrs_dict(&run->attrs);
    PyObject *summary = PyDict_New();
    if (summary && run->summary.present) {
        const jl_run_summary_attrs *m = &run->summary;
        const struct {
            const char *k;
            double v;
        } f[] = {
            {"energy_per_token_j", m->energy_per_token_j},
            {"energy_per_request_j", m->energy_per_request_j},
            {"avg_power_w", m->avg_power_w},
            {"output_throughput_tok_s", m->output_throughput_tok_s},
            {"median_itl_s", m->median_itl_s},
            {"p90_itl_s", m->p90_itl_s},
            {"p95_itl_s", m->p95_itl_s},
            {"p99_itl_s", m->p99_itl_s},
            {"avg_batch_size", m->avg_batch_size},
            {"avg_output_tokens", m->avg_output_tokens},
            {"steady_state_duration_s", m->steady_state_duration_s},
            {"steady_state_energy_j", m->steady_state_energy_j},
            {"batch_latency_s", m->batch_latency_s},
            {"energy_per_item_j", m->energy_per_item_j},
        };
        for (size_t k = 0; summary && k < sizeof f / sizeof f[0]; k++)
            if (!isnan(f[k].v) && put(summary, f[k].k, PyFloat_FromDouble(f[k].v)) < 0)
                Py_CLEAR(summary);
        for (size_t k = 0; summary && k < m->n_extra; k++) {
            const jl_kv *kv = &m->extra[k];
            PyObject *x =
                kv->is_number
                    ? PyFloat_FromDouble(strtod(kv->value, NULL))
                    : PyUnicode_DecodeUTF8(kv->value, (Py_ssize_t)strlen(kv->value), "replace");
            if (put(summary, kv->key, x) < 0)
                Py_CLEAR(summary);
        }
    }
    jl_run_free(run);
    if (!a || !summary) {
        Py_XDECREF(a);
        Py_XDECREF(summary);
        return NULL;
    }
    return Py_BuildValue("(NN)", a, summary);
}

/* ---- spans and sensor ---------------------------------------------------------- */

static void free_capsule(PyObject *cap)
{
    free(PyCapsule_GetPointer(cap, NULL));
}

/* A malloc'd buffer of n values (the library's) handed to a NumPy array
 * that frees it; NULL data: None. */
static PyObject *give_array(void *data, npy_intp n, int type)
{
    if (!data)
        Py_RETURN_NONE;
    PyObject *a = PyArray_SimpleNewFromData(1, &n, type, data);
    PyObject *cap = a ? PyCapsule_New(data, NULL, free_capsule) : NULL;
    if (!cap || PyArray_SetBaseObject((PyArrayObject *)a, cap) < 0) {
        if (!cap)
            free(data);
        Py_XDECREF(a);
        return NULL;
    }
    return a;
}

/* Run i's spans/ as a dict of arrays (each taken from the reader: no
 * copy), names, and the group's attributes; None when the run has none. */
static PyObject *trace_spans(TraceFileObject *o, PyObject *args)
{
    Py_ssize_t i;
    if (!PyArg_ParseTuple(args, "n", &i) || !run_index(o, i))
        return NULL;
    jl_spans *sp = NULL;
    jl_error *err = NULL;
    jl_status st;
    PYJ_CALL(st = jl_trace_read_spans(o->t, (size_t)i, &sp, &err));
    if (st != JL_OK)
        return pyj_raise(st, err);
    if (!sp)
        Py_RETURN_NONE;
    npy_intp n = (npy_intp)sp->n;
    PyObject *names = PyList_New((Py_ssize_t)sp->n_names);
    for (size_t k = 0; names && k < sp->n_names; k++) {
        PyObject *s = text_or_none(sp->names[k]);
        if (!s) {
            Py_CLEAR(names);
            break;
        }
        PyList_SET_ITEM(names, (Py_ssize_t)k, s);
    }
    PyObject *d = names ? PyDict_New() : NULL;
    if (d &&
        (put(d, "names", names) < 0 || put(d, "name", give_array(sp->name, n, NPY_INT32)) < 0 ||
         put(d, "start", give_array(sp->start, n, NPY_FLOAT64)) < 0 ||
         put(d, "end", give_array(sp->end, n, NPY_FLOAT64)) < 0 ||
         put(d, "parent", give_array(sp->parent, n, NPY_INT32)) < 0 ||
         put(d, "gpu", give_array(sp->gpu, n, NPY_INT16)) < 0 ||
         put(d, "busy_s", give_array(sp->busy_s, n, NPY_FLOAT32)) < 0 ||
         put(d, "tokens", give_array(sp->tokens, n, NPY_INT32)) < 0 ||
         put(d, "step", give_array(sp->step, n, NPY_INT32)) < 0 ||
         put(d, "source", text_or_none(sp->source)) < 0 ||
         put(d, "side", text_or_none(sp->side)) < 0 ||
         put(d, "clock", text_or_none(sp->clock)) < 0 ||
         put(d, "window", Py_BuildValue("(dd)", sp->window[0], sp->window[1])) < 0 ||
         put(d, "clock_uncertainty_s", PyFloat_FromDouble(sp->clock_uncertainty_s)) < 0))
        Py_CLEAR(d);
    else if (!d)
        Py_XDECREF(names);
    /* the arrays are NumPy's now (freed by their capsules, also on failure) */
    sp->name = sp->parent = sp->tokens = sp->step = NULL;
    sp->start = sp->end = NULL;
    sp->gpu = NULL;
    sp->busy_s = NULL;
    jl_spans_free(sp);
    return d;
}

static PyObject *trace_sensor(TraceFileObject *o, PyObject *args)
{
    Py_ssize_t i;
    if (!PyArg_ParseTuple(args, "n", &i) || !run_index(o, i))
        return NULL;
    jl_sensor z;
    jl_sensor_init(&z);
    jl_error *err = NULL;
    jl_status st;
    PYJ_CALL(st = jl_trace_read_sensor(o->t, (size_t)i, &z, &err));
    if (st != JL_OK) {
        jl_sensor_clear(&z);
        return pyj_raise(st, err);
    }
    PyObject *d =
        Py_BuildValue("{s:d,s:N,s:d,s:d,s:d,s:N}", "update_period_s", z.update_period_s,
                      "watts_kind", text_or_none(z.watts_kind), "watts_window_s", z.watts_window_s,
                      "watts_delay_s", z.watts_delay_s, "energy_delay_s", z.energy_delay_s,
                      "calibration", text_or_none(z.calibration));
    jl_sensor_clear(&z);
    return d;
}

/* ---- attribute ------------------------------------------------------------------- */

/* What jl_attribution_compute needs of run i of o (src/cli/cmd_attribute.c's open_run). */
typedef struct {
    jl_run *run;
    jl_spans *spans;
    jl_sensor sensor;
} opened_run;

static void opened_clear(opened_run *r)
{
    jl_spans_free(r->spans);
    jl_run_free(r->run);
    jl_sensor_clear(&r->sensor);
}

static jl_status open_for_attribution(TraceFileObject *o, size_t i, opened_run *r, jl_error **err)
{
    memset(r, 0, sizeof *r);
    jl_sensor_init(&r->sensor);
    jl_status st = jl_trace_read_run(o->t, i, &r->run, err);
    if (st == JL_OK)
        st = jl_trace_read_spans(o->t, i, &r->spans, err);
    if (st == JL_OK)
        st = jl_trace_read_sensor(o->t, i, &r->sensor, err);
    return st;
}

/* --require-valid of a run that is not valid: the CLI's lines
 * (cli_require_valid), its reasons one a line, as one error. */
static jl_status invalid_run(const jl_summary *x, jl_error **err)
{
    char text[8192];
    size_t n = 0;
    n += (size_t)snprintf(text, sizeof text,
                          "--require-valid: 1 of 1 run is not valid (check.md, \"Reason codes\")");
    for (size_t k = 0; k < x->validity.n && n < sizeof text; k++)
        if (jl_reason_severity(&x->validity.reasons[k]) == JL_SEVERITY_INVALID)
            n += (size_t)snprintf(text + n, sizeof text - n, "\n%s:%s is not valid: [%s] %s",
                                  x->file ? x->file : "-", x->run ? x->run : "-",
                                  x->validity.reasons[k].code, x->validity.reasons[k].message);
    /* the lines name the file and run, as the CLI's do (the module sets
     * the exception's .file and .run) */
    return jl_fail(err, JL_EINVALID, NULL, NULL, NULL, -1, "%s", text);
}

static int parse_by(const char *s, double time_bin, jl_attribution_options *ao)
{
    static const struct {
        const char *name;
        jl_attribution_by by;
    } t[] = {{"name", JL_ATTRIBUTION_BY_NAME},   {"class", JL_ATTRIBUTION_BY_CLASS},
             {"layer", JL_ATTRIBUTION_BY_LAYER}, {"step", JL_ATTRIBUTION_BY_STEP},
             {"kind", JL_ATTRIBUTION_BY_KIND},   {"time", JL_ATTRIBUTION_BY_TIME}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(s, t[i].name)) {
            ao->by = t[i].by;
            if (ao->by == JL_ATTRIBUTION_BY_TIME && !isnan(time_bin)) {
                if (!(time_bin > 0)) {
                    pyj_usage("time_bin must be > 0 s");
                    return -1;
                }
                ao->time_bin_s = time_bin;
            }
            return 0;
        }
    pyj_usage("--by: '%s' is not name, class, layer, step, kind or time:S", s);
    return -1;
}

PyObject *pyj_attribute(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwl[] = {"trace",         "index",       "argv",        "inputs",      "by",
                          "time_bin",      "calibration", "classes",     "static_w",    "window",
                          "stall_min",     "sensor_from", "fit_weights", "set_warning", "budgets",
                          "require_valid", NULL};
    TraceFileObject *o;
    Py_ssize_t i;
    PyObject *argv, *inputs, *classes = Py_None, *window = Py_None, *sensor_from = Py_None,
                             *set_warning = Py_None;
    const char *by = "class", *cal = NULL, *budgets = NULL;
    double time_bin = NAN;
    int fit_weights = 0, require_valid = 0;
    jl_attribution_options ao;
    jl_attribution_options_default(&ao);
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!nOO|sdzOdOdOpOzp", kwl, &pyj_TraceFileType, &o,
                                     &i, &argv, &inputs, &by, &time_bin, &cal, &classes,
                                     &ao.static_w, &window, &ao.stall_min_s, &sensor_from,
                                     &fit_weights, &set_warning, &budgets, &require_valid))
        return NULL;
    if (!run_index(o, i) || parse_by(by, time_bin, &ao) < 0)
        return NULL;
    ao.fit_weights = fit_weights;
    if (!isnan(ao.static_w) && !(ao.static_w >= 0 && ao.static_w < 1e6))
        return pyj_usage("--static-w must be a power in W, >= 0");
    if (!(ao.stall_min_s > 0))
        return pyj_usage("--stall-min must be > 0");
    if (window != Py_None) {
        if (!PyArg_ParseTuple(window, "dd", &ao.window[0], &ao.window[1]))
            return NULL;
        if (!(ao.window[1] > ao.window[0]))
            return pyj_usage("--window: expected A,B with A < B, got '%g,%g'", ao.window[0],
                             ao.window[1]);
    }
    if (budgets && (fit_weights || ao.by != JL_ATTRIBUTION_BY_CLASS))
        return pyj_usage("--budgets judges the rows of --by class (not with --by %s)", by);
    if (set_warning != Py_None) {
        PyObject *seq = PySequence_Fast(set_warning, "set_warning: expected (name, value) pairs");
        if (!seq)
            return NULL;
        for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(seq); k++) {
            const char *name;
            PyObject *val;
            if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, k), "sO", &name, &val)) {
                Py_DECREF(seq);
                return NULL;
            }
            int id = jl_attribution_warning_find(name);
            if (id < 0) {
                Py_DECREF(seq);
                return pyj_usage("--set-warning: '%s' is not a warning's name", name);
            }
            if (val == Py_None) {
                ao.warn_off[id] = 1;
                continue;
            }
            double v = PyFloat_AsDouble(val);
            if ((v == -1 && PyErr_Occurred()) || !(v >= 0 && v < 1e9)) {
                Py_DECREF(seq);
                PyErr_Clear();
                return pyj_usage("--set-warning must be a number >= 0 or off");
            }
            ao.warn_threshold[id] = v;
        }
        Py_DECREF(seq);
    }
    size_t n_rules = 0;
    const char **rules = pyj_strings(classes, &n_rules, "classes");
    if (!rules)
        return NULL;
    for (size_t k = 0; k < n_rules; k++)
        if (!strchr(rules[k], '=')) {
            PyObject *r = pyj_usage("--class: expected PATTERN=CLASS, got '%s'", rules[k]);
            PyMem_Free(rules);
            return r;
        }
    ao.class_rules = rules;
    ao.n_class_rules = n_rules;
    TraceFileObject *from = NULL;
    Py_ssize_t from_i = 0;
    if (sensor_from != Py_None &&
        (!PyArg_ParseTuple(sensor_from, "O!n", &pyj_TraceFileType, &from, &from_i) ||
         !run_index(from, from_i))) {
        PyMem_Free(rules);
        return NULL;
    }
    jl_error *err = NULL;
    jl_status st;
    json_t *doc = NULL;
    opened_run r, q;
    memset(&q, 0, sizeof q);
    jl_sensor_init(&q.sensor);
    jl_class_weights *w = NULL;
    jl_attribution *a = NULL;
    jl_budgets *b = NULL;
    jl_summary *sum = NULL;
    jl_span_budget_result *br = NULL;
    jl_sensor use;
    jl_sensor_init(&use);
    jl_summary *own = NULL; /* --require-valid: the run's own validity, as the CLI judges it */
    PYJ_CALL({
        st = open_for_attribution(o, (size_t)i, &r, &err);
        if (st == JL_OK && require_valid && (st = jl_summarize(r.run, NULL, &own, &err)) == JL_OK &&
            !jl_validity_is_valid(&own->validity))
            st = invalid_run(own, &err);
        if (st == JL_OK && budgets)
            st = jl_budgets_load(budgets, &b, &err);
        if (st == JL_OK && from) { /* --sensor-from: the sensor model fitted on another run */
            jl_sensor_fit_result f;
            st = open_for_attribution(from, (size_t)from_i, &q, &err);
            if (st == JL_OK)
                st = jl_sensor_fit(q.run, q.spans, &f, &err);
            if (st == JL_OK) {
                use.update_period_s = f.update_period_s;
                use.energy_delay_s = f.energy_delay_s;
                use.watts_window_s = f.watts_window_s;
                use.watts_delay_s = f.watts_delay_s;
            }
        }
        if (st == JL_OK && cal)
            st = jl_class_weights_from_trace(cal, &w, &err);
        ao.weights = w;
        if (st == JL_OK)
            st = jl_attribution_compute(r.run, r.spans, from ? &use : &r.sensor, &ao, &a, &err);
        if (st == JL_OK && b) {
            st = jl_summarize(r.run, NULL, &sum, &err);
            if (st == JL_OK)
                st = jl_budgets_evaluate_spans(b, sum, a, &br, &err);
        }
        if (st == JL_OK) {
            doc = jl_attribution_document(a);
            if (doc && br && jl_span_budget_annotate(br, b, doc) != JL_OK) {
                json_decref(doc);
                doc = NULL;
            }
        }
    });
    PyMem_Free(rules);
    jl_summary_free(own);
    jl_span_budget_result_free(br);
    jl_summary_free(sum);
    jl_budgets_free(b);
    jl_attribution_free(a);
    jl_class_weights_free(w);
    jl_sensor_clear(&use);
    opened_clear(&q);
    opened_clear(&r);
    if (st != JL_OK)
        return pyj_raise(st, err);
    if (!doc)
        return PyErr_NoMemory();
    json_object_set_new(doc, "errors", json_array());
    json_t *prov = pyj_provenance(argv, inputs, NULL, NULL, JL_NAMES_JOULES, NULL);
    if (!prov) {
        json_decref(doc);
        return NULL;
    }
    json_object_set_new(doc, "provenance", prov);
    return pyj_document(doc);
}

/* ---- RunData: a run's series as arrays ------------------------------------------ */

static void rundata_dealloc(RunDataObject *r)
{
    jl_run_free(r->run);
    PyObject_Free(r);
}

/* A view of data (n rows of g values of type) whose base is the run
 * object: the reader's buffer, no copy. None when data is NULL. */
static PyObject *view(RunDataObject *r, void *data, size_t n, size_t g, int rank, int type)
{
    if (!data)
        Py_RETURN_NONE;
    npy_intp dims[2] = {(npy_intp)n, (npy_intp)g};
    PyObject *a = PyArray_SimpleNewFromData(rank, dims, type, data);
    if (!a)
        return NULL;
    Py_INCREF(r);
    if (PyArray_SetBaseObject((PyArrayObject *)a, (PyObject *)r) < 0) {
        Py_DECREF(a);
        return NULL;
    }
    PyArray_CLEARFLAGS((PyArrayObject *)a, NPY_ARRAY_WRITEABLE);
    return a;
}

static PyObject *series_view(RunDataObject *r, const jl_series *s)
{
    return view(r, s->v, s->n, s->g, 2, NPY_FLOAT64);
}

/* run.get("power/watts"): the dataset as the reader holds it, or None. */
static PyObject *rundata_get(RunDataObject *r, PyObject *args)
{
    const char *name;
    if (!PyArg_ParseTuple(args, "s", &name))
        return NULL;
    jl_run *x = r->run;
#define IS(s) (!strcmp(name, s))
    if (IS("power/time"))
        return view(r, x->power_time, x->power_n, 1, 1, NPY_FLOAT64);
    if (IS("power/watts"))
        return series_view(r, &x->watts);
    if (IS("power/energy_j"))
        return series_view(r, &x->energy_j);
    if (IS("power/watts_avg"))
        return series_view(r, &x->watts_avg);
    if (IS("gpu/time"))
        return view(r, x->gpu_time, x->gpu_n, 1, 1, NPY_FLOAT64);
    if (IS("gpu/sm_util"))
        return series_view(r, &x->sm_util);
    if (IS("gpu/mem_util"))
        return series_view(r, &x->mem_util);
    if (IS("gpu/mem_used_bytes"))
        return series_view(r, &x->mem_used_bytes);
    if (IS("gpu/sm_clock_mhz"))
        return series_view(r, &x->sm_clock_mhz);
    if (IS("gpu/temp_c"))
        return series_view(r, &x->temp_c);
    if (IS("engine/time"))
        return view(r, x->engine_time, x->engine_n, 1, 1, NPY_FLOAT64);
    if (IS("engine/running"))
        return view(r, x->running, x->engine_n, 1, 1, NPY_INT32);
    if (IS("engine/waiting"))
        return view(r, x->waiting, x->engine_n, 1, 1, NPY_INT32);
    if (IS("engine/tokens_generated"))
        return view(r, x->tokens_generated, x->engine_n, 1, 1, NPY_INT64);
    if (IS("engine/prefill_tokens"))
        return view(r, x->prefill_tokens, x->engine_n, 1, 1, NPY_INT64);
    if (IS("engine/kv_cache_usage"))
        return view(r, x->kv_cache_usage, x->engine_n, 1, 1, NPY_FLOAT32);
    if (IS("requests/arrival"))
        return view(r, x->arrival, x->req_n, 1, 1, NPY_FLOAT64);
    if (IS("requests/first_token"))
        return view(r, x->first_token, x->req_n, 1, 1, NPY_FLOAT64);
    if (IS("requests/finish"))
        return view(r, x->finish, x->req_n, 1, 1, NPY_FLOAT64);
    if (IS("requests/input_tokens"))
        return view(r, x->input_tokens, x->req_n, 1, 1, NPY_INT32);
    if (IS("requests/output_tokens"))
        return view(r, x->output_tokens, x->req_n, 1, 1, NPY_INT32);
    if (IS("itl/seconds"))
        return view(r, x->itl_seconds, x->itl_n, 1, 1, NPY_FLOAT32);
    if (IS("itl/request"))
        return view(r, x->itl_request, x->itl_n, 1, 1, NPY_INT32);
    if (IS("batches/start"))
        return view(r, x->batch_start, x->batch_n, 1, 1, NPY_FLOAT64);
    if (IS("batches/end"))
        return view(r, x->batch_end, x->batch_n, 1, 1, NPY_FLOAT64);
    if (IS("batches/size"))
        return view(r, x->batch_size, x->batch_n, 1, 1, NPY_INT32);
    if (IS("host/time"))
        return view(r, x->host_time, x->host_n, 1, 1, NPY_FLOAT64);
    if (IS("host/cpu_energy_j"))
        return series_view(r, &x->cpu_energy_j);
    if (IS("host/dram_energy_j"))
        return series_view(r, &x->dram_energy_j);
    if (IS("host/node_watts"))
        return view(r, x->node_watts, x->host_n, 1, 1, NPY_FLOAT64);
#undef IS
    return PyErr_Format(PyExc_KeyError, "%s: no such dataset of the trace format", name);
}

static PyObject *rundata_name(RunDataObject *r, void *c)
{
    (void)c;
    return text_or_none(r->run->name);
}

static PyObject *rundata_attrs(RunDataObject *r, void *c)
{
    (void)c;
    return attrs_dict(&r->run->attrs);
}

static PyMethodDef rundata_methods[] = {
    {"get", (PyCFunction)rundata_get, METH_VARARGS, "A dataset (GROUP/NAME) as an array, or None."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef rundata_getset[] = {
    {"name", (getter)rundata_name, NULL, "the run's name", NULL},
    {"attrs", (getter)rundata_attrs, NULL, "the run's attributes", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject pyj_RunDataType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "joules._joules.RunData",
    .tp_basicsize = sizeof(RunDataObject),
    .tp_dealloc = (destructor)rundata_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One run as read: its series, viewed as arrays without a copy.",
    .tp_methods = rundata_methods,
    .tp_getset = rundata_getset,
};

static PyMethodDef trace_methods[] = {
    {"runs", (PyCFunction)trace_runs, METH_NOARGS, "The runs' names, in the file's order."},
    {"read", (PyCFunction)trace_read, METH_VARARGS, "Run i, without the groups of skip (bits)."},
    {"attrs", (PyCFunction)trace_attrs, METH_VARARGS, "Run i's (attributes, summary/) dicts."},
    {"spans", (PyCFunction)trace_spans, METH_VARARGS, "Run i's spans/, or None."},
    {"sensor", (PyCFunction)trace_sensor, METH_VARARGS, "Run i's sensor attributes."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef trace_getset[] = {
    {"path", (getter)trace_path, NULL, "the path as given", NULL},
    {"harness", (getter)trace_harness, NULL, "@harness, or None", NULL},
    {"created_utc", (getter)trace_created, NULL, "@created_utc, or None", NULL},
    {"provenance", (getter)trace_provenance, NULL, "@provenance (JSON text), or None", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject pyj_TraceFileType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "joules._joules.TraceFile",
    .tp_basicsize = sizeof(TraceFileObject),
    .tp_dealloc = (destructor)trace_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A trace file open in this process (jl_trace_open).",
    .tp_methods = trace_methods,
    .tp_getset = trace_getset,
    .tp_init = (initproc)trace_init,
    .tp_new = PyType_GenericNew,
};

int pyj_trace_init_type(PyObject *m)
{
    if (PyType_Ready(&pyj_TraceFileType) < 0 || PyType_Ready(&pyj_RunDataType) < 0)
        return -1;
    if (PyModule_AddObjectRef(m, "TraceFile", (PyObject *)&pyj_TraceFileType) < 0)
        return -1;
    return PyModule_AddObjectRef(m, "RunData", (PyObject *)&pyj_RunDataType);
}
