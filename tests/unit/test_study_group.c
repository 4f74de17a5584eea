/* Grouping (src/study/group.c): the one meaning of "group" in joules, runs
 * sharing the values of some attributes. Numbers compare as numbers,
 * missing values sort last, node-AC power never shares a group with GPU
 * power, the keep mask, runs in list order inside a group. */
#define _POSIX_C_SOURCE 200809L

#include "choice_fixtures.h"
#include "joules/attrs.h"
#include "joules/study.h"
#include "study/study_internal.h"
#include "test.h"

TEST(values_numbers_missing_node_ac)
{
    jl_summary_list l = {0};
    jl_attrs_add_extra(&fx_run(&l, "m", "H100", 1, 8, 0.01, 1.0)->attrs, "tp", "1.0", 1); /* 0 */
    jl_attrs_add_extra(&fx_run(&l, "m", "H100", 1, 8, 0.01, 1.0)->attrs, "tp", "10", 1);  /* 1 */
    fx_run(&l, "m", "H100", 1, 8, 0.01, 1.0); /* 2: no tp */
    jl_attrs_add_extra(&fx_run(&l, "m", "H100", 1, 8, 0.01, 1.0)->attrs, "tp", "1", 1); /* 3 */
    jl_attrs_add_extra(&fx_run(&l, "m", "H100", 1, 8, 0.01, 1.0)->attrs, "tp", "2", 1); /* 4 */
    jl_summary *s = fx_run(&l, "m", "H100", 1, 8, 0.01, 1.0);                           /* 5 */
    jl_attrs_add_extra(&s->attrs, "tp", "1", 1);
    jl_attrs_add_extra(&s->attrs, "power_scope", "node_ac", 0);
    jl_attrs_add_extra(&fx_run(&l, "m", "H100", 1, 8, 0.01, 1.0)->attrs, "tp", "x", 0); /* 6 */
    static const char *const keys[] = {"model", "tp"};
    jl_group_set gs;
    CHECK(jl_group_runs(&l, keys, 2, NULL, &gs, NULL) == JL_OK);
    /* 1 (runs 0, 3; GPU), 1 (run 5; node AC), 2, 10, "x", missing */
    CHECK_EQ_INT(gs.n, 6);
    CHECK_STR(gs.groups[0].values[1], "1.0"); /* the first run's text */
    CHECK_EQ_INT(gs.groups[0].n_runs, 2);
    CHECK_EQ_INT(gs.groups[0].runs[0], 0);
    CHECK_EQ_INT(gs.groups[0].runs[1], 3);
    CHECK(!gs.groups[0].node_ac);
    CHECK_EQ_INT(gs.groups[1].n_runs, 1);
    CHECK_EQ_INT(gs.groups[1].runs[0], 5);
    CHECK(gs.groups[1].node_ac);
    CHECK_STR(gs.groups[2].values[1], "2");
    CHECK_STR(gs.groups[3].values[1], "10");
    CHECK_STR(gs.groups[4].values[1], "x");
    CHECK(gs.groups[5].values[1] == NULL);
    CHECK_STR(gs.groups[5].values[0], "m");
    CHECK_EQ_INT(gs.groups[5].runs[0], 2);
    jl_group_set_clear(&gs);
    /* a keep mask: only runs 1, 2 and 4 */
    unsigned char keep[7] = {0, 1, 1, 0, 1, 0, 0};
    CHECK(jl_group_runs(&l, keys, 2, keep, &gs, NULL) == JL_OK);
    CHECK_EQ_INT(gs.n, 3);
    CHECK_EQ_INT(gs.groups[0].runs[0], 4);
    CHECK_EQ_INT(gs.groups[1].runs[0], 1);
    CHECK_EQ_INT(gs.groups[2].runs[0], 2);
    jl_group_set_clear(&gs);
    /* no keys: one group of every run (two with node AC), in list order */
    CHECK(jl_group_runs(&l, NULL, 0, NULL, &gs, NULL) == JL_OK);
    CHECK_EQ_INT(gs.n, 2);
    CHECK_EQ_INT(gs.groups[0].n_runs, 6);
    CHECK_EQ_INT(gs.groups[0].runs[5], 6);
    jl_group_set_clear(&gs);
    /* the same comparison, one value at a time */
    CHECK(jl__attr_value_cmp("1", "1.0") == 0);
    CHECK(jl__attr_value_cmp("8", "10") < 0);
    CHECK(jl__attr_value_cmp("b", "a") > 0);
    CHECK(jl__attr_value_cmp(NULL, "a") > 0);
    CHECK(jl__attr_value_cmp(NULL, NULL) == 0);
    jl_summary_list_clear(&l);
    /* an empty list */
    CHECK(jl_group_runs(&l, keys, 2, NULL, &gs, NULL) == JL_OK);
    CHECK_EQ_INT(gs.n, 0);
    jl_group_set_clear(&gs);
}

int main(void)
{
    RUN(values_numbers_missing_node_ac);
    TEST_MAIN_END();
}
