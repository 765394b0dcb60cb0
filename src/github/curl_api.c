/* libcurl opened on first use: see curl_api.h. */
#include "github/curl_api.h"

#include <dlfcn.h>
#include <string.h>

#include "common/banned.h"

#ifndef HIMORIME_CURL_SONAME
#error "the Makefile passes HIMORIME_CURL_SONAME, the SONAME of pkg-config's libcurl"
#endif

/* One dlsym per function. POSIX: a function pointer is stored through its
 * object representation. */
#define CURL_API_FIND(member, function)                                                            \
	sym = dlsym(lib, #function);                                                               \
	if (!sym) {                                                                                \
		dlclose(lib);                                                                      \
		return err_set(err, ERR_EXEC, "github: cannot load %s: it has no %s",              \
			       HIMORIME_CURL_SONAME, #function);                                   \
	}                                                                                          \
	memcpy(&found.member, &sym, sizeof(sym));

int curl_api_load(const struct curl_api **out, struct err *err)
{
	static struct curl_api api; /* filled whole, or not at all */
	struct curl_api found;
	void *lib;
	void *sym;

	*out = NULL;
	if (!api.global_init) {
		/* Never closed: libcurl keeps global state until the process
		 * ends. A failed load leaves nothing open. */
		lib = dlopen(HIMORIME_CURL_SONAME, RTLD_NOW | RTLD_LOCAL);
		if (!lib)
			return err_set(err, ERR_EXEC, "github: cannot load %s: %s",
				       HIMORIME_CURL_SONAME, dlerror());
		CURL_API_FUNCTIONS(CURL_API_FIND)
		api = found;
	}
	*out = &api;
	return 0;
}
