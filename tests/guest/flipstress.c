// SPDX-License-Identifier: GPL-2.0
/*
 * flipstress: vm.cow_policy flipped among all the kernel's policies every
 * few milliseconds while workers fault, fork, pin and swap concurrently:
 * "exclusive", "refcount" and "mapcount", and "largefolio" on a kernel
 * built with CONFIG_COW_POLICY_MM_ID (the runner's COWTEST_MM_ID=y,
 * patches/6.12/0013-0014).
 * Bounded in time, seeded (the workers' choices depend only
 * on the seed; the interleaving does not).
 *
 *   flipstress [--seconds N] [--seed S] [--may-skip] [--mthp]
 *   (/proc/cmdline cowtest.flipsec=N and cowtest.flipseed=S override,
 *   so make soak can stretch a run without a new image.)
 *
 * Main process: two flipper threads race each other writing a random
 * policy every 1-5 ms (and, one write in eight, a bad value that must fail
 * with EINVAL), a reader thread checks that the sysctl always reads as one
 * of those names, a trace_pipe thread checks that every change is traced
 * exactly once (cow:cow_policy_change "old=A new=B" events chain: B of one
 * event is A of the next, and the last B is the policy in force; the kernel
 * log is rate-limited and carries only a summary).
 *
 * --mthp (kernels with anonymous mTHP, 6.8 and later, booted with mTHP
 * sizes enabled): the fork worker's memory may be large folios too (no
 * MADV_NOHUGEPAGE; the other workers' memory never asks either way), and
 * a ninth point requires that anonymous mTHP faults happened while the
 * workers ran (hugepages-<size>kB/stats/anon_fault_alloc below the PMD
 * size), so the flips raced with large folios, not only with 4 KiB pages;
 * with "largefolio" among the policies a tenth point requires that it
 * decided on large folios (cow_reuse_owner, cow_copy_shared and
 * cow_copy_single, which only its rule for a page of a large folio counts,
 * moved), so it was in force while large folios were mapped and written.
 *
 * Workers (one process each, each owns and verifies its memory; a stamp is
 * written at three offsets of each page and the expected stamps are kept
 * in a private shadow array):
 *   fork      fork storm on 4 KiB pages: children check the parent's
 *             snapshot while the parent rewrites pages, then write their own
 *             stamps or exit at once; the parent checks its pages after.
 *   thp       the same on MADV_HUGEPAGE memory, plus forced splits
 *             (MADV_DONTNEED of a subrange, mprotect of half a THP).
 *   pin       /dev/cowpin: long-term/short-term FOLL_PIN and FOLL_GET
 *             regions, held across flips, device writes seen by the CPU and
 *             CPU writes seen by the device, the kernel writer thread,
 *             closing a file with regions still registered.
 *   vmsplice  vmsplice a buffer, fork a child that writes its copy, read
 *             the pipe: the original data.
 *   odirect   O_DIRECT reads from /dev/vdb (swap profile) while a thread
 *             forks children that write their copy of the buffer.
 *   clearrefs clear_refs (soft-dirty) then writes.
 *   uffd      userfaultfd write-protect, writes resolved by a handler.
 *   ksm       identical pages MADV_MERGEABLE, rewritten after merging.
 *   swap      MADV_PAGEOUT (when swap is on), fork, write, check.
 *   ropin     R/O long-term pin (/dev/cowpin) of pages shared with a live
 *             child, then a parent write: the unshare (GUP COW break)
 *             path; the child keeps its snapshot, the device reads the
 *             snapshot or the write.
 *   stressng  stress-ng 0.15 (a program nobody here wrote) runs a mix of
 *             its COW-relevant stressors with --verify, a few seconds at a
 *             time: fork, vfork, mmapfork, vm (all methods), vm-splice,
 *             madvise, mremap, mprotect, userfaultfd; an op is one run
 *             that exited 0 (every stressor passed its own checks).
 *
 * At the end: no worker saw corruption, nr_foll_pin_acquired ==
 * nr_foll_pin_released (after vm.stat_refresh), MemAvailable (plus the
 * per-CPU free lists, which MemFree leaves out) back within
 * MEM_TOL_KB of its start (page cache dropped, slab caches and KASAN's
 * quarantine shrunk, KSM unmerged), one log line
 * per change, and cow_gup_break moved (ropin's unshare faults).  Prints
 * flips made and operations per worker type.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cowtest.h"
#include "cowpin_lib.h"
#include "scn.h"
#include "thpknob.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif
#define THP_SIZE	(2UL << 20)
/*
 * MemAvailable may end at most this much below its start.  Measured at the
 * end of a run: -576 and -428 kB in make test's flip runs on the SLUB lean
 * kernels (cow, debug; 671777f), -856 and -1120 kB on SLOB before, and at
 * most -5512 kB in the longer make soak runs (RESULTS.md, soak-*, KASAN's
 * quarantine included).  16 MiB is three times the largest.
 */
#define MEM_TOL_KB	(16 * 1024)

enum { W_FORK, W_THP, W_PIN, W_VMSPLICE, W_ODIRECT, W_CLEARREFS, W_UFFD,
	W_KSM, W_SWAP, W_ROPIN, W_STRESSNG, NR_W };
static const char *wname[NR_W] = { "fork", "thp", "pin", "vmsplice",
	"odirect", "clearrefs", "uffd", "ksm", "swap", "ropin", "stressng" };

struct shared {
	volatile int stop;
	long ops[NR_W];
	long fail[NR_W];
	char skip[NR_W][96];
	char err[NR_W][160];
	/* pages the ropin worker's pins unshared (the parent's pfn changed) */
	long ropin_unshared;
};
static struct shared *sh;
static unsigned long long seed = 1;
static double deadline;
/* The test points main() prints, whatever happens. */
#define NPOINTS	8
/* --may-skip: a worker whose device or feature is missing may skip. */
static bool may_skip, mthp;

/* The policies flipped among: the fourth only where COWTEST_MM_ID=y. */
static const char *names[4] = { "exclusive", "refcount", "mapcount", "largefolio" };
static unsigned int nnames = 3;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t rnd(uint64_t *s)
{
	/* xorshift64* */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static bool running(void)
{
	return !sh->stop && now() < deadline;
}

/* A worker failed: record the first message and leave. */
static void __attribute__((noreturn, format(printf, 2, 3)))
wfail(int w, const char *fmt, ...)
{
	va_list ap;

	if (!sh->err[w][0]) {
		va_start(ap, fmt);
		vsnprintf(sh->err[w], sizeof(sh->err[w]), fmt, ap);
		va_end(ap);
	}
	__sync_fetch_and_add(&sh->fail[w], 1);
	_exit(1);
}

static void wskip(int w, const char *why)
{
	snprintf(sh->skip[w], sizeof(sh->skip[w]), "%s", why);
	_exit(0);
}

/* ---- stamped pages ------------------------------------------------------ */

static void stamp(char *page, uint64_t v)
{
	uint64_t *q = (uint64_t *)page;

	q[0] = v;
	q[255] = v ^ 0x5a5a5a5a5a5a5a5aULL;
	q[511] = ~v;
}

/* 0 when the page holds stamp v (v == 0: a zero page). */
static int check(const char *page, uint64_t v)
{
	const uint64_t *q = (const uint64_t *)page;

	if (!v)
		return q[0] || q[255] || q[511];
	return q[0] != v || q[255] != (v ^ 0x5a5a5a5a5a5a5a5aULL) ||
	       q[511] != ~v;
}

static uint64_t mkstamp(int w, uint64_t gen, unsigned long i, pid_t pid)
{
	return ((uint64_t)w << 60) | ((uint64_t)(pid & 0xfffff) << 40) |
	       ((gen & 0xffffff) << 16) | (i & 0xffff) | 1ULL << 59;
}

static char *map_anon(unsigned long len, unsigned long align)
{
	char *p = mmap(NULL, len + align, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (align)
		p = (char *)(((uintptr_t)p + align - 1) & ~(align - 1));
	return p;
}

/*
 * One fork round on [mem, mem+n pages) with shadow[]: the child checks the
 * snapshot while the parent rewrites random pages, then writes its own
 * stamps (or exits at once) and checks them; the parent checks everything.
 */
static void fork_round(int w, char *mem, unsigned long n, uint64_t *shadow,
		       uint64_t *gen, uint64_t *rs)
{
	unsigned long i, k;
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return;	/* out of processes: not a COW bug */
	if (pid == 0) {
		uint64_t cs = rnd(rs) | 1;

		for (i = 0; i < n; i++)
			if (check(mem + i * PAGE_SIZE, shadow[i]))
				_exit(10);	/* the parent's write leaked */
		if (rnd(&cs) & 1)
			_exit(0);
		for (k = 0; k < n / 2; k++) {
			i = rnd(&cs) % n;
			shadow[i] = mkstamp(w, 0xffffff, i, getpid());
			stamp(mem + i * PAGE_SIZE, shadow[i]);
		}
		for (i = 0; i < n; i++)
			if (check(mem + i * PAGE_SIZE, shadow[i]))
				_exit(11);	/* the child lost a write */
		_exit(0);
	}
	(*gen)++;
	for (k = 0; k < n / 2; k++) {
		i = rnd(rs) % n;
		shadow[i] = mkstamp(w, *gen, i, getpid());
		stamp(mem + i * PAGE_SIZE, shadow[i]);
	}
	if (waitpid(pid, &status, 0) != pid)
		wfail(w, "waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		wfail(w, "child: %s (status 0x%x)",
		      WIFEXITED(status) && WEXITSTATUS(status) == 10 ?
		      "parent's write after fork visible in the child" :
		      "child lost its own write", status);
	for (i = 0; i < n; i++)
		if (check(mem + i * PAGE_SIZE, shadow[i]))
			wfail(w, "parent page %lu lost a write (or got the child's)", i);
}

/* ---- workers -------------------------------------------------------------- */

static void w_fork(int w, uint64_t rs)
{
	unsigned long n = 256, i;	/* 1 MiB */
	uint64_t *shadow = calloc(n, sizeof(*shadow)), gen = 1;
	char *mem = map_anon(n * PAGE_SIZE, 0);

	if (!mem || !shadow)
		wfail(w, "mmap");
	if (!mthp)
		madvise(mem, n * PAGE_SIZE, MADV_NOHUGEPAGE);
	for (i = 0; i < n; i++) {
		shadow[i] = mkstamp(w, gen, i, getpid());
		stamp(mem + i * PAGE_SIZE, shadow[i]);
	}
	while (running()) {
		fork_round(w, mem, n, shadow, &gen, &rs);
		sh->ops[w]++;
	}
}

static void w_thp(int w, uint64_t rs)
{
	unsigned long n = 4 * THP_SIZE / PAGE_SIZE, i, j;
	uint64_t *shadow = calloc(n, sizeof(*shadow)), gen = 1;
	char *mem = map_anon(n * PAGE_SIZE, THP_SIZE);

	if (!mem || !shadow)
		wfail(w, "mmap");
	while (running()) {
		unsigned long t, first, len;

		madvise(mem, n * PAGE_SIZE, MADV_HUGEPAGE);
		for (i = 0; i < n; i++) {
			shadow[i] = mkstamp(w, gen, i, getpid());
			stamp(mem + i * PAGE_SIZE, shadow[i]);
		}
		fork_round(w, mem, n, shadow, &gen, &rs);
		/* split: zap a subrange of one THP */
		t = rnd(&rs) % 4;
		first = t * 512 + rnd(&rs) % 500;
		len = 1 + rnd(&rs) % 12;
		madvise(mem + first * PAGE_SIZE, len * PAGE_SIZE, MADV_DONTNEED);
		for (j = first; j < first + len; j++)
			shadow[j] = 0;
		/* split: mprotect half of another THP read-only and back */
		t = (t + 1) % 4;
		if (mprotect(mem + t * THP_SIZE, THP_SIZE / 2, PROT_READ) ||
		    mprotect(mem + t * THP_SIZE, THP_SIZE / 2,
			     PROT_READ | PROT_WRITE))
			wfail(w, "mprotect: %s", strerror(errno));
		fork_round(w, mem, n, shadow, &gen, &rs);
		for (i = 0; i < n; i++)
			if (check(mem + i * PAGE_SIZE, shadow[i]))
				wfail(w, "page %lu after split", i);
		/* and start over with fresh THPs */
		madvise(mem, n * PAGE_SIZE, MADV_DONTNEED);
		gen++;
		sh->ops[w]++;
	}
}

#define PIN_PAGES	32
struct pin_region {
	char *mem;
	uint64_t handle, flags;
	int held;	/* rounds left */
	bool writer;
	uint64_t shadow[PIN_PAGES];
};

static void pin_check(int w, int fd, struct pin_region *r, uint64_t *rs)
{
	static char buf[PAGE_SIZE];
	unsigned long i = rnd(rs) % PIN_PAGES;
	uint64_t v;

	if (r->writer)
		return;	/* the kernel writer owns word 0 of every page */
	/* CPU write -> device read */
	v = mkstamp(W_PIN, rnd(rs), i, getpid());
	r->shadow[i] = v;
	stamp(r->mem + i * PAGE_SIZE, v);
	if (cowpin_dev_read(fd, r->handle, i * PAGE_SIZE, PAGE_SIZE, buf))
		wfail(w, "device read: %s", strerror(errno));
	if (check(buf, v))
		wfail(w, "device does not see the CPU's write (flags 0x%llx)",
		      (unsigned long long)r->flags);
	if (!(r->flags & COWPIN_F_WRITE))
		return;
	/* device write -> CPU read */
	v = mkstamp(W_PIN, rnd(rs), i, getpid());
	stamp(buf, v);
	if (cowpin_dev_write(fd, r->handle, i * PAGE_SIZE, PAGE_SIZE, buf))
		wfail(w, "device write: %s", strerror(errno));
	r->shadow[i] = v;
	if (check(r->mem + i * PAGE_SIZE, v))
		wfail(w, "CPU does not see the device's write (flags 0x%llx)",
		      (unsigned long long)r->flags);
}

static void w_pin(int w, uint64_t rs)
{
	static const uint64_t fl[] = {
		COWPIN_F_LONGTERM | COWPIN_F_WRITE, COWPIN_F_LONGTERM,
		COWPIN_F_WRITE, 0, COWPIN_F_GET | COWPIN_F_WRITE, COWPIN_F_GET,
	};
	struct pin_region reg[4];
	int fd = cowpin_open(), k;
	unsigned long i;

	if (fd < 0)
		wskip(w, "no /dev/cowpin (pin profile)");
	memset(reg, 0, sizeof(reg));
	while (running()) {
		for (k = 0; k < 4; k++) {
			struct pin_region *r = &reg[k];
			int ret;

			if (!r->mem) {
				r->mem = map_anon(PIN_PAGES * PAGE_SIZE, 0);
				if (!r->mem)
					wfail(w, "mmap");
				if (rnd(&rs) & 1)
					madvise(r->mem, PIN_PAGES * PAGE_SIZE,
						MADV_NOHUGEPAGE);
				for (i = 0; i < PIN_PAGES; i++) {
					r->shadow[i] = mkstamp(w, k, i, getpid());
					stamp(r->mem + i * PAGE_SIZE, r->shadow[i]);
				}
				r->flags = fl[rnd(&rs) % 6];
				ret = cowpin_reg(fd, r->mem, PIN_PAGES * PAGE_SIZE,
						 r->flags, &r->handle);
				if (ret)
					wfail(w, "register flags 0x%llx: %s",
					      (unsigned long long)r->flags,
					      strerror(-ret));
				r->held = 1 + rnd(&rs) % 40;	/* rounds: spans flips */
				r->writer = false;
			}
			pin_check(w, fd, r, &rs);
			if ((r->flags & COWPIN_F_WRITE) && !r->writer &&
			    rnd(&rs) % 8 == 0) {
				if (cowpin_writer_start(fd, r->handle, 200, 0))
					wfail(w, "writer start: %s", strerror(errno));
				r->writer = true;
			} else if (r->writer && rnd(&rs) % 4 == 0) {
				uint64_t seq = 0;

				if (cowpin_writer_stop(fd, r->handle, &seq))
					wfail(w, "writer stop: %s", strerror(errno));
				r->writer = false;
				for (i = 0; i < PIN_PAGES; i++) {
					/* seq 0: stopped before its first round */
					if (!seq && check(r->mem + i * PAGE_SIZE, r->shadow[i]))
						wfail(w, "page %lu changed by a writer that never ran", i);
					if (seq && *(uint64_t *)(r->mem + i * PAGE_SIZE) != seq)
						wfail(w, "writer seq %llu, page %lu has %llu",
						      (unsigned long long)seq, i,
						      (unsigned long long)*(uint64_t *)(r->mem + i * PAGE_SIZE));
					r->shadow[i] = mkstamp(w, seq, i, getpid());
					stamp(r->mem + i * PAGE_SIZE, r->shadow[i]);
				}
			}
			if (--r->held <= 0) {
				if (r->writer)
					cowpin_writer_stop(fd, r->handle, NULL);
				if (cowpin_dereg(fd, r->handle))
					wfail(w, "deregister: %s", strerror(errno));
				for (i = 0; !r->writer && i < PIN_PAGES; i++)
					if (check(r->mem + i * PAGE_SIZE, r->shadow[i]))
						wfail(w, "page %lu after unpin", i);
				munmap(r->mem, PIN_PAGES * PAGE_SIZE);
				r->mem = NULL;
			}
			sh->ops[w]++;
		}
		/*
		 * Fork with pinned regions (not with FOLL_GET ones, whose pages
		 * fork shares: a later CPU write may then legitimately copy away
		 * from the reference): fork copies pinned pages for the child,
		 * which sees the snapshot and writes its own copy only.
		 */
		if (rnd(&rs) % 4 == 0) {
			bool ok = true;
			int status;
			pid_t pid;

			for (k = 0; k < 4; k++)
				ok &= !reg[k].mem || (!(reg[k].flags & COWPIN_F_GET) &&
						      !reg[k].writer);
			pid = ok ? fork() : -1;
			if (pid == 0) {
				for (k = 0; k < 4; k++)
					for (i = 0; reg[k].mem && i < PIN_PAGES; i++) {
						if (check(reg[k].mem + i * PAGE_SIZE,
							  reg[k].shadow[i]))
							_exit(10);
						stamp(reg[k].mem + i * PAGE_SIZE, 0xc0ffee);
					}
				_exit(0);
			}
			if (pid > 0) {
				if (waitpid(pid, &status, 0) != pid || status)
					wfail(w, "fork with pins: child status 0x%x", status);
				for (k = 0; k < 4; k++)
					for (i = 0; reg[k].mem && i < PIN_PAGES; i++)
						if (check(reg[k].mem + i * PAGE_SIZE,
							  reg[k].shadow[i]))
							wfail(w, "fork with pins: parent page %lu", i);
				for (k = 0; k < 4; k++)
					if (reg[k].mem)
						pin_check(w, fd, &reg[k], &rs);
			}
		}
		/* now and then close the file with regions (and writers) live */
		if (rnd(&rs) % 64 == 0) {
			close(fd);
			for (k = 0; k < 4; k++) {
				if (reg[k].mem)
					munmap(reg[k].mem, PIN_PAGES * PAGE_SIZE);
				reg[k].mem = NULL;
			}
			fd = cowpin_open();
			if (fd < 0)
				wfail(w, "reopen /dev/cowpin");
		}
		usleep(500);
	}
	close(fd);
}

static void w_vmsplice(int w, uint64_t rs)
{
	unsigned long n = 16, i;	/* 64 KiB, the default pipe size */
	static char back[16 * PAGE_SIZE];
	char *mem = map_anon(n * PAGE_SIZE, 0);
	int p[2];

	if (!mem || pipe(p))
		wfail(w, "mmap/pipe");
	while (running()) {
		struct iovec iov = { mem, n * PAGE_SIZE };
		uint64_t g = rnd(&rs);
		size_t got = 0;
		int status;
		pid_t pid;

		for (i = 0; i < n; i++)
			stamp(mem + i * PAGE_SIZE, mkstamp(w, g, i, getpid()));
		if (vmsplice(p[1], &iov, 1, 0) != (ssize_t)(n * PAGE_SIZE))
			wfail(w, "vmsplice: %s", strerror(errno));
		pid = fork();
		if (pid == 0) {
			for (i = 0; i < n; i++)
				stamp(mem + i * PAGE_SIZE, 0xc0ffee);
			_exit(0);
		}
		if (pid > 0)
			waitpid(pid, &status, 0);
		while (got < n * PAGE_SIZE) {
			ssize_t r = read(p[0], back + got, n * PAGE_SIZE - got);

			if (r <= 0)
				wfail(w, "pipe read");
			got += r;
		}
		for (i = 0; i < n; i++) {
			if (check(back + i * PAGE_SIZE, mkstamp(w, g, i, getpid())))
				wfail(w, "pipe page %lu: not the vmspliced data", i);
			if (check(mem + i * PAGE_SIZE, mkstamp(w, g, i, getpid())))
				wfail(w, "page %lu: the child's write leaked", i);
		}
		sh->ops[w]++;
	}
}

struct od_arg { char *buf; unsigned long len; };
static void *od_forker(void *a)
{
	struct od_arg *o = a;

	while (running()) {
		pid_t pid = fork();

		if (pid == 0) {
			memset(o->buf, 0xee, o->len);	/* the child's copy */
			_exit(0);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
		usleep(1000);
	}
	return NULL;
}

static void w_odirect(int w, uint64_t rs)
{
	unsigned long n = 16, i;
	char *buf = map_anon(n * PAGE_SIZE, 0), *want = malloc(n * PAGE_SIZE);
	struct od_arg oa = { buf, n * PAGE_SIZE };
	pthread_t t;
	int fd = open("/dev/vdb", O_RDWR | O_DIRECT);

	if (fd < 0)
		wskip(w, "no O_DIRECT disk /dev/vdb (swap profile)");
	if (!buf || !want)
		wfail(w, "mmap");
	for (i = 0; i < n; i++)
		stamp(want + i * PAGE_SIZE, mkstamp(w, rs & 0xffff, i, 1));
	memcpy(buf, want, n * PAGE_SIZE);
	if (pwrite(fd, buf, n * PAGE_SIZE, 0) != (ssize_t)(n * PAGE_SIZE))
		wfail(w, "O_DIRECT write: %s", strerror(errno));
	pthread_create(&t, NULL, od_forker, &oa);
	while (running()) {
		memset(buf, 0, n * PAGE_SIZE);
		if (pread(fd, buf, n * PAGE_SIZE, 0) != (ssize_t)(n * PAGE_SIZE))
			wfail(w, "O_DIRECT read: %s", strerror(errno));
		for (i = 0; i < n; i++)
			if (check(buf + i * PAGE_SIZE,
				  mkstamp(w, rs & 0xffff, i, 1)))
				wfail(w, "O_DIRECT read: page %lu lost", i);
		sh->ops[w]++;
	}
	pthread_join(t, NULL);
	close(fd);
}

static void w_clearrefs(int w, uint64_t rs)
{
	unsigned long n = 64, i, k;
	uint64_t *shadow = calloc(n, sizeof(*shadow)), gen = 1;
	char *mem = map_anon(n * PAGE_SIZE, 0);
	int fd = open("/proc/self/clear_refs", O_WRONLY);

	if (fd < 0)
		wskip(w, "no /proc/self/clear_refs");
	if (!mem || !shadow)
		wfail(w, "mmap");
	for (i = 0; i < n; i++) {
		shadow[i] = mkstamp(w, gen, i, getpid());
		stamp(mem + i * PAGE_SIZE, shadow[i]);
	}
	while (running()) {
		if (pwrite(fd, "4", 1, 0) != 1)
			wfail(w, "clear_refs: %s", strerror(errno));
		gen++;
		for (k = 0; k < n / 2; k++) {
			i = rnd(&rs) % n;
			shadow[i] = mkstamp(w, gen, i, getpid());
			stamp(mem + i * PAGE_SIZE, shadow[i]);
		}
		if (gen % 8 == 0)
			fork_round(w, mem, n, shadow, &gen, &rs);
		for (i = 0; i < n; i++)
			if (check(mem + i * PAGE_SIZE, shadow[i]))
				wfail(w, "page %lu after clear_refs", i);
		sh->ops[w]++;
	}
}

static int uffd = -1;
/*
 * Set by the uffd worker once its last write is done. The handler must not
 * leave before that: the deadline can pass between the worker's running()
 * check and a write to a protected page, and that write then waits for a
 * handler that has gone (a soak hung so, in handle_userfault()).
 */
static volatile int uffd_done;

static void *uffd_handler(void *a)
{
	(void)a;
	for (;;) {
		struct pollfd pfd = { .fd = uffd, .events = POLLIN };
		struct uffd_msg msg;

		if (poll(&pfd, 1, 100) <= 0) {
			if (uffd_done)
				return NULL;
			continue;
		}
		if (read(uffd, &msg, sizeof(msg)) != sizeof(msg))
			continue;
		if (msg.event == UFFD_EVENT_PAGEFAULT &&
		    (msg.arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WP)) {
			struct uffdio_writeprotect wp = {
				.range = { msg.arg.pagefault.address & ~(PAGE_SIZE - 1),
					   PAGE_SIZE },
				.mode = 0,
			};
			int tries = 0;

			/* the faulting thread waits for this: never give up */
			while (ioctl(uffd, UFFDIO_WRITEPROTECT, &wp) && tries++ < 1000) {
				if (!sh->err[W_UFFD][0])
					snprintf(sh->err[W_UFFD], sizeof(sh->err[W_UFFD]),
						 "(unprotect retried: %s)", strerror(errno));
				usleep(1000);
			}
		}
	}
}

static void w_uffd(int w, uint64_t rs)
{
	unsigned long n = 64, i, k;
	uint64_t *shadow = calloc(n, sizeof(*shadow)), gen = 1;
	char *mem = map_anon(n * PAGE_SIZE, 0);
	struct uffdio_api api = { .api = UFFD_API,
				  .features = UFFD_FEATURE_PAGEFAULT_FLAG_WP };
	struct uffdio_register reg = { .range = { (uintptr_t)mem, n * PAGE_SIZE },
				       .mode = UFFDIO_REGISTER_MODE_WP };
	pthread_t t;

	if (!mem || !shadow)
		wfail(w, "mmap");
	madvise(mem, n * PAGE_SIZE, MADV_NOHUGEPAGE);
	uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0)
		wskip(w, "no userfaultfd");
	if (ioctl(uffd, UFFDIO_API, &api))
		wskip(w, "no UFFD_FEATURE_PAGEFAULT_FLAG_WP");
	for (i = 0; i < n; i++) {
		shadow[i] = mkstamp(w, gen, i, getpid());
		stamp(mem + i * PAGE_SIZE, shadow[i]);
	}
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		wskip(w, "UFFDIO_REGISTER_MODE_WP refused");
	pthread_create(&t, NULL, uffd_handler, NULL);
	while (running()) {
		struct uffdio_writeprotect wp = {
			.range = { (uintptr_t)mem, n * PAGE_SIZE },
			.mode = UFFDIO_WRITEPROTECT_MODE_WP,
		};

		if (ioctl(uffd, UFFDIO_WRITEPROTECT, &wp))
			wfail(w, "UFFDIO_WRITEPROTECT: %s", strerror(errno));
		gen++;
		for (k = 0; k < n / 2; k++) {
			i = rnd(&rs) % n;
			shadow[i] = mkstamp(w, gen, i, getpid());
			stamp(mem + i * PAGE_SIZE, shadow[i]);
		}
		wp.mode = 0;
		if (ioctl(uffd, UFFDIO_WRITEPROTECT, &wp))
			wfail(w, "UFFDIO_WRITEPROTECT off: %s", strerror(errno));
		for (i = 0; i < n; i++)
			if (check(mem + i * PAGE_SIZE, shadow[i]))
				wfail(w, "page %lu after uffd-wp", i);
		sh->ops[w]++;
	}
	uffd_done = 1;
	pthread_join(t, NULL);
}

static void w_ksm(int w, uint64_t rs)
{
	unsigned long n = 64, i, k;
	uint64_t *shadow = calloc(n, sizeof(*shadow)), gen = 1;
	char *mem = map_anon(n * PAGE_SIZE, 0);

	if (access("/sys/kernel/mm/ksm/run", F_OK))
		wskip(w, "no KSM");
	if (!mem || !shadow)
		wfail(w, "mmap");
	madvise(mem, n * PAGE_SIZE, MADV_NOHUGEPAGE);
	while (running()) {
		/* identical content (per worker, per generation) to merge */
		for (i = 0; i < n; i++) {
			shadow[i] = mkstamp(w, gen, 0, getpid());
			stamp(mem + i * PAGE_SIZE, shadow[i]);
		}
		if (madvise(mem, n * PAGE_SIZE, MADV_MERGEABLE))
			wskip(w, "MADV_MERGEABLE refused");
		usleep(50000);	/* ksmd runs every 10 ms */
		for (k = 0; k < n / 4; k++) {
			i = rnd(&rs) % n;
			shadow[i] = mkstamp(w, gen, i + 1, getpid());
			stamp(mem + i * PAGE_SIZE, shadow[i]);
		}
		if (gen % 4 == 0)
			fork_round(w, mem, n, shadow, &gen, &rs);
		for (i = 0; i < n; i++)
			if (check(mem + i * PAGE_SIZE, shadow[i]))
				wfail(w, "page %lu after KSM", i);
		madvise(mem, n * PAGE_SIZE, MADV_UNMERGEABLE);
		gen++;
		sh->ops[w]++;
	}
}

static bool swap_on(void)
{
	char line[256];
	FILE *f = fopen("/proc/swaps", "r");
	int lines = 0;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		lines++;
	fclose(f);
	return lines > 1;
}

static void w_swap(int w, uint64_t rs)
{
	unsigned long n = 128, i;
	uint64_t *shadow = calloc(n, sizeof(*shadow)), gen = 1;
	char *mem = map_anon(n * PAGE_SIZE, 0);

	if (!swap_on())
		wskip(w, "no swap (swap profile)");
	if (!mem || !shadow)
		wfail(w, "mmap");
	madvise(mem, n * PAGE_SIZE, MADV_NOHUGEPAGE);
	for (i = 0; i < n; i++) {
		shadow[i] = mkstamp(w, gen, i, getpid());
		stamp(mem + i * PAGE_SIZE, shadow[i]);
	}
	while (running()) {
		if (madvise(mem, n * PAGE_SIZE, MADV_PAGEOUT))
			wskip(w, "MADV_PAGEOUT refused");
		fork_round(w, mem, n, shadow, &gen, &rs);
		sh->ops[w]++;
	}
}

/*
 * R/O long-term pins of pages shared with a live child: the pin makes GUP
 * unshare them (exclusive, mapcount: an unshare fault, cow_gup_break) or,
 * under refcount, pins the shared page itself.  Whatever the policy was at
 * pin time and at the parent's later write: the child keeps its snapshot,
 * and the device reads either the snapshot or the parent's write (the
 * latter not under refcount, whose pin stays on the child's page).
 */
static void w_ropin(int w, uint64_t rs)
{
	enum { N = 16 };
	static uint64_t old[N], new[N], pfn[N];
	static char buf[PAGE_SIZE];
	char *mem = map_anon(N * PAGE_SIZE, 0);
	int fd = cowpin_open();
	unsigned long i;

	if (fd < 0)
		wskip(w, "no /dev/cowpin (pin profile)");
	if (!mem)
		wfail(w, "mmap");
	madvise(mem, N * PAGE_SIZE, MADV_NOHUGEPAGE);
	while (running()) {
		uint64_t g = rnd(&rs), handle;
		int go[2], status, ret;
		pid_t pid;
		char c = 0;

		for (i = 0; i < N; i++) {
			old[i] = mkstamp(w, g, i, getpid());
			new[i] = mkstamp(w, g + 1, i, getpid());
			stamp(mem + i * PAGE_SIZE, old[i]);
		}
		if (pipe(go))
			wfail(w, "pipe");
		pid = fork();
		if (pid == 0) {
			/* wait until the parent has pinned and written (EOF if it died) */
			close(go[1]);
			if (read(go[0], &c, 1) != 1)
				_exit(11);
			for (i = 0; i < N; i++)
				if (check(mem + i * PAGE_SIZE, old[i]))
					_exit(10);
			_exit(0);
		}
		if (pid < 0)
			wfail(w, "fork: %s", strerror(errno));
		for (i = 0; i < N; i++)
			pfn[i] = scn_pfn(mem + i * PAGE_SIZE);
		ret = cowpin_reg(fd, mem, N * PAGE_SIZE, COWPIN_F_LONGTERM, &handle);
		if (ret)
			wfail(w, "R/O long-term pin of shared pages: %s", strerror(-ret));
		/* An unshare gives the pinning parent a page of its own. */
		for (i = 0; i < N; i++)
			sh->ropin_unshared += scn_pfn(mem + i * PAGE_SIZE) != pfn[i];
		for (i = 0; i < N; i += 2)
			stamp(mem + i * PAGE_SIZE, new[i]);
		if (write(go[1], &c, 1) != 1)
			wfail(w, "pipe write");
		if (waitpid(pid, &status, 0) != pid || status)
			wfail(w, "child status 0x%x: %s", status, status == 10 << 8 ?
			      "the parent's write after the pin leaked into the child" :
			      "child failed");
		close(go[0]);
		close(go[1]);
		for (i = 0; i < N; i++) {
			if (cowpin_dev_read(fd, handle, i * PAGE_SIZE, PAGE_SIZE, buf))
				wfail(w, "device read: %s", strerror(errno));
			if (check(buf, old[i]) && (i % 2 || check(buf, new[i])))
				wfail(w, "device reads page %lu as neither the snapshot nor the parent's write", i);
			if (check(mem + i * PAGE_SIZE, i % 2 ? old[i] : new[i]))
				wfail(w, "parent page %lu lost its content", i);
		}
		if (cowpin_dereg(fd, handle))
			wfail(w, "deregister: %s", strerror(errno));
		sh->ops[w]++;
	}
	close(fd);
}

static void w_stressng(int w, uint64_t rs)
{
	static const char out[] = "/tmp/flipstress-stressng.out";
	char secs[16], line[256], last[3][256] = { "", "", "" };
	int st, n = 0;

	(void)rs;
	if (access("/usr/bin/stress-ng", X_OK))
		wskip(w, "no /usr/bin/stress-ng (profile GUEST_INSTALL)");
	while (running()) {
		double left = deadline - now();
		pid_t pid;
		FILE *f;

		snprintf(secs, sizeof(secs), "%d", left > 6 ? 5 : left > 2 ? (int)left - 1 : 1);
		pid = fork();
		if (pid < 0)
			wfail(w, "fork: %s", strerror(errno));
		if (!pid) {
			int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);

			if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
				_exit(126);
			execl("/usr/bin/stress-ng", "stress-ng", "--verify", "--timeout", secs,
			      "--temp-path", "/tmp", "--fork", "1", "--vfork", "1",
			      "--mmapfork", "1", "--vm", "1", "--vm-bytes", "16m",
			      "--vm-method", "all", "--vm-splice", "1",
			      "--madvise", "1", "--mremap", "1", "--mremap-bytes", "4m",
			      "--mprotect", "1", "--userfaultfd", "1",
			      "--userfaultfd-bytes", "4m", (char *)NULL);
			_exit(127);
		}
		if (waitpid(pid, &st, 0) != pid)
			wfail(w, "waitpid: %s", strerror(errno));
		if (WIFEXITED(st) && !WEXITSTATUS(st)) {
			sh->ops[w]++;
			continue;
		}
		/* The last lines of its output say which stressor failed. */
		f = fopen(out, "r");
		while (f && fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(last[n++ % 3], sizeof(last[0]), "%s", line);
		}
		if (f)
			fclose(f);
		wfail(w, "stress-ng run %ld: status 0x%x: %s | %s | %s", sh->ops[w] + 1, st,
		      last[n % 3], last[(n + 1) % 3], last[(n + 2) % 3]);
	}
}

typedef void (*worker_fn)(int, uint64_t);
static const worker_fn wfn[NR_W] = { w_fork, w_thp, w_pin, w_vmsplice,
	w_odirect, w_clearrefs, w_uffd, w_ksm, w_swap, w_ropin, w_stressng };

/* ---- the policy: flippers, reader, log checker ----------------------- */

static long flips_ok, bad_ok, bad_rejected, bad_other, reads, reads_bad;
/* Writes of each policy name that succeeded, and that failed. */
static long flips_to[4], flips_refused[4];
static long log_lines, log_breaks, log_gaps, log_ties;
static char log_last_to[32];
/*
 * An event that did not chain, held until the next one: trace_pipe merges
 * the CPUs' buffers by timestamp, and the global trace clock gives two
 * changes the same timestamp when the later one's CPU clock lags (it
 * never goes back, 6.1's trace_clock_global()), so two changes made in
 * turn under cow_policy_mutex on two CPUs may come out in either order.
 * Such a pair is taken in the order that chains; any other break counts.
 */
static struct {
	bool on;
	char from[16], to[16], ts[24], before[32];
} log_held;

static void log_break(const char *ended, const char *from)
{
	log_breaks++;
	tap_diag("trace chain broken: previous event ended at %s, next from %s", ended, from);
}

/* At the end, or at a gap: a held event's break stands. */
static void log_flush(void)
{
	if (log_held.on)
		log_break(log_held.before, log_held.from);
	log_held.on = false;
}
static volatile int threads_stop;

static int sysctl_write(const void *buf, size_t len)
{
	int fd = open("/proc/sys/vm/cow_policy", O_WRONLY);
	ssize_t r;

	if (fd < 0)
		return -errno;
	r = write(fd, buf, len);
	r = r == (ssize_t)len ? 0 : r < 0 ? -errno : -EIO;
	close(fd);
	return r;
}

static void *flipper(void *a)
{
	static const char *bad[] = { "mapcountx", "", "refcount\n\n", "2",
		" exclusive", "EXCLUSIVE", "map\0count", "\n" };
	static const size_t badlen[] = { 9, 0, 10, 1, 10, 9, 9, 1 };
	uint64_t rs = seed * 7919 + (uintptr_t)a;

	while (!threads_stop) {
		if (rnd(&rs) % 8 == 0) {
			int k = rnd(&rs) % 8, r = sysctl_write(bad[k], badlen[k]);

			if (!r)
				__sync_fetch_and_add(&bad_ok, 1);
			else if (r == -EINVAL)
				__sync_fetch_and_add(&bad_rejected, 1);
			else
				__sync_fetch_and_add(&bad_other, 1);
		} else {
			unsigned int n = rnd(&rs) % nnames;
			const char *p = names[n];

			if (sysctl_write(p, strlen(p)) == 0) {
				__sync_fetch_and_add(&flips_ok, 1);
				__sync_fetch_and_add(&flips_to[n], 1);
			} else {
				__sync_fetch_and_add(&flips_refused[n], 1);
			}
		}
		usleep(1000 + rnd(&rs) % 4000);
	}
	return NULL;
}

static void *reader(void *a)
{
	char buf[64];

	(void)a;
	while (!threads_stop) {
		int fd = open("/proc/sys/vm/cow_policy", O_RDONLY);
		unsigned int i;
		ssize_t r = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		bool ok = false;

		if (fd >= 0)
			close(fd);
		if (r > 0) {
			buf[r] = 0;
			for (i = 0; i < nnames; i++) {
				char want[16];

				snprintf(want, sizeof(want), "%s\n", names[i]);
				ok |= !strcmp(buf, want);
			}
		}
		reads++;
		if (!ok) {
			reads_bad++;
			tap_diag("sysctl read back '%.40s'", r > 0 ? buf : "(error)");
		}
		usleep(300);
	}
	return NULL;
}

#define TRACING "/sys/kernel/tracing"

static int trace_fd = -1;

static void trace_event_line(const char *line)
{
	char from[16], to[16], ts[24] = "";
	const char *p, *t;

	if (strstr(line, "[LOST ")) {	/* ring buffer overrun: restart */
		log_gaps++;
		log_held.on = false;
		log_last_to[0] = 0;
		return;
	}
	p = strstr(line, "cow_policy_change: ");
	if (!p || sscanf(p, "cow_policy_change: old=%15s new=%15s", from, to) != 2)
		return;
	/* The timestamp: the word ending in ':' just before the event name. */
	for (t = p - 2; t > line && t[-1] != ' '; t--)
		;
	if (p - 1 - t > 0 && p - 1 - t < (long)sizeof(ts))
		snprintf(ts, sizeof(ts), "%.*s", (int)(p - 1 - t), t);
	log_lines++;
	if (!strcmp(from, to)) {
		log_breaks++;
		tap_diag("trace event for a non-change %s -> %s", from, to);
	}
	if (log_held.on) {
		if (ts[0] && !strcmp(ts, log_held.ts) && !strcmp(log_held.before, from) &&
		    !strcmp(to, log_held.from)) {
			log_ties++;
			tap_diag("two changes at %s came out of order (%s -> %s, then %s -> %s): taken in the order that chains",
				 ts, log_held.from, log_held.to, from, to);
			log_held.on = false;
			snprintf(log_last_to, sizeof(log_last_to), "%s", log_held.to);
			return;
		}
		log_flush();
	}
	if (log_last_to[0] && strcmp(log_last_to, from)) {
		log_held.on = true;
		snprintf(log_held.from, sizeof(log_held.from), "%s", from);
		snprintf(log_held.to, sizeof(log_held.to), "%s", to);
		snprintf(log_held.ts, sizeof(log_held.ts), "%s", ts);
		snprintf(log_held.before, sizeof(log_held.before), "%s", log_last_to);
	}
	snprintf(log_last_to, sizeof(log_last_to), "%s", to);
}

static void *trace_reader(void *a)
{
	static char buf[1 << 16];
	size_t len = 0;

	(void)a;
	for (;;) {
		struct pollfd pfd = { .fd = trace_fd, .events = POLLIN };
		char *nl, *line;
		ssize_t r;

		if (poll(&pfd, 1, 200) <= 0) {
			if (threads_stop == 2)
				return NULL;
			continue;
		}
		r = read(trace_fd, buf + len, sizeof(buf) - 1 - len);
		if (r <= 0) {
			if (threads_stop == 2)
				return NULL;
			continue;
		}
		len += r;
		buf[len] = 0;
		for (line = buf; (nl = strchr(line, '\n')); line = nl + 1) {
			*nl = 0;
			trace_event_line(line);
		}
		len -= line - buf;
		memmove(buf, line, len);
		if (len == sizeof(buf) - 1)	/* no newline in 64 KiB */
			len = 0;
	}
}

/* ---- setup and accounting ---------------------------------------------- */

static void put(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0)
		return;
	if (write(fd, val, strlen(val)) < 0)
		tap_diag("write %s to %s: %s", val, path, strerror(errno));
	close(fd);
}

static void get(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t r = fd < 0 ? -1 : read(fd, buf, len - 1);

	buf[r > 0 ? r : 0] = 0;
	if (r > 0 && buf[r - 1] == '\n')
		buf[r - 1] = 0;
	if (fd >= 0)
		close(fd);
}


/*
 * Where the memory went: every /proc/meminfo field that moved by more
 * than 1 MiB between two snapshots (read with get()).
 */
static long meminfo_field(const char *m, const char *key, size_t klen)
{
	for (const char *l = m; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (!strncmp(l, key, klen))
			return atol(l + klen);
	return 0;
}

static long meminfo_kb(const char *key)
{
	char m[8192];

	get("/proc/meminfo", m, sizeof(m));
	return meminfo_field(m, key, strlen(key));
}

static void meminfo_moved(const char *m0, const char *m1)
{
	for (const char *l = m1; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *colon = strchr(l, ':');
		size_t klen;
		long d;

		if (!colon)
			break;
		klen = colon + 1 - l;
		d = atol(colon + 1) - meminfo_field(m0, l, klen);
		if (labs(d) > 1024)
			tap_diag("  %.*s %+ld kB", (int)(klen - 1), l, d);
	}
}

/*
 * Free pages held in the per-CPU page lists (zoneinfo's pagesets
 * "count:"), in kB: MemFree does not count them, and how full the lists
 * are after a workload is chance, several MiB either way.
 */
static long pcp_kb(void)
{
	FILE *f = fopen("/proc/zoneinfo", "r");
	char line[256];
	long pages = 0;

	while (f && fgets(line, sizeof(line), f)) {
		const char *p = line + strspn(line, " ");

		if (!strncmp(p, "count:", 6))
			pages += atol(p + 6);
	}
	if (f)
		fclose(f);
	return pages * (PAGE_SIZE / 1024);
}

/*
 * Page cache dropped, vmstat folded, and every SLUB cache shrunk
 * (/sys/kernel/slab/<cache>/shrink).  Shrinking also empties KASAN's
 * quarantine of that cache (kmem_cache_shrink() -> kasan_cache_shrink()
 * in 6.1): generic KASAN holds freed objects back, up to 1/32 of RAM,
 * which would otherwise count as memory lost on the kasan variant.  It
 * frees only empty slabs, never a live object, so a leak still shows.
 * Kernels with SLOB (the lean tinyconfig ones) have no /sys/kernel/slab.
 */
static void settle(void)
{
	char path[300];
	struct dirent *de;
	DIR *d;
	int fd;

	sync();
	put("/proc/sys/vm/drop_caches", "3");
	d = opendir("/sys/kernel/slab");
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' || de->d_type == DT_LNK)
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink", de->d_name);
		fd = open(path, O_WRONLY);
		if (fd >= 0 && write(fd, "1", 1) != 1)
			tap_diag("could not shrink %s", de->d_name);
		if (fd >= 0)
			close(fd);
	}
	if (d)
		closedir(d);
	put("/proc/sys/vm/stat_refresh", "1");
}

static void cmdline_opt(const char *key, long *val)
{
	char buf[2048], *p;

	get("/proc/cmdline", buf, sizeof(buf));
	p = strstr(buf, key);
	if (p)
		*val = atol(p + strlen(key));
}

int main(int argc, char **argv)
{
	long seconds = 20, s = 1;
	char start_policy[32], ksm_run[16], ksm_sleep[16], ksm_pages[16];
	char printk[64];
	long mem0, mem1;
	static char minfo0[8192], minfo1[8192];
	struct vmstat v0, v1;
	pthread_t ft[2], rt, kt;
	pid_t pid[NR_W];
	long long mthp0 = 0;
	const char *mm_id = getenv("COWTEST_MM_ID");
	double t0;
	int k, npoints;

	for (k = 1; k < argc; k++) {
		if (!strcmp(argv[k], "--seconds") && k + 1 < argc) {
			seconds = atol(argv[++k]);
		} else if (!strcmp(argv[k], "--seed") && k + 1 < argc) {
			s = atol(argv[++k]);
		} else if (!strcmp(argv[k], "--may-skip")) {
			may_skip = true;
		} else if (!strcmp(argv[k], "--mthp")) {
			mthp = true;
		} else {
			fprintf(stderr, "usage: flipstress [--seconds N] [--seed S] [--may-skip] [--mthp]\n");
			return 2;
		}
	}
	cmdline_opt("cowtest.flipsec=", &seconds);
	cmdline_opt("cowtest.flipseed=", &s);
	seed = s ? s : 1;
	/* "largefolio" where the kernel has CONFIG_COW_POLICY_MM_ID. */
	if (mm_id && !strcmp(mm_id, "y"))
		nnames = 4;
	npoints = NPOINTS + mthp + (mthp && nnames == 4);
	setvbuf(stdout, NULL, _IOLBF, 0);
	tap_plan(npoints);
	tap_diag("flipstress: %ld s, seed %llu%s, %u policies (COWTEST_MM_ID=%s)", seconds,
		 seed, mthp ? ", mTHP" : "", nnames, mm_id ?: "unset");
	if (!cow_policy_present()) {
		for (k = 0; k < npoints; k++)
			if (cow_policy_expected())
				tap_result(false, "flipstress: no /proc/sys/vm/cow_policy");
			else
				tap_skip("no /proc/sys/vm/cow_policy", "flipstress");
		return tap_exit();
	}
	snprintf(start_policy, sizeof(start_policy), "%s", cow_policy_now());
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		bail("mmap");
	memset(sh, 0, sizeof(*sh));

	/* Quiet console (WARNINGs, level 4, still print), fast KSM. */
	get("/proc/sys/kernel/printk", printk, sizeof(printk));
	put("/proc/sys/kernel/printk", "5");
	get("/sys/kernel/mm/ksm/run", ksm_run, sizeof(ksm_run));
	get("/sys/kernel/mm/ksm/sleep_millisecs", ksm_sleep, sizeof(ksm_sleep));
	get("/sys/kernel/mm/ksm/pages_to_scan", ksm_pages, sizeof(ksm_pages));
	put("/sys/kernel/mm/ksm/sleep_millisecs", "10");
	put("/sys/kernel/mm/ksm/pages_to_scan", "1000");
	put("/sys/kernel/mm/ksm/run", "1");

	settle();
	mem0 = meminfo_kb("MemAvailable:") + pcp_kb();
	get("/proc/meminfo", minfo0, sizeof(minfo0));
	vmstat_read(&v0);

	/*
	 * Every policy change, in order across CPUs (the global clock).  The
	 * event is on from boot (trace_event= in the profile): switching it
	 * here would patch kernel text (cowtest.h, trace_event_on()).
	 */
	put(TRACING "/trace_clock", "global");
	put(TRACING "/trace", "");
	if (trace_event_on("cow/cow_policy_change"))
		trace_fd = open(TRACING "/trace_pipe", O_RDONLY | O_NONBLOCK);
	else
		tap_diag("cow:cow_policy_change is not on from boot (trace_event=): no trace check");
	snprintf(log_last_to, sizeof(log_last_to), "%s", start_policy);

	mthp0 = mthp_fault_total();
	t0 = now();
	deadline = t0 + seconds;
	for (k = 0; k < NR_W; k++) {
		pid[k] = fork();
		if (pid[k] < 0)
			bail("fork");
		if (pid[k] == 0) {
			if (trace_fd >= 0)
				close(trace_fd);
			wfn[k](k, seed * 1000003ULL + k);
			_exit(0);
		}
	}
	if (trace_fd >= 0)
		pthread_create(&kt, NULL, trace_reader, NULL);
	pthread_create(&ft[0], NULL, flipper, (void *)1);
	pthread_create(&ft[1], NULL, flipper, (void *)2);
	pthread_create(&rt, NULL, reader, NULL);

	for (k = 0; k < NR_W; k++) {
		int status;

		/* Workers stop at the deadline; 60 s more is a hang. */
		while (waitpid(pid[k], &status, WNOHANG) == 0) {
			if (now() > deadline + 60) {
				char cmd[160];

				tap_diag("worker %s hangs: its threads (state, wchan), then killed", wname[k]);
				snprintf(cmd, sizeof(cmd),
					 "for t in /proc/%d/task/*; do echo \"    $t: $(cut -d' ' -f3 $t/stat) $(cat $t/wchan)\"; cat $t/stack 2>/dev/null; done",
					 pid[k]);
				if (system(cmd))
					tap_diag("could not list the threads");
				sh->fail[k]++;
				snprintf(sh->err[k], sizeof(sh->err[k]), "hung");
				kill(pid[k], SIGKILL);
				waitpid(pid[k], &status, 0);
				break;
			}
			usleep(100000);
		}
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			if (!sh->fail[k])
				snprintf(sh->err[k], sizeof(sh->err[k]),
					 "died, status 0x%x", status);
			sh->fail[k] += !sh->fail[k];
		}
	}
	threads_stop = 1;
	pthread_join(ft[0], NULL);
	pthread_join(ft[1], NULL);
	pthread_join(rt, NULL);
	if (sysctl_write(start_policy, strlen(start_policy)))
		tap_diag("could not restore %s", start_policy);
	usleep(300000);
	threads_stop = 2;
	if (trace_fd >= 0) {
		pthread_join(kt, NULL);
		close(trace_fd);
	}
	tap_diag("ran %.1f s", now() - t0);
	if (mthp) {
		long long d = mthp_fault_total() - mthp0;

		tap_diag("mTHP: %lld anonymous mTHP faults while the workers ran", d);
		tap_result(d > 0, "flipstress: the workers faulted anonymous mTHPs");
	}

	/* 1: no corruption */
	{
		long fails = 0;

		for (k = 0; k < NR_W; k++) {
			if (sh->skip[k][0])
				tap_diag("%-9s skipped: %s", wname[k], sh->skip[k]);
			else
				tap_diag("%-9s ops %ld%s%s", wname[k], sh->ops[k],
					 sh->fail[k] ? "  FAILED: " : "", sh->err[k]);
			fails += sh->fail[k];
		}
		tap_result(fails == 0, "flipstress: no worker saw corruption or died");
	}
	/*
	 * 2: every worker ran and made progress.  A worker that skipped (its
	 * device or kernel feature missing) fails this unless --may-skip was
	 * given: the flip profile has everything every worker needs.
	 */
	{
		bool ok = true;

		for (k = 0; k < NR_W; k++)
			if (sh->skip[k][0] ? !may_skip : sh->ops[k] == 0) {
				ok = false;
				tap_diag("%s %s", wname[k], sh->skip[k][0] ?
					 "skipped (no --may-skip)" : "made no progress");
			}
		tap_result(ok, "flipstress: every worker %smade progress",
			   may_skip ? "that ran " : "ran and ");
	}
	tap_diag("flips: %ld successful policy writes; bad writes %ld rejected EINVAL, %ld accepted, %ld other errors",
		 flips_ok, bad_rejected, bad_ok, bad_other);
	for (k = 0; k < (int)nnames; k++)
		tap_diag("flips to %-10s %ld (refused %ld)", names[k], flips_to[k],
			 flips_refused[k]);
	tap_result(flips_ok >= seconds * 10 && bad_ok == 0 && bad_other == 0,
		   "flipstress: %ld flips (>= 10/s), every bad write EINVAL", flips_ok);
	tap_result(reads > 0 && reads_bad == 0,
		   "flipstress: %ld concurrent reads, each one of the %u names (%ld not)",
		   reads, nnames, reads_bad);
	log_flush();
	tap_diag("trace: %ld change events, %ld chain breaks, %ld pairs with one timestamp reordered, %ld overruns, last -> %s",
		 log_lines, log_breaks, log_ties, log_gaps, log_last_to);
	tap_result(trace_fd >= 0 && log_lines > 0 && log_lines <= flips_ok + 1 &&
		   log_breaks == 0 && !strcmp(log_last_to, start_policy) &&
		   !strcmp(cow_policy_now(), start_policy),
		   "flipstress: one trace event per change (%ld events <= %ld writes, chained, ends at %s)",
		   log_lines, flips_ok + 1, start_policy);

	/* restore KSM (unmerge everything), the console */
	put("/sys/kernel/mm/ksm/run", "2");
	put("/sys/kernel/mm/ksm/sleep_millisecs", ksm_sleep[0] ? ksm_sleep : "20");
	put("/sys/kernel/mm/ksm/pages_to_scan", ksm_pages[0] ? ksm_pages : "100");
	put("/sys/kernel/mm/ksm/run", ksm_run[0] ? ksm_run : "0");
	for (k = 0; printk[k] && printk[k] != '\t' && printk[k] != ' '; k++)
		;
	printk[k] = 0;
	put("/proc/sys/kernel/printk", printk[0] ? printk : "7");

	/* pins and memory balance */
	settle();
	sleep(1);
	settle();
	vmstat_read(&v1);
	{
		long long acq = vmstat_get(&v1, "nr_foll_pin_acquired");
		long long rel = vmstat_get(&v1, "nr_foll_pin_released");

		tap_diag("pins: nr_foll_pin_acquired %lld (+%lld), nr_foll_pin_released %lld (+%lld)",
			 acq, vmstat_delta(&v0, &v1, "nr_foll_pin_acquired"),
			 rel, vmstat_delta(&v0, &v1, "nr_foll_pin_released"));
		tap_result(acq == rel, "flipstress: pin balance (acquired == released)");
	}
	for (k = 0; k < 20; k++) {
		mem1 = meminfo_kb("MemAvailable:") + pcp_kb();
		if (mem1 >= mem0 - MEM_TOL_KB)
			break;
		sleep(1);
		settle();
	}
	tap_diag("memory: MemAvailable + per-CPU lists %ld kB before, %ld kB after (%+ld kB), tolerance %d kB",
		 mem0, mem1, mem1 - mem0, MEM_TOL_KB);
	get("/proc/meminfo", minfo1, sizeof(minfo1));
	tap_diag("meminfo fields that moved by more than 1 MiB:");
	meminfo_moved(minfo0, minfo1);
	tap_result(mem1 >= mem0 - MEM_TOL_KB,
		   "flipstress: MemAvailable (+ per-CPU lists) back within %d MiB",
		   MEM_TOL_KB / 1024);
	{
		/* The 6.12 line's counters only where the kernel has them. */
		static const char *ctr[] = { "cow_reuse_exclusive", "cow_reuse_refcount",
			"cow_reuse_mapcount", "cow_copy_mapcount", "cow_copy_refcount",
			"cow_ksm", "cow_copy_swap", "cow_copy_large",
			"cow_reuse_owner", "cow_copy_shared", "cow_copy_single",
			"cow_pmd_split", "cow_gup_break",
			"cow_fork_copy", "cow_clear_refs_pinned", "thp_split_pmd",
			"pswpout", "pswpin", NULL };
		char line[1024] = "";
		int off = 0;

		for (k = 0; ctr[k]; k++)
			if (vmstat_has(&v1, ctr[k]))
				off += snprintf(line + off, sizeof(line) - off, " %s=%lld",
						ctr[k], vmstat_delta(&v0, &v1, ctr[k]));
		tap_diag("vmstat deltas:%s", line);
	}
	/*
	 * "largefolio" was in force while large folios were written: its
	 * rule for a page of a large folio that is not exclusive
	 * (patches/6.12/0014) counts cow_reuse_owner, cow_copy_shared or
	 * cow_copy_single, which no other policy and no small folio does.  A
	 * point with --mthp, which requires the large folios; otherwise the
	 * figures only.
	 */
	if (nnames == 4) {
		long long owner = vmstat_delta(&v0, &v1, "cow_reuse_owner");
		long long shared = vmstat_delta(&v0, &v1, "cow_copy_shared");
		long long single = vmstat_delta(&v0, &v1, "cow_copy_single");
		long long lf = owner + shared + single;

		tap_diag("largefolio: %ld flips to it, %lld decisions on large folios under it (cow_reuse_owner +%lld, cow_copy_shared +%lld, cow_copy_single +%lld)",
			 flips_to[3], lf, owner, shared, single);
		if (mthp)
			tap_result(flips_to[3] > 0 && lf > 0,
				   "flipstress: largefolio decided on large folios while in force (%lld decisions, %ld flips to it)",
				   lf, flips_to[3]);
	}
	/*
	 * The ropin worker's own R/O pins of shared pages took the unshare
	 * path at least once: its rounds (at least 10) run under every
	 * policy, and only refcount pins without unsharing.  The evidence is
	 * the worker's: a page whose pfn changed when it was pinned (the
	 * global cow_gup_break moves for any worker's GUP).
	 */
	if (sh->skip[W_ROPIN][0] && may_skip)
		tap_skip(sh->skip[W_ROPIN], "flipstress: R/O pins of shared pages broke COW");
	else if (sh->skip[W_ROPIN][0])
		tap_result(false, "flipstress: R/O pins of shared pages broke COW (ropin skipped: %s)",
			   sh->skip[W_ROPIN]);
	else
		tap_result(sh->ops[W_ROPIN] >= 10 && sh->ropin_unshared > 0,
			   "flipstress: R/O pins of shared pages broke COW (%ld pages unshared by ropin's pins in %ld rounds; cow_gup_break +%lld)",
			   sh->ropin_unshared, sh->ops[W_ROPIN],
			   vmstat_delta(&v0, &v1, "cow_gup_break"));
	return tap_exit();
}
