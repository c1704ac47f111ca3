#ifndef PUSHKIT_LOADED_CALLS_H
#define PUSHKIT_LOADED_CALLS_H

#include <curl/curl.h>

/* libcurl's variadic functions, reached through the loaded library (LibcurlLoader.c) with one
   fixed argument type each. Only the C files of this target call them. */
CURLcode pushkit_loaded_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode pushkit_loaded_easy_setopt_pointer(CURL *handle, CURLoption option, const void *value);
CURLcode pushkit_loaded_easy_getinfo(CURL *handle, CURLINFO info, void *value);
CURLMcode pushkit_loaded_multi_setopt_long(CURLM *handle, CURLMoption option, long value);
CURLMcode pushkit_loaded_multi_setopt_pointer(CURLM *handle, CURLMoption option, const void *value);

#endif
