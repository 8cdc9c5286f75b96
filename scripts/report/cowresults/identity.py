"""cowresults.identity: who a patch of the series says wrote and signed it.

The committed patch files (patches/<line>/) carry one neutral identity for
the project's own patches, NEUTRAL, in From: and Signed-off-by:. A
backport (a patch whose message has the line "commit <40 hex> upstream.",
the stable kernel's convention) carries its upstream author in From: and
the upstream trailers unchanged; the backporter's note ("[ cow-policy:
... ]") and sign-off (NEUTRAL) follow them.

make rfc (scripts/report/rfc.py, for_sender) gives a series to a sender:
NEUTRAL becomes the sender in From: and Signed-off-by:, a backport keeps
its author and gets the sender's sign-off under its trailers, and an
entry the series adds to MAINTAINERS gets the sender as its M: line. No
other identity is touched; one that is itself a placeholder
(placeholder()) is refused, as is a sender that is one.

make export (scripts/build/export.sh, for_commit) does the reverse for
the exporter's identity: patches written from the tree keep NEUTRAL.

  python3 identity.py export --ident "Name <addr>" FILE...
      rewrites each format-patch FILE in place for the committed series
      (the exporter's identity, when given, becomes NEUTRAL)
"""
import email.errors
import email.header
import email.utils
import re
import sys

NEUTRAL = 'cow-policy developers <cow-policy@example.org>'
NEUTRAL_ADDR = 'cow-policy@example.org'

UPSTREAM = re.compile(r'^commit ([0-9a-f]{40}) upstream\.$')
# The identity trailers of a commit message: "Signed-off-by: Name <addr>".
BY = re.compile(r'^([A-Za-z][A-Za-z-]*-by):[ \t]*(.*)$')
HUNK = re.compile(r'^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$')
MAINT_FIELD = re.compile(r'^[A-Z]:\t')


class IdentityError(Exception):
    """An identity a series may not be sent or committed with: one line."""


def decode(value):
    """A header value as text (RFC 2047 words decoded, folding undone)."""
    value = re.sub(r'\s*\n\s+', ' ', str(value or '')).strip()
    try:
        return str(email.header.make_header(email.header.decode_header(value)))
    except (UnicodeDecodeError, LookupError, email.errors.HeaderParseError):
        return value


def parse(ident):
    """(name, addr) of "Name <addr>" (addr lowercased for comparing is the
    caller's business); ('', '') for nothing."""
    name, addr = email.utils.parseaddr(ident or '')
    return name.strip(), addr.strip()


def fmt(name, addr):
    return '%s <%s>' % (name, addr) if name else addr


def same(a, b):
    """Two identities name the same address."""
    return parse(a)[1].lower() == parse(b)[1].lower() != ''


def placeholder(addr):
    """Why ADDR cannot be a real person's address, or None: the reserved
    example domains (RFC 2606, RFC 6761), localhost, noreply addresses."""
    addr = (addr or '').strip().lower()
    if '@' not in addr:
        return 'no address' if not addr else 'no domain in %s' % addr
    local, _, dom = addr.rpartition('@')
    dom = dom.rstrip('.')
    labels = dom.split('.')
    why = []
    if dom in ('example.org', 'example.com', 'example.net') or \
            dom.endswith(('.example.org', '.example.com', '.example.net')):
        why.append('an example domain (%s)' % '.'.join(labels[-2:]))
    for tld in ('example', 'invalid', 'test', 'localhost'):
        if labels[-1] == tld:
            why.append('a .%s domain' % tld if len(labels) > 1 else 'the domain %s' % tld)
    if dom == 'localdomain' or dom.endswith('.localdomain'):
        why.append('a localdomain address')
    if any(re.fullmatch(r'no-?reply', p) for p in [local] + labels) or \
            re.search(r'(^|[^a-z])no-?reply([^a-z]|$)', local):
        why.append('a noreply address')
    return ' and '.join(why) or None


def sender_problem(ident):
    """Why IDENT may not sign a series sent out, or None."""
    name, addr = parse(ident)
    if '@' not in addr:
        return 'no address'
    if not name:
        return 'no name'
    return placeholder(addr)


# ---- one format-patch file ------------------------------------------------

def split(text):
    """(head, message lines, rest) of a format-patch file: the header lines
    up to the blank line, the commit message (up to the "---" line, without
    it), and the rest from the "---" line on ('' without one)."""
    head, _, body = text.partition('\n\n')
    lines = body.split('\n')
    for i, l in enumerate(lines):
        if l == '---':
            return head, lines[:i], '\n'.join(lines[i:])
    return head, lines, ''


def join(head, msg, rest):
    return head + '\n\n' + '\n'.join(msg) + ('\n' + rest if rest else '')


def header_from(head):
    """(index of the From: header line, its decoded value) in HEAD's lines."""
    lines = head.split('\n')
    for i, l in enumerate(lines):
        if l.startswith('From:'):
            val = l[5:]
            j = i + 1
            while j < len(lines) and lines[j][:1] in (' ', '\t'):
                val += '\n' + lines[j]
                j += 1
            return i, j, decode(val)
    return None, None, ''


def set_header_from(head, ident):
    lines = head.split('\n')
    i, j, _ = header_from(head)
    if i is None:
        return head
    name, addr = parse(ident)
    try:
        name.encode('ascii')
        val = fmt(name, addr)
    except UnicodeEncodeError:
        val = email.utils.formataddr((name, addr), charset='utf-8')
    return '\n'.join(lines[:i] + ['From: ' + val] + lines[j:])


def upstream_commit(msg):
    """The upstream sha a backport's message names, or None."""
    for l in msg:
        m = UPSTREAM.match(l.strip())
        if m:
            return m.group(1)
    return None


def in_body_from(msg):
    """(index, identity) of an in-body "From:" line opening the message."""
    i = 0
    while i < len(msg) and not msg[i].strip():
        i += 1
    if i < len(msg) and msg[i].startswith('From: '):
        return i, msg[i][6:].strip()
    return None, ''


def _trailer_block_end(msg):
    end = len(msg)
    while end and not msg[end - 1].strip():
        end -= 1
    return end


def add_signoff(msg, ident):
    """MSG with "Signed-off-by: IDENT" under its last line unless a
    Signed-off-by of IDENT's address is there already."""
    for l in msg:
        m = BY.match(l)
        if m and m.group(1).lower() == 'signed-off-by' and same(m.group(2), ident):
            return msg
    end = _trailer_block_end(msg)
    last = msg[end - 1] if end else ''
    sep = [] if (BY.match(last) or re.match(r'^[A-Za-z-]+:\s', last) or last.startswith('[')) else ['']
    return msg[:end] + sep + ['Signed-off-by: ' + ident] + msg[end:]


def for_sender(name, text, ident):
    """The format-patch TEXT (file NAME) as IDENT sends it: (text, author,
    upstream sha or None). IdentityError when an identity in it is a
    placeholder that is not NEUTRAL."""
    head, msg, rest = split(text)
    _, _, author = header_from(head)
    sha = upstream_commit(msg)
    if same(author, NEUTRAL):
        if sha:
            raise IdentityError('%s: a backport of %s whose From: is the neutral %s: give it the '
                                'upstream author' % (name, sha[:12], NEUTRAL))
        author = ident
    elif placeholder(parse(author)[1]):
        raise IdentityError('%s: From: %s is a placeholder identity (%s): give the patch its real '
                            'author, or the neutral %s for the project\'s own'
                            % (name, author, placeholder(parse(author)[1]), NEUTRAL))
    out, seen = [], set()
    for l in msg:
        m = BY.match(l)
        if m:
            who = m.group(2).strip()
            if same(who, NEUTRAL):
                l = '%s: %s' % (m.group(1), ident)
            elif placeholder(parse(who)[1]):
                raise IdentityError('%s: "%s" is a placeholder identity (%s)'
                                    % (name, l.strip(), placeholder(parse(who)[1])))
            if l in seen and same(l.split(':', 1)[1], ident):
                continue            # NEUTRAL twice: the sender once
            seen.add(l)
        out.append(l)
    out = add_signoff(out, ident)
    return join(set_header_from(head, ident), out, rest), author, sha


def for_commit(text, exporter=''):
    """The format-patch TEXT written from the tree as the committed series
    keeps it: the exporter's identity (EXPORTER, "Name <addr>") becomes
    NEUTRAL in From: (not a backport's) and in Signed-off-by: (in a
    backport only after its upstream trailers, i.e. after the backporter's
    "[ ... ]" note, or the message's last line without one)."""
    if not exporter or not parse(exporter)[1]:
        return text
    head, msg, rest = split(text)
    sha = upstream_commit(msg)
    _, _, author = header_from(head)
    if not sha and same(author, exporter):
        head = set_header_from(head, NEUTRAL)
    first = 0
    if sha:
        notes = [i for i, l in enumerate(msg) if l.startswith('[ ')]
        first = notes[-1] + 1 if notes else max(_trailer_block_end(msg) - 1, 0)
    out = []
    for i, l in enumerate(msg):
        m = BY.match(l)
        if i >= first and m and m.group(1).lower() == 'signed-off-by' and same(m.group(2), exporter):
            l = 'Signed-off-by: ' + NEUTRAL
        out.append(l)
    return join(head, out, rest)


# ---- MAINTAINERS ------------------------------------------------------------

def _file_sections(rest):
    """[(start, end)] line ranges of REST's per-file diffs."""
    lines = rest.split('\n')
    starts = [i for i, l in enumerate(lines) if l.startswith('diff --git ')]
    return lines, [(s, (starts[k + 1] if k + 1 < len(starts) else len(lines))) for k, s in enumerate(starts)]


def added_entries(texts):
    """The titles of the MAINTAINERS entries the series adds: an added line
    that is no field, followed by added field lines ("+L:\t...")."""
    titles = []
    for text in texts:
        _, _, rest = split(text)
        lines, secs = _file_sections(rest)
        for s, e in secs:
            if lines[s] != 'diff --git a/MAINTAINERS b/MAINTAINERS':
                continue
            for i in range(s, e - 1):
                l, nxt = lines[i], lines[i + 1]
                if (l.startswith('+') and not l.startswith('+++') and l[1:].strip() and
                        not MAINT_FIELD.match(l[1:]) and nxt.startswith('+') and MAINT_FIELD.match(nxt[1:])):
                    titles.append(l[1:])
    return titles


def add_maintainer(text, titles, ident):
    """TEXT with "M:\tIDENT" under each of TITLES its MAINTAINERS diff shows
    (an added line where the title is added, a context line where it is
    context), the hunk headers and the diffstat counted again: (text,
    number of lines added)."""
    head, msg, rest = split(text)
    lines, secs = _file_sections(rest)
    added = 0
    for s, e in reversed(secs):
        if lines[s] != 'diff --git a/MAINTAINERS b/MAINTAINERS':
            continue
        sec = lines[s:e]
        hunks = [i for i, l in enumerate(sec) if HUNK.match(l)]
        shift_old = shift_new = 0
        out = sec[:hunks[0]] if hunks else sec
        for k, h in enumerate(hunks):
            body = sec[h + 1:(hunks[k + 1] if k + 1 < len(hunks) else len(sec))]
            m = HUNK.match(sec[h])
            os_, oc = int(m.group(1)), int(m.group(2) if m.group(2) is not None else 1)
            ns, nc = int(m.group(3)), int(m.group(4) if m.group(4) is not None else 1)
            os_, ns = os_ + shift_old, ns + shift_new
            nb = []
            for j, l in enumerate(body):
                nb.append(l)
                if l[:1] in ('+', ' ') and l[1:] in titles:
                    nxt = body[j + 1] if j + 1 < len(body) else ''
                    if nxt[:1] in ('+', ' ') and nxt[1:].startswith('M:\t') and same(nxt[4:], ident):
                        continue
                    nb.append(l[0] + 'M:\t' + ident)
                    if l[0] == '+':
                        nc += 1
                        shift_new += 1
                        added += 1
                    else:
                        oc += 1
                        nc += 1
                        shift_old += 1
                        shift_new += 1
            out.append('@@ -%d,%d +%d,%d @@%s' % (os_, oc, ns, nc, m.group(5)))
            out += nb
        lines[s:e] = out
    rest = '\n'.join(lines)
    if added:
        rest = _restat(rest, 'MAINTAINERS', added)
    return join(head, msg, rest), added


def _restat(rest, path, n):
    """REST with N more insertions for PATH in its diffstat."""
    lines = rest.split('\n')
    for i, l in enumerate(lines):
        if l.startswith('diff --git '):
            break
        m = re.match(r'^( %s\s*\|)(\s*)(\d+) (\+*)(-*)$' % re.escape(path), l)
        if m:
            old = int(m.group(3))
            field = str(old + n).rjust(len(m.group(2)) + len(m.group(3)))
            plus = m.group(4) + ('+' * n if len(m.group(4)) + len(m.group(5)) == old else '')
            lines[i] = '%s%s %s%s' % (m.group(1), field, plus, m.group(5))
            continue
        m = re.match(r'^( \d+ files? changed, )(\d+) insertions?\(\+\)(.*)$', l)
        if m:
            k = int(m.group(2)) + n
            lines[i] = '%s%d insertion%s(+)%s' % (m.group(1), k, '' if k == 1 else 's', m.group(3))
    return '\n'.join(lines)


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description='identities of the series\' patch files')
    sub = ap.add_subparsers(dest='cmd', required=True)
    ex = sub.add_parser('export', help='rewrite format-patch files in place as the committed series keeps them')
    ex.add_argument('--ident', default='', help='the exporter\'s identity, "Name <addr>"')
    ex.add_argument('files', nargs='+')
    a = ap.parse_args(argv)
    for f in a.files:
        with open(f, encoding='utf-8') as fh:
            text = fh.read()
        new = for_commit(text, a.ident)
        if new != text:
            with open(f, 'w', encoding='utf-8') as fh:
                fh.write(new)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
