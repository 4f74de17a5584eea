#!/usr/bin/env python3
"""Reference prototype for joules' batch-size latent-factor model (issue part 2).

Usage:
    /usr/bin/python3 tests/model/reference_loo.py /work/shared/data/mlenergy-v3 [--quick]

What it does
------------
1. Loads the LLM and MLLM configurations of the ML.ENERGY v3 leaderboard data
   (tasks/<task>.json) and groups them by
   (model_id, task, gpu_model, num_gpus, weight_precision).
2. Runs a leave-one-batch-size-out (LOO) evaluation of energy per token over
   every group with >= 4 distinct max_num_seqs values, for
     * the ANCHOR: the ML.ENERGY data toolkit's 4-parameter logistic in
       log2(batch) (mlenergy_data.modeling.LogisticModel.fit, reimplemented
       below) fitted separately to power and to throughput;
     * JOULES: the physical model of docs/model-design.md (static/dynamic
       energy per decode step + step time t0 + t1*b^g + saturating
       weight-streaming term), fitted jointly to ln(power) and
       ln(throughput) with bounded Levenberg-Marquardt, plus a Gaussian-process
       correction of the ln(energy/token) residuals in ln(b).
3. Prints the per-task table (n, median, p90, max absolute relative error).

Only numpy is needed (Debian python3-numpy).  This file is the reference the C
implementation (GSL gsl_multifit_nlinear) is checked against; see
docs/model-design.md for the specification.  --quick skips the anchor.
"""
import json
import math
import sys
from collections import defaultdict

import numpy as np

LLM_TASKS = ["gpqa", "lm-arena-chat", "sourcegraph-fim"]
MLLM_TASKS = ["image-chat", "video-chat"]
TASKS = LLM_TASKS + MLLM_TASKS

# GPU descriptors (per GPU).  TDP from NVIDIA specs; idle power is NOT in the
# data, so P_static is a bounded parameter inside a typical idle-power range.
GPUS = {
    "H100": {"tdp": 700.0, "idle_lo": 60.0, "idle_hi": 150.0},   # H100 SXM
    "B200": {"tdp": 1000.0, "idle_lo": 120.0, "idle_hi": 250.0},
}

MIN_BATCH_SIZES = 4          # groups with fewer distinct caps -> interpolation fallback
GP_ELL = 1.0                 # GP length scale, in ln(b) units
GP_NOISE = 0.1               # GP noise-to-signal variance ratio (lambda)
N_LM_STARTS = 4              # best-of-grid initial guesses refined by LM
RIDGE = 1e-4                 # weak ridge on the unconstrained parameters (keeps n_resid >= p)


# --------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------
def load_groups(root):
    """Return {key: group} with arrays sorted by max_num_seqs.

    Duplicate re-measurements (same key and max_num_seqs) are kept as separate
    rows: each is one observation in the fits and one scored point in the LOO.
    """
    rows = defaultdict(list)
    for task in TASKS:
        with open(f"{root}/tasks/{task}.json") as fh:
            for c in json.load(fh)["configurations"]:
                key = (c["model_id"], task, c["gpu_model"], c["num_gpus"], c["weight_precision"])
                rows[key].append(c)
    groups = {}
    for key, cs in sorted(rows.items()):
        cs.sort(key=lambda c: c["max_num_seqs"])
        groups[key] = {
            "key": key, "task": key[1], "gpu": key[2], "G": key[3],
            "cap": np.array([c["max_num_seqs"] for c in cs], float),
            "b": np.array([c["avg_batch_size"] for c in cs], float),
            "P": np.array([c["avg_power_watts"] for c in cs], float),       # all GPUs
            "T": np.array([c["output_throughput_tokens_per_sec"] for c in cs], float),
            "e": np.array([c["energy_per_token_joules"] for c in cs], float),
        }
    return groups


# --------------------------------------------------------------------------
# anchor: mlenergy_data.modeling.LogisticModel (ml-energy/data,
# mlenergy_data/modeling/logistic.py @ ed446d891b37fec47131f32a2ffce36eaa1ea854)
#   y = b0 + L * sigmoid(k * (x - x0)),  x = log2(batch_size)
#   fit: grid x0 in linspace(min(x)-1, max(x)+1, 40) (outer loop) x
#        k in logspace(-2, 2, 60) (inner loop); for each (x0, k), (b0, L) by
#        linear least squares (numpy lstsq); keep the first grid point with the
#        smallest MSE.  No nonlinear refinement, no bounds.
# --------------------------------------------------------------------------
def logistic_fit(x, y):
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    if x.size == 1 or np.allclose(y, y[0]):
        return (0.0, float(x[0]), 1.0, float(y.mean()))
    x0g = np.linspace(x.min() - 1.0, x.max() + 1.0, 40)
    kg = np.logspace(-2, 2, 60)
    X0, K = np.meshgrid(x0g, kg, indexing="ij")          # x0-major = toolkit loop order
    X0, K = X0.ravel(), K.ravel()
    with np.errstate(over="ignore"):
        S = 1.0 / (1.0 + np.exp(-K[:, None] * (x[None, :] - X0[:, None])))
    # batched lstsq on A = [1, s] via SVD with numpy's default rcond = eps*max(M, N)
    A = np.stack([np.ones_like(S), S], axis=2)            # (grid, n, 2)
    U, sv, Vt = np.linalg.svd(A, full_matrices=False)
    cut = np.finfo(float).eps * max(x.size, 2) * sv[:, :1]
    inv = np.where(sv > cut, 1.0 / np.where(sv > cut, sv, 1.0), 0.0)
    coef = np.einsum("gji,gj,gkj,k->gi", Vt, inv, U, y)    # V diag(1/s) U^T y
    yhat = coef[:, :1] + coef[:, 1:] * S
    mse = np.mean((y[None, :] - yhat) ** 2, axis=1)
    i = int(np.argmin(mse))                                # first minimum, like the strict '<'
    return (float(coef[i, 1]), float(X0[i]), float(K[i]), float(coef[i, 0]))


def logistic_eval(p, x):
    L, x0, k, b0 = p
    with np.errstate(over="ignore"):
        return b0 + L / (1.0 + np.exp(-k * (np.asarray(x, float) - x0)))


def anchor_predict(g, train, test):
    """Energy/token = power / throughput, both logistic in log2(max_num_seqs)."""
    x = np.log2(g["cap"])
    pp = logistic_fit(x[train], g["P"][train])
    pt = logistic_fit(x[train], g["T"][train])
    return logistic_eval(pp, x[test]) / logistic_eval(pt, x[test])


# --------------------------------------------------------------------------
# bounded Levenberg-Marquardt (what gsl_multifit_nlinear does with the
# transformed parameters theta; bounds via p = lo + (hi-lo)*sigmoid(theta))
# --------------------------------------------------------------------------
def theta_to_p(th, lo, hi):
    return lo + (hi - lo) / (1.0 + np.exp(-th))


def p_to_theta(p, lo, hi):
    f = np.clip((p - lo) / (hi - lo), 1e-6, 1 - 1e-6)
    return np.log(f / (1 - f))


def levenberg_marquardt(resid, p0, lo, hi, maxit=200, xtol=1e-10):
    th = p_to_theta(np.asarray(p0, float), lo, hi)
    lam = 1e-3
    r = resid(theta_to_p(th, lo, hi))
    cost = r @ r
    for _ in range(maxit):
        J = np.empty((r.size, th.size))
        for j in range(th.size):                       # forward-difference Jacobian
            t2 = th.copy()
            t2[j] += 1e-6
            J[:, j] = (resid(theta_to_p(t2, lo, hi)) - r) / 1e-6
        A, gv = J.T @ J, J.T @ r
        improved = False
        for _ in range(20):
            try:
                d = -np.linalg.solve(A + lam * np.diag(np.diag(A) + 1e-12), gv)
            except np.linalg.LinAlgError:
                lam *= 10
                continue
            t2 = np.clip(th + d, -30, 30)
            r2 = resid(theta_to_p(t2, lo, hi))
            c2 = r2 @ r2
            if np.isfinite(c2) and c2 < cost:
                rel = (cost - c2) / max(cost, 1e-30)
                th, r, cost, improved = t2, r2, c2, True
                lam = max(lam / 3, 1e-12)
                break
            lam *= 4
        if not improved or rel < xtol:
            break
    return theta_to_p(th, lo, hi), cost, th


# --------------------------------------------------------------------------
# joules model
#   tau(b)   = t0 + t1*b^g + tw*(1 - exp(-b/bw))          [s per decode step]
#   E_step(b)= G*Ps*tau(b) + Ew + Et*b^q                  [J per decode step, all GPUs]
#   P(b)     = E_step/tau ;  T(b) = b/tau ;  e(b) = E_step/b = P/T
# parameters p = [Ps, Ew, Et, q, t0, t1, g, tw, ln_bw]
# --------------------------------------------------------------------------
PARAM_NAMES = ["Ps", "Ew", "Et", "q", "t0", "t1", "g", "tw", "ln_bw"]


def bounds(gpu):
    d = GPUS[gpu]
    lo = np.array([d["idle_lo"], 1e-4, 1e-7, 0.3, 1e-5, 1e-10, 0.3, 0.0, 0.0])
    hi = np.array([d["idle_hi"], 1e3, 1e2, 2.0, 5.0, 1.0, 2.5, 1.0, math.log(512.0)])
    return lo, hi


def model_lnP_lnT(p, b, G):
    Ps, Ew, Et, q, t0, t1, g, tw, lbw = p
    tau = t0 + t1 * b ** g + tw * (1.0 - np.exp(-b / math.exp(lbw)))
    E = G * Ps * tau + Ew + Et * b ** q
    return np.log(E / tau), np.log(b / tau)


def initial_guesses(b, P_per_gpu, T, gpu):
    """18 starts: 3 step-time exponents x 2 energy exponents x 3 MoE splits."""
    d = GPUS[gpu]
    Ps = 0.5 * (d["idle_lo"] + d["idle_hi"])
    tau = b / T
    out = []
    for g0 in (0.7, 1.0, 1.5):
        t0 = max(0.8 * tau.min(), 2e-5)
        t1 = max((tau.max() - t0) / b.max() ** g0, 1e-9)
        tt = t0 + t1 * b ** g0
        Ed = np.maximum(P_per_gpu - Ps, 1.0) * tt        # per-GPU dynamic J/step
        for q0 in (0.8, 1.0):
            Ew = max(0.5 * Ed.min(), 1e-3)
            Et = max((Ed.max() - Ew) / b.max() ** q0, 1e-6)
            for frac, bw in ((0.0, 8.0), (0.5, 16.0), (0.5, 64.0)):
                out.append([Ps, Ew, Et, q0, t0 * (1 - frac) + 1e-5, t1, g0,
                            max(t0 * frac, 1e-6), math.log(bw)])
    return out


def fit_joules(b, P, T, G, gpu):
    """Joint fit of ln P and ln T (relative errors), equal weights."""
    lo, hi = bounds(gpu)
    lnP, lnT = np.log(P), np.log(T)

    def resid(p):
        mP, mT = model_lnP_lnT(p, b, G)
        th = p_to_theta(p, lo, hi)
        return np.concatenate([mP - lnP, mT - lnT, RIDGE * th])

    starts = [np.clip(p0, lo + 1e-6 * (hi - lo), hi - 1e-6 * (hi - lo))
              for p0 in initial_guesses(b, P / G, T, gpu)]
    costs = [float(np.sum(resid(p0) ** 2)) for p0 in starts]
    best = None
    for i in np.argsort(costs, kind="stable")[:N_LM_STARTS]:
        p, cost, _ = levenberg_marquardt(resid, starts[i], lo, hi)
        if best is None or cost < best[1]:
            best = (p, cost)
    return best[0]


def gp_correction(x_train, r_train, x_test, ell=GP_ELL, lam=GP_NOISE):
    """Posterior mean of a zero-mean GP (squared-exponential kernel in ln b)."""
    K = np.exp(-(x_train[:, None] - x_train[None, :]) ** 2 / (2 * ell ** 2)) + lam * np.eye(x_train.size)
    ks = np.exp(-(x_test[:, None] - x_train[None, :]) ** 2 / (2 * ell ** 2))
    return ks @ np.linalg.solve(K, r_train)


def joules_predict(g, train, test, use_gp=True, at="b"):
    """Predict energy/token at the held-out rows.

    at="b":   at the measured achieved batch (avg_batch_size) of the held-out row.
    at="cap": at cap * median(b/cap) of the training rows (no use of the
              held-out row's measurements at all).
    """
    b = g["b"]
    p = fit_joules(b[train], g["P"][train], g["T"][train], g["G"], g["gpu"])
    bt = b[test] if at == "b" else g["cap"][test] * np.median(b[train] / g["cap"][train])
    mP, mT = model_lnP_lnT(p, bt, g["G"])
    ln_e = mP - mT
    if use_gp:
        tP, tT = model_lnP_lnT(p, b[train], g["G"])
        r = np.log(g["e"][train]) - (tP - tT)
        ln_e = ln_e + gp_correction(np.log(b[train]), r, np.log(bt))
    return np.exp(ln_e)


# --------------------------------------------------------------------------
# fallback and confidence intervals (used by the C library, shown here for reference)
# --------------------------------------------------------------------------
def interp_loglog(x_train, y_train, x):
    """Fallback for groups with < 4 batch sizes: piecewise-linear in (ln b, ln y),
    linear extrapolation from the two nearest end points; constant if 1 point."""
    o = np.argsort(x_train)
    lx, ly = np.log(x_train[o]), np.log(y_train[o])
    if lx.size == 1:
        return np.full(np.shape(x), y_train[0])
    v = np.log(np.atleast_1d(x))
    i = np.clip(np.searchsorted(lx, v), 1, lx.size - 1)
    return np.exp(ly[i - 1] + (ly[i] - ly[i - 1]) * (v - lx[i - 1]) / (lx[i] - lx[i - 1]))


T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
        2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t975(df):
    return T975[df - 1] if df <= 30 else 1.96 + 2.4 / df    # ~1e-3 accurate beyond 30


def parameter_ci(g):
    """Full-data fit with 95% CIs: cov = s^2 (J^T J)^-1 with J = d(resid)/d(p)
    (data rows only, physical parameters), s^2 = RSS/(n-p), t(0.975, n-p).
    Parameters at a bound (within 1e-6 of the range) are reported fixed (no CI)."""
    b, P, T, G, gpu = g["b"], g["P"], g["T"], g["G"], g["gpu"]
    p = fit_joules(b, P, T, G, gpu)
    lo, hi = bounds(gpu)
    free = (p - lo > 1e-6 * (hi - lo)) & (hi - p > 1e-6 * (hi - lo))

    def r(pp):
        mP, mT = model_lnP_lnT(pp, b, G)
        return np.concatenate([mP - np.log(P), mT - np.log(T)])
    r0 = r(p)
    J = np.empty((r0.size, p.size))
    for j in range(p.size):
        h = 1e-6 * max(abs(p[j]), 1e-8)
        pp = p.copy()
        pp[j] += h
        J[:, j] = (r(pp) - r0) / h
    Jf = J[:, free]
    dof = r0.size - int(free.sum())
    ci = np.full(p.size, np.nan)
    if dof > 0:
        s2 = float(r0 @ r0) / dof
        cov = s2 * np.linalg.pinv(Jf.T @ Jf)
        ci[free] = t975(dof) * np.sqrt(np.maximum(np.diag(cov), 0))
    return p, ci, r0


# --------------------------------------------------------------------------
# LOO harness
# --------------------------------------------------------------------------
def leave_one_batch_out(groups, predict):
    """Hold out each max_num_seqs (all its duplicate rows), refit, predict.
    Returns a list of (task, abs_rel_err, position) with position lo/in/hi."""
    out = []
    for g in groups.values():
        caps = np.unique(g["cap"])
        if caps.size < MIN_BATCH_SIZES:
            continue
        for c in caps:
            test = g["cap"] == c
            pred = predict(g, ~test, test)
            err = np.abs(pred - g["e"][test]) / g["e"][test]
            pos = "lo" if c == caps[0] else ("hi" if c == caps[-1] else "in")
            out += [(g["task"], float(e), pos) for e in err]
    return out


def summarize(rows, sel):
    e = np.array([r[1] for r in rows if sel(r)])
    return e.size, np.median(e), np.percentile(e, 90), e.max()


def print_table(results):
    names = list(results)
    hdr = "%-16s %4s" % ("task", "n") + "".join(" | %-8s med    p90     max" % n for n in names)
    print(hdr)
    print("-" * len(hdr))
    sels = [(t, (lambda t: lambda r: r[0] == t)(t)) for t in TASKS]
    sels += [("LLM (3 tasks)", lambda r: r[0] in LLM_TASKS), ("MLLM (2 tasks)", lambda r: r[0] in MLLM_TASKS),
             ("ALL", lambda r: True), ("  sweep low end", lambda r: r[2] == "lo"),
             ("  interior", lambda r: r[2] == "in"), ("  sweep high end", lambda r: r[2] == "hi")]
    for label, sel in sels:
        line = "%-16s" % label
        for i, n in enumerate(names):
            cnt, med, p90, mx = summarize(results[n], sel)
            if i == 0:
                line += " %4d" % cnt
            line += " | %-8s %5.2f%% %6.2f%% %7.1f%%" % ("", 100 * med, 100 * p90, 100 * mx)
        print(line)


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        sys.exit(2)
    root = sys.argv[1]
    quick = "--quick" in sys.argv
    groups = load_groups(root)
    n4 = sum(np.unique(g["cap"]).size >= MIN_BATCH_SIZES for g in groups.values())
    print(f"{len(groups)} LLM/MLLM groups, {n4} with >= {MIN_BATCH_SIZES} batch sizes\n")
    results = {}
    if not quick:
        results["anchor"] = leave_one_batch_out(groups, anchor_predict)
    results["joules"] = leave_one_batch_out(groups, joules_predict)
    print_table(results)
    if "anchor" in results:
        print("\nper-task check (joules <= anchor on median and p90):")
        for t in TASKS:
            a = summarize(results["anchor"], lambda r: r[0] == t)
            j = summarize(results["joules"], lambda r: r[0] == t)
            ok = j[1] <= a[1] and j[2] <= a[2]
            print("  %-16s %s" % (t, "ok" if ok else "WORSE"))
    _, med, p90, _ = summarize(results["joules"], lambda r: True)
    print("\nbar (median <= 2.5%%, p90 <= 10%%): median %.2f%% %s, p90 %.2f%% %s"
          % (100 * med, "met" if med <= 0.025 else "NOT met", 100 * p90, "met" if p90 <= 0.10 else "NOT met"))


if __name__ == "__main__":
    main()
