#include "MultiEvents.h"
#include "LoadedCalls.h"
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

enum { pushkit_watched_capacity = sizeof(((pushkit_multi_events *)0)->watched) / sizeof(struct pollfd) };

long long pushkit_multi_milliseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static long long monotonic_milliseconds(void) { return pushkit_multi_milliseconds(); }

enum { pushkit_resting_capacity = sizeof(((pushkit_multi_events *)0)->restingFd) / sizeof(int) };

static void rest(pushkit_multi_events *events, curl_socket_t fd, long long lastInput) {
    for (int i = 0; i < pushkit_resting_capacity; i++) {
        if (events->restingFd[i] == fd) events->restingInput[i] = 0;
    }
    events->restingFd[events->restingNext] = fd;
    events->restingInput[events->restingNext] = lastInput;
    events->restingNext = (events->restingNext + 1) % pushkit_resting_capacity;
}

/* The last input of a socket watched again, or now for one never seen (a new connection is not
   yet quiet). A number the kernel reused for a new connection may inherit an old time: that only
   makes its first requests bring a PING along. */
static long long wake(pushkit_multi_events *events, curl_socket_t fd) {
    for (int i = 0; i < pushkit_resting_capacity; i++) {
        if (events->restingFd[i] == fd && events->restingInput[i] > 0) {
            long long found = events->restingInput[i];
            events->restingInput[i] = 0;
            return found;
        }
    }
    return monotonic_milliseconds();
}

static int on_socket(CURL *easy, curl_socket_t fd, int what, void *context, void *socket_context) {
    (void)easy; (void)socket_context;
    pushkit_multi_events *events = context;
    int index = 0;
    while (index < events->watchedCount && events->watched[index].fd != fd) index++;
    if (what == CURL_POLL_REMOVE) {
        if (index < events->watchedCount) {
            rest(events, fd, events->lastInput[index]);
            events->watchedCount -= 1;
            events->watched[index] = events->watched[events->watchedCount];
            events->lastInput[index] = events->lastInput[events->watchedCount];
        }
        return 0;
    }
    if (index == events->watchedCount) {
        if (events->watchedCount == pushkit_watched_capacity) return -1; /* libcurl fails that socket's transfers */
        events->watchedCount += 1;
        events->watched[index].fd = fd;
        events->lastInput[index] = wake(events, fd);
    }
    events->watched[index].events = (short)(((what & CURL_POLL_IN) ? POLLIN : 0) | ((what & CURL_POLL_OUT) ? POLLOUT : 0));
    events->watched[index].revents = 0;
    return 0;
}

static int on_timer(CURLM *multi, long timeout, void *context) {
    (void)multi;
    pushkit_multi_events *events = context;
    events->timerDue = timeout < 0 ? -1 : monotonic_milliseconds() + timeout;
    return 0;
}

void pushkit_multi_watch_events(CURLM *multi, pushkit_multi_events *events) {
    memset(events, 0, sizeof(*events));
    events->timerDue = -1;
    pushkit_loaded_multi_setopt_pointer(multi, CURLMOPT_SOCKETFUNCTION, (const void *)on_socket);
    pushkit_loaded_multi_setopt_pointer(multi, CURLMOPT_SOCKETDATA, events);
    pushkit_loaded_multi_setopt_pointer(multi, CURLMOPT_TIMERFUNCTION, (const void *)on_timer);
    pushkit_loaded_multi_setopt_pointer(multi, CURLMOPT_TIMERDATA, events);
}

/* TCP_CORK is Linux's; elsewhere the burst simply goes out uncorked. */
static void set_cork(const int *fds, int count, int on) {
#ifdef TCP_CORK
    for (int i = 0; i < count; i++) (void)setsockopt(fds[i], IPPROTO_TCP, TCP_CORK, &on, sizeof(on));
#else
    (void)fds; (void)count; (void)on;
#endif
}

void pushkit_multi_wait_and_act(CURLM *multi, pushkit_multi_events *events, int maximumWait) {
    int wait = maximumWait < 0 ? 0 : maximumWait;
    if (events->timerDue >= 0) {
        long long untilDue = events->timerDue - monotonic_milliseconds();
        if (untilDue < wait) wait = untilDue < 0 ? 0 : (int)untilDue;
    }
    /* libcurl may change the watched set while it acts, so act on a copy. */
    struct pollfd ready[pushkit_watched_capacity];
    int count = events->watchedCount;
    memcpy(ready, events->watched, sizeof(ready[0]) * (size_t)count);
    int running = 0;
    if (poll(ready, (nfds_t)count, wait) > 0) {
        long long now = monotonic_milliseconds();
        for (int i = 0; i < count; i++) {
            short revents = ready[i].revents;
            if (revents == 0) continue;
            if (revents & (POLLIN | POLLPRI | POLLHUP | POLLERR)) {
                for (int j = 0; j < events->watchedCount; j++) {
                    if (events->watched[j].fd == ready[i].fd) events->lastInput[j] = now;
                }
            }
            int mask = ((revents & (POLLIN | POLLPRI | POLLHUP | POLLERR)) ? CURL_CSELECT_IN : 0)
                     | ((revents & POLLOUT) ? CURL_CSELECT_OUT : 0)
                     | ((revents & POLLERR) ? CURL_CSELECT_ERR : 0);
            curl_multi_socket_action(multi, ready[i].fd, mask, &running);
        }
    }
    if (events->timerDue >= 0 && monotonic_milliseconds() >= events->timerDue) {
        events->timerDue = -1; /* libcurl sets the next one while it acts */
        /* The timer is how libcurl starts the transfers added since it last ran: a burst of HEADERS
           and DATA frames, each its own write. Corked, the burst leaves as a few full segments when
           the cork comes off right after, instead of one segment (and one wake-up of the server)
           per frame. Socket events are never corked, so nothing written in answer to the server
           waits. Uncorking is harmless on any descriptor, so a socket libcurl closed meanwhile
           (EBADF), or a number it reused, does no harm. */
        int fds[pushkit_watched_capacity];
        int corked = events->watchedCount;
        for (int i = 0; i < corked; i++) fds[i] = events->watched[i].fd;
        set_cork(fds, corked, 1);
        curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &running);
        set_cork(fds, corked, 0);
    }
}

long long pushkit_multi_quietest_input(const pushkit_multi_events *events) {
    long long earliest = -1;
    for (int i = 0; i < events->watchedCount; i++) {
        if (!(events->watched[i].events & POLLIN)) continue;
        if (earliest < 0 || events->lastInput[i] < earliest) earliest = events->lastInput[i];
    }
    return earliest;
}

int pushkit_multi_shut_quiet_sockets(pushkit_multi_events *events, long long since, long long now) {
    int shut = 0;
    for (int i = 0; i < events->watchedCount; i++) {
        if (!(events->watched[i].events & POLLIN) || events->lastInput[i] >= since) continue;
        /* Bytes waiting unread mean the peer spoke and this process was slow to look: alive. */
        struct pollfd waiting = {.fd = events->watched[i].fd, .events = POLLIN, .revents = 0};
        if (poll(&waiting, 1, 0) > 0 && (waiting.revents & POLLIN)) {
            events->lastInput[i] = now;
            continue;
        }
        /* No FIN or RST may ever come back, so nothing is lost by not waiting for one. */
        if (shutdown(events->watched[i].fd, SHUT_RDWR) == 0) shut += 1;
    }
    return shut;
}
