/* Grouping (src/study/group.c): the one meaning of "group" in joules, runs
 * sharing the values of some attributes. Numbers compare as numbers,
 * missing values sort last, node-AC power never shares a group with GPU
 * power, the keep mask, runs in list order inside a group. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "joules/attrs.h"
#include "joules/study.h"
#include "study/study_internal.h"
#include "test.h"
#include "test_choice_fixtures.h"

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

/* The reference: groups from jl_attrs_get and jl__attr_value_cmp, sorted as
 * jl_group_runs documents (values, node AC, list order). */
static const jl_summary_list *ref_l;
static const char *const *ref_keys;
static size_t ref_nk;

static int ref_cmp_vals(size_t a, size_t b)
{
    char x[1024], y[1024];
    for (size_t k = 0; k < ref_nk; k++) {
        int ha = jl_attrs_get(&ref_l->items[a]->attrs, ref_keys[k], x, sizeof x) == 0;
        int hb = jl_attrs_get(&ref_l->items[b]->attrs, ref_keys[k], y, sizeof y) == 0;
        int c = jl__attr_value_cmp(ha ? x : NULL, hb ? y : NULL);
        if (c)
            return c;
    }
    return jl_attrs_is_node_ac(&ref_l->items[a]->attrs) -
           jl_attrs_is_node_ac(&ref_l->items[b]->attrs);
}

static int ref_cmp(const void *pa, const void *pb)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    int c = ref_cmp_vals(a, b);
    return c ? c : (a > b) - (a < b);
}

/* jl_group_runs equals the reference on l for keys. */
static void check_like_attrs_get(const jl_summary_list *l, const char *const *keys, size_t nk)
{
    ref_l = l;
    ref_keys = keys;
    ref_nk = nk;
    size_t idx[64];
    CHECK(l->count <= 64);
    for (size_t i = 0; i < l->count; i++)
        idx[i] = i;
    qsort(idx, l->count, sizeof *idx, ref_cmp);
    jl_group_set gs;
    CHECK(jl_group_runs(l, keys, nk, NULL, &gs, NULL) == JL_OK);
    size_t g = 0, pos = 0;
    for (size_t i = 0; i < l->count; g++) {
        size_t j = i + 1;
        while (j < l->count && ref_cmp_vals(idx[i], idx[j]) == 0)
            j++;
        CHECK(g < gs.n);
        if (g >= gs.n)
            break;
        CHECK_EQ_INT(gs.groups[g].n_runs, j - i);
        for (size_t k = 0; k < nk; k++) { /* the texts of the group's first run in sort order */
            char x[1024];
            if (jl_attrs_get(&l->items[idx[i]]->attrs, keys[k], x, sizeof x) == 0)
                CHECK_STR(gs.groups[g].values[k], x);
            else
                CHECK(gs.groups[g].values[k] == NULL);
        }
        pos += j - i;
        i = j;
    }
    CHECK_EQ_INT(pos, l->count);
    CHECK_EQ_INT(gs.n, g);
    jl_group_set_clear(&gs);
}

static char *long_text(size_t n, char last)
{
    char *s = malloc(n + 1);
    memset(s, 'a', n);
    s[n - 1] = last;
    s[n] = '\0';
    return s;
}

/* The typed fields are read in place (not through jl_attrs_get's text per
 * run): the same groups, values and order, on the edge cases of the text
 * (strings cut at 1023 bytes, numeric and non-numeric strings, missing
 * longs and reals, an extra that a field shadows, more than eight keys). */
TEST(typed_fields_as_jl_attrs_get)
{
    jl_summary_list l = {0};
    static const char *const models[] = {"10",   "9",  " 7",   "1e3",  "inf", "nan", "abc",
                                         "Zeta", "-1", "0x10", "10.0", "",    "x"};
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        jl_summary *s = fx_run(&l, models[i], i % 3 ? "H100" : "A100", (long)(i % 4) - 1,
                               (long)(i % 5) * 8, 0.01, 1.0);
        s->attrs.gpu_tdp_w = i % 4 ? 700.0 / (double)(i % 4) : NAN;
        jl_attrs_add_extra(&s->attrs, "num_gpus", "99", 1); /* shadowed by the field */
        if (i % 2)
            jl_attrs_add_extra(&s->attrs, "tp", i % 4 == 1 ? "2" : "2.0", 1);
        if (i == 5)
            jl_attrs_add_extra(&s->attrs, "power_scope", "node_ac", 0);
    }
    free(l.items[12]->attrs.gpu_model); /* missing */
    l.items[12]->attrs.gpu_model = NULL;
    /* long strings: cut at 1023 bytes, as jl_attrs_get's buffer does */
    const size_t lens[] = {1500, 1500, 1023, 1024, 1022};
    const char lasts[] = {'b', 'c', 'b', 'c', 'b'};
    for (size_t i = 0; i < 5; i++) {
        jl_summary *s = fx_run(&l, "long", "H100", 1, 8, 0.01, 1.0);
        free(s->attrs.gpu_model);
        s->attrs.gpu_model = long_text(lens[i], lasts[i]);
    }
    static const char *const k1[] = {"model"};
    static const char *const k2[] = {"gpu_model", "num_gpus"};
    static const char *const k3[] = {"gpu_tdp_w", "tp"};
    static const char *const k10[] = {"workload", "model",     "task",           "gpu_model",
                                      "num_gpus", "precision", "max_batch_size", "gpu_tdp_w",
                                      "tp",       "num_frames"};
    check_like_attrs_get(&l, k1, 1);
    check_like_attrs_get(&l, k2, 2);
    check_like_attrs_get(&l, k3, 2);
    check_like_attrs_get(&l, k10, 10);
    /* keys of numbers only, or texts only, are grouped by hashing: equal
     * numbers in other texts (0 and -0, 1 and 1.0), missing values, node AC */
    static const char *const nums[] = {"1", "0", "-0", "1.0", "2", NULL, "1e0", "0.0", "2"};
    for (size_t i = 0; i < l.count; i++) {
        const char *v = nums[i % (sizeof nums / sizeof nums[0])];
        if (v)
            jl_attrs_add_extra(&l.items[i]->attrs, "n", v, 1);
    }
    static const char *const kn[] = {"n"};
    static const char *const kn2[] = {"n", "gpu_model", "precision"};
    static const char *const kt[] = {"gpu_model", "precision", "workload"};
    check_like_attrs_get(&l, kn, 1);
    check_like_attrs_get(&l, kn2, 3);
    check_like_attrs_get(&l, kt, 3);
    jl_group_set hs;
    CHECK(jl_group_runs(&l, kn, 1, NULL, &hs, NULL) == JL_OK);
    /* 0 (runs 1, 2, 7, ...), 1 (0, 3, 6, ...), 2, missing (14), missing with node AC (5) */
    CHECK_EQ_INT(hs.n, 5);
    if (hs.n == 5) {
        CHECK_STR(hs.groups[0].values[0], "0");
        CHECK_EQ_INT(hs.groups[0].n_runs, 6);
        CHECK_EQ_INT(hs.groups[0].runs[1], 2);
        CHECK_STR(hs.groups[1].values[0], "1");
        CHECK_EQ_INT(hs.groups[1].runs[0], 0);
        CHECK_EQ_INT(hs.groups[1].n_runs, 6);
        CHECK_STR(hs.groups[2].values[0], "2");
        CHECK(hs.groups[3].values[0] == NULL && !hs.groups[3].node_ac);
        CHECK_EQ_INT(hs.groups[3].runs[0], 14);
        CHECK(hs.groups[4].values[0] == NULL && hs.groups[4].node_ac);
        CHECK_EQ_INT(hs.groups[4].runs[0], 5);
    }
    jl_group_set_clear(&hs);
    /* names that agree in their first 1023 bytes share a group */
    jl_group_set gs;
    static const char *const kg[] = {"gpu_model"};
    CHECK(jl_group_runs(&l, kg, 1, NULL, &gs, NULL) == JL_OK);
    size_t n_long = 0;
    for (size_t g = 0; g < gs.n; g++)
        if (gs.groups[g].values[0] && strlen(gs.groups[g].values[0]) > 100) {
            n_long++;
            CHECK(strlen(gs.groups[g].values[0]) <= 1023);
        }
    CHECK_EQ_INT(n_long, 3); /* 1023 a (both 1500s and the 1024, cut), 1022 a + b, 1021 a + b */
    jl_group_set_clear(&gs);
    jl_summary_list_clear(&l);
}

int main(void)
{
    RUN(values_numbers_missing_node_ac);
    RUN(typed_fields_as_jl_attrs_get);
    TEST_MAIN_END();
}
