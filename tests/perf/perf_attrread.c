/* joules-perf-attrread — the floor of reading a summary-only study: open
 * every run group of FILE and H5Aread() every attribute of the run and of
 * its summary/ group, and nothing else (no checks, no summaries, no output).
 *
 *   joules-perf-attrread FILE
 *
 * The ML.ENERGY import stores 1,858 runs as groups holding ~47,000
 * attributes; every command that reads it pays this much inside libhdf5
 * before any analysis, so bench.sh times it next to frontier/pick/compare
 * to show how far above the floor they are (docs/performance.md). The file
 * is opened with the same metadata cache as joules' reader
 * (jl__h5_small_cache), strings are read as variable-length like joules
 * does, numbers converted to double.
 *
 * Prints "runs R attributes A" on stdout; exit 1 if the file cannot be read. */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>

#include "trace/trace_internal.h"

typedef struct {
    hid_t vstr, vstr_utf8;
    long runs, attrs, failed;
} floor_state;

static herr_t read_one(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    (void)info;
    floor_state *s = data;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    hid_t t = a < 0 ? -1 : H5Aget_type(a);
    if (t < 0) {
        s->failed++;
        if (a >= 0)
            H5Aclose(a);
        return 0;
    }
    /* an attribute's element count, as a reader that checks shapes needs */
    hid_t sp = H5Aget_space(a);
    hssize_t np = sp < 0 ? -1 : H5Sget_simple_extent_npoints(sp);
    if (sp >= 0)
        H5Sclose(sp);
    herr_t r = -1;
    H5T_class_t c = H5Tget_class(t);
    if (np == 1 && c == H5T_STRING && H5Tis_variable_str(t) > 0) {
        char *p = NULL;
        r = H5Aread(a, H5Tget_cset(t) == H5T_CSET_UTF8 ? s->vstr_utf8 : s->vstr, &p);
        free(p);
    } else if (np == 1 && c == H5T_STRING && H5Tget_size(t) < 4096) {
        char buf[4096];
        r = H5Aread(a, t, buf);
    } else if (np == 1 && (c == H5T_INTEGER || c == H5T_FLOAT)) {
        double x;
        r = H5Aread(a, H5T_NATIVE_DOUBLE, &x);
    }
    if (r < 0)
        s->failed++;
    s->attrs++;
    H5Tclose(t);
    H5Aclose(a);
    return 0;
}

static void read_all(hid_t obj, floor_state *s)
{
    hsize_t idx = 0;
    if (H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, &idx, read_one, s) < 0)
        s->failed++;
}

static herr_t read_run(hid_t runs, const char *name, const H5L_info_t *info, void *data)
{
    (void)info;
    floor_state *s = data;
    hid_t run = H5Gopen2(runs, name, H5P_DEFAULT);
    if (run < 0) {
        s->failed++;
        return 0;
    }
    s->runs++;
    read_all(run, s);
    if (H5Lexists(run, "summary", H5P_DEFAULT) > 0) {
        hid_t sum = H5Gopen2(run, "summary", H5P_DEFAULT);
        if (sum >= 0) {
            read_all(sum, s);
            H5Gclose(sum);
        }
    }
    H5Gclose(run);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: joules-perf-attrread FILE\n");
        return 2;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    floor_state s = {0};
    s.vstr = H5Tcopy(H5T_C_S1);
    H5Tset_size(s.vstr, H5T_VARIABLE);
    s.vstr_utf8 = H5Tcopy(s.vstr);
    H5Tset_cset(s.vstr_utf8, H5T_CSET_UTF8);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    hid_t f =
        fapl < 0 || jl__h5_small_cache(fapl) < 0 ? -1 : H5Fopen(argv[1], H5F_ACC_RDONLY, fapl);
    hid_t runs = f < 0 ? -1 : H5Gopen2(f, "/runs", H5P_DEFAULT);
    if (runs < 0) {
        fprintf(stderr, "joules-perf-attrread: %s: cannot open /runs\n", argv[1]);
        return 1;
    }
    hsize_t idx = 0;
    H5Literate(runs, H5_INDEX_NAME, H5_ITER_INC, &idx, read_run, &s);
    H5Gclose(runs);
    H5Fclose(f);
    H5Pclose(fapl);
    H5Tclose(s.vstr);
    H5Tclose(s.vstr_utf8);
    printf("runs %ld attributes %ld\n", s.runs, s.attrs);
    if (s.failed) {
        fprintf(stderr, "joules-perf-attrread: %s: %ld attributes or groups not read\n", argv[1],
                s.failed);
        return 1;
    }
    return 0;
}
