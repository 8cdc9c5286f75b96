// SPDX-License-Identifier: GPL-2.0
/*
 * scn_flip: vm.cow_policy changed in the middle of a
 * scenario (sysctl-docs/cow_policy.rst, "Changing the policy": nothing that
 * exists is rewritten; the next fault is decided by the policy then).
 * The program starts under the policy the runner set (P), switches as
 * each case says and switches back to P afterwards.  Deterministic.
 *
 * flip-gupref-to-mapcount  the vmsplice scenario (scn_backings): the child
 *     takes its FOLL_GET reference under P, then the policy becomes
 *     "mapcount" before the parent writes.  A reference taken without a
 *     COW break (P = exclusive or refcount) still points to the page the
 *     mapcount rule reuses: documented leak.
 * flip-next-fault  two halves of one area, each with a FOLL_GET reference
 *     from a pipe (vmsplice): A was kept out of a fork (MADV_DONTFORK), so
 *     it is exclusive; B was shared with a child that has exited, so it is
 *     mapped once but not exclusive.  Under "refcount" the pages are
 *     spliced and an mprotect() R/O -> R/W round trip leaves them mapped
 *     R/O; back under P, the write faults are decided by P, and the
 *     outcome "<A>-<B>" (each reuse, copy or mixed) names P:
 *     exclusive reuse-copy, refcount copy-copy, mapcount reuse-reuse.
 * flip-ro-pin-refcount (pin profile)  a read-only long-term pin taken
 *     under "refcount" on a page shared with a live child does not
 *     unshare; after switching back to P the pin still shares the page,
 *     and the parent's write copies away from it: stale pin.
 * flip-ro-pin-to-mapcount (pin profile)  a child takes a read-only
 *     long-term pin under P on a page it shares with the parent, unmaps
 *     its mapping (the pin stays), the policy becomes "mapcount", and the
 *     parent writes.  A pin taken without unsharing (P = refcount) points
 *     to the page the mapcount rule now reuses: the child's device reads
 *     the parent's secret, a leak through a pin (cow_policy.rst).
 * flip-ro-pin-refcount-fork (pin profile)  a read-only long-term pin taken
 *     under "refcount" on a page shared with a child that then exits; back
 *     under P the parent forks again and writes.  The pin shares nothing
 *     any more, but its page is not PageAnonExclusive, and fork must copy
 *     it for the new child wherever the refcount rule was ever in force
 *     (70e806e4e645 copied every maybe-pinned page; a pin that does not
 *     unshare outlives the policy).  The outcome is fork's: "copy" when
 *     the new child got copies, "shared" when it maps the pinned pages.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scn.h"
#include "cowpin_lib.h"

#define NPAGES	16
#define LEN	(NPAGES * PAGE_SIZE)

static char pipebuf[LEN];
static char start_policy[32];

static char *map_area(void)
{
	char *mem = mmap(NULL, LEN, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mem == MAP_FAILED)
		bail("mmap");
	madvise(mem, LEN, MADV_NOHUGEPAGE);
	memset(mem, 'o', LEN);
	return mem;
}

static void gupref_to_mapcount(void)
{
	const struct scn_row *row = scn_begin("flip-gupref-to-mapcount");
	struct vmstat before, after;
	int go[2], back[2], pfd[2];
	char res, *mem;
	pid_t pid;

	if (!row)
		return;
	mem = map_area();
	if (pipe(pfd))
		bail("pipe");
	pid = fork_piped(go, back);
	if (!pid)
		scn_vmsplice_child(mem, LEN, LEN, false, go[0], back[1], pfd,
				   pipebuf);
	scn_child_wait(pid, back[0]);
	scn_warm(&before);
	pipe_putc(go[1], 'g');
	if (pipe_getc(back[0]) != 'u')
		bail("child did not splice");
	scn_set_policy("mapcount");
	memset(mem, 'S', LEN);
	vmstat_read(&after);
	scn_set_policy(start_policy);
	pipe_putc(go[1], 'r');
	res = pipe_getc(back[0]);
	waitpid(pid, NULL, 0);
	scn_end(row, res == 'L' ? "leak" : res == 'o' ? "ok" : "error", &before,
		&after, "reference_under=%s write_under=mapcount pipe=%s",
		start_policy, res == 'L' ? "secret" : res == 'o' ? "old" : "bad");
	close(go[0]); close(go[1]); close(back[0]); close(back[1]);
	close(pfd[0]); close(pfd[1]);
	munmap(mem, LEN);
}

static const char *reuse_word(int same, int n)
{
	return same == n ? "reuse" : same ? "mixed" : "copy";
}

static void next_fault(void)
{
	const struct scn_row *row = scn_begin("flip-next-fault");
	struct iovec iov = { .iov_len = LEN };
	struct vmstat before, after;
	uint64_t pfn[NPAGES];
	int same[2] = { 0, 0 }, wr = 0, pfd[2];
	char outcome[32], *mem;

	if (!row)
		return;
	mem = map_area();
	iov.iov_base = mem;
	/* A (first half) stays exclusive; B is shared with a child that exits. */
	if (madvise(mem, LEN / 2, MADV_DONTFORK))
		bail("madvise(MADV_DONTFORK)");
	fork_exit_child();
	if (madvise(mem, LEN / 2, MADV_DOFORK) || pipe(pfd))
		bail("madvise/pipe");
	scn_set_policy("refcount");
	if (vmsplice(pfd[1], &iov, 1, 0) != (ssize_t)LEN)
		bail("vmsplice");
	if (mprotect(mem, LEN, PROT_READ) || mprotect(mem, LEN, PROT_READ | PROT_WRITE))
		bail("mprotect");
	scn_set_policy(start_policy);
	for (int i = 0; i < NPAGES; i++)
		pfn[i] = scn_pfn(mem + i * PAGE_SIZE);
	scn_warm(&before);
	for (int i = 0; i < NPAGES; i++)
		mem[i * PAGE_SIZE] = 'n';
	vmstat_read(&after);
	for (int i = 0; i < NPAGES; i++)
		same[i >= NPAGES / 2] += scn_pfn(mem + i * PAGE_SIZE) == pfn[i];
	wr = (int)vmstat_decisions(&before, &after);
	snprintf(outcome, sizeof(outcome), "%s-%s", reuse_word(same[0], NPAGES / 2),
		 reuse_word(same[1], NPAGES / 2));
	scn_end(row, outcome, &before, &after,
		"splice_mprotect_under=refcount write_under=%s exclusive_same_pfn=%d/%d shared_once_same_pfn=%d/%d decisions=%d",
		start_policy, same[0], NPAGES / 2, same[1], NPAGES / 2, wr);
	close(pfd[0]);
	close(pfd[1]);
	munmap(mem, LEN);
}

static void ro_pin_refcount(void)
{
	const struct scn_row *row = scn_begin("flip-ro-pin-refcount");
	struct vmstat before, after;
	static char dev[LEN];
	int go[2], back[2], fd, ret;
	uint64_t h = 0;
	char c, *mem;
	pid_t pid;

	if (!row)
		return;
	fd = cowpin_open();
	if (fd < 0) {
		scn_ok(false, "flip-ro-pin-refcount: open %s: %m", COWPIN_DEVICE);
		return;
	}
	mem = map_area();
	pid = fork_piped(go, back);
	if (!pid) {
		scn_child_ready(back[1]);
		pipe_getc(go[0]);
		_exit(0);
	}
	scn_child_wait(pid, back[0]);
	scn_warm(&before);
	scn_set_policy("refcount");
	ret = cowpin_reg(fd, mem, LEN, COWPIN_F_LONGTERM, &h);
	scn_set_policy(start_policy);
	if (ret) {
		scn_ok(false, "flip-ro-pin-refcount: R/O pin: %s", strerror(-ret));
		pipe_putc(go[1], 'x');
		waitpid(pid, NULL, 0);
		return;
	}
	memset(mem, 'P', LEN);
	vmstat_read(&after);
	memset(dev, 0, LEN);
	ret = cowpin_dev_read(fd, h, 0, LEN, dev);
	c = ret ? '?' : !scn_count_diff(dev, 'P', LEN) ? 'n' :
	    !scn_count_diff(dev, 'o', LEN) ? 'o' : 'm';
	pipe_putc(go[1], 'x');
	waitpid(pid, NULL, 0);
	scn_end(row, c == 'n' ? "ok" : c == 'o' ? "stale-pin" : "error", &before,
		&after, "pin_under=refcount write_under=%s device_sees=%s",
		start_policy, c == 'n' ? "new" : c == 'o' ? "old" : "bad");
	cowpin_dereg(fd, h);
	close(fd);
	close(go[0]); close(go[1]); close(back[0]); close(back[1]);
	munmap(mem, LEN);
}

static void ro_pin_to_mapcount(void)
{
	const struct scn_row *row = scn_begin("flip-ro-pin-to-mapcount");
	struct vmstat before, after;
	static char dev[LEN];
	int go[2], back[2];
	char res, *mem;
	pid_t pid;

	if (!row)
		return;
	mem = map_area();
	pid = fork_piped(go, back);
	if (!pid) {
		struct vmstat scratch;
		uint64_t h = 0;
		int fd = cowpin_open();

		scn_warm(&scratch);
		pipe_putc(back[1], fd < 0 ? 'f' : 'r');
		if (fd < 0 || pipe_getc(go[0]) != 'g')
			_exit(3);
		if (cowpin_reg(fd, mem, LEN, COWPIN_F_LONGTERM, &h) ||
		    madvise(mem, LEN, MADV_DONTNEED))
			_exit(4);
		pipe_putc(back[1], 'u');
		if (pipe_getc(go[0]) != 'r')
			_exit(3);
		memset(dev, 0, LEN);
		pipe_putc(back[1], cowpin_dev_read(fd, h, 0, LEN, dev) ? '?' :
		       !scn_count_diff(dev, 'S', LEN) ? 'L' :
		       !scn_count_diff(dev, 'o', LEN) ? 'o' : 'm');
		_exit(0);
	}
	if (pipe_getc(back[0]) != 'r')
		bail("child (open %s)", COWPIN_DEVICE);
	scn_warm(&before);
	pipe_putc(go[1], 'g');
	if (pipe_getc(back[0]) != 'u')
		bail("child did not pin");
	scn_set_policy("mapcount");
	memset(mem, 'S', LEN);
	vmstat_read(&after);
	scn_set_policy(start_policy);
	pipe_putc(go[1], 'r');
	res = pipe_getc(back[0]);
	waitpid(pid, NULL, 0);
	scn_end(row, res == 'L' ? "leak" : res == 'o' ? "ok" : "error", &before,
		&after, "pin_under=%s write_under=mapcount device_sees=%s",
		start_policy, res == 'L' ? "secret" : res == 'o' ? "old" : "bad");
	close(go[0]); close(go[1]); close(back[0]); close(back[1]);
	munmap(mem, LEN);
}

/*
 * The child of flip-ro-pin-refcount-fork: how many of the NPAGES pages it
 * maps at the parent's pfns, as 'A' + n (scn_pfn() reads the child's own
 * pagemap).
 */
static void __attribute__((noreturn)) pfn_child(const char *mem, const uint64_t *pfn,
						int back)
{
	int n = 0;

	for (int i = 0; i < NPAGES; i++)
		n += pfn[i] && scn_pfn(mem + i * PAGE_SIZE) == pfn[i];
	pipe_putc(back, (char)('A' + n));
	_exit(0);
}

static void ro_pin_refcount_fork(void)
{
	const struct scn_row *row = scn_begin("flip-ro-pin-refcount-fork");
	struct vmstat before, mid, mid2, after;
	static char dev[LEN];
	int go[2], back[2], fd, ret, same = -1;
	uint64_t pfn[NPAGES], h = 0;
	char c, *mem;
	pid_t pid;

	if (!row)
		return;
	fd = cowpin_open();
	if (fd < 0) {
		scn_ok(false, "flip-ro-pin-refcount-fork: open %s: %m", COWPIN_DEVICE);
		return;
	}
	mem = map_area();
	/* Shared with a child, pinned under refcount, then the child exits. */
	pid = fork_piped(go, back);
	if (!pid) {
		pipe_putc(back[1], 'r');
		pipe_getc(go[0]);
		_exit(0);
	}
	if (pipe_getc(back[0]) != 'r')
		bail("child");
	scn_set_policy("refcount");
	ret = cowpin_reg(fd, mem, LEN, COWPIN_F_LONGTERM, &h);
	scn_set_policy(start_policy);
	pipe_putc(go[1], 'x');
	waitpid(pid, NULL, 0);
	close(go[0]); close(go[1]); close(back[0]); close(back[1]);
	if (ret) {
		scn_ok(false, "flip-ro-pin-refcount-fork: R/O pin: %s", strerror(-ret));
		close(fd);
		munmap(mem, LEN);
		return;
	}
	for (int i = 0; i < NPAGES; i++)
		pfn[i] = scn_pfn(mem + i * PAGE_SIZE);
	/*
	 * The fork under P: the new child says how many pfns it shares and
	 * exits.  The window is the fork, then (after the child is gone and
	 * the stack is warm again) the parent's write: the parent's own
	 * stack faults while the child lived are left out.
	 */
	scn_warm(&before);
	pid = fork_piped(go, back);
	if (!pid)
		pfn_child(mem, pfn, back[1]);
	vmstat_read(&mid);
	c = pipe_getc(back[0]);
	if (c >= 'A' && c <= 'A' + NPAGES)
		same = c - 'A';
	waitpid(pid, NULL, 0);
	scn_warm(&mid2);
	memset(mem, 'P', LEN);
	vmstat_read(&after);
	vmstat_skip(&after, &mid, &mid2);
	memset(dev, 0, LEN);
	ret = cowpin_dev_read(fd, h, 0, LEN, dev);
	c = ret ? '?' : !scn_count_diff(dev, 'P', LEN) ? 'n' :
	    !scn_count_diff(dev, 'o', LEN) ? 'o' : 'm';
	scn_end(row, same < 0 ? "error" : same == 0 ? "copy" :
		same == NPAGES ? "shared" : "mixed", &before, &after,
		"pin_under=refcount fork_under=%s child_same_pfn=%d/%d device_sees=%s",
		start_policy, same, NPAGES,
		c == 'n' ? "new" : c == 'o' ? "old" : "bad");
	cowpin_dereg(fd, h);
	close(fd);
	close(go[0]); close(go[1]); close(back[0]); close(back[1]);
	munmap(mem, LEN);
}

int main(void)
{
	scn_init("scn_flip");
	if (!cow_policy_present()) {
		/* CONFIG_COW_POLICY=n: there is nothing to flip. */
		if (cow_policy_expected())
			scn_ok(false, "runtime policy flips: no /proc/sys/vm/cow_policy");
		else
			scn_skip("no /proc/sys/vm/cow_policy", "runtime policy flips");
		return scn_finish();
	}
	snprintf(start_policy, sizeof(start_policy), "%s", cow_policy_now());
	gupref_to_mapcount();
	next_fault();
	ro_pin_refcount();
	ro_pin_to_mapcount();
	ro_pin_refcount_fork();
	return scn_finish();
}
