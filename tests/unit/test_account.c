/* Accounting (joules/account.h): SHA-256 against the FIPS 180-4 examples,
 * the provenance block (deterministic apart from the time, which
 * SOURCE_DATE_EPOCH fixes), the document writers' hook. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "account/account_internal.h"
#include "joules/account.h"
#include "joules/output.h"
#include "test.h"

TEST(sha256_vectors)
{
    char hex[65];
    jl_sha256_hex("abc", 3, hex);
    CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    jl_sha256_hex("", 0, hex);
    CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    jl_sha256_hex(two, strlen(two), hex);
    CHECK_STR(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    const char *four =
        "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmn"
        "opqklmnopqrlmnopqrsmnopqrstnopqrstu";
    jl_sha256_hex(four, strlen(four), hex);
    CHECK_STR(hex, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
    /* one million 'a', fed in uneven pieces (the block buffer's edges) */
    jl__sha256 s;
    jl__sha256_init(&s);
    char a[1000];
    memset(a, 'a', sizeof a);
    size_t left = 1000000, step = 1;
    while (left) {
        size_t n = step < left ? step : left;
        n = n < sizeof a ? n : sizeof a;
        jl__sha256_update(&s, a, n);
        left -= n;
        step = step % 997 + 63;
    }
    unsigned char d[32];
    jl__sha256_final(&s, d);
    char h2[65];
    for (int i = 0; i < 32; i++)
        snprintf(h2 + 2 * i, 3, "%02x", d[i]);
    CHECK_STR(h2, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* The SHA extensions' block function and the portable one give the same
 * digests (pieces of random data of every length around the block edges);
 * on a CPU without the extensions both runs take the portable path. */
TEST(sha256_hw_matches_portable)
{
    enum { N = 5000 };
    unsigned char *data = malloc(N);
    CHECK(data != NULL);
    if (!data)
        return;
    uint32_t x = 2463534242u;
    for (size_t i = 0; i < N; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        data[i] = (unsigned char)x;
    }
    int was = jl__sha256_hw(1);
    for (size_t len = 0; len < N; len += len < 200 ? 1 : 97) {
        char hw[65], sw[65];
        jl__sha256_hw(1);
        jl_sha256_hex(data, len, hw);
        jl__sha256_hw(0);
        jl_sha256_hex(data, len, sw);
        CHECK_STR(hw, sw);
        /* and in uneven pieces */
        jl__sha256 s;
        unsigned char d[32];
        jl__sha256_hw(1);
        jl__sha256_init(&s);
        for (size_t off = 0, step = 1; off < len; off += step, step = step * 3 % 131 + 1)
            jl__sha256_update(&s, data + off, step < len - off ? step : len - off);
        jl__sha256_final(&s, d);
        char h2[65];
        for (int i = 0; i < 32; i++)
            snprintf(h2 + 2 * i, 3, "%02x", d[i]);
        CHECK_STR(h2, sw);
    }
    jl__sha256_hw(was);
    free(data);
}

/* A temporary file holding "abc" (path: a mkstemp template). */
static void temp_abc(char *path)
{
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK(write(fd, "abc", 3) == 3);
    close(fd);
}

TEST(sha256_file)
{
    char path[] = "/tmp/jl_account_XXXXXX";
    temp_abc(path);
    char hex[65];
    unsigned long long size = 0;
    jl_error *err = NULL;
    CHECK_EQ_INT(jl_sha256_file(path, hex, &size, &err), JL_OK);
    CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK_EQ_INT(size, 3);
    unlink(path);
    CHECK_EQ_INT(jl_sha256_file(path, hex, &size, &err), JL_EMISSING);
    CHECK(err && err->file && !strcmp(err->file, path));
    jl_error_free(err);
}

static const json_t *hook(void *ctx)
{
    return ctx;
}

TEST(provenance_block)
{
    char path[] = "/tmp/jl_account_XXXXXX";
    temp_abc(path);
    int fd;
    jl_provenance *p = jl_provenance_new();
    char *argv[] = {"/usr/bin/joules", "summarize", "--json", path};
    CHECK_EQ_INT(jl_provenance_set_command(p, 4, argv), JL_OK);
    CHECK_EQ_INT(jl_provenance_add_input(p, path), JL_OK);
    CHECK_EQ_INT(jl_provenance_add_input(p, "/nonexistent/x.h5"), JL_OK);
    jl_ruleset rs;
    jl_ruleset_default(&rs);
    jl_provenance_set_rules(p, &rs);
    jl_provenance_set_time(p, 86400);
    json_t *b = jl_provenance_to_json(p);
    CHECK(b != NULL);
    CHECK_STR(json_string_value(json_object_get(b, "schema")), JL_PROVENANCE_SCHEMA);
    CHECK_STR(json_string_value(json_object_get(b, "created")), "1970-01-02T00:00:00Z");
    CHECK_STR(json_string_value(json_array_get(json_object_get(b, "command"), 0)), "joules");
    json_t *in = json_object_get(b, "inputs");
    CHECK_EQ_INT(json_array_size(in), 2);
    CHECK_STR(json_string_value(json_object_get(json_array_get(in, 0), "sha256")),
              "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK_EQ_INT(json_integer_value(json_object_get(json_array_get(in, 0), "bytes")), 3);
    CHECK(json_object_get(json_array_get(in, 1), "error") != NULL);
    CHECK(json_object_get(json_object_get(json_object_get(b, "rules"), "rules"),
                          "steady_duration") != NULL);
    /* the hook: a joules document gets the block, anything else does not */
    jl_output_set_provenance(hook, b);
    json_t *doc = json_pack("{s:s,s:i}", "schema", "joules.summary/1", "x", 1);
    json_t *other = json_pack("{s:i}", "x", 1);
    char out[] = "/tmp/jl_account_out_XXXXXX";
    fd = mkstemp(out);
    close(fd);
    CHECK_EQ_INT(jl_write_json(out, doc, NULL), JL_OK);
    json_t *back = json_load_file(out, 0, NULL);
    CHECK(json_equal(json_object_get(back, "provenance"), b));
    CHECK(json_object_get(doc, "provenance") == NULL); /* the caller's document untouched */
    json_decref(back);
    CHECK_EQ_INT(jl_write_json(out, other, NULL), JL_OK);
    back = json_load_file(out, 0, NULL);
    CHECK(json_object_get(back, "provenance") == NULL);
    json_decref(back);
    jl_output_set_provenance(NULL, NULL);
    unlink(out);
    unlink(path);
    json_decref(doc);
    json_decref(other);
    json_decref(b);
    jl_provenance_free(p);
}

/* A digest noted where the file was read (core/digests.c) is what the
 * provenance records while the file is unchanged; once it changes, the
 * provenance hashes the file again. The noted digest here is deliberately
 * not the file's, to see which one is used. */
TEST(provenance_uses_noted_digest)
{
    char path[] = "/tmp/jl_account_XXXXXX";
    temp_abc(path);
    int fd;
    jl__digest d;
    CHECK_EQ_INT(jl__digest_file(path, &d, NULL), JL_OK);
    CHECK_STR(d.hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    memset(d.hex, 'e', 64);
    CHECK_EQ_INT(jl__digest_note(path, &d), JL_OK);
    jl_provenance *p = jl_provenance_new();
    CHECK_EQ_INT(jl_provenance_add_input(p, path), JL_OK);
    json_t *b = jl_provenance_to_json(p);
    json_t *in = json_array_get(json_object_get(b, "inputs"), 0);
    CHECK(!strncmp(json_string_value(json_object_get(in, "sha256")), "eeee", 4));
    json_decref(b);
    /* the file changes (size): hashed again */
    fd = open(path, O_WRONLY | O_APPEND);
    CHECK(fd >= 0 && write(fd, "d", 1) == 1);
    close(fd);
    CHECK_EQ_INT(jl_provenance_add_input(p, "/nonexistent/y.h5"), JL_OK); /* a new block */
    b = jl_provenance_to_json(p);
    in = json_array_get(json_object_get(b, "inputs"), 0);
    CHECK_STR(json_string_value(json_object_get(in, "sha256")),
              "88d4266fd4e6338d13b845fcf289579d209c897823b9217da3e161936f031589"); /* "abcd" */
    CHECK_EQ_INT(json_integer_value(json_object_get(in, "bytes")), 4);
    json_decref(b);
    jl_provenance_free(p);
    jl__digest_forget_all();
    unlink(path);
}

static jl_tseries *series_csv(const char *text)
{
    char path[] = "/tmp/jl_series_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    jl_tseries *s = NULL;
    jl_error *err = NULL;
    jl_status st = jl_tseries_load_csv(path, JL_INTENSITY_AVERAGE, NULL, &s, &err);
    if (st != JL_OK)
        fprintf(stderr, "%s\n", err ? err->message : "?");
    CHECK_EQ_INT(st, JL_OK);
    jl_error_free(err);
    unlink(path);
    return s;
}

/* Hand-computed: 1000 W from 00:30 to 02:30 under hourly intensity 100,
 * 200, 300 g/kWh: 0.5 kWh x 100 + 1 kWh x 200 + 0.5 kWh x 300 = 400 g;
 * a ramp 0 -> 2000 W over 00:30-01:30 under 100 then 200: the first half
 * hour's energy is 0.5 h x 500 W = 0.25 kWh at 100 and the second
 * 0.5 h x 1500 W = 0.75 kWh at 200: 25 + 150 = 175 g. */
TEST(emissions_hour_boundaries)
{
    jl_tseries *in = series_csv("datetime,value\n2026-11-21T00:00:00Z,100\n"
                                "2026-11-21T01:00:00Z,200\n2026-11-21T02:00:00+00:00,300\n");
    jl_tseries *one = jl_tseries_constant(1);
    double t0 = 0;
    CHECK_EQ_INT(jl_time_parse("2026-11-21T00:30:00Z", &t0), 0);
    CHECK_NEAR(t0, 1795221000.0, 0, 0);
    double ts[] = {0, 1800, 3600, 5400, 7200}, w[] = {1000, 1000, 1000, 1000, 1000};
    jl_emissions e;
    jl_error *err = NULL;
    CHECK_EQ_INT(jl_emissions_integrate(ts, w, 5, t0, one, in, &e, &err), JL_OK);
    CHECK_NEAR(e.energy_j, 2 * 3.6e6, 1e-12, 0);
    CHECK_NEAR(e.grams_co2eq, 400, 1e-12, 0);
    CHECK_NEAR(e.intensity, 200, 1e-12, 0);
    double tr[] = {0, 3600}, wr[] = {0, 2000};
    CHECK_EQ_INT(jl_emissions_integrate(tr, wr, 2, t0, one, in, &e, &err), JL_OK);
    CHECK_NEAR(e.energy_j, 3.6e6, 1e-12, 0);
    CHECK_NEAR(e.grams_co2eq, 175, 1e-12, 0);
    /* PUE over time multiplies piece by piece: 1.5 for the first hour */
    jl_tseries *pue = series_csv("time,pue\n2026-11-21 00:00,1.5\n2026-11-21 01:00,1.0\n"
                                 "2026-11-21 02:00,1.0\n");
    CHECK_EQ_INT(jl_emissions_integrate(ts, w, 5, t0, pue, in, &e, &err), JL_OK);
    CHECK_NEAR(e.facility_j, (0.5 * 1.5 + 1.5) * 3.6e6, 1e-12, 0);
    CHECK_NEAR(e.grams_co2eq, 0.5 * 1.5 * 100 + 200 + 150, 1e-12, 0);
    /* beyond the series: an error naming the time */
    CHECK_EQ_INT(jl_emissions_integrate(ts, w, 5, t0 + 86400, one, in, &e, &err), JL_ENODATA);
    CHECK_CONTAINS(err ? err->message : "", "2026-11-22T00:30:00Z");
    jl_error_free(err);
    /* the cleanest 1 h: starting 00:00 at 100 */
    double at = 0;
    CHECK_NEAR(jl_tseries_cleanest(in, -INFINITY, INFINITY, 3600, &at), 100, 0, 0);
    CHECK_NEAR(at, 1795219200.0, 0, 0);
    jl_tseries_free(in);
    jl_tseries_free(pue);
    jl_tseries_free(one);
}

/* A constant series (one value every hour) is one piece: exactly the
 * figures of the constant. */
TEST(emissions_constant_series_exact)
{
    jl_tseries *c = jl_tseries_constant(400), *p = jl_tseries_constant(1.2);
    jl_tseries *s = series_csv("datetime,value\n2026-11-21T00:00:00Z,400\n"
                               "2026-11-21T01:00:00Z,400\n2026-11-21T02:00:00Z,400\n");
    CHECK_EQ_INT(jl_tseries_count(s), 1);
    double ts[] = {0, 0.1, 0.25, 1000, 2000.5, 3599.9, 3600.2, 4000}, w[8];
    for (int i = 0; i < 8; i++)
        w[i] = 300 + 37.3 * i;
    jl_emissions a, b;
    CHECK_EQ_INT(jl_emissions_integrate(ts, w, 8, 1795219200.0 + 1800, p, c, &a, NULL), JL_OK);
    CHECK_EQ_INT(jl_emissions_integrate(ts, w, 8, 1795219200.0 + 1800, p, s, &b, NULL), JL_OK);
    CHECK(a.grams_co2eq == b.grams_co2eq);
    CHECK(a.intensity == 400 && b.intensity == 400 && b.pue == 1.2);
    jl_tseries_free(c);
    jl_tseries_free(p);
    jl_tseries_free(s);
}

TEST(series_layouts)
{
    /* WattTime: point_time, value in lbs/MWh; a gap beyond one step */
    jl_tseries *wt = series_csv("point_time,value,frequency,market,ba,datatype,version\n"
                                "2026-11-21T00:00:00+00:00,1000,300,RTM,X,MOER,3.3\n"
                                "2026-11-21T00:05:00+00:00,1000,300,RTM,X,MOER,3.3\n"
                                "2026-11-21T00:20:00+00:00,500,300,RTM,X,MOER,3.3\n");
    CHECK_NEAR(jl_tseries_at(wt, 1795219200.0 + 60), 453.59237, 1e-12, 0);
    CHECK(isnan(jl_tseries_at(wt, 1795219200.0 + 700))); /* 00:10-00:20: a gap */
    CHECK_NEAR(jl_tseries_at(wt, 1795219200.0 + 1201), 226.796185, 1e-12, 0);
    jl_tseries_free(wt);
    /* a time zone offset: 01:00+01:00 is 00:00 UTC */
    double t = 0;
    CHECK_EQ_INT(jl_time_parse("2026-11-21T01:00:00+01:00", &t), 0);
    CHECK_NEAR(t, 1795219200.0, 0, 0);
    CHECK(jl_time_parse("2026-13-01T00:00:00Z", &t) != 0);
}

/* Two documents compared leaf by leaf: numbers by their printed text,
 * what made them (version, rules) as verdicts, the build as a note. */
TEST(verify_documents)
{
    json_t *a = json_loads("{\"schema\": \"joules.x/1\", \"runs\": [{\"e\": 0.1, \"s\": \"x\"}],"
                           "\"provenance\": {\"joules\": {\"version\": \"1\", \"build\": "
                           "{\"compiler\": \"a\"}}, \"rules\": {\"r\": 1}, \"created\": \"t1\"}}",
                           0, NULL);
    json_t *b = json_deep_copy(a);
    jl_verify_report r = {0};
    json_object_set_new(json_object_get(b, "provenance"), "created", json_string("t2"));
    json_object_set_new(json_object_get(json_object_get(json_object_get(b, "provenance"), "joules"),
                                        "build"),
                        "compiler", json_string("b"));
    CHECK_EQ_INT(jl_verify_documents(a, b, 10, &r), JL_OK);
    CHECK_EQ_INT(r.verdict, JL_VERIFY_SAME); /* the time and the build do not count */
    CHECK_EQ_INT(r.n_figures, 3);            /* schema, runs[0].e, runs[0].s */
    CHECK_EQ_INT(r.n, 1);
    CHECK_STR(r.items[0].what, "build");
    jl_verify_report_clear(&r);
    /* 0.1 and 0.1000000000001 print alike at 12 digits: the same figure */
    json_object_set_new(json_array_get(json_object_get(b, "runs"), 0), "e",
                        json_real(0.1000000000001));
    CHECK_EQ_INT(jl_verify_documents(a, b, 10, &r), JL_OK);
    CHECK_EQ_INT(r.verdict, JL_VERIFY_SAME);
    jl_verify_report_clear(&r);
    json_object_set_new(json_array_get(json_object_get(b, "runs"), 0), "e", json_real(0.2));
    json_object_set_new(json_object_get(b, "provenance"), "rules", json_pack("{s:i}", "r", 2));
    CHECK_EQ_INT(jl_verify_documents(a, b, 10, &r), JL_OK);
    CHECK_EQ_INT(r.verdict, JL_VERIFY_DIFFERS);
    int saw_rule = 0, saw_fig = 0;
    for (size_t i = 0; i < r.n; i++) {
        saw_rule |= !strcmp(r.items[i].what, "rules") && !strcmp(r.items[i].where, "rules.r");
        saw_fig |= !strcmp(r.items[i].what, "figure") && !strcmp(r.items[i].where, "runs[0].e") &&
                   !strcmp(r.items[i].before, "0.1") && !strcmp(r.items[i].after, "0.2");
    }
    CHECK(saw_rule && saw_fig);
    jl_verify_report_clear(&r);
    json_decref(a);
    json_decref(b);
}

int main(void)
{
    RUN(sha256_vectors);
    RUN(sha256_hw_matches_portable);
    RUN(sha256_file);
    RUN(provenance_block);
    RUN(provenance_uses_noted_digest);
    RUN(emissions_hour_boundaries);
    RUN(emissions_constant_series_exact);
    RUN(series_layouts);
    RUN(verify_documents);
    TEST_MAIN_END();
}
