// SPDX-License-Identifier: GPL-2.0
/*
 * swap_smoke: the swap profile swaps: MADV_PAGEOUT of 4 MiB of anonymous
 * memory moves pswpout; reading it back (after dropping it from the swap
 * cache) faults it in from the disk with the right contents: pswpin.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cowtest.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif
#define LEN	(4UL << 20)
#define NPAGES	(LEN / PAGE_SIZE)

int main(void)
{
	struct vmstat v0, v1, v2;
	unsigned long i, bad = 0;
	long long out, in;
	char line[256];
	int swaps = 0;
	uint64_t *p;
	FILE *f;

	tap_plan(5);
	f = fopen("/proc/swaps", "r");
	while (f && fgets(line, sizeof(line), f))
		if (line[0] == '/') {
			swaps++;
			line[strcspn(line, "\n")] = 0;
			tap_diag("%s", line);
		}
	if (f)
		fclose(f);
	tap_result(swaps > 0, "/proc/swaps lists %d swap device(s)", swaps);

	p = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		bail("mmap");
	madvise(p, LEN, MADV_NOHUGEPAGE);
	for (i = 0; i < NPAGES; i++)
		p[i * PAGE_SIZE / 8] = 0x5eed0000 + i;
	vmstat_read(&v0);
	tap_result(!madvise(p, LEN, MADV_PAGEOUT), "madvise(MADV_PAGEOUT) 4 MiB");
	vmstat_read(&v1);
	out = vmstat_delta(&v0, &v1, "pswpout");
	tap_result(out >= (long long)NPAGES / 2, "pswpout moved by %lld (want >= %lu)", out, NPAGES / 2);
	/*
	 * The pages just written stay in the swap cache, so faulting them back
	 * now would not read the disk. Fault them in (swap-cache hits), wait
	 * for writeback to end, and page them out again: clean swap-cache pages
	 * are dropped without I/O, and the next faults read swap (pswpin).
	 */
	for (i = 0; i < NPAGES; i++)
		bad += p[i * PAGE_SIZE / 8] != 0x5eed0000 + i;
	usleep(200 * 1000);
	madvise(p, LEN, MADV_PAGEOUT);
	vmstat_read(&v1);
	for (i = 0; i < NPAGES; i++)
		bad += p[i * PAGE_SIZE / 8] != 0x5eed0000 + i;
	vmstat_read(&v2);
	in = vmstat_delta(&v1, &v2, "pswpin");
	tap_result(!bad, "data read back intact twice (%lu reads wrong)", bad);
	tap_result(in >= (long long)NPAGES / 2, "pswpin moved by %lld (want >= %lu)", in, NPAGES / 2);
	return tap_exit();
}
