// SPDX-License-Identifier: GPL-2.0
/*
 * tests/host/scn_folio.c: make check builds this on the host with
 * tests/guest/lib/scn.c and cowtest.c and runs the large-folio checks of
 * the mTHP scenario cells on made-up pages, where a guest cannot be made to
 * fail them on purpose: scn_whole_folios() (an mTHP backing's pages must be
 * whole folios of its size, else the cell is "error"), scn_large_pages()
 * and scn_swapin_outcome() (swapin-rw: an mTHP backing must come back in
 * large folios, a 4 KiB one in small pages); and thpknob.h's
 * thp_knob_word(), which reads the knobs that the mTHP cells, flipstress
 * and cowbench set and restore. One line per case:
 * "ok - NAME" or "not ok - NAME: got G, want W"; exit 1 on any not ok.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scn.h"
#include "thpknob.h"

#define N 16
#define HEAD (1ULL << KPF_COMPOUND_HEAD)
#define TAIL (1ULL << KPF_COMPOUND_TAIL)

static int failed;

static void want_int(const char *name, int got, int want)
{
	if (got == want) {
		printf("ok - %s\n", name);
		return;
	}
	printf("not ok - %s: got %d, want %d\n", name, got, want);
	failed = 1;
}

static void want_str(const char *name, const char *got, const char *want)
{
	if (!strcmp(got, want)) {
		printf("ok - %s\n", name);
		return;
	}
	printf("not ok - %s: got %s, want %s\n", name, got, want);
	failed = 1;
}

/* N pages from pfn base on: folios of nr pages (nr 1: small pages). */
static void folios(uint64_t *pfn, uint64_t *flags, uint64_t base, int nr)
{
	for (int i = 0; i < N; i++) {
		pfn[i] = base + i;
		flags[i] = nr == 1 ? 0 : i % nr ? TAIL : HEAD;
	}
}

static char word[16];

/* thp_knob_word() of a knob file holding text, into a buffer of n bytes. */
static const char *knob(const char *text, size_t n)
{
	char path[] = "/tmp/thpknob.XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		perror("thpknob test file");
		exit(1);
	}
	close(fd);
	thp_knob_word(path, word, n);
	unlink(path);
	return word;
}

int main(void)
{
	uint64_t pfn[N], flags[N];

	folios(pfn, flags, 0x1000, 4);
	want_int("whole 16 KiB folios", scn_whole_folios(pfn, flags, N, 4), N);
	/* The same pages asked as 64 KiB folios: heads inside, not whole. */
	want_int("16 KiB folios are not 64 KiB ones", scn_whole_folios(pfn, flags, N, 16), 0);
	folios(pfn, flags, 0x1000, 1);
	want_int("small pages are no folio (mTHP never allocated)",
		 scn_whole_folios(pfn, flags, N, 4), 0);
	want_int("small pages are not large", scn_large_pages(pfn, flags, N), 0);
	folios(pfn, flags, 0x1000, 4);
	pfn[6] = 0x9000;	/* a tail that is not the next pfn */
	want_int("a folio with a foreign page is not whole", scn_whole_folios(pfn, flags, N, 4), 12);
	folios(pfn, flags, 0x1000, 4);
	pfn[8] = 0;		/* a head that is not present */
	flags[8] = 0;
	want_int("a folio without its head is not whole", scn_whole_folios(pfn, flags, N, 4), 12);
	want_int("present pages in large folios", scn_large_pages(pfn, flags, N), N - 1);
	/* Tails only: the middle of a PMD THP, no head in the range. */
	for (int i = 0; i < N; i++)
		flags[i] = TAIL, pfn[i] = 0x2000 + i;
	want_int("the middle of a PMD THP is no 16 KiB folio", scn_whole_folios(pfn, flags, N, 4), 0);
	want_int("but it is large", scn_large_pages(pfn, flags, N), N);

	want_str("swapin-rw, mTHP back large, kept", scn_swapin_outcome(N, N, N, N, 0, N, true), "reuse");
	want_str("swapin-rw, mTHP back small", scn_swapin_outcome(N, N, 0, N, 0, N, true), "error");
	want_str("swapin-rw, mTHP back partly large", scn_swapin_outcome(N, N, 8, N, 0, 0, true), "error");
	want_str("swapin-rw, 4 KiB back large", scn_swapin_outcome(N, N, 4, 0, 0, N, true), "error");
	want_str("swapin-rw, not all paged out", scn_swapin_outcome(N, N - 1, N, N, 0, N, true), "error");
	want_str("swapin-rw, copied", scn_swapin_outcome(N, N, N, N, 0, 0, true), "copy");
	want_str("swapin-rw, mixed", scn_swapin_outcome(N, N, N, N, 0, 3, true), "mixed");
	want_str("swapin-w, a write lost", scn_swapin_outcome(N, N, N, N, 1, N, false), "lost-write");
	want_str("swapin-w", scn_swapin_outcome(N, N, 0, 0, 0, 0, false), "ok");

	want_str("knob: the bracketed word", knob("always inherit [madvise] never\n", 16), "madvise");
	want_str("knob: no bracket, no word", knob("always madvise never\n", 16), "");
	want_str("knob: a word too long for the buffer is none", knob("[inherit]\n", 7), "");
	want_str("knob: a missing knob has no word", thp_knob_word("/nonexistent/enabled", word, 16), "");
	return failed;
}
