/* Fuzz target: SLO expressions (include/joules/slo.h). Parse, and on
 * success exercise everything downstream of the parse: canonical text, the
 * caret display and evaluation against a summary with some figures set. */
#include <math.h>

#include "fuzz_common.h"
#include "joules/slo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *expr = fuzz_cstr(data, size);
    jl_slo *slo = NULL;
    jl_error *err = NULL;
    size_t off = 0;
    if (jl_slo_parse(expr, &slo, &off, &err) == JL_OK) {
        free(jl_slo_canonical(slo));
        jl_summary *s = jl_summary_new();
        if (s) {
            for (int f = 0; f < JL_FIG_COUNT; f++)
                s->fig[f] = f % 3 ? 0.5 * f : NAN;
            double worst = 0, v = 0, miss = 0;
            jl_slo_eval(slo, s, &worst);
            for (size_t i = 0; i < slo->n; i++) {
                jl_slo_cond_eval(&slo->conds[i], s, &v, &miss);
                (void)jl_slo_cond_figure(&slo->conds[i], s);
            }
            jl_summary_free(s);
        }
    } else {
        if (off > size) /* the offset must point into the expression */
            abort();
        free(jl_slo_caret(expr, off));
    }
    (void)jl_slo_resolve_figure(expr, "llm");
    (void)jl_slo_resolve_figure(expr, NULL);
    jl_slo_free(slo);
    jl_error_free(err);
    free(expr);
    return 0;
}
