// SPDX-License-Identifier: MIT
/*
 * cmd_run.c - `advshim run`: exec a command with libadvshim.so preloaded,
 * or with --seccomp under the filter and supervisor of seccomp_run.c
 * (no preload then: one place decides).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/optdoc.h"
#include "policy/policy.h"
#include "tools/cli/cli.h"
#include "tools/cli/seccomp.h"

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

/*
 * The policy the shim would load: @config, else $ADVSHIM_CONFIG, else
 * /etc/advshim.conf when it exists, else the embedded default.  0 and
 * *out, or EXIT_USAGE after a message.
 */
static int seccomp_policy(const char *config, struct policy **out)
{
	struct policy_error err;
	int ret;

	if (!config || !*config)
		config = getenv("ADVSHIM_CONFIG");
	if ((!config || !*config) && !access("/etc/advshim.conf", F_OK))
		config = "/etc/advshim.conf";
	ret = config && *config ? policy_load_file(config, out, &err) :
				  policy_load_default(out, &err);
	if (ret) {
		cli_report_error(&err);
		return EXIT_USAGE;
	}
	return 0;
}

/* --seccomp: the policy, the log level (-l, else the policy's), exec. */
static int run_seccomp(const char *config, const char *log, bool verbose,
		       char **argv)
{
	enum policy_log_level level;
	struct policy *p;

	if (seccomp_policy(config, &p))
		return EXIT_USAGE;
	level = p->log.level;
	if (log && policy_log_level_parse(log, &level)) {
		fprintf(stderr, "advshim run: unknown log level '%s'\n", log);
		policy_free(p);
		return EXIT_USAGE;
	}
	return seccomp_run_exec(argv, p, level, verbose);
}

static const char usage_head[] =
"usage: advshim run [-c|--policy FILE] [-l LEVEL] [--seccomp [--verbose]] -- CMD [ARGS...]\n"
"  Run CMD with libadvshim.so preloaded, or under --seccomp.\n";

enum { O_POLICY = 256 };

static const struct optdoc run_opts[] = {
	{ "config", 'c', "FILE",
	  "the policy, exported as ADVSHIM_CONFIG (with --seccomp the "
	  "supervisor reads it); default $ADVSHIM_CONFIG, else "
	  "/etc/advshim.conf if it exists, else the embedded one" },
	{ "policy", O_POLICY, "FILE", "the same as --config" },
	{ "log", 'l', "LEVEL",
	  "ADVSHIM_LOG: off, warn, info or debug (with --seccomp the "
	  "supervisor's, default the policy's log.level)" },
	{ "seccomp", 's', NULL,
	  "no preload: a seccomp filter hands MADV_RANDOM to a supervisor that "
	  "answers by the same policy (static and Go programs)" },
	{ "verbose", 'v', NULL,
	  "with --seccomp: say that no_new_privs is set and which pid "
	  "supervises" },
	{ "help", 'h', NULL, "this text" },
};

int cmd_run(int argc, char **argv)
{
	struct optdoc_set set;
	const char *config = NULL, *log = NULL, *lib;
	bool seccomp = false, verbose = false;
	int c;

	optdoc_init(&set, "+", run_opts, OPTDOC_NR(run_opts));
	while ((c = optdoc_getopt(&set, argc, argv)) != -1) {
		switch (c) {
		case 'c':
		case O_POLICY:
			config = optarg;
			break;
		case 'l':
			log = optarg;
			break;
		case 's':
			seccomp = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			optdoc_help(stdout, usage_head, run_opts,
				    OPTDOC_NR(run_opts), NULL);
			return 0;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "advshim run: no command given\n");
		return EXIT_USAGE;
	}
	if (seccomp)
		return run_seccomp(config, log, verbose, argv + optind);
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
