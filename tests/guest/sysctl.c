// SPDX-License-Identifier: GPL-2.0
/*
 * sysctl: /proc/sys/vm/cow_policy takes exactly the policy names of the
 * kernel, rejects everything else with EINVAL without changing the value, is
 * 0644 (a writer that is not root gets EACCES from the mode), needs
 * CAP_SYS_ADMIN in the writer's credentials at the write (EPERM otherwise,
 * even through a descriptor opened with it: dmesg_restrict's rule), traces
 * every change once (cow:cow_policy_change) and logs changes to the kernel
 * log at most once per five seconds, saying how many it did not log.
 *
 * The names: "exclusive", "refcount" and "mapcount", and "largefolio"
 * (patches/6.12/0014) on a kernel built with CONFIG_COW_POLICY_MM_ID, which
 * the runner says in COWTEST_MM_ID=y (guest/init.sh, from the variant's
 * .config).  With COWTEST_MM_ID=n writing "largefolio" must fail without
 * changing the value: with EOPNOTSUPP on the 6.12 series (the name is known,
 * the tracking it needs is not built in), with EINVAL on 6.1's (an unknown
 * word).  Any other COWTEST_MM_ID, or none, fails a test point.
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
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cowtest.h"

/* The policy names; the fourth only where CONFIG_COW_POLICY_MM_ID=y. */
static const char *const names[] = { "exclusive", "refcount", "mapcount", "largefolio" };
static unsigned int nnames = 3;

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
	{ "prefix of largefolio", "largefoli", 9 },
	{ "largefolio plus a letter", "largefolios", 11 },
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
		if (set(names[i % nnames]) != -EACCES && bad < 99)
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

/* Whether the kernel has "largefolio": COWTEST_MM_ID from the runner. */
enum mm_id { MM_ID_UNKNOWN, MM_ID_N, MM_ID_Y };

static enum mm_id mm_id_expected(void)
{
	const char *e = getenv("COWTEST_MM_ID");

	if (e && !strcmp(e, "y"))
		return MM_ID_Y;
	if (e && !strcmp(e, "n"))
		return MM_ID_N;
	return MM_ID_UNKNOWN;
}

/*
 * The error that writing "largefolio" must fail with on a kernel without
 * CONFIG_COW_POLICY_MM_ID: EOPNOTSUPP on the 6.12 line (cow_policy_parse()
 * knows the name), EINVAL on 6.1 (it does not); 0 on another line, whose
 * answer this test does not know.  The line from uname(): "6.12" of
 * "6.12.118".
 */
static int largefolio_refusal(char *line, size_t len)
{
	struct utsname u;
	int major = 0, minor = 0;

	snprintf(line, len, "?");
	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return 0;
	snprintf(line, len, "%d.%d", major, minor);
	if (major == 6 && minor == 12)
		return EOPNOTSUPP;
	if (major == 6 && minor == 1)
		return EINVAL;
	return 0;
}

int main(void)
{
	char orig[32], before[32], kline[32];
	int logs, fd, ret, refusal;
	unsigned int i;
	enum mm_id mm_id;
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
	mm_id = mm_id_expected();
	refusal = largefolio_refusal(kline, sizeof(kline));
	if (mm_id == MM_ID_Y)
		nnames = 4;
	/*
	 * The points: each name's round trip, each bad input, one for
	 * COWTEST_MM_ID (unknown) or for the trace of "largefolio" (known),
	 * two for the refusal of "largefolio" (COWTEST_MM_ID=n), 18 more.
	 */
	tap_plan(3 * (int)nnames + 2 * (int)(sizeof(bad_inputs) / sizeof(bad_inputs[0])) +
		 1 + (mm_id == MM_ID_N ? 2 : 0) + 18);
	tap_diag("kernel line %s, COWTEST_MM_ID=%s: %s", kline,
		 getenv("COWTEST_MM_ID") ?: "(unset)",
		 mm_id == MM_ID_Y ? "four names, largefolio accepted" :
		 mm_id == MM_ID_N ? "three names, largefolio refused" :
		 "three names, largefolio not checked");
	if (mm_id == MM_ID_UNKNOWN)
		tap_result(false,
			   "COWTEST_MM_ID is y or n (got %s): the runner must say whether the kernel has CONFIG_COW_POLICY_MM_ID (run.conf MM_ID=, scripts/build/initramfs.sh)",
			   getenv("COWTEST_MM_ID") ?: "unset");
	snprintf(orig, sizeof(orig), "%s", cow_policy_now());

	/* Valid values round-trip, with and without a newline. */
	for (i = 0; i < nnames; i++) {
		const char *next = names[(i + 1) % nnames];
		char nl[32];

		snprintf(nl, sizeof(nl), "%s\n", next);
		ret = set(nl);
		tap_result(ret == 0 && !strcmp(cow_policy_now(), next),
			   "write \"%s\\n\" reads back (%s)", next,
			   ret ? strerror(-ret) : "ok");
		ret = set(names[i]);
		tap_result(ret == 0, "write \"%s\" succeeds (%s)", names[i],
			   ret ? strerror(-ret) : "ok");
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

	/*
	 * "largefolio" without CONFIG_COW_POLICY_MM_ID: EOPNOTSUPP from the
	 * 6.12 series' cow_policy_parse() through the handler, EINVAL on 6.1,
	 * the value unchanged either way.  Written as the runner writes it.
	 */
	if (mm_id == MM_ID_N) {
		ret = set("largefolio\n");
		if (refusal)
			tap_result(ret == -refusal,
				   "\"largefolio\" without CONFIG_COW_POLICY_MM_ID on %s: %s (got %s)",
				   kline, refusal == EOPNOTSUPP ? "EOPNOTSUPP" : "EINVAL",
				   ret ? strerror(-ret) : "success");
		else
			tap_result(false,
				   "\"largefolio\" without CONFIG_COW_POLICY_MM_ID: kernel line %s is neither 6.12 (EOPNOTSUPP) nor 6.1 (EINVAL) (got %s)",
				   kline, ret ? strerror(-ret) : "success");
		tap_result(!strcmp(cow_policy_now(), "refcount"),
			   "\"largefolio\" refused: value unchanged (%s)", cow_policy_now());
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
			unsigned int n;

			if (set(names[i % nnames]))
				odd++;
			now = cow_policy_now();
			for (n = 0; n < nnames && strcmp(now, names[n]); n++)
				;
			odd += n == nnames;
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
	if (mm_id == MM_ID_Y) {
		set("largefolio");
		tap_result(change_events() == 4, "a change to largefolio traces one event");
	} else if (mm_id == MM_ID_N) {
		cow_policy_write("largefolio", 10);
		tap_result(change_events() == 3, "a refused largefolio traces nothing");
	}

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
		/* Each write a change: the burst starts from refcount or largefolio. */
		for (i = 0; i < 300; i++)
			set(names[i % nnames]);
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
