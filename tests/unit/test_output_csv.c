/* The one CSV writer (src/output/csv.c, output/csv_row.h): doubles go
 * through it and back through the CSV reader of the core (core/csv.h) bit
 * for bit; text with commas, quotes, newlines and blanks at its ends comes
 * back as written; the FILE and string-buffer backends write the same
 * bytes (and jl_csv_field / jl_csv_row, the CLI's, the same again);
 * --names mlenergy's rename goes through the reader and the writer. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/csv.h"
#include "core/util.h"
#include "joules/output.h"
#include "output/csv_row.h"
#include "test.h"

/* The same rows written to a FILE and into a buffer: write(w, ctx) is
 * called once per backend; returns the FILE's text (caller frees) after
 * checking that the buffer holds the same bytes. */
static char *both(void (*write)(jl__csvw *w, const void *ctx), const void *ctx, size_t *len)
{
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    CHECK(f != NULL);
    if (!f)
        return NULL;
    jl__csvw w;
    jl__csvw_begin(&w, f);
    write(&w, ctx);
    fclose(f);
    jl__strbuf b;
    jl__strbuf_init(&b);
    jl__csvw_begin_buf(&w, &b);
    write(&w, ctx);
    size_t blen = b.len;
    char *btext = jl__strbuf_take(&b);
    CHECK(btext != NULL || n == 0);
    CHECK_EQ_INT((long)blen, (long)n);
    CHECK(blen == n && (n == 0 || memcmp(btext, text, n) == 0));
    free(btext);
    *len = n;
    return text;
}

typedef struct {
    const double *v;
    size_t n, per_row;
} nums;

static void write_nums(jl__csvw *w, const void *ctx)
{
    const nums *c = ctx;
    for (size_t i = 0; i < c->n; i++) {
        jl__csvw_num(w, c->v[i]);
        if ((i + 1) % c->per_row == 0 || i + 1 == c->n)
            jl__csvw_end(w);
    }
}

static uint64_t next_bits(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

TEST(doubles_round_trip_bit_exactly)
{
    enum { N = 4000 };
    double *v = malloc(N * sizeof *v);
    CHECK(v != NULL);
    if (!v)
        return;
    const double special[] = {0.1,
                              1.0 / 3,
                              -0.0,
                              0.0,
                              DBL_MIN,
                              DBL_MAX,
                              -DBL_MAX,
                              4.9406564584124654e-324,
                              2.2250738585072009e-308,
                              1e300,
                              123456789.123456789,
                              3.141592653589793,
                              -1e-300,
                              1e23,
                              9007199254740993.0,
                              0.30000000000000004};
    size_t n = 0;
    for (; n < sizeof special / sizeof special[0]; n++)
        v[n] = special[n];
    uint64_t s = 0x9e3779b97f4a7c15u;
    while (n < N) { /* every finite double is as likely as its bits */
        uint64_t bits = next_bits(&s);
        double d;
        memcpy(&d, &bits, sizeof d);
        if (isfinite(d))
            v[n++] = d;
    }
    nums c = {v, N, 7};
    size_t len = 0;
    char *text = both(write_nums, &c, &len);
    jl__csv *r = NULL;
    jl_error *err = NULL;
    CHECK_EQ_INT(jl__csv_open_buffer(text ? text : "", len, "doubles.csv", &r, &err), JL_OK);
    size_t k = 0, wrong = 0;
    jl__csv_row row;
    while (r && jl__csv_next(r, &row, &err) == 1)
        for (size_t i = 0; i < row.n; i++, k++) {
            char *end = NULL;
            double d = strtod(row.f[i].s, &end);
            if (k >= N || *end || memcmp(&d, &v[k], sizeof d) != 0) {
                if (wrong++ < 5)
                    fprintf(stderr, "  cell %zu: '%s' is not the double written\n", k, row.f[i].s);
            }
        }
    CHECK(err == NULL);
    CHECK_EQ_INT((long)k, N);
    CHECK_EQ_INT((long)wrong, 0);
    jl__csv_close(r);
    jl_error_free(err);
    free(text);
    free(v);
}

static const char *const texts[] = {"plain",    "a,b",   "say \"hi\"", "two\nlines",
                                    "cr\r\nlf", " lead", "trail\t",    "\"",
                                    ",",        "",      "x\"\"y",     NULL};
#define N_TEXTS (sizeof texts / sizeof texts[0])

static void write_texts(jl__csvw *w, const void *ctx)
{
    (void)ctx;
    for (size_t i = 0; i < N_TEXTS; i++)
        jl__csvw_cell(w, texts[i]);
    jl__csvw_end(w);
    jl__csvw_row(w, N_TEXTS, texts); /* the same row, whole */
    /* a cell composed through the stream, a formatted one, a number */
    fputs("composed", jl__csvw_next(w));
    fprintf(jl__csvw_next(w), "%d-%d", 1, 2);
    jl__csvw_cellf(w, "%.17g", 0.5);
    jl__csvw_num(w, INFINITY); /* not a number joules knows: empty */
    jl__csvw_empty(w);
    jl__csvw_end(w);
}

TEST(text_quoted_as_rfc4180_and_read_back)
{
    size_t len = 0;
    char *text = both(write_texts, NULL, &len);
    if (!text)
        return;
    const char *row1 = "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\"cr\r\nlf\",\" lead\","
                       "\"trail\t\",\"\"\"\",\",\",,\"x\"\"\"\"y\",\n";
    size_t l1 = strlen(row1);
    CHECK(len > 2 * l1 && !memcmp(text, row1, l1) && !memcmp(text + l1, row1, l1));
    CHECK_STR(text + 2 * l1, "composed,1-2,0.5,,\n");
    /* the CLI's public pair writes the same bytes */
    char *pub = NULL;
    size_t plen = 0;
    FILE *f = open_memstream(&pub, &plen);
    CHECK(f != NULL);
    if (f) {
        for (size_t i = 0; i < N_TEXTS; i++) {
            if (i)
                fputs(",", f);
            jl_csv_field(f, texts[i]);
        }
        fputs("\n", f);
        jl_csv_row(f, N_TEXTS, texts);
        fclose(f);
        CHECK(plen == 2 * l1 && !memcmp(pub, text, plen));
    }
    free(pub);
    /* and the core's reader gives back every text as written */
    jl__csv *r = NULL;
    jl_error *err = NULL;
    CHECK_EQ_INT(jl__csv_open_buffer(text, len, "texts.csv", &r, &err), JL_OK);
    jl__csv_row row;
    for (int k = 0; k < 2 && r; k++) {
        CHECK_EQ_INT(jl__csv_next(r, &row, &err), 1);
        CHECK_EQ_INT((long)row.n, (long)N_TEXTS);
        for (size_t i = 0; i < row.n && i < N_TEXTS; i++)
            CHECK_STR(row.f[i].s, texts[i] ? texts[i] : "");
    }
    CHECK_EQ_INT(r ? jl__csv_next(r, &row, &err) : 0, 1);
    CHECK(r && row.n == 5 && !strcmp(row.f[0].s, "composed") && !strcmp(row.f[2].s, "0.5") &&
          !strcmp(row.f[3].s, ""));
    jl__csv_close(r);
    jl_error_free(err);
    free(text);
}

/* --names mlenergy's rename reads through the core's reader and writes
 * through the row writer: columns renamed, numbers converted at %.17g, a
 * figure's name renamed, text (commas, quotes, a newline) kept, and blank
 * lines (a one-column CSV's missing value) kept where they were. */
TEST(rename_mlenergy_through_reader_and_writer)
{
    const char *in = "median_itl_s,run,energy_figure,gpu_model\n"
                     "0.1,\"a,\"\"b\"\"\nc\",energy_per_token_j,H100\n"
                     "\n"
                     "0.25,x,,\n"
                     "\n";
    size_t n = 0;
    char *out = jl_csv_rename_mlenergy(in, strlen(in), &n);
    CHECK_STR(out, "median_itl_ms,run,energy_figure,gpu_model\n"
                   "100,\"a,\"\"b\"\"\nc\",energy_per_token_joules,H100\n"
                   "\n"
                   "250,x,,\n"
                   "\n");
    CHECK_EQ_INT((long)n, out ? (long)strlen(out) : -1);
    free(out);
    const char *one = "p90_itl_s\n0.5\n\n\n2\n";
    out = jl_csv_rename_mlenergy(one, strlen(one), &n);
    CHECK_STR(out, "p90_itl_ms\n500\n\n\n2000\n");
    free(out);
    out = jl_csv_rename_mlenergy("", 0, &n);
    CHECK_STR(out, "");
    free(out);
    CHECK(jl_csv_rename_mlenergy("a\n\"open\n", 8, &n) == NULL); /* not CSV */
}

int main(void)
{
    RUN(doubles_round_trip_bit_exactly);
    RUN(text_quoted_as_rfc4180_and_read_back);
    RUN(rename_mlenergy_through_reader_and_writer);
    TEST_MAIN_END();
}
