#include "CCurlShim.h"
#include "LoadedCalls.h"

CURLcode pushkit_easy_setopt_long(CURL *handle, CURLoption option, long value) { return pushkit_loaded_easy_setopt_long(handle, option, value); }
CURLcode pushkit_easy_setopt_string(CURL *handle, CURLoption option, const char *value) { return pushkit_loaded_easy_setopt_pointer(handle, option, value); }
CURLcode pushkit_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) { return pushkit_loaded_easy_setopt_pointer(handle, option, value); }
CURLcode pushkit_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) { return pushkit_loaded_easy_setopt_pointer(handle, option, value); }
CURLcode pushkit_easy_setopt_data_callback(CURL *handle, CURLoption option, pushkit_curl_data_callback value) { return pushkit_loaded_easy_setopt_pointer(handle, option, (const void *)value); }
CURLcode pushkit_easy_setopt_progress_callback(CURL *handle, CURLoption option, pushkit_curl_progress_callback value) { return pushkit_loaded_easy_setopt_pointer(handle, option, (const void *)value); }
CURLcode pushkit_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) { return pushkit_loaded_easy_getinfo(handle, info, value); }
CURLcode pushkit_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) { return pushkit_loaded_easy_getinfo(handle, info, value); }
CURLMcode pushkit_multi_setopt_long(CURLM *handle, CURLMoption option, long value) { return pushkit_loaded_multi_setopt_long(handle, option, value); }
