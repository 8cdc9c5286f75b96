"""cowresults.store: the committed digests of the runs RESULTS.md shows.

A digest is a Run (cowresults.model) as JSON, digests/<run id>.json next
to RESULTS.md. make report writes one per run directory it is given and
renders RESULTS.md from all of them; a machine without the run directories
(results/ is not committed) still renders, checks and cites every run.
"""
import json
import os
import re

from .model import SCHEMA, Run
from .util import BadInput, atomic_write


def fname(run_id):
    return re.sub(r'[^A-Za-z0-9._-]', '_', run_id) + '.json'


def default_dir(out):
    """The digests of OUT (a RESULTS.md): OUT's directory's digests/."""
    return os.path.join(os.path.dirname(os.path.abspath(out)), 'digests')


def load_all(ddir):
    """{run id: Run} of every digest in DDIR."""
    runs = {}
    if not os.path.isdir(ddir):
        return runs
    for f in sorted(os.listdir(ddir)):
        if not f.endswith('.json'):
            continue
        path = os.path.join(ddir, f)
        try:
            with open(path, encoding='utf-8') as fh:
                r = Run(json.load(fh))
        except (OSError, ValueError) as e:
            raise BadInput('%s: not a digest (%s)' % (path, e))
        if r.get('schema') != SCHEMA or not r.get('id') or not r.get('command'):
            raise BadInput('%s: not a digest of schema %d (id, command)' % (path, SCHEMA))
        runs[r['id']] = r
    return runs


def text_of(run):
    return json.dumps(run, indent=1, sort_keys=True, ensure_ascii=False) + '\n'


def save(ddir, run):
    atomic_write(os.path.join(ddir, fname(run['id'])), text_of(run))


def remove_others(ddir, keep):
    """Delete the digests of DDIR whose run is not in KEEP (ids)."""
    if not os.path.isdir(ddir):
        return
    want = {fname(i) for i in keep}
    for f in os.listdir(ddir):
        if f.endswith('.json') and f not in want:
            os.unlink(os.path.join(ddir, f))


def newest(runs, line=None):
    """{group: the newest Run of that group} (of kernel line LINE when
    given), groups in the order of COMMANDS and then by name."""
    out = {}
    for r in runs:
        if line and r.get('lines') and line not in r['lines']:
            continue
        g = r.get('group') or r['command']
        if g not in out or r.newest_key() > out[g].newest_key():
            out[g] = r
    return out
