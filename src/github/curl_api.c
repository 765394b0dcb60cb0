/* libcurl, loaded at start by absolute path: see curl_api.h. */
#include "github/curl_api.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "common/banned.h"

#ifndef HIMORIME_CURL_PATH
#error "the Makefile passes HIMORIME_CURL_PATH: pkg-config's libcurl, by its libdir and SONAME"
#endif

/* One dlsym per function. POSIX: a function pointer is stored through its
 * object representation. */
#define CURL_API_FIND(member, function)                                                            \
	sym = dlsym(lib, #function);                                                               \
	if (!sym) {                                                                                \
		dlclose(lib);                                                                      \
		return err_set(err, ERR_EXEC, "github: cannot load %s: it has no %s", path,        \
			       #function);                                                         \
	}                                                                                          \
	memcpy(&found.member, &sym, sizeof(sym));

/* dlopen with / as the working directory: an empty or relative element of
 * LD_LIBRARY_PATH (which the dynamic loader read when himorime started and
 * still applies to libcurl's dependencies) must not name the checkout. */
static void *open_from_root(const char *path, struct err *err)
{
	int here = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	void *lib = NULL;

	if (here < 0 || chdir("/") != 0) {
		err_set(err, ERR_EXEC, "github: cannot load %s: cannot change to /: %s", path,
			strerror(errno));
		if (here >= 0)
			close(here);
		return NULL;
	}
	lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		err_set(err, ERR_EXEC, "github: cannot load %s: %s", path, dlerror());
	if (fchdir(here) != 0) {
		/* where himorime was is gone: nothing relative can be trusted */
		err_set(err, ERR_EXEC, "github: cannot load %s: cannot change back: %s", path,
			strerror(errno));
		if (lib)
			dlclose(lib);
		lib = NULL;
	}
	close(here);
	return lib;
}

int curl_api_open(const char *path, struct curl_api *out, struct err *err)
{
	struct curl_api found;
	void *lib = open_from_root(path, err);
	void *sym;

	if (!lib)
		return ERR_EXEC;
	/* Never closed: libcurl keeps global state until the process ends. */
	CURL_API_FUNCTIONS(CURL_API_FIND)
	*out = found;
	return 0;
}

/* Filled whole, or not at all; `tried` once curl_api_preload ran, with its
 * error in `failed`. */
static struct {
	struct curl_api api;
	bool tried;
	struct err failed;
} loaded;

void curl_api_preload(void)
{
	if (loaded.tried)
		return;
	loaded.tried = true;
	if (curl_api_open(HIMORIME_CURL_PATH, &loaded.api, &loaded.failed) < 0)
		return;
	/* Also at start: libcurl's own set-up (OpenSSL's configuration and
	 * providers) happens before any measured code. Never balanced, so no
	 * later init starts over. */
	if (loaded.api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		err_set(&loaded.failed, ERR_EXEC, "github: cannot initialise libcurl");
		memset(&loaded.api, 0, sizeof(loaded.api));
	}
}

int curl_api_load(const struct curl_api **out, struct err *err)
{
	*out = NULL;
	if (!loaded.tried)
		return err_set(err, ERR_INTERNAL,
			       "github: libcurl was not loaded when himorime started");
	if (!loaded.api.global_init) {
		*err = loaded.failed;
		return err->code;
	}
	*out = &loaded.api;
	return 0;
}
