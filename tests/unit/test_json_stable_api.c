/* A program on the stable part of the public headers alone
 * (docs/library.md, "Stable and experimental"): every header through
 * joules/joules.h, JOULES_EXPERIMENTAL not defined, and a jansson.h on the
 * include path that stops the compile (tests/CMakeLists.txt puts it first),
 * so this file builds only while no stable declaration needs jansson. It
 * reads a trace, summarises its runs and gets the joules.summary/1 and
 * joules.inspect/1 documents as text. */
#undef JOULES_EXPERIMENTAL
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "joules/joules.h"
#include "test.h"

#ifdef JANSSON_H
#error "jansson.h was included by the stable part of the headers"
#endif

static const char *trace_path = JOULES_SOURCE_DIR "/traces/h100/h100-qwen3-1.7b-shape-chat.h5";

TEST(summary_document_as_text_without_jansson)
{
    jl_trace *t = NULL;
    jl_error *err = NULL;
    CHECK_EQ_INT(jl_trace_open(trace_path, NULL, &t, &err), JL_OK);
    jl_summary_list l = {0};
    for (size_t i = 0; t && i < jl_trace_run_count(t); i++) {
        jl_run *run = NULL;
        jl_summary *s = NULL;
        CHECK_EQ_INT(jl_trace_read_run(t, i, &run, &err), JL_OK);
        CHECK_EQ_INT(jl_summarize(run, NULL, &s, &err), JL_OK);
        if (s)
            jl_summary_list_push(&l, s);
        jl_run_free(run);
    }
    CHECK(l.count > 0);
    size_t len = 0;
    char *text = jl_summary_document_text(&l, NULL, &len);
    CHECK_CONTAINS(text, "\"schema\": \"joules.summary/1\"");
    CHECK_CONTAINS(text, "\"energy_per_token_j\"");
    CHECK(text && len == strlen(text) && text[len - 1] == '\n');
    free(text);
    jl_summary_list_clear(&l);
    jl_trace_close(t);
    jl_error_free(err);
}

TEST(inspect_document_as_text_without_jansson)
{
    const char *files[1] = {trace_path};
    jl_error_list errors = {0};
    size_t n_ok = 0, n_bad = 0, len = 0;
    char *text = jl_inspect_document_text(files, 1, &errors, &n_ok, &n_bad, &len);
    CHECK_CONTAINS(text, "\"schema\": \"joules.inspect/1\"");
    CHECK_EQ_INT(n_ok, 1);
    CHECK_EQ_INT(n_bad, 0);
    CHECK_EQ_INT(errors.count, 0);
    free(text);
    jl_error_list_clear(&errors);
}

int main(int argc, char **argv)
{
    TEST_ARGS(argc, argv);
    RUN(summary_document_as_text_without_jansson);
    RUN(inspect_document_as_text_without_jansson);
    TEST_MAIN_END();
}
