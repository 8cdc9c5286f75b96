// SPDX-License-Identifier: GPL-2.0
/* A canned file for make check's make rfc identity cases (tests/host/rfc). */
int demo_reuse(int mapcount)
{
	return mapcount == 1;
}
