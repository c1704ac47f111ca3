#ifndef PUSHKIT_HTTP2_PING_PROBE_H
#define PUSHKIT_HTTP2_PING_PROBE_H

/* While `on` is 1, every HTTP/2 session libcurl writes out on this thread gets one PING (see
   HTTP2PingProbe.c); 0 stops it. Each call starts a new round: a session is pinged once per round. */
void pushkit_http2_ping_sessions(int on);

/* How many PINGs this thread has submitted so far. */
unsigned long pushkit_http2_pings_sent(void);

#endif
