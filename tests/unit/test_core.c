/* Unit tests of the core: errors, attributes, selection, path collection,
 * atomic files, descriptors. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "joules/descriptors.h"
#include "joules/output.h"
#include "joules/study.h"
#include "output/csv_row.h"
#include "test.h"

TEST(error_format_names_everything)
{
    jl_error *e = jl_error_new(JL_EINVALID, "traces/x.h5", "b0064", "/runs/b0064/power/time", 101,
                               "not non-decreasing at row %d (%.1f after %.1f)", 101, 12.4, 12.5);
    char *s = jl_error_format(e);
    CHECK_STR(
        s,
        "traces/x.h5: run b0064: /runs/b0064/power/time: not non-decreasing at row 101 (12.4 after 12.5)");
    free(s);
    jl_error_free(e);
    jl_error *err = NULL;
    CHECK_EQ_INT(jl_fail(&err, JL_EMISSING, NULL, NULL, NULL, -1, "first"), JL_EMISSING);
    jl_fail(&err, JL_EINVALID, NULL, NULL, NULL, -1, "second");
    CHECK_STR(err->message, "first"); /* first error wins */
    jl_error_set_context(err, "f.h5", "r1");
    s = jl_error_format(err);
    CHECK_STR(s, "f.h5: run r1: first");
    free(s);
    jl_error_free(err);
    jl_error_free(NULL);
    CHECK_STR(jl_status_name(JL_ELIMIT), "limit");
}

static jl_summary *mk(const char *model, const char *gpu, long g, long bs)
{
    jl_summary *s = jl_summary_new();
    s->attrs.model = strdup(model);
    s->attrs.gpu_model = strdup(gpu);
    s->attrs.workload = strdup("llm");
    s->attrs.num_gpus = g;
    s->attrs.max_batch_size = bs;
    s->file = strdup("f.h5");
    s->run = strdup("r");
    return s;
}

TEST(selector_where_and_exclude)
{
    jl_selector *sel = jl_selector_new();
    jl_error *err = NULL;
    CHECK_EQ_INT(jl_selector_add(sel, 0, "gpu_model=H100,B200", &err), JL_OK);
    CHECK_EQ_INT(jl_selector_add(sel, 1, "num_gpus=8", &err), JL_OK);
    jl_summary *a = mk("m", "H100", 1, 8), *b = mk("m", "H200", 1, 8), *c = mk("m", "B200", 8, 8);
    CHECK(jl_selector_match(sel, a));
    CHECK(!jl_selector_match(sel, b));
    CHECK(!jl_selector_match(sel, c));
    jl_selector *num = jl_selector_new();
    CHECK_EQ_INT(jl_selector_add(num, 0, "max_batch_size=8.0", &err), JL_OK);
    CHECK(jl_selector_match(num, a)); /* numeric comparison */
    CHECK_EQ_INT(jl_selector_add(num, 0, "nonexistent=1", &err), JL_OK);
    CHECK(!jl_selector_match(num, a)); /* a run without the key never matches --where */
    CHECK_EQ_INT(jl_selector_add(sel, 0, "=x", &err), JL_EUSAGE);
    CHECK_CONTAINS(err ? err->message : NULL, "KEY=VALUE");
    jl_error_free(err);
    err = NULL;
    CHECK_EQ_INT(jl_selector_add(sel, 0, "model=a,,b", &err), JL_EUSAGE);
    CHECK_CONTAINS(err ? err->message : NULL, "empty value");
    jl_error_free(err);
    jl_summary_list l = {0};
    jl_summary_list_push(&l, a);
    jl_summary_list_push(&l, b);
    jl_summary_list_push(&l, c);
    jl_summary_list_select(&l, sel);
    CHECK_EQ_INT(l.count, 1);
    CHECK_STR(l.items[0]->attrs.gpu_model, "H100");
    jl_summary_list_clear(&l);
    jl_selector_free(sel);
    jl_selector_free(num);
}

TEST(selector_ranges_case_and_unmatched)
{
    jl_error *err = NULL;
    jl_summary *a = mk("Qwen/Qwen3-8B", "H100", 1, 8), *b = mk("Qwen/Qwen3-8B", "H200", 2, 64),
               *c = mk("Qwen/Qwen3-8B-FP8", "B200", 8, 256);
    /* ranges: >=, <=, >, <; != lists */
    jl_selector *r = jl_selector_new();
    CHECK_EQ_INT(jl_selector_add(r, 0, "max_batch_size>=64", &err), JL_OK);
    CHECK(!jl_selector_match(r, a) && jl_selector_match(r, b) && jl_selector_match(r, c));
    CHECK_EQ_INT(jl_selector_add(r, 0, "num_gpus<=2", &err), JL_OK);
    CHECK(!jl_selector_match(r, a) && jl_selector_match(r, b) && !jl_selector_match(r, c));
    jl_selector_free(r);
    r = jl_selector_new();
    CHECK_EQ_INT(jl_selector_add(r, 0, "max_batch_size>8", &err), JL_OK);
    CHECK_EQ_INT(jl_selector_add(r, 0, "max_batch_size<256", &err), JL_OK);
    CHECK(!jl_selector_match(r, a) && jl_selector_match(r, b) && !jl_selector_match(r, c));
    jl_selector_free(r);
    r = jl_selector_new();
    CHECK_EQ_INT(jl_selector_add(r, 0, "gpu_model!=h100,B200", &err), JL_OK);
    CHECK(!jl_selector_match(r, a) && jl_selector_match(r, b) && !jl_selector_match(r, c));
    jl_selector_free(r);
    /* --exclude with a range drops the runs in it */
    r = jl_selector_new();
    CHECK_EQ_INT(jl_selector_add(r, 1, "num_gpus>4", &err), JL_OK);
    CHECK(jl_selector_match(r, a) && jl_selector_match(r, b) && !jl_selector_match(r, c));
    jl_selector_free(r);
    /* one case rule: keys and values match whatever the case (file paths aside) */
    r = jl_selector_new();
    CHECK_EQ_INT(jl_selector_add(r, 0, "gpu_model=h100", &err), JL_OK);
    CHECK_EQ_INT(jl_selector_add(r, 0, "model=qwen/qwen3-8b", &err), JL_OK);
    CHECK(jl_selector_match(r, a) && !jl_selector_match(r, b) && !jl_selector_match(r, c));
    jl_selector_free(r);
    r = jl_selector_new();
    CHECK_EQ_INT(jl_selector_add(r, 0, "RUN=R", &err), JL_OK);
    CHECK(jl_selector_match(r, a)); /* run "r" */
    jl_selector_free(r);
    r = jl_selector_new(); /* a file names a file: its case counts */
    CHECK_EQ_INT(jl_selector_add(r, 0, "file=F.h5", &err), JL_OK);
    CHECK(!jl_selector_match(r, a));
    jl_selector_free(r);
    r = jl_selector_new(); /* a lone '!' is part of a value */
    CHECK_EQ_INT(jl_selector_add(r, 0, "task=hello!", &err), JL_OK);
    jl_selector_free(r);
    /* malformed */
    r = jl_selector_new();
    const char *bad[][2] = {{"num_gpus>=x", "takes one number"},
                            {"num_gpus>=1,2", "takes one number"},
                            {"num_gpus>=", "no value after '>='"},
                            {"model!x", "'!' must be"},
                            {"a<=1<=2", "takes one number"},
                            {"a=1=2", "one operator"},
                            {"<=3", "expected KEY"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_EQ_INT(jl_selector_add(r, 0, bad[i][0], &err), JL_EUSAGE);
        CHECK_CONTAINS(err ? err->message : NULL, bad[i][1]);
        jl_error_free(err);
        err = NULL;
    }
    jl_selector_free(r);
    /* clauses that select nothing are reported with the values present */
    jl_summary_list l = {0};
    jl_summary_list_push(&l, a);
    jl_summary_list_push(&l, b);
    jl_summary_list_push(&l, c);
    r = jl_selector_new();
    CHECK_EQ_INT(jl_selector_add(r, 0, "gpu_model=h100,A100", &err), JL_OK);
    CHECK_EQ_INT(jl_selector_add(r, 0, "max_batch_size>=1024", &err), JL_OK);
    CHECK_EQ_INT(jl_selector_add(r, 1, "foo=1", &err), JL_OK);
    CHECK_EQ_INT(jl_selector_add(r, 0, "num_gpus<=8", &err), JL_OK);
    char *rep = NULL;
    CHECK_EQ_INT(jl_selector_unmatched(r, &l, &rep), JL_OK);
    CHECK_STR(
        rep,
        "--where 'gpu_model=h100,A100': no run has gpu_model A100 (values present: B200, H100, H200)\n"
        "--where 'max_batch_size>=1024': no run has max_batch_size>=1024 (values present: 8, 64, 256)\n"
        "--exclude 'foo=1': no run has the attribute 'foo'");
    free(rep);
    jl_selector_free(r);
    r = jl_selector_new();
    CHECK_EQ_INT(jl_selector_add(r, 0, "num_gpus<=8", &err), JL_OK);
    rep = (char *)"x";
    CHECK_EQ_INT(jl_selector_unmatched(r, &l, &rep), JL_OK);
    CHECK(rep == NULL); /* everything matched: nothing to say */
    jl_selector_free(r);
    jl_summary_list_clear(&l);
}

TEST(names_mlenergy)
{
    double sc = 0;
    CHECK_STR(jl_mlenergy_name("energy_per_token_j", 0, &sc), "energy_per_token_joules");
    CHECK_NEAR(sc, 1, 0, 0);
    CHECK_STR(jl_mlenergy_name("median_itl_s", 0, &sc), "median_itl_ms");
    CHECK_NEAR(sc, 1000, 0, 0);
    CHECK_STR(jl_mlenergy_name("max_batch_size", 0, NULL), "max_num_seqs");
    CHECK_STR(jl_mlenergy_name("max_batch_size", 1, NULL), "batch_size");
    CHECK(jl_mlenergy_name("static_energy_share", 0, &sc) == NULL);
    CHECK_EQ_INT(jl_names_parse("mlenergy"), JL_NAMES_MLENERGY);
    CHECK_EQ_INT(jl_names_parse("joules"), JL_NAMES_JOULES);
    CHECK_EQ_INT(jl_names_parse("MLEnergy"), -1);
    json_t *doc =
        json_pack("{s:[{s:s,s:i,s:f,s:f,s:s,s:{s:s,s:s},s:n},{s:s,s:i,s:f}]}", "runs", "workload",
                  "llm", "max_batch_size", 64, "median_itl_s", 0.0125, "total_params", 8e9,
                  "energy_figure", "energy_per_token_j", "extra_attributes", "nickname",
                  "Qwen 3 8B", "model", "clash", "p90_itl_s", "workload", "diffusion",
                  "max_batch_size", 4, "energy_per_item_j", 950.5);
    jl_json_rename_mlenergy(doc);
    json_t *a = json_array_get(json_object_get(doc, "runs"), 0);
    json_t *b = json_array_get(json_object_get(doc, "runs"), 1);
    CHECK_EQ_INT(json_integer_value(json_object_get(a, "max_num_seqs")), 64);
    CHECK(!json_object_get(a, "max_batch_size") && !json_object_get(a, "median_itl_s"));
    CHECK_NEAR(json_real_value(json_object_get(a, "median_itl_ms")), 12.5, 1e-12, 0);
    CHECK_NEAR(json_real_value(json_object_get(a, "total_params_billions")), 8, 1e-12, 0);
    CHECK_STR(json_string_value(json_object_get(a, "energy_figure")), "energy_per_token_joules");
    CHECK_STR(json_string_value(json_object_get(a, "nickname")), "Qwen 3 8B"); /* lifted */
    CHECK(!json_object_get(a, "extra_attributes") && !json_object_get(a, "model"));
    CHECK(json_is_null(json_object_get(a, "p90_itl_ms"))); /* missing stays null */
    CHECK_EQ_INT(json_integer_value(json_object_get(b, "batch_size")), 4);
    CHECK_NEAR(json_real_value(json_object_get(b, "energy_per_generation_joules")), 950.5, 0, 0);
    json_decref(doc);
}

TEST(attrs_get_and_copy)
{
    jl_attrs a, b;
    jl_attrs_init(&a);
    char buf[64];
    CHECK_EQ_INT(jl_attrs_get(&a, "num_gpus", buf, sizeof buf), -1);
    a.num_gpus = 4;
    a.gpu_tdp_w = 700;
    a.model = strdup("x/y");
    jl_attrs_add_extra(&a, "kv_pool_tokens", "414144", 1);
    CHECK_EQ_INT(jl_attrs_get(&a, "num_gpus", buf, sizeof buf), 0);
    CHECK_STR(buf, "4");
    CHECK_EQ_INT(jl_attrs_get(&a, "gpu_tdp_w", buf, sizeof buf), 0);
    CHECK_STR(buf, "700");
    CHECK_EQ_INT(jl_attrs_copy(&b, &a), JL_OK);
    CHECK_EQ_INT(jl_attrs_get(&b, "kv_pool_tokens", buf, sizeof buf), 0);
    CHECK_STR(buf, "414144");
    CHECK_STR(b.model, "x/y");
    jl_attrs_clear(&a);
    jl_attrs_clear(&b);
}

TEST(collect_paths_sorted_and_deduplicated)
{
    char dir[] = "/tmp/joules-test-paths-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char p[512];
    snprintf(p, sizeof p, "%s/sub", dir);
    mkdir(p, 0755);
    const char *names[] = {"b.h5", "a.h5", "sub/c.h5", "notes.txt", ".hidden.h5"};
    for (size_t i = 0; i < 5; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        FILE *f = fopen(p, "w");
        fclose(f);
    }
    char again[512];
    snprintf(again, sizeof again, "%s/a.h5", dir);
    const char *paths[] = {dir, again, "/nonexistent/joules"};
    char **files = NULL;
    size_t n = 0;
    jl_error_list errors = {0};
    CHECK_EQ_INT(jl_collect_paths(paths, 3, &files, &n, &errors), JL_OK);
    CHECK_EQ_INT(n, 3);
    if (n == 3) {
        CHECK_CONTAINS(files[0], "/a.h5");
        CHECK_CONTAINS(files[1], "/b.h5");
        CHECK_CONTAINS(files[2], "/sub/c.h5");
    }
    CHECK_EQ_INT(errors.count, 1);
    if (errors.count)
        CHECK_STR(errors.items[0]->file, "/nonexistent/joules");
    jl_paths_free(files, n);
    jl_error_list_clear(&errors);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
}

TEST(atomic_write_leaves_no_partial_file)
{
    char dir[] = "/tmp/joules-test-atomic-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[512];
    snprintf(path, sizeof path, "%s/out.json", dir);
    jl_atomic_file af;
    CHECK_EQ_INT(jl_atomic_open(&af, path, NULL), JL_OK);
    fputs("{\"partial\":", af.fp);
    CHECK(access(path, F_OK) != 0); /* nothing at the final name yet */
    jl_atomic_abort(&af);
    DIR *d = opendir(dir);
    int entries = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        entries += de->d_name[0] != '.';
    closedir(d);
    CHECK_EQ_INT(entries, 0); /* the temporary is gone too */
    CHECK_EQ_INT(jl_write_file_atomic(path, "{}\n", 3, NULL), JL_OK);
    CHECK(access(path, F_OK) == 0);
    jl_error *err = NULL;
    CHECK_EQ_INT(jl_write_file_atomic("/nonexistent-dir/x.json", "{}", 2, &err), JL_EIO);
    CHECK_CONTAINS(err ? err->message : NULL, "cannot create");
    jl_error_free(err);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
}

TEST(descriptors_load_and_lookup)
{
    jl_descriptors *d = NULL;
    jl_error *err = NULL;
    CHECK_EQ_INT(jl_descriptors_load(JOULES_SOURCE_DIR "/models", &d, &err), JL_OK);
    const jl_gpu_desc *h100 = jl_descriptors_gpu(d, "H100");
    CHECK(h100 != NULL);
    if (h100)
        CHECK_NEAR(h100->tdp_w, 700, 0, 0);
    const jl_model_desc *m = jl_descriptors_model(d, "synthetic/Qwen3-8B-shape");
    CHECK(m != NULL);
    if (m) /* the bundled traces' own attribute: 147,456 bytes per token */
        CHECK_NEAR(m->kv_bytes_per_token, 147456, 0, 0);
    /* FP8 variant found through its BF16 twin's entry or its own */
    CHECK(jl_descriptors_model(d, "Qwen/Qwen3-235B-A22B-Instruct-2507-FP8") != NULL);
    CHECK(jl_descriptors_model(d, "no/such-model") == NULL);
    jl_attrs a;
    jl_attrs_init(&a);
    a.gpu_model = strdup("B200");
    a.model = strdup("Qwen/Qwen3-8B");
    a.precision = strdup("fp8");
    CHECK_NEAR(jl_run_gpu_tdp_w(&a, d), 1000, 0, 0);
    CHECK_NEAR(jl_run_weight_bytes(&a, d), 8e9, 1e-12, 0); /* precision attribute wins */
    a.gpu_tdp_w = 600; /* the trace's own attribute wins over the descriptor */
    CHECK_NEAR(jl_run_gpu_tdp_w(&a, d), 600, 0, 0);
    jl_attrs_clear(&a);
    jl_descriptors_free(d);
    CHECK_EQ_INT(jl_descriptors_load("/nonexistent", &d, &err),
                 JL_OK); /* falls back to the source tree */
    jl_descriptors_free(d);
}

/* The CSV row writer places every comma and the newline: text quoted when
 * it holds a comma, a quote or a newline, NULL and NaN as empty cells,
 * numbers at full precision, formatted cells as given. */
TEST(csv_row_writer_places_commas)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f != NULL);
    if (!f)
        return;
    static const char *const head[] = {"a", "b,c", "d\"e", NULL};
    jl__csvw r;
    jl__csvw_begin(&r, f);
    jl__csvw_cells(&r, head);
    jl__csvw_end(&r);
    jl__csvw_begin(&r, f);
    jl__csvw_cell(&r, NULL);
    jl__csvw_num(&r, NAN);
    jl__csvw_num(&r, 0.1);
    jl__csvw_empty(&r);
    jl__csvw_cellf(&r, "%ld", 42L);
    jl__csvw_cell(&r, "two\nlines");
    jl__csvw_end(&r);
    jl__csvw_begin(&r, f); /* one empty cell is a row of its own */
    jl__csvw_empty(&r);
    jl__csvw_end(&r);
    fclose(f);
    CHECK_STR(text, "a,\"b,c\",\"d\"\"e\"\n,,0.10000000000000001,,42,\"two\nlines\"\n\n");
    free(text);
}

int main(void)
{
    RUN(error_format_names_everything);
    RUN(selector_where_and_exclude);
    RUN(selector_ranges_case_and_unmatched);
    RUN(names_mlenergy);
    RUN(attrs_get_and_copy);
    RUN(collect_paths_sorted_and_deduplicated);
    RUN(atomic_write_leaves_no_partial_file);
    RUN(descriptors_load_and_lookup);
    RUN(csv_row_writer_places_commas);
    TEST_MAIN_END();
}
