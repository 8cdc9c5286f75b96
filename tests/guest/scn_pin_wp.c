// SPDX-License-Identifier: GPL-2.0
/*
 * scn_pin_wp: write-protecting long-term pinned pages
 * (seed 000: commit 9348b73c2e1b, "don't play games with pinned pages in
 * clear_page_refs").  Pin profile.  Deterministic.
 *
 * NPAGES pages are pinned FOLL_WRITE|FOLL_LONGTERM; NPAGES more in the same
 * mapping are not (the control).  After write-protecting, the CPU writes the
 * first half of the pinned pages and the device writes the second half; the
 * device must read the CPU's data and the CPU the device's.
 *
 * pin-clear-refs  echo 4 > /proc/self/clear_refs: the pinned PTEs stay
 *     writable (cow_clear_refs_pinned) and keep soft-dirty; the control
 *     pages are write-protected, lose soft-dirty and fault on the write.
 * pin-mprotect    mprotect(PROT_READ) then PROT_READ|PROT_WRITE.
 *
 * pin-mprotect-thp  one PMD-mapped THP, exclusive, whose first NPAGES
 *     pages are pinned R/O long-term (FOLL_LONGTERM, no FOLL_WRITE); then
 *     mprotect(PROT_READ) and PROT_READ|PROT_WRITE on the whole 2 MiB (the
 *     PMD stays, read-only: 6.1's change_huge_pmd() never maps it writable
 *     again), and the CPU writes the NPAGES pages: do_huge_pmd_wp_page()
 *     decides.  The pin must read the writes.  PageAnonExclusive reuses
 *     the PMD (exclusive, mapcount); the refcount rule sees the pin's
 *     references, splits and copies away from the pin.  No control pages
 *     and no device write: the pin is read-only.
 *
 * Outcome: ok, stale-pin (device and CPU see different pages),
 * soft-dirty-lost (a pinned page lost soft-dirty: clear_refs
 * write-protected it), soft-dirty-kept (a control page kept it).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "scn.h"
#include "cowpin_lib.h"

#define NPAGES	16
#define LEN	(NPAGES * PAGE_SIZE)
#define HALF	(LEN / 2)

static char dev[LEN];

static int soft_dirty(const char *p, int n)
{
	int sd = 0;

	for (int i = 0; i < n; i++)
		sd += !!(scn_pagemap(p + i * PAGE_SIZE) & PM_SOFT_DIRTY);
	return sd;
}

static void run(int fd, const char *name, bool clear_refs)
{
	const struct scn_row *row = scn_begin(name);
	struct vmstat before, after, mid, mid2;
	int sd_pin = NPAGES, sd_ctl = 0, ret;
	long dev_stale, cpu_stale;
	const char *outcome;
	char *mem, *ctl;
	uint64_t h = 0;

	if (!row)
		return;
	mem = mmap(NULL, 2 * LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		bail("mmap");
	ctl = mem + LEN;
	madvise(mem, 2 * LEN, MADV_NOHUGEPAGE);
	memset(mem, 'o', 2 * LEN);
	ret = cowpin_reg(fd, mem, LEN, COWPIN_F_WRITE | COWPIN_F_LONGTERM, &h);
	if (ret) {
		scn_ok(false, "%s: register: %s", name, strerror(-ret));
		return;
	}
	scn_warm(&before);
	if (clear_refs) {
		if (scn_write_file("/proc/self/clear_refs", "4"))
			bail("clear_refs");
		vmstat_read(&mid);
		sd_pin = soft_dirty(mem, NPAGES);
		sd_ctl = soft_dirty(ctl, NPAGES);
		/*
		 * clear_refs write-protected every page of the program: the
		 * window is before..mid (clear_refs itself) and mid2..after
		 * (the writes), with the pagemap reads and the faults that
		 * bring the stack and the snapshots back in between left out.
		 */
		scn_warm(&after);
		scn_warm(&mid2);
	} else if (mprotect(mem, 2 * LEN, PROT_READ) ||
		   mprotect(mem, 2 * LEN, PROT_READ | PROT_WRITE)) {
		bail("mprotect");
	}
	memset(mem, 'C', HALF);
	memset(ctl, 'C', LEN);
	vmstat_read(&after);
	if (clear_refs)
		vmstat_skip(&after, &mid, &mid2);
	memset(dev, 'D', HALF);
	if (cowpin_dev_write(fd, h, HALF, HALF, dev))
		bail("device write");
	memset(dev, 0, LEN);
	if (cowpin_dev_read(fd, h, 0, HALF, dev))
		bail("device read");
	dev_stale = scn_count_diff(dev, 'C', HALF);
	cpu_stale = scn_count_diff(mem + HALF, 'D', HALF);
	outcome = dev_stale || cpu_stale ? "stale-pin" :
		  sd_pin != NPAGES ? "soft-dirty-lost" :
		  sd_ctl ? "soft-dirty-kept" : "ok";
	scn_end(row, outcome, &before, &after,
		"device_sees_cpu=%s cpu_sees_device=%s%s", dev_stale ? "no" : "yes",
		cpu_stale ? "no" : "yes", clear_refs ? "" : "");
	if (clear_refs)
		tap_diag("%s: soft-dirty after clear_refs: pinned %d/%d, control %d/%d",
			 name, sd_pin, NPAGES, sd_ctl, NPAGES);
	cowpin_dereg(fd, h);
	munmap(mem, 2 * LEN);
}

#define HPAGE	(2UL << 20)

static void run_thp(int fd, const char *name)
{
	const struct scn_row *row = scn_begin(name);
	struct vmstat before, after;
	long huge, huge_after;
	const char *outcome;
	char *map, *mem;
	uint64_t h = 0;
	long stale;
	int ret;

	if (!row)
		return;
	map = mmap(NULL, 2 * HPAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		bail("mmap");
	mem = (char *)(((uintptr_t)map + HPAGE - 1) & ~(HPAGE - 1));
	madvise(mem, HPAGE, MADV_HUGEPAGE);
	memset(mem, 'o', HPAGE);
	huge = scn_anon_huge_kb(mem);
	if (huge < 2048) {
		scn_ok(false, "%s: no PMD-mapped THP (AnonHugePages %ld kB)", name, huge);
		munmap(map, 2 * HPAGE);
		return;
	}
	ret = cowpin_reg(fd, mem, LEN, COWPIN_F_LONGTERM, &h);
	if (ret) {
		scn_ok(false, "%s: register: %s", name, strerror(-ret));
		munmap(map, 2 * HPAGE);
		return;
	}
	scn_warm(&before);
	if (mprotect(mem, HPAGE, PROT_READ) ||
	    mprotect(mem, HPAGE, PROT_READ | PROT_WRITE))
		bail("mprotect");
	memset(mem, 'C', LEN);
	vmstat_read(&after);
	huge_after = scn_anon_huge_kb(mem);
	memset(dev, 0, LEN);
	if (cowpin_dev_read(fd, h, 0, LEN, dev))
		bail("device read");
	stale = scn_count_diff(dev, 'C', LEN);
	outcome = stale ? "stale-pin" : "ok";
	scn_end(row, outcome, &before, &after,
		"device_sees_cpu=%s anon_huge_kb=%ld,%ld", stale ? "no" : "yes",
		huge, huge_after);
	cowpin_dereg(fd, h);
	munmap(map, 2 * HPAGE);
}

int main(void)
{
	int fd;

	scn_init("scn_pin_wp");
	fd = cowpin_open();
	if (fd < 0)
		bail("open %s (pin profile)", COWPIN_DEVICE);
	run(fd, "pin-clear-refs", true);
	run(fd, "pin-mprotect", false);
	run_thp(fd, "pin-mprotect-thp");
	close(fd);
	return scn_finish();
}
