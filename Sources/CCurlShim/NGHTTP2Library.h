/* The nghttp2 library that libcurl loaded, for the interposers in this folder that forward to it. */
#ifndef PUSHKIT_NGHTTP2_LIBRARY_H
#define PUSHKIT_NGHTTP2_LIBRARY_H

/* A dlsym handle under which `symbol` (an nghttp2 function) is found: RTLD_NEXT, since libcurl and
   nghttp2 are opened RTLD_GLOBAL (LibcurlLoader.c), else the already loaded libnghttp2.so.14 by
   name; NULL when nghttp2 is not loaded, which cannot happen when libcurl called an interposer. */
void *pushkit_nghttp2_scope(const char *symbol);

#endif
