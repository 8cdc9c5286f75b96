// SPDX-License-Identifier: GPL-2.0
/*
 * cowbench: the copy-on-write microbenchmarks of `make bench`, run in the
 * guest. One process runs every benchmark under every policy: for each round
 * it draws a random policy order (seeded, so a run repeats), writes the
 * policy to /proc/sys/vm/cow_policy and runs one sample of each benchmark.
 * Rounds 1..warmup are marked warm=1 (the host discards them).
 *
 * One line per sample on stdout:
 *   BENCH round=R warm=W policy=P bench=B size_kib=S ops=N ns=T unit=U \
 *         v.pgfault=D v.cow_copy_mapcount=D ...
 * ns is the CLOCK_MONOTONIC time of the N timed operations (sample_ns that
 * of the whole sample, set-up included) (guest time: under
 * QEMU -icount shift=0 that is one ns per executed instruction), v.* the
 * /proc/vmstat deltas over the timed part. BENCH-SKIP lines name benchmarks
 * that cannot run here (no /dev/cowpin, no THP, ...); "# progress" lines
 * report where the run is.
 *
 * Benchmarks (4 KiB pages unless named thp):
 *   fork-S     fork + child _exit + wait, S KiB of touched memory; op = fork
 *   forkthp-S  the same with PMD-mapped THPs
 *   forkpin-S  the same with the region long-term pinned (cowpin): fork
 *              copies the pinned pages for the child
 *   copy-S     fork, child alive, parent writes every page; op = page
 *   reuse-S    fork, child exits, parent writes every page; op = page
 *   softdirty-S  clear_refs 4, then write every page; op = page
 *   wprt-S     mprotect RO, mprotect RW, write every page; op = page
 *   thpcopy-S  fork with THPs, child alive, parent writes every 4K page
 *   thpreuse-S fork with THPs, child exits, parent writes every 4K page
 *   munmapmthpK-S  fault S KiB of K KiB mTHPs in, then munmap() them
 *              (timed); op = munmap: the unmap side of the MM owner
 *              tracking (6.12's largefolio series), whose map side fork
 *              times
 *   mthpcopyK-S, mthpreuseK-S, forkmthpK-S  copy, reuse and fork on
 *              anonymous multi-size THPs of K KiB (16, 64), mapped by PTEs:
 *              the sample turns hugepages-<K>kB/enabled to madvise and the
 *              PMD size to never, restores both after, and fails unless
 *              every folio of its region is a K KiB mTHP (the size's
 *              stats/anon_fault_alloc); skipped where the knob is missing
 *              (kernels before 6.8)
 *   ksm-S      KSM-merged identical pages, write every page; op = page
 *   swapin-S   MADV_PAGEOUT, then write every page (swap-in write); op = page
 *   gupfp-S    a thread keeps FOLL_GET references (cowpin) on the region in
 *              flight while the main thread does clear_refs 4 + write every
 *              page; op = page, copies are the false-positive COWs
 *   flip-0     write /proc/sys/vm/cow_policy, changing the policy and back;
 *              op = write (skipped without the sysctl)
 * cowbench --cmdline --real runs the benchmarks of real software instead
 * (stress-ng and Redis, see realwork.h), cowbench.realrounds (3) measured
 * after cowbench.realwarmup (1), cowbench.real=<names>|all|none,
 * cowbench.redismib (64), cowbench.redisreq (20000).
 *
 * Sizes: the fork benchmarks run at every size of -S, the page benchmarks at
 * -f KiB (THP ones rounded up to whole 2 MiB THPs).
 * Options: -r rounds -w warmup -s seed -S sizes_kib(comma) -f fault_kib
 * -b benches(comma
 * of names without size, or "all") -p policies(comma; default every policy
 * of the kernel: exclusive,refcount,mapcount, and largefolio where the
 * runner says COWTEST_MM_ID=y, a kernel with CONFIG_COW_POLICY_MM_ID)
 * -i min_ops
 * -P phase (spin a seeded random 0..phase-1 loops before each timed section;
 * make bench uses it in deterministic mode, see phase_spin())
 * -K B-S (cowbench.mark=fork-256): mark every timed section of benchmark B
 * at S KiB for make bench-insn, and add sections=N (the sample's timed
 * sections) to its BENCH lines; the other benchmarks run as always
 * --cmdline: take them from cowbench.* words on /proc/cmdline instead.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cowpin_lib.h"
#include "thpknob.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

#define PAGE 4096UL
#define HPAGE (2UL << 20)
#define MAXV 64
#define MAXB 32

static int rounds = 10, warmup = 2, min_ops = 2048;
static unsigned long seed = 1;
static char sizes_arg[256] = "256,4096";	/* fork benchmarks */
static unsigned long fault_kib = 1024;		/* page benchmarks */
static char benches_arg[512] = "all";
static char policies_arg[256] = "exclusive,refcount,mapcount";
/* -p or cowbench.policies= given: the list as it is, else the default's. */
static int policies_set;
/* cowbench --real: the real-software benchmarks (realwork.h), own rounds */
static int real_rounds = 3, real_warmup = 1;
static char real_arg[512] = "all";

/* ---- /proc/vmstat -------------------------------------------------------- */
static const char *const wanted[] = {
	"pgfault", "pgreuse", "thp_fault_alloc", "thp_split_pmd", "cow_ksm",
	"pswpin", "pswpout", "ksm_swpin_copy",
};

struct vmstat {
	int n;
	char name[MAXV][64];
	unsigned long long val[MAXV];
};

static int vm_wanted(const char *name)
{
	if (!strncmp(name, "cow_", 4))
		return 1;
	for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++)
		if (!strcmp(name, wanted[i]))
			return 1;
	return 0;
}

static void vm_read(struct vmstat *v)
{
	static char buf[16384];
	int fd = open("/proc/vmstat", O_RDONLY);
	ssize_t len = 0, n;
	char *line, *sp;

	v->n = 0;
	if (fd < 0)
		return;
	while (len < (ssize_t)sizeof(buf) - 1 &&
	       (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = 0;
	for (line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		sp = strchr(line, ' ');
		if (!sp || sp - line >= 40 || v->n == MAXV)
			continue;
		*sp = 0;
		if (vm_wanted(line)) {
			memcpy(v->name[v->n], line, sp - line + 1);
			v->val[v->n++] = strtoull(sp + 1, NULL, 10);
		}
		*sp = ' ';
	}
}

/* ---- helpers --------------------------------------------------------------- */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "cowbench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

/* ---- mTHP (6.8 and later): one size on for a sample, then restored ------- */
struct mthp_state {
	int kib;
	char was[16], pmd_was[16];
};

static void knob_path(char *buf, size_t n, int kib)
{
	snprintf(buf, n, THP_SYSFS "/hugepages-%dkB/enabled", kib);
}

/* kib's folios (mode: madvise or always) and no PMD THPs, or why not. */
static const char *mthp_on(struct mthp_state *st, int kib, const char *mode)
{
	char m[16];

	char path[128], pmd[128];

	st->kib = kib;
	knob_path(path, sizeof(path), kib);
	knob_path(pmd, sizeof(pmd), (int)(HPAGE >> 10));
	thp_knob_word(path, st->was, sizeof(st->was));
	thp_knob_word(pmd, st->pmd_was, sizeof(st->pmd_was));
	if (!st->was[0] || !st->pmd_was[0])
		return "no anonymous mTHP (hugepages-<size>kB/enabled)";
	snprintf(m, sizeof(m), "%s\n", mode);
	if (write_file(path, m) || write_file(pmd, "never\n"))
		die("write hugepages-<size>kB/enabled");
	return NULL;
}

static void mthp_off(const struct mthp_state *st)
{
	char path[128], buf[20];

	knob_path(path, sizeof(path), st->kib);
	snprintf(buf, sizeof(buf), "%s\n", st->was);
	if (write_file(path, buf))
		die("restore hugepages-<size>kB/enabled");
	knob_path(path, sizeof(path), (int)(HPAGE >> 10));
	snprintf(buf, sizeof(buf), "%s\n", st->pmd_was);
	if (write_file(path, buf))
		die("restore hugepages-2048kB/enabled");
}

/* The size's anonymous mTHP faults so far; its counter must be there. */
static unsigned long mthp_faults(int kib)
{
	long long n = mthp_fault_count(kib);

	if (n < 0)
		die("hugepages-<size>kB/stats/anon_fault_alloc");
	return (unsigned long)n;
}

/*
 * A region of size bytes, written: 4 KiB pages (thp 0, mthp 0), PMD THPs
 * (thp 1) or mthp KiB mTHPs, whole folios or the benchmark fails.
 */
static char *region_of(size_t size, int thp, int mthp)
{
	/* THP: a 2 MiB-aligned region inside a larger mapping; mTHP: aligned
	 * to its folio size. */
	size_t align = thp ? HPAGE : (size_t)mthp << 10;
	size_t len = align ? size + align : size;
	unsigned long before = 0, got;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	if (align) {
		char *a = (char *)(((uintptr_t)p + align - 1) & ~(align - 1));

		if (a > p)
			munmap(p, a - p);
		if (a + size < p + len)
			munmap(a + size, p + len - (a + size));
		p = a;
		if (madvise(p, size, MADV_HUGEPAGE))
			die("madvise(MADV_HUGEPAGE)");
	} else if (madvise(p, size, MADV_NOHUGEPAGE)) {
		die("madvise(MADV_NOHUGEPAGE)");
	}
	if (mthp)
		before = mthp_faults(mthp);
	memset(p, 1, size);
	if (mthp) {
		got = mthp_faults(mthp) - before;
		if (got != size / align) {
			fprintf(stderr, "cowbench: %zu KiB region: %lu of its %zu folios are %d KiB mTHPs\n",
				size >> 10, got, size / align, mthp);
			exit(1);
		}
	}
	return p;
}

static char *region(size_t size, int thp)
{
	return region_of(size, thp, 0);
}

static void write_pages(char *p, size_t size, char c)
{
	for (size_t off = 0; off < size; off += PAGE)
		((volatile char *)p)[off] = c;
}

static void reap(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		die("child");
}

static int clear_refs(void)
{
	return write_file("/proc/self/clear_refs", "4");
}

/* ---- timed sections: t0/t1 and vmstat around the measured part only ------- */
struct sample {
	uint64_t ns;
	unsigned long ops;
	struct vmstat a, b;
};

static unsigned long phase_max;	/* det mode: spin up to this many loops */
static uint64_t phase_rng;

/*
 * Under QEMU -icount a timer tick lands in a timed section at a phase fixed
 * by everything the guest executed before, and that differs between
 * kernels: the same section may catch a tick in every round on one kernel
 * and in none on the other, a difference of 10^5 instructions that is not
 * the kernels'.  A seeded random spin before each section spreads the
 * phase over the tick period, so that on every kernel most sections are
 * tick-free and the median is one of them.
 */
static void phase_spin(void)
{
	volatile unsigned long i;
	unsigned long n;

	if (!phase_max)
		return;
	phase_rng ^= phase_rng << 13;
	phase_rng ^= phase_rng >> 7;
	phase_rng ^= phase_rng << 17;
	n = phase_rng % phase_max;
	for (i = 0; i < n; i++)
		;
}

/*
 * make bench-insn (-K B-S, cowbench.mark=B-S): getppid() at the start and
 * getsid(0) at the end of every timed section of benchmark B at S KiB,
 * where the QEMU plugin benchmarks/insn/insncount.c opens and closes its
 * counting window.
 */
static char mark_arg[64];
static int mark;		/* the running sample is mark_arg's */
static unsigned long sections;	/* timed sections of the current sample */

static void insn_mark(int open)
{
	if (mark)
		syscall(open ? SYS_getppid : SYS_getsid, 0);
}

static void t_start(struct sample *s)
{
	vm_read(&s->a);
	phase_spin();
	sections++;
	s->ns -= now_ns();
	insn_mark(1);
}

static void t_stop(struct sample *s, unsigned long ops)
{
	insn_mark(0);
	s->ns += now_ns();
	vm_read(&s->b);
	s->ops += ops;
}

/* Deltas are accumulated over several timed sections of one sample. */
struct acc {
	int n;
	char name[MAXV][64];
	long long d[MAXV];
};

/* Add d to the accumulated delta called name (a new one starts at 0). */
static void acc_put(struct acc *acc, const char *name, long long d)
{
	int j;

	for (j = 0; j < acc->n; j++)
		if (!strcmp(acc->name[j], name))
			break;
	if (j == acc->n) {
		if (acc->n == MAXV)
			return;
		snprintf(acc->name[j], sizeof(acc->name[0]), "%s", name);
		acc->d[j] = 0;
		acc->n++;
	}
	acc->d[j] += d;
}

static void acc_add(struct acc *acc, const struct sample *s)
{
	for (int i = 0; i < s->b.n; i++) {
		long long d = 0;

		for (int k = 0; k < s->a.n; k++)
			if (!strcmp(s->a.name[k], s->b.name[i]))
				d += (long long)(s->b.val[i] - s->a.val[k]);
		acc_put(acc, s->b.name[i], d);
	}
}

/* ---- the benchmarks: each runs `reps` timed sections into acc ------------- */
struct bench;
typedef const char *(*bench_fn)(const struct bench *b, size_t size, int reps,
				 uint64_t *ns, unsigned long *ops,
				 struct acc *acc);
struct bench {
	const char *name;
	bench_fn fn;
	int thp;
	const char *unit;	/* what one op is */
	const char *arg;	/* real software: its options (realwork.h) */
	int real;		/* run by cowbench --real only */
	int mthp;		/* an mTHP size in KiB: the region's folios */
};

#define SECTION(code, nops) do {					\
	struct sample s_ = { 0 };					\
	t_start(&s_);							\
	code;								\
	t_stop(&s_, (nops));						\
	*ns += s_.ns; *ops += s_.ops; acc_add(acc, &s_);		\
} while (0)

static int cowpin_fd = -2;

static int have_cowpin(void)
{
	if (cowpin_fd == -2)
		cowpin_fd = cowpin_open();
	return cowpin_fd >= 0;
}

static int thp_enabled(void)
{
	char buf[128] = "";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");

	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return !strstr(buf, "[never]");
}

static const char *b_fork(const struct bench *b, size_t size, int reps,
			  uint64_t *ns, unsigned long *ops, struct acc *acc)
{
	char *p;
	uint64_t h = 0;
	int pin = !strcmp(b->name, "forkpin");
	struct mthp_state ms;
	const char *skip;

	if (b->thp && !thp_enabled())
		return "THP disabled";
	if (pin && !have_cowpin())
		return "no /dev/cowpin";
	if (b->mthp && (skip = mthp_on(&ms, b->mthp, "madvise")))
		return skip;
	p = region_of(size, b->thp, b->mthp);
	if (pin && cowpin_reg(cowpin_fd, p, size, COWPIN_F_LONGTERM | COWPIN_F_WRITE, &h))
		die("cowpin register");
	SECTION(for (int i = 0; i < reps; i++) {
			pid_t pid = fork();

			if (pid < 0)
				die("fork");
			if (pid == 0)
				_exit(0);
			reap(pid);
		}, reps);
	if (pin)
		cowpin_dereg(cowpin_fd, h);
	munmap(p, size);
	if (b->mthp)
		mthp_off(&ms);
	return NULL;
}

/* munmap of a faulted region of mTHPs: one op per munmap(). */
static const char *b_munmap(const struct bench *b, size_t size, int reps,
			    uint64_t *ns, unsigned long *ops, struct acc *acc)
{
	struct mthp_state ms;
	const char *skip;

	if (b->mthp && (skip = mthp_on(&ms, b->mthp, "madvise")))
		return skip;
	for (int i = 0; i < reps; i++) {
		char *p = region_of(size, b->thp, b->mthp);

		SECTION(if (munmap(p, size))
				die("munmap"), 1);
	}
	if (b->mthp)
		mthp_off(&ms);
	return NULL;
}

/* copy/reuse, 4K and THP: fork, the child stays (copy) or exits (reuse). */
static const char *b_cow(const struct bench *b, size_t size, int reps,
			 uint64_t *ns, unsigned long *ops, struct acc *acc)
{
	int alive = strstr(b->name, "copy") != NULL;
	struct mthp_state ms;
	const char *skip;

	if (b->thp && !thp_enabled())
		return "THP disabled";
	if (b->mthp && (skip = mthp_on(&ms, b->mthp, "madvise")))
		return skip;
	for (int i = 0; i < reps; i++) {
		char *p = region_of(size, b->thp, b->mthp);
		int pfd[2];
		pid_t pid;
		char c;

		if (pipe(pfd))
			die("pipe");
		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			close(pfd[1]);
			if (alive && read(pfd[0], &c, 1) < 0)
				_exit(1);
			_exit(0);
		}
		close(pfd[0]);
		if (!alive)
			reap(pid);
		SECTION(write_pages(p, size, 2), size / PAGE);
		close(pfd[1]);
		if (alive)
			reap(pid);
		munmap(p, size);
	}
	if (b->mthp)
		mthp_off(&ms);
	return NULL;
}

static const char *b_softdirty(const struct bench *b, size_t size, int reps,
			       uint64_t *ns, unsigned long *ops, struct acc *acc)
{
	char *p = region(size, b->thp);

	for (int i = 0; i < reps; i++) {
		if (clear_refs())
			die("clear_refs");
		SECTION(write_pages(p, size, (char)i), size / PAGE);
	}
	munmap(p, size);
	return NULL;
}

static const char *b_wprt(const struct bench *b, size_t size, int reps,
			  uint64_t *ns, unsigned long *ops, struct acc *acc)
{
	char *p = region(size, b->thp);

	for (int i = 0; i < reps; i++)
		SECTION(if (mprotect(p, size, PROT_READ) ||
			    mprotect(p, size, PROT_READ | PROT_WRITE))
				die("mprotect");
			write_pages(p, size, (char)i), size / PAGE);
	munmap(p, size);
	return NULL;
}

static int ksm_shared(void)
{
	FILE *f = fopen("/sys/kernel/mm/ksm/pages_sharing", "r");
	int n = -1;

	if (f) {
		if (fscanf(f, "%d", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}

static const char *b_ksm(const struct bench *b, size_t size, int reps,
			 uint64_t *ns, unsigned long *ops, struct acc *acc)
{
	(void)b;
	if (ksm_shared() < 0 || write_file("/sys/kernel/mm/ksm/run", "1"))
		return "no KSM";
	write_file("/sys/kernel/mm/ksm/sleep_millisecs", "0");
	write_file("/sys/kernel/mm/ksm/pages_to_scan", "4096");
	for (int i = 0; i < reps; i++) {
		char *p = region(size, 0);
		unsigned long want = size / PAGE - 1;
		int tries = 0;

		if (madvise(p, size, MADV_MERGEABLE))
			die("madvise(MADV_MERGEABLE)");
		/* ksmd needs two passes to merge; give it up to ~10 s. */
		while ((unsigned long)ksm_shared() < want && tries++ < 1000)
			usleep(10000);
		SECTION(write_pages(p, size, 2), size / PAGE);
		munmap(p, size);
	}
	write_file("/sys/kernel/mm/ksm/run", "2");
	return NULL;
}

static int swap_active(void)
{
	char line[256];
	int n = 0;
	FILE *f = fopen("/proc/swaps", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		n++;
	fclose(f);
	return n > 1;
}

static const char *b_swapin(const struct bench *b, size_t size, int reps,
			    uint64_t *ns, unsigned long *ops, struct acc *acc)
{
	(void)b;
	if (!swap_active())
		return "no swap";
	for (int i = 0; i < reps; i++) {
		char *p = region(size, 0);

		for (size_t off = 0; off < size; off += PAGE)
			p[off] = (char)(off / PAGE);
		if (madvise(p, size, MADV_PAGEOUT))
			die("madvise(MADV_PAGEOUT)");
		SECTION(write_pages(p, size, 2), size / PAGE);
		munmap(p, size);
	}
	return NULL;
}

struct gup_thread {
	char *p;
	size_t size;
	volatile int stop;
	unsigned long regs;
};

static void *gup_loop(void *arg)
{
	struct gup_thread *g = arg;
	char buf[64];

	while (!g->stop) {
		uint64_t h;

		if (cowpin_reg(cowpin_fd, g->p, g->size, COWPIN_F_GET, &h))
			die("cowpin register (FOLL_GET)");
		/* the "device" reads while the references are held */
		cowpin_dev_read(cowpin_fd, h, 0, sizeof(buf), buf);
		cowpin_dereg(cowpin_fd, h);
		g->regs++;
	}
	return NULL;
}

static const char *b_gupfp(const struct bench *b, size_t size, int reps,
			   uint64_t *ns, unsigned long *ops, struct acc *acc)
{
	struct gup_thread g = { 0 };
	pthread_t t;

	(void)b;
	if (!have_cowpin())
		return "no /dev/cowpin";
	g.p = region(size, 0);
	g.size = size;
	if (pthread_create(&t, NULL, gup_loop, &g))
		die("pthread_create");
	while (!g.regs)
		sched_yield();
	for (int i = 0; i < reps; i++) {
		if (clear_refs())
			die("clear_refs");
		SECTION(write_pages(g.p, size, (char)i), size / PAGE);
	}
	g.stop = 1;
	pthread_join(t, NULL);
	munmap(g.p, size);
	return NULL;
}

/*
 * One op: one write of /proc/sys/vm/cow_policy that changes the policy, to
 * "exclusive" and back (or, under "exclusive", to "mapcount" and back: never
 * to "refcount", whose read-only pins would outlive the benchmark, see
 * cow_policy_pins_exclusive()). Each write adds or removes a user of the
 * slow path (cow_policy_users): what a policy change costs the writer.
 */
static const char *b_flip(const struct bench *b, size_t size, int reps,
			  uint64_t *ns, unsigned long *ops, struct acc *acc)
{
	char cur[32] = "", *nl;
	const char *other;
	int fd = open("/proc/sys/vm/cow_policy", O_RDWR);

	(void)b;
	(void)size;
	if (fd < 0)
		return "no /proc/sys/vm/cow_policy";
	if (pread(fd, cur, sizeof(cur) - 1, 0) <= 0)
		die("read /proc/sys/vm/cow_policy");
	nl = strchr(cur, '\n');
	if (nl)
		*nl = 0;
	other = strcmp(cur, "exclusive") ? "exclusive" : "mapcount";
	for (int i = 0; i < reps; i++) {
		const char *to = (i & 1) ? cur : other;
		ssize_t len = (ssize_t)strlen(to);

		SECTION(if (pwrite(fd, to, len, 0) != len)
				die("write /proc/sys/vm/cow_policy"), 1);
	}
	if (reps & 1 && pwrite(fd, cur, strlen(cur), 0) != (ssize_t)strlen(cur))
		die("write /proc/sys/vm/cow_policy");
	close(fd);
	return NULL;
}

#include "realwork.h"

static const struct bench benches[] = {
	{ "fork", b_fork, 0, "fork", NULL, 0, 0 },
	{ "forkthp", b_fork, 1, "fork", NULL, 0, 0 },
	{ "forkpin", b_fork, 0, "fork", NULL, 0, 0 },
	{ "copy", b_cow, 0, "page", NULL, 0, 0 },
	{ "reuse", b_cow, 0, "page", NULL, 0, 0 },
	{ "softdirty", b_softdirty, 0, "page", NULL, 0, 0 },
	{ "wprt", b_wprt, 0, "page", NULL, 0, 0 },
	{ "thpcopy", b_cow, 1, "page", NULL, 0, 0 },
	{ "thpreuse", b_cow, 1, "page", NULL, 0, 0 },
	{ "mthpcopy16", b_cow, 0, "page", NULL, 0, 16 },
	{ "mthpreuse16", b_cow, 0, "page", NULL, 0, 16 },
	{ "mthpcopy64", b_cow, 0, "page", NULL, 0, 64 },
	{ "mthpreuse64", b_cow, 0, "page", NULL, 0, 64 },
	{ "forkmthp16", b_fork, 0, "fork", NULL, 0, 16 },
	{ "forkmthp64", b_fork, 0, "fork", NULL, 0, 64 },
	{ "munmapmthp16", b_munmap, 0, "munmap", NULL, 0, 16 },
	{ "munmapmthp64", b_munmap, 0, "munmap", NULL, 0, 64 },
	{ "ksm", b_ksm, 0, "page", NULL, 0, 0 },
	{ "swapin", b_swapin, 0, "page", NULL, 0, 0 },
	{ "gupfp", b_gupfp, 0, "page", NULL, 0, 0 },
	{ "flip", b_flip, 0, "write", NULL, 0, 0 },
#define SNG(n, a) { "sng-" n, b_sng, 0, "bogo-op", a, 1, 0 }
	SNG("fork", "--fork 1 --fork-ops 64"),
	SNG("vfork", "--vfork 1 --vfork-ops 64"),
	SNG("clone", "--clone 1 --clone-ops 16"),
	SNG("mmapfork", "--mmapfork 1 --mmapfork-ops 1"),
	SNG("vm", "--vm 1 --vm-bytes 8m --vm-ops 4"),
	SNG("vm-hugepage", "--vm 1 --vm-bytes 8m --vm-ops 4 --vm-madvise hugepage"),
	SNG("vm-mergeable", "--vm 1 --vm-bytes 8m --vm-ops 4 --vm-madvise mergeable"),
	SNG("vm-splice", "--vm-splice 1 --vm-splice-ops 256"),
	SNG("madvise", "--madvise 1 --madvise-ops 4"),
	SNG("mremap", "--mremap 1 --mremap-ops 8 --mremap-bytes 2m"),
	SNG("mprotect", "--mprotect 1 --mprotect-ops 256"),
	SNG("userfaultfd", "--userfaultfd 1 --userfaultfd-ops 256 --userfaultfd-bytes 256k"),
	{ "redis-thpnever", b_redis, 0, "bgsave", "never", 1, 0 },
	{ "redis-thpalways", b_redis, 0, "bgsave", "always", 1, 0 },
	{ "redis-mthp64", b_redis, 0, "bgsave", "mthp64", 1, 0 },
};
#define NBENCH (int)(sizeof(benches) / sizeof(benches[0]))

/* ---- driver ------------------------------------------------------------- */
static uint64_t rng;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int split(char *s, char **out, int max)
{
	int n = 0;

	for (char *t = strtok(s, ","); t && n < max; t = strtok(NULL, ","))
		out[n++] = t;
	return n;
}

static void set_opt(int c, const char *v)
{
	switch (c) {
	case 'r': rounds = atoi(v); break;
	case 'w': warmup = atoi(v); break;
	case 's': seed = strtoul(v, NULL, 0); break;
	case 'i': min_ops = atoi(v); break;
	case 'f': fault_kib = strtoul(v, NULL, 0); break;
	case 'S': snprintf(sizes_arg, sizeof(sizes_arg), "%s", v); break;
	case 'b': snprintf(benches_arg, sizeof(benches_arg), "%s", v); break;
	case 'p':
		snprintf(policies_arg, sizeof(policies_arg), "%s", v);
		policies_set = 1;
		break;
	case 'P': phase_max = strtoul(v, NULL, 0); break;
	case 'K': snprintf(mark_arg, sizeof(mark_arg), "%s", v); break;
	case 'R': real_rounds = atoi(v); break;
	case 'W': real_warmup = atoi(v); break;
	case 'B': snprintf(real_arg, sizeof(real_arg), "%s", v); break;
	case 'M': redis_mib = strtoul(v, NULL, 0); break;
	case 'Q': redis_req = strtoul(v, NULL, 0); break;
	}
}

static void from_cmdline(void)
{
	static const char *const keys[] = { "rounds", "warmup", "seed", "minops",
					    "sizes", "benches", "policies", "fsize",
					    "phase", "realrounds", "realwarmup", "real",
					    "redismib", "redisreq", "mark" };
	static const char opts[] = "rwsiSbpfPRWBMQK";
	char line[4096] = "";
	FILE *f = fopen("/proc/cmdline", "r");

	if (!f || !fgets(line, sizeof(line), f))
		die("/proc/cmdline");
	fclose(f);
	for (char *w = strtok(line, " \n"); w; w = strtok(NULL, " \n")) {
		if (strncmp(w, "cowbench.", 9))
			continue;
		for (int k = 0; k < (int)(sizeof(keys) / sizeof(keys[0])); k++) {
			size_t l = strlen(keys[k]);

			if (!strncmp(w + 9, keys[k], l) && w[9 + l] == '=')
				set_opt(opts[k], w + 10 + l);
		}
	}
}

/* The work per sample: the fork benches do min_ops/64 forks (at least 4),
 * the page benches enough passes over the region for min_ops pages. */
static int reps_for(const struct bench *b, size_t size)
{
	int r;

	if (b->fn == b_ksm || b->real)	/* slow: one run per sample */
		return 1;
	if (b->fn == b_flip)	/* an even number: ends at the round's policy */
		return 16;
	if (!strcmp(b->unit, "fork")) {
		r = min_ops / 256;
		return r < 2 ? 2 : r;
	}
	r = (int)((min_ops + size / PAGE - 1) / (size / PAGE));
	return r < 1 ? 1 : r;
}

int main(int argc, char **argv)
{
	char *pol[8], *szs[8], *bn[MAXB], buf[512];
	int npol, nsz, nb, have_sysctl;
	const char *kernel_policy = "exclusive";
	int opt, real = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "--cmdline")) {
		from_cmdline();
		real = argc > 2 && !strcmp(argv[2], "--real");
	} else {
		while ((opt = getopt(argc, argv, "r:w:s:i:S:b:p:f:P:K:")) != -1)
			set_opt(opt, optarg);
	}
	if (real) {
		if (!strcmp(real_arg, "none")) {
			printf("# cowbench --real: skipped (cowbench.real=none)\n");
			return 0;
		}
		rounds = real_rounds;
		warmup = real_warmup;
		snprintf(benches_arg, sizeof(benches_arg), "%s", real_arg);
	}
	/* Same layout every run: no address space randomisation. */
	if (!(personality(0xffffffff) & ADDR_NO_RANDOMIZE)) {
		personality(ADDR_NO_RANDOMIZE);
		execv("/proc/self/exe", argv);
	}
	have_sysctl = access("/proc/sys/vm/cow_policy", F_OK) == 0;
	/*
	 * The default is every policy of the kernel: the 6.12 series adds
	 * "largefolio" where it was built with CONFIG_COW_POLICY_MM_ID, which
	 * the runner passes as COWTEST_MM_ID=y (guest/init.sh); elsewhere
	 * writing it fails (EOPNOTSUPP, or EINVAL on 6.1).
	 */
	if (!policies_set && getenv("COWTEST_MM_ID") &&
	    !strcmp(getenv("COWTEST_MM_ID"), "y"))
		snprintf(policies_arg, sizeof(policies_arg), "%s",
			 "exclusive,refcount,mapcount,largefolio");
	npol = split(policies_arg, pol, 8);
	if (!have_sysctl) {
		/* The unpatched kernel: only its own (exclusive) behaviour. */
		pol[0] = (char *)kernel_policy;
		npol = 1;
	}
	nsz = split(sizes_arg, szs, 8);
	if (!strcmp(benches_arg, "all")) {
		nb = 0;
		for (int i = 0; i < NBENCH; i++)
			if (benches[i].real == real)
				bn[nb++] = (char *)benches[i].name;
	} else {
		nb = split(benches_arg, bn, MAXB);
	}
	rng = seed * 0x9E3779B97F4A7C15ull + 1;
	phase_rng = seed * 0xD1B54A32D192ED03ull + 1;
	printf("# cowbench: rounds=%d warmup=%d seed=%lu minops=%d fsize_kib=%lu sizes_kib=%s "
	       "policies=%d sysctl=%s cowpin=%s thp=%s swap=%s\n", rounds, warmup,
	       seed, min_ops, fault_kib, sizes_arg, npol, have_sysctl ? "yes" : "no",
	       have_cowpin() ? "yes" : "no", thp_enabled() ? "yes" : "no",
	       swap_active() ? "yes" : "no");

	for (int r = 1; r <= warmup + rounds; r++) {
		int order[8];

		for (int i = 0; i < npol; i++)
			order[i] = i;
		for (int i = npol - 1; i > 0; i--) {
			int j = (int)(rnd() % (uint64_t)(i + 1)), t = order[i];

			order[i] = order[j];
			order[j] = t;
		}
		for (int pi = 0; pi < npol; pi++) {
			const char *p = pol[order[pi]];

			if (have_sysctl) {
				snprintf(buf, sizeof(buf), "%s\n", p);
				if (write_file("/proc/sys/vm/cow_policy", buf))
					die("write /proc/sys/vm/cow_policy");
			}
			printf("# progress round %d of %d (%s), policy %s (%d of %d)\n",
			       r, warmup + rounds, r <= warmup ? "warm-up" : "measured",
			       p, pi + 1, npol);
			for (int bi = 0; bi < nb; bi++) {
				const struct bench *b = NULL;

				for (int k = 0; k < NBENCH; k++)
					if (!strcmp(benches[k].name, bn[bi]))
						b = &benches[k];
				if (!b) {
					fprintf(stderr, "cowbench: unknown benchmark %s\n", bn[bi]);
					return 2;
				}
				int fork_like = !strcmp(b->unit, "fork");

				for (int si = 0; si < (fork_like ? nsz : 1); si++) {
					size_t size = (fork_like ? strtoul(szs[si], NULL, 0) : fault_kib) << 10;

					if (b->fn == b_flip || b->real)	/* no region */
						size = 0;
					uint64_t ns = 0;
					unsigned long ops = 0;
					struct acc acc = { 0 };
					const char *skip;

					if (b->thp) {	/* whole THPs, each size once */
						size = (size + HPAGE - 1) & ~(HPAGE - 1);
						if (si && size == ((strtoul(szs[si - 1], NULL, 0) << 10) +
								   HPAGE - 1) / HPAGE * HPAGE)
							continue;
					}
					uint64_t t0 = now_ns();
					char cell[64];

					snprintf(cell, sizeof(cell), "%s-%zu", b->name, size >> 10);
					mark = !strcmp(cell, mark_arg);
					sections = 0;
					skip = b->fn(b, size, reps_for(b, size), &ns, &ops, &acc);
					t0 = now_ns() - t0;
					if (skip) {
						if (r == 1 && pi == 0)
							printf("BENCH-SKIP bench=%s size_kib=%zu reason=%s\n",
							       b->name, size >> 10, skip);
						continue;
					}
					printf("BENCH round=%d warm=%d policy=%s bench=%s size_kib=%zu ops=%lu ns=%llu unit=%s sample_ns=%llu",
					       r, r <= warmup, p, b->name, size >> 10, ops,
					       (unsigned long long)ns, b->unit,
					       (unsigned long long)t0);
					for (int k = 0; k < acc.n; k++)
						printf(" v.%s=%lld", acc.name[k], acc.d[k]);
					if (mark)
						printf(" sections=%lu", sections);
					printf("\n");
				}
			}
		}
	}
	if (have_sysctl)
		write_file("/proc/sys/vm/cow_policy", "exclusive\n");
	printf("# cowbench: done\n");
	return 0;
}
