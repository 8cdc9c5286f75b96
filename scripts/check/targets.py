#!/usr/bin/env python3
"""scripts/check/targets.py MAKEFILE DOC.md: every target people type is
listed by `make help` and in DOC's table "## Make targets" (make check).

The targets are the Makefile's .PHONY lists but its INTERNAL_TARGETS (the
recipes other recipes use). `make help` is run as `make -f MAKEFILE -s help`
and read for "make TARGET" words; DOC's table for "`make TARGET" in each
row's first cell. Prints one line per target missing from either, exit 1;
else "N targets, each in make help and DOC" and exit 0.
"""
import re
import subprocess
import sys


def main(argv):
    if len(argv) != 2:
        sys.exit('usage: targets.py MAKEFILE DOC.md')
    mk, doc = argv
    text = open(mk, encoding='utf-8').read()
    phony = set()
    for m in re.finditer(r'^\.PHONY:((?:.*\\\n)*.*)$', text, re.M):
        phony |= set(m.group(1).replace('\\\n', ' ').split())
    phony = {t for t in phony if '$' not in t and '/' not in t}
    im = re.search(r'^INTERNAL_TARGETS\s*=\s*(.*)$', text, re.M)
    internal = set(im.group(1).split()) if im else set()
    want = sorted(phony - internal)
    r = subprocess.run(['make', '-f', mk, '-s', '--no-print-directory', 'help'],
                       capture_output=True, text=True, env={'PATH': '/usr/bin:/bin', 'MAKEFLAGS': ''})
    helped = set(re.findall(r'\bmake ([a-z][a-z0-9-]*)', r.stdout))
    rows = []
    cur = False
    for line in open(doc, encoding='utf-8'):
        if line.startswith('## '):
            cur = line.strip() == '## Make targets'
        elif cur and line.startswith('|'):
            rows.append(line.split('|')[1])
    documented = set(re.findall(r'`make ([a-z][a-z0-9-]*)', ' '.join(rows)))
    bad = ['%s: not in make help' % t for t in want if t not in helped] + \
        ['%s: not in the table "## Make targets" of %s' % (t, doc) for t in want if t not in documented]
    for b in bad:
        print(b)
    if not bad:
        print('%d targets, each in make help and %s' % (len(want), doc))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
