// SPDX-License-Identifier: MIT
/*
 * control.c - the soak's control (SOAK_CONTROL=1): preloaded after the
 * shim into the soak's JVM, built with -fsanitize=address,undefined, it
 * makes one UBSan report (a shift past the width) and one ASan report (a
 * heap read past the end, which halts) when the JVM loads it (only in
 * java: nice and the launcher's sh load it first), so that the
 * soak shows it finds sanitizer reports from inside a JVM in its
 * log_path files and fails on them.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((constructor)) static void soak_control(void)
{
	volatile int width = 40, one = 1;
	char *p = malloc(8);
	volatile int shifted = one << width;
	volatile char past;
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n < 5 || (exe[n] = 0, strcmp(exe + n - 5, "/java") != 0)) {
		free(p);
		return;
	}
	(void)shifted;
	past = p[8 + (width & 0)];
	(void)past;
	free(p);
}
