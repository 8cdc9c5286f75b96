/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tests/upstream/shim.h: build shim for upstream's (linux-source-6.12)
 * tools/testing/selftests/mm/cow.c and gup_longterm.c built against the
 * 6.1 tree's uapi headers (scripts/build/upstream.sh passes it with -include).
 * Only uapi definitions that 6.1 lacks, copied from 6.12's
 * include/uapi/linux/fs.h; no test logic.
 *
 * PAGEMAP_SCAN (v6.7): vm_util.c probes it and, when the ioctl fails with
 * anything but EFAULT (6.1: ENOTTY), reads /proc/self/pagemap instead.
 * The PIN_LONGTERM_TEST_* ioctls need no shim: the tests include 6.12's
 * mm/gup_test.h, and patches/6.1/0010 gives 6.1 the same ABI.
 */
#ifndef COW_POLICY_UPSTREAM_SHIM_H
#define COW_POLICY_UPSTREAM_SHIM_H

#include <linux/types.h>
#include <linux/ioctl.h>

#ifndef PAGEMAP_SCAN
#define PROCFS_IOCTL_MAGIC	'f'
#define PAGEMAP_SCAN	_IOWR(PROCFS_IOCTL_MAGIC, 16, struct pm_scan_arg)

#define PAGE_IS_WPALLOWED	(1 << 0)
#define PAGE_IS_WRITTEN		(1 << 1)
#define PAGE_IS_FILE		(1 << 2)
#define PAGE_IS_PRESENT		(1 << 3)
#define PAGE_IS_SWAPPED		(1 << 4)
#define PAGE_IS_PFNZERO		(1 << 5)
#define PAGE_IS_HUGE		(1 << 6)
#define PAGE_IS_SOFT_DIRTY	(1 << 7)

struct page_region {
	__u64 start;
	__u64 end;
	__u64 categories;
};

#define PM_SCAN_WP_MATCHING	(1 << 0)
#define PM_SCAN_CHECK_WPASYNC	(1 << 1)

struct pm_scan_arg {
	__u64 size;
	__u64 flags;
	__u64 start;
	__u64 end;
	__u64 walk_end;
	__u64 vec;
	__u64 vec_len;
	__u64 max_pages;
	__u64 category_inverted;
	__u64 category_mask;
	__u64 category_anyof_mask;
	__u64 return_mask;
};
#endif /* PAGEMAP_SCAN */

#endif /* COW_POLICY_UPSTREAM_SHIM_H */
