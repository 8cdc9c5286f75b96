// SPDX-License-Identifier: GPL-2.0
/*
 * scn_vmsplice: issue 4 scenarios 1 and 2, the CVE-2020-29374 shape.
 *
 * The parent fills memory and forks.  The child vmsplices NPAGES of it
 * into a pipe (FOLL_GET references, no pin), unmaps its own mapping
 * (MADV_DONTNEED), and later reads the pipe.  Meanwhile the parent writes
 * a secret into those pages.  If the child's pipe shows the secret, the
 * parent's write went into a page the child still references: "leak".
 *
 *   vmsplice-4k       4 KiB pages (MADV_NOHUGEPAGE)           profile base
 *   vmsplice-thp-pmd  one PMD-mapped THP (Arcangeli's variant) profile thp
 *   vmsplice-thp-pte  the same THP PTE-mapped (split by mprotect) profile thp
 *   vmsplice-hugetlb  a private hugetlb page; the child unmaps it   profile base
 *                     (hugetlb FOLL_GET references never unshare in 6.1)
 *
 * Deterministic: one run per case.  The window between the snapshots holds
 * the child's vmsplice and unmap and the parent's writes; both processes
 * warm their stacks first, so the slack only covers a few stray faults.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scn.h"

#define NPAGES	16
#define SPLICE	(NPAGES * PAGE_SIZE)
#define HPAGE	(2UL << 20)
#define SLACK	6

enum kind { K4, PMD, PTE, HUGETLB };

static char pipebuf[SPLICE];

/* Map the area: 4 KiB pages, or one THP mapped by a PMD or by PTEs. */
static char *map_area(enum kind k, size_t *len, char *detail, size_t dlen)
{
	char *raw, *p;

	*len = k == K4 ? SPLICE : HPAGE;
	if (k == HUGETLB) {
		p = mmap(NULL, HPAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		memset(p, 'o', HPAGE);
		snprintf(detail, dlen, "hugetlb=%d",
			 !!(scn_kpageflags(scn_pfn(p)) & (1ULL << KPF_HUGE)));
		return p;
	}
	raw = mmap(NULL, *len + HPAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		bail("mmap");
	p = (char *)(((uintptr_t)raw + HPAGE - 1) & ~(HPAGE - 1));
	madvise(p, *len, k == K4 ? MADV_NOHUGEPAGE : MADV_HUGEPAGE);
	memset(p, 'o', *len);
	if (k == PTE) {
		/* Split the PMD, not the THP: PTE-mapped THP. */
		if (mprotect(p + HPAGE - PAGE_SIZE, PAGE_SIZE, PROT_READ) ||
		    mprotect(p + HPAGE - PAGE_SIZE, PAGE_SIZE, PROT_READ | PROT_WRITE))
			bail("mprotect");
	}
	/* Keep khugepaged away from it from now on. */
	if (k != K4)
		madvise(p, *len, MADV_NOHUGEPAGE);
	snprintf(detail, dlen, "anon_huge_kb=%ld thp=%d", scn_anon_huge_kb(p),
		 !!(scn_kpageflags(scn_pfn(p)) & (1ULL << KPF_THP)));
	return p;
}

static void run(const char *name, enum kind k)
{
	const struct scn_row *row = scn_begin(name);
	struct vmstat before, after;
	int go[2], back[2], pfd[2];
	char detail[128], setup[96], res;
	uint64_t pfn0, pfn1;
	const char *outcome;
	size_t len;
	char *p;
	pid_t pid;

	if (!row)
		return;
	p = map_area(k, &len, setup, sizeof(setup));
	if (!p) {
		scn_ok(false, "%s: hugetlb mmap: %m (nr_hugepages %ld)", name,
		       scn_read_long("/proc/sys/vm/nr_hugepages"));
		return;
	}
	if (k == PMD && scn_anon_huge_kb(p) < 2048) {
		scn_ok(false, "%s: no PMD-mapped THP (%s)", name, setup);
		return;
	}
	if (k == PTE && (scn_anon_huge_kb(p) != 0 ||
			 !(scn_kpageflags(scn_pfn(p)) & (1ULL << KPF_THP)))) {
		scn_ok(false, "%s: no PTE-mapped THP (%s)", name, setup);
		return;
	}
	if (pipe(pfd))
		bail("pipe");
	pid = fork_piped(go, back);
	if (!pid)
		scn_vmsplice_child(p, SPLICE, len, k == HUGETLB, go[0], back[1],
				   pfd, pipebuf);
	if (pipe_getc(back[0]) != 'r')
		bail("child not ready");
	pfn0 = scn_pfn(p);
	scn_warm(&before);
	pipe_putc(go[1], 'g');
	if (pipe_getc(back[0]) != 'u')
		bail("child did not splice");
	memset(p, 'S', SPLICE);		/* the secret */
	vmstat_read(&after);
	pfn1 = scn_pfn(p);
	pipe_putc(go[1], 'r');
	res = pipe_getc(back[0]);
	waitpid(pid, NULL, 0);
	outcome = res == 'L' ? "leak" : res == 'o' ? "ok" : "error";
	snprintf(detail, sizeof(detail), "pipe=%s parent_page=%s %s",
		 res == 'L' ? "secret" : res == 'o' ? "old" : "bad",
		 pfn0 == pfn1 ? "same" : "new", setup);
	scn_end(row, outcome, &before, &after, SLACK, "%s", detail);
	close(go[0]); close(go[1]); close(back[0]); close(back[1]);
	close(pfd[0]); close(pfd[1]);
}

int main(void)
{
	scn_init("scn_vmsplice");
	run("vmsplice-4k", K4);
	run("vmsplice-thp-pmd", PMD);
	run("vmsplice-thp-pte", PTE);
	run("vmsplice-hugetlb", HUGETLB);
	return scn_finish();
}
