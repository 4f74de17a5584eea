/* Fuzz target: the Nsight Systems importer (src/import/nsys.c,
 * jl__nsys_spans_db): what it reads from an export's rows. The input builds
 * an in-memory SQLite database, in one of two ways:
 *
 *  - an SQLite file image (the input starts "SQLite format 3"): loaded as
 *    it is (sqlite3_deserialize), read-only, as `joules import nsys` opens
 *    an export;
 *  - text: a first line of flags (characters: 's' the StringIds/textId
 *    layout, 't' the session's start time table, 'k' kernels, 'c' copies,
 *    'm' sets, 'o' --offset given), then one row a line: a table letter
 *    (N NVTX_EVENTS, R CUPTI_ACTIVITY_KIND_RUNTIME, K KERNEL, C MEMCPY,
 *    M MEMSET, T TARGET_INFO_SESSION_START_TIME, I StringIds) and its
 *    values separated by spaces: an integer, a real, '-' for NULL, any
 *    other word as text (SQLite keeps what it is given: text where a
 *    number is expected, NULLs, 64-bit extremes all reach the reader).
 *
 * The spans are then attributed against a small synthetic run, as
 * `joules attribute` would. At most 20,000 rows. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "fuzz_spans_common.h"
#include "import/profile_spans.h"
#include "joules/attribution.h"

static const char *const schema_plain =
    "CREATE TABLE NVTX_EVENTS (start INT, end INT, eventType INT, text TEXT, globalTid INT);";
static const char *const schema_ids =
    "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
    "CREATE TABLE NVTX_EVENTS (start INT, end INT, eventType INT, text TEXT, globalTid INT,"
    " textId INT);";
static const char *const schema_common =
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT, end INT, globalTid INT,"
    " correlationId INT);";

static const struct {
    char letter, flag;
    const char *create, *insert;
} tables[] = {
    {'N', 0, NULL, NULL}, /* NVTX_EVENTS: its layout by 's' */
    {'R', 0, NULL, "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,?,?)"},
    {'K', 'k',
     "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT, streamId INT,"
     " correlationId INT);",
     "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?,?,?,?,?)"},
    {'C', 'c',
     "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INT, end INT, deviceId INT,"
     " correlationId INT);",
     "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?,?,?,?)"},
    {'M', 'm',
     "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INT, end INT, deviceId INT,"
     " correlationId INT);",
     "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (?,?,?,?)"},
    {'T', 't', "CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INT);",
     "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (?)"},
    {'I', 's', NULL, "INSERT INTO StringIds VALUES (?,?)"},
};
#define N_TABLES (sizeof tables / sizeof tables[0])

/* One value token into parameter k of q. */
static void bind_token(sqlite3_stmt *q, int k, const char *tok, size_t len)
{
    char buf[128];
    if (len >= sizeof buf)
        len = sizeof buf - 1;
    memcpy(buf, tok, len);
    buf[len] = '\0';
    if (!strcmp(buf, "-")) {
        sqlite3_bind_null(q, k);
        return;
    }
    char *end;
    long long i = strtoll(buf, &end, 10);
    if (*buf && !*end) {
        sqlite3_bind_int64(q, k, i);
        return;
    }
    double d = strtod(buf, &end);
    if (*buf && !*end) {
        sqlite3_bind_double(q, k, d);
        return;
    }
    sqlite3_bind_text(q, k, buf, (int)len, SQLITE_TRANSIENT);
}

static sqlite3 *text_db(const char *s, size_t n, int *has_offset)
{
    sqlite3 *db = NULL;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
        sqlite3_close(db);
        return NULL;
    }
    const char *nl = memchr(s, '\n', n);
    size_t fl = nl ? (size_t)(nl - s) : n;
    char flags[64] = "";
    memcpy(flags, s, fl < sizeof flags - 1 ? fl : sizeof flags - 1);
    *has_offset = strchr(flags, 'o') != NULL;
    int ids = strchr(flags, 's') != NULL;
    sqlite3_exec(db, ids ? schema_ids : schema_plain, NULL, NULL, NULL);
    sqlite3_exec(db, schema_common, NULL, NULL, NULL);
    sqlite3_stmt *ins[N_TABLES] = {0};
    for (size_t t = 0; t < N_TABLES; t++) {
        if (tables[t].flag && !strchr(flags, tables[t].flag))
            continue;
        if (tables[t].create)
            sqlite3_exec(db, tables[t].create, NULL, NULL, NULL);
        const char *sql = tables[t].insert;
        if (tables[t].letter == 'N')
            sql = ids ? "INSERT INTO NVTX_EVENTS VALUES (?,?,?,?,?,?)"
                      : "INSERT INTO NVTX_EVENTS VALUES (?,?,?,?,?)";
        sqlite3_prepare_v2(db, sql, -1, &ins[t], NULL);
    }
    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    size_t rows = 0;
    for (const char *p = nl ? nl + 1 : s + n; p < s + n && rows < 20000; rows++) {
        const char *e = memchr(p, '\n', (size_t)(s + n - p));
        if (!e)
            e = s + n;
        size_t t = 0;
        while (t < N_TABLES && tables[t].letter != *p)
            t++;
        if (t < N_TABLES && ins[t]) {
            sqlite3_stmt *q = ins[t];
            sqlite3_reset(q);
            sqlite3_clear_bindings(q);
            int np = sqlite3_bind_parameter_count(q), k = 1;
            const char *a = p + 1;
            while (a < e && k <= np) {
                while (a < e && *a == ' ')
                    a++;
                const char *b = a;
                while (b < e && *b != ' ')
                    b++;
                if (b > a)
                    bind_token(q, k++, a, (size_t)(b - a));
                a = b;
            }
            sqlite3_step(q);
        }
        p = e + 1;
    }
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    for (size_t t = 0; t < N_TABLES; t++)
        sqlite3_finalize(ins[t]);
    return db;
}

static sqlite3 *image_db(const uint8_t *data, size_t size)
{
    sqlite3 *db = NULL;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
        sqlite3_close(db);
        return NULL;
    }
    unsigned char *copy = sqlite3_malloc64(size);
    if (!copy) {
        sqlite3_close(db);
        return NULL;
    }
    memcpy(copy, data, size);
    if (sqlite3_deserialize(db, "main", copy, (sqlite3_int64)size, (sqlite3_int64)size,
                            SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY) !=
        SQLITE_OK) {
        sqlite3_close(db);
        return NULL;
    }
    return db;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 1 << 20)
        return 0;
    int has_offset = 1;
    sqlite3 *db = size >= 16 && !memcmp(data, "SQLite format 3", 16)
                      ? image_db(data, size)
                      : text_db((const char *)data, size, &has_offset);
    if (!db)
        return 0;
    jl_run *run = fuzz_span_run();
    jl_spans *s = NULL;
    jl_error_list errors = {0};
    if (jl__nsys_spans_db(db, "fuzz.sqlite", run, has_offset, 0.0, &s, &errors) != JL_OK) {
        jl_spans_free(s);
        s = NULL;
    }
    fuzz_span_finish(run, s, &errors);
    sqlite3_close(db);
    return 0;
}
