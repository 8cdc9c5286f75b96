/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thin wrappers around the /dev/cowpin ioctls (driver/cowpin/cowpin.h) for
 * the guest tests. Every wrapper returns 0 or -errno.
 */
#ifndef COWPIN_LIB_H
#define COWPIN_LIB_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>

#include "../../../driver/cowpin/cowpin.h"

#define COWPIN_MODULE "/lib/modules/cowpin.ko"

static inline int cowpin_open(void)
{
	return open(COWPIN_DEVICE, O_RDWR | O_CLOEXEC);
}

static inline int cowpin_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

/* Register [addr, addr+len); *handle (may be NULL) gets the handle. */
static inline int cowpin_reg(int fd, const void *addr, uint64_t len,
			     uint64_t flags, uint64_t *handle)
{
	struct cowpin_register r = {
		.addr = (uintptr_t)addr, .len = len, .flags = flags,
	};
	int ret = cowpin_ioctl(fd, COWPIN_IOC_REGISTER, &r);

	if (!ret && handle)
		*handle = r.handle;
	return ret;
}

static inline int cowpin_dereg(int fd, uint64_t handle)
{
	struct cowpin_handle h = { .handle = handle };

	return cowpin_ioctl(fd, COWPIN_IOC_DEREGISTER, &h);
}

/* The device reads the region (a NIC sending): region -> buf. */
static inline int cowpin_dev_read(int fd, uint64_t handle, uint64_t offset,
				  uint64_t len, void *buf)
{
	struct cowpin_io io = {
		.handle = handle, .offset = offset, .len = len,
		.buf = (uintptr_t)buf,
	};

	return cowpin_ioctl(fd, COWPIN_IOC_DEVICE_READ, &io);
}

/* The device writes the region (a NIC receiving): buf -> region. */
static inline int cowpin_dev_write(int fd, uint64_t handle, uint64_t offset,
				   uint64_t len, const void *buf)
{
	struct cowpin_io io = {
		.handle = handle, .offset = offset, .len = len,
		.buf = (uintptr_t)buf,
	};

	return cowpin_ioctl(fd, COWPIN_IOC_DEVICE_WRITE, &io);
}

static inline int cowpin_writer_start(int fd, uint64_t handle,
				      uint64_t interval_us, uint64_t page_offset)
{
	struct cowpin_writer w = {
		.handle = handle, .interval_us = interval_us,
		.page_offset = page_offset,
	};

	return cowpin_ioctl(fd, COWPIN_IOC_WRITER_START, &w);
}

/* *seq (may be NULL) gets the last sequence number the writer wrote. */
static inline int cowpin_writer_stop(int fd, uint64_t handle, uint64_t *seq)
{
	struct cowpin_writer w = { .handle = handle };
	int ret = cowpin_ioctl(fd, COWPIN_IOC_WRITER_STOP, &w);

	if (!ret && seq)
		*seq = w.seq;
	return ret;
}

#endif
