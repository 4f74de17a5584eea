/* jl_json_dumps writes exactly what jansson's json_dumps writes, for every
 * kind of value and every flag joules uses (src/output/json_dump.c). */
#include <float.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "joules/output.h"
#include "test.h"

static void same(const json_t *v, size_t flags)
{
    char *a = json_dumps(v, flags), *b = jl_json_dumps(v, flags);
    CHECK((a == NULL) == (b == NULL));
    if (a && b)
        CHECK_STR(b, a);
    free(a);
    free(b);
}

static const size_t flag_sets[] = {
    JSON_SORT_KEYS | JSON_INDENT(2) | JSON_REAL_PRECISION(12),
    JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY,
    JSON_COMPACT | JSON_ENCODE_ANY,
    0,
    JSON_INDENT(4),
    JSON_INDENT(1) | JSON_COMPACT | JSON_REAL_PRECISION(3),
    JSON_ENSURE_ASCII | JSON_INDENT(2), /* handed to jansson */
};

static void same_all(const json_t *v)
{
    for (size_t i = 0; i < sizeof flag_sets / sizeof flag_sets[0]; i++)
        same(v, flag_sets[i]);
}

TEST(reals_as_jansson_prints_them)
{
    const double vals[] = {0.0, -0.0, 1.0, -1.0, 0.1, 1e5, 1e15, 1e16, 1e17, 1e21, 1e-5,
                           1.5e-7, 123456789012.0, 1234567890123.0, 0.30000000000000004,
                           DBL_MAX, DBL_MIN, 5e-324, -2.5e-300, 341.982375003, 3e100, 100.0};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        json_t *a = json_array();
        json_array_append_new(a, json_real(vals[i]));
        json_array_append_new(a, json_real(-vals[i]));
        same_all(a);
        json_t *r = json_real(vals[i]);
        same_all(r); /* a bare value: JSON_ENCODE_ANY or refused */
        json_decref(r);
        json_decref(a);
    }
}

TEST(integers_strings_literals)
{
    json_t *a = json_array();
    const json_int_t ints[] = {0, 1, -1, 42, 9007199254740993LL, -9223372036854775807LL - 1,
                               9223372036854775807LL};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        json_array_append_new(a, json_integer(ints[i]));
    json_array_append_new(a, json_string(""));
    json_array_append_new(a, json_string("plain"));
    json_array_append_new(a, json_string("quote \" backslash \\ slash / tab \t nl \n cr \r"));
    json_array_append_new(a, json_string("\b\f\x01\x1f\x7f"));
    json_array_append_new(a, json_string("unicode: \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
    json_array_append_new(a, json_stringn("nul\0inside", 10));
    json_array_append_new(a, json_true());
    json_array_append_new(a, json_false());
    json_array_append_new(a, json_null());
    same_all(a);
    json_decref(a);
}

TEST(nested_containers_and_key_order)
{
    json_t *doc = json_object();
    json_object_set_new(doc, "zeta", json_integer(1));
    json_object_set_new(doc, "alpha", json_array());
    json_object_set_new(doc, "empty", json_object());
    json_object_set_new(doc, "ab", json_real(2.5));
    json_object_set_new(doc, "a", json_null());
    json_object_set_new(doc, "\xc3\xa9t\xc3\xa9", json_string("x"));
    json_object_setn_new(doc, "k\0b", 3, json_integer(3));
    json_object_setn_new(doc, "k", 1, json_integer(4));
    json_t *inner = json_object();
    for (int i = 40; i > 0; i--) { /* more keys than the writer keeps on its stack */
        char k[16];
        snprintf(k, sizeof k, "key%02d", i);
        json_t *arr = json_array();
        for (int j = 0; j < i % 4; j++)
            json_array_append_new(arr, json_real(i / (j + 3.0)));
        json_object_set_new(inner, k, arr);
    }
    json_object_set_new(doc, "inner", inner);
    json_t *deep = json_array(), *cur = deep;
    for (int d = 0; d < 20; d++) {
        json_t *next = json_array();
        json_array_append_new(cur, json_object());
        json_array_append_new(cur, next);
        cur = next;
    }
    json_object_set_new(doc, "deep", deep);
    same_all(doc);
    json_decref(doc);
}

int main(void)
{
    RUN(reals_as_jansson_prints_them);
    RUN(integers_strings_literals);
    RUN(nested_containers_and_key_order);
    TEST_MAIN_END();
}
