"""cowresults.series: the identity of a patch series.

The identity of the series a run tested is the sha256 over its series
file and the patches it lists, in order, each as its name, a newline and
its bytes (scripts/lib.sh's series_sha256 computes the same in the shell).
Names, not paths: two clones of one series agree, and moving the 6.1
series from patches/ to patches/6.1/ left its identity as it was. Each
kernel line has its own series, patches/<line>/ (patches/ itself for 6.1
before the kernel axis). A run records it in its meta.env as series_sha256
(make test, make bench, make bench-insn, make test-mutants from this
version on); for an older run it is derived with git from the run's commit
(project_commit, or the commit its mutants.md names): the files of the
line's series at that commit. Either way the model also names the commit
that last changed the line's series before the run's commit, which is what
people read ("the series of 3fd9187").

  python3 scripts/report/cowresults/series.py PATCHES_DIR   prints the sha256
"""
import functools
import hashlib
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def listed(series_text):
    """The patch names a series file lists (quilt: the first word, comments
    and blank lines ignored)."""
    out = []
    for line in series_text.splitlines():
        w = line.split('#', 1)[0].split()
        if w:
            out.append(w[0])
    return out


def _sha(items):
    h = hashlib.sha256()
    for name, data in items:
        h.update(name.encode() + b'\n')
        h.update(data or b'')
    return h.hexdigest()


def of_dir(pdir):
    """The sha256 of the series in directory PDIR, or None without one."""
    try:
        with open(os.path.join(pdir, 'series'), 'rb') as f:
            series = f.read()
    except OSError:
        return None
    items = [('series', series)]
    for n in listed(series.decode('utf-8', 'replace')):
        try:
            with open(os.path.join(pdir, n), 'rb') as f:
                items.append((n, f.read()))
        except OSError:
            items.append((n, None))
    return _sha(items)


def _git(repo, *args, binary=False):
    try:
        r = subprocess.run(['git', '-C', repo] + list(args), capture_output=True, check=False)
    except OSError:
        return None
    if r.returncode:
        return None
    return r.stdout if binary else r.stdout.decode('utf-8', 'replace').strip()


_CACHE = {}
LINE_DEFAULT = '6.1'


def line_dirs(line):
    """Where a line's series is in the repository, newest layout first:
    patches/<line>/, and for 6.1 also patches/ (before the kernel axis)."""
    return ['patches/%s' % line] + (['patches'] if line == LINE_DEFAULT else [])


def at_commit(commit, repo=TOP, line=LINE_DEFAULT):
    """{sha256, changed_by} of the line's series at COMMIT of REPO's
    history, or None when git does not know the commit or it has no series
    of that line."""
    commit = (commit or '').split('+', 1)[0]
    if not re.match(r'^[0-9a-f]{7,40}$', commit):
        return None
    if (repo, commit, line) in _CACHE:
        return _CACHE[(repo, commit, line)]
    out = None
    full = _git(repo, 'rev-parse', '--verify', '-q', commit + '^{commit}')
    for d in line_dirs(line) if full else []:
        series = _git(repo, 'show', '%s:%s/series' % (full, d), binary=True)
        if series is None:
            continue
        items = [('series', series)]
        for n in listed(series.decode('utf-8', 'replace')):
            items.append((n, _git(repo, 'show', '%s:%s/%s' % (full, d, n), binary=True)))
        # The last change of the series' own files: for patches/ (the old
        # layout), not the 6.12 series that later lived beside it.
        files = ['%s/series' % d] + ['%s/%s' % (d, n) for n in listed(series.decode('utf-8', 'replace'))]
        out = {'sha256': _sha(items), 'commit': full, 'dir': d,
               'changed_by': _git(repo, 'log', '-1', '--format=%H', full, '--', *files) or ''}
        # A commit that moved the files but left the series as it was (the
        # move to patches/6.1/) is not its last change: the one before is.
        parent = _git(repo, 'rev-parse', '-q', '--verify', out['changed_by'] + '^') if out['changed_by'] else None
        prev = at_commit(parent, repo, line) if parent else None
        if prev and prev['sha256'] == out['sha256'] and prev['changed_by']:
            out['changed_by'] = prev['changed_by']
        break
    _CACHE[(repo, commit, line)] = out
    return out


def identity(env, commit, repo=TOP, line=LINE_DEFAULT):
    """The series of a run of kernel line LINE: {sha256, changed_by,
    source}; source says how it is known: 'recorded' (series_sha256 in its
    meta.env), 'git' (derived from its commit), or 'unknown' (sha256
    empty)."""
    g = at_commit(commit, repo, line)
    rec = env.get('series_sha256', '')
    dirty = '+dirty' in (commit or '')
    if rec:
        return {'sha256': rec, 'changed_by': (g or {}).get('changed_by', ''), 'source': 'recorded'}
    if g:
        return {'sha256': g['sha256'], 'changed_by': g['changed_by'],
                'source': 'git, from a dirty tree' if dirty else 'git'}
    return {'sha256': '', 'changed_by': '', 'source': 'unknown'}


def current(repo=TOP, pdir=None, line=LINE_DEFAULT):
    """The series this checkout would test on kernel line LINE:
    patches/<line>/ (or PDIR) as it is, and the commit that last changed it
    (with ' (+ uncommitted changes)' when the files differ from it)."""
    pdir = pdir or os.path.join(repo, 'patches', line)
    sha = of_dir(pdir)
    last = _git(repo, 'log', '-1', '--format=%H', 'HEAD', '--', 'patches/%s/' % line) or ''
    g = at_commit(last, repo, line) if last else None
    if g and g['sha256'] == sha and g['changed_by']:
        last = g['changed_by']   # past a commit that only moved the series
    dirty = bool(g) and g['sha256'] != sha
    return {'sha256': sha or '', 'changed_by': last, 'source': 'tree',
            'uncommitted': dirty}


def kernel_files(read, names):
    """{kernel path: what the series does to it}: the lines of every hunk
    of every patch NAMES lists (READ(name) gives its bytes), in order,
    without index lines and hunk line numbers, so a patch that only moved
    does not count as changed."""
    out = {}
    for n in names:
        data = read(n)
        path = None
        for line in (data or b'').decode('utf-8', 'replace').splitlines():
            m = re.match(r'^diff --git a/(\S+) b/', line)
            if m:
                path = m.group(1)
                out.setdefault(path, [])
            elif line == '-- ':
                path = None             # git format-patch's signature
            elif path and not line.startswith('index '):
                out[path].append('@@' if line.startswith('@@') else line)
    return {k: '\n'.join(v) for k, v in out.items()}


@functools.lru_cache(maxsize=None)
def changed_files(commit, repo=TOP, pdir=None, line=LINE_DEFAULT):
    """The kernel files the line's series at COMMIT (of REPO's history) and
    the series in PDIR (patches/<line>/ as it is) treat differently,
    sorted; None when git does not know the series at COMMIT."""
    g = at_commit(commit, repo, line)
    if not g:
        return None
    pdir = pdir or os.path.join(repo, 'patches', line)
    old_series = _git(repo, 'show', '%s:%s/series' % (g['commit'], g['dir']), binary=True) or b''
    old = kernel_files(lambda n: _git(repo, 'show', '%s:%s/%s' % (g['commit'], g['dir'], n), binary=True),
                       listed(old_series.decode('utf-8', 'replace')))

    def read(n):
        try:
            with open(os.path.join(pdir, n), 'rb') as f:
                return f.read()
        except OSError:
            return None
    try:
        with open(os.path.join(pdir, 'series'), encoding='utf-8', errors='replace') as f:
            names = listed(f.read())
    except OSError:
        return None
    new = kernel_files(read, names)
    return sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))


def short(sha):
    return sha[:12] if sha else '?'


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit('usage: series.py PATCHES_DIR')
    s = of_dir(sys.argv[1])
    if s is None:
        sys.exit('series.py: no %s/series' % sys.argv[1])
    print(s)
