/* The streaming JSON reader's batch number path (src/json/json_stream.c,
 * jl__jstream_array_numbers): every value is strtod's double to the bit
 * (2,000,000 pseudo-random decimals and the edge cases: -0, denormals, 17+
 * digits, 2^53 +- 1, leading zeros, exponents), read from memory and
 * through a small file buffer; a batch gives what element-by-element reads
 * give, stops where it says (max, ']', a negative number, a non-number) and
 * fails on what the JSON grammar rejects, with the same message and place
 * as jl__jstream_array_number. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "json/json_internal.h"

static unsigned long long lcg = 0x9E3779B97F4A7C15ull;
static unsigned rnd(unsigned n)
{
    lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((lcg >> 33) % n);
}

/* A JSON number: the shapes results.json holds most (0.0xxxxx, 17xxxxxxxx.x)
 * and everything else the grammar allows. */
static void random_number(char *t, size_t cap)
{
    size_t m = 0;
    switch (rnd(4)) {
    case 0: /* an ITL sample */
        m = (size_t)snprintf(t, cap, "0.%0*u", (int)(1 + rnd(9)), rnd(1000000000));
        break;
    case 1: /* a timestamp */
        m = (size_t)snprintf(t, cap, "17%08u.%u", rnd(100000000), rnd(10000));
        break;
    default: {
        if (rnd(4) == 0)
            t[m++] = '-';
        unsigned int_digits = 1 + rnd(22), frac_digits = rnd(3) ? rnd(24) : 0;
        t[m++] = (char)('0' + (int_digits > 1 ? 1 + rnd(9) : rnd(10)));
        for (unsigned d = 1; d < int_digits; d++)
            t[m++] = (char)('0' + rnd(10));
        if (frac_digits) {
            t[m++] = '.';
            for (unsigned d = 0; d < frac_digits; d++)
                t[m++] = (char)('0' + (rnd(3) ? rnd(10) : 0));
        }
        if (rnd(6) == 0) {
            int x = (int)rnd(700) - 350;
            m += (size_t)snprintf(t + m, cap - m, "%s%s%d", rnd(2) ? "e" : "E",
                                  x >= 0 && rnd(3) == 0 ? "+" : "", x);
        }
        t[m] = '\0';
    }
    }
}

static int same_double(double a, double b)
{
    return !memcmp(&a, &b, sizeof a);
}

/* Reads doc (an array of the n numbers texts[]) in batches of `batch`;
 * every value against strtod. */
static void check_batches(const char *doc, size_t len, char **texts, size_t n, int from_file,
                          size_t batch)
{
    js p;
    /* from memory, or through a 4 KiB file buffer */
    FILE *f = from_file ? fmemopen((void *)doc, len, "r") : NULL;
    CHECK(f || !from_file);
    if (f)
        jl__jstream_init_file(&p, f, 4096, 1024);
    else
        jl__jstream_init_mem(&p, doc, len, 1024);
    CHECK_EQ_INT(jl__jstream_next(&p), JS_ARR_START);
    double *v = malloc(batch * sizeof *v);
    size_t k = 0, bad = 0;
    int r = 1;
    while (v && r == 1 && k <= n) {
        size_t got = 0;
        r = jl__jstream_array_numbers(&p, v, batch, &got);
        CHECK(got <= batch);
        for (size_t i = 0; i < got && k < n; i++, k++) {
            double want = strtod(texts[k], NULL);
            if (!same_double(v[i], want) && bad++ < 5)
                fprintf(stderr, "  %s: parsed %.17g, strtod %.17g\n", texts[k], v[i], want);
        }
        /* a batch cut short ends on a negative number */
        if (r == 1 && got < batch)
            CHECK(got > 0 && (!(v[got - 1] >= 0) || !isfinite(v[got - 1])));
    }
    CHECK_EQ_INT(r, 0);
    CHECK_EQ_INT(k, n);
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(jl__jstream_next(&p), JS_EOF);
    free(v);
    jl__jstream_free(&p);
    if (f)
        fclose(f);
}

/* An array of the n_edge texts edge[] then random numbers, n in all, with
 * assorted separators (the fast ", " and "," and what goes the general
 * way); *texts: each number's text. NULL when out of memory. */
static char *number_doc(const char *const *edge, size_t n_edge, size_t n, char ***texts,
                        size_t *len)
{
    size_t cap = n * 72 + 16, k = 0;
    char *doc = malloc(cap);
    *texts = calloc(n, sizeof **texts);
    if (!doc || !*texts) {
        free(doc);
        free(*texts);
        return NULL;
    }
    doc[k++] = '[';
    for (size_t i = 0; i < n; i++) {
        char t[64];
        if (i < n_edge)
            snprintf(t, sizeof t, "%s", edge[i]);
        else
            random_number(t, sizeof t);
        (*texts)[i] = strdup(t);
        const char *sep = i == 0        ? ""
                          : rnd(8) == 0 ? ",\n    "
                          : rnd(8) == 0 ? " , "
                          : rnd(2)      ? ", "
                                        : ",";
        k += (size_t)snprintf(doc + k, cap - k, "%s%s", sep, t);
    }
    doc[k++] = ']';
    *len = k;
    return doc;
}

TEST(numbers_match_strtod)
{
    static const char *const edge[] = {"0",
                                       "-0",
                                       "0.0",
                                       "-0.0",
                                       "1",
                                       "-1",
                                       "0.1",
                                       "0.30000000000000004",
                                       "9007199254740991",
                                       "9007199254740992",
                                       "9007199254740993",
                                       "-9007199254740993",
                                       "9007199254740991.5",
                                       "0.9007199254740993",
                                       "1234567890123456789",
                                       "12345678901234567890",
                                       "18446744073709551615",
                                       "18446744073709551616",
                                       "99999999999999999999",
                                       "0.0000000000000000001",
                                       "0.00000000000000000001",
                                       "0.000000000000000000001",
                                       "0.12345678901234567890",
                                       "99999999.99999999",
                                       "1e22",
                                       "1e23",
                                       "1.5e-22",
                                       "1E+308",
                                       "1e309",
                                       "-1e309",
                                       "4.9406564584124654e-324",
                                       "2.4703282292062327e-324",
                                       "2.4703282292062328e-324",
                                       "2.2250738585072011e-308",
                                       "2.2250738585072014e-308",
                                       "1.7976931348623157e308",
                                       "1.7976931348623159e308",
                                       "0e999999999999",
                                       "1e-999999999",
                                       "0.000000000000000000000000000000000000000000000000000005e1",
                                       "0.034676",
                                       "1700000000.1",
                                       "123456789012345678901234",
                                       "3.14159265358979323846264338327950288",
                                       "0.1000000000000000055511151231257827",
                                       "7.2057594037927933e16",
                                       "12345678",
                                       "123456789",
                                       "1.000000000000000000001"};
    const size_t n_edge = sizeof edge / sizeof edge[0], n = n_edge + 2000000;
    size_t len = 0;
    char **texts = NULL, *doc = number_doc(edge, n_edge, n, &texts, &len);
    CHECK(doc != NULL);
    if (!doc)
        return;
    check_batches(doc, len, texts, n, 0, 256);
    check_batches(doc, len, texts, n, 1, 256);
    check_batches(doc, len, texts, n, 0, 1);
    check_batches(doc, len, texts, n, 1, 7);
    for (size_t i = 0; i < n; i++)
        free(texts[i]);
    free(texts);
    free(doc);
}

/* What ends a batch, and that the parser then stands where it says. */
TEST(batch_ends)
{
    const char *doc = "[1, 2, -3, 4, \"x\", 5]";
    js p;
    jl__jstream_init_mem(&p, doc, strlen(doc), 1024);
    CHECK_EQ_INT(jl__jstream_next(&p), JS_ARR_START);
    double v[8];
    size_t got = 99;
    CHECK_EQ_INT(jl__jstream_array_numbers(&p, v, 8, &got), 1); /* after the negative -3 */
    CHECK_EQ_INT(got, 3);
    CHECK(v[0] == 1 && v[1] == 2 && v[2] == -3);
    CHECK_EQ_INT(jl__jstream_col(&p), 10);                       /* just after "-3" */
    CHECK_EQ_INT(jl__jstream_array_numbers(&p, v, 8, &got), -2); /* the string */
    CHECK_EQ_INT(got, 1);
    CHECK_EQ_INT(jl__jstream_next(&p), JS_STR);
    CHECK_EQ_INT(jl__jstream_array_numbers(&p, v, 1, &got), 1); /* max reached */
    CHECK_EQ_INT(got, 1);
    CHECK(v[0] == 5);
    CHECK_EQ_INT(jl__jstream_array_numbers(&p, v, 8, &got), 0); /* the ']' */
    CHECK_EQ_INT(got, 0);
    CHECK_EQ_INT(jl__jstream_next(&p), JS_EOF);
    jl__jstream_free(&p);

    /* digits to the very end of a buffer of exactly the text's size (the
     * ASan tree checks that nothing is read past it) */
    for (int frac = 0; frac < 2; frac++) {
        size_t n = 4 + 100 + (size_t)frac * 2;
        char *cut = malloc(n);
        CHECK(cut != NULL);
        if (!cut)
            break;
        memcpy(cut, frac ? "[0, 1." : "[0, ", frac ? 6 : 4);
        memset(cut + (frac ? 6 : 4), '1', 100);
        jl__jstream_init_mem(&p, cut, n, 1024);
        CHECK_EQ_INT(jl__jstream_next(&p), JS_ARR_START);
        CHECK_EQ_INT(jl__jstream_array_numbers(&p, v, 8, &got), -1);
        CHECK_EQ_INT(got, 1);
        CHECK(strstr(p.err, "longer than 64") != NULL);
        jl__jstream_free(&p);
        free(cut);
    }

    const char *empty = "[ ]";
    jl__jstream_init_mem(&p, empty, strlen(empty), 1024);
    CHECK_EQ_INT(jl__jstream_next(&p), JS_ARR_START);
    CHECK_EQ_INT(jl__jstream_array_numbers(&p, v, 8, &got), 0);
    CHECK_EQ_INT(got, 0);
    jl__jstream_free(&p);
}

/* One reading of an array of [number, "string"] pairs: with the pair
 * reader (fast) or token by token; the values, strings and where it ends
 * (error text, line, column) into out. Returns pairs read at once. */
static size_t read_pairs(const char *doc, size_t len, int fast, char *out, size_t cap)
{
    js p;
    size_t o = 0, n_fast = 0;
    jl__jstream_init_mem(&p, doc, len, 1024);
    jl__jstream_tok t = jl__jstream_next(&p);
    while (t == JS_ARR_START) {
        double num = 0;
        const char *str = NULL;
        size_t n = 16;
        int r = fast ? jl__jstream_num_str(&p, &num, &str, &n) : 0;
        if (r < 0)
            break;
        char sv[64] = "";
        if (r == 1) {
            n_fast++;
            memcpy(sv, str, n);
            sv[n] = '\0';
        } else {
            t = jl__jstream_next(&p);
            if (t == JS_ARR_END)
                break;
            if (t != JS_ARR_START || jl__jstream_next(&p) != JS_NUM)
                break;
            num = p.num;
            if (jl__jstream_next(&p) != JS_STR)
                break;
            snprintf(sv, sizeof sv, "%s", p.str);
        }
        if (jl__jstream_next(&p) != JS_ARR_END)
            break;
        o += (size_t)snprintf(out + o, cap - o, "%.17g:%s;", num, sv);
    }
    snprintf(out + o, cap - o, "|%s|%lld:%lld|%d", p.err, jl__jstream_line(&p), jl__jstream_col(&p),
             (int)jl__jstream_next(&p));
    jl__jstream_free(&p);
    return n_fast;
}

/* jl__jstream_num_str (Prometheus' [t, "v"] samples) reads what token by
 * token reading reads, and ends where it ends, for each odd element at
 * the start, inside a long run and at the very end of the text. */
TEST(num_str_pairs)
{
    static const char *const odd[] = {"[1795737600,\"312.456\"]",
                                      "[ 1,\"a\"]",
                                      "[1, \"b\"]",
                                      "[1,\"c\\n\"]",
                                      "[01,\"x\"]",
                                      "[1.,\"x\"]",
                                      "[1,\"0123456789abcdefg\"]",
                                      "[1,2]",
                                      "[1,\"x\",3]",
                                      "[\"t\",\"v\"]",
                                      "[-0.5,\"\"]",
                                      "[1e3,\"NaN\"]",
                                      "[1,\"a\001\"]",
                                      "[1,\"x\"",
                                      "[1795737600.123,\"4200000000\"]"};
    char doc[8192], a[16384], b[16384];
    size_t used = 0;
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
        for (int where = 0; where < 3; where++) {
            size_t len = (size_t)snprintf(doc, sizeof doc, "[");
            for (int k = 0; where > 0 && k < 30; k++)
                len += (size_t)snprintf(doc + len, sizeof doc - len, "%s[17957376%02d,\"%d.5\"]",
                                        k ? "," : "", k, k * 7);
            len +=
                (size_t)snprintf(doc + len, sizeof doc - len, "%s%s", where > 0 ? "," : "", odd[i]);
            for (int k = 0; where == 1 && k < 30; k++)
                len += (size_t)snprintf(doc + len, sizeof doc - len, ",[%d,\"%d\"]", k, k);
            len += (size_t)snprintf(doc + len, sizeof doc - len, "]");
            used += read_pairs(doc, len, 1, a, sizeof a);
            read_pairs(doc, len, 0, b, sizeof b);
            if (strcmp(a, b))
                fprintf(stderr, "pairs: %s\n  at once:     %s\n  token-wise:  %s\n", doc, a, b);
            CHECK(!strcmp(a, b));
        }
    }
    CHECK(used > 500); /* the pair reader did the reading in the long runs */
}

/* Each malformed element, at the start, inside a long run (the register
 * loop's territory: 80 bytes and more left in the buffer) and at the end:
 * the batch fails with the message, line and column that element-by-element
 * reading gives. */
TEST(grammar_rejections)
{
    static const char *const bad[] = {"01",   "-01",  "1.",    "-",    "+1",   ".5",
                                      "1e",   "1e+",  "--1",   "1.e5", "0x10", "1ee2",
                                      "1.5.", "1-2",  "1e5.5", "00.5", "-.5",  "Infinity",
                                      "NaN",  "1e-",  "0.e1",  "- 1",  "1 2",  "1,,2",
                                      "1,]",  "1.5e", "0.1x",  "tru",  "nul",  "\"a"};
    char doc[4096];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        for (int where = 0; where < 3; where++) {
            size_t len = 0;
            len += (size_t)snprintf(doc + len, sizeof doc - len, "[");
            if (where > 0)
                for (int k = 0; k < 40; k++)
                    len +=
                        (size_t)snprintf(doc + len, sizeof doc - len, "%s0.0%d", k ? ", " : "", k);
            len += (size_t)snprintf(doc + len, sizeof doc - len, "%s%s", where > 0 ? ", " : "",
                                    bad[i]);
            if (where == 1)
                for (int k = 0; k < 40; k++)
                    len += (size_t)snprintf(doc + len, sizeof doc - len, ", 0.5%d", k);
            len += (size_t)snprintf(doc + len, sizeof doc - len, "]");
            /* one at a time */
            js a, b;
            jl__jstream_init_mem(&a, doc, len, 1024);
            jl__jstream_init_mem(&b, doc, len, 1024);
            CHECK_EQ_INT(jl__jstream_next(&a), JS_ARR_START);
            CHECK_EQ_INT(jl__jstream_next(&b), JS_ARR_START);
            double v, vb[300];
            int ra, rb = 1;
            size_t na = 0, nb = 0, got;
            while ((ra = jl__jstream_array_number(&a, &v)) == 1)
                na++;
            while (rb == 1) {
                rb = jl__jstream_array_numbers(&b, vb, 300, &got);
                nb += got;
            }
            if (ra == -2) /* a string or a word: the caller's jl__jstream_next judges */
                CHECK_EQ_INT(jl__jstream_next(&a), jl__jstream_next(&b));
            if (ra != rb || na != nb || strcmp(a.err, b.err) ||
                jl__jstream_line(&a) != jl__jstream_line(&b) ||
                jl__jstream_col(&a) != jl__jstream_col(&b)) {
                fprintf(stderr,
                        "  %s (where %d): one at a time %d after %zu (%s, col %lld), "
                        "batch %d after %zu (%s, col %lld)\n",
                        bad[i], where, ra, na, a.err, jl__jstream_col(&a), rb, nb, b.err,
                        jl__jstream_col(&b));
                CHECK(0);
            }
            CHECK(ra != 0); /* every one is refused */
            jl__jstream_free(&a);
            jl__jstream_free(&b);
        }
    }
}

/* Strings and whitespace are scanned eight bytes at a time: a quote, a
 * backslash or a control byte at every offset of a word is found, and
 * bytes that share their low seven bits (0xA2, 0xDC, 0x81..0x9F) or lie
 * just above (0x20, 0x7F) are plain text; runs of spaces of every length
 * keep the line and column right. */
TEST(word_scans)
{
    static const unsigned char plain[] = {0xA2, 0xDC, 0x81, 0x9F, 0x20, 0x7F, 0xE9};
    char doc[128], want[64];
    for (int at = 0; at < 20; at++) {
        for (size_t k = 0; k < sizeof plain + 3; k++) {
            int len = 24;
            memset(want, 'a', (size_t)len);
            want[len] = '\0';
            const char *extra = "";
            int expect_err = 0;
            if (k < sizeof plain) {
                want[at] = (char)plain[k];
            } else if (k == sizeof plain) { /* an escaped quote */
                want[at] = '"';
                extra = "\\\"";
            } else if (k == sizeof plain + 1) { /* a control byte */
                want[at] = '\x01';
                expect_err = 1;
            } else { /* the string ends there */
                want[at] = '\0';
                len = at;
            }
            int n;
            if (*extra) /* the escape in place of the quote */
                n = snprintf(doc, sizeof doc, "[\"%.*s%s%s\"]", at, want, extra, want + at + 1);
            else
                n = snprintf(doc, sizeof doc, "[\"%.*s\"]", len, want);
            js p;
            jl__jstream_init_mem(&p, doc, (size_t)n, 1024);
            CHECK_EQ_INT(jl__jstream_next(&p), JS_ARR_START);
            jl__jstream_tok t = jl__jstream_next(&p);
            if (expect_err) {
                CHECK_EQ_INT(t, JS_ERROR);
                CHECK(strstr(p.err, "control character") != NULL);
            } else {
                CHECK_EQ_INT(t, JS_STR);
                CHECK(p.slen == strlen(want) && !memcmp(p.str, want, p.slen));
                CHECK_EQ_INT(jl__jstream_next(&p), JS_ARR_END);
            }
            jl__jstream_free(&p);
        }
    }
    for (int spaces = 0; spaces < 40; spaces++) {
        int n =
            snprintf(doc, sizeof doc, "[\n%*s1,%*s\t\r\n%*s2]", spaces, "", spaces, "", spaces, "");
        js p;
        jl__jstream_init_mem(&p, doc, (size_t)n, 1024);
        double v;
        CHECK_EQ_INT(jl__jstream_next(&p), JS_ARR_START);
        CHECK_EQ_INT(jl__jstream_next(&p), JS_NUM);
        CHECK_EQ_INT(jl__jstream_line(&p), 2);
        CHECK_EQ_INT(jl__jstream_col(&p), spaces + 2);
        CHECK_EQ_INT(jl__jstream_array_number(&p, &v), 1);
        CHECK(v == 2);
        CHECK_EQ_INT(jl__jstream_line(&p), 3);
        CHECK_EQ_INT(jl__jstream_col(&p), spaces + 2);
        jl__jstream_free(&p);
    }
}

int main(int argc, char **argv)
{
    TEST_ARGS(argc, argv);
    RUN(numbers_match_strtod);
    RUN(batch_ends);
    RUN(grammar_rejections);
    RUN(word_scans);
    RUN(num_str_pairs);
    TEST_MAIN_END();
}
