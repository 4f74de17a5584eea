/* The ML.ENERGY importer's JSON trees (src/json/json_tree.c): for every
 * text jl__jv_parse() reads, the tree is jansson's own (json_loadb; the
 * same bytes when both are dumped through jansson: key order, integers
 * against reals, -0.0, escapes, UTF-8); what it declines is what jansson
 * refuses or what must go through the duplicate-key report; jansson's
 * trees taken over (jl__jv_from_json) are the same again. Hand-made edge
 * cases, random documents, and every JSON file of the published data set
 * beside the checkout. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "json/json_internal.h"

#define DUMP_FLAGS (JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(17))

/* 1 when the fast tree is jansson's (or both refuse), 0 when the fast path
 * declined text jansson reads, -1 when they differ. */
static json_t *fast_tree(const char *text, size_t len)
{
    jl__jv *v = jl__jv_parse(text, len);
    json_t *j = v ? jl__jv_to_json(v) : NULL;
    CHECK(!v || j);
    jl__jv_free(v);
    return j;
}

/* jansson's tree, through jl__jv_from_json and back */
static json_t *taken_over(const json_t *ref)
{
    jl__jv *v = jl__jv_from_json(ref);
    json_t *j = v ? jl__jv_to_json(v) : NULL;
    CHECK(v && j);
    jl__jv_free(v);
    return j;
}

static int same_dump(const json_t *x, const json_t *y)
{
    char *a = json_dumps(x, DUMP_FLAGS), *b = json_dumps(y, DUMP_FLAGS);
    int same = a && b && !strcmp(a, b) && json_equal(x, y);
    if (!same)
        fprintf(stderr, "  fast: %.200s\n  ref:  %.200s\n", a ? a : "?", b ? b : "?");
    free(a);
    free(b);
    return same;
}

static int compare(const char *text, size_t len)
{
    json_error_t je;
    json_t *fast = fast_tree(text, len), *ref = json_loadb(text, len, 0, &je);
    if (ref) {
        json_t *back = taken_over(ref);
        CHECK(back && same_dump(back, ref));
        json_decref(back);
    }
    int rc;
    if (!fast) {
        rc = ref ? 0 : 1;
    } else if (!ref) {
        rc = -1;
    } else {
        rc = same_dump(fast, ref) ? 1 : -1;
    }
    json_decref(fast);
    json_decref(ref);
    return rc;
}

static int compare_str(const char *text)
{
    return compare(text, strlen(text));
}

TEST(same_tree)
{
    static const char *const docs[] = {
        "{}",
        "[]",
        " {\"a\": 1}\n",
        "[1, -1, 0, -0, 1.5, -0.0, 1e3, 1E-3, 2.5e+2]",
        "{\"b\": 2, \"a\": 1, \"c\": {\"z\": [true, false, null], \"y\": \"\"}}",
        "[9223372036854775807, -9223372036854775808, 123456789012345678, 1234567890123456789]",
        "[0.1, 0.30000000000000004, 1.7976931348623157e308, 5e-324, 123456789.123456789]",
        "[12345678901234567890.5, 0.000000000000000000000000001]",
        "[\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\", \"\\u00e9\\u4e2d\\ud83d\\ude00\", \"caf\xc3\xa9\"]",
        "{\"\\u0061\": 1, \"b\\n\": 2, \"\xe2\x82\xac\": 3}",
        "{\"configurations\": [{\"gpu_model\": \"H100\", \"num_gpus\": 8}, {}], \"x\": [[[]]]}",
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        int rc = compare_str(docs[i]);
        if (rc != 1)
            fprintf(stderr, "  doc %zu: %s\n", i, docs[i]);
        CHECK(rc == 1);
        jl__jv *t = jl__jv_parse(docs[i], strlen(docs[i]));
        CHECK(t != NULL); /* built here, not handed to jansson */
        jl__jv_free(t);
    }
}

TEST(declines_what_jansson_must_judge)
{
    static const char *const docs[] = {
        "",
        "   ",
        "1",
        "\"a\"",
        "null",
        "{",
        "[1,]",
        "{\"a\" 1}",
        "[1] 2",
        "[01]",
        "[1.]",
        "[.5]",
        "[-]",
        "[1e]",
        "[tru]",
        "[\"\\x\"]",
        "[\"a\tb\"]",
        "{\"a\": 1, \"a\": 1}", /* duplicates: the caller's report */
        "{\"a\": 1, \"b\": {\"c\": 2, \"c\": 3}}",
        "[\"a\\u0000b\"]", /* NUL: jansson refuses */
        "{\"a\\u0000\": 1}",
        "[\"\xff\"]", /* not UTF-8 */
        "[\"\xc3\"]",
        "{\"\xc3\": 1}",
        "[\"\\ud800\"]",  /* an unpaired surrogate */
        "[\"\xc0\x80\"]", /* overlong forms, encoded surrogates, beyond U+10FFFF */
        "[\"\xe0\x80\x80\"]",
        "[\"\xed\xa0\x80\"]",
        "[\"\xf4\x90\x80\x80\"]",
        "[\"\xf5\x80\x80\x80\"]",
        "[\"\xe2\x82\"]",
        "[\"\x80\"]",
        "[9223372036854775808]", /* beyond json_int_t */
        "[-9223372036854775809]",
        "[1e999]",
        "[-1e400]",
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        jl__jv *t = jl__jv_parse(docs[i], strlen(docs[i]));
        if (t)
            fprintf(stderr, "  built doc %zu: %s\n", i, docs[i]);
        CHECK(t == NULL);
        jl__jv_free(t);
        CHECK(compare_str(docs[i]) >= 0);
    }
    /* many keys (the hashed duplicate check): read when distinct, declined
     * with a key twice */
    char big[2048];
    size_t n = 0;
    for (int i = 0; i < 40; i++)
        n += (size_t)snprintf(big + n, sizeof big - n, "%s\"key%d\": %d", i ? ", " : "{", i, i);
    snprintf(big + n, sizeof big - n, "}");
    CHECK(compare_str(big) == 1);
    snprintf(big + n, sizeof big - n, ", \"key17\": 1}");
    jl__jv *t = jl__jv_parse(big, strlen(big));
    CHECK(t == NULL);
    jl__jv_free(t);
    /* nested deeper than the reader's 256 levels: declined, jansson reads it */
    char deep[2 * 300 + 1];
    for (int i = 0; i < 300; i++) {
        deep[i] = '[';
        deep[300 + i] = ']';
    }
    deep[600] = '\0';
    CHECK(compare_str(deep) == 0);
    /* a NUL byte inside the text (not an escape) */
    CHECK(compare("[\"a\0b\"]", 7) >= 0);
}

TEST(accessors)
{
    const char *doc = "{\"b\": [1, 2.5, \"x\", true, false, null], \"a\": {\"k\": -7}, \"ab\": 3}";
    jl__jv *v = jl__jv_parse(doc, strlen(doc));
    CHECK(v && jv_is_object(v) && jv_object_size(v) == 3);
    const jl__jv *b = jv_object_get(v, "b");
    CHECK(jv_array_size(b) == 6);
    CHECK(jv_is_integer(jv_array_get(b, 0)) && jv_number_value(jv_array_get(b, 0)) == 1.0);
    CHECK(jv_is_real(jv_array_get(b, 1)) && jv_number_value(jv_array_get(b, 1)) == 2.5);
    CHECK_STR(jv_string_value(jv_array_get(b, 2)), "x");
    CHECK(jv_is_true(jv_array_get(b, 3)) && jv_is_boolean(jv_array_get(b, 4)));
    CHECK(jv_is_null(jv_array_get(b, 5)) && jv_array_get(b, 6) == NULL);
    CHECK(jv_integer_value(jv_object_get(jv_object_get(v, "a"), "k")) == -7);
    CHECK(jv_object_get(v, "abc") == NULL && jv_object_get(v, "") == NULL);
    CHECK(jv_object_get(NULL, "a") == NULL && jv_array_size(NULL) == 0 && !jv_is_object(NULL));
    const char *order[3] = {0};
    const char *k;
    jl__jv *x;
    size_t i = 0;
    jv_object_foreach(v, k, x) if (i < 3) order[i++] = k;
    CHECK(i == 3 && !strcmp(order[0], "b") && !strcmp(order[1], "a") && !strcmp(order[2], "ab"));
    jl__jv_free(v);
}

static unsigned long long seed = 88172645463325252ULL;
static unsigned rnd(unsigned n)
{
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return (unsigned)(seed % n);
}

static void gen(char *b, size_t *n, size_t cap, int depth)
{
    if (*n + 64 >= cap)
        return;
    unsigned k = depth > 5 ? 2 + rnd(4) : rnd(6);
    if (k == 0 || k == 1) {
        int obj = k == 0;
        b[(*n)++] = obj ? '{' : '[';
        unsigned m = rnd(5);
        for (unsigned i = 0; i < m && *n + 80 < cap; i++) {
            if (i)
                b[(*n)++] = ',';
            if (obj)
                *n += (size_t)snprintf(b + *n, cap - *n, "\"k%u_%u\": ", i, rnd(1000));
            gen(b, n, cap, depth + 1);
        }
        b[(*n)++] = obj ? '}' : ']';
    } else if (k == 2) {
        static const char *const s[] = {"\"\"", "\"text\"", "\"\\u00fc\\n\"", "\"\xc3\xbc\"",
                                        "\"a\\\"b\""};
        *n += (size_t)snprintf(b + *n, cap - *n, "%s", s[rnd(5)]);
    } else if (k == 3) {
        static const char *const s[] = {"true", "false", "null"};
        *n += (size_t)snprintf(b + *n, cap - *n, "%s", s[rnd(3)]);
    } else {
        /* numbers: integers of 1-20 digits, reals with up to 20 decimals,
         * exponents */
        if (rnd(4) == 0)
            b[(*n)++] = '-';
        unsigned id = 1 + rnd(20);
        b[(*n)++] = (char)('0' + (id > 1 ? 1 + rnd(9) : rnd(10)));
        for (unsigned d = 1; d < id; d++)
            b[(*n)++] = (char)('0' + rnd(10));
        if (rnd(2)) {
            b[(*n)++] = '.';
            for (unsigned d = 0, fd = 1 + rnd(20); d < fd; d++)
                b[(*n)++] = (char)('0' + rnd(10));
        }
        if (rnd(5) == 0)
            *n += (size_t)snprintf(b + *n, cap - *n, "e%d", (int)rnd(80) - 40);
    }
}

TEST(random_documents)
{
    char b[8192];
    int differ = 0, declined = 0;
    for (int i = 0; i < 3000; i++) {
        size_t n = 0;
        b[n++] = '[';
        gen(b, &n, sizeof b - 2, 0);
        b[n++] = ']';
        int rc = compare(b, n);
        differ += rc < 0;
        declined += rc == 0; /* integers beyond json_int_t: jansson refuses too */
    }
    CHECK(differ == 0);
    CHECK(declined == 0);
}

/* The whole file (NULL when it cannot be read), grown as it is read. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *b = NULL;
    size_t cap = 0;
    *len = 0;
    while (f) {
        if (*len == cap) {
            char *nb = realloc(b, (cap = cap ? 2 * cap : 65536));
            if (!nb)
                break;
            b = nb;
        }
        size_t got = fread(b + *len, 1, cap - *len, f);
        *len += got;
        if (!got) {
            fclose(f);
            return b;
        }
    }
    if (f)
        fclose(f);
    free(b);
    return NULL;
}

/* Every .json file of a folder; returns how many were built fast. */
static int compare_dir(const char *dir, int *n_files)
{
    DIR *d = opendir(dir);
    int fast = 0;
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t nl = strlen(e->d_name);
        if (nl < 5 || strcmp(e->d_name + nl - 5, ".json"))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len;
        char *text = slurp(path, &len);
        CHECK(text != NULL);
        if (!text)
            continue;
        int rc = compare(text, len);
        if (rc < 0)
            fprintf(stderr, "  differs: %s\n", path);
        CHECK(rc >= 0);
        fast += rc == 1;
        (*n_files)++;
        free(text);
    }
    closedir(d);
    return fast;
}

TEST(published_files)
{
#define ROOT JOULES_SHARED_DIR "/data/mlenergy-v3"
    SKIP_UNLESS_READABLE(ROOT);
    int n = 0, fast = 0;
    fast += compare_dir(ROOT, &n);
    fast += compare_dir(ROOT "/models", &n);
    fast += compare_dir(ROOT "/tasks", &n);
#undef ROOT
    CHECK(n > 60);
    CHECK(fast == n); /* the published files have no key twice: all built fast */
}

int main(int argc, char **argv)
{
    TEST_ARGS(argc, argv);
    RUN(same_tree);
    RUN(declines_what_jansson_must_judge);
    RUN(accessors);
    RUN(random_documents);
    RUN_DATA(published_files);
    TEST_MAIN_END();
}
