// SPDX-License-Identifier: MIT
/*
 * cmd_run.c - `advshim run`: exec a command with libadvshim.so preloaded.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policy/policy.h"
#include "tools/cli/cli.h"

#ifndef ADVSHIM_LIBDIR
#define ADVSHIM_LIBDIR "/usr/local/lib"
#endif

const char *cli_shim_path(void)
{
	static char path[PATH_MAX + 32];
	const char *env = getenv("ADVSHIM_LIB");
	char exe[PATH_MAX];
	ssize_t n;
	char *slash;

	if (env && *env)
		return access(env, R_OK) ? NULL : env;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			snprintf(path, sizeof(path), "%s/libadvshim.so", exe);
			if (!access(path, R_OK))
				return path;
			snprintf(path, sizeof(path), "%s/../lib/libadvshim.so",
				 exe);
			if (!access(path, R_OK))
				return path;
		}
	}
	snprintf(path, sizeof(path), "%s/libadvshim.so", ADVSHIM_LIBDIR);
	return access(path, R_OK) ? NULL : path;
}

/* Prepend @lib to LD_PRELOAD, keeping whatever the user preloads already. */
static int prepend_preload(const char *lib)
{
	const char *old = getenv("LD_PRELOAD");
	char *val;
	int ret;

	if (old && *old) {
		if (asprintf(&val, "%s:%s", lib, old) < 0)
			return -1;
	} else {
		val = strdup(lib);
		if (!val)
			return -1;
	}
	ret = setenv("LD_PRELOAD", val, 1);
	free(val);
	return ret;
}

/*
 * Check @config as the shim would (refuse to start a command under a
 * policy it would reject) and export its absolute path.  0, or EXIT_USAGE
 * after a message.
 */
static int export_config(const char *config)
{
	char abs_config[PATH_MAX];
	struct policy_error err;
	struct policy *p;

	if (policy_load_file(config, &p, &err)) {
		cli_report_error(&err);
		return EXIT_USAGE;
	}
	policy_free(p);
	if (!realpath(config, abs_config)) {
		fprintf(stderr, "advshim run: %s: %s\n", config, strerror(errno));
		return EXIT_USAGE;
	}
	setenv("ADVSHIM_CONFIG", abs_config, 1);
	return 0;
}

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "log", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *config = NULL, *log = NULL, *lib;
	int c;

	while ((c = getopt_long(argc, argv, "+c:l:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			config = optarg;
			break;
		case 'l':
			log = optarg;
			break;
		case 'h':
			printf("usage: advshim run [-c FILE] [-l LEVEL] -- CMD [ARGS...]\n");
			return 0;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "advshim run: no command given\n");
		return EXIT_USAGE;
	}
	lib = cli_shim_path();
	if (!lib) {
		fprintf(stderr, "advshim run: libadvshim.so not found (set ADVSHIM_LIB)\n");
		return 1;
	}
	if (config && export_config(config))
		return EXIT_USAGE;
	if (log)
		setenv("ADVSHIM_LOG", log, 1);
	if (prepend_preload(lib)) {
		perror("advshim run");
		return 1;
	}
	execvp(argv[optind], argv + optind);
	fprintf(stderr, "advshim run: %s: %s\n", argv[optind], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
