/* Keeps libcurl from resetting HTTP/2 streams that are already closed.
 *
 * libcurl 7.88 (Debian 12's, the one this project builds against) ends every finished HTTP/2
 * transfer with RST_STREAM(STREAM_CLOSED): its stream-close handler clears the stream's "closed"
 * flag, and the transfer's clean-up then takes the stream for an unfinished one. So a fan-out to
 * 10,000 devices also sends 10,000 resets, which
 *   - breaks RFC 9113 §5.1 (nothing but PRIORITY may be sent on a closed stream);
 *   - looks like the "rapid reset" attack (CVE-2023-44487) to servers that guard against it:
 *     SwiftNIO's HTTP/2 (and so apns-emulator) answers GOAWAY ENHANCE_YOUR_CALM after 200 resets
 *     in 30 s, so send-push had to reconnect (new TLS handshake) every 200 pushes;
 *   - doubles the frames written per push.
 *
 * libcurl calls nghttp2's public nghttp2_submit_rst_stream through its PLT. Defining the same
 * symbol in the executable takes precedence (the executable comes first in the global lookup
 * scope; Package.swift has the linker export the definition, since libcurl is loaded at run time
 * and no linked library references it). This version
 * drops the request only when nghttp2 itself no longer has the stream open (closed, or already
 * forgotten), and otherwise forwards to the real function, so a reset of a live stream (a transfer
 * abandoned at the deadline) still goes out. Newer libcurl releases do not make the call at all,
 * so the filter is then never reached for closed streams. nghttp2 is looked up at run time, so
 * neither its headers nor a link against it are needed; the declarations below follow its stable
 * public ABI (nghttp2.h, since 1.0). */

#define _GNU_SOURCE
#include "NGHTTP2Library.h"
#include <dlfcn.h>
#include <stdint.h>
#include <stddef.h>

typedef struct nghttp2_session nghttp2_session;
typedef struct nghttp2_stream nghttp2_stream;

enum { pushkit_nghttp2_stream_state_closed = 7 }; /* NGHTTP2_STREAM_STATE_CLOSED */

typedef int (*pushkit_submit_rst_stream)(nghttp2_session *, uint8_t, int32_t, uint32_t);
typedef nghttp2_stream *(*pushkit_find_stream)(nghttp2_session *, int32_t);
typedef int (*pushkit_stream_get_state)(nghttp2_stream *);

static pushkit_submit_rst_stream real_submit_rst_stream;
static pushkit_find_stream find_stream;
static pushkit_stream_get_state stream_get_state;

int nghttp2_submit_rst_stream(nghttp2_session *session, uint8_t flags, int32_t stream_id, uint32_t error_code) {
    /* One thread drives a client (see CurlHTTP2Client), so plain lazy look-ups are enough. */
    if (real_submit_rst_stream == NULL) {
        void *scope = pushkit_nghttp2_scope("nghttp2_submit_rst_stream");
        if (scope == NULL) return -501; /* NGHTTP2_ERR_INVALID_ARGUMENT: cannot happen when libcurl called us */
        real_submit_rst_stream = (pushkit_submit_rst_stream)dlsym(scope, "nghttp2_submit_rst_stream");
        find_stream = (pushkit_find_stream)dlsym(scope, "nghttp2_session_find_stream");
        stream_get_state = (pushkit_stream_get_state)dlsym(scope, "nghttp2_stream_get_state");
        if (real_submit_rst_stream == NULL) return -501; /* NGHTTP2_ERR_INVALID_ARGUMENT: cannot happen when libcurl called us */
    }
    if (stream_id > 0 && find_stream != NULL && stream_get_state != NULL) {
        nghttp2_stream *stream = find_stream(session, stream_id);
        if (stream == NULL || stream_get_state(stream) == pushkit_nghttp2_stream_state_closed) {
            return 0;
        }
    }
    return real_submit_rst_stream(session, flags, stream_id, error_code);
}
