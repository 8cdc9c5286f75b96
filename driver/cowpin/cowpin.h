/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * cowpin: the ioctl ABI of /dev/cowpin, an RDMA-like page-pinning test
 * driver. Userspace registers memory regions (the driver pins their pages
 * the way an RDMA NIC registers a memory region), then asks the "device" to
 * read from or write to the pinned pages, or to keep writing a sequence
 * number into them in the background (concurrent DMA).
 *
 * Every structure has only fixed-size __u64 fields, so 32- and 64-bit
 * callers share one layout. Fields marked "out" are written by the driver.
 * See driver/cowpin/README.md for the error codes of each ioctl.
 */
#ifndef _UAPI_COWPIN_H
#define _UAPI_COWPIN_H

#include <linux/const.h>
#include <linux/ioctl.h>
#include <linux/types.h>

#define COWPIN_DEVICE		"/dev/cowpin"

/* Regions per open file. */
#define COWPIN_MAX_REGIONS	16
/* Largest region, in bytes. */
#define COWPIN_MAX_LEN		(64ULL << 20)

/* cowpin_register.flags */
#define COWPIN_F_WRITE		_BITULL(0)	/* FOLL_WRITE: device may write */
#define COWPIN_F_LONGTERM	_BITULL(1)	/* FOLL_LONGTERM (pin only) */
#define COWPIN_F_GET		_BITULL(2)	/* FOLL_GET references, not FOLL_PIN */
#define COWPIN_F_FAST_ONLY	_BITULL(3)	/* GUP-fast only, never fault (not LONGTERM) */
#define COWPIN_F_NOFAULT	_BITULL(4)	/* FOLL_NOFAULT: fail rather than fault */
#define COWPIN_F_ALL		(COWPIN_F_WRITE | COWPIN_F_LONGTERM | COWPIN_F_GET | \
				 COWPIN_F_FAST_ONLY | COWPIN_F_NOFAULT)

/* Writer interval bounds, microseconds. */
#define COWPIN_WRITER_MIN_US	1
#define COWPIN_WRITER_MAX_US	1000000

struct cowpin_register {
	__u64 addr;		/* in: user address, any alignment */
	__u64 len;		/* in: bytes, 1..COWPIN_MAX_LEN */
	__u64 flags;		/* in: COWPIN_F_* */
	__u64 handle;		/* out: non-zero, never reused by this file */
	__u64 npages;		/* out: pages pinned (and charged to pinned_vm) */
};

struct cowpin_handle {
	__u64 handle;		/* in */
};

/* DEVICE_READ: region -> buf. DEVICE_WRITE: buf -> region. */
struct cowpin_io {
	__u64 handle;		/* in */
	__u64 offset;		/* in: bytes from the registered addr */
	__u64 len;		/* in: bytes, 1..region len - offset */
	__u64 buf;		/* in: user buffer of len bytes */
};

struct cowpin_writer {
	__u64 handle;		/* in */
	__u64 interval_us;	/* in (START): pause between rounds */
	__u64 page_offset;	/* in (START): 8-aligned byte offset in each page */
	__u64 seq;		/* out (STOP): last sequence number written */
};

#define COWPIN_IOC_MAGIC	0xC7

#define COWPIN_IOC_REGISTER	_IOWR(COWPIN_IOC_MAGIC, 0x01, struct cowpin_register)
#define COWPIN_IOC_DEREGISTER	_IOW(COWPIN_IOC_MAGIC, 0x02, struct cowpin_handle)
#define COWPIN_IOC_DEVICE_READ	_IOW(COWPIN_IOC_MAGIC, 0x03, struct cowpin_io)
#define COWPIN_IOC_DEVICE_WRITE	_IOW(COWPIN_IOC_MAGIC, 0x04, struct cowpin_io)
#define COWPIN_IOC_WRITER_START	_IOW(COWPIN_IOC_MAGIC, 0x05, struct cowpin_writer)
#define COWPIN_IOC_WRITER_STOP	_IOWR(COWPIN_IOC_MAGIC, 0x06, struct cowpin_writer)

#endif /* _UAPI_COWPIN_H */
