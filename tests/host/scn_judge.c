// SPDX-License-Identifier: GPL-2.0
/*
 * tests/host/scn_judge.c: the scenario judge of tests/guest/lib/scn.c run on
 * the host (make check), on made-up vmstat snapshots instead of a kernel's.
 * Each case is one scenario row of $COWTEST_EXPECT and one observation;
 * scripts/check.sh reads the TAP lines and checks which points fail.
 *
 *   exact    the row's counters and the total agree: every point passes
 *   double   each page decided twice (reused and copied): the row's own
 *            counter moved as stated, only the total check fails
 *   unnamed  pages decided under a counter the row does not name (the
 *            row names cow_fork_copy only, which moved as stated)
 *   open     ">=1": any number of decisions above it passes
 *   nofork   a row naming no decision counter: none may happen
 */
#include <stdio.h>
#include <string.h>

#include "cowtest.h"
#include "scn.h"

static void set(struct vmstat *vs, const char *name, long long v)
{
	for (int i = 0; i < vs->n; i++)
		if (!strcmp(vs->name[i], name)) {
			vs->val[i] = v;
			return;
		}
	snprintf(vs->name[vs->n], sizeof(vs->name[0]), "%s", name);
	vs->val[vs->n++] = v;
}

static void zero(struct vmstat *vs)
{
	vs->n = 0;
	for (int i = 0; cow_decision_counters[i]; i++)
		set(vs, cow_decision_counters[i], 0);
	set(vs, "cow_pmd_reuse", 0);
	set(vs, "cow_pmd_split", 0);
	set(vs, "cow_fork_copy", 0);
	set(vs, "cow_gup_break", 0);
}

static void judge(const char *name, const char *c1, long long v1,
		  const char *c2, long long v2)
{
	const struct scn_row *row = scn_begin(name);
	static struct vmstat b, a;

	zero(&b);
	zero(&a);
	if (c1)
		set(&a, c1, v1);
	if (c2)
		set(&a, c2, v2);
	scn_end(row, "ok", &b, &a, 2, "judge=%s", name);
}

int main(void)
{
	scn_init("scn_judge");
	judge("exact", "cow_copy_refcount", 16, "cow_gup_break", 16);
	judge("double", "cow_copy_refcount", 16, "cow_reuse_exclusive", 16);
	judge("unnamed", "cow_fork_copy", 16, "cow_copy_mapcount", 16);
	judge("open", "cow_copy_refcount", 500, "cow_reuse_refcount", 20);
	judge("nofork", "cow_fork_copy", 16, "cow_copy_mapcount", 1);
	return scn_finish();
}
