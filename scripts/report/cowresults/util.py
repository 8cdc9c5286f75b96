"""cowresults.util: the small readers and markdown helpers every view shares.

Moved here from results_md.py, which re-exports them: a run directory's
files are read by these once, into the model (cowresults.model).
"""
import os
import re
import tempfile

POLICIES = ('exclusive', 'refcount', 'mapcount', 'largefolio')
DELIM = re.compile(r'^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?$')


class BadInput(Exception):
    """Input a view cannot use: one line that says what and where."""


def read(path):
    try:
        with open(path, encoding='utf-8', errors='replace') as f:
            return f.read()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return ''


def first_line(path):
    lines = read(path).strip().splitlines()
    return lines[0].strip() if lines else ''


def read_env(path):
    """The KEY=VALUE lines of a meta.env."""
    pairs = (l.split('=', 1) for l in read(path).splitlines() if '=' in l and not l.startswith('#'))
    return {k.strip(): v.strip() for k, v in pairs}


def run_name(run):
    """A variant or guest run VARIANT-PROFILE as shown: base is now stock."""
    v, dash, p = run.partition('-')
    return ('stock' if v == 'base' else v) + dash + p


def esc(c):
    return str(c).replace('\n', ' ').replace('|', '\\|')


def table(header, rows):
    return (['| ' + ' | '.join(header) + ' |', '|' + ' --- |' * len(header)] +
            ['| ' + ' | '.join(esc(c) for c in r) + ' |' for r in rows] + [''])


def split_row(line):
    s = line.strip()
    s = s[1:] if s.startswith('|') else s
    s = s[:-1] if s.endswith('|') and not s.endswith('\\|') else s
    return re.split(r'(?<!\\)\|', s)


def cells_of(line):
    """The cells of a markdown table row, stripped and unescaped."""
    return [c.strip().replace('\\|', '|') for c in split_row(line)]


def tables_under(text, heading, empty=False):
    """(heading text, lines) of each table of markdown TEXT that has a data
    row (or none, when EMPTY) and whose nearest heading above matches the
    regular expression HEADING."""
    found, head, cur = [], '', None
    for line in text.splitlines():
        head = line if line.startswith('#') else head
        if not line.startswith('|'):
            cur = None
        elif cur is None:
            cur = [line.rstrip()]
            if re.match(heading, head):
                found.append((head.lstrip('# ').strip(), cur))
        else:
            cur.append(line.rstrip())
    return [(h, t) for h, t in found if len(t) > (1 if empty else 2)]


def table_dicts(lines):
    """The data rows of one markdown table as {header: cell} dicts."""
    head = cells_of(lines[0])
    return [dict(zip(head, cells_of(l))) for l in lines[2:]]


def embed(title, tabs, captions=()):
    """A "### TITLE" subsection of the tables TABS, or nothing."""
    L = ['### ' + title, ''] if tabs else []
    for i, t in enumerate(tabs):
        L += ([captions[i], ''] if i < len(captions) else []) + t + ([''] if t[-1] else [])
    return L


def log_meta(path):
    """(variant, kernel release, accelerator) from a console log's banners."""
    text = read(path)
    v = re.search(r'^# cow-policy run .*\bvariant=(\S+)', text, re.M)
    k = (re.search(r'^# kernel: .*\((\S+)\)\s*$', text, re.M) or
         re.search(r'COWTEST-BOOT kernel=(\S+)', text))
    a = re.search(r'^# cow-policy run .*\baccel=(\S+)', text, re.M)
    return (v.group(1) if v else os.path.basename(path).split('-')[0],
            k.group(1) if k else '', a.group(1) if a else '')


def kernel_line(release):
    """The kernel line of a release: '6.1.192+' -> '6.1'; '' when unknown."""
    m = re.match(r'^(\d+\.\d+)', release or '')
    return m.group(1) if m else ''


def atomic_write(path, text, mode=0o644):
    """Write TEXT to PATH through a temporary file in its directory and a
    rename: a reader sees the old file or the new one, never a part."""
    d = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(d, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=d, prefix='.' + os.path.basename(path) + '.')
    except OSError as e:
        raise BadInput('cannot write %s: %s' % (path, e.strerror))
    try:
        with os.fdopen(fd, 'w', encoding='utf-8') as f:
            f.write(text)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def fmt_num(x):
    """A figure as the bench report prints it: 3 significant digits or so."""
    if x is None or x != x:
        return '-'
    if abs(x) >= 100:
        return '%.0f' % x
    if abs(x) >= 10:
        return '%.1f' % x
    return '%.2f' % x
