// SPDX-License-Identifier: GPL-2.0
/*
 * scn_pin_fork: pins and fork() (seed 007,
 * the article's RDMA self-test).  Pin profile (/dev/cowpin).  Deterministic.
 *
 * rdma-fork-child-exits (3)  FOLL_WRITE|FOLL_LONGTERM pin, fork(), the
 *     child exits without touching the memory, the parent writes: the
 *     device must read the parent's data, and a device write must be seen
 *     by the parent.
 * rdma-fork-child-alive (4)  the same with the child alive while the
 *     parent writes (and the child must keep the old data).
 * rdma-get-fork-child-exits / -alive  the same with plain FOLL_GET
 *     references (get_user_pages(), as drivers did before FOLL_PIN and as
 *     vmsplice/O_DIRECT still do): fork() cannot tell them from other
 *     references, so the pages are shared with the child.
 * ro-pin-after-fork (5)  a read-only long-term pin taken by the parent on
 *     pages shared with a live child, then the parent writes.
 * ro-pin-before-fork (5)  the read-only pin taken before fork().
 * ro-pin-shared-fork  a read-only long-term pin on pages shared with a live
 *     child (under refcount the pin does not unshare), then a second
 *     fork(): v5.9 - v5.18 copied every maybe-pinned page for the new
 *     child (70e806e4e645), shared or not.  "copy" if the new child's
 *     pages are not the pinned ones, "shared" if they are.
 * gup-fast-only-shared / gup-nofault-shared  FOLL_GET lookups of pages
 *     shared with a live child that cannot fault: GUP-fast alone
 *     (get_user_pages_fast_only(), as perf_virt_to_phys() and KVM use it)
 *     and FOLL_NOFAULT.  17839856fd58 left lookups that cannot fall back
 *     to a fault alone; "ok" if the lookup succeeds without a COW break,
 *     "refused" if it fails.
 * ro-pin-hugetlb-shared  a read-only long-term pin of a hugetlb page
 *     shared with a live child: hugetlb unshares for pins under every
 *     policy (follow_hugetlb_page()), and the unshare is counted.
 * rdma-fork-hugetlb  a FOLL_WRITE|FOLL_LONGTERM pin of a private hugetlb
 *     page, fork(), the parent writes with the child alive: fork copies
 *     the pinned page for the child (4eae4efa2c29) and counts it in
 *     cow_fork_copy; the device sees the parent's write, the child not.
 *
 * Outcome: ok (device and CPU see the same pages), stale-pin (the device
 * reads old data or its writes do not reach the CPU), leak (the child
 * sees the parent's later writes).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scn.h"
#include "cowpin_lib.h"

#define NPAGES	16
#define LEN	(NPAGES * PAGE_SIZE)
#define HALF	(LEN / 2)

enum when { PIN_BEFORE_FORK, PIN_AFTER_FORK };

struct cs {
	const char *name;
	uint64_t flags;
	enum when when;
	bool child_alive;
};

static char dev[LEN];

/*
 * The vmstat snapshots of a case, kept out of fork(): the parent writes
 * "after" while it shares its memory with a child, and the snapshot must
 * not add copy-on-write decisions of its own to the window.
 */
static struct vmstat *snaps(int i)
{
	static struct vmstat *s;

	if (!s)
		s = map_dontfork(2 * sizeof(*s));
	return &s[i];
}

static bool fork_in_window(const struct cs *cs)
{
	return cs->when == PIN_BEFORE_FORK && !(cs->flags & COWPIN_F_GET);
}

static void run(int fd, const struct cs *cs)
{
	const struct scn_row *row = scn_begin(cs->name);
	struct vmstat *before = snaps(0), *after = snaps(1);
	int go[2], back[2], ret;
	long dev_stale, cpu_stale;
	char child = '-', *mem;
	const char *outcome;
	uint64_t h = 0;
	pid_t pid;

	if (!row)
		return;
	mem = map_anon_ptes(LEN, 'o');
	if (pipe(go) || pipe(back))
		bail("pipe");
	/*
	 * The window holds the fork() only where fork copies what the case
	 * pinned (a FOLL_PIN taken before it): glibc's fork handlers and the
	 * shared stack then add a few decisions of the program's own, which
	 * those rows' slack covers.  Elsewhere it opens after the fork, the
	 * warm-up taking the parent's copies of its stack first.
	 */
	if (fork_in_window(cs))
		scn_warm(before);
	if (cs->when == PIN_BEFORE_FORK) {
		ret = cowpin_reg(fd, mem, LEN, cs->flags, &h);
		if (ret) {
			scn_ok(false, "%s: register: %s", cs->name, strerror(-ret));
			return;
		}
	}
	pid = fork();
	if (pid < 0)
		bail("fork");
	if (!pid) {
		char c;

		/* No warm-up: its stack writes would be copies in the window. */
		if (!cs->child_alive)
			_exit(0);
		pipe_putc(back[1], 'r');
		if (pipe_getc(go[0]) != 'g')
			_exit(3);
		/*
		 * 'n': the parent's CPU writes (first half) or the device's
		 * writes (second half) reached the child: a leak.
		 */
		c = !scn_count_diff(mem, 'o', LEN) ? 'o' :
		    (!scn_count_diff(mem, 'P', HALF) ||
		     !scn_count_diff(mem + HALF, 'D', HALF)) ? 'n' : 'm';
		pipe_putc(back[1], c);
		_exit(0);
	}
	if (cs->child_alive) {
		if (pipe_getc(back[0]) != 'r')
			bail("child");
	} else {
		waitpid(pid, NULL, 0);
	}
	if (!fork_in_window(cs))
		scn_warm(before);
	if (cs->when == PIN_AFTER_FORK) {
		ret = cowpin_reg(fd, mem, LEN, cs->flags, &h);
		if (ret) {
			scn_ok(false, "%s: register: %s", cs->name, strerror(-ret));
			return;
		}
	}
	/* The CPU writes the first half; the device the second (if it can). */
	memset(mem, 'P', HALF);
	vmstat_read(after);
	if (cs->flags & COWPIN_F_WRITE) {
		memset(dev, 'D', HALF);
		if (cowpin_dev_write(fd, h, HALF, HALF, dev))
			bail("device write");
	}
	memset(dev, 0, LEN);
	if (cowpin_dev_read(fd, h, 0, HALF, dev))
		bail("device read");
	dev_stale = scn_count_diff(dev, 'P', HALF);
	cpu_stale = (cs->flags & COWPIN_F_WRITE) ?
		    scn_count_diff(mem + HALF, 'D', HALF) : 0;
	if (cs->child_alive) {
		pipe_putc(go[1], 'g');
		child = pipe_getc(back[0]);
		waitpid(pid, NULL, 0);
	}
	/* A child that died ('?') or saw something else ('m') is no verdict. */
	if (cs->child_alive && child != 'o' && child != 'n')
		outcome = "error";
	else
		outcome = child == 'n' ? "leak" : dev_stale || cpu_stale ? "stale-pin" : "ok";
	scn_end(row, outcome, before, after,
		"device_sees_cpu=%s cpu_sees_device=%s child=%s",
		dev_stale ? "no" : "yes",
		!(cs->flags & COWPIN_F_WRITE) ? "n/a" : cpu_stale ? "no" : "yes",
		child == 'o' ? "old" : child == 'n' ? "new" : child == '-' ? "exited" :
		child == 'm' ? "mixed" : "died");
	cowpin_dereg(fd, h);
	close(go[0]); close(go[1]); close(back[0]); close(back[1]);
	munmap(mem, LEN);
}

static const struct cs cases[] = {
	{ "rdma-fork-child-exits", COWPIN_F_WRITE | COWPIN_F_LONGTERM, PIN_BEFORE_FORK, false },
	{ "rdma-fork-child-alive", COWPIN_F_WRITE | COWPIN_F_LONGTERM, PIN_BEFORE_FORK, true },
	{ "rdma-get-fork-child-exits", COWPIN_F_WRITE | COWPIN_F_GET, PIN_BEFORE_FORK, false },
	{ "rdma-get-fork-child-alive", COWPIN_F_WRITE | COWPIN_F_GET, PIN_BEFORE_FORK, true },
	{ "ro-pin-after-fork", COWPIN_F_LONGTERM, PIN_AFTER_FORK, true },
	{ "ro-pin-before-fork", COWPIN_F_LONGTERM, PIN_BEFORE_FORK, true },
};

/* Pfns of the first n pages of mem, from the child's side of fork(). */
static void child_pfns(const char *mem, int n, int wr)
{
	uint64_t pfn[NPAGES];

	for (int i = 0; i < n; i++)
		pfn[i] = scn_pfn(mem + i * PAGE_SIZE);
	if (write(wr, pfn, n * sizeof(pfn[0])) != (ssize_t)(n * sizeof(pfn[0])))
		_exit(3);
	_exit(0);
}

/* A child that keeps mem shared until go gets a byte. */
static pid_t hold_child(int go[2], int back[2])
{
	pid_t pid;

	pid = fork_piped(go, back);
	if (!pid) {
		scn_child_ready(back[1]);
		pipe_getc(go[0]);
		_exit(0);
	}
	scn_child_wait(pid, back[0]);
	return pid;
}

static void release_child(pid_t pid, int go[2], int back[2])
{
	pipe_putc(go[1], 'x');
	waitpid(pid, NULL, 0);
	close(go[0]); close(go[1]); close(back[0]); close(back[1]);
}

static void ro_pin_shared_fork(int fd)
{
	const struct scn_row *row = scn_begin("ro-pin-shared-fork");
	uint64_t h = 0, mine[NPAGES], theirs[NPAGES];
	struct vmstat *before = snaps(0), *after = snaps(1);
	int go[2], back[2], pp[2], ret, shared = 0;
	pid_t holder, pid;
	char *mem;

	if (!row)
		return;
	mem = map_anon_ptes(LEN, 'o');
	holder = hold_child(go, back);
	if (pipe(pp))
		bail("pipe");
	scn_warm(before);
	ret = cowpin_reg(fd, mem, LEN, COWPIN_F_LONGTERM, &h);
	if (ret) {
		scn_ok(false, "ro-pin-shared-fork: register: %s", strerror(-ret));
		release_child(holder, go, back);
		return;
	}
	pid = fork();
	if (pid < 0)
		bail("fork");
	if (!pid)
		child_pfns(mem, NPAGES, pp[1]);
	vmstat_read(after);
	if (read(pp[0], theirs, sizeof(theirs)) != (ssize_t)sizeof(theirs))
		bail("second child");
	waitpid(pid, NULL, 0);
	for (int i = 0; i < NPAGES; i++) {
		mine[i] = scn_pfn(mem + i * PAGE_SIZE);
		shared += theirs[i] == mine[i];
	}
	scn_end(row, shared == NPAGES ? "shared" : shared ? "mixed" : "copy",
		before, after, "second_child_shares=%d/%d", shared, NPAGES);
	cowpin_dereg(fd, h);
	release_child(holder, go, back);
	close(pp[0]); close(pp[1]);
	munmap(mem, LEN);
}

static void gup_nofault_shared(int fd, const char *name, uint64_t flags)
{
	const struct scn_row *row = scn_begin(name);
	struct vmstat *before = snaps(0), *after = snaps(1);
	int go[2], back[2], ret, same = 0;
	uint64_t h = 0, pfn[NPAGES];
	pid_t holder;
	char *mem;

	if (!row)
		return;
	mem = map_anon_ptes(LEN, 'o');
	for (int i = 0; i < NPAGES; i++)
		pfn[i] = scn_pfn(mem + i * PAGE_SIZE);
	holder = hold_child(go, back);
	scn_warm(before);
	ret = cowpin_reg(fd, mem, LEN, flags, &h);
	vmstat_read(after);
	for (int i = 0; i < NPAGES; i++)
		same += scn_pfn(mem + i * PAGE_SIZE) == pfn[i];
	scn_end(row, ret ? "refused" : same == NPAGES ? "ok" : "copied",
		before, after, "register=%s same_pfn=%d/%d",
		ret ? strerror(-ret) : "ok", same, NPAGES);
	if (!ret)
		cowpin_dereg(fd, h);
	release_child(holder, go, back);
	munmap(mem, LEN);
}

#define HPAGE	(2UL << 20)

static void ro_pin_hugetlb_shared(int fd)
{
	const struct scn_row *row = scn_begin("ro-pin-hugetlb-shared");
	struct vmstat *before = snaps(0), *after = snaps(1);
	int go[2], back[2], ret;
	uint64_t h = 0;
	pid_t holder;
	char *mem;

	if (!row)
		return;
	mem = mmap(NULL, HPAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (mem == MAP_FAILED) {
		scn_ok(false, "ro-pin-hugetlb-shared: hugetlb mmap: %m (nr_hugepages %ld)",
		       scn_read_long("/proc/sys/vm/nr_hugepages"));
		return;
	}
	memset(mem, 'o', HPAGE);
	holder = hold_child(go, back);
	scn_warm(before);
	ret = cowpin_reg(fd, mem, LEN, COWPIN_F_LONGTERM, &h);
	vmstat_read(after);
	if (!ret) {
		memset(mem, 'P', LEN);
		memset(dev, 0, LEN);
		ret = cowpin_dev_read(fd, h, 0, LEN, dev);
	}
	scn_end(row, ret ? "error" : scn_count_diff(dev, 'P', LEN) ? "stale-pin" : "ok",
		before, after, "register_and_read=%s",
		ret ? strerror(-ret) : "ok");
	if (h)
		cowpin_dereg(fd, h);
	release_child(holder, go, back);
	munmap(mem, HPAGE);
}

static void rdma_fork_hugetlb(int fd)
{
	const struct scn_row *row = scn_begin("rdma-fork-hugetlb");
	struct vmstat *before = snaps(0), *after = snaps(1);
	int go[2], back[2], ret;
	uint64_t h = 0;
	pid_t pid;
	char *mem, res;

	if (!row)
		return;
	mem = mmap(NULL, HPAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (mem == MAP_FAILED) {
		scn_ok(false, "rdma-fork-hugetlb: hugetlb mmap: %m (nr_hugepages %ld)",
		       scn_read_long("/proc/sys/vm/nr_hugepages"));
		return;
	}
	memset(mem, 'o', HPAGE);
	ret = cowpin_reg(fd, mem, LEN, COWPIN_F_WRITE | COWPIN_F_LONGTERM, &h);
	if (ret) {
		scn_ok(false, "rdma-fork-hugetlb: register: %s", strerror(-ret));
		munmap(mem, HPAGE);
		return;
	}
	scn_warm(before);
	pid = fork_piped(go, back);
	if (!pid) {
		pipe_putc(back[1], 'r');
		if (pipe_getc(go[0]) != 'g')
			_exit(3);
		pipe_putc(back[1], !scn_count_diff(mem, 'o', LEN) ? 'o' :
			  !scn_count_diff(mem, 'P', LEN) ? 'L' : 'm');
		_exit(0);
	}
	if (pipe_getc(back[0]) != 'r')
		bail("child");
	memset(mem, 'P', LEN);
	vmstat_read(after);
	pipe_putc(go[1], 'g');
	res = pipe_getc(back[0]);
	waitpid(pid, NULL, 0);
	memset(dev, 0, LEN);
	ret = cowpin_dev_read(fd, h, 0, LEN, dev);
	scn_end(row, ret || (res != 'o' && res != 'L') ? "error" : res == 'L' ? "leak" :
		scn_count_diff(dev, 'P', LEN) ? "stale-pin" : "ok",
		before, after, "child=%s device_sees_write=%s",
		res == 'o' ? "old" : res == 'L' ? "new" : "bad",
		ret ? strerror(-ret) : scn_count_diff(dev, 'P', LEN) ? "no" : "yes");
	cowpin_dereg(fd, h);
	close(go[0]); close(go[1]); close(back[0]); close(back[1]);
	munmap(mem, HPAGE);
}

int main(void)
{
	int fd;

	scn_init("scn_pin_fork");
	fd = cowpin_open();
	if (fd < 0)
		bail("open %s (pin profile)", COWPIN_DEVICE);
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run(fd, &cases[i]);
	ro_pin_shared_fork(fd);
	gup_nofault_shared(fd, "gup-fast-only-shared", COWPIN_F_GET | COWPIN_F_FAST_ONLY);
	gup_nofault_shared(fd, "gup-nofault-shared", COWPIN_F_GET | COWPIN_F_NOFAULT);
	ro_pin_hugetlb_shared(fd);
	rdma_fork_hugetlb(fd);
	close(fd);
	return scn_finish();
}
