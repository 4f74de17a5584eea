/* A tiny test harness: checks that print both values and count failures.
 * Each test file defines TEST(name) functions and lists them in main via
 * RUN(name). The process exits non-zero when any check failed. */
#ifndef JOULES_TEST_H
#define JOULES_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int jt_failures = 0;
static int jt_checks = 0;
static const char *jt_current = "";

#define CHECK(cond)                                                                           \
    do {                                                                                      \
        jt_checks++;                                                                          \
        if (!(cond)) {                                                                        \
            jt_failures++;                                                                    \
            fprintf(stderr, "%s:%d: [%s] CHECK failed: %s\n", __FILE__, __LINE__, jt_current, \
                    #cond);                                                                   \
        }                                                                                     \
    } while (0)

/* |a - b| <= atol + rtol * |b| */
#define CHECK_NEAR(a, b, rtol, atol)                                                             \
    do {                                                                                         \
        double jt_a = (a), jt_b = (b);                                                           \
        jt_checks++;                                                                             \
        if (!(fabs(jt_a - jt_b) <= (atol) + (rtol)*fabs(jt_b))) {                                \
            jt_failures++;                                                                       \
            fprintf(stderr, "%s:%d: [%s] CHECK_NEAR failed: %s = %.17g, %s = %.17g\n", __FILE__, \
                    __LINE__, jt_current, #a, jt_a, #b, jt_b);                                   \
        }                                                                                        \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                                   \
    do {                                                                                     \
        long long jt_a = (long long)(a), jt_b = (long long)(b);                              \
        jt_checks++;                                                                         \
        if (jt_a != jt_b) {                                                                  \
            jt_failures++;                                                                   \
            fprintf(stderr, "%s:%d: [%s] CHECK_EQ failed: %s = %lld, %s = %lld\n", __FILE__, \
                    __LINE__, jt_current, #a, jt_a, #b, jt_b);                               \
        }                                                                                    \
    } while (0)

#define CHECK_STR(a, b)                                                                            \
    do {                                                                                           \
        const char *jt_a = (a), *jt_b = (b);                                                       \
        jt_checks++;                                                                               \
        if (!jt_a || !jt_b || strcmp(jt_a, jt_b)) {                                                \
            jt_failures++;                                                                         \
            fprintf(stderr, "%s:%d: [%s] CHECK_STR failed: %s = \"%s\", %s = \"%s\"\n", __FILE__,  \
                    __LINE__, jt_current, #a, jt_a ? jt_a : "(null)", #b, jt_b ? jt_b : "(null)"); \
        }                                                                                          \
    } while (0)

#define CHECK_CONTAINS(hay, needle)                                                                \
    do {                                                                                           \
        const char *jt_h = (hay), *jt_n = (needle);                                                \
        jt_checks++;                                                                               \
        if (!jt_h || !strstr(jt_h, jt_n)) {                                                        \
            jt_failures++;                                                                         \
            fprintf(stderr, "%s:%d: [%s] CHECK_CONTAINS failed: \"%s\" not in \"%s\"\n", __FILE__, \
                    __LINE__, jt_current, jt_n, jt_h ? jt_h : "(null)");                           \
        }                                                                                          \
    } while (0)

/* Tests that need data a checkout may lack (JOULES_SHARED_DIR/data and
 * /realworld: public third-party data, never committed) form a ctest entry
 * of their own, <test>_data: the same executable given the argument "data"
 * (TEST_ARGS in main). RUN_DATA runs a test only there, RUN only in the
 * plain entry; a data test starts with SKIP_UNLESS_READABLE(path), and an
 * entry that lacked its data exits 77, ctest's skip status (CMake registers
 * the entry for every test file that uses RUN_DATA). */
__attribute__((unused)) static int jt_data_mode = 0;
__attribute__((unused)) static int jt_skipped = 0;
#define TEST_ARGS(argc, argv) (jt_data_mode = (argc) > 1 && !strcmp((argv)[1], "data"))
#define SKIP_UNLESS_READABLE(path)                                                    \
    do {                                                                              \
        if (access((path), R_OK) != 0) {                                              \
            if (!jt_skipped++)                                                        \
                fprintf(stderr,                                                       \
                        "SKIP: %s is missing (public data beside the checkout, "      \
                        "never committed; -DJOULES_SHARED_DIR=DIR to point at it)\n", \
                        (path));                                                      \
            return;                                                                   \
        }                                                                             \
    } while (0)
#define RUN_DATA(name)     \
    do {                   \
        if (jt_data_mode)  \
            RUN_ONE(name); \
    } while (0)

#define TEST(name) static void name(void)
#define RUN(name)          \
    do {                   \
        if (!jt_data_mode) \
            RUN_ONE(name); \
    } while (0)
#define RUN_ONE(name)                                                                  \
    do {                                                                               \
        jt_current = #name;                                                            \
        int jt_before = jt_failures;                                                   \
        name();                                                                        \
        fprintf(stderr, "%s %s\n", jt_failures == jt_before ? "ok  " : "FAIL", #name); \
    } while (0)

#define TEST_MAIN_END()                                                    \
    do {                                                                   \
        fprintf(stderr, "%d checks, %d failed\n", jt_checks, jt_failures); \
        return jt_failures ? 1 : jt_skipped ? 77 : 0;                      \
    } while (0)

#endif
