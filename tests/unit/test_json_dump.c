/* jl_json_dumps writes exactly what jansson's json_dumps writes, for every
 * kind of value and every flag joules uses (src/json/json_dump.c). */
#include <float.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "joules/output.h"
#include "test.h"
#include "json/json_internal.h"

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
    const double vals[] = {0.0,
                           -0.0,
                           1.0,
                           -1.0,
                           0.1,
                           1e5,
                           1e15,
                           1e16,
                           1e17,
                           1e21,
                           1e-5,
                           1.5e-7,
                           123456789012.0,
                           1234567890123.0,
                           0.30000000000000004,
                           DBL_MAX,
                           DBL_MIN,
                           5e-324,
                           -2.5e-300,
                           341.982375003,
                           3e100,
                           100.0};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        if (fabs(vals[i]) >= JL_JSON_FULL_FROM)
            continue; /* written in full: full_precision_from_1e9 */
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

/* Numbers of 1e9 or more (absolute times in Unix seconds) read back as the
 * same double at every precision, in both backends; below 1e9 the
 * document's precision holds (jansson's bytes, above). */
TEST(full_precision_from_1e9)
{
    const double vals[] = {1795290517.43,  1795290517.4300001, 1795290517.123456,      1e9,
                           123456789012.0, 1234567890123.0,    1.7976931348623157e308, 3e100,
                           1000000000.5,   999999999.123456789};
    static const size_t flags[] = {JSON_REAL_PRECISION(12), JSON_REAL_PRECISION(3), 0};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
        for (size_t f = 0; f < 3; f++) {
            json_t *r = json_real(vals[i]);
            char *t = jl_json_dumps(r, flags[f] | JSON_ENCODE_ANY);
            CHECK(t != NULL);
            if (t && vals[i] >= JL_JSON_FULL_FROM)
                CHECK(strtod(t, NULL) == vals[i]);
            else if (t) { /* below: the precision as asked */
                char *a = json_dumps(r, flags[f] | JSON_ENCODE_ANY);
                CHECK_STR(t, a);
                free(a);
            }
            /* the text backend writes the same */
            jl__jw *w = jl__jw_text(flags[f] | JSON_SORT_KEYS | JSON_COMPACT);
            jl__jw_array(w);
            jl__jw_number(w, vals[i]);
            jl__jw_end(w);
            char *x = jl__jw_finish_text(w, NULL);
            char *want = jl__asprintf("[%s]\n", t ? t : "");
            CHECK_STR(x, want);
            free(want);
            free(x);
            free(t);
            json_decref(r);
        }
    json_t *r = json_real(1795290517.123456);
    char *s = jl_json_dumps(r, JSON_ENCODE_ANY | JSON_REAL_PRECISION(12));
    CHECK_STR(s, "1795290517.123456"); /* 12 digits would say 1795290517.12 */
    free(s);
    json_decref(r);
}

TEST(integers_strings_literals)
{
    json_t *a = json_array();
    const json_int_t ints[] = {
        0, 1, -1, 42, 9007199254740993LL, -9223372036854775807LL - 1, 9223372036854775807LL};
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

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

/* jl__format_g(p) against snprintf("%.*g"): random bit patterns, random
 * magnitudes, decimal ties of p + 1 digits (the rounding boundary), powers of
 * ten and their neighbours. */
TEST(format_g_matches_snprintf)
{
    static const int precisions[] = {1, 3, 6, 12, 15};
    long mismatches = 0;
    for (size_t pi = 0; pi < sizeof precisions / sizeof precisions[0]; pi++) {
        int p = precisions[pi];
        for (int i = 0; i < 120000; i++) {
            double v;
            uint64_t r = rng();
            switch (i % 4) {
            case 0: memcpy(&v, &r, sizeof v); break;
            case 1: v = (double)(r >> 11) / 9007199254740992.0 * pow(10, (int)(r % 60) - 30); break;
            case 2: { /* p + 1 significant digits ending in 5 */
                double m = (double)((r >> 20) % (uint64_t)pow(10, p)) * 10 + 5;
                v = m * pow(10, (int)(r % 40) - 20 - p);
                break;
            }
            default: {
                double t = pow(10, (int)(r % 50) - 25);
                v = (r & 1) ? nextafter(t, 0) : (r & 2) ? nextafter(t, INFINITY) : t;
                break;
            }
            }
            if (r & 4)
                v = -v;
            char a[64], b[64];
            snprintf(a, sizeof a, "%.*g", p, v);
            jl__format_g(b, sizeof b, p, v);
            if (strcmp(a, b) && mismatches++ < 5)
                fprintf(stderr, "format_g p=%d %a: snprintf %s, fast %s\n", p, v, a, b);
        }
    }
    const double specials[] = {0.0,
                               -0.0,
                               INFINITY,
                               -INFINITY,
                               NAN,
                               DBL_MAX,
                               DBL_MIN,
                               5e-324,
                               0.5,
                               9.9999999999995,
                               999999999999.5,
                               1e-5,
                               1e-4,
                               0.000123456789012345,
                               123456789012.0,
                               1e12,
                               1e15,
                               1e16};
    for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++)
        for (int p = 1; p <= 17; p++) {
            char a[64], b[64];
            snprintf(a, sizeof a, "%.*g", p, specials[i]);
            jl__format_g(b, sizeof b, p, specials[i]);
            if (strcmp(a, b) && mismatches++ < 10)
                fprintf(stderr, "format_g p=%d %a: snprintf %s, fast %s\n", p, specials[i], a, b);
        }
    CHECK_EQ_INT(mismatches, 0);
}

/* One emitter, two backends: the text backend writes what jl_json_dumps
 * writes for the tree the tree backend builds, whatever the key order
 * (unsorted, repeated keys, nesting, empty containers). */
static void emit_sample(jl__jw *w)
{
    jl__jw_object(w);
    jl__jw_kstring(w, "zeta", "z");
    jl__jw_key(w, "alpha");
    jl__jw_array(w);
    jl__jw_end(w);
    jl__jw_key(w, "mid");
    jl__jw_object(w);
    jl__jw_end(w);
    jl__jw_knumber(w, "num", 0.1 + 0.2);
    jl__jw_knumber(w, "nan", NAN);
    jl__jw_klong(w, "neg", -1);
    jl__jw_klong(w, "count", 42);
    jl__jw_kstring(w, "zeta", "replaced"); /* a repeated key keeps its last value */
    jl__jw_kstring(w, "esc \"k\"", "line\nbreak \\ \x01");
    jl__jw_kstring(w, "null", NULL);
    jl__jw_key(w, "list");
    jl__jw_array(w);
    for (int i = 0; i < 40; i++) {
        jl__jw_object(w);
        static const char *const ks[] = {"k07", "k03", "k11", "k03x", "k00"};
        for (size_t k = 0; k < (size_t)(i % 6) && k < 5; k++)
            jl__jw_knumber(w, ks[k], i * 1000.0 / (double)(k + 1));
        jl__jw_knumber(w, "b", i);
        jl__jw_knumber(w, "a", -i * 1e-9);
        jl__jw_key(w, "t");
        jl__jw_bool(w, i % 2);
        jl__jw_end(w);
    }
    jl__jw_end(w);
    json_t *shared = json_pack("{s:[i,f,s,n],s:{}}", "x", 1, 2.5, "s", "y");
    jl__jw_key(w, "tree");
    jl__jw_json(w, shared);
    json_decref(shared);
    jl__jw_key(w, "many");
    jl__jw_object(w);
    static const char *const many[] = {"m9",  "m1",  "m33", "m3",  "m21", "m0",  "m17", "m5",
                                       "m12", "m8",  "m30", "m2",  "m25", "m6",  "m19", "m4",
                                       "m11", "m7",  "m28", "m10", "m13", "m14", "m15", "m16",
                                       "m18", "m20", "m22", "m23", "m24", "m26", "m27", "m29",
                                       "m31", "m32", "m34", "m35"};
    for (size_t i = 0; i < sizeof many / sizeof many[0]; i++)
        jl__jw_knumber(w, many[i], (double)i);
    jl__jw_end(w);
    /* order decided by first bytes, by later bytes (equal first bytes), by
     * length; bytes above 0x7f unsigned; an empty key; keys in order */
    static const char *const ord[] = {"ab", "a",     "b",         "ba",       "\xc3\xa9", "z",
                                      "",   "a\x7f", "a\xc3\xa9", "tab\tkey", "a"};
    static const char *const sorted[] = {"s", "s1", "s2", "t"};
    for (int k = 0; k < 2; k++) {
        jl__jw_key(w, k ? "sorted" : "order");
        jl__jw_object(w);
        for (size_t i = 0; i < (k ? 4 : sizeof ord / sizeof ord[0]); i++)
            jl__jw_klong(w, k ? sorted[i] : ord[i], (long)i);
        jl__jw_end(w);
    }
    /* indentation deeper than 32 spaces */
    jl__jw_key(w, "deep");
    for (int d = 0; d < 12; d++) {
        jl__jw_object(w);
        jl__jw_key(w, "d");
    }
    jl__jw_array(w);
    jl__jw_integer(w, 1);
    jl__jw_end(w);
    for (int d = 0; d < 12; d++)
        jl__jw_end(w);
    jl__jw_end(w);
}

TEST(writer_text_equals_tree)
{
    static const size_t flags[] = {
        JSON_SORT_KEYS | JSON_INDENT(2) | JSON_REAL_PRECISION(12),
        JSON_SORT_KEYS | JSON_COMPACT,
        JSON_SORT_KEYS | JSON_INDENT(4) | JSON_REAL_PRECISION(3),
        JSON_SORT_KEYS | JSON_INDENT(1) | JSON_COMPACT,
    };
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        jl__jw *t = jl__jw_tree();
        emit_sample(t);
        json_t *tree = jl__jw_finish_tree(t);
        CHECK(tree != NULL);
        char *want = jl_json_dumps(tree, flags[i]);
        jl__jw *w = jl__jw_text(flags[i]);
        CHECK(w != NULL);
        emit_sample(w);
        size_t len = 0;
        char *got = jl__jw_finish_text(w, &len);
        CHECK(want && got);
        if (want && got) {
            CHECK_EQ_INT(len, strlen(want) + 1);
            got[len - 1] = '\0'; /* the text backend ends with a newline */
            CHECK_STR(got, want);
        }
        free(want);
        free(got);
        json_decref(tree);
    }
    CHECK(jl__jw_text(JSON_INDENT(2)) == NULL); /* sorted keys only */
    jl__jw *w = jl__jw_text(JSON_SORT_KEYS);
    jl__jw_object(w); /* left open: no text */
    CHECK(jl__jw_finish_text(w, NULL) == NULL);
}

/* Well-formed UTF-8 is written as it is; each byte that starts no
 * well-formed sequence (lone continuation, overlong, surrogate, above
 * U+10FFFF, cut short) becomes U+FFFD, in keys and values, the same in the
 * text and the tree backend: a document joules writes is always JSON. */
static void emit_utf8(jl__jw *w)
{
    jl__jw_object(w);
    jl__jw_kstring(w, "good", "\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf");
    jl__jw_kstring(w, "lone",
                   "a\x80"
                   "b");
    jl__jw_kstring(w, "overlong", "\xc0\xaf|\xe0\x80\xaf");
    jl__jw_kstring(w, "surrogate", "\xed\xa0\x80");
    jl__jw_kstring(w, "above", "\xf4\x90\x80\x80");
    jl__jw_kstring(w, "cut", "x\xe2\x82");
    jl__jw_kstring(w,
                   "bad\xff"
                   "key",
                   "v");
    jl__jw_end(w);
}

TEST(invalid_utf8_replaced)
{
    jl__jw *w = jl__jw_text(JSON_SORT_KEYS | JSON_COMPACT);
    emit_utf8(w);
    size_t len = 0;
    char *got = jl__jw_finish_text(w, &len);
    const char *want =
        "{\"above\":\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\","
        "\"bad\xef\xbf\xbd"
        "key\":\"v\","
        "\"cut\":\"x\xef\xbf\xbd\xef\xbf\xbd\","
        "\"good\":\"\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf\","
        "\"lone\":\"a\xef\xbf\xbd"
        "b\","
        "\"overlong\":\"\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\","
        "\"surrogate\":\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"}\n";
    CHECK(got != NULL);
    if (got)
        CHECK_STR(got, want);
    /* the tree backend: the same document (jansson itself would refuse) */
    jl__jw *t = jl__jw_tree();
    emit_utf8(t);
    json_t *tree = jl__jw_finish_tree(t);
    CHECK(tree != NULL);
    char *dumped = tree ? jl_json_dumps(tree, JSON_SORT_KEYS | JSON_COMPACT) : NULL;
    CHECK(dumped != NULL);
    if (got && dumped) {
        got[len - 1] = '\0';
        CHECK_STR(dumped, got);
    }
    free(dumped);
    json_decref(tree);
    free(got);
}

/* jl__utf8_fix: a bad byte at every offset of the eight-byte ASCII scan,
 * well-formed sequences across the scan's blocks, nothing copied when all
 * is well-formed. */
TEST(utf8_fix_offsets)
{
    int oom = 1;
    CHECK(jl__utf8_fix("plain ascii text, long enough for words", &oom) == NULL);
    CHECK(!oom);
    CHECK(jl__utf8_fix("", &oom) == NULL);
    CHECK(jl__utf8_fix("0123456\xc3\xa9"
                       "0123456789\xe2\x82\xac",
                       &oom) == NULL);
    for (size_t at = 0; at < 20; at++) {
        char in[32], want[40];
        memset(in, 'a', sizeof in);
        in[at] = (char)0xff;
        in[24] = '\0';
        memset(want, 'a', sizeof want);
        memcpy(want + at, "\xef\xbf\xbd", 3);
        want[26] = '\0';
        char *got = jl__utf8_fix(in, &oom);
        CHECK(got != NULL && !oom);
        if (got)
            CHECK_STR(got, want);
        free(got);
    }
}

int main(void)
{
    RUN(reals_as_jansson_prints_them);
    RUN(full_precision_from_1e9);
    RUN(integers_strings_literals);
    RUN(nested_containers_and_key_order);
    RUN(format_g_matches_snprintf);
    RUN(writer_text_equals_tree);
    RUN(invalid_utf8_replaced);
    RUN(utf8_fix_offsets);
    TEST_MAIN_END();
}
