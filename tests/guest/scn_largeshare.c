// SPDX-License-Identifier: GPL-2.0
/*
 * scn_largeshare: a page of a large folio (a THP, an mTHP) that another
 * process shares in part: it maps some other page of the folio, or holds a
 * swap entry of one.  v5.11 decided such a page on the whole folio
 * (page_trans_huge_map_swapcount()), and moved a reused page to the
 * faulting process's anon_vma only when the folio had one mapping or swap
 * entry in all (reuse_swap_page()'s total_map_swapcount).  Deterministic.
 *
 * excl-subpage-thp  a PMD THP; MADV_DONTFORK on its first half splits it
 *                   (its pages stay PageAnonExclusive), fork() shares the
 *                   second half with the child; the parent mprotect()s its
 *                   first page read-only and back, then writes it.  The
 *                   page is exclusive, yet the child maps other pages of
 *                   its THP: "exclusive" reuses it (mprotect() maps it
 *                   writable again, no fault), v5.11's rule copies it.
 *
 * swap-partial-{thp,mthp-64k}-reuse, swap-partial-{thp,mthp-64k}-rmap
 *                   one large folio swapped out whole (MADV_PAGEOUT) to a
 *                   non-rotational swap disk, whose writeback keeps it in
 *                   the swap cache; fork(); the child drops every page but
 *                   the first, the parent drops the first.  The child
 *                   reads its page back from the swap cache and writes it
 *                   (-reuse: reuse or copy, by its pfn); then the parent
 *                   reads its pages back, mapping the same folio, and the
 *                   split_huge_pages debugfs file splits the parent's
 *                   range, which needs an rmap walk that finds every PTE
 *                   mapping the folio (-rmap: "ok" when the parent's pages
 *                   are split, "rmap-lost" when the walk missed them and
 *                   the folio stayed whole).  A reuse that moves the folio
 *                   to the child's anon_vma while the parent holds swap
 *                   entries of it hides the parent's PTEs from that walk.
 *                   6.1 cannot show it: its swap-in copies a tail page out
 *                   of a swap-cache THP (ksm_might_need_to_copy() reads a
 *                   tail's index), so the parent never maps the THP again;
 *                   there only -reuse has rows.
 *
 * The swap disk is the profile's ssdswap feature's (its device named in
 * /etc/cowtest/ssdswap, mkswap'ed, queue/rotational = 0 so that swapon
 * gives it swap clusters and a large folio is swapped out whole); this
 * program swaps on it, at the highest priority, for its swap cases only.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scn.h"

#define THP_SIZE	(2UL << 20)
#define SPLIT_FILE	"/sys/kernel/debug/split_huge_pages"
#define SSDSWAP_FILE	"/etc/cowtest/ssdswap"

/* A mapping with one size-aligned area of size bytes, filled with 'o'. */
struct area {
	char *map, *p;
	size_t maplen, size;
	int nr;
};

static bool area_map(struct area *a, size_t size, bool thp)
{
	a->size = size;
	a->nr = (int)(size / PAGE_SIZE);
	a->maplen = 2 * size;
	a->map = mmap(NULL, a->maplen, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a->map == MAP_FAILED) {
		a->map = NULL;
		return false;
	}
	a->p = (char *)(((uintptr_t)a->map + size - 1) & ~(size - 1));
	if (thp && madvise(a->p, size, MADV_HUGEPAGE))
		tap_diag("MADV_HUGEPAGE: %m");
	memset(a->p, 'o', size);
	return true;
}

static void area_unmap(struct area *a)
{
	if (a->map)
		munmap(a->map, a->maplen);
	a->map = NULL;
}

/* How many of the area's pages lie in one whole large folio. */
static int in_one_folio(const struct area *a)
{
	uint64_t pfn[a->nr], flags[a->nr];

	scn_page_shape(a->p, a->nr, pfn, flags);
	return scn_whole_folios(pfn, flags, a->nr, a->nr);
}

/* excl-subpage-thp (above). */
static void excl_subpage(const char *name)
{
	const struct scn_row *row = scn_begin(name);
	struct vmstat before, after;
	struct area a;
	uint64_t pfn0, pfn1;
	int go[2], back[2], whole, excl;
	const char *outcome;
	pid_t pid;

	if (!row)
		return;
	if (!area_map(&a, THP_SIZE, true))
		bail("mmap");
	whole = in_one_folio(&a);
	if (whole != a.nr) {
		scn_end(row, "error", NULL, NULL, "thp=%d/%d: no PMD THP", whole, a.nr);
		area_unmap(&a);
		return;
	}
	/* Splits the PMD: the pages stay exclusive, the first half unshared. */
	if (madvise(a.p, THP_SIZE / 2, MADV_DONTFORK))
		bail("MADV_DONTFORK");
	pid = fork_piped(go, back);
	if (!pid) {
		scn_child_ready(back[1]);
		/* The shared half, read while the parent writes its page. */
		if (pipe_getc(go[0]) != 'g')
			_exit(3);
		pipe_putc(back[1], scn_count_diff(a.p + THP_SIZE / 2, 'o', THP_SIZE / 2) ? 'n' : 'o');
		_exit(0);
	}
	scn_child_wait(pid, back[0]);
	excl = !!(scn_pagemap(a.p) & PM_MMAP_EXCL);
	if (mprotect(a.p, PAGE_SIZE, PROT_READ) ||
	    mprotect(a.p, PAGE_SIZE, PROT_READ | PROT_WRITE))
		bail("mprotect");
	pfn0 = scn_pfn(a.p);
	scn_warm(&before);
	a.p[0] = 'n';
	vmstat_read(&after);
	pfn1 = scn_pfn(a.p);
	pipe_putc(go[1], 'g');
	outcome = a.p[0] != 'n' || a.p[1] != 'o' ? "lost-write" :
		  pipe_getc(back[0]) != 'o' ? "leak" :
		  !pfn0 || !pfn1 ? "error" : pfn0 == pfn1 ? "reuse" : "copy";
	waitpid(pid, NULL, 0);
	scn_end(row, outcome, &before, &after,
		"thp=%d/%d mapped_once=%d same_pfn=%d still_large=%d",
		whole, a.nr, excl, pfn0 == pfn1,
		!!(scn_kpageflags(pfn1) & (1ULL << KPF_COMPOUND_TAIL |
					   1ULL << KPF_COMPOUND_HEAD)));
	close(go[0]); close(go[1]); close(back[0]); close(back[1]);
	area_unmap(&a);
}

static char ssd[64];

/* Swap on the ssdswap feature's disk, ahead of every other device. */
static const char *ssd_swapon(void)
{
	FILE *f = fopen(SSDSWAP_FILE, "r");

	if (!f)
		return "no " SSDSWAP_FILE " (profile without the ssdswap feature)";
	if (!fgets(ssd, sizeof(ssd), f))
		ssd[0] = 0;
	fclose(f);
	ssd[strcspn(ssd, "\n")] = 0;
	if (!ssd[0])
		return "empty " SSDSWAP_FILE;
	if (swapon(ssd, SWAP_FLAG_PREFER | (32767 << SWAP_FLAG_PRIO_SHIFT))) {
		tap_diag("swapon %s: %m", ssd);
		return "swapon of the ssdswap disk failed";
	}
	return NULL;
}

static void ssd_swapoff(void)
{
	if (swapoff(ssd))
		bail("swapoff %s", ssd);
}

/* The debugfs split file, mounting debugfs if needed. */
static bool split_file(void)
{
	if (!access(SPLIT_FILE, W_OK))
		return true;
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	return !access(SPLIT_FILE, W_OK);
}

/* Wait (bounded) until the page at pfn is not under writeback. */
static bool wait_page_written(uint64_t pfn)
{
	for (double t0 = scn_now(); scn_now() - t0 < 10.0; usleep(10 * 1000))
		if (!(scn_kpageflags(pfn) & (1ULL << KPF_WRITEBACK)))
			return true;
	return false;
}

/* What the child reports of its page, through the back pipe. */
struct child_page {
	uint64_t pfn_read, pfn_written, flags_read;
	char data;
};

static void child_run(const struct area *a, int go, int back)
{
	struct child_page cp = { 0 };

	/* Every page but the first, whose swap entry it keeps. */
	if (madvise(a->p + PAGE_SIZE, a->size - PAGE_SIZE, MADV_DONTNEED))
		_exit(4);
	scn_child_ready(back);
	if (pipe_getc(go) != 'r')
		_exit(3);
	/* Read fault: the page back from the swap cache, read-only. */
	cp.data = *(volatile char *)a->p;
	cp.pfn_read = scn_pfn(a->p);
	if (!wait_page_written(cp.pfn_read))
		_exit(5);
	cp.flags_read = scn_kpageflags(cp.pfn_read);
	scn_drain_lru();
	if (write(back, &cp, sizeof(cp)) != sizeof(cp) || pipe_getc(go) != 'w')
		_exit(3);
	a->p[0] = 'c';
	cp.pfn_written = scn_pfn(a->p);
	if (write(back, &cp, sizeof(cp)) != sizeof(cp))
		_exit(3);
	/* Alive, mapping its page, until the parent's rmap walk is done. */
	_exit(pipe_getc(go) == 'x' ? 0 : 3);
}

static bool read_full(int fd, void *buf, size_t len)
{
	return read(fd, buf, len) == (ssize_t)len;
}

/* swap-partial-<backing>-reuse and -rmap (above). */
static void swap_partial(const char *rname, const char *mname, size_t size,
			 bool thp)
{
	char cmd[128], detail[400];
	const struct scn_row *rrow, *mrow;
	struct vmstat before, after;
	struct child_page cp;
	struct area a = { 0 };
	const char *why = NULL, *reuse = "error", *rmap = "error";
	int go[2], back[2], whole = 0, out = 0, bad = 0, same_folio = 0, large = -1;
	uint64_t pfn1 = 0, flags1 = 0;
	bool swapped_on = false, mthp = !thp;
	pid_t pid = -1;

	rrow = scn_begin(rname);
	mrow = scn_begin(mname);
	if (!rrow && !mrow)
		return;
	detail[0] = 0;
	if (mthp && (why = scn_mthp_only((long)(size >> 10))))
		goto out;
	if (!split_file()) {
		why = "no " SPLIT_FILE;
		goto out;
	}
	if ((why = ssd_swapon()))
		goto out;
	swapped_on = true;
	if (!area_map(&a, size, thp))
		bail("mmap");
	whole = in_one_folio(&a);
	if (whole != a.nr) {
		why = "the area is not one large folio";
		goto out;
	}
	/* Out whole, before the fork: the parent alone maps the folio. */
	out = scn_page_out(a.p, a.nr);
	if (out != a.nr) {
		why = "not every page swapped out";
		goto out;
	}
	pid = fork_piped(go, back);
	if (!pid)
		child_run(&a, go[0], back[1]);
	scn_child_wait(pid, back[0]);
	/* The parent keeps every swap entry but the first's. */
	if (madvise(a.p, PAGE_SIZE, MADV_DONTNEED))
		bail("MADV_DONTNEED");
	pipe_putc(go[1], 'r');
	if (!read_full(back[0], &cp, sizeof(cp))) {
		why = "the child died reading its page";
		goto out;
	}
	/* The setup's evidence: the child mapped a page of a large swap-cache folio. */
	if (!(cp.flags_read & (1ULL << KPF_SWAPCACHE)) ||
	    !(cp.flags_read & (1ULL << KPF_COMPOUND_HEAD))) {
		snprintf(detail, sizeof(detail), "child_read_flags=%#llx",
			 (unsigned long long)cp.flags_read);
		why = "the child's page is not the head of a large folio in the swap cache";
		goto out;
	}
	scn_warm(&before);
	pipe_putc(go[1], 'w');
	if (!read_full(back[0], &cp, sizeof(cp))) {
		why = "the child died writing its page";
		goto out;
	}
	vmstat_read(&after);
	reuse = cp.data != 'o' ? "lost-write" :
		!cp.pfn_written ? "error" :
		cp.pfn_written == cp.pfn_read ? "reuse" : "copy";
	/* The parent's pages back from the swap cache: the same folio. */
	for (int i = 1; i < a.nr; i++) {
		bad += a.p[i * PAGE_SIZE] != 'o';
		same_folio += scn_pfn(a.p + i * PAGE_SIZE) == cp.pfn_read + i;
	}
	pfn1 = scn_pfn(a.p + PAGE_SIZE);
	flags1 = scn_kpageflags(pfn1);
	scn_drain_lru();
	snprintf(cmd, sizeof(cmd), "%d,%#lx,%#lx", (int)getpid(),
		 (unsigned long)a.p, (unsigned long)(a.p + a.size));
	if (scn_write_file(SPLIT_FILE, cmd))
		tap_diag("%s: write %s: %m", mname, SPLIT_FILE);
	{
		uint64_t pfn[a.nr], flags[a.nr];

		scn_page_shape(a.p, a.nr, pfn, flags);
		pfn[0] = 0;	/* the child's page, not ours */
		large = scn_large_pages(pfn, flags, a.nr);
	}
	rmap = bad ? "lost-write" : same_folio != a.nr - 1 ? "error" :
	       large ? "rmap-lost" : "ok";
	snprintf(detail, sizeof(detail),
		 "in_folio=%d/%d swapped_out=%d child_read_flags=%#llx same_pfn=%d parent_in_folio=%d/%d parent_page1=%+lld,%#llx still_large_after_split=%d bad_reads=%d",
		 whole, a.nr, out, (unsigned long long)cp.flags_read,
		 cp.pfn_written == cp.pfn_read, same_folio, a.nr - 1,
		 (long long)(pfn1 - cp.pfn_read), (unsigned long long)flags1,
		 large, bad);
out:
	if (pid > 0) {
		pipe_putc(go[1], 'x');
		waitpid(pid, NULL, 0);
		close(go[0]); close(go[1]); close(back[0]); close(back[1]);
	}
	area_unmap(&a);
	if (swapped_on)
		ssd_swapoff();
	if (mthp)
		scn_mthp_restore();
	if (why)
		tap_diag("%s: %s %s", mname, why, detail);
	if (rrow)
		scn_end(rrow, reuse, why ? NULL : &before, why ? NULL : &after,
			"%s%s", why ? why : "", why ? "" : detail);
	if (mrow)
		scn_end(mrow, rmap, why ? NULL : &before, why ? NULL : &after,
			"%s%s", why ? why : "", why ? "" : detail);
}

int main(void)
{
	scn_init("scn_largeshare");
	excl_subpage("excl-subpage-thp");
	swap_partial("swap-partial-thp-reuse", "swap-partial-thp-rmap",
		     THP_SIZE, true);
	swap_partial("swap-partial-mthp-64k-reuse", "swap-partial-mthp-64k-rmap",
		     64 << 10, false);
	return scn_finish();
}
