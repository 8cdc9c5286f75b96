"""cowresults.bench: a make bench run's samples, parsed once (no scipy).

collect() turns the boots' console logs (cowbench's BENCH lines) and
meta.env into raw.csv and raw.json; load() reads raw.json (collecting
first when there is none); cells() groups the measured rounds by cell
(mode, variant, benchmark, size, policy). benchstat.py (the statistics,
scipy) and the results model (cowresults.model) both read a run through
these.
"""
import csv
import glob
import json
import os
import re
import sys

FIXED = ["run_id", "mode", "variant", "boot", "kernel", "config_hash", "series_hash",
         "profile", "accel", "qemu", "host_cpu", "rounds", "warmup", "seed",
         "round", "warm", "policy", "bench", "size_kib", "unit", "ops", "ns", "sample_ns",
         "ns_per_op"]
# Every copy reason of both lines: 6.12's cow_copy_large (exclusive's copy
# from a large folio) and the largefolio policy's cow_copy_shared and
# cow_copy_single included (a run without them reads 0).
COPY_COUNTERS = ("cow_copy_mapcount", "cow_copy_refcount", "cow_ksm",
                 "cow_copy_swap", "cow_copy_locked", "cow_copy_large",
                 "cow_copy_shared", "cow_copy_single")
REDIS_FIGURES = (("redis_fork_us", "fork µs"), ("redis_cow_kib", "copied KiB"),
                 ("redis_p50_us", "p50 µs"), ("redis_p99_us", "p99 µs"),
                 ("redis_max_us", "max µs"), ("redis_rps", "SET/s"))


def read_meta(run):
    meta = {}
    with open(os.path.join(run, "meta.env")) as f:
        for line in f:
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                meta[k] = v
    return meta


def collect(run):
    """RUN's console logs and meta.env -> RUN/raw.csv and RUN/raw.json."""
    meta = read_meta(run)
    rows, skips = [], []
    for log in sorted(glob.glob(os.path.join(run, "*.log"))):
        # <mode>-<variant>-b<boot>.log; runs before K boots: <mode>-<variant>.log
        m = re.match(r"(det|wall)-([a-z0-9_]+?)(?:-b([0-9]+))?\.log$",
                     os.path.basename(log))
        if not m:
            continue
        mode, variant, boot = m.groups()
        boot = int(boot or 1)
        if variant == "base":      # runs before the unpatched kernel was named "stock"
            variant = "stock"
        seed = meta.get("seed_%s_%s_b%d" % (mode, variant, boot), meta.get("seed", ""))
        with open(log, errors="replace") as f:
            for line in f:
                line = line.strip()
                if line.startswith("BENCH-SKIP "):
                    kv = dict(w.split("=", 1) for w in line.split()[1:3])
                    skips.append({"mode": mode, "variant": variant, **kv,
                                  "reason": line.split("reason=", 1)[1]})
                    continue
                if not line.startswith("BENCH "):
                    continue
                kv = dict(w.split("=", 1) for w in line.split()[1:] if "=" in w)
                ops, ns = int(kv["ops"]), int(kv["ns"])
                row = {
                    "run_id": meta.get("run_id", ""), "mode": mode,
                    "variant": variant, "boot": boot,
                    "kernel": meta.get("kernel_" + variant, ""),
                    "config_hash": meta.get("config_hash_" + variant, ""),
                    "series_hash": "none (unpatched)" if variant == "stock"
                    else meta.get("series_hash", ""),
                    "profile": meta.get("profile", ""),
                    "accel": meta.get("accel_%s_%s" % (mode, variant), ""),
                    "qemu": meta.get("qemu", ""),
                    "host_cpu": meta.get("host_cpu", ""),
                    "rounds": meta.get("rounds", ""),
                    "warmup": meta.get("warmup", ""),
                    "seed": seed,
                    "round": int(kv["round"]), "warm": int(kv["warm"]),
                    "policy": kv["policy"], "bench": kv["bench"],
                    "size_kib": int(kv["size_kib"]), "unit": kv["unit"],
                    "ops": ops, "ns": ns, "sample_ns": int(kv.get("sample_ns", 0)),
                    "ns_per_op": ns / ops if ops else 0,
                }
                for k, v in kv.items():
                    if k.startswith("v."):
                        row[k[2:]] = int(v)
                rows.append(row)
    if not rows:
        sys.exit("benchstat collect: no BENCH lines in %s/*.log" % run)
    counters = sorted({k for r in rows for k in r if k not in FIXED})
    with open(os.path.join(run, "raw.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIXED + counters, restval="")
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(run, "raw.json"), "w") as f:
        json.dump({"meta": meta, "skipped": skips, "rows": rows}, f, indent=1)
    print("benchstat: %d samples -> %s/raw.csv, raw.json" % (len(rows), run))


def load(run):
    if not os.path.exists(os.path.join(run, "raw.json")):
        collect(run)
    with open(os.path.join(run, "raw.json")) as f:
        return json.load(f)


def cells(data, boot=None):
    """{(mode, variant, bench, size, policy): [row, ...]} of measured rounds
    (of boot BOOT only, when given)."""
    out = {}
    for r in data["rows"]:
        if r["warm"] or (boot is not None and r.get("boot", 1) != boot):
            continue
        k = (r["mode"], r["variant"], r["bench"], r["size_kib"], r["policy"])
        out.setdefault(k, []).append(r)
    return out


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return (xs[n // 2] + xs[(n - 1) // 2]) / 2.0


def boot_medians(rows, f=None):
    """{boot: the median ns/op (or of f(row)) of that boot's measured rounds}."""
    by = {}
    for r in rows:
        by.setdefault(r.get("boot", 1), []).append(f(r) if f else r["ns_per_op"])
    return {b: median(xs) for b, xs in sorted(by.items())}
