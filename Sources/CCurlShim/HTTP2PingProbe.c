/* Lets send-push ask a silent HTTP/2 connection for a PING, which libcurl 7.88 cannot do for it.
 *
 * libcurl sends an HTTP/2 PING only from curl_easy_upkeep, and that call does nothing for
 * transfers driven by a multi handle of one's own (it only looks at the connections of
 * curl_easy_perform). So this file defines nghttp2_session_send, which libcurl calls through its
 * PLT every time it writes out a connection's frames (the executable's definition comes first in
 * the global lookup scope, as for ClosedStreamResetFilter.c; Package.swift exports it). While
 * CurlHTTP2Client has asked for pings (pushkit_http2_ping_sessions(1)), each session that passes
 * through here gets one PING submitted before the real function sends, so it leaves with the
 * frames libcurl flushes. The client makes libcurl flush the connections of its transfers by
 * pausing and resuming them (curl_easy_pause resends the stream's window), and counts the pings
 * that went out: when none did, it draws no conclusion from the silence.
 *
 * A server answers a PING at once, however slow its answers to requests are, so a connection
 * that answers nothing at all within a second of one is taken for dead. nghttp2 is looked up at
 * run time (its stable public ABI, nghttp2.h since 1.0), like in ClosedStreamResetFilter.c. */

#define _GNU_SOURCE
#include "HTTP2PingProbe.h"
#include "NGHTTP2Library.h"
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>

typedef struct nghttp2_session nghttp2_session;
typedef int (*pushkit_session_send)(nghttp2_session *);
typedef int (*pushkit_submit_ping)(nghttp2_session *, uint8_t, const uint8_t *);

static pushkit_session_send real_session_send;
static pushkit_submit_ping submit_ping;

/* Per thread: each client is driven by one thread (see CurlHTTP2Client). */
static _Thread_local int pinging;
static _Thread_local unsigned long pings_sent;
static _Thread_local nghttp2_session *pinged[32];
static _Thread_local int pinged_count;

void pushkit_http2_ping_sessions(int on) {
    pinging = on;
    pinged_count = 0;
}

unsigned long pushkit_http2_pings_sent(void) { return pings_sent; }

static void ping_once(nghttp2_session *session) {
    for (int i = 0; i < pinged_count; i++) {
        if (pinged[i] == session) return;
    }
    if (pinged_count == (int)(sizeof(pinged) / sizeof(pinged[0]))) return;
    pinged[pinged_count++] = session;
    /* Flags 0: a PING, not an acknowledgement; no opaque data (eight zero bytes). */
    if (submit_ping != NULL && submit_ping(session, 0, NULL) == 0) pings_sent += 1;
}

int nghttp2_session_send(nghttp2_session *session) {
    if (real_session_send == NULL) {
        void *scope = pushkit_nghttp2_scope("nghttp2_session_send");
        if (scope == NULL) return -902; /* NGHTTP2_ERR_CALLBACK_FAILURE: cannot happen when libcurl called us */
        submit_ping = (pushkit_submit_ping)dlsym(scope, "nghttp2_submit_ping");
        real_session_send = (pushkit_session_send)dlsym(scope, "nghttp2_session_send");
        if (real_session_send == NULL) return -902;
    }
    if (pinging) ping_once(session);
    return real_session_send(session);
}
