/* The text variants of the whole-document builders (jl_*_document_text,
 * docs/library.md "Stable and experimental"): each is the bytes jl_json_dump
 * writes for the tree its jl_*_document builds, trailing newline included,
 * with *len its length; NULL in, NULL out. Each text form is the same one
 * line over its builder (jl__json_text_of), so a few builders stand for all. */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "joules/choice.h"
#include "joules/json.h"
#include "joules/summary.h"
#include "joules/trace.h"
#include "test.h"
#include "test_choice_fixtures.h"
#include "json/json_internal.h"

/* text (of length len) is jl_json_dump's bytes for doc; frees both. */
static void check_same(json_t *doc, char *text, size_t len)
{
    char *want = doc ? jl_json_dump(doc) : NULL;
    CHECK(want != NULL);
    CHECK(text != NULL);
    if (want && text) {
        CHECK_STR(text, want);
        CHECK_EQ_INT(len, strlen(want));
        CHECK(len > 1 && text[len - 1] == '\n');
    }
    free(want);
    free(text);
    json_decref(doc);
}

static jl_summary_list three_runs(void)
{
    jl_summary_list l = {0};
    fx_run(&l, "m", "H100", 1, 8, 0.030, 1.0);
    fx_run(&l, "m", "H100", 1, 64, 0.080, 0.4);
    fx_run(&l, "m", "B200", 2, 128, 0.120, NAN); /* a figure joules cannot know: null */
    return l;
}

TEST(summary_text_is_the_documents_dump)
{
    jl_summary_list l = three_runs();
    jl_error_list errors = {0};
    jl_error_list_push(&errors, jl_error_new(JL_EINVALID, "bad.h5", "r0001", "power/watts", 7,
                                             "time goes backwards"));
    size_t len = 0;
    char *text = jl_summary_document_text(&l, &errors, &len);
    CHECK_CONTAINS(text, "\"schema\": \"joules.summary/1\"");
    CHECK_CONTAINS(text, "time goes backwards");
    check_same(jl_summary_document(&l, &errors), text, len);
    /* len may be NULL */
    char *again = jl_summary_document_text(&l, NULL, NULL);
    check_same(jl_summary_document(&l, NULL), again, again ? strlen(again) : 0);
    jl_error_list_clear(&errors);
    jl_summary_list_clear(&l);
}

TEST(pick_compare_and_capacity_text)
{
    jl_summary_list l = three_runs();
    jl_slo *s = NULL;
    CHECK(jl_slo_parse("median_itl<=100ms", &s, NULL, NULL) == JL_OK);
    const jl_slo *sl[] = {s};
    jl_pick_set *ps = NULL;
    CHECK(jl_pick_all(&l, sl, 1, NULL, &ps, NULL) == JL_OK);
    size_t len = 0;
    char *text = jl_pick_document_text(ps, &l, &len);
    CHECK_CONTAINS(text, "joules.pick/1");
    check_same(jl_pick_document(ps, &l), text, len);
    jl_pick_set_free(ps);

    jl_compare_options o = {"gpu_model", "H100", NULL, 0, {-1, 1e-9}};
    jl_compare_result *r = NULL;
    CHECK(jl_compare(&l, sl, 1, &o, &r, NULL) == JL_OK);
    text = jl_compare_document_text(r, &l, &len);
    CHECK_CONTAINS(text, "joules.compare/1");
    check_same(jl_compare_document(r, &l), text, len);
    jl_compare_result_free(r);

    jl_capacity_options co;
    jl_capacity_options_default(&co);
    co.power_budget_w = 10000;
    co.pue = 1.25;
    l.items[0]->fig[JL_FIG_AVG_POWER_W] = 600;
    l.items[0]->fig[JL_FIG_OUTPUT_THROUGHPUT_TOK_S] = 1500;
    jl_capacity_result *cr = NULL;
    CHECK(jl_capacity(&l, sl, 1, &co, &cr, NULL) == JL_OK);
    text = jl_capacity_document_text(cr, &l, &len);
    CHECK_CONTAINS(text, "joules.capacity/1");
    check_same(jl_capacity_document(cr, &l), text, len);
    jl_capacity_result_free(cr);
    jl_slo_free(s);
    jl_summary_list_clear(&l);
}

TEST(inspect_text)
{
    const char *files[2] = {JOULES_SOURCE_DIR "/traces/h100/h100-qwen3-1.7b-shape-chat.h5",
                            JOULES_SOURCE_DIR "/traces/no-such-file.h5"};
    jl_error_list e1 = {0}, e2 = {0};
    size_t ok1 = 0, bad1 = 0, ok2 = 0, bad2 = 0, len = 0;
    char *text = jl_inspect_document_text(files, 2, &e1, &ok1, &bad1, &len);
    json_t *doc = jl_inspect_document(files, 2, &e2, &ok2, &bad2);
    CHECK_CONTAINS(text, "joules.inspect/1");
    CHECK_EQ_INT(ok1, ok2);
    CHECK_EQ_INT(bad1, bad2);
    CHECK_EQ_INT(bad1, 1); /* the missing file */
    CHECK_EQ_INT(e1.count, e2.count);
    check_same(doc, text, len);
    jl_error_list_clear(&e1);
    jl_error_list_clear(&e2);
}

TEST(text_of_nothing_is_null)
{
    size_t len = 99;
    CHECK(jl__json_text_of(NULL, &len) == NULL);
    CHECK_EQ_INT(len, 0);
}

int main(int argc, char **argv)
{
    TEST_ARGS(argc, argv);
    RUN(summary_text_is_the_documents_dump);
    RUN(pick_compare_and_capacity_text);
    RUN(inspect_text);
    RUN(text_of_nothing_is_null);
    TEST_MAIN_END();
}
