// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cowtest.h"

static int tap_n, tap_failed;

void tap_plan(int n)
{
	printf("TAP version 13\n1..%d\n", n);
	fflush(stdout);
}

void tap_result(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", ok ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!ok)
		tap_failed++;
}

void tap_skip(const char *why, const char *fmt, ...)
{
	va_list ap;

	printf("ok %d - ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" # SKIP %s\n", why);
	fflush(stdout);
}

void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

int tap_exit(void)
{
	return tap_failed ? 1 : 0;
}

void bail(const char *fmt, ...)
{
	va_list ap;

	printf("Bail out! ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" (%s)\n", strerror(errno));
	fflush(stdout);
	exit(2);
}

const char *const cow_decision_counters[] = {
	"cow_reuse_exclusive", "cow_reuse_refcount", "cow_reuse_mapcount",
	"cow_reuse_ksm", "cow_copy_mapcount", "cow_copy_refcount",
	"cow_ksm",		/* the kernel's own count of KSM copies */
	"cow_copy_swap", "cow_copy_locked",
	"cow_copy_large",	/* the 6.12 line's; absent (0) on 6.1 */
	/* 6.12's largefolio, with CONFIG_COW_POLICY_MM_ID; absent (0) without */
	"cow_reuse_owner", "cow_copy_shared", "cow_copy_single",
	NULL
};

long long vmstat_decisions(const struct vmstat *before, const struct vmstat *after)
{
	long long n = 0;

	for (int i = 0; cow_decision_counters[i]; i++)
		n += vmstat_delta(before, after, cow_decision_counters[i]);
	return n;
}

void *map_dontfork(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		bail("mmap");
	if (madvise(p, len, MADV_DONTFORK))
		bail("madvise(MADV_DONTFORK)");
	memset(p, 0, len);
	return p;
}

/*
 * Read /proc/vmstat with one read() into a buffer kept out of fork()
 * (map_dontfork()): taking a snapshot neither faults in memory between the
 * two snapshots of a test nor, after a fork() in the window, makes a
 * copy-on-write decision of its own.
 */
void vmstat_read(struct vmstat *vs)
{
	static const size_t size = 64 * 1024;
	static pid_t owner;
	static char *buf;
	char *line, *save;
	ssize_t len, got = 0;
	int fd;

	/* A child of the process that mapped it has no such mapping. */
	if (!buf || owner != getpid()) {
		buf = map_dontfork(size);
		owner = getpid();
	}
	fd = open("/proc/vmstat", O_RDONLY);
	if (fd < 0)
		bail("open /proc/vmstat");
	while ((len = read(fd, buf + got, size - 1 - got)) > 0)
		got += len;
	close(fd);
	buf[got] = 0;
	vs->n = 0;
	for (line = strtok_r(buf, "\n", &save); line && vs->n < VMSTAT_MAX;
	     line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' ');

		if (!sp || sp - line >= (long)sizeof(vs->name[0]))
			continue;
		memcpy(vs->name[vs->n], line, sp - line);
		vs->name[vs->n][sp - line] = 0;
		vs->val[vs->n] = atoll(sp + 1);
		vs->n++;
	}
}

long long vmstat_get(const struct vmstat *vs, const char *name)
{
	int i;

	for (i = 0; i < vs->n; i++)
		if (!strcmp(vs->name[i], name))
			return vs->val[i];
	return -1;
}

bool vmstat_has(const struct vmstat *vs, const char *name)
{
	return vmstat_get(vs, name) >= 0;
}

long long vmstat_delta(const struct vmstat *before, const struct vmstat *after,
		       const char *name)
{
	long long a = vmstat_get(after, name), b = vmstat_get(before, name);

	return (a < 0 || b < 0) ? 0 : a - b;
}

void vmstat_skip(struct vmstat *after, const struct vmstat *from,
		 const struct vmstat *to)
{
	for (int i = 0; i < after->n; i++)
		after->val[i] -= vmstat_delta(from, to, after->name[i]);
}

bool cow_policy_present(void)
{
	return access("/proc/sys/vm/cow_policy", F_OK) == 0;
}

bool cow_policy_expected(void)
{
	const char *e = getenv("COWTEST_COW_POLICY");

	return e ? strcmp(e, "0") != 0 : cow_policy_present();
}

const char *cow_policy_now(void)
{
	static char name[32];
	ssize_t len;
	int fd = open("/proc/sys/vm/cow_policy", O_RDONLY);

	if (fd < 0)
		return "exclusive";
	len = read(fd, name, sizeof(name) - 1);
	close(fd);
	if (len < 0)
		bail("read /proc/sys/vm/cow_policy");
	name[len] = 0;
	name[strcspn(name, "\n")] = 0;
	return name;
}

bool trace_event_on(const char *event)
{
	char path[160], c = 0;
	int fd;

	snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%s/enable", event);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	if (read(fd, &c, 1) != 1)
		c = 0;
	close(fd);
	return c == '1';
}

/* One write() of buf at offset 0; returns 0 or -errno. */
int cow_policy_write(const char *buf, size_t len)
{
	int fd = open("/proc/sys/vm/cow_policy", O_WRONLY);
	ssize_t ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, buf, len);
	ret = ret < 0 ? -errno : 0;
	close(fd);
	return ret;
}

void fork_exit_child(void)
{
	pid_t pid = fork();

	if (pid < 0)
		bail("fork");
	if (!pid)
		_exit(0);
	if (waitpid(pid, NULL, 0) != pid)
		bail("waitpid");
}

char *map_anon_ptes(size_t len, char c)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		bail("mmap");
	madvise(p, len, MADV_NOHUGEPAGE);
	memset(p, c, len);
	return p;
}

int fork_piped(int go[2], int back[2])
{
	int pid;

	if (pipe(go) || pipe(back))
		bail("pipe");
	pid = fork();
	if (pid < 0)
		bail("fork");
	return pid;
}

char pipe_getc(int fd)
{
	char c = '?';

	return read(fd, &c, 1) == 1 ? c : '?';
}

void pipe_putc(int fd, char c)
{
	if (write(fd, &c, 1) != 1)
		_exit(3);
}
