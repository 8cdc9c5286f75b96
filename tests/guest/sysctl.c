// SPDX-License-Identifier: GPL-2.0
/*
 * sysctl: /proc/sys/vm/cow_policy takes exactly the three policy names,
 * rejects everything else with EINVAL without changing the value, needs
 * privilege, and logs each change once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cowtest.h"

static const char *const names[] = { "exclusive", "refcount", "mapcount" };

struct bad {
	const char *what;
	const char *buf;
	size_t len;
};

static char longbuf[4096];

static const struct bad bad_inputs[] = {
	{ "empty", "", 0 },
	{ "newline only", "\n", 1 },
	{ "whitespace only", "   \n", 4 },
	{ "unknown word", "foo\n", 4 },
	{ "number 0", "0\n", 2 },
	{ "number 1", "1\n", 2 },
	{ "number -1", "-1", 2 },
	{ "leading space", " refcount", 9 },
	{ "trailing space", "refcount ", 9 },
	{ "two newlines", "refcount\n\n", 10 },
	{ "capitals", "Refcount", 8 },
	{ "prefix", "ref", 3 },
	{ "longer word", "refcounts", 9 },
	{ "two names", "refcount mapcount", 17 },
	{ "embedded NUL", "ref\0count", 9 },
	{ "trailing NUL", "refcount\0", 9 },
	{ "binary", "\xff\xfe\x01\x80", 4 },
	{ "over-long", longbuf, sizeof(longbuf) },
};

/* Number of "cow_policy: policy changed" lines in the kernel log. */
static int change_lines(void)
{
	static char buf[1 << 20];
	int len = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, sizeof(buf) - 1);
	int n = 0;
	char *p;

	if (len < 0)
		bail("klogctl");
	buf[len] = 0;
	for (p = buf; (p = strstr(p, "cow_policy: policy changed from")); p++)
		n++;
	return n;
}

static int set(const char *name)
{
	return cow_policy_write(name, strlen(name));
}

/* Run fn in a child with fewer privileges; returns its exit status. */
static int in_child(int (*fn)(void))
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		bail("fork");
	if (!pid)
		_exit(fn());
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 255;
}

/* An unprivileged user opens the file (0666) and gets EPERM on write. */
static int as_nobody(void)
{
	if (setgid(65534) || setuid(65534))
		return 100;
	return -set("mapcount");
}

#define RACE_WRITES 3000

/*
 * An unprivileged writer racing the privileged one: every one of its
 * writes must fail with EPERM.  Returns how many did not (at most 99).
 */
static int nobody_races(void)
{
	int i, bad = 0;

	if (setgid(65534) || setuid(65534))
		return 100;
	for (i = 0; i < RACE_WRITES; i++)
		if (set(names[i % 3]) != -EPERM && bad < 99)
			bad++;
	return bad;
}

/* Root without CAP_SYS_ADMIN gets EPERM from the handler. */
static int without_cap_sys_admin(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return 100;
	data[0].effective &= ~(1U << CAP_SYS_ADMIN);
	data[0].permitted &= ~(1U << CAP_SYS_ADMIN);
	if (syscall(SYS_capset, &hdr, data))
		return 101;
	return -set("mapcount");
}

int main(void)
{
	char orig[32], before[32];
	int logs, fd, ret;
	unsigned int i;

	if (!cow_policy_present()) {
		tap_plan(1);
		tap_result(access("/proc/sys/vm/cow_policy", F_OK) && errno == ENOENT,
			   "no /proc/sys/vm/cow_policy without CONFIG_COW_POLICY");
		return tap_exit();
	}
	memset(longbuf, 'a', sizeof(longbuf));
	tap_plan(3 * 3 + 2 * (int)(sizeof(bad_inputs) / sizeof(bad_inputs[0])) + 13);
	snprintf(orig, sizeof(orig), "%s", cow_policy_now());

	/* Valid values round-trip, with and without a newline. */
	for (i = 0; i < 3; i++) {
		char nl[32];

		snprintf(nl, sizeof(nl), "%s\n", names[(i + 1) % 3]);
		tap_result(set(nl) == 0 && !strcmp(cow_policy_now(), names[(i + 1) % 3]),
			   "write \"%s\\n\" reads back", names[(i + 1) % 3]);
		tap_result(set(names[i]) == 0, "write \"%s\" succeeds", names[i]);
		tap_result(!strcmp(cow_policy_now(), names[i]), "reads back %s",
			   names[i]);
	}

	/* Bad values: EINVAL, value unchanged. */
	set("refcount");
	for (i = 0; i < sizeof(bad_inputs) / sizeof(bad_inputs[0]); i++) {
		ret = cow_policy_write(bad_inputs[i].buf, bad_inputs[i].len);
		tap_result(ret == -EINVAL, "%s: EINVAL (got %s)", bad_inputs[i].what,
			   ret ? strerror(-ret) : "success");
		tap_result(!strcmp(cow_policy_now(), "refcount"),
			   "%s: value unchanged", bad_inputs[i].what);
	}

	/* A name split over two writes, and a write at an offset. */
	fd = open("/proc/sys/vm/cow_policy", O_WRONLY);
	if (fd < 0)
		bail("open");
	ret = write(fd, "map", 3) < 0 ? errno : 0;
	ret = ret == EINVAL && write(fd, "count", 5) < 0 && errno == EINVAL;
	tap_result(ret, "a name split over two writes: EINVAL twice");
	close(fd);
	fd = open("/proc/sys/vm/cow_policy", O_WRONLY);
	ret = pwrite(fd, "mapcount", 8, 1) < 0 && errno == EINVAL;
	close(fd);
	tap_result(ret, "a write at offset 1: EINVAL");
	tap_result(!strcmp(cow_policy_now(), "refcount"), "value still refcount");

	/* Privilege. */
	snprintf(before, sizeof(before), "%s", cow_policy_now());
	ret = in_child(as_nobody);
	tap_result(ret == EPERM, "uid 65534: EPERM on write (got %d)", ret);
	ret = in_child(without_cap_sys_admin);
	tap_result(ret == EPERM, "root without CAP_SYS_ADMIN: EPERM (got %d)", ret);
	tap_result(!strcmp(cow_policy_now(), before), "value unchanged by them");

	/* Unprivileged writers racing a privileged one and readers. */
	{
		pid_t kids[2];
		int k, bad = 0, odd = 0, status;

		for (k = 0; k < 2; k++) {
			kids[k] = fork();
			if (kids[k] < 0)
				bail("fork");
			if (!kids[k])
				_exit(nobody_races());
		}
		for (i = 0; i < 600; i++) {
			const char *now;

			if (set(names[i % 3]))
				odd++;
			now = cow_policy_now();
			if (strcmp(now, names[0]) && strcmp(now, names[1]) &&
			    strcmp(now, names[2]))
				odd++;
		}
		for (k = 0; k < 2; k++) {
			waitpid(kids[k], &status, 0);
			bad += WIFEXITED(status) ? WEXITSTATUS(status) : 255;
		}
		tap_result(!bad, "2 unprivileged writers x %d racing: every write EPERM (%d not)",
			   RACE_WRITES, bad);
		tap_result(!odd, "600 privileged writes meanwhile succeed, every read a policy name (%d odd)",
			   odd);
		set(before);
	}

	/* One log line per change, none for no change or bad input. */
	logs = change_lines();
	set("mapcount");
	tap_result(change_lines() == logs + 1, "a change logs one line");
	set("mapcount");
	tap_result(change_lines() == logs + 1, "writing the same value logs nothing");
	cow_policy_write("bogus", 5);
	tap_result(change_lines() == logs + 1, "a bad value logs nothing");
	set("exclusive");
	set("refcount");
	tap_result(change_lines() == logs + 3, "two changes log two lines");

	/* Leave it as the runner set it. */
	tap_result(set(orig) == 0 && !strcmp(cow_policy_now(), orig),
		   "restored %s", orig);
	return tap_exit();
}
