// SPDX-License-Identifier: GPL-2.0
/*
 * scn_swap: issue 4 scenario 11, a page swapped out (MADV_PAGEOUT) and
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
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scn.h"

#define NPAGES	16
#define LEN	(NPAGES * PAGE_SIZE)
#define SLACK	4

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
		vmstat_read(&vs);
		if (vmstat_get(&vs, "nr_writeback") <= 0)
			return;
		usleep(20 * 1000);
	} while (scn_now() - t0 < 5.0);
	tap_diag("nr_writeback still %lld after 5 s", vmstat_get(&vs, "nr_writeback"));
}

static int swapped(const char *mem)
{
	int n = 0;

	for (int i = 0; i < NPAGES; i++)
		n += !!(scn_pagemap(mem + i * PAGE_SIZE) & PM_SWAP);
	return n;
}

static void run(const char *name, enum kind k)
{
	const struct scn_row *row = scn_begin(name);
	struct vmstat before, after;
	uint64_t pfn[NPAGES];
	int go[2], back[2], out = 0, same = 0, bad = 0;
	pid_t pid = -1;
	char c = '?', *mem;

	if (!row)
		return;
	mem = map_anon_ptes(LEN, 'o');
	for (int tries = 0; tries < 5 && (out = swapped(mem)) < NPAGES; tries++) {
		madvise(mem, LEN, MADV_PAGEOUT);
		if (tries)
			usleep(100 * 1000);
	}
	if (out < NPAGES) {
		scn_ok(false, "%s: only %d of %d pages swapped out", name, out, NPAGES);
		return;
	}
	wait_writeback();
	if (k != EXCL) {
		if (pipe(go) || pipe(back))
			bail("pipe");
		pid = fork();
		if (pid < 0)
			bail("fork");
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
		&before, &after, SLACK, "same_pfn=%d/%d bad_reads=%d%s", same,
		NPAGES, bad, k == FORK_ALIVE ? (c == 'o' ? " child=old" : " child=new") : "");
	if (k != EXCL) {
		close(go[0]); close(go[1]); close(back[0]); close(back[1]);
	}
	munmap(mem, LEN);
}

int main(void)
{
	scn_init("scn_swap");
	run("swap-exclusive", EXCL);
	run("swap-fork-exited", FORK_EXITED);
	run("swap-fork-alive", FORK_ALIVE);
	return scn_finish();
}
