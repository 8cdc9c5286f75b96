// SPDX-License-Identifier: GPL-2.0
/*
 * bootparam: the cow_policy= boot parameter.  The runner saves the policy
 * the kernel booted with in /run/cowtest/boot_cow_policy before it changes
 * anything; it must be the last valid cow_policy= of the command line, or
 * the Kconfig default ("exclusive" in our configs), and each invalid one
 * must have been reported in the kernel log.
 */
#include <stdio.h>
#include <string.h>
#include <sys/klog.h>

#include "cowtest.h"

static const char *const names[] = { "exclusive", "refcount", "mapcount" };

static bool valid(const char *s)
{
	for (int i = 0; i < 3; i++)
		if (!strcmp(s, names[i]))
			return true;
	return false;
}

int main(void)
{
	static char cmdline[4096], log[1 << 20], msg[256];
	char booted[32] = "", expect[32] = "exclusive";
	char *tok, *save;
	int nbad = 0, len;
	FILE *f;

	if (!cow_policy_present()) {
		tap_plan(1);
		if (cow_policy_expected())
			tap_result(false, "cow_policy= boot parameter: no vm.cow_policy");
		else
			tap_skip("no CONFIG_COW_POLICY", "cow_policy= boot parameter");
		return tap_exit();
	}
	f = fopen("/proc/cmdline", "r");
	if (!f || !fgets(cmdline, sizeof(cmdline), f))
		bail("/proc/cmdline");
	fclose(f);
	f = fopen("/run/cowtest/boot_cow_policy", "r");
	if (!f || !fgets(booted, sizeof(booted), f))
		bail("/run/cowtest/boot_cow_policy");
	fclose(f);
	booted[strcspn(booted, "\n")] = 0;
	len = klogctl(3, log, sizeof(log) - 1);
	if (len < 0)
		bail("klogctl");
	log[len] = 0;

	for (tok = strtok_r(cmdline, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
		if (!strncmp(tok, "cow_policy=", 11) && !valid(tok + 11))
			nbad++;
	tap_plan(1 + nbad);

	f = fopen("/proc/cmdline", "r");
	if (!f || !fgets(cmdline, sizeof(cmdline), f))
		bail("/proc/cmdline");
	fclose(f);
	for (tok = strtok_r(cmdline, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
		if (strncmp(tok, "cow_policy=", 11))
			continue;
		if (valid(tok + 11)) {
			snprintf(expect, sizeof(expect), "%s", tok + 11);
			continue;
		}
		snprintf(msg, sizeof(msg), "cow_policy: unknown cow_policy=%s ignored", tok + 11);
		tap_result(strstr(log, msg) != NULL, "kernel log reports \"%s\"", msg);
	}
	tap_result(!strcmp(booted, expect), "booted with %s (want %s)", booted, expect);
	return tap_exit();
}
