// SPDX-License-Identifier: GPL-2.0
/*
 * scn_odirect: Andrea Arcangeli's O_DIRECT vs
 * clear_refs reproducer (seeds 010/011), and its deterministic core.
 *
 * gupref-clear-refs (any profile): exclusive pages hold a transient GUP
 *   reference (vmsplice, FOLL_GET as O_DIRECT takes it), clear_refs
 *   write-protects them, the CPU writes.  The pipe shows whether the write
 *   fault reused the page (the reference sees the write: "reuse") or copied
 *   it away from the reference ("copy": what loses an O_DIRECT read).
 *
 * odirect-clear-refs (needs the O_DIRECT disk /dev/vdb, swap profile):
 *   the reproducer.  One thread O_DIRECT-reads 512 bytes of zeros into the
 *   start of a page it first filled with 0xff, a second writes the last
 *   byte of the same page every 0-1 ms, a third writes "4" to clear_refs
 *   in a loop.  Budget: BUDGET_S seconds or MAX_READS reads, whichever
 *   comes first, but at least DECISIVE reads (up to MAX_S seconds); the
 *   first lost read ends it (the outcome is decided).
 *   Outcome: "lost-read" if any read left 0xff behind, "ok" if none did
 *   and the race ran long enough to decide (at least DECISIVE reads,
 *   MIN_RACE clear_refs cycles and COW decisions in the window), else
 *   "no-race", which no row expects.
 *   Under refcount the first read was lost after 6 to 19127 reads in the
 *   runs on record (debug kernels, 400-1500 reads/s, lose later: 5310 to
 *   19127); a debug kernel once ran 20 s, about 10000 reads, without a
 *   loss.  So "ok" counts only after DECISIVE = 30000 reads, and a row
 *   that expects "lost-read" reads on until the first loss or MAX_S: at
 *   the debug kernels' slowest rate on record that is e^-4.7 or less
 *   to miss, and a kernel that never loses takes MAX_S to say so.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "scn.h"

#define NPAGES		16
#define LEN		(NPAGES * PAGE_SIZE)
#define DISK		"/dev/vdb"
#define HARDBLK		512
#define BUDGET_S	20.0
#define MAX_READS	60000
#define MIN_RACE	1000
#define DECISIVE	30000
#define MAX_S		90.0

static int clear_refs_fd = -1;

static void clear_refs(void)
{
	if (pwrite(clear_refs_fd, "4", 1, 0) != 1)
		bail("write /proc/self/clear_refs");
}

static void gupref_clear_refs(void)
{
	const struct scn_row *row = scn_begin("gupref-clear-refs");
	struct iovec iov;
	struct vmstat before, after;
	static char buf[LEN];
	size_t got = 0;
	ssize_t n;
	int p[2];
	char *mem;
	long old, new;

	if (!row)
		return;
	mem = map_anon_ptes(LEN, 'o');
	memset(buf, 0, LEN);
	if (pipe(p) || fcntl(p[1], F_SETPIPE_SZ, (int)LEN) < (int)LEN)
		bail("pipe");
	iov.iov_base = mem;
	iov.iov_len = LEN;
	if (vmsplice(p[1], &iov, 1, 0) != (ssize_t)LEN)
		bail("vmsplice");
	clear_refs();
	/*
	 * clear_refs write-protected every page of the program: fault in
	 * the stack and both snapshots again before the window, so that it
	 * holds the NPAGES writes alone.
	 */
	scn_warm(&after);
	scn_warm(&before);
	memset(mem, 'n', LEN);
	vmstat_read(&after);
	close(p[1]);
	while (got < LEN && (n = read(p[0], buf + got, LEN - got)) > 0)
		got += n;
	close(p[0]);
	old = LEN - scn_count_diff(buf, 'o', LEN);
	new = LEN - scn_count_diff(buf, 'n', LEN);
	scn_end(row, new == (long)LEN ? "reuse" : old == (long)LEN ? "copy" : "mixed",
		&before, &after, "reference_sees=%s",
		new == (long)LEN ? "new" : old == (long)LEN ? "old" : "mixed");
	munmap(mem, LEN);
}

static volatile int stop;

static void *writer(void *arg)
{
	volatile char *mem = arg;
	unsigned int seed = 1;

	while (!stop) {
		usleep(rand_r(&seed) % 1000);
		mem[PAGE_SIZE - 1] = 0;
	}
	return NULL;
}

static long cycles;

static void *soft_dirty(void *arg)
{
	(void)arg;
	while (!stop) {
		clear_refs();
		cycles++;
	}
	return NULL;
}

static void odirect_clear_refs(void)
{
	const struct scn_row *row = scn_begin("odirect-clear-refs");
	struct vmstat before, after;
	pthread_t tw, ts;
	long reads = 0, lost = 0;
	long long faults;
	bool raced, hunt;
	double t0;
	char *mem;
	int fd;

	if (!row)
		return;
	fd = open(DISK, O_RDWR | O_DIRECT);
	if (fd < 0) {
		scn_ok(false, "odirect-clear-refs: open %s O_DIRECT: %m", DISK);
		return;
	}
	if (posix_memalign((void **)&mem, PAGE_SIZE, 3 * PAGE_SIZE))
		bail("posix_memalign");
	madvise(mem, 3 * PAGE_SIZE, MADV_NOHUGEPAGE);
	memset(mem, 0, 3 * PAGE_SIZE);
	/* Block 0 of the disk: zeros. */
	if (pwrite(fd, mem + PAGE_SIZE, PAGE_SIZE, 0) != (ssize_t)PAGE_SIZE)
		bail("O_DIRECT write %s", DISK);
	scn_warm(&before);
	stop = 0;
	cycles = 0;
	if (pthread_create(&ts, NULL, soft_dirty, NULL) ||
	    pthread_create(&tw, NULL, writer, mem))
		bail("pthread_create");
	t0 = scn_now();
	/*
	 * Past BUDGET_S (up to MAX_S) until DECISIVE reads on a slow kernel;
	 * a row expecting a loss hunts for it until MAX_S.
	 */
	hunt = !strcmp(row->outcome, "lost-read");
	while (!lost && (hunt ? scn_now() - t0 < MAX_S :
			 reads < MAX_READS && (scn_now() - t0 < BUDGET_S ||
					       (reads < DECISIVE && scn_now() - t0 < MAX_S)))) {
		memset(mem, 0xff, HARDBLK);
		if (pread(fd, mem, HARDBLK, 0) != HARDBLK)
			bail("O_DIRECT read %s", DISK);
		reads++;
		if (scn_count_diff(mem, 0, HARDBLK))
			lost++;
	}
	stop = 1;
	pthread_join(tw, NULL);
	pthread_join(ts, NULL);
	vmstat_read(&after);
	faults = vmstat_decisions(&before, &after);
	tap_diag("odirect-clear-refs: %ld reads in %.1f s, %ld lost, %ld clear_refs, %lld write faults",
		 reads, scn_now() - t0, lost, cycles, faults);
	/*
	 * "ok" is a claim only if the race ran: many reads, each page
	 * write-protected again and again, write faults on it while reads
	 * were in flight.  On a kernel without the cow_* counters only the
	 * reads and clear_refs cycles can be shown.
	 */
	raced = reads >= DECISIVE && cycles >= MIN_RACE &&
		(faults >= MIN_RACE || !vmstat_has(&after, "cow_reuse_exclusive"));
	scn_end(row, lost ? "lost-read" : raced ? "ok" : "no-race", &before, &after,
		"reads=%ld lost=%ld clear_refs=%ld write_faults=%lld budget=%.0fs/%d",
		reads, lost, cycles, faults, BUDGET_S, MAX_READS);
	close(fd);
	free(mem);
}

int main(void)
{
	scn_init("scn_odirect");
	clear_refs_fd = open("/proc/self/clear_refs", O_WRONLY);
	if (clear_refs_fd < 0)
		bail("open /proc/self/clear_refs");
	gupref_clear_refs();
	odirect_clear_refs();
	return scn_finish();
}
