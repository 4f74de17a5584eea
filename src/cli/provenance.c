/* The provenance block every document of this command carries
 * (joules/account.h; docs/accounting.md): set up once in main() before the
 * command runs, completed by the study commands (rules, method choices),
 * made (inputs hashed) only when a document is written. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "cli/common.h"
#include "joules/account.h"

static jl_provenance *prov;
static json_t *block;

/* The block with every file read so far as its inputs (core's read log:
 * the files the readers opened, not the arguments that happen to name a
 * file); made again when more were read since. */
static const json_t *give_block(void *ctx)
{
    (void)ctx;
    size_t added = 0;
    if (prov && jl_provenance_add_inputs_read(prov, &added) == JL_OK && added && block) {
        json_decref(block);
        block = NULL;
    }
    if (!block && prov)
        block = jl_provenance_to_json(prov);
    return block;
}

void cli_provenance_begin(int argc, char **argv)
{
    if (!(prov = jl_provenance_new()))
        return;
    jl_provenance_set_command(prov, argc, argv);
    jl_output_set_provenance(give_block, NULL);
}

void cli_provenance_restart_inputs(void)
{
    if (!prov)
        return;
    jl_provenance_restart_inputs(prov);
    json_decref(block);
    block = NULL;
}

void cli_provenance_study(const cli_study *cs)
{
    if (!prov)
        return;
    jl_provenance_set_rules(prov, &cs->rules);
    const jl_summary_options *so = &cs->opt.summary;
    json_t *m = json_pack("{s:f,s:f,s:f,s:f}", "occupancy_share", so->occupancy_share,
                          "disagreement_warn", so->disagreement_warn, "counter_restart_min_drop_j",
                          so->counter_restart_min_drop_j, "published_mark", so->published_mark);
    if (m && so->custom_window) /* summarize --window: only then, so other documents keep theirs */
        json_object_set_new(m, "window",
                            json_pack("[oo]", jl_json_number(so->window[0]),
                                      jl_json_number(so->window[1])));
    if (m)
        jl_provenance_set_method(prov, "summary", m);
    json_decref(m);
    json_t *names = json_string(cs->names == JL_NAMES_MLENERGY ? "mlenergy" : "joules");
    jl_provenance_set_method(prov, "names", names);
    json_decref(names);
}

void cli_provenance_method(const char *key, const json_t *v)
{
    if (prov)
        jl_provenance_set_method(prov, key, v);
}
