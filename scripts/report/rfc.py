#!/usr/bin/env python3
"""scripts/report/rfc.py: the series as an RFC to linux-mm (make rfc).

  rfc.py [--patches DIR] [--digests DIR] [--out DIR] [--from "Name <addr>"]
         [--base VERSION] [--to ADDR] [--cc ADDR]... [--intro FILE] [--line 6.1|6.12]

Writes OUT (default build/rfc/) as git format-patch --cover-letter --rfc
would: 0000-cover-letter.patch and one file per patch of DIR/series
(default patches/<line>/, --line: 6.1), each an mbox message whose subject says "[RFC PATCH
n/N]". The patches are DIR's own format-patch files, so no kernel tree
is needed: their subjects get "RFC", their From: becomes the sender
(--from, else $FROM, else git config user.name and user.email of this
repository; an author other than the sender is kept as the first line of
the body, as format-patch --from does). The committed patches carry the
project's neutral identity (cowresults.identity.NEUTRAL); it becomes the
sender in From: and Signed-off-by:, and the MAINTAINERS entry the series
adds gets the sender as its M: line. A backport ("commit <sha>
upstream." in its message) keeps its upstream author and trailers and
gets the sender's sign-off under them. A sender without a name or with a
placeholder address (the example domains, .example, .invalid, .test,
localhost, noreply) is refused, as is a patch that names one. The cover
letter, after the shape of an mm series' cover letter:

  the problem and the models      docs/rfc-cover.txt (its first line is the
                                  subject), people write it
  the patch organisation          one line per patch, from the series and
                                  the subjects
  Findings, Performance           the Findings of the results model (the
                                  committed digests/, cowresults.findings),
                                  with the machine, the method and the
                                  sign convention
  Base:                           the Debian linux-source-<line> version the
                                  series applies to (--base, the Makefile's
                                  TESTED_DEBIAN_VERSION)
  shortlog, diffstat              from the patches

OUT is replaced whole, through a temporary directory; bad input: one
error line, exit 2, OUT as it was.
"""
import argparse
import email
import email.policy
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cowresults import findings as findmod  # noqa: E402
from cowresults import identity  # noqa: E402
from cowresults import series as seriesmod  # noqa: E402
from cowresults import store  # noqa: E402
from cowresults.util import BadInput  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUBJ = re.compile(r'^\[PATCH(?: (\d+)/(\d+))?\]\s*')


def sender(arg):
    """The sender's "Name <addr>": ARG (--from), else $FROM, else git config
    user.name and user.email of this repository. BadInput, one line naming
    what to set, for a missing or placeholder identity."""
    s, where = arg, 'FROM'
    if not s and os.environ.get('FROM', ''):
        s = os.environ['FROM']
    if not s:
        def cfg(k):
            r = subprocess.run(['git', '-C', TOP, 'config', k], capture_output=True, text=True)
            return r.stdout.strip()
        name, addr = cfg('user.name'), cfg('user.email')
        where = 'git config user.name/user.email'
        if not name and not addr:
            raise BadInput('no sender: set FROM="Your Name <you@your.domain>" (make rfc FROM=...) '
                           'or git config user.name and user.email')
        s = identity.fmt(name, addr) if addr else name
    why = identity.sender_problem(s)
    if why:
        raise BadInput('refusing to sign the series as %r (from %s): %s; set FROM="Your Name '
                       '<you@your.domain>" (make rfc FROM=...) or git config user.name and '
                       'user.email to your real identity' % (s, where, why))
    name, addr = identity.parse(s)
    return identity.fmt(name, addr)


def read_patches(pdir):
    """[(file name, text, message)] of DIR/series' patches, in order."""
    try:
        listed = seriesmod.listed(open(os.path.join(pdir, 'series'), encoding='utf-8').read())
    except OSError as e:
        raise BadInput('%s/series: %s' % (pdir, e.strerror))
    if not listed:
        raise BadInput('%s/series lists no patch' % pdir)
    out = []
    for n in listed:
        try:
            text = open(os.path.join(pdir, n), encoding='utf-8').read()
        except OSError as e:
            raise BadInput('%s/%s: %s' % (pdir, n, e.strerror))
        if not text.startswith('From ') or '\ndiff --git ' not in text:
            raise BadInput('%s/%s: not a git format-patch file (no "From " line or no diff)' % (pdir, n))
        msg = email.message_from_string(text)
        if not msg['Subject'] or not msg['From']:
            raise BadInput('%s/%s: no Subject: or From: header' % (pdir, n))
        out.append((n, text, msg))
    return out


def subject_of(msg):
    s = re.sub(r'\s+', ' ', str(msg['Subject'])).strip()
    return SUBJ.sub('', s)


def rfc_subject(i, n, subj):
    w = len(str(n))
    return '[RFC PATCH %0*d/%d] %s' % (w, i, n, subj)


def rewrite(name, text, msg, i, n, frm, titles):
    """The patch TEXT (file NAME) as patch I of N of the RFC from FRM:
    (text, its author)."""
    try:
        text, author, _ = identity.for_sender(name, text, frm)
    except identity.IdentityError as e:
        raise BadInput(str(e))
    text, _ = identity.add_maintainer(text, titles, frm)
    head, sep, body = text.partition('\n\n')
    lines = head.split('\n')
    out, skip = [], False
    for l in lines:
        if skip and l[:1] in (' ', '\t'):
            continue
        skip = False
        if l.startswith('Subject:'):
            out.append('Subject: %s' % rfc_subject(i, n, subject_of(msg)))
            skip = True
        else:
            out.append(l)
    if not identity.same(author, frm):
        body = 'From: %s\n\n%s' % (author, body)
    return '\n'.join(out) + sep + body, author


def numstat(texts):
    """{path: [added, removed]} over the patches (git apply --numstat reads
    patches only: no tree)."""
    tot = {}
    for t in texts:
        r = subprocess.run(['git', 'apply', '--numstat', '-'], input=t, capture_output=True, text=True)
        if r.returncode:
            raise BadInput('git apply --numstat: %s' % r.stderr.strip().splitlines()[-1:])
        for line in r.stdout.splitlines():
            a, d, path = line.split('\t', 2)
            x = tot.setdefault(path, [0, 0])
            x[0] += int(a) if a.isdigit() else 0
            x[1] += int(d) if d.isdigit() else 0
    return tot


def diffstat(tot, width=72):
    if not tot:
        return []
    name_w = min(50, max(len(p) for p in tot))
    most = max(a + d for a, d in tot.values()) or 1
    bar_w = max(10, width - name_w - 10)
    out = []
    for p in sorted(tot):
        a, d = tot[p]
        shown = p if len(p) <= name_w else '...' + p[-(name_w - 3):]
        scale = min(1.0, bar_w / most)
        pa = max(1 if a else 0, int(round(a * scale)))
        pd = max(1 if d else 0, int(round(d * scale)))
        out.append(' %-*s | %4d %s%s' % (name_w, shown, a + d, '+' * pa, '-' * pd))
    A = sum(a for a, _ in tot.values())
    D = sum(d for _, d in tot.values())
    out.append(' %d files changed, %d insertions(+), %d deletions(-)' % (len(tot), A, D))
    return out


def wrap(s, width=72, indent='', more=''):
    return textwrap.wrap(s, width, initial_indent=indent, subsequent_indent=indent + more,
                         break_on_hyphens=False) or ['']


def machine(f):
    b = f.get('bench')
    if not b:
        return []
    how = b['data'].get('how', '')
    m = {k: re.search(r'\b%s ([^,]*(?:\([^)]*\))?[^,]*)' % k, how) for k in ('qemu', 'host_cpu', 'host_cpus', 'kconfig')}
    g = {k: (v.group(1).strip() if v else '?') for k, v in m.items()}
    return wrap('Machine: %s host CPUs (%s), %s; kernels built from %s; accelerator %s.' % (
        g['host_cpus'], g['host_cpu'], g['qemu'], b['data'].get('kconfig') or g['kconfig'], b['accel']))


def cover(patches, frm, base, intro, to, cc, f, date, line='6.1', authors_of=None):
    n = len(patches)
    lines = intro.rstrip('\n').split('\n')
    title, body = lines[0].strip(), lines[1:]
    L = ['From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001',
         'From: %s' % frm, 'Date: %s' % date,
         'Subject: %s' % rfc_subject(0, n, title), 'To: %s' % to]
    L += ['Cc: %s' % ', '.join(cc)] if cc else []
    L += ['MIME-Version: 1.0', 'Content-Type: text/plain; charset=UTF-8',
          'Content-Transfer-Encoding: 8bit', '']
    L += body + ['', 'The series', '==========', '']
    for i, (_, _, msg) in enumerate(patches, 1):
        L += wrap('#%d: %s' % (i, subject_of(msg)), 72, '', '    ')
    L += ['', 'Findings', '========', '']
    L += wrap('Every reproducer runs in a QEMU guest under each policy and reports what it '
              'observed; one judge on the host decides each cell against the expected outcome, '
              'which carries its reason (seed reproducer or commit). The table shows the shapes '
              'where the policies differ.')
    L += ['']
    txt = findmod.text(f)
    cut = txt.index('What it costs (Linux %s)' % f['line']) if 'What it costs (Linux %s)' % f['line'] in txt else len(txt)
    L += txt[:cut]
    L += ['Performance', '===========', '']
    L += machine(f)
    L += ['']
    L += wrap('Method: make bench boots each kernel several times, each boot with its own seed, '
              'and runs every benchmark in rounds; the policies are interleaved in one boot of '
              'the patched kernel. det mode runs QEMU with -icount shift=0, so a figure is a count '
              'of guest instructions per operation, not a time. Each boot contributes its median; '
              'a difference is tested across boots (an exact permutation test between the two '
              'kernels, its interval by inverting the test), with Holm\'s correction over the '
              'table. make bench-insn counts the instructions of the timed sections per kernel '
              'function with a QEMU plugin.')
    L += ['']
    L += wrap('Sign convention: delta = (policy - unpatched) / unpatched, in percent of the '
              'unpatched kernel\'s figure; positive is slower (more instructions).')
    L += ['']
    L += txt[cut:]
    L += wrap('Base: Debian linux-source-%s %s, the tree of the Debian source package (no '
              'upstream commit is its base).' % (line, base)) + ['']
    authors = {}
    for k, (_, _, msg) in enumerate(patches):
        who = authors_of[k] if authors_of else identity.decode(msg['From'])
        a = identity.parse(who)[0] or identity.parse(who)[1]
        authors.setdefault(a, []).append(subject_of(msg))
    for a, subs in authors.items():
        L += ['%s (%d):' % (a, len(subs))]
        for s in subs:
            L += wrap(s, 76, '  ', '  ')
        L += ['']
    L += diffstat(numstat([t for _, t, _ in patches]))
    L += ['', '-- ', 'cow-policy (make rfc)', '']
    return '\n'.join(L)


def main(argv):
    ap = argparse.ArgumentParser(description='the series as an RFC to linux-mm')
    ap.add_argument('--patches', default=None, help='the series (default patches/<line>/)')
    ap.add_argument('--digests', default=os.path.join(TOP, 'digests'))
    ap.add_argument('--out', default=os.path.join(TOP, 'build', 'rfc'))
    ap.add_argument('--from', dest='frm', default='')
    ap.add_argument('--base', default='')
    ap.add_argument('--to', default='linux-mm@kvack.org')
    ap.add_argument('--cc', action='append', default=[])
    ap.add_argument('--intro', default=os.path.join(TOP, 'docs', 'rfc-cover.txt'))
    ap.add_argument('--line', default='6.1')
    a = ap.parse_args(argv)
    try:
        if not a.base:
            raise BadInput('no --base: the Debian linux-source-%s version the series applies to ' % a.line +
                           '(TESTED_DEBIAN_VERSION in the Makefile)')
        frm = sender(a.frm)
        a.patches = a.patches or os.path.join(TOP, 'patches', a.line)
        patches = read_patches(a.patches)
        try:
            intro = open(a.intro, encoding='utf-8').read()
        except OSError as e:
            raise BadInput('%s: %s' % (a.intro, e.strerror))
        runs = store.load_all(a.digests)
        f = findmod.build(list(runs.values()), seriesmod.current(pdir=a.patches, line=a.line), a.line)
        date = str(patches[-1][2]['Date'] or 'Thu, 1 Jan 1970 00:00:00 +0000')
        n = len(patches)
        titles = identity.added_entries([t for _, t, _ in patches])
        sent, authors = [], []
        for i, (name, text, msg) in enumerate(patches, 1):
            t, author = rewrite(name, text, msg, i, n, frm, titles)
            sent.append((name, t, msg))
            authors.append(author)
        files = [('0000-cover-letter.patch', cover(sent, frm, a.base, intro, a.to, a.cc, f, date, a.line,
                                                   authors))]
        files += [(name, t) for name, t, _ in sent]
        # Each file must parse as one mbox message, and none may be signed
        # by a placeholder identity.
        for name, text in files:
            m = email.message_from_string(text, policy=email.policy.default)
            if not str(m['Subject'] or '').startswith('[RFC PATCH ') or not m['From']:
                raise BadInput('%s: the output is not a message with an RFC subject' % name)
            _, body, _ = identity.split(text)
            for l in ['From: ' + identity.decode(m['From'])] + body:
                who = l[6:] if l.startswith('From: ') else (identity.BY.match(l).group(2)
                                                          if identity.BY.match(l) else '')
                if who and identity.placeholder(identity.parse(who)[1]):
                    raise BadInput('%s: the output still names a placeholder identity: %s' % (name, l))
        out = os.path.abspath(a.out)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        tmp = tempfile.mkdtemp(dir=os.path.dirname(out), prefix='.rfc.')
        for name, text in files:
            with open(os.path.join(tmp, name), 'w', encoding='utf-8') as fh:
                fh.write(text)
        old = None
        if os.path.exists(out):
            old = out + '.old'
            shutil.rmtree(old, ignore_errors=True)
            os.rename(out, old)
        os.rename(tmp, out)
        if old:
            shutil.rmtree(old)
    except BadInput as e:
        print('rfc: error: %s' % e, file=sys.stderr)
        return 2
    print('rfc: %s: %d files (cover letter and %d patches), from %s, base Debian linux-source-%s %s'
          % (a.out, len(files), n, frm, a.line, a.base))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
