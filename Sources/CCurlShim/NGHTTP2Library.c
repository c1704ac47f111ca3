#define _GNU_SOURCE
#include "NGHTTP2Library.h"
#include <dlfcn.h>
#include <stddef.h>

void *pushkit_nghttp2_scope(const char *symbol) {
    if (dlsym(RTLD_NEXT, symbol) != NULL) return RTLD_NEXT;
    return dlopen("libnghttp2.so.14", RTLD_NOLOAD | RTLD_LAZY);
}
