// SPDX-License-Identifier: GPL-2.0
/* Helpers of the seed-scenario tests: see scn.h. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "scn.h"
#include "thpknob.h"

/* Rows of this kernel line (the others are not kept). */
#define SCN_MAX_ROWS 1024

static struct scn_row rows[SCN_MAX_ROWS];
static int nrows, npoints, nfailed;
static char policy[32], profile[32], prog[64], kernel_line[16];
static char saved_policy[32];
static bool policy_changed;

const char *scn_policy(void) { return policy; }
const char *scn_profile(void) { return profile; }

/* PROFILE= from the runner's /etc/cowtest/run.conf (or $COWTEST_PROFILE). */
static void read_profile(void)
{
	char line[128];
	const char *env = getenv("COWTEST_PROFILE");
	FILE *f;

	snprintf(profile, sizeof(profile), "%s", env ? env : "?");
	if (env)
		return;
	f = fopen("/etc/cowtest/run.conf", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "PROFILE=", 8)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(profile, sizeof(profile), "%.31s", line + 8);
		}
	fclose(f);
}

static void copy_field(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src ? src : "");
}

/* The kernel line of the running kernel, "6.1" of "6.1.0+". */
static void read_kernel_line(void)
{
	struct utsname u;
	char *dot;

	snprintf(kernel_line, sizeof(kernel_line), "?");
	if (uname(&u))
		return;
	snprintf(kernel_line, sizeof(kernel_line), "%.15s", u.release);
	dot = strchr(kernel_line, '.');
	if (dot)
		dot = strchr(dot + 1, '.');
	if (dot)
		*dot = 0;
	kernel_line[strspn(kernel_line, "0123456789.")] = 0;
}

/*
 * Tab-separated, empty fields not collapsed.  The header line
 * ("scenario<TAB>profile<TAB>...") names the columns; an optional "kernel"
 * column says which kernel line a row is for (default 6.1), and the host
 * judge (scripts/report/judge.py) reads the same file the same way.
 */
static void read_expectations(void)
{
	const char *path = getenv("COWTEST_EXPECT");
	int c_sc = 0, c_prof = 1, c_pol = 2, c_out = 3, c_cnt = 4, c_why = 5, c_kern = -1;
	const char *kern;
	char line[1024];
	FILE *f;

	f = fopen(path ? path : SCN_EXPECT_PATH, "r");
	if (!f)
		bail("open %s", path ? path : SCN_EXPECT_PATH);
	while (fgets(line, sizeof(line), f)) {
		char *field[16] = { 0 }, *p = line;
		int n = 0;

		line[strcspn(line, "\n")] = 0;
		if (line[0] == '#' || !line[0])
			continue;
		while (n < 16) {
			field[n++] = p;
			p = strchr(p, '\t');
			if (!p)
				break;
			*p++ = 0;
		}
		if (!strcmp(field[0], "scenario")) {
			for (int i = 0; i < n; i++) {
				int *c = !strcmp(field[i], "profile") ? &c_prof :
					 !strcmp(field[i], "policy") ? &c_pol :
					 !strcmp(field[i], "outcome") ? &c_out :
					 !strcmp(field[i], "counters") ? &c_cnt :
					 !strcmp(field[i], "reason") ? &c_why :
					 !strcmp(field[i], "kernel") ? &c_kern : NULL;

				if (c)
					*c = i;
			}
			continue;
		}
		if (n < 5)
			continue;
		kern = c_kern >= 0 && c_kern < n ? field[c_kern] : SCN_KERNEL_DEFAULT;
		/* Only this kernel line's rows can match (scn_begin()). */
		if (strcmp(kern, kernel_line))
			continue;
		if (nrows == SCN_MAX_ROWS)
			bail("more than %d rows in the expectations", SCN_MAX_ROWS);
		copy_field(rows[nrows].scenario, sizeof(rows[0].scenario), field[c_sc]);
		copy_field(rows[nrows].profile, sizeof(rows[0].profile), field[c_prof]);
		copy_field(rows[nrows].policy, sizeof(rows[0].policy), field[c_pol]);
		copy_field(rows[nrows].outcome, sizeof(rows[0].outcome), field[c_out]);
		copy_field(rows[nrows].counters, sizeof(rows[0].counters), field[c_cnt]);
		copy_field(rows[nrows].reason, sizeof(rows[0].reason), field[c_why]);
		copy_field(rows[nrows].kernel, sizeof(rows[0].kernel), kern);
		nrows++;
	}
	fclose(f);
}

void scn_init(const char *program)
{
	cpu_set_t one;

	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(prog, sizeof(prog), "%s", program);
	snprintf(policy, sizeof(policy), "%s", cow_policy_now());
	read_profile();
	read_kernel_line();
	read_expectations();
	/*
	 * One CPU: a new page sits in its CPU's LRU pagevec, holding a
	 * reference, until drained, and do_wp_page() only drains the local
	 * one (see cow_decide.c).
	 */
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		bail("sched_setaffinity");
	printf("TAP version 13\n");
	tap_diag("%s: policy %s, profile %s, kernel %s, %d expectation rows", prog,
		 policy, profile, kernel_line, nrows);
}

const struct scn_row *scn_begin(const char *name)
{
	for (int i = 0; i < nrows; i++)
		if (!strcmp(rows[i].scenario, name) &&
		    (!strcmp(rows[i].profile, profile) || !strcmp(rows[i].profile, "*")) &&
		    !strcmp(rows[i].policy, policy) &&
		    !strcmp(rows[i].kernel, kernel_line)) {
			tap_diag("%s: %s", name, rows[i].reason);
			return &rows[i];
		}
	/*
	 * Observe mode (cowtest.observe=1, for drafting a new kernel line's
	 * rows): run the cell anyway and print its RESULT line. The judge
	 * has no row for it and fails the run: never a test.
	 */
	if (getenv("COWTEST_OBSERVE") && !strcmp(getenv("COWTEST_OBSERVE"), "1")) {
		static struct scn_row observe;

		snprintf(observe.scenario, sizeof(observe.scenario), "%s", name);
		snprintf(observe.outcome, sizeof(observe.outcome), "?");
		tap_diag("%s: observe mode, no expectation", name);
		return &observe;
	}
	scn_skip("no expectation", "%s (profile %s, policy %s)", name, profile, policy);
	return NULL;
}

void scn_ok(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", ok ? "" : "not ", ++npoints);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	nfailed += !ok;
}

void scn_skip(const char *why, const char *fmt, ...)
{
	va_list ap;

	printf("ok %d - ", ++npoints);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" # SKIP %s\n", why);
	fflush(stdout);
}

static bool is_counter(const char *name)
{
	return !strncmp(name, "cow_", 4) || !strcmp(name, "pgreuse") ||
	       !strcmp(name, "thp_split_pmd");
}

/*
 * The guest observes, the host judges (scripts/report/judge.py): the RESULT line
 * carries the outcome, the delta of every cow_* counter of /proc/vmstat
 * (zeros included: the judge fails a counter a row names that the line
 * lacks) and any other counter of is_counter() that moved, and whether
 * the kernel has cow_* counters at all; how much a counter may exceed its
 * row is the row's (its slack=, on the host).  The one TAP point fails only
 * when the program could not decide an outcome.
 */
void scn_end(const struct scn_row *row, const char *outcome,
	     const struct vmstat *before, const struct vmstat *after,
	     const char *detail_fmt, ...)
{
	char detail[512] = "", deltas[2048] = "";
	const char *counters = "none";
	size_t off = 0;
	va_list ap;

	if (!row)
		return;
	if (detail_fmt) {
		va_start(ap, detail_fmt);
		vsnprintf(detail, sizeof(detail), detail_fmt, ap);
		va_end(ap);
	}
	if (before && after) {
		counters = vmstat_has(after, "cow_reuse_exclusive") ? "yes" : "no";
		for (int i = 0; i < after->n && off < sizeof(deltas) - 64; i++) {
			long long d = vmstat_delta(before, after, after->name[i]);

			if (!strncmp(after->name[i], "cow_", 4) ||
			    (d && is_counter(after->name[i])))
				off += snprintf(deltas + off, sizeof(deltas) - off,
						" %s=%lld", after->name[i], d);
		}
	}
	/* A kernel built with the sysctl must have the counters too. */
	if (!strcmp(counters, "no") && cow_policy_expected())
		counters = "missing";
	printf("# RESULT scenario=%s profile=%s policy=%s outcome=%s counters=%s%s%s%s\n",
	       row->scenario, profile, policy, outcome, counters, deltas,
	       detail[0] ? " " : "", detail);
	scn_ok(strcmp(outcome, "error") != 0, "%s: observed %s", row->scenario,
	       outcome);
}

void scn_vmsplice_child(char *p, size_t len, size_t drop_len, bool unmap,
			int go, int back, int pfd[2], char *buf)
{
	struct iovec iov = { .iov_base = p, .iov_len = len };
	ssize_t got = 0, n;

	memset(buf, 0, len);
	scn_child_ready(back);
	if (pipe_getc(go) != 'g')
		_exit(3);
	if (vmsplice(pfd[1], &iov, 1, 0) != (ssize_t)len)
		_exit(4);
	if (unmap ? munmap(p, drop_len) : madvise(p, drop_len, MADV_DONTNEED))
		_exit(5);
	pipe_putc(back, 'u');
	if (pipe_getc(go) != 'r')
		_exit(3);
	while (got < (ssize_t)len && (n = read(pfd[0], buf + got, len - got)) > 0)
		got += n;
	pipe_putc(back, got != (ssize_t)len ? '?' :
		  !scn_count_diff(buf, 'S', len) ? 'L' :
		  !scn_count_diff(buf, 'o', len) ? 'o' : 'm');
	_exit(0);
}

int scn_finish(void)
{
	if (policy_changed && cow_policy_write(saved_policy, strlen(saved_policy)))
		tap_diag("could not restore cow_policy %s", saved_policy);
	printf("1..%d\n", npoints);
	fflush(stdout);
	return nfailed ? 1 : 0;
}

void scn_set_policy(const char *name)
{
	int ret;

	if (!policy_changed) {
		snprintf(saved_policy, sizeof(saved_policy), "%s", cow_policy_now());
		policy_changed = true;
	}
	ret = cow_policy_write(name, strlen(name));
	if (ret) {
		errno = -ret;
		bail("write cow_policy %s", name);
	}
}

void scn_warm(struct vmstat *snap)
{
	volatile char stack[64 * 1024];

	memset((char *)stack, 0, sizeof(stack));
	vmstat_read(snap);
	vmstat_read(snap);
}

void scn_child_ready(int back)
{
	struct vmstat scratch;

	scn_warm(&scratch);
	pipe_putc(back, 'r');
}

/* The state letter of /proc/<pid>/stat, or 0. */
static char proc_state(pid_t pid)
{
	char path[64], buf[512], *paren;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	paren = strrchr(buf, ')');
	return paren && paren[1] == ' ' ? paren[2] : 0;
}

void scn_child_wait(pid_t pid, int back)
{
	const struct timespec ms = { .tv_nsec = 1000000 };
	char state = 0;

	if (pipe_getc(back) != 'r')
		bail("child %d not ready", (int)pid);
	for (int i = 0; i < 10000; i++) {
		state = proc_state(pid);
		if (state == 'S')
			return;
		nanosleep(&ms, NULL);
	}
	bail("child %d did not go to sleep in 10 s (state %c)", (int)pid,
	     state ? state : '?');
}

int scn_whole_folios(const uint64_t *pfn, const uint64_t *flags, int n, int nr)
{
	int whole = 0;

	for (int f = 0; f + nr <= n; f += nr) {
		bool ok = pfn[f] && (flags[f] & (1ULL << KPF_COMPOUND_HEAD));

		for (int i = 1; ok && i < nr; i++)
			ok = pfn[f + i] == pfn[f] + i &&
			     (flags[f + i] & (1ULL << KPF_COMPOUND_TAIL));
		whole += ok ? nr : 0;
	}
	return whole;
}

int scn_large_pages(const uint64_t *pfn, const uint64_t *flags, int n)
{
	int large = 0;

	for (int i = 0; i < n; i++)
		large += pfn[i] && (flags[i] & ((1ULL << KPF_COMPOUND_HEAD) |
						(1ULL << KPF_COMPOUND_TAIL)));
	return large;
}

void scn_page_shape(const char *p, int n, uint64_t *pfn, uint64_t *flags)
{
	for (int i = 0; i < n; i++) {
		pfn[i] = scn_pfn(p + (size_t)i * PAGE_SIZE);
		flags[i] = pfn[i] ? scn_kpageflags(pfn[i]) : 0;
	}
}

const char *scn_swapin_outcome(int n, int out, int large, int want_large, int bad,
			       int same, bool read_first)
{
	if (out < n || large != want_large)
		return "error";
	if (bad)
		return "lost-write";
	if (!read_first)
		return "ok";
	return same == n ? "reuse" : same == 0 ? "copy" : "mixed";
}

uint64_t scn_pagemap(const void *addr)
{
	static int fd = -1;
	static pid_t owner;
	uint64_t e = 0;

	/*
	 * /proc/self/pagemap is resolved at open(): a child forked after the
	 * first call would read its parent's page tables through the
	 * inherited descriptor, so a new process opens its own.
	 */
	if (fd >= 0 && owner != getpid()) {
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		fd = open("/proc/self/pagemap", O_RDONLY);
		owner = getpid();
	}
	if (fd < 0 || pread(fd, &e, 8, ((uintptr_t)addr / PAGE_SIZE) * 8) != 8)
		bail("read /proc/self/pagemap");
	return e;
}

uint64_t scn_pfn(const void *addr)
{
	uint64_t e = scn_pagemap(addr);

	return (e & PM_PRESENT) ? PM_PFN(e) : 0;
}

uint64_t scn_kpageflags(uint64_t pfn)
{
	static int fd = -1;
	uint64_t f = 0;

	if (fd < 0)
		fd = open("/proc/kpageflags", O_RDONLY);
	if (fd < 0 || pread(fd, &f, 8, pfn * 8) != 8)
		bail("read /proc/kpageflags");
	return f;
}

long scn_anon_huge_kb(const void *addr)
{
	char line[256];
	long kb = -1;
	int in = 0;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		bail("/proc/self/smaps");
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, end;

		if (sscanf(line, "%lx-%lx ", &start, &end) == 2 &&
		    strchr(line, '-') < strchr(line, ' '))
			in = start <= (uintptr_t)addr && (uintptr_t)addr < end;
		else if (in && !strncmp(line, "AnonHugePages:", 14))
			kb = atol(line + 14);
	}
	fclose(f);
	return kb;
}

int scn_kmsg_count(const char *needle)
{
	char buf[8192];
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK), n = 0;
	ssize_t len;

	if (fd < 0)
		return -1;
	for (;;) {
		len = read(fd, buf, sizeof(buf) - 1);
		if (len < 0) {
			if (errno == EPIPE)	/* overwritten records */
				continue;
			break;
		}
		buf[len] = 0;
		n += strstr(buf, needle) != NULL;
	}
	close(fd);
	return n;
}

int scn_write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		ret = -errno;
	close(fd);
	return ret;
}

long scn_read_long(const char *path)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY);
	ssize_t len;

	if (fd < 0)
		return -1;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -1;
	buf[len] = 0;
	return atol(buf);
}

long scn_count_diff(const void *buf, int c, unsigned long len)
{
	const unsigned char *p = buf;
	long bad = 0;

	for (unsigned long i = 0; i < len; i++)
		bad += p[i] != (unsigned char)c;
	return bad;
}

double scn_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int scn_swapped(const char *mem, int npages)
{
	int n = 0;

	for (int i = 0; i < npages; i++)
		n += !!(scn_pagemap(mem + i * PAGE_SIZE) & PM_SWAP);
	return n;
}

int scn_page_out(char *mem, int npages)
{
	int out = 0;

	for (int tries = 0; tries < 5 && (out = scn_swapped(mem, npages)) < npages; tries++) {
		madvise(mem, npages * PAGE_SIZE, MADV_PAGEOUT);
		if (tries)
			usleep(100 * 1000);
	}
	return out;
}

static char ksm_old_run[24], ksm_old_scan[24], ksm_old_sleep[24];

static void ksm_save(const char *knob, char *buf, size_t len)
{
	long v = scn_read_long(knob);

	snprintf(buf, len, "%ld", v < 0 ? 0 : v);
}

void scn_ksm_start(void)
{
	ksm_save(SCN_KSM "run", ksm_old_run, sizeof(ksm_old_run));
	ksm_save(SCN_KSM "pages_to_scan", ksm_old_scan, sizeof(ksm_old_scan));
	ksm_save(SCN_KSM "sleep_millisecs", ksm_old_sleep, sizeof(ksm_old_sleep));
	if (scn_write_file(SCN_KSM "pages_to_scan", "1000") ||
	    scn_write_file(SCN_KSM "sleep_millisecs", "10") ||
	    scn_write_file(SCN_KSM "run", "1"))
		bail("configure ksm");
}

void scn_ksm_pause(void)
{
	scn_write_file(SCN_KSM "run", "0");
}

void scn_ksm_restore(void)
{
	scn_write_file(SCN_KSM "run", "0");
	scn_write_file(SCN_KSM "pages_to_scan", ksm_old_scan);
	scn_write_file(SCN_KSM "sleep_millisecs", ksm_old_sleep);
	if (strcmp(ksm_old_run, "0"))
		scn_write_file(SCN_KSM "run", ksm_old_run);
}

bool scn_has_features(const char *needs, char *missing, size_t len)
{
	const char *have = getenv("COWTEST_FEATURES");
	char buf[128], *save = NULL;

	missing[0] = 0;
	if (!needs[0] || !strcmp(needs, "-"))
		return true;
	snprintf(buf, sizeof(buf), "%s", needs);
	for (char *f = strtok_r(buf, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
		char pad[160], word[64];

		snprintf(pad, sizeof(pad), " %s ", have ? have : "");
		snprintf(word, sizeof(word), " %s ", f);
		if (!strstr(pad, word)) {
			snprintf(missing, len, "%s", f);
			return false;
		}
	}
	return true;
}

void scn_drain_lru(void)
{
	static char page[PAGE_SIZE] __attribute__((aligned(PAGE_SIZE)));

	page[0] = 1;
	if (mlock(page, PAGE_SIZE) || munlock(page, PAGE_SIZE))
		tap_diag("mlock: %m");
}

/*
 * mTHP sizes: enable exactly KB (upstream cow.c's run_with_thp() per size),
 * every other hugepages-<size>kB knob "never"; scn_mthp_restore() puts back
 * what each knob said.
 */
#define MAX_SIZES	16
static char mthp_knob[MAX_SIZES][320], mthp_old[MAX_SIZES][16];
static int nr_knobs;

void scn_mthp_restore(void)
{
	for (int i = 0; i < nr_knobs; i++)
		if (scn_write_file(mthp_knob[i], mthp_old[i]))
			scn_ok(false, "restore %s to %s", mthp_knob[i], mthp_old[i]);
	nr_knobs = 0;
}

const char *scn_mthp_only(long kb)
{
	DIR *d = opendir(THP_SYSFS);
	struct dirent *e;
	bool found = false;

	if (!d)
		return "no " THP_SYSFS;
	while ((e = readdir(d)) && nr_knobs < MAX_SIZES) {
		long size;

		if (sscanf(e->d_name, "hugepages-%ldkB", &size) != 1)
			continue;
		snprintf(mthp_knob[nr_knobs], sizeof(mthp_knob[0]), THP_SYSFS "/%s/enabled",
			 e->d_name);
		/* A size without an anonymous knob (6.12's 8 KiB: order 1). */
		if (access(mthp_knob[nr_knobs], F_OK) && errno == ENOENT)
			continue;
		/* "always [inherit] madvise never": the bracketed word. */
		if (!thp_knob_word(mthp_knob[nr_knobs], mthp_old[nr_knobs], sizeof(mthp_old[0]))[0]) {
			static char why[400];

			snprintf(why, sizeof(why), "cannot read a [selected] word from %s",
				 mthp_knob[nr_knobs]);
			closedir(d);
			return why;
		}
		if (scn_write_file(mthp_knob[nr_knobs], size == kb ? "always" : "never")) {
			closedir(d);
			return "cannot write hugepages-<size>kB/enabled";
		}
		nr_knobs++;
		found |= size == kb;
	}
	closedir(d);
	return found ? NULL : "no hugepages-<size>kB knob of this size";
}
