/* Fuzz target: the --where / --exclude clause parser (jl_selector_add) and
 * matching against a run with typical attributes (clauses with ranges and
 * operators, and the report of clauses that select nothing). The first byte picks
 * where (even) or exclude (odd); the rest is the clause. Several clauses
 * can be given separated by newlines. */
#include "fuzz_common.h"
#include "joules/study.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 4096)
        return 0;
    int exclude = data[0] & 1;
    char *text = fuzz_cstr(data + 1, size - 1);
    jl_selector *sel = jl_selector_new();
    if (!sel)
        abort();
    for (char *line = text, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        jl_error *err = NULL;
        jl_status st = jl_selector_add(sel, exclude, line, &err);
        if (st != JL_OK && (!err || !err->message))
            abort(); /* every refusal says why */
        jl_error_free(err);
    }
    jl_summary *s = jl_summary_new();
    if (!s)
        abort();
    s->file = strdup("traces/h100/x.h5");
    s->run = strdup("b0064");
    jl_attrs *a = &s->attrs;
    a->workload = strdup("llm");
    a->model = strdup("Qwen/Qwen3-8B");
    a->gpu_model = strdup("H100");
    a->precision = strdup("bfloat16");
    a->num_gpus = 1;
    a->max_batch_size = 64;
    if (jl_attrs_add_extra(a, "tag", "a,b", 0) != JL_OK ||
        jl_attrs_add_extra(a, "seq_len", "1024", 1) != JL_OK)
        abort();
    (void)jl_selector_match(sel, s);
    jl_summary_list l = {0};
    jl_summary *copy = NULL;
    if (jl_summary_copy(s, &copy) == JL_OK && jl_summary_list_push(&l, copy) == JL_OK) {
        char *report = NULL; /* the clauses that select nothing, said */
        if (jl_selector_unmatched(sel, &l, &report) == JL_OK && report && !*report)
            abort(); /* a report is never empty */
        free(report);
        jl_summary_list_select(&l, sel);
    }
    jl_summary_list_clear(&l);
    jl_summary_free(s);
    jl_selector_free(sel);
    free(text);
    return 0;
}
