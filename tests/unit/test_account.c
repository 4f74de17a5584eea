/* Accounting (joules/account.h): SHA-256 against the FIPS 180-4 examples,
 * the provenance block (deterministic apart from the time, which
 * SOURCE_DATE_EPOCH fixes), the document writers' hook. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

TEST(sha256_file)
{
    char path[] = "/tmp/jl_account_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK(write(fd, "abc", 3) == 3);
    close(fd);
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
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK(write(fd, "abc", 3) == 3);
    close(fd);
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

int main(void)
{
    RUN(sha256_vectors);
    RUN(sha256_file);
    RUN(provenance_block);
    TEST_MAIN_END();
}
