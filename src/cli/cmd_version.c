/*
 * `himorime version`: the version, the compiler it was built with, the
 * platform.
 */
#include "cli/commands.h"

#include "common/version.h"

#include <stdio.h>
#include <sys/utsname.h>

#include "common/banned.h"

int cmd_version(struct cmd_args *a)
{
	struct utsname u;

	if (a->operands.n) {
		cli_error(HMR_USAGE, "version takes no arguments");
		return cli_exit(EXIT_USAGE, "invalid command line");
	}
	if (uname(&u) < 0)
		return cli_exit(EXIT_INTERNAL, "uname failed");
	printf("himorime %s (%s %s, built with %s)\n", HIMORIME_VERSION, u.sysname, u.machine,
#if defined(__clang__)
	       "clang " __clang_version__
#elif defined(__GNUC__)
	       "gcc " __VERSION__
#else
	       "an unknown compiler"
#endif
	);
	return EXIT_OK;
}
