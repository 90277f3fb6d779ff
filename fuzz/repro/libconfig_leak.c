// SPDX-License-Identifier: MIT
/*
 * libconfig_leak.c - third-party leak that fuzz/lsan.supp suppresses.
 *
 * clang -fsanitize=address fuzz/repro/libconfig_leak.c -lconfig && ./a.out
 * On Debian 12 (libconfig 1.5) LeakSanitizer reports 1 byte leaked from
 * strbuf_append (hyperrealm/libconfig#142, fixed upstream in 1.7).
 */
#include <libconfig.h>

int main(void)
{
	config_t cfg;

	config_init(&cfg);
	config_read_string(&cfg, "\"\"");	/* a syntax error */
	config_destroy(&cfg);
	return 0;
}
