// SPDX-License-Identifier: GPL-2.0
/*
 * pin_sanity: an RDMA-style long-term write pin without fork must keep the
 * device and the CPU looking at the same memory under every policy:
 * device write -> CPU read, CPU write -> device read, and the background
 * writer's sequence numbers reach the CPU.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cowtest.h"
#include "cowpin_lib.h"

#define NPAGES	16
#define LEN	(NPAGES * PAGE_SIZE)

static int count_diff(const char *a, int c, size_t len)
{
	int bad = 0;

	for (size_t i = 0; i < len; i++)
		bad += a[i] != c;
	return bad;
}

int main(void)
{
	static char dev[LEN];
	uint64_t h = 0, seq = 0, v;
	int fd, ret, bad;
	char *mem;

	if (access(COWPIN_DEVICE, F_OK))
		bail("no %s (the pin profile loads cowpin.ko)", COWPIN_DEVICE);
	tap_plan(9);
	tap_diag("policy %s: WRITE|LONGTERM pin of %d pages, no fork", cow_policy_now(), NPAGES);
	fd = cowpin_open();
	if (fd < 0)
		bail("open %s", COWPIN_DEVICE);
	mem = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		bail("mmap");
	memset(mem, 'a', LEN);

	ret = cowpin_reg(fd, mem, LEN, COWPIN_F_WRITE | COWPIN_F_LONGTERM, &h);
	tap_result(!ret, "register: %s", ret ? strerror(-ret) : "ok");

	memset(dev, 'D', LEN);
	ret = cowpin_dev_write(fd, h, 0, LEN, dev);
	tap_result(!ret, "device write");
	bad = count_diff(mem, 'D', LEN);
	tap_result(!bad, "CPU reads the device's data (%d bytes differ)", bad);

	memset(mem, 'C', LEN);
	memset(dev, 0, LEN);
	ret = cowpin_dev_read(fd, h, 0, LEN, dev);
	tap_result(!ret, "device read");
	bad = count_diff(dev, 'C', LEN);
	tap_result(!bad, "device reads the CPU's data (%d bytes differ)", bad);

	ret = cowpin_writer_start(fd, h, 200, 0);
	tap_result(!ret, "writer start");
	usleep(50 * 1000);
	v = *(volatile uint64_t *)(mem + (NPAGES - 1) * PAGE_SIZE);
	ret = cowpin_writer_stop(fd, h, &seq);
	tap_result(!ret && seq > 0 && v > 0 && v <= seq,
		   "CPU sees the writer (value %llu, last %llu)",
		   (unsigned long long)v, (unsigned long long)seq);
	v = *(uint64_t *)mem;
	tap_result(v == seq, "first page holds the last sequence number (%llu)",
		   (unsigned long long)v);

	ret = cowpin_dereg(fd, h);
	tap_result(!ret, "deregister");
	close(fd);
	return tap_exit();
}
