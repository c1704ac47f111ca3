#ifndef PUSHKIT_CCURL_SHIM_H
#define PUSHKIT_CCURL_SHIM_H
#include <curl/curl.h>
#endif
