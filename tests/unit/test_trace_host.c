/* host/ (trace format 1.2): written and read back whole (two sockets, both
 * counters, node AC power, per-socket wrap values, @source; a streamed
 * run), and every malformed host/ refused with an error naming the file,
 * run and dataset. */
#include "unit/test_trace_fixtures.h"

#define T 4

/* A small LLM run (power/ only) with a host/ group of T rows, 2 sockets. */
static jl_run *host_run(const char *name)
{
    jl_run *r = jl_run_new();
    r->name = jl__strdup(name);
    r->attrs.workload = jl__strdup("llm");
    r->attrs.model = jl__strdup("test/Model-1B");
    r->attrs.task = jl__strdup("chat");
    r->attrs.gpu_model = jl__strdup("H100");
    r->attrs.num_gpus = 1;
    r->attrs.precision = jl__strdup("bfloat16");
    r->attrs.max_batch_size = 8;
    r->power_n = 3;
    r->power_time = tf_alloc(3 * sizeof(double));
    r->watts.n = 3;
    r->watts.g = 1;
    r->watts.v = tf_alloc(3 * sizeof(double));
    for (int i = 0; i < 3; i++) {
        r->power_time[i] = i;
        r->watts.v[i] = 300;
    }
    r->host_n = T;
    r->host_sockets = 2;
    r->host_time = tf_alloc(T * sizeof(double));
    r->node_watts = tf_alloc(T * sizeof(double));
    jl_series *c[] = {&r->cpu_energy_j, &r->dram_energy_j};
    for (int k = 0; k < 2; k++) {
        c[k]->n = T;
        c[k]->g = 2;
        c[k]->v = tf_alloc(T * 2 * sizeof(double));
    }
    for (int i = 0; i < T; i++) {
        r->host_time[i] = 0.5 * i;
        r->node_watts[i] = 900 + i;
        for (int s = 0; s < 2; s++) {
            r->cpu_energy_j.v[i * 2 + s] = 1000 + 50.0 * i + s;
            r->dram_energy_j.v[i * 2 + s] = 10 + 5.0 * i + s;
        }
    }
    r->cpu_max_energy_range_j = tf_alloc(2 * sizeof(double));
    r->cpu_max_energy_range_j[0] = 262143.328850;
    r->cpu_max_energy_range_j[1] = NAN;
    r->dram_max_energy_range_j = tf_alloc(2 * sizeof(double));
    r->dram_max_energy_range_j[0] = r->dram_max_energy_range_j[1] = 65712.999613;
    r->host_source = jl__strdup("rapl+ipmi");
    return r;
}

static jl_status write_one(const char *path, const jl_run *r)
{
    jl_error *err = NULL;
    const jl_run *runs[] = {r};
    jl_status st = jl_trace_write(path, runs, 1, NULL, &err);
    if (st != JL_OK) {
        char *m = jl_error_format(err);
        fprintf(stderr, "write: %s\n", m ? m : "?");
        free(m);
    }
    jl_error_free(err);
    return st;
}

/* Read run 0 of path: the status, the run (or NULL) and the message. */
static jl_status read_one(const char *path, jl_run **out, char **msg)
{
    jl_trace *t = NULL;
    jl_error *err = NULL;
    *out = NULL;
    *msg = NULL;
    jl_status st = jl_trace_open(path, NULL, &t, &err);
    if (st == JL_OK)
        st = jl_trace_read_run(t, 0, out, &err);
    if (err)
        *msg = jl_error_format(err);
    jl_error_free(err);
    jl_trace_close(t);
    return st;
}

TEST(round_trip)
{
    char *path = tf_path("host.h5");
    jl_run *r = host_run("r1"), *b = NULL;
    char *msg = NULL;
    CHECK_EQ_INT(write_one(path, r), JL_OK);
    CHECK_EQ_INT(read_one(path, &b, &msg), JL_OK);
    CHECK(b != NULL);
    if (b) {
        CHECK_EQ_INT(b->host_n, T);
        CHECK_EQ_INT(b->host_sockets, 2);
        CHECK_EQ_INT(b->cpu_energy_j.g, 2);
        CHECK_EQ_INT(b->dram_energy_j.n, T);
        for (int i = 0; i < T; i++) {
            CHECK_NEAR(b->host_time[i], r->host_time[i], 0, 0);
            CHECK_NEAR(b->node_watts[i], r->node_watts[i], 0, 0);
            for (int s = 0; s < 2; s++) {
                CHECK_NEAR(b->cpu_energy_j.v[i * 2 + s], r->cpu_energy_j.v[i * 2 + s], 0, 0);
                CHECK_NEAR(b->dram_energy_j.v[i * 2 + s], r->dram_energy_j.v[i * 2 + s], 0, 0);
            }
        }
        CHECK(b->cpu_max_energy_range_j != NULL);
        if (b->cpu_max_energy_range_j) {
            CHECK_NEAR(b->cpu_max_energy_range_j[0], 262143.328850, 0, 0);
            CHECK(isnan(b->cpu_max_energy_range_j[1]));
        }
        CHECK(b->dram_max_energy_range_j != NULL);
        if (b->dram_max_energy_range_j) /* written as one number, read per socket */
            CHECK_NEAR(b->dram_max_energy_range_j[1], 65712.999613, 0, 0);
        CHECK_STR(b->host_source, "rapl+ipmi");
    }
    /* node AC alone, no counters: S = 0 */
    jl_run *n = host_run("r2");
    free(n->cpu_energy_j.v);
    free(n->dram_energy_j.v);
    free(n->cpu_max_energy_range_j);
    free(n->dram_max_energy_range_j);
    n->cpu_energy_j.v = n->dram_energy_j.v = NULL;
    n->cpu_max_energy_range_j = n->dram_max_energy_range_j = NULL;
    n->host_sockets = 0;
    free(n->host_source);
    n->host_source = NULL;
    jl_run *nb = NULL;
    free(msg);
    CHECK_EQ_INT(write_one(path, n), JL_OK);
    CHECK_EQ_INT(read_one(path, &nb, &msg), JL_OK);
    if (nb) {
        CHECK(nb->node_watts != NULL && nb->cpu_energy_j.v == NULL);
        CHECK_EQ_INT(nb->host_sockets, 0);
        CHECK(nb->host_source == NULL);
    }
    free(msg);
    jl_run_free(nb);
    jl_run_free(n);
    jl_run_free(b);
    jl_run_free(r);
    free(path);
}

/* A run written piece by piece: host/ series streamed, its attributes
 * written by jl_trace_stream_end into the group the stream made. */
TEST(streamed)
{
    char *path = tf_path("stream.h5");
    jl_trace_writer *w = NULL;
    jl_trace_stream *s = NULL;
    jl_error *err = NULL;
    jl_run *r = host_run("s1");
    CHECK_EQ_INT(jl_trace_writer_open(path, NULL, &w, &err), JL_OK);
    CHECK_EQ_INT(jl_trace_writer_begin_run(w, "s1", &s, &err), JL_OK);
    CHECK_EQ_INT(jl_trace_stream_append(s, "host", "time", 1, r->host_time, T, &err), JL_OK);
    CHECK_EQ_INT(jl_trace_stream_append(s, "host", "cpu_energy_j", 2, r->cpu_energy_j.v, T, &err),
                 JL_OK);
    /* the run's attributes and power/, host/ attributes; host/ series left to the stream */
    jl_run *meta = host_run("s1");
    free(meta->host_time);
    free(meta->cpu_energy_j.v);
    free(meta->dram_energy_j.v);
    free(meta->node_watts);
    free(meta->dram_max_energy_range_j);
    meta->host_time = meta->cpu_energy_j.v = meta->dram_energy_j.v = meta->node_watts = NULL;
    meta->dram_max_energy_range_j = NULL;
    meta->host_n = 0;
    CHECK_EQ_INT(jl_trace_stream_end(s, meta, &err), JL_OK);
    CHECK_EQ_INT(jl_trace_writer_commit(w, &err), JL_OK);
    jl_run *b = NULL;
    char *msg = NULL;
    CHECK_EQ_INT(read_one(path, &b, &msg), JL_OK);
    if (msg)
        fprintf(stderr, "%s\n", msg);
    if (b) {
        CHECK_EQ_INT(b->host_n, T);
        CHECK_EQ_INT(b->cpu_energy_j.g, 2);
        CHECK_NEAR(b->cpu_energy_j.v[7], r->cpu_energy_j.v[7], 0, 0);
        CHECK(b->dram_energy_j.v == NULL);
        CHECK_STR(b->host_source, "rapl+ipmi");
        CHECK(b->cpu_max_energy_range_j && isnan(b->cpu_max_energy_range_j[1]));
    }
    jl_error_free(err);
    free(msg);
    jl_run_free(b);
    jl_run_free(meta);
    jl_run_free(r);
    free(path);
}

/* One malformed host/: written (the writer does not validate), read, and
 * the message must hold the file, the run and every piece in want. */
static void refused(const char *what, jl_run *r, jl_status code, const char *obj, const char *want)
{
    char *path = tf_path("bad.h5");
    jl_run *b = NULL;
    char *msg = NULL;
    jt_current = what;
    CHECK_EQ_INT(write_one(path, r), JL_OK);
    jl_status st = read_one(path, &b, &msg);
    CHECK_EQ_INT(st, code);
    CHECK(b == NULL);
    CHECK_CONTAINS(msg, path);
    CHECK_CONTAINS(msg, "bad");
    CHECK_CONTAINS(msg, obj);
    CHECK_CONTAINS(msg, want);
    jl_run_free(b);
    jl_run_free(r);
    free(msg);
    free(path);
}

TEST(malformed)
{
    jl_run *r;
    r = host_run("bad");
    r->host_time[2] = 0.25; /* 0, 0.5, 0.25: backwards */
    refused("time_backwards", r, JL_EINVALID, "/runs/bad/host/time",
            "not non-decreasing at row 2 (0.25 after 0.5)");
    r = host_run("bad");
    r->host_time[1] = NAN;
    refused("time_nan", r, JL_EINVALID, "/runs/bad/host/time", "not finite at row 1");
    r = host_run("bad");
    r->cpu_energy_j.v[3] = NAN; /* row 1, socket 1 */
    free(r->cpu_max_energy_range_j);
    r->cpu_max_energy_range_j = NULL;
    refused("counter_nan", r, JL_EINVALID, "/runs/bad/host/cpu_energy_j",
            "not finite at row 1, socket 1");
    r = host_run("bad");
    r->node_watts[2] = -4;
    refused("negative_power", r, JL_EINVALID, "/runs/bad/host/node_watts",
            "negative power at row 2 (-4 W)");
    r = host_run("bad");
    r->dram_energy_j.g = 1; /* [T, 1] beside cpu's [T, 2] */
    refused("socket_mismatch", r, JL_ETYPE, "/runs/bad/host/dram_energy_j",
            "expected [T, 2] (the sockets of host/cpu_energy_j)");
    r = host_run("bad");
    r->host_n = 3; /* node_watts written with 3 rows, time with 3: cpu with 4 */
    r->cpu_energy_j.n = r->dram_energy_j.n = 4;
    refused("length_mismatch", r, JL_EINVALID, "/runs/bad/host/cpu_energy_j",
            "has 4 rows, expected 3 (the length of host/time)");
    r = host_run("bad");
    r->cpu_energy_j.v[4] = 300000; /* socket 0 wraps at 262143.32885 */
    refused("above_wrap", r, JL_EINVALID, "/runs/bad/host/cpu_energy_j",
            "300000 J at row 2, socket 0: outside 0..262143.32885 J");
    r = host_run("bad");
    r->dram_max_energy_range_j[0] = r->dram_max_energy_range_j[1] = -1;
    refused("bad_wrap_value", r, JL_EINVALID, "/runs/bad/host/dram_energy_j@max_energy_range_j",
            "must be a positive number of joules");
    r = host_run("bad");
    free(r->host_time);
    r->host_time = NULL;
    refused("no_time", r, JL_EMISSING, "/runs/bad/host/time", "required dataset is missing");
    r = host_run("bad");
    free(r->cpu_energy_j.v);
    free(r->dram_energy_j.v);
    free(r->node_watts);
    free(r->cpu_max_energy_range_j);
    free(r->dram_max_energy_range_j);
    r->cpu_energy_j.v = r->dram_energy_j.v = r->node_watts = NULL;
    r->cpu_max_energy_range_j = r->dram_max_energy_range_j = NULL;
    refused("no_series", r, JL_EMISSING, "/runs/bad/host",
            "has none of cpu_energy_j, dram_energy_j, node_watts");
}

/* inspect's document: the host/ series and the root's @provenance, parsed
 * (and kept as text when it is not JSON). */
TEST(inspect)
{
    char *path = tf_path("inspect.h5");
    jl_run *r = host_run("r1");
    const jl_run *runs[] = {r};
    jl_trace_write_options o;
    jl_trace_write_options_default(&o);
    o.provenance = "{\"schema\": \"joules.provenance/1\", \"command\": [\"joules\", \"import\"]}";
    jl_error *err = NULL;
    CHECK_EQ_INT(jl_trace_write(path, runs, 1, &o, &err), JL_OK);
    jl_error_list errors = {0};
    size_t ok = 0, bad = 0;
    const char *files[] = {path};
    json_t *doc = jl_inspect_document(files, 1, &errors, &ok, &bad);
    json_t *fo = json_array_get(json_object_get(doc, "files"), 0);
    json_t *pv = json_object_get(fo, "provenance");
    CHECK_STR(json_string_value(json_object_get(pv, "schema")), "joules.provenance/1");
    CHECK_STR(json_string_value(json_array_get(json_object_get(pv, "command"), 1)), "import");
    json_t *h =
        json_object_get(json_object_get(json_array_get(json_object_get(fo, "runs"), 0), "series"),
                        "host");
    CHECK_EQ_INT(json_integer_value(json_object_get(h, "samples")), T);
    CHECK_EQ_INT(json_integer_value(json_object_get(h, "sockets")), 2);
    CHECK_STR(json_string_value(json_array_get(json_object_get(h, "counters"), 1)),
              "dram_energy_j");
    CHECK(json_is_true(json_object_get(h, "node_watts")));
    CHECK_STR(json_string_value(json_object_get(h, "source")), "rapl+ipmi");
    json_t *w = json_object_get(json_object_get(h, "max_energy_range_j"), "cpu_energy_j");
    CHECK_NEAR(json_number_value(json_array_get(w, 0)), 262143.328850, 0, 0);
    CHECK(json_is_null(json_array_get(w, 1)));
    CHECK_EQ_INT(ok, 1);
    json_decref(doc);
    jl_error_list_clear(&errors);
    /* a provenance that is not JSON stays text */
    o.provenance = "made by hand";
    CHECK_EQ_INT(jl_trace_write(path, runs, 1, &o, &err), JL_OK);
    doc = jl_inspect_document(files, 1, &errors, &ok, &bad);
    fo = json_array_get(json_object_get(doc, "files"), 0);
    CHECK_STR(json_string_value(json_object_get(fo, "provenance")), "made by hand");
    json_decref(doc);
    jl_error_list_clear(&errors);
    jl_error_free(err);
    jl_run_free(r);
    free(path);
}

int main(void)
{
    tf_init("test_trace_host");
    RUN(round_trip);
    RUN(streamed);
    RUN(malformed);
    RUN(inspect);
    tf_cleanup();
    TEST_MAIN_END();
}
