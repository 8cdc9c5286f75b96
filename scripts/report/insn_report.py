#!/usr/bin/env python3
"""scripts/report/insn_report.py RUN: the report of make bench-insn.

RUN holds, per kernel (cow, stock), the det boot's console log
(det-<v>-b1.log, cowbench's BENCH lines) and the QEMU plugin's counts
(det-<v>-b1.insn, benchmarks/insn/insncount.c: guest instructions per
address, summed over every timed section). This sets the instructions per
operation (fork, page) against each other per kernel function, the kernel's
addresses named from its System.map (obj_<v> in meta.env), and writes
RUN/insn.md.

It fails (exit 1) when a boot's figures cannot be trusted: no counts, not one
window per timed section (cowbench's sections= on each BENCH line), more than one benchmark in the boot, or plugin counts that disagree with cowbench's own det-mode time of the
same sections (under -icount shift=0 one ns is one instruction) by more than
INSN_TOLERANCE instructions per window (default 2000: the marker syscall and
the clock reads at the ends of each section).
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# The boot's files are parsed by the results model (cowresults.insn), once.
from cowresults.insn import by_function, read_insn, read_log, symbols  # noqa: E402
from cowresults.util import read_env  # noqa: E402  (KEY=VALUE lines of meta.env)

def main():
    if len(sys.argv) != 2:
        sys.exit("usage: insn_report.py RUN")
    run = sys.argv[1]
    tol = float(os.environ.get("INSN_TOLERANCE", "2000"))
    meta = read_env(os.path.join(run, "meta.env"))
    sides, errors = {}, []
    for v in ("cow", "stock"):
        log = os.path.join(run, "det-%s-b1.log" % v)
        insn = os.path.join(run, "det-%s-b1.insn" % v)
        if not os.path.exists(log) or not os.path.exists(insn):
            errors.append("%s: %s or %s is missing" % (v, os.path.basename(log), os.path.basename(insn)))
            continue
        benches, ops, ns, samples, sections, per_op = read_log(log)
        head, counts = read_insn(insn)
        total = sum(counts.values())
        opens, closes, windows = head or (0, 0, 0)
        if len(benches) != 1:
            errors.append("%s: %d benchmarks marked in the boot (%s); make bench-insn marks one" %
                          (v, len(benches), " ".join(sorted(benches)) or "none"))
            continue
        if head is None or not windows or not total or not ops:
            errors.append("%s: %s, instructions %d, ops %d: no complete window" %
                          (v, "opens %d closes %d windows %d" % head if head else "no header",
                           total, ops))
            continue
        if windows != sections:
            errors.append("%s: %d windows counted, cowbench timed %d sections" %
                          (v, windows, sections))
        off = (total - ns) / windows
        if abs(off) > tol:
            errors.append("%s: the plugin counted %d instructions, cowbench's det time is %d ns "
                          "(%+.0f per window, more than %g)" % (v, total, ns, off, tol))
        obj = os.path.join(run, meta.get("obj_" + v, ""))  # relative: to RUN
        smap = os.path.join(obj, "System.map")
        if not os.path.exists(smap):
            errors.append("%s: no System.map (obj_%s=%s in meta.env)" % (v, v, obj))
            continue
        sides[v] = {"bench": benches.pop(), "ops": ops, "ns": ns, "samples": samples, "sections": sections,
                    "median": statistics.median(per_op),
                    "opens": opens, "closes": closes, "windows": windows, "total": total, "off": off,
                    "funcs": by_function(counts, symbols(smap))}
    if errors:
        for e in errors:
            print("insn_report: " + e, file=sys.stderr)
        sys.exit(1)
    cow, stock = sides["cow"], sides["stock"]
    if cow["bench"] != stock["bench"]:
        sys.exit("insn_report: cow ran %s, stock %s" % (cow["bench"], stock["bench"]))
    write(run, meta, cow, stock)


def write(run, meta, cow, stock):
    # cowbench's unit of the benchmark (benchmarks/cowbench.c, benches[]):
    # forkmthp16 counts per fork, munmapmthp16 per munmap().
    name = cow["bench"].split("-")[0]
    unit = ("fork" if name.startswith("fork") else
            "munmap" if name.startswith("munmap") else "page")
    per = lambda s, n: n / s["ops"]
    lines = [
        "# Instructions per %s of %s: cow against stock" % (unit, cow["bench"]),
        "",
        "Run `%s` (%s, `%s`, commit %s), det mode (accelerator %s, one boot per"
        " kernel, seed %s), QEMU plugin benchmarks/insn/insncount.c counting every"
        " guest instruction of cowbench's timed sections; cow `%s` policy %s, stock `%s`."
        % (meta.get("run_id", os.path.basename(run)), meta.get("date", "?"),
           meta.get("command", "make bench-insn"), meta.get("project_commit", "?")[:7],
           meta.get("accel_det_cow", "?"), meta.get("seed", "?"), meta.get("kernel_cow", "?"),
           meta.get("policies_cow", "all"), meta.get("kernel_stock", "?")),
        "",
        "| | cow | stock | cow - stock |",
        "|---|---:|---:|---:|",
    ]
    for label, key in (("operations (warm-up included)", "ops"), ("samples", "samples"), ("timed sections (cowbench)", "sections"),
                       ("windows counted (getppid opens, getsid closes)", "windows"),
                       ("getppid calls", "opens"), ("getsid calls", "closes")):
        lines.append("| %s | %d | %d | |" % (label, cow[key], stock[key]))
    for label, f in (("instructions per %s (plugin)" % unit, lambda s: per(s, s["total"])),
                     ("det ns per %s (cowbench, all samples)" % unit, lambda s: per(s, s["ns"])),
                     ("det ns per %s, median of the samples" % unit, lambda s: s["median"]),
                     ("plugin - det, per timed section", lambda s: s["off"]),
                     ("kernel instructions per %s" % unit,
                      lambda s: per(s, s["total"] - s["funcs"].get("[user space]", 0))),
                     ("user instructions per %s" % unit,
                      lambda s: per(s, s["funcs"].get("[user space]", 0)))):
        a, b = f(cow), f(stock)
        lines.append("| %s | %.1f | %.1f | %+.1f |" % (label, a, b, a - b))
    names = set(cow["funcs"]) | set(stock["funcs"])
    rows = []
    for n in names:
        a, b = per(cow, cow["funcs"].get(n, 0)), per(stock, stock["funcs"].get(n, 0))
        rows.append((n, a, b, a - b))
    rows.sort(key=lambda r: -abs(r[3]))
    diff = per(cow, cow["total"]) - per(stock, stock["total"])
    shown = [r for r in rows if abs(r[3]) >= 0.5][:40]
    lines += [
        "",
        "Functions whose instructions per %s differ most (|difference| of at least"
        " 0.5, at most 40 rows; a function inlined differently in the two kernels"
        " shows in its caller). The rows shown add up to %+.1f of the %+.1f."
        % (unit, sum(r[3] for r in shown), diff),
        "",
        "| function | cow | stock | cow - stock |",
        "|---|---:|---:|---:|",
    ]
    for n, a, b, d in shown:
        lines.append("| `%s` | %.1f | %.1f | %+.1f |" % (n, a, b, d))
    with open(os.path.join(run, "insn.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
