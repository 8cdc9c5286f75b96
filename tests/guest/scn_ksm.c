// SPDX-License-Identifier: GPL-2.0
/*
 * scn_ksm: KSM pages written after the merge: reuse
 * or copy (seed 003: reuse_ksm_page(), removed in v5.9, restored by the
 * mapcount policy).  Deterministic once merged.
 *
 * NPAIRS pairs of identical pages (each pair its own content) are made
 * MADV_MERGEABLE; ksmd runs fast (run=1, 1000 pages a scan, 10 ms) until
 * every page is a KSM page shared by its pair (bounded by MERGE_S), then
 * ksmd is stopped (run=0: merged pages stay merged) so that it holds no
 * transient reference.
 *
 * ksm-shared  the KSM page is still mapped twice: every write copies.
 * ksm-last    the twin was unmapped first (MADV_DONTNEED): the KSM page is
 *             mapped once and referenced by nobody else.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "scn.h"

#define NPAIRS	16
#define LEN	(2 * NPAIRS * PAGE_SIZE)
#define MERGE_S	30.0

static int merged(const char *mem)
{
	int n = 0;

	for (int i = 0; i < NPAIRS; i++) {
		uint64_t a = scn_pfn(mem + 2 * i * PAGE_SIZE);
		uint64_t b = scn_pfn(mem + (2 * i + 1) * PAGE_SIZE);

		n += a && a == b && (scn_kpageflags(a) & (1ULL << KPF_KSM));
	}
	return n;
}

static void run(const char *name, bool unmap_twin)
{
	const struct scn_row *row = scn_begin(name);
	struct vmstat before, after;
	uint64_t pfn[NPAIRS];
	int n = 0, same = 0, bad = 0;
	double t0;
	char *mem;

	if (!row)
		return;
	mem = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		bail("mmap");
	madvise(mem, LEN, MADV_NOHUGEPAGE);
	for (int i = 0; i < 2 * NPAIRS; i++)
		memset(mem + i * PAGE_SIZE, 'A' + i / 2, PAGE_SIZE);
	if (madvise(mem, LEN, MADV_MERGEABLE))
		bail("MADV_MERGEABLE");
	scn_ksm_start();
	t0 = scn_now();
	while ((n = merged(mem)) < NPAIRS && scn_now() - t0 < MERGE_S)
		usleep(50 * 1000);
	scn_ksm_pause();
	tap_diag("%s: %d of %d pairs merged in %.1f s (pages_sharing %ld)", name, n,
		 NPAIRS, scn_now() - t0, scn_read_long(SCN_KSM "pages_sharing"));
	if (n < NPAIRS) {
		scn_ksm_restore();
		scn_ok(false, "%s: only %d of %d pairs merged within %.0f s", name, n,
		       NPAIRS, MERGE_S);
		return;
	}
	if (unmap_twin)
		for (int i = 0; i < NPAIRS; i++)
			madvise(mem + (2 * i + 1) * PAGE_SIZE, PAGE_SIZE, MADV_DONTNEED);
	for (int i = 0; i < NPAIRS; i++)
		pfn[i] = scn_pfn(mem + 2 * i * PAGE_SIZE);
	scn_warm(&before);
	for (int i = 0; i < NPAIRS; i++)
		mem[2 * i * PAGE_SIZE] = 'z';
	vmstat_read(&after);
	for (int i = 0; i < NPAIRS; i++) {
		char *p = mem + 2 * i * PAGE_SIZE;

		same += scn_pfn(p) == pfn[i];
		bad += p[0] != 'z' || scn_count_diff(p + 1, 'A' + i, PAGE_SIZE - 1);
		if (!unmap_twin)
			bad += !!scn_count_diff(p + PAGE_SIZE, 'A' + i, PAGE_SIZE);
	}
	scn_ksm_restore();
	scn_end(row, bad ? "lost-write" : same == NPAIRS ? "reuse" : same == 0 ? "copy" : "mixed",
		&before, &after, "same_pfn=%d/%d bad_pages=%d", same, NPAIRS, bad);
	munmap(mem, LEN);
}

int main(void)
{
	scn_init("scn_ksm");
	if (access(SCN_KSM "run", F_OK))
		bail("no %s (CONFIG_KSM)", SCN_KSM "run");
	run("ksm-shared", false);
	run("ksm-last", true);
	return scn_finish();
}
