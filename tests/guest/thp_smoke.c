// SPDX-License-Identifier: GPL-2.0
/*
 * thp_smoke: the thp profile gives PMD-mapped THPs: a MADV_HUGEPAGE region
 * shows AnonHugePages in /proc/self/smaps and thp_fault_alloc moves.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cowtest.h"
#include "scn.h"

#define HPAGE	(2UL << 20)
#define LEN	(4 * HPAGE)

static void show(const char *path)
{
	char buf[128] = "";
	FILE *f = fopen(path, "r");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
	tap_diag("%s: %s", path, buf);
}

int main(void)
{
	struct vmstat before, after;
	char *raw, *p;
	long kb, allocs;

	tap_plan(3);
	show("/sys/kernel/mm/transparent_hugepage/enabled");
	show("/sys/kernel/mm/transparent_hugepage/defrag");
	raw = mmap(NULL, LEN + HPAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		bail("mmap");
	p = (char *)(((uintptr_t)raw + HPAGE - 1) & ~(HPAGE - 1));
	tap_result(!madvise(p, LEN, MADV_HUGEPAGE), "madvise(MADV_HUGEPAGE)");
	vmstat_read(&before);
	for (unsigned long i = 0; i < LEN; i += PAGE_SIZE)
		p[i] = 1;
	vmstat_read(&after);
	allocs = vmstat_delta(&before, &after, "thp_fault_alloc");
	kb = scn_anon_huge_kb(p);
	tap_result(kb >= 2048, "AnonHugePages %ld kB in smaps (want >= 2048, %lu touched)",
		   kb, LEN >> 10);
	tap_result(allocs >= 1, "thp_fault_alloc moved by %ld (want >= 1)", allocs);
	return tap_exit();
}
