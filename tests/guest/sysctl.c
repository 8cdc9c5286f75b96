// SPDX-License-Identifier: GPL-2.0
/*
 * sysctl: /proc/sys/vm/cow_policy takes exactly the three policy names,
 * rejects everything else with EINVAL without changing the value, is 0644
 * (a writer that is not root gets EACCES from the mode), needs CAP_SYS_ADMIN
 * in the writer's credentials at the write (EPERM otherwise, even through a
 * descriptor opened with it: dmesg_restrict's rule), traces every change once (cow:cow_policy_change) and logs
 * changes to the kernel log at most once per five seconds, saying how many
 * it did not log.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
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

static char klog[1 << 20];

/* The kernel log, and how many "cow_policy: policy changed" lines it has. */
static int change_lines(void)
{
	int len = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, klog, sizeof(klog) - 1);
	int n = 0;
	char *p;

	if (len < 0)
		bail("klogctl");
	klog[len] = 0;
	for (p = klog; (p = strstr(p, "cow_policy: policy changed from")); p++)
		n++;
	return n;
}

/*
 * The changes that the change lines after the first skip+1 ones account
 * for: one each, plus the "(N earlier changes not logged)" they report.
 */
static long changes_accounted(int skip)
{
	char *p, *nl, *paren;
	long sum = 0;
	int n = 0;

	change_lines();
	for (p = klog; (p = strstr(p, "cow_policy: policy changed from")); p++) {
		if (n++ <= skip)
			continue;
		nl = strchr(p, '\n');
		paren = strchr(p, '(');
		sum += 1 + (paren && (!nl || paren < nl) ? atol(paren + 1) : 0);
	}
	return sum;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#define TRACING "/sys/kernel/tracing"

static void put(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_TRUNC);

	if (fd < 0 || write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		bail("write %s to %s", val, path);
	close(fd);
}

/* cow:cow_policy_change events in the trace buffer since the last clear. */
static int change_events(void)
{
	static char buf[1 << 16];
	int fd = open(TRACING "/trace", O_RDONLY), n = 0;
	ssize_t r, len = 0;
	char *p;

	if (fd < 0)
		bail("open " TRACING "/trace");
	while (len < (ssize_t)sizeof(buf) - 1 &&
	       (r = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += r;
	close(fd);
	buf[len] = 0;
	for (p = buf; (p = strstr(p, "cow_policy_change: ")); p++)
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

/* An unprivileged user cannot open the file (0644) for writing: EACCES. */
static int as_nobody(void)
{
	if (setgid(65534) || setuid(65534))
		return 100;
	return -set("mapcount");
}

#define RACE_WRITES 3000

/*
 * An unprivileged writer racing the privileged one: every one of its
 * writes must fail with EACCES.  Returns how many did not (at most 99).
 */
static int nobody_races(void)
{
	int i, bad = 0;

	if (setgid(65534) || setuid(65534))
		return 100;
	for (i = 0; i < RACE_WRITES; i++)
		if (set(names[i % 3]) != -EACCES && bad < 99)
			bad++;
	return bad;
}

/* Drop (or raise again) CAP_SYS_ADMIN in the effective set; 0 or -1. */
static int effective_cap_sys_admin(bool on, bool permitted_too)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	if (on)
		data[0].effective |= 1U << CAP_SYS_ADMIN;
	else
		data[0].effective &= ~(1U << CAP_SYS_ADMIN);
	if (permitted_too)
		data[0].permitted &= ~(1U << CAP_SYS_ADMIN);
	return syscall(SYS_capset, &hdr, data) ? -1 : 0;
}

/* Root without CAP_SYS_ADMIN opens and writes: EPERM from the handler. */
static int without_cap_sys_admin(void)
{
	if (effective_cap_sys_admin(false, true))
		return 100;
	return -set("mapcount");
}

/*
 * The writer's capability decides, not the opener's (capable() at write, as
 * for dmesg_restrict and kptr_restrict): a descriptor opened with
 * CAP_SYS_ADMIN and written after dropping it gets EPERM.
 */
static int opened_with_cap_written_without(void)
{
	int fd, ret;

	fd = open("/proc/sys/vm/cow_policy", O_WRONLY);
	if (fd < 0)
		return 101;
	if (effective_cap_sys_admin(false, false))
		return 100;
	ret = write(fd, "mapcount", 8) < 0 ? errno : 0;
	close(fd);
	return ret;
}

int main(void)
{
	char orig[32], before[32];
	int logs, fd, ret;
	unsigned int i;
	bool traced;

	if (!cow_policy_present() || !cow_policy_expected()) {
		tap_plan(1);
		tap_result(!cow_policy_expected() &&
			   access("/proc/sys/vm/cow_policy", F_OK) && errno == ENOENT,
			   "no /proc/sys/vm/cow_policy without CONFIG_COW_POLICY (expected: %s)",
			   cow_policy_expected() ? "present" : "absent");
		return tap_exit();
	}
	memset(longbuf, 'a', sizeof(longbuf));
	tap_plan(3 * 3 + 2 * (int)(sizeof(bad_inputs) / sizeof(bad_inputs[0])) + 18);
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
	{
		struct stat st = { 0 };

		ret = stat("/proc/sys/vm/cow_policy", &st);
		tap_result(!ret && (st.st_mode & 07777) == 0644, "mode 0644 (got %o)",
			   (unsigned int)(st.st_mode & 07777));
	}
	ret = in_child(as_nobody);
	tap_result(ret == EACCES, "uid 65534: EACCES from the mode (got %d)", ret);
	ret = in_child(without_cap_sys_admin);
	tap_result(ret == EPERM, "root without CAP_SYS_ADMIN: EPERM (got %d)", ret);
	ret = in_child(opened_with_cap_written_without);
	tap_result(ret == EPERM,
		   "opened with CAP_SYS_ADMIN, written without it: EPERM (got %d)", ret);
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
		tap_result(!bad, "2 unprivileged writers x %d racing: every write EACCES (%d not)",
			   RACE_WRITES, bad);
		tap_result(!odd, "600 privileged writes meanwhile succeed, every read a policy name (%d odd)",
			   odd);
		set(before);
	}

	/*
	 * One trace event per change, none for no change or bad input.  The
	 * event is on from boot (the profile's trace_event=): switching it
	 * here would patch kernel text under the other tests' feet.
	 */
	traced = trace_event_on("cow/cow_policy_change");
	tap_result(traced, "cow:cow_policy_change is on from boot (trace_event= on the command line)");
	put(TRACING "/trace", "");
	set("mapcount");
	tap_result(change_events() == 1, "a change traces one event");
	set("mapcount");
	tap_result(change_events() == 1, "writing the same value traces nothing");
	cow_policy_write("bogus", 5);
	tap_result(change_events() == 1, "a bad value traces nothing");
	set("exclusive");
	set("refcount");
	tap_result(change_events() == 3, "two changes trace two events");

	/*
	 * The kernel log cannot flood: 300 changes in a burst log at most one
	 * line per five seconds, and the next line after a quiet five seconds
	 * says how many changes it did not log.
	 */
	{
		double t0, dt;
		long accounted;

		sleep(6);
		logs = change_lines();
		t0 = now_s();
		for (i = 0; i < 300; i++)
			set(names[i % 3]);
		dt = now_s() - t0;
		ret = change_lines() - logs;
		tap_result(ret >= 1 && ret <= 2 + (int)(dt / 5),
			   "300 changes in %.1f s: %d kernel log lines", dt, ret);
		sleep(6);
		set(names[0]);
		set(names[1]);
		/* The burst's first line, then every change once. */
		accounted = changes_accounted(logs);
		tap_result(accounted == 300,
			   "the log lines after it account for the other 299 changes and the next one (%ld, want 300)",
			   accounted);
	}

	/* Leave it as the runner set it. */
	tap_result(set(orig) == 0 && !strcmp(cow_policy_now(), orig),
		   "restored %s", orig);
	return tap_exit();
}
