// SPDX-License-Identifier: GPL-2.0
/*
 * qemu-exit CODE: end the QEMU guest through the isa-debug-exit device at
 * I/O port 0xf4; QEMU then exits with status (CODE << 1) | 1.
 * (busybox cannot write to I/O ports, hence this helper.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/io.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int code = argc > 1 ? atoi(argv[1]) : 0;

	if (ioperm(0xf4, 4, 1)) {
		perror("qemu-exit: ioperm(0xf4)");
		return 2;
	}
	sync();
	outb((unsigned char)code, 0xf4);
	/* Only reached without an isa-debug-exit device. */
	fprintf(stderr, "qemu-exit: no isa-debug-exit device at 0xf4\n");
	return 2;
}
