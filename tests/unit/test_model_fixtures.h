/* What the model's tests on real data share: the repository's descriptors
 * and the ML.ENERGY v3 data imported in memory as summaries. */
#ifndef JOULES_TEST_MODEL_FIXTURES_H
#define JOULES_TEST_MODEL_FIXTURES_H

#include "joules/descriptors.h"
#include "joules/import.h"
#include "joules/summary.h"

/* the public ML.ENERGY v3 data beside the checkout (tests skip without it) */
#define MX_V3 JOULES_SHARED_DIR "/data/mlenergy-v3"

/* models/ of the checkout; NULL when it cannot be read */
static jl_descriptors *mx_desc(void)
{
    jl_descriptors *d = NULL;
    jl_error *err = NULL;
    if (jl_descriptors_load(JOULES_SOURCE_DIR "/models", &d, &err) != JL_OK)
        jl_error_free(err);
    return d;
}

/* The runs of the ML.ENERGY data summarized into l (those that summarize);
 * the import result (*imp, jl_import_result_free) owns what they borrow. */
static jl_status mx_import_mlenergy(jl_import_result **imp, jl_error_list *errs, jl_summary_list *l)
{
    jl_status st = jl_import_mlenergy(MX_V3, NULL, imp, errs);
    for (size_t i = 0; *imp && i < (*imp)->n_runs; i++) {
        jl_summary *s = NULL;
        jl_error *err = NULL;
        if (jl_summarize((*imp)->runs[i], NULL, &s, &err) == JL_OK)
            jl_summary_list_push(l, s);
        jl_error_free(err);
    }
    return st;
}

#endif
