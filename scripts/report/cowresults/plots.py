"""cowresults.plots: the Findings' plots, SVG by gnuplot (package gnuplot-nox).

Per kernel line L, from the runs the Findings chose (findings.build()):

  cost-L.svg    each policy against the unpatched kernel per fault path and
                fork size (det mode: guest instructions, %), with the 95%
                interval across boots as error bars; a bar beyond the axis
                is cut and labelled with its value
  redis-L.svg   Redis BGSAVE: the memory the kernel copied (Redis's
                rdb_last_cow_size) and the p99 SET latency, per kernel and
                policy and THP mode, medians of the boot medians with their
                range

plan() says which plots a render will have (the Findings link them),
write() makes them; gnuplot missing is an error that names the package.
"""
import os
import re
import shutil
import subprocess
import tempfile

from .model import FAULT, FORK
from .util import POLICIES, BadInput, atomic_write

CLIP = 10.0   # % beyond which a cost bar is cut
COLORS = {'stock': 0x888888, 'exclusive': 0x9467bd, 'refcount': 0x56b4e9, 'mapcount': 0xe69f00}


def _pct(text):
    """(d, lo, hi) of a cost cell's text: '+0.27% [-0.48, +1.03]', '+0.23%
    (same in all 5+5 boots)', '+0.57%***'; lo, hi None when not known."""
    m = re.match(r'^([-+]?\d+(?:\.\d+)?)%', text or '')
    if not m:
        return None
    d = float(m.group(1))
    iv = re.search(r'\[([-+]?\d+(?:\.\d+)?|-?inf), ([-+]?\d+(?:\.\d+)?|inf)\]', text)
    if iv:
        return d, float(iv.group(1)), float(iv.group(2))
    if 'same in' in text or 'same difference' in text:
        return d, d, d
    return d, None, None


def cost_points(f):
    """[(benchmark, {policy: (d, lo, hi) or None})] of the det cost rows
    whose reference is stock (a run known by its tables only has exclusive
    against stock alone)."""
    out = []
    b = f.get('bench')
    if not b:
        return out
    rows = [r for r in b['data'].get('cost', []) if r['mode'] == 'det' and r['bench'] in FAULT + FORK]
    order = {x: i for i, x in enumerate(FAULT + FORK)}
    for r in sorted(rows, key=lambda r: (order[r['bench']], r['size'])):
        pts = {}
        for p in POLICIES:
            x = r['policies'].get(p)
            if not x or x.get('ref') != 'stock':
                pts[p] = None
                continue
            if isinstance(x.get('d'), (int, float)):
                lo, hi = x.get('lo'), x.get('hi')
                pts[p] = (x['d'], lo if isinstance(lo, (int, float)) else None,
                          hi if isinstance(hi, (int, float)) else None)
            else:
                pts[p] = _pct(x.get('text', ''))
        if any(pts.values()):
            out.append(('%s-%dK' % (r['bench'], r['size']), pts))
    return out


def redis_points(f):
    """{(thp, label): {figure: (median, lo, hi)}} of the det Redis rows."""
    b = f.get('bench')
    if not b:
        return {}
    out = {}
    for r in b['data'].get('redis', []):
        if r.get('mode') != 'det':
            continue
        figs = r.get('figures', {})
        if 'copied KiB' in figs and 'p99 µs' in figs:
            out[(r['thp'], r['label'])] = figs
    return out


def plan(runs, current, pdir, outdir):
    """{kernel line: [(title, path relative to OUTDIR)]} of the plots a
    render of RUNS will have."""
    from . import findings
    lines = sorted({l for r in runs.values() for l in (r.get('lines') or ['6.1'])})
    out = {}
    for line in lines:
        f = findings.build(list(runs.values()), current, line)
        got = []
        if cost_points(f):
            got.append(('cost per policy and fault path', os.path.relpath(
                os.path.join(pdir, 'cost-%s.svg' % line), outdir)))
        if redis_points(f):
            got.append(('Redis BGSAVE copied memory and p99 latency', os.path.relpath(
                os.path.join(pdir, 'redis-%s.svg' % line), outdir)))
        out[line] = got
    if any(out.values()) and not shutil.which('gnuplot'):
        raise BadInput('gnuplot not found: the plots need it (Debian package gnuplot-nox, make deps)')
    return out


def gnuplot(script, what):
    if not shutil.which('gnuplot'):
        raise BadInput('gnuplot not found: the plots need it (Debian package gnuplot-nox, make deps)')
    r = subprocess.run(['gnuplot'], input=script, text=True, capture_output=True)
    if r.returncode:
        raise BadInput('gnuplot failed on %s: %s' % (what, r.stderr.strip().splitlines()[-1:] or '?'))


def cost_svg(f, path):
    pts = cost_points(f)
    b = f['bench']
    with tempfile.TemporaryDirectory() as tmp:
        dat = os.path.join(tmp, 'cost.dat')
        labels = []
        with open(dat, 'w') as fh:
            for i, (name, pp) in enumerate(pts):
                cols = ['%d' % i, '"%s"' % name]
                for j, p in enumerate(POLICIES):
                    v = pp.get(p)
                    if v is None:
                        cols += ['NaN', 'NaN', 'NaN']
                        continue
                    d, lo, hi = v
                    dc = max(-CLIP, min(CLIP, d))
                    if dc != d:
                        labels.append((i + (j - 1) * 0.27, dc, '%+.0f%%' % d))
                    cols += ['%g' % dc,
                             '%g' % max(-CLIP, min(CLIP, lo)) if lo is not None else 'NaN',
                             '%g' % max(-CLIP, min(CLIP, hi)) if hi is not None else 'NaN']
                fh.write(' '.join(cols) + '\n')
        seen = [abs(v) for _, pp in pts for t in pp.values() if t for v in t if v is not None]
        yr = max(1.0, min(CLIP, max(seen or [1.0]))) * 1.25
        missing = [p for p in POLICIES if not any(pp.get(p) for _, pp in pts)]
        note = ('\\n%s: only against exclusive in this run (the table has them)' % ' and '.join(missing)
                if missing else '')
        lab = '\n'.join('set label "%s" at %g,%g center font ",9"' % (t, x, y + (yr / 15 if y > 0 else -yr / 15))
                        for x, y, t in labels)
        svg = os.path.join(tmp, 'out.svg')
        script = """set terminal svg size 900,420 dynamic font "sans,11"
set output '%s'
set title "Cost against unpatched 6.1, det mode (guest instructions): %s, commit %s\\n95%% interval across boots; a bar beyond +-%g%% is cut and labelled%s" noenhanced
set ylabel "policy - stock, %% of stock"
set yrange [-%g:%g]
set xrange [-0.6:%f]
set style fill solid 0.5
set boxwidth 0.25
set grid ytics
set xtics rotate by -30 noenhanced
set key top left
set xzeroaxis
%s
plot '%s' using ($1-0.27):3:xtic(2) with boxes lc rgb '#9467bd' title 'exclusive', \\
     '' using ($1-0.27):3:4:5 with yerrorbars pt 0 lc rgb 'black' notitle, \\
     '' using ($1):6 with boxes lc rgb '#56b4e9' title 'refcount', \\
     '' using ($1):6:7:8 with yerrorbars pt 0 lc rgb 'black' notitle, \\
     '' using ($1+0.27):9 with boxes lc rgb '#e69f00' title 'mapcount', \\
     '' using ($1+0.27):9:10:11 with yerrorbars pt 0 lc rgb 'black' notitle
""" % (svg, b['id'], b['commit'][:7], CLIP, note, yr, yr, len(pts) - 0.4, lab, dat)
        gnuplot(script, path)
        atomic_write(path, open(svg, encoding='utf-8').read())


def redis_svg(f, path):
    pts = redis_points(f)
    b = f['bench']
    order = ['stock (unpatched)'] + ['cow/%s' % p for p in POLICIES] + ['cowx/exclusive']
    keys = sorted(pts, key=lambda k: (k[0] != 'never', order.index(k[1]) if k[1] in order else 99))
    with tempfile.TemporaryDirectory() as tmp:
        dat = os.path.join(tmp, 'redis.dat')
        with open(dat, 'w') as fh:
            for i, k in enumerate(keys):
                c, p99 = pts[k]['copied KiB'], pts[k]['p99 µs']
                color = COLORS.get(k[1].split('/')[-1] if '/' in k[1] else 'stock', 0x888888)
                fh.write('%d "%s, THP %s" %g %g %g %g %g %g %d\n' % (
                    i, k[1].replace('(unpatched)', '').strip(), k[0], c[0], c[1], c[2], p99[0], p99[1], p99[2],
                    color))
        svg = os.path.join(tmp, 'out.svg')
        script = """set terminal svg size 900,460 dynamic font "sans,11"
set output '%s'
set multiplot layout 1,2 title "Redis BGSAVE under a write load, det mode: %s, commit %s\\nmedians of the boot medians, bars: their range" noenhanced
set style fill solid 0.5
set boxwidth 0.6
set grid ytics
set xtics rotate by -40 noenhanced font ",9"
set xrange [-0.6:%f]
set yrange [0:*]
set title "memory the kernel copied (rdb_last_cow_size)" noenhanced
set ylabel "KiB"
plot '%s' using 1:3:9:xtic(2) with boxes lc rgb variable notitle, '' using 1:3:4:5 with yerrorbars pt 0 lc rgb 'black' notitle
set title "SET latency, 99th percentile (guest time under icount)" noenhanced
set ylabel "us"
plot '%s' using 1:6:9:xtic(2) with boxes lc rgb variable notitle, '' using 1:6:7:8 with yerrorbars pt 0 lc rgb 'black' notitle
unset multiplot
""" % (svg, b['id'], b['commit'][:7], len(keys) - 0.4, dat, dat)
        gnuplot(script, path)
        atomic_write(path, open(svg, encoding='utf-8').read())


def write(fl, plots, pdir):
    """Make the plots PLOTS ({line: [(title, path)]}) promised, from the
    Findings FL ({line: findings})."""
    for line, got in plots.items():
        for title, _ in got:
            if title.startswith('cost'):
                cost_svg(fl[line], os.path.join(pdir, 'cost-%s.svg' % line))
            else:
                redis_svg(fl[line], os.path.join(pdir, 'redis-%s.svg' % line))
