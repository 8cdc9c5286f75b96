// SPDX-License-Identifier: GPL-2.0
/*
 * gup_test_badinput: bad input to the PIN_LONGTERM_TEST_* ioctls of
 * /sys/kernel/debug/gup_test (patches/6.1/0010, upstream's ABI of v6.12).
 *
 * Unknown commands, STOP and READ without START, a double START, START
 * with bad flags, unaligned, empty, wrapping, absurd, unmapped and partly
 * mapped ranges, READ past the end of the user buffer: each must fail with
 * its errno, and none may leave a pin behind. The good path (START, READ,
 * STOP; the fast variant) must work, a pin belongs to its file, and closing
 * the file drops it. After every step, nr_foll_pin_acquired ==
 * nr_foll_pin_released (after /proc/sys/vm/stat_refresh) whenever no pin
 * should be held.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/types.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cowtest.h"

/* Upstream's ABI (v6.12 mm/gup_test.h), as in patches/6.1/0010. */
struct pin_longterm_test {
	__u64 addr;
	__u64 size;
	__u32 flags;
};

#define PIN_LONGTERM_TEST_START	_IOW('g', 7, struct pin_longterm_test)
#define PIN_LONGTERM_TEST_STOP	_IO('g', 8)
#define PIN_LONGTERM_TEST_READ	_IOW('g', 9, __u64)
#define PIN_LONGTERM_TEST_FLAG_USE_WRITE	1
#define PIN_LONGTERM_TEST_FLAG_USE_FAST		2

#define GUP_TEST "/sys/kernel/debug/gup_test"
#define NPAGES 4

/* Outstanding pins: acquired - released, after a stat_refresh. */
static long long pins_held(void)
{
	struct vmstat vs;
	int fd = open("/proc/sys/vm/stat_refresh", O_WRONLY);

	if (fd < 0 || write(fd, "1", 1) != 1)
		bail("stat_refresh: %s", strerror(errno));
	close(fd);
	vmstat_read(&vs);
	if (!vmstat_has(&vs, "nr_foll_pin_acquired"))
		bail("no nr_foll_pin_acquired in /proc/vmstat");
	return vmstat_get(&vs, "nr_foll_pin_acquired") -
	       vmstat_get(&vs, "nr_foll_pin_released");
}

/* ioctl, returning 0 or -errno. */
static int xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

static int start(int fd, void *addr, unsigned long size, unsigned int flags)
{
	struct pin_longterm_test args = {
		.addr = (uintptr_t)addr, .size = size, .flags = flags,
	};

	return xioctl(fd, PIN_LONGTERM_TEST_START, &args);
}

static int readpins(int fd, void *buf)
{
	__u64 uaddr = (uintptr_t)buf;

	return xioctl(fd, PIN_LONGTERM_TEST_READ, &uaddr);
}

/* One test point: RET must be -WANT (0 for success). */
static void expect(int ret, int want, const char *what)
{
	tap_result(ret == -want, "%s: %s (want %s)", what,
		   ret ? strerror(-ret) : "0", want ? strerror(want) : "0");
}

static void no_pin_left(const char *after)
{
	long long held = pins_held();

	tap_result(held == 0, "no pin left after %s (acquired - released = %lld)",
		   after, held);
}

static int gup_open(void)
{
	int fd = open(GUP_TEST, O_RDWR);

	if (fd < 0)
		bail("open %s: %s (CONFIG_GUP_TEST, debugfs mounted?)", GUP_TEST,
		     strerror(errno));
	return fd;
}

int main(void)
{
	unsigned long size = NPAGES * PAGE_SIZE;
	struct pin_longterm_test args;
	char *mem, *buf, *hole;
	int fd, fd2, i, ret;

	fd = gup_open();
	if (pins_held() != 0)
		bail("pins are held before the test: %lld", pins_held());

	mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	/* hole: two mapped pages, then two unmapped ones. */
	hole = mmap(NULL, size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED || buf == MAP_FAILED || hole == MAP_FAILED)
		bail("mmap: %s", strerror(errno));
	if (munmap(hole + 2 * PAGE_SIZE, 2 * PAGE_SIZE))
		bail("munmap: %s", strerror(errno));
	for (i = 0; i < NPAGES; i++)
		memset(mem + i * PAGE_SIZE, 'a' + i, PAGE_SIZE);
	memset(hole, 'h', 2 * PAGE_SIZE);

	/*
	 * Unpatched 6.1 (the stock kernel, which runs the upstream profile
	 * too) has no PIN_LONGTERM_TEST_* ioctls: its gup_test answers a
	 * START on a mapped page with EINVAL.  There is no ABI to test; the
	 * host allows this skip on the stock kernel only
	 * (tests/expect/skips.tsv), so a patched kernel that lost the ABI
	 * still fails.
	 */
	ret = start(fd, mem, PAGE_SIZE, 0);
	if (ret == -EINVAL) {
		tap_plan(1);
		tap_skip("no PIN_LONGTERM_TEST_* ioctls (unpatched 6.1; patches/6.1/0010 adds them)",
			 "PIN_LONGTERM_TEST_* ABI");
		return tap_exit();
	}
	tap_plan(32);
	if (ret == 0 && xioctl(fd, PIN_LONGTERM_TEST_STOP, NULL))
		bail("STOP after the probe's START");

	/* 1. commands that do not exist, or with a wrong size in the number. */
	expect(xioctl(fd, _IO('g', 10), NULL), EINVAL, "unknown command 'g' 10");
	expect(xioctl(fd, _IOW('g', 7, __u32), &args), EINVAL,
	       "START with a wrong argument size");
	expect(xioctl(fd, _IO('x', 7), NULL), EINVAL, "unknown command 'x' 7");

	/* 2. STOP and READ before any START. */
	expect(xioctl(fd, PIN_LONGTERM_TEST_STOP, NULL), EINVAL, "STOP without START");
	expect(readpins(fd, buf), EINVAL, "READ without START");

	/* 3. START with bad arguments: nothing may stay pinned. */
	expect(xioctl(fd, PIN_LONGTERM_TEST_START, NULL), EFAULT, "START with a NULL argument");
	expect(start(fd, mem, size, 4), EINVAL, "START with an unknown flag");
	expect(start(fd, mem + 1, size, 0), EINVAL, "START with an unaligned address");
	expect(start(fd, mem, size - 1, 0), EINVAL, "START with an unaligned size");
	expect(start(fd, mem, 0, 0), EINVAL, "START with size 0");
	expect(start(fd, (void *)-PAGE_SIZE, 2 * PAGE_SIZE, 0), EINVAL,
	       "START with a range that wraps around");
	expect(start(fd, mem, 1UL << 62, 0), ENOMEM, "START with an absurd size (1 << 62)");
	expect(start(fd, hole + 2 * PAGE_SIZE, PAGE_SIZE, 0), EFAULT,
	       "START on an unmapped page");
	expect(start(fd, hole, size, 0), EFAULT,
	       "START on two mapped then two unmapped pages");
	expect(start(fd, hole, size, PIN_LONGTERM_TEST_FLAG_USE_FAST), EFAULT,
	       "START (fast) on two mapped then two unmapped pages");
	no_pin_left("the failed STARTs");

	/* 4. the good path, double START, READ past the end. */
	expect(start(fd, mem, size, 0), 0, "START on 4 private pages (R/O pin)");
	tap_result(pins_held() == NPAGES, "4 pins held after START");
	expect(start(fd, mem, size, 0), EBUSY, "double START");
	expect(start(fd, buf, size, PIN_LONGTERM_TEST_FLAG_USE_WRITE), EBUSY,
	       "double START on another range");
	expect(readpins(fd, buf), 0, "READ into a 4-page buffer");
	tap_result(!memcmp(buf, mem, size), "READ returns the pinned pages' content");
	expect(readpins(fd, hole), EFAULT, "READ past the end (2-page buffer, then a hole)");
	expect(xioctl(fd, PIN_LONGTERM_TEST_READ, NULL), EFAULT, "READ with a NULL argument");
	expect(xioctl(fd, PIN_LONGTERM_TEST_STOP, NULL), 0, "STOP");
	expect(xioctl(fd, PIN_LONGTERM_TEST_STOP, NULL), EINVAL, "second STOP");
	no_pin_left("START, bad STARTs and READs, STOP");

	/* 5. the pin belongs to its file; closing the file drops it. */
	fd2 = gup_open();
	expect(start(fd, mem, size, PIN_LONGTERM_TEST_FLAG_USE_FAST |
		     PIN_LONGTERM_TEST_FLAG_USE_WRITE), 0, "START (fast, R/W) on file 1");
	expect(xioctl(fd2, PIN_LONGTERM_TEST_STOP, NULL), EINVAL,
	       "STOP on file 2 does not drop file 1's pin");
	expect(start(fd2, buf, size, 0), 0, "START on file 2 while file 1 holds a pin");
	tap_result(pins_held() == 2 * NPAGES, "8 pins held by the two files");
	close(fd);
	close(fd2);
	no_pin_left("closing both files without STOP");

	munmap(mem, size);
	munmap(buf, size);
	munmap(hole, 2 * PAGE_SIZE);
	return tap_exit();
}
