// SPDX-License-Identifier: GPL-2.0
/*
 * cow_decide: the decision each copy-on-write policy must make on simple
 * write faults, shown by memory contents and by the cow_* counters.
 *
 * Each scenario runs under the policy in force (the runner sets it) and is
 * checked against that policy's row of its expectation table: which
 * counters must move by exactly NPAGES (give or take a little noise from
 * the test's own stack), that no other decision was made, and what the
 * memory must contain afterwards.  On a kernel without CONFIG_COW_POLICY
 * only the "exclusive" row applies and pgreuse stands in for the counters.
 * "largefolio" (the 6.12 line with CONFIG_COW_POLICY_MM_ID) is judged by
 * the "exclusive" row: it is "exclusive" plus v6.15's rule for large
 * folios, and every scenario here is on 4 KiB pages (map_anon_ptes()).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cowtest.h"

#define NPAGES	64
#define SLACK	4
#define LEN	(NPAGES * PAGE_SIZE)

enum { EXCL, REFC, MAPC, NR_POL };
static const char *const pol_name[NR_POL] = { "exclusive", "refcount", "mapcount" };


/* What one policy must do in one scenario. */
struct expect {
	/* Counters that move by NPAGES each; NULL-terminated, may be empty. */
	const char *moves[4];
	/* What the observer (child or pipe) reads: 'o'ld or 'n'ew data. */
	char sees;
};

struct outcome {
	struct vmstat before, after;
	char sees;		/* 'o', 'n' or '?' (mixed) */
};

struct scenario {
	const char *name;
	const char *why;
	void (*run)(struct outcome *out);
	struct expect expect[NR_POL];
};

static char *area;

static void fill(char c)
{
	for (unsigned long i = 0; i < LEN; i += PAGE_SIZE)
		memset(area + i, c, PAGE_SIZE);
}

/* 'o' when every page holds old, 'n' when every page holds new, else '?'. */
static char classify(const char *buf, char old, char new)
{
	int o = 0, n = 0;

	for (unsigned long i = 0; i < LEN; i++) {
		o += buf[i] == old;
		n += buf[i] == new;
	}
	return o == (long)LEN ? 'o' : n == (long)LEN ? 'n' : '?';
}

/*
 * Fault in, privately, the stack and the buffers the measurement itself
 * uses, so that faults on them after a fork() do not count as decisions
 * of the scenario.
 */
static void warm(struct vmstat *snap)
{
	volatile char stack[32 * 1024];

	memset((char *)stack, 0, sizeof(stack));
	vmstat_read(snap);
	vmstat_read(snap);
}

static void map_area(void)
{
	area = map_anon_ptes(LEN, 'o');
}

static pid_t fork_child(int *go, int *done)
{
	int p1[2], p2[2];
	pid_t pid;
	char c;

	pid = fork_piped(p1, p2);
	if (!pid) {
		struct vmstat scratch;
		char c = 'r';

		/*
		 * Take our own COW faults (stack, libc) now, then say so: they
		 * must not land between the parent's snapshots.  Then wait for
		 * the parent's writes and report what we see.
		 */
		warm(&scratch);
		if (write(p2[1], &c, 1) != 1 || read(p1[0], &c, 1) != 1)
			_exit(3);
		c = classify(area, 'o', 'n');
		_exit(write(p2[1], &c, 1) == 1 ? 0 : 3);
	}
	close(p1[0]);
	close(p2[1]);
	*go = p1[1];
	*done = p2[0];
	if (read(*done, &c, 1) != 1)
		bail("child not ready");
	return pid;
}

/* fork(), the child keeps the pages mapped, the parent writes them. */
static void run_child_alive(struct outcome *out)
{
	int go, done;
	char c = '?';
	pid_t pid;

	map_area();
	pid = fork_child(&go, &done);
	warm(&out->before);
	fill('n');
	vmstat_read(&out->after);
	if (write(go, "x", 1) != 1 || read(done, &c, 1) != 1)
		c = '?';
	waitpid(pid, NULL, 0);
	out->sees = c;
	munmap(area, LEN);
}

/* fork(), the child exits at once, then the parent writes. */
static void run_child_exited(struct outcome *out)
{
	map_area();
	fork_exit_child();
	warm(&out->before);
	fill('n');
	vmstat_read(&out->after);
	out->sees = classify(area, 'o', 'n');
	munmap(area, LEN);
}

static int splice_area(void)
{
	struct iovec iov = { .iov_base = area, .iov_len = LEN };
	int p[2];

	if (pipe(p))
		bail("pipe");
	if (fcntl(p[1], F_SETPIPE_SZ, (int)LEN) < (int)LEN)
		bail("F_SETPIPE_SZ");
	if (vmsplice(p[1], &iov, 1, 0) != (ssize_t)LEN)
		bail("vmsplice");
	close(p[1]);
	return p[0];
}

static char drain_pipe(int fd)
{
	static char buf[LEN];
	size_t got = 0;
	ssize_t len;

	while (got < LEN && (len = read(fd, buf + got, LEN - got)) > 0)
		got += len;
	close(fd);
	return got == LEN ? classify(buf, 'o', 'n') : '?';
}

/*
 * A transient GUP reference (vmsplice into a pipe) on pages mapped once but
 * not exclusive (the child has exited), then the parent writes: the pipe
 * shows whether the page was reused (new data) or copied (old data).
 */
static void run_gup_ref_exited(struct outcome *out)
{
	int fd;

	map_area();
	fork_exit_child();
	warm(&out->before);
	fd = splice_area();
	fill('n');
	vmstat_read(&out->after);
	out->sees = drain_pipe(fd);
	munmap(area, LEN);
}

/*
 * Exclusive pages with a GUP reference, mprotect() read-only and back: the
 * exclusive rule maps them writable again without a fault (v6.0's
 * 64fe24a3e05e), the refcount rule takes a fault and copies, the mapcount
 * rule takes the fault v5.11 took and reuses.
 */
static void run_mprotect_ref(struct outcome *out)
{
	int fd;

	map_area();
	warm(&out->before);
	fd = splice_area();
	if (mprotect(area, LEN, PROT_READ) ||
	    mprotect(area, LEN, PROT_READ | PROT_WRITE))
		bail("mprotect");
	fill('n');
	vmstat_read(&out->after);
	out->sees = drain_pipe(fd);
	munmap(area, LEN);
}

/* The same without a reference: refcount reuses after a fault. */
static void run_mprotect(struct outcome *out)
{
	map_area();
	warm(&out->before);
	if (mprotect(area, LEN, PROT_READ) ||
	    mprotect(area, LEN, PROT_READ | PROT_WRITE))
		bail("mprotect");
	fill('n');
	vmstat_read(&out->after);
	out->sees = classify(area, 'o', 'n');
	munmap(area, LEN);
}

static const struct scenario scenarios[] = {
	{ "fork-child-alive", "a page mapped twice is copied by every rule; 6.1's rule counts it by its references",
	  run_child_alive, {
		[EXCL] = { { "cow_copy_refcount" }, 'o' },
		[REFC] = { { "cow_copy_mapcount" }, 'o' },
		[MAPC] = { { "cow_copy_mapcount" }, 'o' } } },
	{ "fork-child-exited", "the last mapping reuses: 6.1 by its refcount fallback",
	  run_child_exited, {
		[EXCL] = { { "cow_reuse_refcount" }, 'n' },
		[REFC] = { { "cow_reuse_refcount" }, 'n' },
		[MAPC] = { { "cow_reuse_mapcount" }, 'n' } } },
	{ "gup-ref-after-fork", "a transient GUP reference: refcount copies, mapcount breaks COW in GUP then reuses",
	  run_gup_ref_exited, {
		[EXCL] = { { "cow_copy_refcount" }, 'o' },
		[REFC] = { { "cow_copy_refcount" }, 'o' },
		[MAPC] = { { "cow_gup_break", "cow_reuse_mapcount", "cow_reuse_exclusive" }, 'n' } } },
	{ "mprotect-with-ref", "6.1 maps exclusive pages writable without a fault; refcount copies, mapcount faults and reuses",
	  run_mprotect_ref, {
		[EXCL] = { { NULL }, 'n' },
		[REFC] = { { "cow_copy_refcount" }, 'o' },
		[MAPC] = { { "cow_reuse_exclusive" }, 'n' } } },
	{ "mprotect", "without a reference refcount and mapcount fault and reuse",
	  run_mprotect, {
		[EXCL] = { { NULL }, 'n' },
		[REFC] = { { "cow_reuse_refcount" }, 'n' },
		[MAPC] = { { "cow_reuse_exclusive" }, 'n' } } },
};

#define NR_SCENARIOS (int)(sizeof(scenarios) / sizeof(scenarios[0]))

static bool in_list(const char *const *list, const char *name)
{
	for (; *list; list++)
		if (!strcmp(*list, name))
			return true;
	return false;
}

static void check(const struct scenario *s, const struct expect *e,
		  const struct outcome *o, bool counters)
{
	long long decided = 0, expected = 0;
	bool ok;

	tap_result(o->sees == e->sees, "%s: observer sees %s data (%s)", s->name,
		   e->sees == 'o' ? "old" : "new",
		   o->sees == 'o' ? "old" : o->sees == 'n' ? "new" : "mixed");

	if (!counters) {
		/* No cow_* counters: pgreuse tells reuse from copy. */
		long long reuse = vmstat_delta(&o->before, &o->after, "pgreuse");
		bool want = e->moves[0] && strstr(e->moves[0], "reuse");

		tap_result(want ? reuse >= NPAGES : reuse <= SLACK,
			   "%s: pgreuse moved by %lld", s->name, reuse);
		return;
	}

	for (int i = 0; e->moves[i]; i++) {
		long long d = vmstat_delta(&o->before, &o->after, e->moves[i]);

		tap_result(d >= NPAGES && d <= NPAGES + SLACK,
			   "%s: %s moved by %lld (want %d)", s->name,
			   e->moves[i], d, NPAGES);
		if (strcmp(e->moves[i], "cow_gup_break"))
			expected += NPAGES;
	}
	for (int i = 0; cow_decision_counters[i]; i++) {
		long long d = vmstat_delta(&o->before, &o->after, cow_decision_counters[i]);

		decided += d;
		if (d && !in_list(e->moves, cow_decision_counters[i]))
			tap_diag("%s: also %s +%lld", s->name, cow_decision_counters[i], d);
	}
	ok = decided >= expected && decided <= expected + SLACK;
	tap_result(ok, "%s: %lld decisions in all (want %lld)", s->name, decided,
		   expected);
}

int main(void)
{
	const char *now = cow_policy_now();
	struct vmstat probe;
	bool counters;
	int pol, planned = 0;

	for (pol = 0; pol < NR_POL; pol++)
		if (!strcmp(now, pol_name[pol]))
			break;
	/*
	 * "largefolio" has no row of its own: on small folios it decides as
	 * "exclusive" does (patches/6.12/0014 differs only for a page of a
	 * large folio that is not exclusive).
	 */
	if (pol == NR_POL && !strcmp(now, "largefolio"))
		pol = EXCL;
	if (pol == NR_POL)
		bail("unknown policy '%s'", now);
	vmstat_read(&probe);
	counters = vmstat_has(&probe, "cow_reuse_exclusive");

	/*
	 * Stay on one CPU: a new page sits in its CPU's LRU pagevec, holding
	 * a reference, until drained, and do_wp_page() can only drain the
	 * local one.  On another CPU the refcount rule (also 6.1's fallback
	 * for non-exclusive pages) sees that reference and copies.
	 */
	{
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(0, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			bail("sched_setaffinity");
	}

	for (int i = 0; i < NR_SCENARIOS; i++) {
		const struct expect *e = &scenarios[i].expect[pol];
		int moves = 0;

		while (e->moves[moves])
			moves++;
		planned += 1 + (counters ? moves + 1 : 1);
	}
	tap_plan(planned);
	tap_diag("policy %s (expectations of %s), %s counters, %d pages per scenario",
		 now, pol_name[pol], counters ? "cow_*" : "no cow_* (pgreuse)", NPAGES);

	for (int i = 0; i < NR_SCENARIOS; i++) {
		static struct outcome out;

		tap_diag("%s: %s", scenarios[i].name, scenarios[i].why);
		memset(&out, 0, sizeof(out));
		scenarios[i].run(&out);
		check(&scenarios[i], &scenarios[i].expect[pol], &out, counters);
	}
	return tap_exit();
}
