#!/usr/bin/env python3
"""Compare `joules attribute --by class` with the in-situ truth.

    insitu_compare.py --truth truth.json --attribution NAME=ATT.json...
                      [--json OUT.json] [--expect EXPECTED.json]

ATT.json: `joules attribute --json --class final_norm=norm` of the profiled
run, without or with a --calibration (one --attribution each). truth.json: insitu_prepare.py's.
Per class: truth and attributed energy per iteration (the attribution's
energy over the profiled window / its iterations), the error, the row's
interval and whether the truth lies in it; the issue's targets (classes of
>= 5 % of the window within 10 %, 2-5 % within 30 %, truth inside the
interval). Without --attribution, the truth itself (every run's energy and,
where recorded, its SM clock and throttle reasons) is the document compared
and written. With --expect, every figure must match the expected file
(relative 1e-6 or absolute 1e-9, flags exactly): exit 1 otherwise. Standard library only.
"""
import argparse
import json
import sys

CLASSES = ["attention", "mlp", "qkv", "o_proj", "lm_head", "norm", "kv_write", "sample", "embed"]


def compare(truth, att, n_it):
    t = {c["cls"]: c for c in truth["classes"]}
    # --class final_norm=norm: the final norm is counted with the layers' norms
    if "final_norm" in t and "norm" in t:
        a, b = t["norm"], t.pop("final_norm")
        t["norm"] = dict(a, truth_j_per_iteration=a["truth_j_per_iteration"] +
                         b["truth_j_per_iteration"],
                         uncertainty_j=a["uncertainty_j"] + b["uncertainty_j"])
    rows = {r["key"]: r for r in att["rows"]}
    base = truth["base_j_per_iteration"]["mean"]
    out = []
    for c in CLASSES:
        if c not in t or c not in rows:
            continue
        tr = t[c]["truth_j_per_iteration"]
        un = t[c]["uncertainty_j"]
        r = rows[c]
        e = r["energy_j"] / n_it
        lo, hi = (x / n_it for x in r["energy_interval_j"])
        share = tr / base
        tol = 0.10 if share >= 0.05 else (0.30 if share >= 0.02 else None)
        err = (e - tr) / tr if tr > 0 else None
        out.append(dict(cls=c, truth_j=tr, truth_unc_j=un, truth_share=share,
                        attributed_j=e, interval_j=[lo, hi], error=err,
                        target=tol, within_target=(None if tol is None or err is None
                                                   else abs(err) <= tol),
                        in_interval=lo <= tr <= hi,
                        in_interval_with_unc=lo <= tr + un and tr - un <= hi))
    en = att["energy"]
    summ = dict(window_j=en["window_j"], window_j_per_iteration=en["window_j"] / n_it,
                unattributed_j=en["unattributed_j"],
                unattributed_share=en["unattributed_j"] / en["window_j"],
                unattributed_dynamic_j=en["unattributed_dynamic_j"],
                residual_rel=en["residual_rel"], static_w=att["static"]["power_w"],
                weights_w={w["class"]: w["dynamic_w"] for w in att["weights"].get("classes") or []})
    return out, summ


def targets(rows):
    """The issue's targets over the classes whose truth is resolved (positive,
    known to 25 % of itself): classes of >= 5 % within 10 %, of 2-5 % within
    30 %, and the truth inside the row's interval."""
    res = [r for r in rows if r["truth_j"] > 0 and r["truth_unc_j"] <= 0.25 * r["truth_j"]
           and r["target"] is not None]
    return dict(resolved=len(res), within=sum(1 for r in res if r["within_target"]),
                in_interval=sum(1 for r in res if r["in_interval"]),
                in_interval_with_unc=sum(1 for r in res if r["in_interval_with_unc"]),
                missed=[r["cls"] for r in res if not r["within_target"]])


def at_cap(truth, att, n_it):
    """The at-cap hypothesis (docs/attribute.md, "At the power cap"): at the cap the
    card's power is held, so a class's marginal energy is the base runs' power x the
    time its doubling adds to the iteration (p_dt_j, against the truth); and the
    attribution that this suggests, the window's mean power x the time the class
    holds in the profiled window (its spans' time and the host launch gaps charged
    to them: time_model_j), against the truth too. ATT: an attribution without
    --calibration (its rows carry time_s and host_launch_j)."""
    rows = {r["key"]: r for r in att["rows"]}
    ps = att["static"]["power_w"]
    pm = att["energy"]["window_j"] / att["window"]["duration_s"]
    out = []
    for c in truth["classes"]:
        if c["cls"] not in rows or "doubled_iteration_s" not in c:
            continue
        tr = c["truth_j_per_iteration"]
        base_s = c["base_iteration_s"]
        p_base = 0.5 * (c["base_before_j"] + c["base_after_j"]) / base_s
        added = c["doubled_iteration_s"] - base_s
        r = rows[c["cls"]]
        held = (r["time_s"] + r.get("host_launch_j", 0) / ps) / n_it
        p_dt, tm = p_base * added, pm * held
        out.append(dict(cls=c["cls"], truth_j=tr, truth_unc_j=c["uncertainty_j"],
                        base_power_w=p_base, added_s=added, p_dt_j=p_dt,
                        p_dt_error=(p_dt - tr) / tr if tr > 0 else None,
                        p_dt_within_unc=abs(p_dt - tr) <= c["uncertainty_j"] + 0.05 * abs(tr),
                        held_s=held, window_power_w=pm, time_model_j=tm,
                        time_model_error=(tm - tr) / tr if tr > 0 else None))
    return out


def cap_table(rows):
    print("at the cap: marginal energy = base power x added time (p_dt), and the window's "
          "power x the time a class holds in the profile (time model)")
    for r in rows:
        f = (lambda x: "-" if x is None else f"{100*x:+.0f}%")
        print(f"  {r['cls']:>10} truth {r['truth_j']:7.4f}±{r['truth_unc_j']:.4f} added "
              f"{1e3*r['added_s']:6.2f} ms x {r['base_power_w']:5.1f} W = {r['p_dt_j']:7.4f} "
              f"({f(r['p_dt_error'])}); held {1e3*r['held_s']:6.2f} ms x "
              f"{r['window_power_w']:5.1f} W = {r['time_model_j']:7.4f} ({f(r['time_model_error'])})")


def table(name, rows, summ):
    print(f"{name}: window {summ['window_j_per_iteration']:.4f} J/iteration, "
          f"unattributed {100*summ['unattributed_share']:.1f} %")
    print(f"  {'class':>10} {'truth J/it':>16} {'share':>6} {'attributed':>10} {'error':>7} "
          f"{'interval':>18} {'target':>7} {'in':>4}")
    for r in rows:
        err = "-" if r["error"] is None else f"{100*r['error']:+.1f}%"
        tgt = "-" if r["target"] is None else ("ok" if r["within_target"] else "MISS") + \
            f"{int(100*r['target'])}"
        inn = "yes" if r["in_interval"] else ("~" if r["in_interval_with_unc"] else "no")
        print(f"  {r['cls']:>10} {r['truth_j']:8.4f}±{r['truth_unc_j']:.4f} "
              f"{100*r['truth_share']:5.1f}% {r['attributed_j']:10.4f} {err:>7} "
              f"[{r['interval_j'][0]:7.4f},{r['interval_j'][1]:7.4f}] {tgt:>7} {inn:>4}")
    t = targets(rows)
    print(f"  targets over {t['resolved']} resolved classes of >= 2 %: {t['within']} within, "
          f"truth inside the interval {t['in_interval']} ({t['in_interval_with_unc']} with the "
          f"truth's +-); missed: {', '.join(t['missed']) or 'none'}")


def same(a, b, path="$"):
    """Differences between two JSON values (numbers to 1e-6 relative, or 1e-9 absolute: rounding)."""
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            return [f"{path}: keys {sorted(set(a) ^ set(b))}"]
        return [d for k in a for d in same(a[k], b[k], f"{path}.{k}")]
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} items, expected {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in same(x, y, f"{path}[{i}]")]
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None or \
            isinstance(a, str) or isinstance(b, str):
        return [] if a == b else [f"{path}: {a!r}, expected {b!r}"]
    if abs(a - b) <= max(1e-6 * max(abs(a), abs(b)), 1e-9):
        return []
    return [f"{path}: {a!r}, expected {b!r}"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--truth", required=True)
    ap.add_argument("--attribution", action="append", default=[], metavar="NAME=FILE",
                    help="an attribution to compare, named (repeatable)")
    ap.add_argument("--at-cap", metavar="ATT.json",
                    help="add the at-cap check (at_cap) from this attribution without --calibration")
    ap.add_argument("--json")
    ap.add_argument("--expect")
    args = ap.parse_args()
    truth = json.load(open(args.truth))
    if not args.attribution:
        doc = {"runs": truth["runs"], "classes": truth["classes"],
               "base_j_per_iteration": truth["base_j_per_iteration"]}
    else:
        n_it = truth["profiled_iterations"]
        doc = {"profiled_iterations": n_it, "base_j_per_iteration": truth["base_j_per_iteration"]}
    for arg in args.attribution:
        key, _, path = arg.partition("=")
        rows, summ = compare(truth, json.load(open(path)), n_it)
        doc[key] = dict(summary=summ, rows=rows, targets=targets(rows))
        table(key, rows, summ)
    if args.at_cap:
        doc["at_cap"] = at_cap(truth, json.load(open(args.at_cap)), truth["profiled_iterations"])
        cap_table(doc["at_cap"])
    if args.json:
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
    if args.expect:
        diffs = same(json.loads(json.dumps(doc)), json.load(open(args.expect)))
        for d in diffs[:20]:
            print("differs:", d, file=sys.stderr)
        if diffs:
            print(f"{len(diffs)} figures differ from {args.expect}", file=sys.stderr)
            return 1
        print(f"every figure matches {args.expect}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
