#!/usr/bin/env python3
"""tests/host/rfc/check.py: whom make rfc and make export sign the series as
(make check). Each case prints "ok - WHAT" or "not ok - WHAT: why"; exit 1
on any failure. Each check is also run on input it must refuse (the
committed patches themselves, or an output spoiled on purpose), so every
case is shown able to fail.

  patches/   a made-up four-patch series: 0001 and 0003 the project's own
             (the neutral identity; 0001 adds a MAINTAINERS entry, 0003
             adds to it with the entry's title as context), 0002 and 0004
             backports ("commit <sha> upstream.", an upstream author and
             trailers; 0002 with the backporter's note and neutral
             sign-off, 0004 without either)
  tree/      the files the series applies to (git am)
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, '..', '..', '..'))
RFC = os.path.join(TOP, 'scripts', 'report', 'rfc.py')
IDENT = os.path.join(TOP, 'scripts', 'report', 'cowresults', 'identity.py')
PATCHES = os.path.join(HERE, 'patches')
SENDER = 'Jane Doe <jane@kernel.org>'
NEUTRAL = 'cow-policy developers <cow-policy@example.org>'
UPSTREAM_AUTHOR = 'Ada Upstream <ada.upstream@kernel.org>'
SEED = 'Seed 480e1e1f maintainers <maintainers@users.noreply.a-seed-480e1e1f.example>'
TITLE = 'MEMORY MANAGEMENT - DEMO POLICY'
failed = 0


def result(ok, what, why=''):
    global failed
    print(('ok - %s' % what) if ok else ('not ok - %s: %s' % (what, why)))
    if not ok:
        failed += 1


def run(cmd, env=None, cwd=None):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd)
    return p.returncode, p.stdout + p.stderr


def git_env(name=None, email=None):
    """The environment with FROM unset and, when given, git config
    user.name/user.email forced (GIT_CONFIG_COUNT outranks every config
    file; '' makes them empty)."""
    env = {k: v for k, v in os.environ.items() if k != 'FROM' and not k.startswith('GIT_CONFIG_')}
    if name is not None:
        env.update(GIT_CONFIG_COUNT='2', GIT_CONFIG_KEY_0='user.name', GIT_CONFIG_VALUE_0=name,
                   GIT_CONFIG_KEY_1='user.email', GIT_CONFIG_VALUE_1=email)
    return env


def rfc(out, frm=None, env=None, patches=PATCHES):
    cmd = [sys.executable, RFC, '--patches', patches, '--out', out, '--base', '6.1.192-3']
    if frm is not None:
        cmd += ['--from', frm]
    return run(cmd, env=env if env is not None else git_env())


def read_dir(d):
    names = sorted(f for f in os.listdir(d) if f.endswith('.patch'))
    return {n: open(os.path.join(d, n), encoding='utf-8').read() for n in names}


def msg_of(text):
    """(header From:, message lines) of a format-patch text."""
    head, _, body = text.partition('\n\n')
    frm = next((l[6:] for l in head.split('\n') if l.startswith('From: ')), '')
    lines = body.split('\n')
    return frm, lines[:lines.index('---')] if '---' in lines else lines


def is_backport(text):
    return any(re.match(r'^commit [0-9a-f]{40} upstream\.$', l) for l in msg_of(text)[1])


def own_problems(files):
    """What is wrong with the project's own patches of FILES as SENDER
    sends them."""
    bad = []
    for n, t in files.items():
        if is_backport(t) or n.startswith('0000-'):
            continue
        frm, msg = msg_of(t)
        if frm != SENDER:
            bad.append('%s: From: %s' % (n, frm))
        if 'Signed-off-by: ' + SENDER not in msg:
            bad.append('%s: no "Signed-off-by: %s"' % (n, SENDER))
        if 'cow-policy@example.org' in t:
            bad.append('%s: still names cow-policy@example.org' % n)
        if any(l.startswith('From: ') for l in msg):
            bad.append('%s: an in-body From: line' % n)
    return bad


def backport_problems(files, inputs):
    """What is wrong with the backports of FILES: the sender in From:, the
    upstream author in the in-body From:, the upstream trailers of INPUTS
    unchanged and in order, the sender's sign-off last."""
    bad = []
    for n, t in files.items():
        if not is_backport(t):
            continue
        frm, msg = msg_of(t)
        _, imsg = msg_of(inputs[n])
        if frm != SENDER:
            bad.append('%s: From: %s' % (n, frm))
        if not msg or msg[0] != 'From: ' + UPSTREAM_AUTHOR:
            bad.append('%s: the in-body From: is %r' % (n, msg[0] if msg else ''))
        start = next(i for i, l in enumerate(imsg) if l.startswith('Link: '))
        upstream = [l for l in imsg[start:] if l.strip() and NEUTRAL not in l]
        body = [l for l in msg if l.strip()]
        pos = [body.index(l) if l in body else -1 for l in upstream]
        if -1 in pos or pos != list(range(pos[0], pos[0] + len(pos))):
            bad.append('%s: the upstream trailers are not there as they were' % n)
        if body[-1:] != ['Signed-off-by: ' + SENDER] or body.count('Signed-off-by: ' + SENDER) != 1:
            bad.append('%s: the last line is %r, not the sender\'s one sign-off' % (n, body[-1:]))
    return bad


def maintainers_problems(files):
    """The sender as the M: line of the entry the series adds: added in
    0001, context in 0003, 0001's diffstat counted again."""
    bad = []
    one = next(t for n, t in files.items() if n.startswith('0001-'))
    three = next(t for n, t in files.items() if n.startswith('0003-'))
    if '\n+%s\n+M:\t%s\n+L:' % (TITLE, SENDER) not in one:
        bad.append('0001: no "+M:\\t%s" under the added title' % SENDER)
    if ' MAINTAINERS      | 6 ++++++' not in one or ' 2 files changed, 8 insertions(+)' not in one:
        bad.append('0001: the diffstat does not count the M: line')
    if '\n %s\n M:\t%s\n+R:' % (TITLE, SENDER) not in three:
        bad.append('0003: no " M:\\t%s" context under the title' % SENDER)
    return bad


def am_problems(tree, patches):
    """git am PATCHES onto a copy of the canned tree at TREE: what is wrong
    with the result (the M: line, the authors)."""
    env = dict(git_env('c', 'c@kernel.org'), GIT_COMMITTER_DATE='Mon, 7 Dec 2026 08:00:00 +0000')
    shutil.copytree(os.path.join(HERE, 'tree'), tree)
    for c in (['git', 'init', '-q'], ['git', 'add', '-A'], ['git', 'commit', '-q', '-m', 'base']):
        run(c, env=env, cwd=tree)
    rc, o = run(['git', 'am', '-q'] + patches, env=env, cwd=tree)
    if rc:
        return ['git am: %s' % o.strip()[-200:]]
    bad = []
    m = open(os.path.join(tree, 'MAINTAINERS')).read()
    if '%s\nM:\t%s\nR:\t' % (TITLE, SENDER) not in m:
        bad.append('MAINTAINERS has no "M:\\t%s" under %s' % (SENDER, TITLE))
    _, log = run(['git', 'log', '--reverse', '--format=%an <%ae>', 'HEAD~4..'], env=env, cwd=tree)
    want = [SENDER, UPSTREAM_AUTHOR, SENDER, UPSTREAM_AUTHOR]
    if log.splitlines() != want:
        bad.append('authors %s, not %s' % (log.splitlines(), want))
    return bad


def main():
    tmp = tempfile.mkdtemp(prefix='rfc-check.')
    try:
        cases(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failed else 0


def refused(tmp, what, frm=None, env=None, want=()):
    """make rfc is refused, with one line naming what to set, and leaves
    its output directory as it was."""
    out = os.path.join(tmp, 'out')
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    open(os.path.join(out, 'marker'), 'w').close()
    rc, o = rfc(out, frm, env)
    lines = o.strip().splitlines()
    why = []
    if rc == 0:
        why.append('exit 0')
    if len(lines) != 1 or not lines[0].startswith('rfc: error: '):
        why.append('output %r' % o.strip()[:200])
    for w in ('set FROM="', 'git config user.name and user.email') + tuple(want):
        if w not in o:
            why.append('no "%s" in the error' % w)
    if os.listdir(out) != ['marker']:
        why.append('the output directory changed: %s' % os.listdir(out))
    return why


def cases(tmp):
    # 1. A placeholder sender is refused, whichever way it is given; a real
    # one given the same ways is taken (the refusals are the identity's).
    placeholders = ['Jane Doe <jane@example.org>', 'Jane Doe <jane@example.com>', 'Jane Doe <jane@mail.example.net>',
                    'Jane Doe <jane@box.example>', 'Jane Doe <jane@host.invalid>', 'Jane Doe <jane@ci.test>',
                    'Jane Doe <jane@localhost>', 'Jane Doe <noreply@kernel.org>',
                    'Jane Doe <1234+jane@users.noreply.github.com>', 'jane@kernel.org', 'Jane Doe', NEUTRAL]
    why = []
    for p in placeholders:
        w = refused(tmp, p, frm=p)
        why += ['%s: %s' % (p, '; '.join(w))] if w else []
    result(not why, 'make rfc refuses a placeholder FROM= (%d: example domains, .example, .invalid, .test, '
           'localhost, noreply, no name, no address, the neutral identity), one error line, output untouched'
           % len(placeholders), ' | '.join(why))
    name, addr = SEED.split(' <')
    w = refused(tmp, 'seed', env=git_env(name, addr.rstrip('>')),
                want=('from git config user.name/user.email', 'noreply', '.example'))
    result(not w, 'make rfc refuses this machine\'s git identity (%s)' % SEED, '; '.join(w))
    w = refused(tmp, 'env', env=dict(git_env(), FROM='Jane Doe <jane@example.org>'), want=('from FROM',))
    result(not w, 'make rfc refuses a placeholder $FROM', '; '.join(w))
    w = refused(tmp, 'none', env=git_env('', ''), want=('no sender',))
    result(not w, 'make rfc refuses to run with no sender at all', '; '.join(w))
    why = []
    for what, frm, env in (('--from', SENDER, None), ('$FROM', None, dict(git_env(), FROM=SENDER)),
                           ('git config', None, git_env('Jane Doe', 'jane@kernel.org'))):
        out = os.path.join(tmp, 'ok')
        rc, o = rfc(out, frm, env)
        if rc or 'from %s,' % SENDER not in o:
            why.append('%s: exit %d: %s' % (what, rc, o.strip()[-200:]))
        shutil.rmtree(out, ignore_errors=True)
    result(not why, 'make rfc takes a real sender from FROM=, $FROM and git config', ' | '.join(why))

    # 2-4. The series as SENDER sends it.
    out = os.path.join(tmp, 'rfc')
    rc, o = rfc(out, SENDER)
    if rc:
        result(False, 'make rfc FROM="%s" on the canned series' % SENDER, o.strip()[-300:])
        return
    files, inputs = read_dir(out), read_dir(PATCHES)
    good, bad = own_problems(files), own_problems(inputs)
    result(not good and bad, 'make rfc FROM="%s": the project\'s own patches say From: and Signed-off-by: %s, '
           'the neutral identity is gone (the committed files: %d problems)' % (SENDER, SENDER, len(bad)),
           '; '.join(good) or 'the committed files pass the check')
    spoiled = dict(files)
    n2 = next(n for n in files if n.startswith('0002-'))
    spoiled[n2] = files[n2].replace('Signed-off-by: ' + UPSTREAM_AUTHOR, 'Signed-off-by: ' + SENDER)
    good, bad, bad2 = backport_problems(files, inputs), backport_problems(spoiled, inputs), \
        backport_problems(inputs, inputs)
    result(not good and bad and bad2, 'make rfc: the backports keep their upstream author (in-body From:) and '
           'trailers in order, the sender signs last, once (0004 had no backporter\'s sign-off)',
           '; '.join(good) or 'a spoiled or the committed series passes the check')
    good, bad = maintainers_problems(files), maintainers_problems(inputs)
    result(not good and len(bad) == 3, 'make rfc: the MAINTAINERS entry the series adds gets "M:\\t%s" (added in '
           '0001, context in 0003, the diffstat counted again)' % SENDER, '; '.join(good) or
           'the committed files pass %d of 3' % (3 - len(bad)))
    sent = [os.path.join(out, n) for n in sorted(files) if not n.startswith('0000-')]
    good = am_problems(os.path.join(tmp, 'tree'), sent)
    bad = am_problems(os.path.join(tmp, 'tree-committed'),
                      [os.path.join(PATCHES, n) for n in sorted(inputs)])
    result(not good and bad, 'make rfc: git am applies its patches to the canned tree: M: %s under the entry, '
           'authors the sender and the upstream author' % SENDER, '; '.join(good) or
           'the committed series passes the check')

    # 5. The Makefile's target: FROM= and the line's real series.
    env = git_env()
    out = os.path.join(tmp, 'make-rfc')
    rc, o = run(['make', '-s', '-C', TOP, 'rfc', 'FROM=' + SEED, 'RFC_DIR=' + out], env=env)
    lines = [l for l in o.splitlines() if l.startswith('rfc: ')]
    ok1 = rc != 0 and len(lines) == 1 and lines[0].startswith('rfc: error: refusing') and not os.path.exists(out)
    why = [] if ok1 else ['FROM=seed: exit %d: %s' % (rc, o.strip()[-200:])]
    for line in ('6.1', '6.12'):
        rc, o = run(['make', '-s', '-C', TOP, 'rfc', 'KERNEL=' + line, 'FROM=' + SENDER, 'RFC_DIR=' + out], env=env)
        if rc:
            why.append('%s: exit %d: %s' % (line, rc, o.strip()[-200:]))
            continue
        f = read_dir(out)
        probs = own_problems(f)
        one = next(t for n, t in f.items() if n.startswith('0001-'))
        if not re.search(r'\n\+MEMORY MANAGEMENT - COPY-ON-WRITE POLICY\n\+M:\t%s\n' % re.escape(SENDER), one):
            probs.append('0001: no M: line')
        for n, t in f.items():
            if is_backport(t) and (msg_of(t)[1][:1] == ['From: ' + SENDER] or 'example.org' in t):
                probs.append('%s: a backport signed or authored as a placeholder or the sender' % n)
        why += ['%s: %s' % (line, p) for p in probs]
        shutil.rmtree(out, ignore_errors=True)
    result(not why, 'make rfc FROM=...: refuses this machine\'s identity; on both lines\' series the project\'s '
           'patches are %s\'s, with the M: line' % SENDER, ' | '.join(why))

    # 6. make export's side: the exporter's identity becomes the neutral
    # one again, a backport's upstream author and trailers stay.
    d = os.path.join(tmp, 'export')
    os.makedirs(d)
    src = {n: t.replace(NEUTRAL, SENDER) for n, t in inputs.items()}
    for n, t in src.items():
        open(os.path.join(d, n), 'w').write(t)

    def exported_problems(files):
        bad = []
        for n, t in files.items():
            frm, msg = msg_of(t)
            want = UPSTREAM_AUTHOR if is_backport(t) else NEUTRAL
            if frm != want:
                bad.append('%s: From: %s' % (n, frm))
            if SENDER in t:
                bad.append('%s: still names %s' % (n, SENDER))
            if t != inputs[n]:
                bad.append('%s: differs from the committed file' % n)
        return bad
    rc, o = run([sys.executable, IDENT, 'export', '--ident', SENDER] + [os.path.join(d, n) for n in sorted(src)])
    good = ['exit %d: %s' % (rc, o.strip())] if rc else exported_problems(read_dir(d))
    for n, t in src.items():
        open(os.path.join(d, n), 'w').write(t)
    run([sys.executable, IDENT, 'export'] + [os.path.join(d, n) for n in sorted(src)])
    bad = exported_problems(read_dir(d))
    result(not good and bad, 'make export: patches the exporter (%s) wrote and signed in the tree are written '
           'back with the neutral identity, byte for byte the committed files' % SENDER,
           '; '.join(good) or 'without the exporter\'s identity the check still passes')


if __name__ == '__main__':
    sys.exit(main())
