// SPDX-License-Identifier: GPL-2.0
/*
 * scn_swap: a page swapped out (MADV_PAGEOUT) and
 * faulted back by a read, then written: reuse or copy (reuse_swap_page()
 * before v5.19, seeds 001/011).  Swap profile.  Deterministic.
 *
 * swap-exclusive    swapped out while exclusive; the swap PTE keeps the
 *                   exclusive mark, the read fault maps the page R/O.
 * swap-fork-exited  fork() after the page-out: the swap entry is shared and
 *                   loses its exclusive mark; the child exits before the
 *                   read fault.
 * swap-fork-alive   the same with the child alive, holding the swap entry:
 *                   the parent's write must copy, the child keeps old data.
 *
 * Reuse or copy is read from the pfn before and after the write.
 *
 * swapin-write-fork-alive  as swap-fork-alive, but the parent writes at
 *                   once, without a read first (the pages read into the
 *                   swap cache by MADV_WILLNEED, the LRU batches drained,
 *                   as in swapin-write): do_swap_page() decides the write
 *                   at swap-in.  v5.11 called reuse_swap_page() there,
 *                   which counted the child's swap count and refused: every
 *                   policy copies, the child keeps old data.  A page the
 *                   parent reused stays in the swap cache (the child's entry
 *                   keeps it there), a copy is not in it: reuse or copy is
 *                   read from KPF_SWAPCACHE of the parent's pages after the
 *                   write.  After a copy the child reads its pages ("leak"
 *                   if it reads the write); after a reuse it exits without
 *                   touching them: its swap PTEs refer to the parent's
 *                   page, now PageAnonExclusive, and 6.1's do_swap_page()
 *                   BUG()s on that (a read would find the write).
 *
 * Write faults on swap PTEs, decided when do_swap_page() swaps the page in:
 *
 * swapin-write          exclusive pages swapped out, then written without a
 *                       read first: every policy maps them writable at
 *                       swap-in, and the decision is counted.  The pages
 *                       are read into the swap cache first (MADV_WILLNEED)
 *                       and the LRU batches drained, so that no batch holds
 *                       a reference when the write fault decides: a page
 *                       still in a batch has page_count() 2, and v5.18's
 *                       rule, which refcount follows, copies it (as swap
 *                       readahead makes happen, depending on timing).
 * swapin-write-gupref   the program's own pages spliced into a pipe (FOLL_GET
 *                       references) before the page-out, so they stay in the
 *                       swap cache; then written.  "reuse" if the pipe shows
 *                       the write (6.1 trusts the exclusive swap PTE), "copy"
 *                       if it keeps the old data (v5.18: page_count() == 1).
 * swap-gupref           the same, read before the write: the write fault is
 *                       decided by do_wp_page() on a swap cache page that
 *                       the pipe also references (a copy there is for the
 *                       references, not for the swap cache).
 *
 * Swap cache pages under writeback to a device that needs stable pages
 * (SWP_STABLE_WRITES; /dev/vdc with queue/stable_writes = 1 and QEMU drive
 * throttling, swapped on only for these cases), which must not be written
 * while the device reads them (v5.8 reuse_swap_page(), 6.1 do_swap_page()):
 *
 * swap-writeback-stable    read fault, then write fault, while the page is
 *                          still under writeback (checked in kpageflags).
 * swapin-writeback-stable  write fault on the swap PTE while writeback is in
 *                          flight (checked in nr_writeback).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/swap.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scn.h"

#define NPAGES	16
#define LEN	(NPAGES * PAGE_SIZE)

/* The throttled stable-writes swap disk (qemu-profiles/swap.profile). */
#define STABLE_DEV	"/dev/vdc"
#define STABLE_PAGES	8
#define KPF_LOCKED	0
#define KPF_LRU		5

enum kind { EXCL, FORK_EXITED, FORK_ALIVE };

/*
 * Wait (bounded) until no page is under writeback: a swap-cache page still
 * being written cannot leave the swap cache, so the refcount rule would
 * copy it (cow_copy_swap) -- a race with the disk, not the case tested.
 */
static void wait_writeback(void)
{
	struct vmstat vs;
	double t0 = scn_now();

	do {
		/*
		 * /proc/vmstat shows the global nr_writeback without the
		 * per-CPU deltas: it can read 0 while a few pages are still
		 * under writeback.  stat_refresh folds the deltas in first.
		 */
		scn_write_file("/proc/sys/vm/stat_refresh", "1");
		vmstat_read(&vs);
		if (vmstat_get(&vs, "nr_writeback") <= 0)
			return;
		usleep(20 * 1000);
	} while (scn_now() - t0 < 5.0);
	tap_diag("nr_writeback still %lld after 5 s", vmstat_get(&vs, "nr_writeback"));
}

/* NPAGES pages of 'o', every one paged out and written back; NULL (and a
 * failed point) when the kernel kept some. */
static char *swapped_out(const char *name)
{
	char *mem = map_anon_ptes(LEN, 'o');
	int out = scn_page_out(mem, NPAGES);

	if (out < NPAGES) {
		scn_ok(false, "%s: only %d of %d pages swapped out", name, out, NPAGES);
		munmap(mem, LEN);
		return NULL;
	}
	wait_writeback();
	return mem;
}

static void run(const char *name, enum kind k)
{
	const struct scn_row *row = scn_begin(name);
	struct vmstat before, after;
	uint64_t pfn[NPAGES];
	int go[2], back[2], same = 0, bad = 0, st[4] = { 0 };
	pid_t pid = -1;
	char c = '?', *mem;

	if (!row)
		return;
	mem = swapped_out(name);
	if (!mem)
		return;
	scn_drain_lru();
	if (k != EXCL) {
		pid = fork_piped(go, back);
		if (!pid) {
			struct vmstat scratch;

			if (k == FORK_EXITED)
				_exit(0);
			scn_warm(&scratch);
			if (write(back[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
				_exit(3);
			c = scn_count_diff(mem, 'o', LEN) ? 'n' : 'o';
			_exit(write(back[1], &c, 1) == 1 ? 0 : 3);
		}
		if (k == FORK_EXITED)
			waitpid(pid, NULL, 0);
		else if (read(back[0], &c, 1) != 1)
			bail("child");
	}
	/* Read fault: back from swap (cache), mapped read-only. */
	for (int i = 0; i < NPAGES; i++)
		bad += mem[i * PAGE_SIZE] != 'o';
	for (int i = 0; i < NPAGES; i++)
		pfn[i] = scn_pfn(mem + i * PAGE_SIZE);
	/*
	 * A page found in the swap cache may still be under writeback from
	 * the page-out; the rule must not see it so (that is the stable
	 * writes cases' subject, below).  Now mapped, each page's own flag
	 * says so: wait for it (bounded), a precondition, not a retry.
	 */
	for (double t0 = scn_now(); scn_now() - t0 < 5.0; usleep(20 * 1000)) {
		int wb = 0;

		for (int i = 0; i < NPAGES; i++)
			wb += !!(scn_kpageflags(pfn[i]) & (1ULL << KPF_WRITEBACK));
		if (!wb)
			break;
	}
	scn_drain_lru();	/* the read faults' LRU additions */
	/*
	 * The state the write fault will find, for the RESULT line: a page
	 * still locked, under writeback or off the LRU makes 6.1's rule copy
	 * for a reason that is not the case tested.
	 */
	for (int i = 0; i < NPAGES; i++) {
		uint64_t f = scn_kpageflags(pfn[i]);

		st[0] += !!(f & (1ULL << KPF_SWAPCACHE));
		st[1] += !!(f & (1ULL << KPF_LOCKED));
		st[2] += !!(f & (1ULL << KPF_WRITEBACK));
		st[3] += !(f & (1ULL << KPF_LRU));
	}
	scn_warm(&before);
	for (int i = 0; i < NPAGES; i++)
		mem[i * PAGE_SIZE] = 'n';
	vmstat_read(&after);
	for (int i = 0; i < NPAGES; i++)
		same += scn_pfn(mem + i * PAGE_SIZE) == pfn[i];
	if (k == FORK_ALIVE) {
		if (write(go[1], "g", 1) != 1 || read(back[0], &c, 1) != 1)
			c = '?';
		waitpid(pid, NULL, 0);
	}
	scn_end(row, bad ? "lost-write" : c == 'n' ? "leak" :
		same == NPAGES ? "reuse" : same == 0 ? "copy" : "mixed",
		&before, &after,
		"same_pfn=%d/%d bad_reads=%d swapcache=%d locked=%d writeback=%d off_lru=%d%s",
		same, NPAGES, bad, st[0], st[1], st[2], st[3],
		k == FORK_ALIVE ? (c == 'o' ? " child=old" : " child=new") : "");
	if (k != EXCL) {
		close(go[0]); close(go[1]); close(back[0]); close(back[1]);
	}
	munmap(mem, LEN);
}

/* Write the first byte of every page; how many then read back 'n'. */
static int write_pages(char *mem, int npages);

/* swapin-write-fork-alive (above). */
static void swapin_fork_alive(const char *name)
{
	const struct scn_row *row = scn_begin(name);
	struct vmstat before, after;
	int go[2], back[2], good, incache = 0;
	pid_t pid;
	char c = '?', *mem;
	const char *outcome;

	if (!row)
		return;
	mem = swapped_out(name);
	if (!mem)
		return;
	pid = fork_piped(go, back);
	if (!pid) {
		struct vmstat scratch;

		/* Alive and untouched: its swap entries keep the swap count. */
		scn_warm(&scratch);
		if (write(back[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(3);
		if (c != 'g')
			_exit(0);
		c = scn_count_diff(mem, 'o', LEN) ? 'n' : 'o';
		_exit(write(back[1], &c, 1) == 1 ? 0 : 3);
	}
	if (read(back[0], &c, 1) != 1)
		bail("child");
	/* Into the swap cache now, not by the faults' readahead. */
	if (madvise(mem, LEN, MADV_WILLNEED))
		tap_diag("%s: MADV_WILLNEED: %m", name);
	scn_drain_lru();
	scn_warm(&before);
	good = write_pages(mem, NPAGES);
	vmstat_read(&after);
	for (int i = 0; i < NPAGES; i++) {
		uint64_t pfn = scn_pfn(mem + i * PAGE_SIZE);

		incache += pfn && (scn_kpageflags(pfn) & (1ULL << KPF_SWAPCACHE));
	}
	if (incache) {
		/* Not to be read: see above. */
		if (write(go[1], "x", 1) != 1)
			bail("child");
		c = 'x';
	} else if (write(go[1], "g", 1) != 1 || read(back[0], &c, 1) != 1) {
		c = '?';
	}
	waitpid(pid, NULL, 0);
	outcome = good != NPAGES ? "lost-write" : c == 'n' ? "leak" :
		  incache == NPAGES ? "reuse" : incache ? "mixed" :
		  c != 'o' ? "error" : "copy";
	scn_end(row, outcome, &before, &after,
		"swapped_out=%d/%d written=%d/%d parent_in_swapcache=%d/%d child=%s",
		NPAGES, NPAGES, good, NPAGES, incache, NPAGES,
		c == 'o' ? "old" : c == 'n' ? "new" : c == 'x' ? "not-read" : "bad");
	close(go[0]); close(go[1]); close(back[0]); close(back[1]);
	munmap(mem, LEN);
}

/* Write the first byte of every page; how many then read back 'n'. */
static int write_pages(char *mem, int npages)
{
	int good = 0;

	for (int i = 0; i < npages; i++)
		mem[i * PAGE_SIZE] = 'n';
	for (int i = 0; i < npages; i++)
		good += mem[i * PAGE_SIZE] == 'n' && mem[i * PAGE_SIZE + 1] == 'o';
	return good;
}

static void swapin_write(const char *name, bool gupref, bool read_first)
{
	const struct scn_row *row = scn_begin(name);
	struct iovec iov;
	struct vmstat before, after;
	static char pipebuf[LEN];
	int pfd[2] = { -1, -1 }, out, good, inpipe = 0;
	const char *outcome;
	ssize_t got = 0, n;
	char *mem;

	if (!row)
		return;
	mem = map_anon_ptes(LEN, 'o');
	if (gupref) {
		/* The pipe holds FOLL_GET references on our own pages. */
		iov.iov_base = mem;
		iov.iov_len = LEN;
		if (pipe(pfd) || fcntl(pfd[1], F_SETPIPE_SZ, 2 * LEN) < 0 ||
		    vmsplice(pfd[1], &iov, 1, 0) != (ssize_t)LEN)
			bail("vmsplice");
	}
	out = scn_page_out(mem, NPAGES);
	if (out < NPAGES) {
		scn_ok(false, "%s: only %d of %d pages swapped out", name, out, NPAGES);
		goto out;
	}
	if (!gupref)
		wait_writeback();
	/* Into the swap cache now, not by the faults' readahead (see above). */
	if (!read_first && madvise(mem, LEN, MADV_WILLNEED))
		tap_diag("%s: MADV_WILLNEED: %m", name);
	scn_drain_lru();
	if (read_first)	/* back from the swap cache, mapped R/O */
		for (int i = 0; i < NPAGES; i++)
			good += *(volatile char *)(mem + i * PAGE_SIZE) == 'o';
	scn_warm(&before);
	good = write_pages(mem, NPAGES);
	vmstat_read(&after);
	if (gupref) {
		while (got < (ssize_t)LEN && (n = read(pfd[0], pipebuf + got, LEN - got)) > 0)
			got += n;
		for (int i = 0; i < NPAGES; i++)
			inpipe += pipebuf[i * PAGE_SIZE] == 'n';
	}
	if (good != NPAGES)
		outcome = "lost-write";
	else if (!gupref)
		outcome = "ok";
	else if (got != (ssize_t)LEN)
		outcome = "error";
	else
		outcome = inpipe == NPAGES ? "reuse" : inpipe == 0 ? "copy" : "mixed";
	scn_end(row, outcome, &before, &after,
		"swapped_out=%d/%d written=%d/%d%s%d", out, NPAGES, good, NPAGES,
		gupref ? " pipe_sees_write=" : " pipe=", gupref ? inpipe : 0);
out:
	if (gupref) {
		close(pfd[0]);
		close(pfd[1]);
	}
	munmap(mem, LEN);
}

static char *primer;

/*
 * Swap on the stable-writes disk alone for one case: the profile ran
 * mkswap on it and set its queue/stable_writes.  /dev/vda is swapped off
 * meanwhile, which also empties the per-CPU swap slot caches that would
 * otherwise hand out /dev/vda's slots first.  QEMU's throttle lets the
 * first request after a quiet spell through at once, so a primer page-out
 * fills its bucket first: the case's own writeback then waits seconds for
 * the bucket to drain.
 */
static bool stable_swap_on(void)
{
	if (scn_read_long("/sys/block/vdc/queue/stable_writes") != 1) {
		tap_diag("%s: queue/stable_writes is not 1", STABLE_DEV);
		return false;
	}
	if (swapon(STABLE_DEV, SWAP_FLAG_PREFER | (100 << SWAP_FLAG_PRIO_SHIFT))) {
		tap_diag("swapon %s: %m", STABLE_DEV);
		return false;
	}
	if (swapoff("/dev/vda"))
		bail("swapoff /dev/vda");
	primer = map_anon_ptes(STABLE_PAGES * PAGE_SIZE, 'p');
	scn_page_out(primer, STABLE_PAGES);
	return true;
}

static void stable_swap_off(void)
{
	munmap(primer, STABLE_PAGES * PAGE_SIZE);
	if (swapon("/dev/vda", 0))
		bail("swapon /dev/vda");
	if (swapoff(STABLE_DEV))
		bail("swapoff %s", STABLE_DEV);
}

/* Mapped pages of mem that are under writeback, and their pfns. */
static int under_writeback(const char *mem, uint64_t *pfn)
{
	int wb = 0;

	for (int i = 0; i < STABLE_PAGES; i++) {
		pfn[i] = scn_pfn(mem + i * PAGE_SIZE);
		wb += pfn[i] && (scn_kpageflags(pfn[i]) & (1ULL << KPF_WRITEBACK));
	}
	return wb;
}

static long nr_writeback(void)
{
	struct vmstat vs;

	/* Fold the per-CPU differences: a few pages hide in them. */
	scn_write_file("/proc/sys/vm/stat_refresh", "1");
	vmstat_read(&vs);
	return vmstat_get(&vs, "nr_writeback");
}

/*
 * One attempt.  Outcome: "copy" if the written pages are not the ones under
 * writeback, "written-under-writeback" if a write went into a page the
 * device was still reading, "no-writeback" if writeback was over before
 * the writes were done (the race did not run).
 */
static const char *writeback_attempt(bool read_first, struct vmstat *before,
				     struct vmstat *after, char *detail,
				     size_t dlen)
{
	uint64_t pfn0[STABLE_PAGES], pfn1[STABLE_PAGES];
	int out, wb0 = 0, wb1, same = 0, bad = 0, good;
	long nrwb0, nrwb1;
	const char *outcome;
	char *mem;

	mem = map_anon_ptes(STABLE_PAGES * PAGE_SIZE, 'o');
	out = scn_page_out(mem, STABLE_PAGES);
	if (read_first) {
		/* Read faults: the pages come back from the swap cache, R/O. */
		for (int i = 0; i < STABLE_PAGES; i++)
			bad += mem[i * PAGE_SIZE] != 'o';
		wb0 = under_writeback(mem, pfn0);
	}
	scn_drain_lru();
	nrwb0 = nr_writeback();
	scn_warm(before);
	good = write_pages(mem, STABLE_PAGES);
	vmstat_read(after);
	wb1 = under_writeback(mem, pfn1);
	nrwb1 = nr_writeback();
	for (int i = 0; read_first && i < STABLE_PAGES; i++)
		same += pfn1[i] == pfn0[i];
	if (out < STABLE_PAGES || nrwb0 <= 0 || nrwb1 <= 0 ||
	    (read_first && wb0 < STABLE_PAGES))
		outcome = "no-writeback";
	else if (bad || good != STABLE_PAGES)
		outcome = "lost-write";
	else if (wb1)
		outcome = "written-under-writeback";
	else if (read_first && same)
		outcome = "mixed";
	else
		outcome = "copy";
	snprintf(detail, dlen,
		 "swapped_out=%d/%d read_under_writeback=%d written_under_writeback=%d nr_writeback=%ld,%ld same_pfn=%d",
		 out, STABLE_PAGES, wb0, wb1, nrwb0, nrwb1, same);
	munmap(mem, STABLE_PAGES * PAGE_SIZE);
	return outcome;
}

/*
 * The throttled writeback gives a window of seconds, but where it falls
 * depends on the disk's earlier writes: an attempt that finds writeback
 * over before its writes proves nothing and is made again (at most three;
 * the last one's "no-writeback" is a failure).
 */
static void swap_writeback_stable(const char *name, bool read_first)
{
	const struct scn_row *row = scn_begin(name);
	struct vmstat before, after;
	const char *outcome = "no-writeback";
	char detail[256];
	int attempt;

	if (!row)
		return;
	for (attempt = 1; attempt <= 3 && !strcmp(outcome, "no-writeback"); attempt++) {
		if (!stable_swap_on()) {
			scn_ok(false, "%s: no stable-writes swap on %s", name, STABLE_DEV);
			return;
		}
		outcome = writeback_attempt(read_first, &before, &after, detail,
					    sizeof(detail));
		stable_swap_off();
		if (!strcmp(outcome, "no-writeback"))
			tap_diag("%s: attempt %d: writeback over before the writes (%s)",
				 name, attempt, detail);
	}
	scn_end(row, outcome, &before, &after, "%s attempts=%d", detail,
		attempt - 1);
}

int main(void)
{
	scn_init("scn_swap");
	run("swap-exclusive", EXCL);
	run("swap-fork-exited", FORK_EXITED);
	run("swap-fork-alive", FORK_ALIVE);
	swapin_fork_alive("swapin-write-fork-alive");
	swapin_write("swapin-write", false, false);
	swapin_write("swapin-write-gupref", true, false);
	swapin_write("swap-gupref", true, true);
	swap_writeback_stable("swap-writeback-stable", true);
	swap_writeback_stable("swapin-writeback-stable", false);
	return scn_finish();
}
