// SPDX-License-Identifier: GPL-2.0
/*
 * smoke: the guest booted and the basics the tests rely on are there.
 * TAP: /proc/vmstat has pgfault and nr_free_pages, /proc/self/maps is
 * readable; reports /proc/sys/vm/cow_policy when the kernel has it.
 */
#include <stdio.h>
#include <string.h>

static int ok_count, fail_count, n;

static void result(int ok, const char *what)
{
	printf("%sok %d - %s\n", ok ? "" : "not ", ++n, what);
	if (ok)
		ok_count++;
	else
		fail_count++;
}

static int file_has_key(const char *path, const char *key)
{
	char line[256];
	size_t len = strlen(key);
	int found = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ' ')
			found = 1;
	fclose(f);
	return found;
}

int main(void)
{
	char line[512];
	FILE *f;
	int lines = 0;

	printf("TAP version 13\n1..4\n");
	result(file_has_key("/proc/vmstat", "pgfault"), "/proc/vmstat has pgfault");
	result(file_has_key("/proc/vmstat", "nr_free_pages"),
	       "/proc/vmstat has nr_free_pages");

	f = fopen("/proc/self/maps", "r");
	if (f) {
		while (fgets(line, sizeof(line), f))
			lines++;
		fclose(f);
	}
	result(lines > 0, "/proc/self/maps is readable");

	f = fopen("/proc/sys/vm/cow_policy", "r");
	if (f) {
		if (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = 0;
			printf("# cow_policy: %s\n", line);
		}
		fclose(f);
		result(1, "/proc/sys/vm/cow_policy readable");
	} else {
		printf("ok %d - /proc/sys/vm/cow_policy # SKIP not in this kernel\n", ++n);
	}
	return fail_count ? 1 : 0;
}
