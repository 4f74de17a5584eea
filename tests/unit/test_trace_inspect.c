/* jl_inspect_document (the joules.inspect/1 document, docs/cli.md): every
 * file's runs with their datasets, key attributes and series figures taken
 * from the runs themselves; a run that does not read is marked invalid with
 * its problem, a file that does not open is an error, and both land in the
 * document's "errors" and the caller's list. */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>

#include "test_trace_fixtures.h"

static json_t *run_named(json_t *file, const char *name)
{
    size_t i;
    json_t *ro;
    json_array_foreach(json_object_get(file, "runs"), i, ro)
        if (!strcmp(json_string_value(json_object_get(ro, "run")), name))
            return ro;
    return NULL;
}

TEST(document_of_good_bad_and_missing_files)
{
    jl_run *runs[3] = {tf_make_run("r0001", 50, 2), tf_make_run("r0002", 20, 1),
                       tf_make_summary_run("s0001")};
    /* r0002's power/time goes backwards at row 7 */
    runs[1]->power_time[7] = runs[1]->power_time[6] - 0.05;
    char *path = tf_path("inspect.h5"), *missing = tf_path("missing.h5");
    jl_error *e = NULL;
    CHECK_EQ_INT(jl_trace_write(path, (const jl_run *const *)runs, 3, NULL, &e), JL_OK);
    jl_error_free(e);

    const char *files[2] = {path, missing};
    jl_error_list errors = {0};
    size_t n_ok = 99, n_bad = 99;
    json_t *doc = jl_inspect_document(files, 2, &errors, &n_ok, &n_bad);
    CHECK(doc != NULL);
    CHECK_STR(json_string_value(json_object_get(doc, "schema")), "joules.inspect/1");
    CHECK_EQ_INT(n_ok, 0); /* the written file has a bad run */
    CHECK_EQ_INT(n_bad, 2);
    json_t *farr = json_object_get(doc, "files");
    CHECK_EQ_INT(json_array_size(farr), 1); /* the missing file has no entry */
    json_t *fo = json_array_get(farr, 0);
    CHECK_STR(json_string_value(json_object_get(fo, "file")), path);
    CHECK_EQ_INT(json_array_size(json_object_get(fo, "runs")), 3);

    json_t *good = run_named(fo, "r0001");
    CHECK(good && json_is_true(json_object_get(good, "valid")));
    json_t *a = json_object_get(good, "attributes");
    CHECK_STR(json_string_value(json_object_get(a, "model")), runs[0]->attrs.model);
    CHECK_EQ_INT(json_integer_value(json_object_get(a, "num_gpus")), 2);
    json_t *power = json_object_get(json_object_get(good, "series"), "power");
    const double *t0 = runs[0]->power_time;
    CHECK_EQ_INT(json_integer_value(json_object_get(power, "samples")), 50);
    CHECK_NEAR(json_real_value(json_object_get(power, "start_s")), t0[0], 0, 0);
    CHECK_NEAR(json_real_value(json_object_get(power, "end_s")), t0[49], 0, 0);
    CHECK_NEAR(json_real_value(json_object_get(power, "rate_hz")), 49 / (t0[49] - t0[0]), 1e-12, 0);
    int saw_watts = 0;
    size_t k;
    json_t *d;
    json_array_foreach(json_object_get(good, "datasets"), k, d) {
        if (strcmp(json_string_value(json_object_get(d, "path")), "/runs/r0001/power/watts"))
            continue;
        saw_watts = 1;
        CHECK_STR(json_string_value(json_object_get(d, "type")), "float32"); /* as written */
        CHECK_EQ_INT(json_integer_value(json_array_get(json_object_get(d, "shape"), 0)), 50);
        CHECK_EQ_INT(json_integer_value(json_array_get(json_object_get(d, "shape"), 1)), 2);
    }
    CHECK(saw_watts);

    json_t *bad = run_named(fo, "r0002");
    CHECK(bad && json_is_false(json_object_get(bad, "valid")));
    CHECK_CONTAINS(json_string_value(json_object_get(bad, "problem")),
                   "run r0002: /runs/r0002/power/time: not non-decreasing at row 7");
    CHECK(json_object_get(bad, "attributes") == NULL);

    json_t *summ = run_named(fo, "s0001");
    CHECK(summ && json_is_true(json_object_get(json_object_get(summ, "series"), "summary_only")));
    CHECK_EQ_INT(json_array_size(json_object_get(summ, "datasets")), 0);

    /* the bad run and the missing file, in the caller's list and the document */
    CHECK_EQ_INT(errors.count, 2);
    CHECK_EQ_INT(json_array_size(json_object_get(doc, "errors")), 2);
    if (errors.count == 2) {
        CHECK_STR(errors.items[0]->run, "r0002");
        CHECK_EQ_INT(errors.items[0]->row, 7);
        CHECK_STR(errors.items[1]->file, missing);
        CHECK_EQ_INT(errors.items[1]->code, JL_EIO);
    }
    json_decref(doc);
    jl_error_list_clear(&errors);
    for (size_t i = 0; i < 3; i++)
        jl_run_free(runs[i]);
    free(path);
    free(missing);
}

int main(void)
{
    tf_init("test_trace_inspect");
    RUN(document_of_good_bad_and_missing_files);
    tf_cleanup();
    TEST_MAIN_END();
}
