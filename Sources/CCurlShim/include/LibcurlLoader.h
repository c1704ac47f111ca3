#ifndef PUSHKIT_LIBCURL_LOADER_H
#define PUSHKIT_LIBCURL_LOADER_H

#include <curl/curl.h>
#include <stddef.h>

/* Loads libcurl (libcurl.so.4) the first time it is called; later calls return at once.
   Returns 1 when libcurl is ready, 0 with a reason in `error` (NUL-terminated) when it cannot be
   loaded. Every libcurl function the project calls works only after this returned 1. */
int pushkit_libcurl_load(char *error, size_t capacity);

/* pushkit_libcurl_load, then curl_global_init(CURL_GLOBAL_DEFAULT) the first time it succeeds. */
int pushkit_libcurl_load_and_initialize(char *error, size_t capacity);

/* Starts pushkit_libcurl_load_and_initialize on a thread of its own, so the process can do other
   work meanwhile; does nothing when libcurl is loaded or a preload was started. Call only from
   the main thread, and only in a process that will not fork before pushkit_libcurl_preload_finish
   returned. */
void pushkit_libcurl_preload_start(void);

/* Waits for a preload started by pushkit_libcurl_preload_start to end (at once when none was);
   afterwards libcurl is loaded, or pushkit_libcurl_load says why not. Call it before any other
   function here once a preload may have started, and before forking. */
void pushkit_libcurl_preload_finish(void);

#endif
