/* Hand-made runs for the frontier and choice tests. */
#ifndef JOULES_TEST_CHOICE_FIXTURES_H
#define JOULES_TEST_CHOICE_FIXTURES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "joules/summary.h"

static char *fx_dup(const char *s)
{
    char *d = s ? malloc(strlen(s) + 1) : NULL;
    if (d)
        strcpy(d, s);
    return d;
}

/* One LLM run: latency = median ITL (s), energy = J/token. */
static jl_summary *fx_run(jl_summary_list *l, const char *model, const char *gpu, long n, long bs,
                          double itl, double ept)
{
    jl_summary *s = jl_summary_new();
    char name[128];
    snprintf(name, sizeof name, "%s_%sx%ld_b%ld_%zu", model, gpu, n, bs, l->count);
    s->file = fx_dup("fixture.h5");
    s->run = fx_dup(name);
    s->attrs.workload = fx_dup("llm");
    s->attrs.model = fx_dup(model);
    s->attrs.task = fx_dup("chat");
    s->attrs.gpu_model = fx_dup(gpu);
    s->attrs.num_gpus = n;
    s->attrs.precision = fx_dup("bfloat16");
    s->attrs.max_batch_size = bs;
    s->fig[JL_FIG_MEDIAN_ITL_S] = itl;
    s->fig[JL_FIG_ENERGY_PER_TOKEN_J] = ept;
    jl_summary_list_push(l, s);
    return s;
}

#endif
