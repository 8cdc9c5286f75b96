/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tests/guest/lib/thpknob.h: the THP and multi-size THP (mTHP) sysfs knobs
 * as the guest programs read them, header-only so that the benchmarks
 * (benchmarks/: the library's include path, not its objects) share it
 * with the tests.
 *
 *   thp_knob_word()     the [selected] word of an "enabled" knob
 *   mthp_fault_count()  one size's anonymous mTHP faults (anon_fault_alloc)
 *   mthp_fault_total()  every size below the PMD size, summed
 *
 * The per-size knobs (hugepages-<size>kB/) are 6.8's; on 6.1 a size's knob
 * is absent and the functions say so (empty word, -1, 0).
 */
#ifndef COWTEST_THPKNOB_H
#define COWTEST_THPKNOB_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>

#define THP_SYSFS "/sys/kernel/mm/transparent_hugepage"

/*
 * The bracketed word of a THP knob ("always [madvise] never") into out,
 * or "" when the knob cannot be read, has no [word] or the word does not
 * fit. Returns out.
 */
static inline char *thp_knob_word(const char *path, char *out, size_t n)
{
	char buf[128] = "", *a, *b;
	FILE *f = fopen(path, "r");

	if (n)
		out[0] = 0;
	if (!f)
		return out;
	if (fgets(buf, sizeof(buf), f) && (a = strchr(buf, '[')) && (b = strchr(a, ']')) &&
	    (size_t)(b - a) <= n) {
		memcpy(out, a + 1, b - a - 1);
		out[b - a - 1] = 0;
	}
	fclose(f);
	return out;
}

/* One size's anonymous mTHP faults so far, or -1 without its counter. */
static inline long long mthp_fault_count(long kib)
{
	char path[160];
	long long n;
	FILE *f;

	snprintf(path, sizeof(path), THP_SYSFS "/hugepages-%ldkB/stats/anon_fault_alloc", kib);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &n) != 1)
		n = -1;
	fclose(f);
	return n;
}

/* Anonymous mTHP faults so far, of every size below the PMD size (2 MiB). */
static inline long long mthp_fault_total(void)
{
	DIR *d = opendir(THP_SYSFS);
	struct dirent *e;
	long long n = 0, v;
	long kib;

	while (d && (e = readdir(d))) {
		if (sscanf(e->d_name, "hugepages-%ldkB", &kib) != 1 || kib >= 2048)
			continue;
		v = mthp_fault_count(kib);
		n += v > 0 ? v : 0;
	}
	if (d)
		closedir(d);
	return n;
}

#endif
