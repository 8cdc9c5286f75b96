#!/usr/bin/env python3
"""tests/host/findings/make_bench.py DIR: the canned make bench run of the
Findings checks (tests/host/findings/bench-20261206-100000-0000000), made up
and seeded: det mode, 5 boots of stock, of cow (the three policies
interleaved) and of cowx (exclusive alone), 3 measured rounds a boot, for
a few fault paths, fork, Redis (THP never and always, with Redis's own
figures) and one stress-ng stressor. reuse is +0.23% in every boot (exact),
the others vary by boot. Writes DIR/raw.json and DIR/meta.env; benchstat.py
report renders report.md and summary.txt from them."""
import json
import os
import random
import sys

d = sys.argv[1]
os.makedirs(d, exist_ok=True)
rng = random.Random(20261206)
BENCH = {  # bench, size, unit, stock ns/op, exclusive %, refcount %, mapcount %, boot noise %
    'copy': (1024, 'page', 6620, 0.3, 0.9, 1.6, 1.0),
    'reuse': (1024, 'page', 1313, 0.23, 3.0, 6.6, 0.0),
    'gupfp': (1024, 'page', 1243, 0.48, 438.0, 3.0, 0.0),
    'fork': (256, 'fork', 335000, 0.8, 1.7, 1.4, 3.0),
    'redis-thpnever': (0, 'bgsave', 1387000000, 0.0, -0.1, 0.0, 0.4),
    'redis-thpalways': (0, 'bgsave', 1385000000, -0.1, -0.2, 0.1, 0.6),
    'sng-fork': (0, 'bogo', 2250000, -3.8, -3.6, -3.3, 0.8),
}
rows = []
meta = {'run_id': os.path.basename(os.path.normpath(d)), 'date': '2026-12-06T10:00:00Z',
        'command': 'make bench', 'project_commit': '3fd9187' + '0' * 33, 'quick': '0',
        'rounds': '3', 'warmup': '0', 'seed': '1', 'boots_det': '5', 'boots_wall': '0',
        'kconfig': 'tinyconfig + configs/lean.config', 'kernel_stock': '6.1.192+',
        'kernel_cow': '6.1.192+', 'kernel_cowx': '6.1.192+ (cow, policy exclusive only)',
        'accel_det_stock': 'icount', 'accel_det_cow': 'icount', 'accel_det_cowx': 'icount',
        'redis_mib': '8', 'redis_req': '2000'}
for variant, pols in (('stock', ('exclusive',)), ('cow', ('exclusive', 'refcount', 'mapcount')),
                      ('cowx', ('exclusive',))):
    for boot in range(1, 6):
        for bench, (size, unit, base, ex, rc, mc, noise) in BENCH.items():
            shift = 1 + rng.gauss(0, noise / 100) if noise else 1
            for rnd in range(1, 4):
                for pol in pols:
                    pct = 0 if variant == 'stock' else {'exclusive': ex, 'refcount': rc, 'mapcount': mc}[pol]
                    ns = base * shift * (1 + pct / 100) * (1 + (rng.gauss(0, 0.001) if noise else 0))
                    r = {'run_id': meta['run_id'], 'mode': 'det', 'variant': variant, 'boot': boot,
                         'round': rnd, 'warm': 0, 'policy': pol, 'bench': bench, 'size_kib': size,
                         'unit': unit, 'ops': 1, 'ns': round(ns), 'ns_per_op': round(ns)}
                    if bench.startswith('redis-'):
                        thp = bench.endswith('always')
                        r.update(redis_fork_us=1900 if thp else 4300, redis_cow_kib=(2412 if thp else 1100) + rng.randint(-40, 40),
                                 redis_p50_us=95 if thp else 103, redis_p99_us=2300 + rng.randint(-60, 90) + (40 if pol == 'mapcount' else 0),
                                 redis_max_us=5000 + rng.randint(0, 2000), redis_rps=18000,
                                 cow_copy_refcount=0 if variant == 'stock' else (630 if thp else 276))
                    rows.append(r)
with open(os.path.join(d, 'raw.json'), 'w') as f:
    json.dump({'meta': meta, 'skipped': [], 'rows': rows}, f, indent=0)
with open(os.path.join(d, 'meta.env'), 'w') as f:
    f.write(''.join('%s=%s\n' % kv for kv in meta.items()))
