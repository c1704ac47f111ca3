#include "CCurlShim.h"

CURLcode pushkit_easy_setopt_long(CURL *handle, CURLoption option, long value) { return curl_easy_setopt(handle, option, value); }
CURLcode pushkit_easy_setopt_string(CURL *handle, CURLoption option, const char *value) { return curl_easy_setopt(handle, option, value); }
CURLcode pushkit_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) { return curl_easy_setopt(handle, option, value); }
CURLcode pushkit_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) { return curl_easy_setopt(handle, option, value); }
CURLcode pushkit_easy_setopt_data_callback(CURL *handle, CURLoption option, pushkit_curl_data_callback value) { return curl_easy_setopt(handle, option, value); }
CURLcode pushkit_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) { return curl_easy_getinfo(handle, info, value); }
CURLcode pushkit_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) { return curl_easy_getinfo(handle, info, value); }
CURLMcode pushkit_multi_setopt_long(CURLM *handle, CURLMoption option, long value) { return curl_multi_setopt(handle, option, value); }
