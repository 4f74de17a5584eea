#!/usr/bin/env python3
"""The malformed-input suite: the CLI-level contract for hostile inputs.

    cases.py --list
    cases.py --joules PATH --work DIR --case NAME     (one ctest per case)

Each case builds a bad input in DIR (h5py, raw bytes, hand-made Zstandard
and deflate chunks) next to a good trace, runs

    joules summarize --json BAD GOOD          (or `joules check --json`)

and checks the contract of docs/cli.md and docs/robustness.md:

  - the documented exit status (1: some input failed, the rest written;
    0 when the input is odd but usable, with a warning saying so);
  - one stderr line per failure naming the file and, where they apply, the
    run, the HDF5 object and the row, with the expected words;
  - the same in the JSON `errors` list, field by field;
  - the good file alongside still summarised (its run is in `runs`);
  - no crash, no sanitizer or leak report on stderr (the suite runs in the
    ASan+UBSan tree too, where a leak is an error).

The reader's unit tests (tests/unit/test_trace_malformed.c) check every
validation rule's exact message at library level; this suite checks what a
user of the command sees, one representative case per kind of damage.
"""
import argparse
import ctypes
import json
import os
import re
import resource
import shutil
import subprocess
import sys

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import tracegen as tg  # noqa: E402

CASES = {}


def case(name, **expect):
    def deco(fn):
        CASES[name] = (fn, expect)
        return fn
    return deco


def llm(path, name="r", **kw):
    return tg.write_trace(path, [(name, tg.llm_run, kw)])


def edit(path, fn):
    with h5py.File(path, "r+") as f:
        fn(f)
    return path


def replace(g, name, data, **kw):
    if name in g:
        del g[name]
    return g.create_dataset(name, data=data, **kw)


def zstd_frame(raw, level=3):
    lib = ctypes.CDLL("libzstd.so.1")
    lib.ZSTD_compressBound.restype = ctypes.c_size_t
    lib.ZSTD_compress.restype = ctypes.c_size_t
    cap = lib.ZSTD_compressBound(ctypes.c_size_t(len(raw)))
    dst = ctypes.create_string_buffer(cap)
    n = lib.ZSTD_compress(dst, ctypes.c_size_t(cap), raw, ctypes.c_size_t(len(raw)), level)
    return dst.raw[:n]


def chunked_time(f, chunks, filt, opts, allow_unknown=True):
    """Replace /runs/r/power/time with a chunked dataset of 121 rows whose
    chunks are written raw by the caller; returns the dataset."""
    g = f["runs/r/power"]
    t = g["time"][...]
    del g["time"]
    kw = dict(allow_unknown_filter=True) if allow_unknown else {}
    return g.create_dataset("time", shape=t.shape, dtype="f8", chunks=(chunks,),
                            compression=filt, compression_opts=opts, **kw), t


# ---- broken files --------------------------------------------------------

@case("empty_file", exit=1, code="format", msg="empty file (0 bytes)")
def _(d):
    return open_write(d, "bad.h5", b"")


@case("not_hdf5_text", exit=1, code="format",
      msg="cannot open as an HDF5 file (not HDF5, truncated or corrupt)")
def _(d):
    return open_write(d, "bad.h5", b"file,run,energy\nx,y,1\n" * 50)


@case("not_hdf5_png", exit=1, code="format", msg="cannot open as an HDF5 file")
def _(d):
    return open_write(d, "bad.h5", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8)


@case("truncated_half", exit=1, code="format", msg="truncated file")
def _(d):
    data = open(llm(os.path.join(d, "full.h5")), "rb").read()
    os.remove(os.path.join(d, "full.h5"))
    return open_write(d, "bad.h5", data[:len(data) // 2])


@case("truncated_superblock", exit=1, code="format", msg="cannot open as an HDF5 file")
def _(d):
    data = open(llm(os.path.join(d, "full.h5")), "rb").read()
    os.remove(os.path.join(d, "full.h5"))
    return open_write(d, "bad.h5", data[:40])


@case("missing_file", exit=1, code="io", msg="No such file or directory", create=False)
def _(d):
    return os.path.join(d, "does-not-exist.h5")


@case("directory_named_h5", exit=1, code="missing", create=False,
      msg="no *.h5 trace files in this directory")
def _(d):
    p = os.path.join(d, "empty-dir.h5")
    os.makedirs(p)
    return p


# ---- HDF5, but not a joules trace ---------------------------------------

@case("no_format_attribute", exit=1, code="format", msg="the root has no @format attribute")
def _(d):
    return edit(llm(os.path.join(d, "bad.h5")), lambda f: f.attrs.__delitem__("format"))


@case("format_version_2", exit=1, code="format", msg="unsupported @format_version 2")
def _(d):
    return edit(llm(os.path.join(d, "bad.h5")),
                lambda f: f.attrs.__setitem__("format_version", np.int64(2)))


@case("no_runs", exit=1, code="format", msg="holds no runs")
def _(d):
    return tg.write_trace(os.path.join(d, "bad.h5"), [])


# ---- wrong types and shapes ---------------------------------------------

@case("attribute_wrong_type", exit=1, code="type", run="r",
      msg="attribute @num_gpus must be an integer, found a string")
def _(d):
    return edit(llm(os.path.join(d, "bad.h5")),
                lambda f: f["runs/r"].attrs.__setitem__("num_gpus", "1"))


@case("required_attribute_missing", exit=1, code="missing", run="r",
      msg="required attribute @model is missing")
def _(d):
    return edit(llm(os.path.join(d, "bad.h5")), lambda f: f["runs/r"].attrs.__delitem__("model"))


@case("time_is_strings", exit=1, code="type", run="r", object="/runs/r/power/time",
      msg="expected numbers")
def _(d):
    return edit(llm(os.path.join(d, "bad.h5")), lambda f: replace(
        f["runs/r/power"], "time", np.array([b"0.0"] * 121)))


@case("running_is_float", exit=1, code="type", run="r", object="/runs/r/engine/running",
      msg="has type float64, expected integers")
def _(d):
    return edit(llm(os.path.join(d, "bad.h5")), lambda f: replace(
        f["runs/r/engine"], "running", np.full(25, 4.0)))


@case("watts_wrong_gpu_axis", exit=1, code="type", run="r", object="/runs/r/power/watts",
      msg="expected [N, 1] (num_gpus = 1)")
def _(d):
    return edit(llm(os.path.join(d, "bad.h5")), lambda f: replace(
        f["runs/r/power"], "watts", np.full((121, 2), 300.0, dtype=np.float32)))


@case("time_rank_2", exit=1, code="type", run="r", object="/runs/r/power/time",
      msg="has rank 2")
def _(d):
    return edit(llm(os.path.join(d, "bad.h5")), lambda f: replace(
        f["runs/r/power"], "time", np.zeros((121, 2))))


@case("column_too_short", exit=1, code="invalid", run="r", object="/runs/r/power/watts",
      msg="has 120 rows, expected 121 (the length of power/time)")
def _(d):
    return edit(llm(os.path.join(d, "bad.h5")), lambda f: replace(
        f["runs/r/power"], "watts", np.full((120, 1), 300.0, dtype=np.float32)))


@case("int32_overflow", exit=1, code="invalid", run="r", object="/runs/r/engine/running", row=3,
      msg="value 5000000000 at row 3 does not fit in int32")
def _(d):
    def f_(f):
        r = f["runs/r/engine/running"][...].astype(np.int64)
        r[3] = 5000000000
        replace(f["runs/r/engine"], "running", r)
    return edit(llm(os.path.join(d, "bad.h5")), f_)


@case("group_is_dataset", exit=1, code="type", run="r", object="/runs/r/engine",
      msg="is a dataset, expected a group")
def _(d):
    def f_(f):
        del f["runs/r/engine"]
        f["runs/r"].create_dataset("engine", data=np.zeros(3))
    return edit(llm(os.path.join(d, "bad.h5")), f_)


@case("soft_link_dataset", exit=1, code="type", run="r", object="/runs/r/power/watts",
      msg="joules follows only hard links")
def _(d):
    def f_(f):
        del f["runs/r/power/watts"]
        f["runs/r/power/watts"] = h5py.SoftLink("/runs/r/power/energy_j")
    return edit(llm(os.path.join(d, "bad.h5")), f_)


# ---- bad values ---------------------------------------------------------

def set_value(path, ds, row, value, col=None):
    def f_(f):
        a = f[ds][...]
        if col is None:
            a[row] = value
        else:
            a[row, col] = value
        f[ds][...] = a
    return edit(path, f_)


@case("time_nan", exit=1, code="invalid", run="r", object="/runs/r/power/time", row=7,
      msg="not finite at row 7 (nan)")
def _(d):
    return set_value(llm(os.path.join(d, "bad.h5")), "runs/r/power/time", 7, np.nan)


@case("watts_infinite", exit=1, code="invalid", run="r", object="/runs/r/power/watts", row=42,
      msg="not finite at row 42 (inf W)")
def _(d):
    return set_value(llm(os.path.join(d, "bad.h5")), "runs/r/power/watts", 42, np.inf, 0)


@case("energy_nan", exit=1, code="invalid", run="r", object="/runs/r/power/energy_j", row=9,
      msg="not finite at row 9")
def _(d):
    return set_value(llm(os.path.join(d, "bad.h5")), "runs/r/power/energy_j", 9, np.nan, 0)


@case("negative_power", exit=1, code="invalid", run="r", object="/runs/r/power/watts", row=3,
      msg="negative power at row 3 (-5 W)")
def _(d):
    return set_value(llm(os.path.join(d, "bad.h5")), "runs/r/power/watts", 3, -5.0, 0)


@case("negative_power_gpu1", exit=1, code="invalid", run="r", object="/runs/r/power/watts", row=5,
      msg="at row 5, GPU 1")
def _(d):
    return set_value(llm(os.path.join(d, "bad.h5"), G=2), "runs/r/power/watts", 5, -1.0, 1)


@case("time_backwards", exit=1, code="invalid", run="r", object="/runs/r/power/time", row=101,
      msg="not non-decreasing at row 101 (9.9 after 10)")
def _(d):
    return set_value(llm(os.path.join(d, "bad.h5")), "runs/r/power/time", 101, 9.9)


@case("engine_time_backwards", exit=1, code="invalid", run="r", object="/runs/r/engine/time",
      row=4, msg="not non-decreasing at row 4")
def _(d):
    return set_value(llm(os.path.join(d, "bad.h5")), "runs/r/engine/time", 4, 0.1)


@case("tokens_counter_backwards", exit=1, code="invalid", run="r",
      object="/runs/r/engine/tokens_generated", row=6,
      msg="cumulative count decreases at row 6 (7 after 200)")
def _(d):
    return set_value(llm(os.path.join(d, "bad.h5")), "runs/r/engine/tokens_generated", 6, 7)


@case("kv_usage_out_of_range", exit=1, code="invalid", run="r",
      object="/runs/r/engine/kv_cache_usage", row=2, msg="outside 0..1 at row 2 (1.5)")
def _(d):
    return set_value(llm(os.path.join(d, "bad.h5")), "runs/r/engine/kv_cache_usage", 2, 1.5)


@case("request_time_infinite", exit=1, code="invalid", run="r", object="/runs/r/requests/finish",
      row=3, msg="infinite at row 3")
def _(d):
    return set_value(llm(os.path.join(d, "bad.h5")), "runs/r/requests/finish", 3, np.inf)


@case("itl_request_out_of_range", exit=1, code="invalid", run="r", object="/runs/r/itl/request",
      row=2, msg="request index out of range at row 2 (99; requests/ has 12 rows)")
def _(d):
    return set_value(llm(os.path.join(d, "bad.h5")), "runs/r/itl/request", 2, 99)


# ---- a streamed itl/ (2^20 samples and more: the study loader leaves it in
# the file and checks it in the summary's first pass; docs/trace-reading.md)

STREAM_N = (1 << 20) + 5000  # past JL_STREAM_ITL_MIN_SAMPLES


def long_itl(path, edit_arrays=None, edit_file=None):
    """The llm trace with an itl/ of STREAM_N samples, chunked and deflated
    (so streamed); edit_arrays(seconds, request) changes values first."""
    def f_(f):
        it = f["runs/r/itl"]
        k = np.arange(STREAM_N)
        sec = (0.02 + 0.001 * (k % 7)).astype(np.float32)
        req = (k % 12).astype(np.int32)
        if edit_arrays:
            edit_arrays(sec, req)
        for name, a in (("seconds", sec), ("request", req)):
            replace(it, name, a, chunks=(65536,), shuffle=True, compression="gzip",
                    compression_opts=1)
        if edit_file:
            edit_file(f)
    return edit(path, f_)


@case("itl_streamed_negative_latency", exit=1, code="invalid", run="r",
      object="/runs/r/itl/seconds", row=1000000, msg="negative latency at row 1000000 (-0.5)")
def _(d):
    def e_(sec, req):
        sec[1000000] = -0.5
    return long_itl(llm(os.path.join(d, "bad.h5")), e_)


@case("itl_streamed_latency_before_index", exit=1, code="invalid", run="r",
      object="/runs/r/itl/seconds", row=1040000, msg="not finite at row 1040000 (nan)")
def _(d):
    def e_(sec, req):
        req[10] = 99  # a bad index early, a bad latency late: the latency is named
        sec[1040000] = np.nan
    return long_itl(llm(os.path.join(d, "bad.h5")), e_)


@case("itl_streamed_request_out_of_range", exit=1, code="invalid", run="r",
      object="/runs/r/itl/request", row=1030000,
      msg="request index out of range at row 1030000 (99; requests/ has 12 rows)")
def _(d):
    def e_(sec, req):
        req[1030000] = 99
    return long_itl(llm(os.path.join(d, "bad.h5")), e_)


@case("itl_streamed_corrupt_chunk", exit=1, code="format", run="r",
      object="/runs/r/itl/seconds", msg="cannot read the data (corrupt compressed chunk)")
def _(d):
    def f_(f):
        f["runs/r/itl/seconds"].id.write_direct_chunk((65536 * 9,), bytes(range(64)))
    return long_itl(llm(os.path.join(d, "bad.h5")), edit_file=f_)


@case("itl_streamed_before_host", exit=1, code="invalid", run="r",
      object="/runs/r/itl/seconds", row=1050000, msg="negative latency at row 1050000 (-1)")
def _(d):
    # host/ (read after itl/) is bad too: the reader reports itl/ first
    def e_(sec, req):
        sec[1050000] = -1.0

    def h_(h):
        t = h["time"][...]
        t[5] = 0.5
        h["time"][...] = t
    return long_itl(with_host(llm(os.path.join(d, "bad.h5")), h_), e_)


@case("batch_ends_before_start", exit=1, code="invalid", run="d", object="/runs/d/batches/end",
      row=1, msg="batch ends before it starts at row 1")
def _(d):
    p = tg.write_trace(os.path.join(d, "bad.h5"), [("d", tg.diffusion_run, {})])
    return set_value(p, "runs/d/batches/end", 1, 0.5)


def with_host(path, edit_host):
    """An llm trace with a host/ group (format 1.2) of two sockets, changed by edit_host."""
    def f_(f):
        h = f["runs/r"].create_group("host")
        t = np.arange(0.0, 13.0, 1.0)
        h["time"] = t
        h["cpu_energy_j"] = np.stack([100.0 * t, 90.0 * t], axis=1)
        h["cpu_energy_j"].attrs["max_energy_range_j"] = 262143.32885
        h["node_watts"] = 900.0 + t
        edit_host(h)
    return edit(path, f_)


@case("host_time_backwards", exit=1, code="invalid", run="r", object="/runs/r/host/time",
      row=5, msg="not non-decreasing at row 5 (0.5 after 4)")
def _(d):
    def f_(h):
        t = h["time"][...]
        t[5] = 0.5
        h["time"][...] = t
    return with_host(llm(os.path.join(d, "bad.h5")), f_)


@case("host_counter_above_wrap", exit=1, code="invalid", run="r",
      object="/runs/r/host/cpu_energy_j", row=3,
      msg="300000 J at row 3, socket 1: outside 0..262143.32885 J")
def _(d):
    def f_(h):
        c = h["cpu_energy_j"][...]
        c[3, 1] = 300000.0
        h["cpu_energy_j"][...] = c
    return with_host(llm(os.path.join(d, "bad.h5")), f_)


@case("num_gpus_beyond_limit", exit=1, code="limit", run="r",
      msg="attribute @num_gpus is 5000, more than the limit of 1024 GPUs")
def _(d):
    return edit(llm(os.path.join(d, "bad.h5")),
                lambda f: f["runs/r"].attrs.__setitem__("num_gpus", np.int64(5000)))


# ---- counters: restart (usable) vs garbage (not) -------------------------

@case("energy_counter_restart", exit=0, warn=("r", "counter_restart"),
      not_warn=("r", "counter_unusable"), energy_source="energy_counter")
def _(d):
    def f_(f):
        e = f["runs/r/power/energy_j"][...]
        e[60:, 0] = e[60:, 0] - e[60, 0] + 0.4  # the device counter restarts near 0
        f["runs/r/power/energy_j"][...] = e
    return edit(llm(os.path.join(d, "bad.h5")), f_)


@case("energy_counter_garbage", exit=0, warn=("r", "counter_unusable"),
      energy_source="watts_integral")
def _(d):
    def f_(f):
        e = f["runs/r/power/energy_j"][...]
        e[40, 0] -= 500.0  # a dip that comes straight back: not a restart
        e[70:, 0] -= 800.0
        e[90:, 0] -= 900.0
        f["runs/r/power/energy_j"][...] = e
    return edit(llm(os.path.join(d, "bad.h5")), f_)


# ---- sizes, filters and compressed chunks -------------------------------

@case("declared_rows_beyond_limit", exit=1, code="limit", run="r", object="/runs/r/gpu/sm_util",
      msg="more than the limit of 2147483648 rows")
def _(d):
    def f_(f):
        del f["runs/r/gpu/sm_util"]
        f["runs/r/gpu"].create_dataset("sm_util", shape=(2 ** 36, 1), dtype="f8",
                                       chunks=(4096, 1), maxshape=(None, 1))
    p = edit(llm(os.path.join(d, "bad.h5")), f_)
    assert os.path.getsize(p) < 200000
    return p


@case("declared_bytes_beyond_flag", exit=1, code="limit", run="r", object="/runs/r/power/time",
      msg="more than the limit of 2000 bytes", flags=["--max-dataset-bytes", "2000"])
def _(d):  # 601 rows x 8 bytes; the good file has 121
    return llm(os.path.join(d, "bad.h5"), T=60.0)


@case("rows_beyond_flag", exit=1, code="limit", run="r", object="/runs/r/power/time",
      msg="declares 601 rows, more than the limit of 300 rows", flags=["--max-rows", "300"])
def _(d):
    return llm(os.path.join(d, "bad.h5"), T=60.0)


@case("zstd_frame_claims_more_than_chunk", exit=1, code="format", run="r",
      object="/runs/r/power/time", msg="frame declares 12800 bytes, more than the chunk's 128 bytes")
def _(d):
    def f_(f):
        dset, t = chunked_time(f, 16, 32015, (3,))
        for s in range(0, len(t), 16):
            blk = np.zeros(16)
            blk[:len(t[s:s + 16])] = t[s:s + 16]
            raw = blk.tobytes() if s else np.zeros(1600).tobytes()  # chunk 0 claims 100x
            dset.id.write_direct_chunk((s,), zstd_frame(raw))
    return edit(llm(os.path.join(d, "bad.h5")), f_)


@case("zstd_chunk_corrupt", exit=1, code="format", run="r", object="/runs/r/power/time",
      msg="corrupt compressed chunk")
def _(d):
    def f_(f):
        dset, t = chunked_time(f, 16, 32015, (3,))
        for s in range(0, len(t), 16):
            blk = np.zeros(16)
            blk[:len(t[s:s + 16])] = t[s:s + 16]
            fr = bytearray(zstd_frame(blk.tobytes()))
            if s == 32:
                for i in range(6, len(fr)):
                    fr[i] ^= 0x5A
            dset.id.write_direct_chunk((s,), bytes(fr))
    return edit(llm(os.path.join(d, "bad.h5")), f_)


@case("deflate_chunk_corrupt", exit=1, code="format", run="r", object="/runs/r/power/time",
      msg="cannot read the data (corrupt compressed chunk)")
def _(d):
    import zlib

    def f_(f):
        dset, t = chunked_time(f, 16, "gzip", 4, allow_unknown=False)
        for s in range(0, len(t), 16):
            blk = np.zeros(16)
            blk[:len(t[s:s + 16])] = t[s:s + 16]
            z = zlib.compress(blk.tobytes(), 4)
            if s == 16:
                z = z[:2] + bytes(b ^ 0xFF for b in z[2:])
            dset.id.write_direct_chunk((s,), z)
    return edit(llm(os.path.join(d, "bad.h5")), f_)


@case("unknown_filter", exit=1, code="format", run="r", object="/runs/r/power/time",
      msg="compressed with HDF5 filter 307")
def _(d):
    def f_(f):
        dset, t = chunked_time(f, 16, 307, (9,))
        for s in range(0, len(t), 16):
            dset.id.write_direct_chunk((s,), b"BZh9" + bytes(60))
    return edit(llm(os.path.join(d, "bad.h5")), f_)


# ---- data outside the file, sizes beyond it (docs/security.md) ----------

def external_time(d, target, data=None):
    """power/time of run r stored in `target` (HDF5 external raw storage)."""
    def f_(f):
        g = f["runs/r/power"]
        t = g["time"][...]
        del g["time"]
        if data is not None:
            data(target, t)
        g.create_dataset("time", shape=t.shape, dtype="<f8", external=[(target, 0, t.size * 8)])
    return edit(llm(os.path.join(d, "bad.h5")), f_)


@case("external_storage_refused", exit=1, code="format", run="r", object="/runs/r/power/time",
      msg='stores its data in the external file "', absent=["1000.5"])
def _(d):  # the issue's /etc/passwd: a file of the attacker's choosing read as the series
    return external_time(d, os.path.join(d, "secret.bin"),
                         lambda p, t: np.full(t.size, 1000.5).tofile(p))


@case("external_storage_fifo", exit=1, code="format", run="r", object="/runs/r/power/time",
      msg="(HDF5 external storage), outside this trace; refused", timeout=60)
def _(d):  # a FIFO as the external file hung every reading command
    fifo = os.path.join(d, "fifo")
    os.mkfifo(fifo)
    return external_time(d, fifo)


@case("external_storage_allowed", exit=0, flags=["--allow-external-storage"])
def _(d):  # a trusted file: read as HDF5 reads it
    return external_time(d, os.path.join(d, "time.bin"), lambda p, t: t.astype("<f8").tofile(p))


def virtual_time(d, source):
    def f_(f):
        g = f["runs/r/power"]
        del g["time"]
        lay = h5py.VirtualLayout(shape=(121,), dtype="f8")
        lay[:] = h5py.VirtualSource(source, "runs/r/power/time", shape=(121,))
        g.create_virtual_dataset("time", lay)
    return edit(llm(os.path.join(d, "bad.h5")), f_)


@case("virtual_dataset_refused", exit=1, code="format", run="r", object="/runs/r/power/time",
      msg="is a virtual dataset: its data is read from \"")
def _(d):
    return virtual_time(d, llm(os.path.join(d, "elsewhere.h5")))


@case("virtual_dataset_fifo", exit=1, code="format", run="r", object="/runs/r/power/time",
      msg="is a virtual dataset", timeout=60)
def _(d):
    fifo = os.path.join(d, "fifo")
    os.mkfifo(fifo)
    return virtual_time(d, fifo)


@case("declared_rows_beyond_file", exit=1, code="format", run="r", object="/runs/r/power/time",
      msg="need at least 2080896 bytes stored, more than the file's", max_rss_mb=400)
def _(d):  # the case: 2^28 rows declared (2 GiB decoded) in a file of a few kB
    def f_(f):
        g = f["runs/r/power"]
        t = g["time"][...]
        del g["time"]
        ds_ = g.create_dataset("time", shape=t.shape, dtype="f8", chunks=(65536,),
                               maxshape=(None,), compression="gzip")
        ds_[...] = t
        ds_.resize((2 ** 28,))
    return edit(llm(os.path.join(d, "bad.h5")), f_)


@case("declared_rows_last_chunk_missing", exit=1, code="format", run="r",
      object="/runs/r/power/time", msg="its last chunk (from row 268369920) is not stored",
      max_rss_mb=400)
def _(d):  # Zstandard could hold 2^28 rows in 64 kB: the extent beyond the chunks written
    def f_(f):
        g = f["runs/r/power"]
        t = g["time"][...]
        del g["time"]
        dset = g.create_dataset("time", shape=t.shape, dtype="f8", chunks=(65536,),
                                maxshape=(None,), compression=32015, compression_opts=(3,),
                                allow_unknown_filter=True)
        dset.id.write_direct_chunk((0,), zstd_frame(np.resize(t, 65536).tobytes()))
        dset.resize((2 ** 28,))
        f["runs/r"].create_dataset("padding", data=np.random.default_rng(1).random(40000))
    return edit(llm(os.path.join(d, "bad.h5")), f_)


@case("contiguous_never_written", exit=1, code="format", run="r", object="/runs/r/power/time",
      msg="declares 121 values (968 bytes) but stores none")
def _(d):
    def f_(f):
        g = f["runs/r/power"]
        del g["time"]
        g.create_dataset("time", shape=(121,), dtype="f8")
    return edit(llm(os.path.join(d, "bad.h5")), f_)


# ---- text that is not UTF-8 ---------------------------------------------

@case("attribute_not_utf8", exit=0, attr=("r", "model", "Qw\ufffden\ufffd"))
def _(d):
    def f_(f):  # a latin-1 byte and a cut sequence in a UTF-8 string attribute
        t = h5py.h5t.TypeID.copy(h5py.h5t.C_S1)
        t.set_size(7)
        t.set_cset(h5py.h5t.CSET_UTF8)
        del f["runs/r"].attrs["model"]
        f["runs/r"].attrs.create("model", np.array(b"Qw\xffen\xc3", dtype="S7"),
                                 dtype=h5py.Datatype(t))
    return edit(llm(os.path.join(d, "bad.h5")), f_)


# ---- runs the request table cannot give a steady state ------------------

@case("requests_no_steady_state_occupancy", exit=0, warn=("r", "steady_fallback"),
      steady_method="occupancy")
def _(d):
    def f_(f):  # fewer than max_batch_size requests ever got a first token
        ft = f["runs/r/requests/first_token"][...]
        ft[2:] = np.nan
        f["runs/r/requests/first_token"][...] = ft
    return edit(llm(os.path.join(d, "bad.h5")), f_)


@case("requests_no_steady_state_whole_run", exit=0, warn=("r", "steady_whole_run"),
      steady_method="whole_run")
def _(d):
    def f_(f):  # finishes too early for the rule, and no engine/ to fall back on
        fin = f["runs/r/requests/finish"][...]
        fin[:] = np.nan
        fin[:5] = 1.0
        f["runs/r/requests/finish"][...] = fin
        del f["runs/r/engine"]
    return edit(llm(os.path.join(d, "bad.h5")), f_)


# ---- one bad run among good ones in the same file ------------------------

@case("bad_run_beside_good_run", exit=1, code="invalid", run="bad", object="/runs/bad/power/time",
      row=50, msg="not non-decreasing at row 50", same_file_good="ok")
def _(d):
    p = tg.write_trace(os.path.join(d, "bad.h5"), [("bad", tg.llm_run, {}), ("ok", tg.llm_run, {})])
    return set_value(p, "runs/bad/power/time", 50, 0.0)


# ---- `joules check` must fail a rule ------------------------------------

@case("check_power_far_above_tdp", command="check", exit=1, rule_fail=("r", "power_below_tdp"))
def _(d):
    return llm(os.path.join(d, "bad.h5"), watts=600.0, gpu_tdp_w=300.0)


@case("check_counter_vs_integral_30pct", command="check", exit=1,
      rule_fail=("r", "energy_sources_agree"))
def _(d):
    return llm(os.path.join(d, "bad.h5"), counter_scale=1.3)


@case("check_failed_requests", command="check", exit=1, rule_fail=("r", "failed_requests"))
def _(d):
    def f_(f):
        fin = f["runs/r/requests/finish"][...]
        fin[9:] = np.nan  # 3 of 12 requests never finished
        f["runs/r/requests/finish"][...] = fin
    return edit(llm(os.path.join(d, "bad.h5")), f_)


# ---- the runner ----------------------------------------------------------

def open_write(d, name, data):
    p = os.path.join(d, name)
    with open(p, "wb") as f:
        f.write(data)
    return p


SANITIZER = re.compile(r"AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:|"
                       r"Segmentation fault|core dumped|HDF5-DIAG")


def run_case(name, joules, work):
    fn, ex = CASES[name]
    d = os.path.join(work, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    bad = fn(d)
    good = tg.good_trace(os.path.join(d, "good.h5"), "good")
    cmd = [joules, ex.get("command", "summarize"), "--json"] + ex.get("flags", []) + [bad, good]
    limit = ex.get("timeout", 300)
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=limit)
    except subprocess.TimeoutExpired:
        print("case %s: FAILED\n  $ %s\n  - still running after %d s (a hang)" % (
            name, " ".join(cmd), limit))
        return 1
    rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
    out, err = p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    problems = []

    def fail(msg):
        problems.append(msg)

    if "max_rss_mb" in ex and rss_mb > ex["max_rss_mb"]:
        fail("peak memory %.0f MB, more than %d MB" % (rss_mb, ex["max_rss_mb"]))
    for text in ex.get("absent", []):
        if text in out or text in err:
            fail("the output holds %r (data read from outside the file)" % text)

    if p.returncode != ex["exit"]:
        fail("exit status %d, expected %d" % (p.returncode, ex["exit"]))
    if SANITIZER.search(err):
        fail("sanitizer, crash or HDF5 diagnostic output on stderr")
    try:
        doc = json.loads(out)
    except ValueError:
        doc = None
        fail("stdout is not a JSON document")
    runs = {(r.get("file"), r.get("run")): r for r in (doc or {}).get("runs", [])}
    errors = (doc or {}).get("errors", [])
    if ex.get("good_survives", True) and (good, "good") not in runs:
        fail("the good file's run is missing from the JSON runs")
    if "same_file_good" in ex and (bad, ex["same_file_good"]) not in runs:
        fail("the good run %s of the bad file is missing" % ex["same_file_good"])
    if "msg" in ex:
        mine = [e for e in errors if e.get("file") == bad]
        if not mine:
            fail("no JSON error names %s" % bad)
        else:
            e = mine[0]
            if e.get("code") != ex["code"]:
                fail("JSON error code %r, expected %r" % (e.get("code"), ex["code"]))
            for k in ("run", "object", "row"):
                if k in ex and e.get(k) != ex[k]:
                    fail("JSON error %s %r, expected %r" % (k, e.get(k), ex[k]))
            if ex["msg"] not in (e.get("message") or ""):
                fail("JSON error message %r lacks %r" % (e.get("message"), ex["msg"]))
        lines = [ln for ln in err.splitlines() if bad in ln]
        want = [bad, ex["msg"]]
        if "run" in ex:
            want.append("run %s" % ex["run"])
        if "object" in ex:
            want.append(ex["object"])
        if not any(all(w in ln for w in want) for ln in lines):
            fail("no stderr line holds all of %r" % (want,))
        if len(lines) != 1 and ex.get("good_survives", True):
            fail("%d stderr lines name the bad file, expected 1" % len(lines))
    elif ex.get("command", "summarize") == "summarize":
        if errors:
            fail("unexpected errors: %r" % errors)
    if "warn" in ex or "not_warn" in ex or "steady_method" in ex or "energy_source" in ex:
        run = ex.get("warn", ex.get("not_warn"))[0] if ("warn" in ex or "not_warn" in ex) else "r"
        r = runs.get((bad, run))
        if r is None:
            fail("run %s of the bad file is missing" % run)
        else:
            rules = [w.get("rule") for w in r.get("warnings", [])]
            if "warn" in ex and ex["warn"][1] not in rules:
                fail("warning %s missing (got %r)" % (ex["warn"][1], rules))
            if "not_warn" in ex and ex["not_warn"][1] in rules:
                fail("warning %s present" % ex["not_warn"][1])
            for k in ("steady_method", "energy_source"):
                if k in ex and r.get(k) != ex[k]:
                    fail("%s %r, expected %r" % (k, r.get(k), ex[k]))
            if "warn" in ex and ex["warn"][1] not in out:
                fail("the JSON does not say %s" % ex["warn"][1])
    if "attr" in ex:  # kept with U+FFFD, and stdout strict UTF-8 JSON
        run, key, want = ex["attr"]
        try:
            json.loads(p.stdout.decode("utf-8"))
        except ValueError:
            fail("stdout is not UTF-8 JSON")
        r = runs.get((bad, run))
        if r is None or r.get(key) != want:
            fail("run %s: %s is %r, expected %r" % (run, key, r and r.get(key), want))
    if "rule_fail" in ex:
        run, rule = ex["rule_fail"]
        r = runs.get((bad, run))
        g = runs.get((good, "good"))
        if r is None:
            fail("run %s of the bad file is missing from the check document" % run)
        else:
            lvl = r.get("rules", {}).get(rule, {}).get("level")
            if lvl != "fail":
                fail("rule %s is %r on the bad run, expected fail" % (rule, lvl))
            if r.get("passed") is not False:
                fail("the bad run is not marked passed: false")
        if g is not None and g.get("rules", {}).get(rule, {}).get("level") != "pass":
            fail("rule %s does not pass on the good run" % rule)
    if problems:
        print("case %s: FAILED\n  $ %s\n  - %s" % (name, " ".join(cmd), "\n  - ".join(problems)))
        print("--- exit %d, stderr:\n%s" % (p.returncode, err[-3000:]))
        print("--- stdout (head):\n%s" % out[:2000])
        return 1
    print("case %s: ok (exit %d)" % (name, p.returncode))
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--joules")
    ap.add_argument("--work")
    ap.add_argument("--case", action="append")
    a = ap.parse_args()
    if a.list:
        print(";".join(CASES))
        return 0
    names = a.case or list(CASES)
    return max(run_case(n, os.path.abspath(a.joules), os.path.abspath(a.work)) for n in names)


if __name__ == "__main__":
    sys.exit(main())
