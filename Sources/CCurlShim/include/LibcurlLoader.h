#ifndef PUSHKIT_LIBCURL_LOADER_H
#define PUSHKIT_LIBCURL_LOADER_H

#include <curl/curl.h>
#include <stddef.h>

/* Loads libcurl (libcurl.so.4) the first time it is called; later calls return at once.
   Returns 1 when libcurl is ready, 0 with a reason in `error` (NUL-terminated) when it cannot be
   loaded. Every libcurl function the project calls works only after this returned 1. */
int pushkit_libcurl_load(char *error, size_t capacity);

#endif
