/* Unit tests of the floor every layer stands on (src/core): order
 * statistics, FNV-1a and the string map, civil time and zones, the CSV
 * reader. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/civil_time.h"
#include "core/csv.h"
#include "core/hash.h"
#include "core/stats.h"
#include "test.h"

TEST(stats_quantiles_are_numpy_linear)
{
    /* numpy.percentile([1, 2, 3, 4, 10], [0, 10, 50, 90, 100]) */
    double x[] = {10, 3, 1, 4, 2}, q[] = {0, 0.1, 0.5, 0.9, 1}, o[5];
    jl__quantiles_d(x, 5, q, 5, o);
    CHECK_NEAR(o[0], 1, 0, 0);
    CHECK_NEAR(o[1], 1.4, 1e-15, 0);
    CHECK_NEAR(o[2], 3, 0, 0);
    CHECK_NEAR(o[3], 7.6, 1e-15, 0);
    CHECK_NEAR(o[4], 10, 0, 0);
    /* the sorted form gives the same values, to the bit */
    double s[] = {1, 2, 3, 4, 10};
    for (int k = 0; k < 5; k++)
        CHECK(jl__quantile_sorted(s, 5, q[k]) == o[k]);
    CHECK(isnan(jl__quantile_sorted(s, 0, 0.5)));
    CHECK(jl__quantile_sorted(s, 5, -1) == 1 && jl__quantile_sorted(s, 5, 2) == 10);
    /* numpy's _lerp, not a + g (b - a): g = 0.75 between 0.1 and 0.7 */
    double two[] = {0.1, 0.7};
    double d = 0.7 - 0.1;
    CHECK(jl__quantile_sorted(two, 2, 0.75) == 0.7 - d * 0.25);
    float f[] = {10, 3, 1, 4, 2};
    double of[5];
    jl__quantiles_select_f(f, 5, q, 5, of);
    for (int k = 0; k < 5; k++)
        CHECK(of[k] == o[k]);
}

TEST(stats_median_kth_and_the_comparator)
{
    double odd[] = {5, 1, 3}, even[] = {4, 1, 3, 2}, none[1] = {0};
    CHECK(jl__median_d(odd, 3) == 3);
    CHECK(jl__median_d(even, 4) == 2.5);
    CHECK(isnan(jl__median_d(none, 0)));
    double k[] = {9, 7, 8, 1};
    CHECK(jl__kth_d(k, 4, 0) == 1 && jl__kth_d(k, 4, 3) == 9);
    CHECK(isnan(jl__kth_d(k, 4, 4)));
    /* NaN last; records sorted by their first double */
    double v[] = {2, NAN, -1, 0};
    qsort(v, 4, sizeof *v, jl__cmp_double);
    CHECK(v[0] == -1 && v[1] == 0 && v[2] == 2 && isnan(v[3]));
    double pairs[] = {3, 30, 1, 10, 2, 20};
    qsort(pairs, 3, 2 * sizeof *pairs, jl__cmp_double);
    CHECK(pairs[0] == 1 && pairs[1] == 10 && pairs[4] == 3 && pairs[5] == 30);
}

TEST(hash_fnv1a_vectors)
{
    /* the reference vectors of FNV-1a 64 */
    CHECK(jl__fnv1a("") == UINT64_C(0xcbf29ce484222325));
    CHECK(jl__fnv1a("a") == UINT64_C(0xaf63dc4c8601ec8c));
    CHECK(jl__fnv1a("foobar") == UINT64_C(0x85944171f73967e8));
    CHECK(jl__fnv1a_add(JL__FNV1A_INIT, "foobar", 6) == jl__fnv1a("foobar"));
    CHECK(jl__fnv1a_add(jl__fnv1a_add(JL__FNV1A_INIT, "foo", 3), "bar", 3) == jl__fnv1a("foobar"));
}

TEST(hash_strmap_adds_finds_and_grows)
{
    jl__strmap m = JL__STRMAP_INIT;
    CHECK(jl__strmap_find(&m, "x") == NULL);
    char key[32];
    const char *kept[1000];
    for (size_t i = 0; i < 1000; i++) {
        snprintf(key, sizeof key, "name%zu", i);
        int added = 0;
        jl__strmap_entry *e = jl__strmap_add(&m, key, i, &added);
        CHECK(e && added && e->value == i && !strcmp(e->key, key));
        kept[i] = e ? e->key : NULL;
    }
    CHECK_EQ_INT(m.n, 1000);
    CHECK(m.cap >= 2000 && (m.cap & (m.cap - 1)) == 0);
    int added = 1;
    jl__strmap_entry *e = jl__strmap_add(&m, "name7", 99, &added);
    CHECK(e && !added && e->value == 7);
    for (size_t i = 0; i < 1000; i++) {
        snprintf(key, sizeof key, "name%zu", i);
        e = jl__strmap_find(&m, key);
        CHECK(e && e->value == i && e->key == kept[i]); /* keys stay where they are */
    }
    CHECK(jl__strmap_find(&m, "name1000") == NULL && jl__strmap_find(&m, "") == NULL);
    jl__strmap_free(&m);
    CHECK(m.n == 0 && m.cap == 0 && jl__strmap_find(&m, "name1") == NULL);
    jl__strmap_free(&m);
}

TEST(civil_days_and_iso_8601)
{
    CHECK_EQ_INT(jl__days_from_civil(1970, 1, 1), 0);
    CHECK_EQ_INT(jl__days_from_civil(2000, 3, 1), 11017);
    CHECK_EQ_INT(jl__days_from_civil(1969, 12, 31), -1);
    CHECK_EQ_INT(jl__days_from_civil(2024, 2, 29), 19782);
    jl__civil c;
    CHECK(jl__civil_parse("2026-11-23T22:17:22.125Z", &c));
    CHECK(c.has_offset && c.offset_s == 0 && c.hour == 22 && c.sec == 22.125);
    CHECK_NEAR(jl__civil_utc(&c), 1795472242.125, 0, 1e-6);
    CHECK(jl__civil_parse(" 2026/11/23 22:17:22,5+05:30 ", &c) && c.offset_s == 19800);
    CHECK(jl__civil_parse("2026-11-23 22:17:22-0800", &c) && c.offset_s == -28800);
    /* the strict form needs seconds; the short forms do not */
    CHECK(!jl__civil_parse("2026-11-23", &c));
    CHECK(!jl__civil_parse("2026-11-23T22:17", &c));
    CHECK(!jl__civil_parse("2026-11-23T24:00:00", &c));
    CHECK(jl__civil_parse_short("2026-11-23", &c) && c.hour == 0 && c.min == 0 && !c.has_offset);
    CHECK(jl__civil_parse_short("2026-11-23T22:17", &c) && c.min == 17 && c.sec == 0);
    CHECK(jl__civil_parse_short("2026-11-23T24:00", &c) && c.hour == 24);
    CHECK(!jl__civil_parse_short("2026-11-23T24:01", &c));
    CHECK(!jl__civil_parse_short("2026-11-23T", &c));
    CHECK(!jl__civil_parse_short("2026-13-01", &c) && !jl__civil_parse_short("2026-1-01", &c));
    CHECK(!jl__civil_parse("2026-11-23T22:17:22x", &c));
    char buf[32];
    CHECK(jl__iso_utc(1795472242.9, buf) == 0);
    CHECK_STR(buf, "2026-11-23T22:17:22Z");
    CHECK(jl__iso_utc(NAN, buf) == -1 && buf[0] == 0);
    CHECK_STR(jl__iso_utc_ms(buf, 1795472242.9996), "2026-11-23T22:17:23.000Z");
    CHECK_STR(jl__iso_utc_ms(buf, 1795472242.25), "2026-11-23T22:17:22.250Z");
}

TEST(civil_zones)
{
    jl__zone *z = NULL;
    jl_error *err = NULL;
    CHECK(jl__zone_open("+05:30", &z, &err) == JL_OK);
    CHECK_STR(jl__zone_name(z), "UTC+05:30");
    jl__civil c;
    int gap = 0;
    CHECK(jl__civil_parse("2026-01-01T05:30:00", &c));
    CHECK_NEAR(jl__zone_to_unix(z, &c, NAN, &gap), 1767225600, 0, 1e-9);
    CHECK(jl__civil_parse("2026-01-01T05:30:00Z", &c)); /* the text's own zone wins */
    CHECK_NEAR(jl__zone_to_unix(z, &c, NAN, &gap), 1767245400, 0, 1e-9);
    jl__zone_free(z);
    CHECK(jl__zone_open("Not/A_Zone", &z, &err) == JL_EUSAGE && !z);
    jl_error_free(err);
    jl__zone_free(NULL);
}

TEST(csv_reader_quotes_lines_and_errors)
{
    const char text[] = "\xef\xbb\xbf"
                        "a, b ,\"c, \"\"d\"\"\"\r\n"
                        "\n"
                        "1,\"two\nlines\",3\n"
                        "4,5";
    jl__csv *c = NULL;
    jl_error *err = NULL;
    CHECK(jl__csv_open_buffer(text, sizeof text - 1, "t.csv", &c, &err) == JL_OK);
    CHECK_STR(jl__csv_encoding(c), "UTF-8 with a byte-order mark");
    jl__csv_row r;
    CHECK(jl__csv_next(c, &r, &err) == 1);
    CHECK(r.n == 3 && r.line == 1);
    CHECK_STR(r.f[0].s, "a");
    CHECK_STR(r.f[1].s, "b");
    CHECK_STR(r.f[2].s, "c, \"d\"");
    CHECK(jl__csv_next(c, &r, &err) == 1);
    CHECK(r.n == 3 && r.line == 3 && r.complete);
    CHECK_STR(r.f[1].s, "two\nlines");
    CHECK(jl__csv_next(c, &r, &err) == 1);
    CHECK(r.n == 2 && r.line == 5 && !r.complete);
    CHECK(jl__csv_next(c, &r, &err) == 0);
    jl__csv_close(c);
    const char bad[] = "a,\"b\n";
    CHECK(jl__csv_open_buffer(bad, sizeof bad - 1, "bad.csv", &c, &err) == JL_OK);
    CHECK(jl__csv_next(c, &r, &err) == -1);
    CHECK(err && err->code == JL_EINVALID && err->line == 1);
    jl_error_free(err);
    jl__csv_close(c);
    err = NULL;
    CHECK(jl__csv_open_file("/nonexistent/x.csv", &c, &err) == JL_EIO && !c);
    CHECK(err && strstr(err->message, "cannot open"));
    jl_error_free(err);
}

int main(void)
{
    RUN(stats_quantiles_are_numpy_linear);
    RUN(stats_median_kth_and_the_comparator);
    RUN(hash_fnv1a_vectors);
    RUN(hash_strmap_adds_finds_and_grows);
    RUN(civil_days_and_iso_8601);
    RUN(civil_zones);
    RUN(csv_reader_quotes_lines_and_errors);
    TEST_MAIN_END();
}
