#!/usr/bin/env python3
"""scripts/report/doccheck.py: documents against the results model (make check).

  doccheck.py [--digests DIR] readme FILE
      the default path's cost FILE (README.md) states, per function and in
      all, with its make bench-insn run, against that run and the newest
      run of its benchmark (cowresults.doccheck.readme)
  doccheck.py [--digests DIR] rst FILE ROWS
      the per-policy outcome table of FILE (sysctl-docs/cow_policy.rst)
      against the scenario matrix of the newest make test run, ROWS
      (scripts/check/cow_policy-rows.tsv) naming each row's scenario
      (cowresults.doccheck.rst)

DIR: the digests RESULTS.md is rendered from (default: digests/ of the
repository). Prints "doccheck: ok: ..." lines, then one "doccheck: FILE: ..."
line per disagreement; exit 1 on a disagreement, 2 on bad input.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cowresults import doccheck, store  # noqa: E402
from cowresults.util import BadInput, read  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main(argv):
    ddir = os.path.join(TOP, 'digests')
    if argv[:1] == ['--digests'] and len(argv) > 1:
        ddir, argv = argv[1], argv[2:]
    try:
        if len(argv) == 2 and argv[0] == 'readme':
            text = read(argv[1])
            if not text:
                raise BadInput('%s: no such file or empty' % argv[1])
            problems, notes = doccheck.readme(text, store.load_all(ddir).values(), argv[1])
        elif len(argv) == 3 and argv[0] == 'rst':
            text, rows = read(argv[1]), read(argv[2])
            if not text or not rows:
                raise BadInput('%s: no such file or empty' % (argv[1] if not text else argv[2]))
            problems, notes = doccheck.rst(text, doccheck.load_rows(rows), store.load_all(ddir).values(), argv[1])
        else:
            print(__doc__.strip().split('\n\n')[1], file=sys.stderr)
            return 2
    except BadInput as e:
        print('doccheck: error: %s' % e, file=sys.stderr)
        return 2
    for n in notes:
        print('doccheck: ok: %s' % n)
    for p in problems:
        print('doccheck: %s' % p)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
