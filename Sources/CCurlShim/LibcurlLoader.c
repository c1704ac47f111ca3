/* Loads libcurl when send-push first needs it, instead of when the program starts.
 *
 * Linking libcurl makes the dynamic loader map it and its ~30 dependent libraries (OpenSSL,
 * nghttp2, GnuTLS for LDAP, Kerberos, ...) and run their constructors before main: about 6 ms on
 * every start, which a `send-push --detach` or `--hook` foreground, a usage error or `--help`
 * never needs. So send-push does not link libcurl: `pushkit_libcurl_load` dlopens libcurl.so.4
 * (the SONAME of every libcurl since 7.16) the first time a client is made, and the functions
 * below, which carry libcurl's own names and signatures, forward to it. Swift calls them exactly
 * as it would call libcurl.
 *
 * The library is opened RTLD_GLOBAL so that ClosedStreamResetFilter.c can still find the real
 * nghttp2 functions with dlsym(RTLD_NEXT). Calling a forwarder before a successful load is a
 * programming error and aborts with a message.
 *
 * In pushkit-free-server, FoundationNetworking (which the MCP SDK brings) is linked too, and the
 * static linker binds its calls to these names to the forwarders: URLSession there would abort
 * here unless this loader ran first. Nothing in that program uses URLSession (the SDK only in its
 * HTTP client transport and OAuth, which a server never runs). */

#define _GNU_SOURCE
#include "LibcurlLoader.h"
#include "LoadedCalls.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PUSHKIT_LIBCURL_SONAME "libcurl.so.4"

/* Every libcurl function the project calls: name, return type, parameter list, argument list. */
#define PUSHKIT_LIBCURL_FUNCTIONS(X) \
    X(curl_global_init, CURLcode, (long flags), (flags)) \
    X(curl_version_info, curl_version_info_data *, (CURLversion version), (version)) \
    X(curl_easy_init, CURL *, (void), ()) \
    X(curl_easy_cleanup, void, (CURL *handle), (handle)) \
    X(curl_easy_strerror, const char *, (CURLcode code), (code)) \
    X(curl_easy_pause, CURLcode, (CURL *handle, int bitmask), (handle, bitmask)) \
    X(curl_easy_perform, CURLcode, (CURL *handle), (handle)) \
    X(curl_multi_init, CURLM *, (void), ()) \
    X(curl_multi_cleanup, CURLMcode, (CURLM *multi), (multi)) \
    X(curl_multi_add_handle, CURLMcode, (CURLM *multi, CURL *handle), (multi, handle)) \
    X(curl_multi_remove_handle, CURLMcode, (CURLM *multi, CURL *handle), (multi, handle)) \
    X(curl_multi_info_read, CURLMsg *, (CURLM *multi, int *queued), (multi, queued)) \
    X(curl_multi_socket_action, CURLMcode, (CURLM *multi, curl_socket_t fd, int mask, int *running), (multi, fd, mask, running)) \
    X(curl_slist_append, struct curl_slist *, (struct curl_slist *list, const char *line), (list, line)) \
    X(curl_slist_free_all, void, (struct curl_slist *list), (list))

#define PUSHKIT_DECLARE_POINTER(name, result, parameters, arguments) static result (*loaded_##name) parameters;
PUSHKIT_LIBCURL_FUNCTIONS(PUSHKIT_DECLARE_POINTER)

/* The variadic ones, called only by the typed wrappers in CCurlShim.c and MultiEvents.c. */
static CURLcode (*loaded_curl_easy_setopt)(CURL *, CURLoption, ...);
static CURLcode (*loaded_curl_easy_getinfo)(CURL *, CURLINFO, ...);
static CURLMcode (*loaded_curl_multi_setopt)(CURLM *, CURLMoption, ...);

static void *library;

static int resolve(const char *name, void **slot, char *error, size_t capacity) {
    *slot = dlsym(library, name);
    if (*slot != NULL) return 1;
    snprintf(error, capacity, "%s has no %s (libcurl too old?)", PUSHKIT_LIBCURL_SONAME, name);
    return 0;
}

int pushkit_libcurl_load(char *error, size_t capacity) {
    if (library != NULL) return 1;
    void *opened = dlopen(PUSHKIT_LIBCURL_SONAME, RTLD_LAZY | RTLD_GLOBAL);
    if (opened == NULL) {
        const char *reason = dlerror();
        snprintf(error, capacity, "%s", reason != NULL ? reason : "cannot load " PUSHKIT_LIBCURL_SONAME);
        return 0;
    }
    library = opened;
    int ok = 1;
#define PUSHKIT_RESOLVE(name, result, parameters, arguments) ok = ok && resolve(#name, (void **)&loaded_##name, error, capacity);
    PUSHKIT_LIBCURL_FUNCTIONS(PUSHKIT_RESOLVE)
    ok = ok && resolve("curl_easy_setopt", (void **)&loaded_curl_easy_setopt, error, capacity);
    ok = ok && resolve("curl_easy_getinfo", (void **)&loaded_curl_easy_getinfo, error, capacity);
    ok = ok && resolve("curl_multi_setopt", (void **)&loaded_curl_multi_setopt, error, capacity);
    if (!ok) {
        library = NULL; /* stays mapped: dlclose of a half-used library is not worth the risk */
        return 0;
    }
    return 1;
}

static void require_loaded(const char *name) {
    if (library != NULL) return;
    fprintf(stderr, "send-push: internal error: %s called before libcurl was loaded\n", name);
    abort();
}

#define PUSHKIT_FORWARD(name, result, parameters, arguments) \
    result name parameters { require_loaded(#name); return loaded_##name arguments; }
PUSHKIT_LIBCURL_FUNCTIONS(PUSHKIT_FORWARD)

CURLcode pushkit_loaded_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    require_loaded("curl_easy_setopt");
    return loaded_curl_easy_setopt(handle, option, value);
}

CURLcode pushkit_loaded_easy_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    require_loaded("curl_easy_setopt");
    return loaded_curl_easy_setopt(handle, option, value);
}

CURLcode pushkit_loaded_easy_getinfo(CURL *handle, CURLINFO info, void *value) {
    require_loaded("curl_easy_getinfo");
    return loaded_curl_easy_getinfo(handle, info, value);
}

CURLMcode pushkit_loaded_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    require_loaded("curl_multi_setopt");
    return loaded_curl_multi_setopt(handle, option, value);
}

CURLMcode pushkit_loaded_multi_setopt_pointer(CURLM *handle, CURLMoption option, const void *value) {
    require_loaded("curl_multi_setopt");
    return loaded_curl_multi_setopt(handle, option, value);
}
