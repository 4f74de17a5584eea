/* joules-perf-rawread — the baseline of the benchmark: read, with plain
 * HDF5, every dataset `joules summarize` needs, and nothing else.
 *
 *   joules-perf-rawread [--all] [--hdf5] [--decode] [--workers N] PATH...
 *
 * PATH is a file or a directory (searched recursively for *.h5, sorted, as
 * joules does). For every run under /runs it reads the run's attributes and
 * H5Dread()s each dataset of the list below whole, in the dataset's own
 * native type (no conversion), into one buffer reused across datasets. The
 * filters are the same as joules sees: joules' Zstandard filter is
 * registered exactly as the library does it, with jl_zstd_filter_register(),
 * and chunks of the common layouts ([shuffle,] deflate|zstd) are decoded
 * the way the reader decodes them, with its own jl__read_chunks_direct()
 * (libdeflate / libzstd after H5Dread_chunk; H5Dread otherwise), so the
 * ratio joules / raw read measures analysis, not a different decoder.
 * --hdf5 reads everything with H5Dread and HDF5's own filters instead (what
 * a plain HDF5 program pays).
 * --all reads every dataset of every run group instead of the list (what a
 * reader that loads whole runs does). --workers N forks N processes, file i
 * going to process i mod N, like `joules summarize --workers N` splits.
 * --decode is the decode floor: no attribute is read, and each stored chunk
 * of each needed dataset is taken with H5Dread_chunk and decompressed
 * (libdeflate / libzstd) into a scratch buffer, nothing else — no unshuffle,
 * no copy into a column (datasets not stored as [shuffle,] deflate|zstd
 * chunks are H5Dread as above). joules / this is what analysis and
 * validation add to the unavoidable decoding.
 *
 * Prints "files F runs R datasets D bytes B" (decoded bytes) on stdout.
 */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <hdf5.h>
#include <libdeflate.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zstd.h>

#include "joules/trace.h"
#include "trace/trace_internal.h"

/* What the summary reads (the jl_run fields src/summary uses): window,
 * energy, power, tokens, occupancy, KV use, latency (itl/request: samples of
 * requests that never finished are left out), diffusion batches, clocks and
 * utilisation. Not needed: power/watts_avg, gpu/mem_util, mem_used_bytes,
 * temp_c, engine/waiting, requests/input_tokens. */
static const char *const needed[] = {
    "power/time",
    "power/watts",
    "power/energy_j",
    "gpu/time",
    "gpu/sm_util",
    "gpu/sm_clock_mhz",
    "engine/time",
    "engine/running",
    "engine/tokens_generated",
    "engine/prefill_tokens",
    "engine/kv_cache_usage",
    "requests/arrival",
    "requests/first_token",
    "requests/finish",
    "requests/output_tokens",
    "itl/seconds",
    "itl/request",
    "batches/start",
    "batches/end",
    "batches/size",
    NULL,
};

typedef struct stats {
    unsigned long long files, runs, datasets, bytes;
} stats;

static char **files;
static size_t n_files, cap_files;
static int read_all, plain_hdf5, decode_only;
static void *buf;
static size_t buf_cap;

static int walk_cb(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)ftw;
    size_t n = strlen(path);
    if (type == FTW_F && S_ISREG(sb->st_mode) && n > 3 && !strcmp(path + n - 3, ".h5")) {
        if (n_files == cap_files) {
            cap_files = cap_files ? 2 * cap_files : 256;
            files = realloc(files, cap_files * sizeof *files);
        }
        files[n_files++] = strdup(path);
    }
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The reader's own chunk decoding (libdeflate / libzstd after
 * H5Dread_chunk, src/trace/chunk_read.c), as joules reads; 0 when it does
 * not apply (then H5Dread) or with --hdf5. */
static int direct_read(hid_t d, hid_t ft, hid_t mt, hid_t sp)
{
    if (plain_hdf5)
        return 0;
    hsize_t dims[2] = {0, 1}, chunk[2] = {0, 1};
    int rank = H5Sget_simple_extent_ndims(sp);
    hid_t dcpl = H5Dget_create_plist(d);
    int ok = rank >= 1 && rank <= 2 && H5Sget_simple_extent_dims(sp, dims, NULL) >= 0 &&
             H5Pget_layout(dcpl) == H5D_CHUNKED && H5Pget_chunk(dcpl, 2, chunk) == rank;
    size_t cbytes = (size_t)chunk[0] * (rank == 2 ? (size_t)chunk[1] : 1) * H5Tget_size(ft);
    size_t missing = 0;
    ok = ok && jl__read_chunks_direct(d, dcpl, ft, mt, dims, rank, cbytes, buf, &missing) == 1;
    H5Pclose(dcpl);
    return ok;
}

/* --decode: every stored chunk read and decompressed, nothing else; 0 when
 * the dataset is not stored as [shuffle,] deflate|zstd chunks. */
static int decode_chunks(hid_t d, hid_t ft, hid_t sp)
{
    static struct libdeflate_decompressor *dec;
    static ZSTD_DCtx *zctx;
    static unsigned char *cbuf, *dbuf;
    static size_t ccap, dcap;
    hsize_t dims[2] = {0, 1}, chunk[2] = {0, 1};
    int rank = H5Sget_simple_extent_ndims(sp), codec = 0, ok = 0;
    hid_t dcpl = H5Dget_create_plist(d);
    if (rank < 1 || rank > 2 || H5Sget_simple_extent_dims(sp, dims, NULL) < 0 ||
        H5Pget_layout(dcpl) != H5D_CHUNKED || H5Pget_chunk(dcpl, 2, chunk) != rank)
        goto end;
    int nf = H5Pget_nfilters(dcpl);
    for (int i = 0; i < nf; i++) {
        unsigned flags = 0;
        size_t ncd = 0;
        H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, NULL, 0, NULL, NULL);
        if (id == H5Z_FILTER_DEFLATE)
            codec = 1;
        else if (id == JL__ZSTD_FILTER_ID)
            codec = 2;
        else if (id != H5Z_FILTER_SHUFFLE)
            goto end;
    }
    size_t cbytes = (size_t)chunk[0] * (size_t)chunk[1] * H5Tget_size(ft);
    if (!codec || (rank == 2 && chunk[1] != dims[1]))
        goto end;
    if (cbytes + cbytes / 8 + 4096 > ccap) {
        free(cbuf);
        ccap = cbytes + cbytes / 8 + 4096;
        cbuf = malloc(ccap);
    }
    if (cbytes > dcap) {
        free(dbuf);
        dcap = cbytes;
        dbuf = malloc(dcap);
    }
    if (!dec)
        dec = libdeflate_alloc_decompressor();
    if (!zctx)
        zctx = ZSTD_createDCtx();
    if (!cbuf || !dbuf || !dec || !zctx)
        goto end;
    for (hsize_t row = 0; row < dims[0]; row += chunk[0]) {
        hsize_t off[2] = {row, 0}, stored = 0;
        uint32_t mask = 0;
        if (H5Dget_chunk_storage_size(d, off, &stored) < 0 || stored == 0 || stored > ccap ||
            H5Dread_chunk(d, H5P_DEFAULT, off, &mask, cbuf) < 0)
            goto end;
        if (codec == 1
                ? libdeflate_zlib_decompress(dec, cbuf, (size_t)stored, dbuf, cbytes, NULL) !=
                      LIBDEFLATE_SUCCESS
                : ZSTD_isError(ZSTD_decompressDCtx(zctx, dbuf, cbytes, cbuf, (size_t)stored)))
            goto end;
    }
    ok = 1;
end:
    H5Pclose(dcpl);
    return ok;
}

static int read_dataset(hid_t loc, const char *path, stats *st)
{
    hid_t d = H5Dopen2(loc, path, H5P_DEFAULT);
    if (d < 0)
        return -1;
    hid_t ft = H5Dget_type(d), sp = H5Dget_space(d);
    hid_t mt = H5Tget_native_type(ft, H5T_DIR_ASCEND);
    hssize_t n = H5Sget_simple_extent_npoints(sp);
    size_t bytes = (size_t)(n > 0 ? n : 0) * H5Tget_size(mt);
    int rc = 0;
    if (bytes > buf_cap) {
        free(buf);
        buf = malloc(bytes);
        buf_cap = buf ? bytes : 0;
    }
    if (bytes && decode_only && decode_chunks(d, ft, sp)) {
        st->datasets++;
        st->bytes += bytes;
    } else if (bytes && (!buf || (!direct_read(d, ft, mt, sp) &&
                                  H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0))) {
        fprintf(stderr, "joules-perf-rawread: cannot read %s\n", path);
        rc = -1;
    } else {
        st->datasets++;
        st->bytes += bytes;
    }
    H5Tclose(mt);
    H5Tclose(ft);
    H5Sclose(sp);
    H5Dclose(d);
    return rc;
}

static herr_t attr_cb(hid_t loc, const char *name, const H5A_info_t *info, void *ctx)
{
    (void)info;
    (void)ctx;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    hid_t ft = H5Aget_type(a), sp = H5Aget_space(a);
    hssize_t n = H5Sget_simple_extent_npoints(sp);
    if (H5Tget_class(ft) == H5T_STRING && H5Tis_variable_str(ft) > 0 && n == 1) {
        char *s = NULL;
        if (H5Aread(a, ft, &s) >= 0)
            H5free_memory(s);
    } else if (n > 0) {
        size_t bytes = H5Tget_size(ft) * (size_t)n;
        char small[256];
        void *p = bytes <= sizeof small ? small : malloc(bytes);
        if (p)
            H5Aread(a, ft, p);
        if (p != small)
            free(p);
    }
    H5Sclose(sp);
    H5Tclose(ft);
    H5Aclose(a);
    return 0;
}

static herr_t all_cb(hid_t loc, const char *name, const H5O_info_t *info, void *ctx)
{
    if (info->type == H5O_TYPE_DATASET)
        read_dataset(loc, name, ctx);
    return 0;
}

static int read_file(const char *path, stats *st)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) {
        fprintf(stderr, "joules-perf-rawread: cannot open %s\n", path);
        return -1;
    }
    if (!decode_only)
        H5Aiterate2(f, H5_INDEX_NAME, H5_ITER_INC, NULL, attr_cb, NULL);
    hid_t runs = H5Gopen2(f, "runs", H5P_DEFAULT);
    H5G_info_t gi;
    if (runs < 0 || H5Gget_info(runs, &gi) < 0) {
        H5Fclose(f);
        return -1;
    }
    for (hsize_t i = 0; i < gi.nlinks; i++) {
        char name[512];
        if (H5Lget_name_by_idx(runs, ".", H5_INDEX_NAME, H5_ITER_INC, i, name, sizeof name,
                               H5P_DEFAULT) < 0)
            continue;
        hid_t rg = H5Gopen2(runs, name, H5P_DEFAULT);
        if (rg < 0)
            continue;
        st->runs++;
        if (!decode_only)
            H5Aiterate2(rg, H5_INDEX_NAME, H5_ITER_INC, NULL, attr_cb, NULL);
        if (read_all) {
            H5Ovisit2(rg, H5_INDEX_NAME, H5_ITER_INC, all_cb, st, H5O_INFO_BASIC);
        } else {
            for (const char *const *p = needed; *p; p++) {
                char grp[64];
                const char *slash = strchr(*p, '/');
                memcpy(grp, *p, (size_t)(slash - *p));
                grp[slash - *p] = '\0';
                if (H5Lexists(rg, grp, H5P_DEFAULT) > 0 && H5Lexists(rg, *p, H5P_DEFAULT) > 0)
                    read_dataset(rg, *p, st);
            }
        }
        H5Gclose(rg);
    }
    H5Gclose(runs);
    H5Fclose(f);
    st->files++;
    return 0;
}

int main(int argc, char **argv)
{
    int workers = 1;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--all"))
            read_all = 1;
        else if (!strcmp(argv[i], "--hdf5"))
            plain_hdf5 = 1;
        else if (!strcmp(argv[i], "--decode"))
            decode_only = 1;
        else if (!strcmp(argv[i], "--workers") && i + 1 < argc)
            workers = atoi(argv[++i]);
        else {
            fprintf(
                stderr,
                "usage: joules-perf-rawread [--all] [--hdf5] [--decode] [--workers N] PATH...\n");
            return 2;
        }
    }
    if (i >= argc || workers < 1) {
        fprintf(stderr,
                "usage: joules-perf-rawread [--all] [--hdf5] [--decode] [--workers N] PATH...\n");
        return 2;
    }
    for (; i < argc; i++) {
        struct stat sb;
        if (stat(argv[i], &sb) != 0) {
            fprintf(stderr, "joules-perf-rawread: no such path %s\n", argv[i]);
            return 1;
        }
        if (S_ISDIR(sb.st_mode))
            nftw(argv[i], walk_cb, 32, FTW_PHYS);
        else
            walk_cb(argv[i], &sb, FTW_F, NULL);
    }
    qsort(files, n_files, sizeof *files, cmp_str);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (jl_zstd_filter_register() != JL_OK) {
        fprintf(stderr, "joules-perf-rawread: cannot register the Zstandard filter\n");
        return 1;
    }
    /* Each worker reports its stats through a pipe. */
    int fds[2];
    if (pipe(fds) != 0)
        return 1;
    pid_t *pids = calloc((size_t)workers, sizeof *pids);
    int failed = 0;
    for (int w = 0; w < workers; w++) {
        pid_t pid = workers == 1 ? 0 : fork();
        if (pid == 0) {
            stats st = {0};
            int rc = 0;
            for (size_t k = (size_t)w; k < n_files; k += (size_t)workers)
                rc |= read_file(files[k], &st);
            if (write(fds[1], &st, sizeof st) != (ssize_t)sizeof st)
                rc = 1;
            if (workers == 1) {
                failed = rc;
                break;
            }
            _exit(rc ? 1 : 0);
        }
        if (pid < 0)
            return 1;
        pids[w] = pid;
    }
    close(fds[1]);
    stats total = {0}, st;
    while (read(fds[0], &st, sizeof st) == (ssize_t)sizeof st) {
        total.files += st.files;
        total.runs += st.runs;
        total.datasets += st.datasets;
        total.bytes += st.bytes;
    }
    for (int w = 0; workers > 1 && w < workers; w++) {
        int status = 0;
        waitpid(pids[w], &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            failed = 1;
    }
    printf("files %llu runs %llu datasets %llu bytes %llu\n", total.files, total.runs,
           total.datasets, total.bytes);
    free(pids);
    return failed ? 1 : 0;
}
