/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the seed-scenario tests (tests/guest/scn_*.c): expectations
 * from tests/expect/scenarios.tsv, the "# RESULT" line, pagemap/kpageflags,
 * and the small pieces every scenario needs.
 *
 * A scenario program runs one or more named cases.  For each case it asks
 * scn_begin() whether the expectations file has a row for (case, profile,
 * policy in force); without one the case is skipped.  It then measures
 * (vmstat snapshots around the interesting part) and calls scn_end() with
 * the observed outcome: scn_end() prints
 *
 *   # RESULT scenario=<case> profile=<p> policy=<p> outcome=<o>
 *            counters=yes|no|missing|none <counter>=<delta> ... [detail...]
 *
 * with the delta of every cow_* counter, zeros included.
 *
 * and one TAP point, "<case>: observed <o>", that fails only when the
 * outcome is "error".  Whether the outcome and the counters are the
 * expected ones is decided on the host (scripts/report/judge.py) against
 * tests/expect/scenarios.tsv, so that editing an expectation needs no
 * image rebuild.  The TAP plan is printed at the end by scn_finish().
 */
#ifndef SCN_H
#define SCN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cowtest.h"

#define SCN_EXPECT_PATH	"/etc/cowtest/expect/scenarios.tsv"
/* The kernel line of a row without a "kernel" column. */
#define SCN_KERNEL_DEFAULT	"6.1"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT	21
#endif

/* One row of scenarios.tsv. */
struct scn_row {
	char scenario[48], profile[16], policy[16], outcome[24];
	char counters[256], reason[512], kernel[16];
};

/* Policy and profile of this run, pin to CPU 0, read the expectations. */
void scn_init(const char *program);
const char *scn_policy(void);
const char *scn_profile(void);
/*
 * The row for (name, profile, policy, kernel line of uname -r), or NULL
 * (then the case is skipped).
 */
const struct scn_row *scn_begin(const char *name);
/*
 * Report one case: outcome, counter deltas between before and after (every
 * cow_* counter), detail for the RESULT line.  How far a counter may stray
 * from its row is the row's slack, on the host.
 */
void scn_end(const struct scn_row *row, const char *outcome,
	     const struct vmstat *before, const struct vmstat *after,
	     const char *detail_fmt, ...)
	__attribute__((format(printf, 5, 6)));
/*
 * The child of the CVE-2020-29374 reproducer (seed 000), forked with
 * fork_piped(): says 'r'; on 'g' vmsplice()s len bytes at p into the pipe
 * pfd, drops its own mapping of drop_len bytes at p (munmap() when unmap,
 * else MADV_DONTNEED) and says 'u'; on 'r' reads the pipe into buf
 * (len bytes) and answers 'L' when it holds the parent's later write ('S'),
 * 'o' when the old data, 'm' when mixed, '?' when short.  Never returns.
 */
void scn_vmsplice_child(char *p, size_t len, size_t drop_len, bool unmap,
			int go, int back, int pfd[2], char *buf)
	__attribute__((noreturn));
/* Plain TAP points counted in the plan. */
void scn_ok(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void scn_skip(const char *why, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Print the plan, restore the policy if changed, return the exit status. */
int scn_finish(void);

/* Fault in the stack and vmstat buffer privately, then snapshot. */
void scn_warm(struct vmstat *snap);

/*
 * A child forked with fork_piped() that the parent counts around:
 * scn_child_ready() faults in the child's stack (its own copy, now) and
 * says 'r' on back; scn_child_wait() reads that 'r' in the parent and
 * then waits until the child sleeps (state S in /proc/<pid>/stat: its
 * next pipe_getc()), so that no fault of the child lands in the parent's
 * counter window.  Bails when the child dies or does not sleep in 10 s.
 */
void scn_child_ready(int back);
void scn_child_wait(pid_t pid, int back);

/* /proc/self/pagemap entry of addr, and the bits the tests use. */
uint64_t scn_pagemap(const void *addr);
#define PM_PFN(e)	((e) & ((1ULL << 55) - 1))
#define PM_SOFT_DIRTY	(1ULL << 55)
#define PM_MMAP_EXCL	(1ULL << 56)
#define PM_UFFD_WP	(1ULL << 57)
#define PM_SWAP		(1ULL << 62)
#define PM_PRESENT	(1ULL << 63)
/* The pfn mapped at addr, 0 when not present. */
uint64_t scn_pfn(const void *addr);
/* /proc/kpageflags of pfn. */
uint64_t scn_kpageflags(uint64_t pfn);
#define KPF_WRITEBACK	8
#define KPF_ANON	12
#define KPF_SWAPCACHE	13	/* 14 is KPF_SWAPBACKED, which every anonymous page has */
#define KPF_HUGE	17
#define KPF_COMPOUND_HEAD 15
#define KPF_COMPOUND_TAIL 16
#define KPF_KSM		21
#define KPF_THP		22
/*
 * The large-folio shape of n pages, from their pfns (0: not present) and
 * their /proc/kpageflags words (pure: make check runs them on made-up
 * pages, tests/host/scn_folio.c). scn_whole_folios(): how many lie in
 * whole folios of nr pages, each a compound head followed by nr - 1 tails
 * at the next pfns (n a multiple of nr). scn_large_pages(): how many are
 * in any compound page.
 */
int scn_whole_folios(const uint64_t *pfn, const uint64_t *flags, int n, int nr);
int scn_large_pages(const uint64_t *pfn, const uint64_t *flags, int n);
/* pfn[] and flags[] of the n pages at p, for the two above. */
void scn_page_shape(const char *p, int n, uint64_t *pfn, uint64_t *flags);
/*
 * The outcome of a swap-in case (scn_backings swapin-rw, swapin-w): "error"
 * unless all n pages went out and exactly want_large came back in large
 * folios, else "lost-write" when bad, "ok" for a write-only case, and for
 * read-then-write "reuse" / "copy" / "mixed" by how many kept their pfn.
 */
const char *scn_swapin_outcome(int n, int out, int large, int want_large, int bad,
			       int same, bool read_first);
/*
 * Multi-size THP (6.8 and later): scn_mthp_only() sets exactly kb KiB's
 * hugepages-<size>kB/enabled to "always" and every other size's to
 * "never" (upstream cow.c's run_with_thp() per size), remembering what
 * each said; NULL, or why it could not. scn_mthp_restore() puts them back.
 */
const char *scn_mthp_only(long kb);
void scn_mthp_restore(void);
/* AnonHugePages kB of the smaps entry containing addr. */
long scn_anon_huge_kb(const void *addr);

/* Write vm.cow_policy (remembering to restore the original at exit). */
void scn_set_policy(const char *name);
/* Lines in the kernel log containing needle (reads /dev/kmsg). */
int scn_kmsg_count(const char *needle);
/* Write a string to a file (sysfs/proc knobs); 0 or -errno. */
int scn_write_file(const char *path, const char *s);
long scn_read_long(const char *path);
/* Count bytes of buf[0..len) that differ from c. */
long scn_count_diff(const void *buf, int c, unsigned long len);
/* Monotonic seconds. */
double scn_now(void);

/*
 * Empty every CPU's LRU batches (mlock() starts with lru_add_drain_all()):
 * a page just faulted in, or whose writeback just finished, sits in a
 * batch holding a reference that the refcount rule would count -- a
 * transient copy, not the case tested.
 */
void scn_drain_lru(void);
/* How many of npages pages at mem are swap PTEs. */
int scn_swapped(const char *mem, int npages);
/* MADV_PAGEOUT until every page is a swap PTE (a few tries); how many are. */
int scn_page_out(char *mem, int npages);

/*
 * KSM: scn_ksm_start() saves ksmd's knobs and runs it fast (1000 pages a
 * scan, every 10 ms); scn_ksm_pause() stops it (merged pages stay merged,
 * and ksmd holds no transient reference); scn_ksm_restore() puts the saved
 * knobs back.
 */
#define SCN_KSM	"/sys/kernel/mm/ksm/"
void scn_ksm_start(void);
void scn_ksm_pause(void);
void scn_ksm_restore(void);

/*
 * Whether the booted profile has every feature of needs ("-" or a comma
 * list: thp, hugetlb, swap, ksm, pin, ...), as its FEATURES, which the
 * runner exports as COWTEST_FEATURES; else the first missing one.
 */
bool scn_has_features(const char *needs, char *missing, size_t len);

#endif
