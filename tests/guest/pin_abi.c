// SPDX-License-Identifier: GPL-2.0
/*
 * pin_abi: the ioctl ABI of /dev/cowpin (driver/cowpin/README.md).
 *
 * 1. Every validation class returns its documented errno.
 * 2. register / device read / device write / writer / deregister work.
 * 3. RLIMIT_MEMLOCK is enforced without CAP_IPC_LOCK (pinned_vm, VmPin).
 * 4. A seeded, reproducible random-argument loop of NOPS ioctls over valid,
 *    stale and garbage handles, and addresses that are valid, unmapped,
 *    read-only, PROT_NONE, file-backed, NULL, kernel or wrapping; each
 *    result is compared with what the ABI says it must be.
 * 5. Closing with regions and writers alive releases everything: after all,
 *    nr_foll_pin_acquired == nr_foll_pin_released, VmPin is 0, and MemFree
 *    comes back within MEMFREE_SLACK_KB of where it started.
 * 6. rmmod fails while a file is open; after close rmmod and insmod work.
 *
 * Usage: pin_abi [seed]   (default seed 1; the seed is printed)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cowtest.h"
#include "cowpin_lib.h"

#define NOPS		100000
#define REOPEN_EVERY	5000
#define MAX_WRITERS	3
#define POOL_LEN	(1UL << 20)	/* the read-write pool and the I/O buffer */
#define SMALL_LEN	(64UL << 10)	/* the other pools */
/*
 * MemFree may come back short by what per-CPU page lists, slab caches and
 * page tables keep after the first use; a leaked COWPIN_MAX_LEN region
 * (64 MiB) is four times this.
 */
#define MEMFREE_SLACK_KB (16 * 1024)
#define USER_TOP	0x7ffffffff000ULL	/* x86-64 TASK_SIZE_MAX, 4 levels */
#define KADDR1		0xffff888000000000ULL
#define KADDR2		0xffffffff81000000ULL

static const uint64_t RW = COWPIN_F_WRITE, LT = COWPIN_F_LONGTERM;

static void check_err(int got, int want, const char *what)
{
	tap_result(got == -want, "%s: %s (want %s)", what,
		   got ? strerror(-got) : "success",
		   want ? strerror(want) : "success");
}

static long long meminfo_kb(const char *key)
{
	char line[256];
	long long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		bail("/proc/meminfo");
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)) && line[strlen(key)] == ':')
			v = atoll(line + strlen(key) + 1);
	fclose(f);
	return v;
}

static long long vmpin_kb(void)
{
	char line[256];
	long long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		bail("/proc/self/status");
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmPin:", 6))
			v = atoll(line + 6);
	fclose(f);
	return v;
}

static void drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);

	if (fd >= 0) {
		if (write(fd, "3\n", 2) < 0)
			tap_diag("drop_caches: %s", strerror(errno));
		close(fd);
	}
}

/*
 * The pin counters are per-CPU deltas folded into /proc/vmstat lazily:
 * fold them (vm.stat_refresh) before comparing acquired with released.
 */
static void vmstat_fresh(struct vmstat *vs)
{
	int fd = open("/proc/sys/vm/stat_refresh", O_WRONLY);

	if (fd >= 0) {
		if (write(fd, "1\n", 2) < 0)
			tap_diag("stat_refresh: %s", strerror(errno));
		close(fd);
	}
	vmstat_read(vs);
}

static char *map(size_t len, int prot, int flags, int fd)
{
	char *p = mmap(NULL, len, prot, flags, fd, 0);

	if (p == MAP_FAILED)
		bail("mmap %zu", len);
	return p;
}

/* ---- the pools of user memory ---- */
static char *rw, *ro, *none, *hole, *fsh, *fpr, *iobuf, *part;
static const char *file_path = "/tmp/pin_abi.data";

static void pools_map(void)
{
	int fd;

	rw = map(POOL_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	memset(rw, 0x11, POOL_LEN);
	iobuf = map(POOL_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	memset(iobuf, 0x22, POOL_LEN);
	ro = map(SMALL_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	memset(ro, 0x33, SMALL_LEN);
	if (mprotect(ro, SMALL_LEN, PROT_READ))
		bail("mprotect");
	none = map(SMALL_LEN, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	/* Far from the binary, the heap, the mmap area and the stack. */
	hole = (char *)0x200000000000ULL;
	if (!msync(hole, SMALL_LEN, MS_ASYNC) || errno != ENOMEM)
		bail("%p is mapped", hole);
	part = map(4 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	memset(part, 0x55, 4 * 4096);
	if (mprotect(part + 2 * 4096, 2 * 4096, PROT_NONE))
		bail("mprotect");
	fd = open(file_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, SMALL_LEN))
		bail("%s", file_path);
	fsh = map(SMALL_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd);
	memset(fsh, 0x44, SMALL_LEN);
	fpr = map(SMALL_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd);
	close(fd);
}

static void pools_unmap(void)
{
	munmap(rw, POOL_LEN);
	munmap(iobuf, POOL_LEN);
	munmap(ro, SMALL_LEN);
	munmap(none, SMALL_LEN);
	munmap(fsh, SMALL_LEN);
	munmap(fpr, SMALL_LEN);
	munmap(part, 4 * 4096);
	unlink(file_path);
}

/* ---- 1. validation classes ---- */
static void test_validation(int fd)
{
	uint64_t h, h2, hs[COWPIN_MAX_REGIONS];
	struct vmstat vs0, vs1;
	int i, n, ret;

	tap_diag("validation: each class returns its documented errno");
	check_err(cowpin_reg(fd, rw, 4096, 1ULL << 5, NULL), EINVAL, "register unknown flag bit 5");
	check_err(cowpin_reg(fd, rw, 4096, COWPIN_F_FAST_ONLY | LT, NULL), EINVAL, "register FAST_ONLY|LONGTERM");
	check_err(cowpin_reg(fd, rw, 4096, 1ULL << 63, NULL), EINVAL, "register unknown flag bit 63");
	check_err(cowpin_reg(fd, rw, 4096, COWPIN_F_GET | LT, NULL), EINVAL, "register GET|LONGTERM");
	check_err(cowpin_reg(fd, rw, 0, RW, NULL), EINVAL, "register zero length");
	check_err(cowpin_reg(fd, rw, COWPIN_MAX_LEN + 1, RW, NULL), EINVAL, "register len > COWPIN_MAX_LEN");
	check_err(cowpin_reg(fd, rw, UINT64_MAX, RW, NULL), EINVAL, "register len UINT64_MAX");
	check_err(cowpin_reg(fd, (void *)0xfffffffffffff000ULL, 0x2000, RW, NULL), EINVAL,
		  "register addr+len wraps");
	check_err(cowpin_reg(fd, (void *)KADDR1, 4096, RW, NULL), EFAULT, "register kernel address (direct map)");
	check_err(cowpin_reg(fd, (void *)KADDR2, 4096, 0, NULL), EFAULT, "register kernel address (text)");
	check_err(cowpin_reg(fd, (void *)(USER_TOP - 4096), 8192, 0, NULL), EFAULT,
		  "register range crossing the top of user space");
	check_err(cowpin_reg(fd, NULL, 4096, 0, NULL), EFAULT, "register NULL");
	check_err(cowpin_reg(fd, hole, 4096, RW | LT, NULL), EFAULT, "register unmapped");
	check_err(cowpin_reg(fd, none, 4096, LT, NULL), EFAULT, "register PROT_NONE");
	check_err(cowpin_reg(fd, ro, 4096, RW | LT, NULL), EFAULT, "register read-only with WRITE");
	/* Partly valid: the first two pages pin, the third fails; none may stay. */
	vmstat_fresh(&vs0);
	check_err(cowpin_reg(fd, part, 4 * 4096, RW | LT, NULL), EFAULT,
		  "register 2 valid pages + 2 PROT_NONE");
	vmstat_fresh(&vs1);
	tap_result(vmstat_delta(&vs0, &vs1, "nr_foll_pin_acquired") ==
		   vmstat_delta(&vs0, &vs1, "nr_foll_pin_released"),
		   "partial pin undone (acquired +%lld, released +%lld)",
		   vmstat_delta(&vs0, &vs1, "nr_foll_pin_acquired"),
		   vmstat_delta(&vs0, &vs1, "nr_foll_pin_released"));
	check_err(cowpin_ioctl(fd, COWPIN_IOC_REGISTER, NULL), EFAULT, "register NULL argument");

	ret = cowpin_reg(fd, ro, 8192, LT, &h);
	check_err(ret, 0, "register read-only without WRITE");
	check_err(cowpin_dev_write(fd, h, 0, 16, iobuf), EACCES, "device write to a read-only region");
	check_err(cowpin_writer_start(fd, h, 100, 0), EACCES, "writer on a read-only region");
	check_err(cowpin_dev_read(fd, h, 0, 16, ro), EFAULT, "device read into a read-only buffer");
	check_err(cowpin_dereg(fd, h), 0, "deregister");
	check_err(cowpin_dereg(fd, h), EINVAL, "deregister stale handle");
	check_err(cowpin_dev_read(fd, h, 0, 16, iobuf), EINVAL, "device read stale handle");
	check_err(cowpin_dereg(fd, 0), EINVAL, "deregister handle 0");
	check_err(cowpin_dereg(fd, 0xff), EINVAL, "deregister handle with a bad slot");
	check_err(cowpin_dereg(fd, UINT64_MAX), EINVAL, "deregister handle UINT64_MAX");

	ret = cowpin_reg(fd, rw + 100, 3 * 4096, RW | LT, &h);
	check_err(ret, 0, "register unaligned 3 pages");
	check_err(cowpin_dev_read(fd, h, 0, 0, iobuf), EINVAL, "device read len 0");
	check_err(cowpin_dev_read(fd, h, 3 * 4096, 1, iobuf), EINVAL, "device read offset == len");
	check_err(cowpin_dev_read(fd, h, 0, 3 * 4096 + 1, iobuf), EINVAL, "device read len > region");
	check_err(cowpin_dev_read(fd, h, 1, UINT64_MAX, iobuf), EINVAL, "device read offset+len wraps");
	check_err(cowpin_dev_write(fd, h, UINT64_MAX, 1, iobuf), EINVAL, "device write offset UINT64_MAX");
	check_err(cowpin_dev_read(fd, h, 0, 16, (void *)KADDR1), EFAULT, "device read to a kernel buffer");
	check_err(cowpin_dev_write(fd, h, 0, 16, (void *)KADDR2), EFAULT, "device write from a kernel buffer");
	check_err(cowpin_dev_read(fd, h, 0, 16, hole), EFAULT, "device read to an unmapped buffer");
	check_err(cowpin_dev_write(fd, h, 0, 16, NULL), EFAULT, "device write from NULL");
	check_err(cowpin_writer_start(fd, h, 0, 0), EINVAL, "writer interval 0");
	check_err(cowpin_writer_start(fd, h, COWPIN_WRITER_MAX_US + 1, 0), EINVAL, "writer interval too long");
	check_err(cowpin_writer_start(fd, h, 100, 3), EINVAL, "writer unaligned page offset");
	check_err(cowpin_writer_start(fd, h, 100, 4096), EINVAL, "writer page offset 4096");
	check_err(cowpin_writer_stop(fd, h, NULL), EINVAL, "writer stop without a writer");
	check_err(cowpin_writer_start(fd, h, 200, 8), 0, "writer start");
	check_err(cowpin_writer_start(fd, h, 200, 8), EBUSY, "writer start twice");
	check_err(cowpin_dereg(fd, h), 0, "deregister with its writer running");
	check_err(cowpin_writer_stop(fd, h, NULL), EINVAL, "writer stop after deregister");

	check_err(cowpin_ioctl(fd, _IOWR(COWPIN_IOC_MAGIC, 0x7f, struct cowpin_io), iobuf),
		  ENOTTY, "unknown ioctl number");
	check_err(cowpin_ioctl(fd, _IOW(COWPIN_IOC_MAGIC, 0x01, uint32_t), iobuf),
		  ENOTTY, "known number, wrong size");
	check_err(cowpin_ioctl(fd, _IO('T', 0x42), iobuf), ENOTTY, "foreign ioctl");

	for (n = 0; n < COWPIN_MAX_REGIONS; n++)
		if (cowpin_reg(fd, rw + n * 4096, 4096, RW, &hs[n]))
			break;
	tap_result(n == COWPIN_MAX_REGIONS, "%d regions register (want %d)", n, COWPIN_MAX_REGIONS);
	check_err(cowpin_reg(fd, rw, 4096, RW, &h2), ENOSPC, "one region too many");
	for (i = 0; i < n; i++)
		cowpin_dereg(fd, hs[i]);
	check_err(cowpin_reg(fd, rw, 4096, RW, &h2), 0, "register after freeing the table");
	tap_result(h2 != hs[0], "handles are not reused (%#llx, first was %#llx)",
		   (unsigned long long)h2, (unsigned long long)hs[0]);
	cowpin_dereg(fd, h2);
	tap_result(vmpin_kb() == 0, "VmPin back to 0 kB (%lld)", vmpin_kb());
}

/* ---- 2. it works ---- */
static void test_function(int fd)
{
	struct cowpin_register r = { 0 };
	uint64_t h, seq = 0, lo = UINT64_MAX, hi = 0;
	char *buf = rw, *out = iobuf;
	size_t len = 16 * 4096, i;
	int ret, bad;

	tap_diag("function: device read/write through the pinned pages");
	memset(buf, 'c', len);
	r.addr = (uintptr_t)buf;
	r.len = len;
	r.flags = RW | LT;
	ret = cowpin_ioctl(fd, COWPIN_IOC_REGISTER, &r);
	h = r.handle;
	check_err(ret, 0, "register 16 pages WRITE|LONGTERM");
	tap_result(r.npages == 16, "npages %llu (want 16)", (unsigned long long)r.npages);
	tap_result(vmpin_kb() == 64, "VmPin %lld kB (want 64)", vmpin_kb());

	memset(out, 'd', len);
	check_err(cowpin_dev_write(fd, h, 0, len, out), 0, "device write 64 KiB");
	for (bad = 0, i = 0; i < len; i++)
		bad += buf[i] != 'd';
	tap_result(!bad, "CPU sees the device write (%d bytes differ)", bad);
	memset(buf + 4000, 'e', 200);	/* crosses a page boundary */
	memset(out, 0, len);
	check_err(cowpin_dev_read(fd, h, 3990, 220, out), 0, "device read across a page boundary");
	for (bad = 0, i = 0; i < 220; i++)
		bad += out[i] != ((i < 10 || i >= 210) ? 'd' : 'e');
	tap_result(!bad, "device sees the CPU write (%d bytes differ)", bad);

	check_err(cowpin_writer_start(fd, h, 100, 64), 0, "writer start, 100 us");
	usleep(100 * 1000);
	for (i = 0; i < 16; i++) {
		uint64_t v = *(volatile uint64_t *)(buf + i * 4096 + 64);

		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	check_err(cowpin_writer_stop(fd, h, &seq), 0, "writer stop");
	tap_result(lo > 0 && hi <= seq && seq > 0,
		   "every page got a sequence number (min %llu max %llu, last %llu)",
		   (unsigned long long)lo, (unsigned long long)hi, (unsigned long long)seq);
	tap_result(*(uint64_t *)(buf + 15 * 4096 + 64) == seq,
		   "after stop the pages hold the last sequence number");
	check_err(cowpin_dereg(fd, h), 0, "deregister");

	/* FOLL_GET references, as vmsplice and O_DIRECT take them. */
	ret = cowpin_reg(fd, fsh, 8192, COWPIN_F_GET | RW, &h);
	check_err(ret, 0, "register GET|WRITE on a shared file mapping");
	memcpy(out, "through the kernel mapping", 27);
	check_err(cowpin_dev_write(fd, h, 5000, 27, out), 0, "device write (GET)");
	tap_result(!memcmp(fsh + 5000, out, 27), "file mapping sees it");
	check_err(cowpin_dereg(fd, h), 0, "deregister (GET)");
	tap_result(vmpin_kb() == 0, "VmPin back to 0 kB (%lld)", vmpin_kb());
}

/* ---- 3. RLIMIT_MEMLOCK without CAP_IPC_LOCK ---- */
static void test_memlock(void)
{
	pid_t pid;
	int st;

	tap_diag("memlock: pinned_vm is charged against RLIMIT_MEMLOCK without CAP_IPC_LOCK");
	pid = fork();
	if (pid < 0)
		bail("fork");
	if (!pid) {
		struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
		struct __user_cap_data_struct d[2];
		struct rlimit rl = { 64 << 10, 64 << 10 };
		int fd = cowpin_open();
		uint64_t h;

		if (fd < 0 || syscall(SYS_capget, &hdr, d))
			_exit(10);
		d[CAP_IPC_LOCK / 32].effective &= ~(1U << (CAP_IPC_LOCK % 32));
		if (syscall(SYS_capset, &hdr, d) || setrlimit(RLIMIT_MEMLOCK, &rl))
			_exit(11);
		if (cowpin_reg(fd, rw, 32 << 10, RW, &h))
			_exit(12);
		if (cowpin_reg(fd, rw + (32 << 10), 36 << 10, RW, NULL) != -ENOMEM)
			_exit(13);
		if (vmpin_kb() != 32)
			_exit(14);
		if (cowpin_reg(fd, rw + (32 << 10), 32 << 10, RW, NULL))
			_exit(15);
		if (cowpin_dereg(fd, h) || cowpin_reg(fd, rw, 4096, 0, NULL) ||
		    cowpin_reg(fd, rw, 32 << 10, 0, NULL) != -ENOMEM)
			_exit(16);
		close(fd);
		_exit(vmpin_kb() == 0 ? 0 : 17);
	}
	if (waitpid(pid, &st, 0) != pid)
		bail("waitpid");
	tap_result(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		   "64 KiB limit: 32 KiB pins, 36 more fail ENOMEM, 32 more pin, VmPin follows (child status %#x)",
		   st);
}

/* ---- 4. the random loop ---- */
struct live {
	uint64_t h, len, flags, npages;
	int writer;
};

static struct live live[COWPIN_MAX_REGIONS];
static int nlive, nwriters;
static uint64_t stale[64];
static unsigned int nstale;
static uint64_t rng;
static long counts[6][8];	/* [op][result class] */
static int mismatches;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint64_t pick(const uint64_t *v, size_t n)
{
	return v[rnd() % n];
}

enum { OP_REG, OP_DEREG, OP_READ, OP_WRITE, OP_WSTART, OP_WSTOP };
static const char *const op_name[] = { "register", "deregister", "device-read",
				       "device-write", "writer-start", "writer-stop" };
static const int classes[] = { 0, EINVAL, EFAULT, ENOSPC, EACCES, EBUSY, ENOTTY, -1 };

/* want: the errno the ABI demands, or -1 when several are acceptable. */
static void expect(int op, int got, int want, uint64_t a, uint64_t b, uint64_t c, long i)
{
	int k;

	for (k = 0; classes[k] >= 0 && classes[k] != -got; k++)
		;
	counts[op][k]++;
	if (want < 0) {
		if (got == 0 || got == -EINVAL || got == -EFAULT || got == -ENOMEM ||
		    got == -EOPNOTSUPP || got == -ENOSPC || got == -EACCES)
			return;
	} else if (got == -want) {
		return;
	}
	if (++mismatches <= 10)
		tap_diag("op %ld %s(%#llx, %#llx, %#llx): got %s, want %s", i, op_name[op],
			 (unsigned long long)a, (unsigned long long)b, (unsigned long long)c,
			 got ? strerror(-got) : "success",
			 want < 0 ? "any ABI error" : want ? strerror(want) : "success");
}

static uint64_t pick_len(uint64_t room)
{
	static const uint64_t odd[] = { 0, COWPIN_MAX_LEN, COWPIN_MAX_LEN + 1,
		UINT64_MAX, -4096ULL, 1ULL << 40 };

	switch (rnd() % 8) {
	case 0:
		return pick(odd, sizeof(odd) / sizeof(odd[0]));
	case 1:
		return 1;
	case 2:
		return 4096 - 1 + rnd() % 3;	/* 4095, 4096, 4097 */
	case 3:
		return 8192 - 1 + rnd() % 3;
	default:
		/* room is 0 when the address is the end of its pool. */
		return 1 + rnd() % (room && room < 65536 ? room : 65536);
	}
}

static void random_register(int fd, long i)
{
	static const uint64_t flags_v[] = { 0, RW, LT, RW | LT, COWPIN_F_GET,
		COWPIN_F_GET | RW, COWPIN_F_GET | LT, 1ULL << 5, RW | 1ULL << 6, 1ULL << 40 };
	uint64_t flags = pick(flags_v, sizeof(flags_v) / sizeof(flags_v[0]));
	uint64_t addr, len, room, h = 0, npages = 0;
	int kind = rnd() % 11, want, got;
	struct cowpin_register r = { 0 };

	switch (kind) {
	case 0: case 1: case 2:		/* the read-write pool */
		addr = (uintptr_t)rw + rnd() % POOL_LEN;
		room = (uintptr_t)rw + POOL_LEN - addr;
		break;
	case 3:
		addr = (uintptr_t)ro + rnd() % SMALL_LEN;
		room = (uintptr_t)ro + SMALL_LEN - addr;
		break;
	case 4:
		addr = (uintptr_t)none + rnd() % SMALL_LEN;
		room = (uintptr_t)none + SMALL_LEN - addr;
		break;
	case 5:
		addr = (uintptr_t)hole + rnd() % SMALL_LEN;
		room = (uintptr_t)hole + SMALL_LEN - addr;
		break;
	case 6: {
		uintptr_t base = (uintptr_t)(rnd() & 1 ? fsh : fpr);

		addr = base + rnd() % SMALL_LEN;
		room = base + SMALL_LEN - addr;
		break;
	}
	case 7:
		addr = (rnd() & 1 ? KADDR1 : KADDR2) + (rnd() % 64) * 4096;
		room = 1 << 20;
		break;
	case 8:
		addr = rnd() % 4096;	/* the NULL page */
		room = 4096 - addr;
		break;
	case 9:
		addr = USER_TOP - 4096 * (rnd() % 3) - rnd() % 64;
		room = USER_TOP - addr;
		break;
	default:
		addr = -4096ULL * (1 + rnd() % 4) + rnd() % 4096;	/* wraps */
		room = -addr;
		break;
	}
	len = pick_len(room);

	if ((flags & ~COWPIN_F_ALL) || ((flags & COWPIN_F_GET) && (flags & LT)))
		want = EINVAL;
	else if (!len || len > COWPIN_MAX_LEN)
		want = EINVAL;
	else if (addr + len < addr)
		want = EINVAL;
	else if (addr + len > USER_TOP)
		want = EFAULT;
	else if (nlive == COWPIN_MAX_REGIONS)
		want = ENOSPC;
	else if (len > room)
		want = -1;
	else if (kind <= 2 || kind == 6)
		want = 0;
	else if (kind == 9)
		want = -1;	/* the stack may be up there */
	else if (kind == 3)
		want = (flags & RW) ? EFAULT : 0;
	else
		want = EFAULT;	/* PROT_NONE, unmapped, NULL page */

	r.addr = addr;
	r.len = len;
	r.flags = flags;
	got = cowpin_ioctl(fd, COWPIN_IOC_REGISTER, &r);
	h = r.handle;
	npages = r.npages;
	expect(OP_REG, got, want, addr, len, flags, i);
	if (!got && len > room) {
		/* Pinned more than the pool: do not let I/O loose on it. */
		expect(OP_DEREG, cowpin_dereg(fd, h), 0, h, 0, 0, i);
		stale[nstale++ % 64] = h;
	} else if (!got) {
		if (nlive == COWPIN_MAX_REGIONS)
			bail("registered more than %d regions", COWPIN_MAX_REGIONS);
		live[nlive++] = (struct live){ h, len, flags, npages, 0 };
	}
}

static uint64_t pick_handle(int *idx)
{
	static const uint64_t junk[] = { 0, 1, 0xff, 0x100, 0x10f, 0x1ff,
		UINT64_MAX, 1ULL << 63, 0x1234567800ULL };

	uint64_t h;
	int k;

	*idx = -1;
	if (nlive && rnd() % 10 < 7) {
		*idx = rnd() % nlive;
		return live[*idx].h;
	}
	if (nstale && rnd() & 1)
		h = stale[rnd() % (nstale < 64 ? nstale : 64)];
	else
		h = pick(junk, sizeof(junk) / sizeof(junk[0]));
	/* A junk value may happen to be a live handle (0x100: serial 1, slot 0). */
	for (k = 0; k < nlive; k++)
		if (live[k].h == h)
			*idx = k;
	return h;
}

static void random_io(int fd, long i, int to_pages)
{
	int idx, want, got, bk = rnd() % 8;
	uint64_t h = pick_handle(&idx), rlen = idx >= 0 ? live[idx].len : 4096;
	uint64_t off, len, buf;

	switch (rnd() % 6) {
	case 0:
		off = rlen;
		len = 1 + rnd() % 2;
		break;
	case 1:
		off = rnd() % rlen;
		len = rlen - off + 1;
		break;
	case 2:
		off = rnd() & 1 ? UINT64_MAX : 1;
		len = rnd() & 1 ? UINT64_MAX : 0;
		break;
	default:
		off = rnd() % rlen;
		len = 1 + rnd() % (rlen - off);
		break;
	}
	switch (bk) {
	case 0:
		buf = (uintptr_t)hole;
		break;
	case 1:
		buf = KADDR1;
		break;
	case 2:
		buf = (uintptr_t)ro;
		break;
	default:
		buf = (uintptr_t)iobuf;
		break;
	}

	if (idx < 0)
		want = EINVAL;
	else if (!len || off > rlen || len > rlen - off)
		want = EINVAL;
	else if (to_pages && !(live[idx].flags & RW))
		want = EACCES;
	else if (bk == 0 || bk == 1)
		want = EFAULT;
	else if (bk == 2)
		want = to_pages ? (len <= SMALL_LEN ? 0 : -1) : EFAULT;
	else
		want = 0;
	got = to_pages ? cowpin_dev_write(fd, h, off, len, (void *)(uintptr_t)buf) :
			 cowpin_dev_read(fd, h, off, len, (void *)(uintptr_t)buf);
	expect(to_pages ? OP_WRITE : OP_READ, got, want, h, off, len, i);
}

static void random_writer(int fd, long i)
{
	static const uint64_t us_v[] = { 0, 200, 500, 1000, COWPIN_WRITER_MAX_US + 1 };
	static const uint64_t off_v[] = { 0, 8, 4088, 3, 4096 };
	int idx, want, got;
	uint64_t h = pick_handle(&idx);

	if (nwriters < MAX_WRITERS && rnd() & 1) {
		uint64_t us = pick(us_v, 5), off = pick(off_v, 5);

		if (idx < 0 || !us || us > COWPIN_WRITER_MAX_US || off % 8 || off > 4088)
			want = EINVAL;
		else if (!(live[idx].flags & RW))
			want = EACCES;
		else if (live[idx].writer)
			want = EBUSY;
		else
			want = 0;
		got = cowpin_writer_start(fd, h, us, off);
		expect(OP_WSTART, got, want, h, us, off, i);
		if (!got && idx >= 0) {
			live[idx].writer = 1;
			nwriters++;
		}
	} else {
		want = idx >= 0 && live[idx].writer ? 0 : EINVAL;
		got = cowpin_writer_stop(fd, h, NULL);
		expect(OP_WSTOP, got, want, h, 0, 0, i);
		if (!got && idx >= 0) {
			live[idx].writer = 0;
			nwriters--;
		}
	}
}

static void random_dereg(int fd, long i)
{
	int idx, got;
	uint64_t h = pick_handle(&idx);

	got = cowpin_dereg(fd, h);
	expect(OP_DEREG, got, idx >= 0 ? 0 : EINVAL, h, 0, 0, i);
	if (!got && idx >= 0) {
		nwriters -= live[idx].writer;
		stale[nstale++ % 64] = h;
		live[idx] = live[--nlive];
	}
}

static long long live_pin_kb(void)
{
	long long kb = 0;
	int k;

	for (k = 0; k < nlive; k++)
		kb += live[k].npages * 4;
	return kb;
}

static void test_random(uint64_t seed)
{
	long i, unknown = 0, vmpin_bad = 0;
	int fd = cowpin_open(), k, op;

	tap_diag("random: %d ioctls, seed %llu, reopening the device every %d",
		 NOPS, (unsigned long long)seed, REOPEN_EVERY);
	rng = seed * 0x9e3779b97f4a7c15ULL + 1;
	if (fd < 0)
		bail("open %s", COWPIN_DEVICE);
	for (i = 0; i < NOPS; i++) {
		if (i && i % REOPEN_EVERY == 0) {
			if (vmpin_kb() != live_pin_kb())
				vmpin_bad++;
			close(fd);	/* regions and writers alive */
			nlive = nwriters = 0;
			fd = cowpin_open();
			if (fd < 0)
				bail("reopen %s", COWPIN_DEVICE);
		}
		op = rnd() % 100;
		if (op < 30)
			random_register(fd, i);
		else if (op < 45)
			random_dereg(fd, i);
		else if (op < 65)
			random_io(fd, i, 0);
		else if (op < 85)
			random_io(fd, i, 1);
		else if (op < 95)
			random_writer(fd, i);
		else {
			unsigned int nr = 7 + rnd() % 249;
			int got = cowpin_ioctl(fd, rnd() & 1 ? _IOWR(COWPIN_IOC_MAGIC, nr, struct cowpin_io) :
					       _IO(COWPIN_IOC_MAGIC, rnd() % 8), iobuf);

			if (got != -ENOTTY && ++mismatches <= 10)
				tap_diag("op %ld unknown ioctl nr %u: %s", i, nr, strerror(-got));
			unknown++;
		}
	}
	if (vmpin_kb() != live_pin_kb())
		vmpin_bad++;
	close(fd);
	nlive = nwriters = 0;
	for (op = 0; op < 6; op++) {
		char line[256];
		int len = snprintf(line, sizeof(line), "%-12s", op_name[op]);

		for (k = 0; k < 8; k++)
			if (counts[op][k])
				len += snprintf(line + len, sizeof(line) - len, " %s=%ld",
						classes[k] < 0 ? "other" :
						classes[k] ? strerrorname_np(classes[k]) : "ok",
						counts[op][k]);
		tap_diag("%s", line);
	}
	tap_diag("unknown-ioctl %ld", unknown);
	tap_result(i >= 10000 && !mismatches, "random loop: %ld ioctls, %d results differ from the ABI",
		   i, mismatches);
	tap_result(!vmpin_bad, "random loop: VmPin matched the live regions at every reopen (%ld misses)",
		   vmpin_bad);
	tap_result(vmpin_kb() == 0, "VmPin 0 kB after close (%lld)", vmpin_kb());
}

/* ---- 5. close with a writer, the big region, the balance ---- */
static void test_close_and_balance(long long memfree0)
{
	struct vmstat vs;
	long long acq, rel, memfree1;
	int fd = cowpin_open();
	uint64_t h;
	char *big;

	tap_diag("release: close with a writer running, a %llu MiB region, pin balance",
		 COWPIN_MAX_LEN >> 20);
	if (fd < 0)
		bail("open");
	check_err(cowpin_reg(fd, rw, POOL_LEN, RW | LT, &h), 0, "register 1 MiB");
	check_err(cowpin_writer_start(fd, h, 100, 0), 0, "writer start");
	usleep(20 * 1000);
	tap_result(close(fd) == 0, "close with the writer running");

	big = map(COWPIN_MAX_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	fd = cowpin_open();
	check_err(cowpin_reg(fd, big, COWPIN_MAX_LEN, RW | LT, &h), 0, "register COWPIN_MAX_LEN");
	check_err(cowpin_dev_write(fd, h, COWPIN_MAX_LEN - 5, 5, "last"), 0,
		  "device write at the end");
	tap_result(!memcmp(big + COWPIN_MAX_LEN - 5, "last", 5), "CPU sees it");
	check_err(cowpin_writer_start(fd, h, 1000, 0), 0, "writer on 64 MiB");
	usleep(20 * 1000);
	close(fd);
	munmap(big, COWPIN_MAX_LEN);
	pools_unmap();

	vmstat_fresh(&vs);
	acq = vmstat_get(&vs, "nr_foll_pin_acquired");
	rel = vmstat_get(&vs, "nr_foll_pin_released");
	tap_result(acq >= 0 && acq == rel, "nr_foll_pin_acquired %lld == nr_foll_pin_released %lld",
		   acq, rel);
	drop_caches();
	memfree1 = meminfo_kb("MemFree");
	tap_result(memfree1 >= memfree0 - MEMFREE_SLACK_KB,
		   "MemFree %lld kB at the end, %lld at the start (tolerance %d kB)",
		   memfree1, memfree0, MEMFREE_SLACK_KB);
}

/* ---- 6. module reference ---- */
static void test_module(void)
{
	int fd = cowpin_open(), mfd, ret, err;

	tap_diag("module: rmmod while open fails; after close rmmod and insmod work");
	if (fd < 0)
		bail("open");
	ret = syscall(SYS_delete_module, "cowpin", O_NONBLOCK);
	err = errno;
	tap_result(ret < 0 && (err == EBUSY || err == EAGAIN),
		   "rmmod while /dev/cowpin is open: %s", ret ? strerror(err) : "removed!");
	if (!ret)
		return;
	close(fd);
	ret = syscall(SYS_delete_module, "cowpin", O_NONBLOCK);
	tap_result(!ret, "rmmod after close: %s", ret ? strerror(errno) : "ok");
	tap_result(access(COWPIN_DEVICE, F_OK) != 0, "%s is gone", COWPIN_DEVICE);
	mfd = open(COWPIN_MODULE, O_RDONLY | O_CLOEXEC);
	ret = mfd < 0 ? -1 : syscall(SYS_finit_module, mfd, "", 0);
	tap_result(!ret, "insmod %s: %s", COWPIN_MODULE, ret ? strerror(errno) : "ok");
	if (mfd >= 0)
		close(mfd);
	fd = cowpin_open();
	tap_result(fd >= 0, "%s opens again", COWPIN_DEVICE);
	if (fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 1;
	long long memfree0;
	int fd;

	if (access(COWPIN_DEVICE, F_OK))
		bail("no %s (is cowpin.ko loaded? the pin profile loads it)", COWPIN_DEVICE);
	tap_plan(90);
	drop_caches();
	memfree0 = meminfo_kb("MemFree");
	pools_map();
	fd = cowpin_open();
	if (fd < 0)
		bail("open %s", COWPIN_DEVICE);
	test_validation(fd);
	test_function(fd);
	close(fd);
	test_memlock();
	test_random(seed);
	test_close_and_balance(memfree0);
	test_module();
	return tap_exit();
}
