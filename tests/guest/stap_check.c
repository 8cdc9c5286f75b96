// SPDX-License-Identifier: GPL-2.0
/*
 * stap_check: runs the systemtap script benchmarks/stap/cow_decisions.stp
 * (compiled on the host by scripts/build/stap.sh, /usr/lib/stap/cow_decisions.ko
 * in the image) with staprun during a small scenario under each policy,
 * and checks that the decisions it counted agree exactly with the
 * /proc/vmstat cow_* deltas over the same interval.
 *
 * The interval: vmstat is read, then getppid() opens the script's window
 * (it arms on getppid() from a process named stap_check), the scenario
 * runs (fork, child and parent write, a THP when available), getppid()
 * closes the window, vmstat is read again. Nothing between the reads and
 * the markers faults (vmstat_read() uses a static, pre-touched buffer).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cowtest.h"

#define KO	"/usr/lib/stap/cow_decisions.ko"
#define OUT	"/tmp/stap_check.out"
#define NPAGES	256

static char outbuf[1 << 20];

static const char *slurp(void)
{
	int fd = open(OUT, O_RDONLY);
	ssize_t n = fd < 0 ? 0 : read(fd, outbuf, sizeof(outbuf) - 1);

	outbuf[n > 0 ? n : 0] = 0;
	if (fd >= 0)
		close(fd);
	return outbuf;
}

/* Wait up to secs for the n-th occurrence of what in the output. */
static bool wait_for(const char *what, int n, int secs)
{
	for (int i = 0; i < secs * 10; i++) {
		const char *p = slurp();
		int k = 0;

		while ((p = strstr(p, what))) {
			p++;
			if (++k >= n)
				return true;
		}
		usleep(100000);
	}
	return false;
}

static void scenario(void)
{
	char *mem = mmap(NULL, NPAGES * PAGE_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *thp = mmap(NULL, 4UL << 20, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pid_t pid;

	if (mem == MAP_FAILED || thp == MAP_FAILED)
		bail("mmap");
	madvise(mem, NPAGES * PAGE_SIZE, MADV_NOHUGEPAGE);
	thp = (char *)(((unsigned long)thp + (2UL << 20) - 1) & ~((2UL << 20) - 1));
	madvise(thp, 2UL << 20, MADV_HUGEPAGE);
	memset(mem, 1, NPAGES * PAGE_SIZE);
	memset(thp, 1, 2UL << 20);
	pid = fork();
	if (pid == 0) {
		memset(mem, 2, NPAGES * PAGE_SIZE / 2);
		thp[0] = 2;
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	memset(mem, 3, NPAGES * PAGE_SIZE);	/* half shared, half reusable */
	thp[4096] = 3;
	munmap(mem, NPAGES * PAGE_SIZE);
}

int main(void)
{
	static const char *pol[] = { "exclusive", "refcount", "mapcount" };
	static const char *ctr[] = { "cow_reuse_exclusive", "cow_reuse_refcount",
		"cow_reuse_mapcount", "cow_reuse_ksm", "cow_copy_mapcount",
		"cow_copy_refcount", "cow_ksm", "cow_copy_swap",
		"cow_copy_locked", "cow_pmd_reuse", "cow_pmd_split",
		"cow_gup_break", NULL };
	static struct vmstat before, after;
	char start[32];
	pid_t stap;
	int w, k, status, windows = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	tap_plan(5);
	if (access(KO, R_OK) || access("/usr/bin/staprun", X_OK)) {
		for (k = 0; k < 5; k++)
			tap_skip("no " KO " or staprun (make stap)", "stap_check");
		return 0;
	}
	if (!cow_policy_present()) {
		for (k = 0; k < 5; k++)
			if (cow_policy_expected())
				tap_result(false, "stap_check: no cow_policy");
			else
				tap_skip("no cow_policy", "stap_check");
		return tap_exit();
	}
	snprintf(start, sizeof(start), "%s", cow_policy_now());
	mkdir("/sys/kernel/debug", 0755);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	unlink(OUT);
	stap = fork();
	if (stap == 0) {
		int fd = open(OUT, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(fd, 1);
		dup2(fd, 2);
		execl("/usr/bin/staprun", "staprun", KO, "interval=0", (char *)NULL);
		_exit(127);
	}
	if (!wait_for("COWSTAP-READY", 1, 60)) {
		tap_result(false, "stap_check: staprun %s started", KO);
		slurp();
		for (char *q = outbuf; (q = strstr(q, "WARNING:")); q++)
			memcpy(q, "warning:", 8);
		printf("%s", outbuf);
		kill(stap, SIGKILL);
		return 1;
	}
	tap_result(true, "stap_check: staprun %s started", KO);
	sleep(1);
	vmstat_read(&before);	/* touch the buffers */
	/*
	 * A policy's window is tried up to three times: vmstat counts every
	 * process, and a decision of another one (stapio's first writes after
	 * its fork, say) between a snapshot and a window marker makes the two
	 * differ by one.  A real disagreement repeats; noise does not.
	 */
	for (w = 0; w < 3; w++) {
		char want[64];
		bool ok = false;
		const char *p;
		int attempt;

		cow_policy_write(pol[w], strlen(pol[w]));
		for (attempt = 1; attempt <= 3 && !ok; attempt++) {
			/*
			 * The previous scenario's fork write-protected our
			 * buffers: fault them back in outside the interval
			 * first (twice, as a fault while parsing lands after
			 * the snapshot), and inside it before closing the
			 * window.
			 */
			vmstat_read(&before);
			vmstat_read(&before);
			getppid();	/* open the window */
			scenario();
			vmstat_read(&after);
			getppid();	/* close it */
			vmstat_read(&after);
			windows++;
			if (!wait_for("COWSTAP-END", windows, 30)) {
				tap_diag("%s: no report of window %d", pol[w], windows);
				break;
			}
			/* the windows-th window block */
			p = slurp();
			for (k = 0; k < windows; k++)
				p = strstr(p, "COWSTAP-WINDOW") + 1;
			ok = true;
			for (k = 0; ctr[k]; k++) {
				long long n = -1, d = vmstat_delta(&before, &after, ctr[k]);
				const char *q;

				snprintf(want, sizeof(want), "COWSTAP %s ", ctr[k]);
				q = strstr(p, want);
				if (q)
					n = atoll(q + strlen(want));
				if (!vmstat_has(&after, ctr[k]))
					continue;
				tap_diag("%-9s %-20s stap %5lld  vmstat %5lld%s (attempt %d)",
					 pol[w], ctr[k], n, d, n == d ? "" : "  MISMATCH",
					 attempt);
				ok &= n == d;
			}
		}
		tap_result(ok, "stap_check: %s: stap counts == /proc/vmstat cow_* deltas", pol[w]);
	}
	cow_policy_write(start, strlen(start));
	kill(stap, SIGINT);
	for (k = 0; k < 300 && waitpid(stap, &status, WNOHANG) == 0; k++)
		usleep(100000);
	if (k == 300) {
		kill(stap, SIGKILL);
		waitpid(stap, &status, 0);
	}
	slurp();
	tap_result(strstr(outbuf, "=== cow decisions (total)") &&
		   strstr(outbuf, "policy mapcount:"),
		   "stap_check: staprun ended with the per-policy histograms");
	/* stap's "WARNING: ... skipped probes" is not a kernel WARNING */
	for (char *q = outbuf; (q = strstr(q, "WARNING:")); q++)
		memcpy(q, "warning:", 8);
	printf("%s", outbuf);
	return tap_exit();
}
