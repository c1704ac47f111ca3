#ifndef PUSHKIT_MULTI_EVENTS_H
#define PUSHKIT_MULTI_EVENTS_H

#include <curl/curl.h>
#include <poll.h>

/* Drives a libcurl multi handle through its event interface (curl_multi_socket_action): libcurl
   says which sockets to watch and when its next timer is due, and is told which socket became
   ready. curl_multi_perform, by contrast, runs every transfer on every call. */
typedef struct pushkit_multi_events {
    struct pollfd watched[32];
    /* When each watched socket last had something to read (or was first watched), in
       CLOCK_MONOTONIC milliseconds; kept in step with `watched`. */
    long long lastInput[32];
    int watchedCount;
    /* `lastInput` of sockets libcurl stopped watching (an idle connection kept for reuse), so a
       connection watched again after an idle time is known to be quiet. */
    int restingFd[8];
    long long restingInput[8];
    int restingNext;
    /* When libcurl's timer is due, in CLOCK_MONOTONIC milliseconds; -1 when none is set. */
    long long timerDue;
} pushkit_multi_events;

/* Installs the socket and timer callbacks of `multi`, reporting to `events` (which must outlive it). */
void pushkit_multi_watch_events(CURLM *multi, pushkit_multi_events *events);

/* Waits at most `maximumWait` milliseconds for a watched socket or libcurl's timer, then hands
   libcurl what happened: each ready socket, and the timer when it is due. */
void pushkit_multi_wait_and_act(CURLM *multi, pushkit_multi_events *events, int maximumWait);

/* CLOCK_MONOTONIC in milliseconds: the clock of `timerDue` and `lastInput`. */
long long pushkit_multi_milliseconds(void);

/* The earliest `lastInput` of the watched sockets libcurl reads from (that of the connection
   quiet for longest); -1 when there are none. */
long long pushkit_multi_quietest_input(const pushkit_multi_events *events);

/* Shuts down (both directions, see shutdown(2)) every watched socket libcurl reads from that has
   had nothing to read since `since` and has nothing waiting to be read now (one that has is noted
   as heard from at `now` instead); returns how many. libcurl then finds each at its end and fails
   the transfers on it. */
int pushkit_multi_shut_quiet_sockets(pushkit_multi_events *events, long long since, long long now);

#endif
