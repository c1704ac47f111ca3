#ifndef PUSHKIT_MULTI_EVENTS_H
#define PUSHKIT_MULTI_EVENTS_H

#include <curl/curl.h>
#include <poll.h>

/* Drives a libcurl multi handle through its event interface (curl_multi_socket_action): libcurl
   says which sockets to watch and when its next timer is due, and is told which socket became
   ready. curl_multi_perform, by contrast, runs every transfer on every call. */
typedef struct pushkit_multi_events {
    struct pollfd watched[32];
    int watchedCount;
    /* When libcurl's timer is due, in CLOCK_MONOTONIC milliseconds; -1 when none is set. */
    long long timerDue;
} pushkit_multi_events;

/* Installs the socket and timer callbacks of `multi`, reporting to `events` (which must outlive it). */
void pushkit_multi_watch_events(CURLM *multi, pushkit_multi_events *events);

/* Waits at most `maximumWait` milliseconds for a watched socket or libcurl's timer, then hands
   libcurl what happened: each ready socket, and the timer when it is due. */
void pushkit_multi_wait_and_act(CURLM *multi, pushkit_multi_events *events, int maximumWait);

#endif
