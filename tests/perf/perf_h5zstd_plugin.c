/* An HDF5 filter plugin for Zstandard (filter 32015), decode only, for the
 * benchmark's Python reference: h5py reads the Zstandard sets through it
 * when HDF5_PLUGIN_PATH names its folder (bench.sh does), where Debian has
 * no such plugin (its python3-hdf5plugin / hdf5-filter-plugin carry LZ4,
 * BZip2, Bitshuffle, Blosc, ZFP, not 32015) and PyPI's hdf5plugin cannot be
 * fetched here. It decodes as hdf5plugin's Zstd filter does (one
 * ZSTD_decompress of a frame that declares its size), so the reference
 * pays what an h5py user with hdf5plugin pays. Buffers are malloc'd, as
 * HDF5 1.10's own filters allocate them; no HDF5 symbol is used. Not part
 * of libjoules (which registers its own filter, src/trace/zstd_filter.c). */
#include <hdf5.h>

#include <H5PLextern.h>
#include <stdlib.h>
#include <zstd.h>

static size_t zstd_decode(unsigned int flags, size_t cd_nelmts, const unsigned int cd_values[],
                          size_t nbytes, size_t *buf_size, void **buf)
{
    (void)cd_nelmts;
    (void)cd_values;
    if (!(flags & H5Z_FLAG_REVERSE)) /* writing: not this plugin's job */
        return 0;
    unsigned long long n = ZSTD_getFrameContentSize(*buf, nbytes);
    if (n == ZSTD_CONTENTSIZE_ERROR || n == ZSTD_CONTENTSIZE_UNKNOWN || n == 0)
        return 0;
    void *out = malloc((size_t)n);
    if (!out)
        return 0;
    size_t got = ZSTD_decompress(out, (size_t)n, *buf, nbytes);
    if (ZSTD_isError(got) || got != n) {
        free(out);
        return 0;
    }
    free(*buf);
    *buf = out;
    *buf_size = (size_t)n;
    return (size_t)n;
}

static const H5Z_class2_t zstd_class = {
    H5Z_CLASS_T_VERS, 32015, 1, 1, "Zstandard (joules bench plugin, decode only)", NULL, NULL,
    zstd_decode,
};

H5PL_type_t H5PLget_plugin_type(void)
{
    return H5PL_TYPE_FILTER;
}

const void *H5PLget_plugin_info(void)
{
    return &zstd_class;
}
