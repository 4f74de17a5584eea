#!/usr/bin/env python3
"""Independent reference for `joules summarize`: the figures of every run,
computed with h5py + numpy straight from the trace-format spec and the
definitions in docs/summary.md, the way a numpy notebook would: whole
arrays, vectorised, no joules code.

    summary_ref.py FILE.h5 [FILE.h5 ...] > ref.json

prints {"runs": [{"file", "run", "steady_method", "energy_source",
"gpu_energy_j", <figure>: value, ...}, ...]} with NaN as null.

Two later uses: the accuracy check of the C implementation on the real
traces (tests/integration/compare_summary.py), and the Python baseline of
the analysis-cost benchmark (so: no per-sample Python loops on the common
path; the only loops are over counter drops, which real counters rarely
have, and over GPUs).
"""
import json
import math
import sys

import h5py
import numpy as np

try:  # Zstandard-compressed traces need the filter (Debian: python3-hdf5plugin)
    import hdf5plugin  # noqa: F401
except ImportError:
    hdf5plugin = None

# Constants of docs/summary.md (the C side has the same numbers).
OCCUPANCY_SHARE = 0.9
MIN_DROP_J = 1.0
MAX_RESTARTS = 2
EXTRAPOLATE_MAX_S = 1.0
COVERAGE_RADIUS_S = 1.0
ITL_PERCENTILES = [50, 90, 95, 99]

SUMMARY_NAMES = {  # summary/ attribute -> figure
    "energy_per_token_j": "energy_per_token_j",
    "energy_per_request_j": "energy_per_request_j",
    "avg_power_w": "avg_power_w",
    "output_throughput_tok_s": "output_throughput_tok_s",
    "median_itl_s": "median_itl_s",
    "p90_itl_s": "p90_itl_s",
    "p95_itl_s": "p95_itl_s",
    "p99_itl_s": "p99_itl_s",
    "avg_batch_size": "avg_batch_size",
    "avg_output_tokens": "avg_output_tokens",
    "steady_state_duration_s": "steady_duration_s",
    "steady_state_energy_j": "steady_energy_j",
    "batch_latency_s": "batch_latency_s",
    "energy_per_item_j": "energy_per_item_j",
}

NAN = float("nan")


def ds(grp, path, dtype=np.float64):
    """Dataset as a numpy array of dtype, or None when absent."""
    if path not in grp:
        return None
    return np.asarray(grp[path][()], dtype=dtype)


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def div(a, b):
    return a / b if (np.isfinite(a) and np.isfinite(b) and b != 0) else NAN


# ---- energy -----------------------------------------------------------------


class Track:
    """E(t) of one GPU: counter interpolated linearly, or the trapezoid
    integral of watts with watts interpolated linearly inside an interval;
    constant power outside the sample span."""

    def __init__(self, t, cum, w=None):
        self.t, self.cum, self.w = t, cum, w
        if w is not None:
            self.r0, self.r1 = w[0], w[-1]
        else:
            self.r0, self.r1 = self._edge_rate(0), self._edge_rate(1)

    def _edge_rate(self, last):
        t, c = self.t, self.cum
        if last:
            k = np.nonzero(t < t[-1])[0]
            return (c[-1] - c[k[-1]]) / (t[-1] - t[k[-1]]) if len(k) else NAN
        k = np.nonzero(t > t[0])[0]
        return (c[k[0]] - c[0]) / (t[k[0]] - t[0]) if len(k) else NAN

    def __call__(self, x):
        x = np.atleast_1d(np.asarray(x, dtype=np.float64))
        t, c, n = self.t, self.cum, len(self.t)
        i = np.searchsorted(t, x, side="right") - 1
        out = np.empty_like(x)
        before, after = i < 0, i >= n - 1
        inner = ~before & ~after
        out[before] = c[0] - self.r0 * (t[0] - x[before])
        ex = x[after] - t[-1]
        out[after] = c[-1] + np.where(ex == 0, 0.0, self.r1 * ex)
        j = i[inner]
        xi = x[inner]
        f = (xi - t[j]) / (t[j + 1] - t[j])
        if self.w is None:
            out[inner] = c[j] + (c[j + 1] - c[j]) * f
        else:
            w0, w1 = self.w[j], self.w[j + 1]
            wx = w0 + (w1 - w0) * f
            out[inner] = c[j] + (w0 + wx) * 0.5 * (xi - t[j])
        return out


def integral_track(t, w):
    if not np.all(np.isfinite(w)):
        return None
    cum = np.concatenate(([0.0], np.cumsum((w[:-1] + w[1:]) * 0.5 * np.diff(t))))
    return Track(t, cum, w)


def counter_track(t, c, w):
    """The counter with restarts bridged; None when it is garbage."""
    if not np.all(np.isfinite(c)):
        return None
    d = np.diff(c)
    if np.all(d >= 0):  # the common case, vectorised
        return Track(t, np.concatenate(([0.0], np.cumsum(d))))
    # Drops: walk the samples with the same rules (docs/summary.md).
    cum = np.zeros(len(c))
    ref, restarts = c[0], 0
    for i in range(1, len(c)):
        x = c[i]
        drop = ref - x
        if drop <= 0:
            cum[i] = cum[i - 1] + (x - ref)
            ref = x
            continue
        if drop < MIN_DROP_J:
            cum[i] = cum[i - 1]
            continue
        if not x < drop:
            return None
        dt = t[i] - t[i - 1]
        p = NAN
        by_watts = w is not None and np.isfinite(w[i - 1]) and np.isfinite(w[i])
        if by_watts:
            p = (w[i - 1] + w[i]) * 0.5
        r_prev = r_next = NAN
        if i >= 2 and t[i - 1] > t[i - 2]:
            r_prev = (cum[i - 1] - cum[i - 2]) / (t[i - 1] - t[i - 2])
        if i + 1 < len(c) and t[i + 1] > t[i] and c[i + 1] >= x:
            r_next = (c[i + 1] - x) / (t[i + 1] - t[i])
        if i + 1 < len(c):
            up = c[i + 1] - x
            ref_p = p if by_watts else r_prev
            if up >= 0.5 * drop and (
                not np.isfinite(ref_p) or up > 4 * ref_p * (t[i + 1] - t[i]) + MIN_DROP_J
            ):
                return None
        if restarts >= MAX_RESTARTS:
            return None
        if not by_watts:
            rates = [r for r in (r_prev, r_next) if np.isfinite(r)]
            p = sum(rates) / len(rates) if rates else NAN
        if not np.isfinite(p):
            return None
        restarts += 1
        cum[i] = cum[i - 1] + p * dt
        ref = x
    return Track(t, cum)


# ---- order statistics ---------------------------------------------------------


def percentiles(x, q):
    x = np.asarray(x, dtype=np.float64)
    x = x[np.isfinite(x)]
    if len(x) == 0:
        return [NAN] * len(q)
    return [float(v) for v in np.percentile(x, q)]


# ---- one run -----------------------------------------------------------------


def summarize(path, name, g):
    a = dict(g.attrs)
    workload = text(a.get("workload", ""))
    llm = workload in ("llm", "mllm")
    B = int(a["max_batch_size"]) if "max_batch_size" in a else -1
    G = int(a.get("num_gpus", 0))
    idle = float(a["gpu_idle_power_w"]) if "gpu_idle_power_w" in a else NAN
    fig = {}
    out = {"file": path, "run": name, "figures": fig}

    pt = ds(g, "power/time")
    watts = ds(g, "power/watts")
    energy = ds(g, "power/energy_j")
    if watts is not None:
        G = watts.shape[1]
    elif energy is not None:
        G = energy.shape[1]
    fig["idle_power_w"] = idle * G if G > 0 else NAN

    if (pt is None or len(pt) == 0) and "summary" in g:
        out["steady_method"], out["energy_source"] = "summary", "summary"
        s = g["summary"].attrs
        for k, v in s.items():
            if isinstance(v, (int, float, np.integer, np.floating)):  # @source is text
                fig[SUMMARY_NAMES.get(k, k)] = float(v)
        if "energy_per_token_j" in fig and "tokens_per_joule" not in fig:
            fig["tokens_per_joule"] = div(1.0, fig["energy_per_token_j"])
        fig["static_energy_share"] = div(fig["idle_power_w"], fig.get("avg_power_w", NAN))
        return out

    et = ds(g, "engine/time")
    running = ds(g, "engine/running")
    tokgen = ds(g, "engine/tokens_generated")
    prefill = ds(g, "engine/prefill_tokens")
    kv = ds(g, "engine/kv_cache_usage")
    arrival = ds(g, "requests/arrival")
    first = ds(g, "requests/first_token")
    finish = ds(g, "requests/finish")
    out_tok = ds(g, "requests/output_tokens")
    bstart, bend, bsize = ds(g, "batches/start"), ds(g, "batches/end"), ds(g, "batches/size")

    # ---- window
    method, lo, hi = None, NAN, NAN
    if text(a.get("window", "")) == "steady_state_only" and pt is not None and len(pt):
        method, lo, hi = "source", pt[0], pt[-1]  # spec 1.1: the source cut the series
    elif bstart is not None and len(bstart) and (workload == "diffusion" or first is None):
        method, lo, hi = "batches", bstart.min(), bend.max()
    else:
        if first is not None and len(first) and B >= 1:
            ft = np.sort(first[np.isfinite(first)])
            fn = np.sort(finish[np.isfinite(finish)])
            k = len(fn) - B - 1
            if len(ft) >= B and k >= 1 and fn[k - 1] > ft[B - 1]:
                method, lo, hi = "requests", ft[B - 1], fn[k - 1]
        if method is None and running is not None and len(running) >= 2:
            r = running[1:]
            peak = r.max()
            if peak > 0:
                m = np.concatenate(([False], r >= OCCUPANCY_SHARE * peak, [False]))
                edges = np.diff(m.astype(np.int8))
                starts = np.nonzero(edges == 1)[0]  # interval index (row - 1)
                ends = np.nonzero(edges == -1)[0] - 1
                lens = et[ends + 1] - et[starts]
                if len(lens) and lens.max() > 0:
                    j = int(np.argmax(lens))
                    method, lo, hi = "occupancy", et[starts[j]], et[ends[j] + 1]
        if method is None:
            method, lo, hi = "whole_run", pt[0], pt[-1]
    out["steady_method"] = method
    dur = hi - lo
    fig.update(steady_start_s=lo, steady_end_s=hi, steady_duration_s=dur)

    # ---- energy: one track per GPU
    tracks, alts, sources = [], [], []
    for k in range(G):
        tr = counter_track(pt, energy[:, k], watts[:, k] if watts is not None else None) \
            if energy is not None else None
        alt = integral_track(pt, watts[:, k]) if watts is not None else None
        if tr is not None:
            tracks.append(tr)
            alts.append(alt)
            sources.append("energy_counter")
        else:
            tracks.append(alt)
            alts.append(None)
            sources.append("watts_integral" if alt is not None else "none")
    energy_ok = all(t is not None for t in tracks)
    out["energy_source"] = ("none" if not energy_ok else
                            "watts_integral" if "watts_integral" in sources else "energy_counter")
    in_span = lo >= pt[0] - EXTRAPOLATE_MAX_S and hi <= pt[-1] + EXTRAPOLATE_MAX_S

    def E(x):
        if not energy_ok:
            return np.full(np.shape(np.atleast_1d(x)), NAN)
        return sum(tr(x) for tr in tracks)

    gpu_e = [float((tr(hi) - tr(lo))[0]) if (tr is not None and in_span) else NAN
             for tr in tracks]
    out["gpu_energy_j"] = gpu_e
    out["gpu_avg_power_w"] = [div(e, dur) for e in gpu_e]
    steady_e = float((E(hi) - E(lo))[0]) if in_span else NAN
    both = [(k, alts[k]) for k in range(G) if alts[k] is not None and in_span]
    if both:
        ci = sum(gpu_e[k] for k, _ in both)
        ii = sum(float((al(hi) - al(lo))[0]) for _, al in both)
        fig["energy_source_disagreement"] = div(ii - ci, ci)
    run_e = float((E(pt[-1]) - E(pt[0]))[0])
    fig.update(steady_energy_j=steady_e, run_energy_j=run_e, run_duration_s=pt[-1] - pt[0],
               avg_power_w=div(steady_e, dur),
               outside_energy_share=div(run_e - steady_e, run_e))

    # ---- power samples
    inw = (pt >= lo) & (pt <= hi)
    if watts is not None:
        tot = watts.sum(axis=1)
        edges = np.interp([lo, hi], pt, tot)  # np.interp holds the end values outside
        fig["peak_power_w"] = float(np.nanmax(np.concatenate((tot[inw], edges))))
        fig["peak_to_avg"] = div(fig["peak_power_w"], fig["avg_power_w"])
    # the reach of a sample: 1 s, or 0.75 of the run's typical sampling gap (the
    # lower median of up to 1001 gaps spread evenly over the run) where longer
    gaps_all = np.diff(pt)
    m = len(gaps_all)
    pick = gaps_all if m <= 1001 else gaps_all[[i * (m - 1) // 1000 for i in range(1001)]]
    R = COVERAGE_RADIUS_S if not len(pick) else \
        max(COVERAGE_RADIUS_S, 0.75 * float(np.sort(pick)[(len(pick) - 1) // 2]))
    near = pt[(pt >= lo - R) & (pt - R <= hi)]
    if dur > 0 and len(near):
        cl = np.maximum(near - R, lo)
        ch = np.minimum(near + R, hi)
        gaps = np.clip(cl[1:] - ch[:-1], 0, None).sum()
        fig["power_sample_coverage"] = (ch[-1] - cl[0] - gaps) / dur
    fig["static_energy_share"] = div(fig["idle_power_w"], fig["avg_power_w"])

    # ---- engine
    if et is not None and len(et) >= 2:
        ilo = np.maximum(et[:-1], lo)
        ihi = np.minimum(et[1:], hi)
        ov = np.clip(ihi - ilo, 0, None)
        pos = ov > 0
        if ov.sum() > 0:
            fig["avg_batch_size"] = float((ov * running[1:]).sum() / ov.sum())
            fig["peak_running"] = float(running[1:][pos].max())
            if kv is not None:
                fig["avg_kv_cache_usage"] = float((ov * kv[1:]).sum() / ov.sum())
                fig["peak_kv_cache_usage"] = float(kv[1:][pos].max())
            if prefill is not None and energy_ok and np.isfinite(steady_e):
                e = E(ihi[pos]) - E(ilo[pos])
                isp = (np.diff(prefill) > 0)[pos]
                fig["prefill_energy_j"] = float(e[isp].sum())
                fig["decode_energy_j"] = float(e[~isp].sum())
                fig["prefill_energy_share"] = div(fig["prefill_energy_j"], steady_e)

    # ---- tokens
    if workload != "diffusion":
        tok = NAN
        if et is not None and tokgen is not None:
            tok = float(np.diff(np.interp([lo, hi], et, tokgen))[0])
        elif first is not None:
            n = out_tok if out_tok is not None else np.ones(len(first))
            ok = np.isfinite(first) & (n >= 1)
            inside = (first > lo) & (first <= hi)
            done = ok & np.isfinite(finish)
            spread = done & (finish > first)
            olap = np.clip(np.minimum(finish, hi) - np.maximum(first, lo), 0, None)
            spread &= ok
            point = ok & done & ~spread  # all n tokens at first_token
            # a request whose itl/ holds exactly n - 1 gaps: its tokens at
            # their own times (first_token + the gaps so far), not spread
            exact = np.zeros(len(first), dtype=bool)
            extra = 0.0
            if out_tok is not None and "itl/seconds" in g and "itl/request" in g:
                isec = ds(g, "itl/seconds", np.float32).astype(np.float64)
                ireq = ds(g, "itl/request", np.int64)
                valid = (ireq >= 0) & (ireq < len(first))
                cnt = np.bincount(ireq[valid], minlength=len(first))
                exact = ok & done & (cnt == n - 1)
                for r in np.nonzero(exact)[0]:
                    t = first[r] + np.cumsum(isec[valid][ireq[valid] == r])
                    extra += float(((first[r] > lo) & (first[r] <= hi)) + np.sum((t > lo) & (t <= hi)))
            tok = float(np.sum(ok & inside & ~point & ~exact)
                        + np.sum(n * (point & inside & ~exact))
                        + np.sum(np.where(spread & ~exact,
                                          (n - 1) * olap / np.where(spread, finish - first, 1), 0))
                        + extra)
        fig["steady_tokens"] = tok
        if np.isfinite(tok) and tok > 0:
            fig.update(energy_per_token_j=div(steady_e, tok), tokens_per_joule=div(tok, steady_e),
                       output_throughput_tok_s=div(tok, dur))

    # ---- requests
    if first is not None and len(first):
        done = np.isfinite(finish)
        fig["completed_requests"] = float(done.sum())
        fig["failed_requests"] = float((~done).sum())
        if out_tok is not None and done.any():
            fig["avg_output_tokens"] = float(out_tok[done].mean())
        if out_tok is not None:
            dec = finish - first
            tp = done & (out_tok > 1) & np.isfinite(dec)
            if tp.any():
                fig["avg_tpot_s"] = float(np.mean(dec[tp] / (out_tok[tp] - 1)))
        fig["ttft_median_s"], fig["ttft_p90_s"] = percentiles(first - arrival, [50, 90])
    fig["energy_per_request_j"] = fig.get("energy_per_token_j", NAN) * fig.get("avg_output_tokens", NAN)

    # ---- ITL: all samples of successful requests
    if "itl/seconds" in g:
        itl = ds(g, "itl/seconds", np.float32)
        if "itl/request" in g and finish is not None and len(finish):
            req = ds(g, "itl/request", np.int64)
            valid = (req >= 0) & (req < len(finish))
            keep = valid.copy()
            keep[valid] = np.isfinite(finish[req[valid]])
            itl = itl[keep]
        (fig["median_itl_s"], fig["p90_itl_s"], fig["p95_itl_s"],
         fig["p99_itl_s"]) = percentiles(itl, ITL_PERCENTILES)

    # ---- diffusion
    if method == "batches" or (method == "source" and bstart is not None and len(bstart)
                               and (workload == "diffusion" or first is None)):
        eb = E(bend) - E(bstart)
        items = bsize.sum() if bsize is not None else NAN
        fig["batch_latency_s"] = float((bend - bstart).mean())
        fig["energy_per_item_j"] = div(float(eb.sum()), items) if np.isfinite(steady_e) else NAN
        fig["items_per_s"] = div(items, dur)

    # ---- the whole run (docs/summary.md, "Every figure and its boundary")
    if method == "source":  # the source cut the series: the whole run is not measured
        fig["run_energy_j"] = NAN
        fig["outside_energy_share"] = NAN
    run_e = fig["run_energy_j"]
    if workload != "diffusion":
        rt = NAN
        if et is not None and tokgen is not None and len(et):
            rt = float(tokgen[-1] - tokgen[0])
        elif first is not None and out_tok is not None and finish is not None:
            done = np.isfinite(finish)
            rt = float(out_tok[done].sum() + np.sum(~done & np.isfinite(first)))
        fig["run_tokens"] = rt
        if np.isfinite(rt) and rt > 0:
            fig["run_energy_per_token_j"] = div(run_e, rt)
    if fig.get("completed_requests", 0) > 0:
        fig["run_energy_per_request_j"] = div(run_e, fig["completed_requests"])
    if (workload == "diffusion" or first is None) and bsize is not None and len(bsize):
        fig["run_energy_per_item_j"] = div(run_e, float(bsize.sum()))
    if method == "whole_run":  # the headline covers the whole run
        for rk, hk in (("run_tokens", "steady_tokens"), ("run_energy_per_token_j", "energy_per_token_j"),
                       ("run_energy_per_request_j", "energy_per_request_j"),
                       ("run_energy_per_item_j", "energy_per_item_j")):
            if not np.isfinite(fig.get(rk, NAN)):
                fig[rk] = fig.get(hk, NAN)

    # ---- the marginal prefill share (docs/summary.md): a regression of the
    # energy of blocks between power samples on the iterations in them,
    # else each prefill interval over the mean decode-only interval of its
    # batch; the interval widened to hold the other estimate
    if (et is not None and len(et) >= 2 and prefill is not None and running is not None
            and energy_ok and np.isfinite(steady_e) and "prefill_energy_j" in fig):
        t0i, t1i = et[:-1], et[1:]
        whole = (t0i >= lo) & (t1i <= hi) & (t1i > t0i)
        d0, d1 = t0i[whole], t1i[whole]
        ei = E(d1) - E(d0)
        ptk = np.diff(prefill)[whole].astype(np.float64)
        pre = ptk > 0
        bi = running[1:][whole].astype(np.int64)
        share = lo_s = hi_s = NAN
        if len(ei) and not pre.any():
            share = lo_s = hi_s = 0.0
        elif len(ei) and (~pre).any():
            # matching
            bs = np.unique(bi[~pre])
            mean = np.array([ei[~pre][bi[~pre] == b].mean() for b in bs])
            cnt = np.array([np.sum(bi[~pre] == b) for b in bs])
            var = np.array([ei[~pre][bi[~pre] == b].var(ddof=1) if c >= 2 else NAN
                            for b, c in zip(bs, cnt)])
            okv = (cnt >= 2) & (mean != 0)
            rel = (np.sum(np.maximum(var[okv], 0) / mean[okv] ** 2 * (cnt[okv] - 1))
                   / np.sum(cnt[okv] - 1)) if okv.any() else NAN
            var = np.where(cnt >= 2, var, rel * mean ** 2)
            m = np.zeros(len(bs))
            M1 = 0.0
            for e_, b_ in zip(ei[pre], bi[pre]):
                j = np.searchsorted(bs, b_)
                if j < len(bs) and bs[j] == b_:
                    M1 += e_ - mean[j]
                    m[j] += 1
                elif j == 0 or j == len(bs):
                    q = 0 if j == 0 else len(bs) - 1
                    M1 += e_ - mean[q]
                    m[q] += 1
                else:
                    w = (b_ - bs[j - 1]) / (bs[j] - bs[j - 1])
                    M1 += e_ - ((1 - w) * mean[j - 1] + w * mean[j])
                    m[j - 1] += 1 - w
                    m[j] += w
            used = m != 0
            se1 = float(np.sqrt(np.sum(m[used] ** 2 * np.maximum(var[used], 0) / cnt[used])))
            # regression on blocks between power samples >= 10 gaps apart
            gap = float(np.sort(pick)[(len(pick) - 1) // 2]) if len(pick) else NAN
            M2 = se2 = NAN
            if gap > 0:
                bt, last = [], -np.inf
                for x in pt[(pt >= d0[0]) & (pt <= d1[-1])]:
                    if x - last >= 10 * gap:
                        bt.append(x)
                        last = x
                bt = np.array(bt)
                if len(bt) >= 2:
                    sb = np.sort(bi)
                    ub = np.unique(sb)
                    exact = len(ub) <= 12
                    edges = ub if exact else sb[[j * len(sb) // 12 for j in range(12)]]
                    k = len(edges)
                    if exact:
                        binof = np.searchsorted(edges, bi)
                    else:
                        binof = np.clip(np.searchsorted(edges, bi, side="right") - 1, 0, k - 1)
                    nb = len(bt) - 1
                    X = np.zeros((nb, k + 2))
                    for i in range(len(d0)):
                        ov = np.clip(np.minimum(d1[i], bt[1:]) - np.maximum(d0[i], bt[:-1]), 0, None)
                        f = ov / (d1[i] - d0[i])
                        X[:, binof[i]] += f
                        if pre[i]:
                            X[:, k] += f
                            X[:, k + 1] += f * ptk[i]
                    y = E(bt[1:]) - E(bt[:-1])
                    for p in (k + 2, k + 1):
                        if nb < p + 4:
                            break
                        A = X[:, :p].T @ X[:, :p]
                        # identified: Gauss-Jordan's pivots above 1e-10 of the largest diagonal
                        Aw, dmax, okp = A.copy(), np.max(np.abs(np.diag(A))), True
                        for c in range(p):
                            piv = c + int(np.argmax(np.abs(Aw[c:, c])))
                            if not abs(Aw[piv, c]) > 1e-10 * dmax:
                                okp = False
                                break
                            Aw[[c, piv]] = Aw[[piv, c]]
                            Aw[c] /= Aw[c, c]
                            for r in range(p):
                                if r != c:
                                    Aw[r] -= Aw[r, c] * Aw[c]
                        if not okp:
                            continue
                        coef = np.linalg.solve(A, X[:, :p].T @ y)
                        s2 = float(np.sum((y - X[:, :p] @ coef) ** 2)) / (nb - p)
                        xv = np.zeros(p)
                        xv[k] = pre.sum()
                        if p == k + 2:
                            xv[k + 1] = ptk[pre].sum()
                        M2 = float(xv @ coef)
                        se2 = float(np.sqrt(max(s2 * float(xv @ np.linalg.solve(A, xv)), 0)))
                        break
            if np.isfinite(M2) and np.isfinite(se2):
                share = M2 / steady_e
                lo_s = min(M2 - 1.96 * se2, M1) / steady_e
                hi_s = max(M2 + 1.96 * se2, M1) / steady_e
            else:
                share = M1 / steady_e
                if np.isfinite(se1):
                    lo_s, hi_s = (M1 - 1.96 * se1) / steady_e, (M1 + 1.96 * se1) / steady_e
        fig.update(prefill_marginal_energy_share=share, prefill_marginal_energy_share_lo=lo_s,
                   prefill_marginal_energy_share_hi=hi_s)

    # ---- gpu/
    gt = ds(g, "gpu/time")
    if gt is not None:
        rows = (gt >= lo) & (gt <= hi)
        for fname, dname in (("avg_sm_clock_mhz", "gpu/sm_clock_mhz"), ("avg_sm_util", "gpu/sm_util")):
            v = ds(g, dname)
            if v is not None:
                sel = v[rows]
                sel = sel[np.isfinite(sel)]
                fig[fname] = float(sel.mean()) if sel.size else NAN

    # ---- spec 1.1: published figures beside the series are the headline
    if "summary" in g:
        pub = {SUMMARY_NAMES.get(k, k): float(v) for k, v in g["summary"].attrs.items()
               if isinstance(v, (int, float, np.integer, np.floating))}
        series_peak, series_avg = fig.get("peak_power_w", NAN), fig.get("avg_power_w", NAN)
        fig.update(pub)
        if "energy_per_token_j" in pub and "tokens_per_joule" not in pub:
            fig["tokens_per_joule"] = div(1.0, pub["energy_per_token_j"])
        if "avg_power_w" in pub and "static_energy_share" not in pub:
            fig["static_energy_share"] = div(fig["idle_power_w"], pub["avg_power_w"])
        # peak over average: one series over one window (the source's own
        # two figures where it published both, else the series')
        if "peak_to_avg" not in pub:
            if "peak_power_w" in pub and "avg_power_w" in pub:
                fig["peak_to_avg"] = div(pub["peak_power_w"], pub["avg_power_w"])
            else:
                fig["peak_to_avg"] = div(series_peak, series_avg)
    return out


def clean(v):
    if isinstance(v, (list, tuple)):
        return [clean(x) for x in v]
    if isinstance(v, (np.floating, float)):
        return float(v) if math.isfinite(v) else None
    if isinstance(v, np.integer):
        return int(v)
    return v


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    runs, errors = [], []
    for path in argv[1:]:
        with h5py.File(path, "r") as f:
            for name in sorted(f["runs"].keys()):
                try:
                    r = summarize(path, name, f["runs"][name])
                except OSError as e:  # e.g. a filter h5py does not have
                    errors.append({"file": path, "run": name, "error": str(e)})
                    continue
                row = {"file": r["file"], "run": r["run"], "steady_method": r["steady_method"],
                       "energy_source": r["energy_source"]}
                for k in ("gpu_energy_j", "gpu_avg_power_w"):
                    if k in r:
                        row[k] = clean(r[k])
                for k, v in r["figures"].items():
                    row[k] = clean(v)
                runs.append(row)
    json.dump({"runs": runs, "errors": errors}, sys.stdout, indent=1, sort_keys=True, allow_nan=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
