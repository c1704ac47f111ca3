#ifndef PUSHKIT_CCURLSHIM_H
#define PUSHKIT_CCURLSHIM_H

#include <curl/curl.h>
/* The event loop that drives a multi handle. */
#include "MultiEvents.h"
/* libcurl is loaded at run time, on first use. */
#include "LibcurlLoader.h"
/* An HTTP/2 PING on request, for connections that went silent. */
#include "HTTP2PingProbe.h"

/* curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic in C, which Swift cannot
   call. Each wrapper below fixes one argument type; nothing else belongs in this file.
   (ClosedStreamResetFilter.c, in the same target, works around a libcurl 7.88 bug; it declares
   nothing in a header because only libcurl calls it.) */

typedef size_t (*pushkit_curl_data_callback)(char *buffer, size_t size, size_t count, void *context);
/* CURLOPT_XFERINFOFUNCTION's callback: a nonzero return aborts the transfer (CURLE_ABORTED_BY_CALLBACK). */
typedef int (*pushkit_curl_progress_callback)(void *context, curl_off_t downloadTotal, curl_off_t downloaded,
                                              curl_off_t uploadTotal, curl_off_t uploaded);

CURLcode pushkit_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode pushkit_easy_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode pushkit_easy_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode pushkit_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
CURLcode pushkit_easy_setopt_data_callback(CURL *handle, CURLoption option, pushkit_curl_data_callback value);
CURLcode pushkit_easy_setopt_progress_callback(CURL *handle, CURLoption option, pushkit_curl_progress_callback value);
CURLcode pushkit_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode pushkit_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value);
CURLMcode pushkit_multi_setopt_long(CURLM *handle, CURLMoption option, long value);

#endif
