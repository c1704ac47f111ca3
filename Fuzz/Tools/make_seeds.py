#!/usr/bin/env python3
"""Writes the hand-made seed inputs of each fuzz target into Fuzz/Corpus/<target>/seed-*.

Run once to (re)create the seeds; fuzzing adds its own files (named by their SHA-1) beside them.
The emulator seeds carry provider tokens signed by the fuzz fixture key (FuzzFixtures.swift) at the
fixed instant the targets judge against, so they reach the checks past authentication.
"""
import base64, json, os, sys

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Corpus")
NOW = 1714564800  # FuzzTarget.now, 2024-05-01T12:00:00Z
TOKEN_A = "ab" * 32
TOKEN_B = "0123456789abcdef" * 4
TOKEN_C = "cd" * 16
FIXTURE_KEY = """-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg1zNjx58gVbXCN36e
Gi63DhI+/finFql4FIpzwycfGjahRANCAAQZqHl/ZruHxeWBsrXztnf2TurApqmV
+Llg/p/iqcVDNAgI/RoqtTMVsrzOR2m/uTljBMLGrh6uGKV7mlxaNZBB
-----END PRIVATE KEY-----
"""


def write(target, name, content):
    directory = os.path.join(CORPUS, target)
    os.makedirs(directory, exist_ok=True)
    data = content.encode() if isinstance(content, str) else content
    with open(os.path.join(directory, "seed-" + name), "wb") as f:
        f.write(data)


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def provider_token(iat=NOW, kid="FUZZKEY123", iss="FUZZTEAM12", alg="ES256"):
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec, utils
    key = serialization.load_pem_private_key(FIXTURE_KEY.encode(), password=None)
    header = b64url(json.dumps({"alg": alg, "kid": kid}, separators=(",", ":")).encode())
    claims = b64url(json.dumps({"iss": iss, "iat": iat}, separators=(",", ":")).encode())
    signing_input = f"{header}.{claims}".encode()
    r, s = utils.decode_dss_signature(key.sign(signing_input, ec.ECDSA(hashes.SHA256())))
    return f"{header}.{claims}.{b64url(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}"


def state_file():
    t = "state-file"
    write(t, "v1-full.json", json.dumps({"version": 1, "devices": {"ipad": {
        "token": TOKEN_A.upper(), "environment": "sandbox", "name": "Sven's iPad", "model": "iPad13,1",
        "os_version": "17.4", "app_version": "2.0", "groups": ["beta", "staff"], "push_to_start_token": TOKEN_C,
        "registered_at": "2024-05-01T12:00:00Z", "last_seen_at": "2024-05-02T12:00:00.500+02:00", "last_delivered_at": None}}}, indent=2))
    write(t, "v1-minimal.json", '{"version":1,"devices":{"a":{"token":"%s"}}}' % TOKEN_B)
    write(t, "v1-unknown-fields.json", '{"version": 1, "future": {"x": [1, "two", 1.5e3, true, null]}, "agents": {"k": {"cwd": "/tmp", "display_name": "A"}}, "devices": {\n'
          '  "b": {"token": "%s", "push_count": 3, "labels": {"color": "red"}},\n  "a": {"token": "%s", "environment": "development"}}}' % (TOKEN_B, TOKEN_A))
    write(t, "legacy-flat.json", '{"phone": "%s", "ipad": "%s"}' % (TOKEN_A, TOKEN_B))
    write(t, "empty.json", "")
    write(t, "whitespace.json", " \n\t\r\n")
    write(t, "jsonlines-import.jsonl", '{"device_id":"a","token":"%s","groups":["x"]}\n{"device_id":"b","token":"%s","environment":"production"}\n' % (TOKEN_A, TOKEN_B))
    write(t, "bad-version.json", '{"version": 2, "devices": {}}')
    write(t, "bad-no-version.json", '{"devices": {}}')
    write(t, "bad-flat-token.json", '{"phone": "xyz"}')
    write(t, "bad-trailing-comma.json", '{"version": 1, "devices": {},}')
    write(t, "bad-deep.json", "[" * 600 + "]" * 600)
    write(t, "bad-escapes.json", '{"version": 1, "devices": {"\\ud800": {"token": "%s", "name": "\\u00e9\\n\\"q\\" \\uD83D\\uDE00"}}}' % TOKEN_A)
    write(t, "bad-date.json", '{"version": 1, "devices": {"a": {"token": "%s", "registered_at": "2024-02-30T00:00:00Z"}}}' % TOKEN_A)
    write(t, "bad-number.json", '{"version": 1e400, "devices": {}}')
    write(t, "bad-utf8.json", b'{"version": 1, "devices": {"\xff\xfe": {"token": "' + TOKEN_A.encode() + b'"}}}')


def config():
    t = "config"
    write(t, "classic.json", json.dumps({"team_id": "ABCDE12345", "key_id": "KEY1234567", "bundle_id": "com.example.app",
                                         "key_path": "~/AuthKey.p8", "use_sandbox": True}))
    write(t, "full.json", json.dumps({"environment": "production", "production_url": "https://api.push.apple.com",
                                      "sandbox_url": "http://127.0.0.1:2197", "ca_file": "/etc/ca.pem", "proxy": "http://user:pw@proxy:3128",
                                      "state_dir": "~/state", "state_file": "/var/lib/devices.json", "title": "Hi", "topic": "com.x",
                                      "quiet_hours": {"start": "22:00", "end": "7:05", "timezone": "Europe/Berlin"},
                                      "quiet_policy": "skip", "min_interval_seconds": 60,
                                      "urgency_categories": {"high": "URGENT", "low": "FYI"}, "log_max_bytes": 4096}, indent=1))
    write(t, "unknown-keys.json", '{"colour": "blue", "team_id": null}')
    write(t, "bad-types.json", '{"team_id": 5, "use_sandbox": "maybe"}')
    write(t, "bad-environment.json", '{"environment": "staging"}')
    write(t, "bad-url.json", '{"production_url": "ftp://x"}')
    write(t, "bad-proxy.json", '{"proxy": "socks9://[::1"}')
    write(t, "bad-quiet.json", '{"quiet_hours": {"start": "24:00", "end": "07:00", "timezone": "../etc/passwd"}}')
    write(t, "bad-quiet-zone.json", '{"quiet_hours": {"start": "22:00", "end": "07:00", "timezone": "Mars/Olympus"}}')
    write(t, "bad-urgency.json", '{"urgency_categories": {"urgent": "X"}, "min_interval_seconds": -1}')
    write(t, "bad-array.json", '[{"team_id": "A"}]')
    write(t, "bad-json.json", '{"team_id": "A",}')


def payload():
    t = "payload"
    write(t, "alert.json", '{"aps": {"alert": {"title": "Hi", "body": "There"}, "badge": 1, "sound": "default"}, "message_id": "42"}')
    write(t, "simulator.apns", json.dumps({"Simulator Target Bundle": "com.example.app", "aps": {"alert": "Hello", "interruption-level": "time-sensitive"}}, indent=4))
    write(t, "simulator-number-bundle.apns", '{"Simulator Target Bundle": 7, "aps": {}}')
    write(t, "background.json", '{"aps": {"content-available": 1}, "data": [1, 2.5, -3e-7, null, false]}')
    write(t, "bad-no-aps.json", '{"data": {}}')
    write(t, "bad-aps-string.json", '{"aps": "alert"}')
    write(t, "bad-array.json", '[{"aps": {}}]')
    write(t, "bad-json.json", '{"aps": {"alert": "x"}')
    write(t, "bad-too-large.json", '{"aps": {"alert": "%s"}}' % ("x" * 5000))
    write(t, "unicode.json", '{"aps": {"alert": "\\u00e9\\ud83d\\ude00 \\u0000"}, "k\\"": "\\/"}')


def data():
    t = "data"
    write(t, "one.txt", '{"message_id":"42"}')
    write(t, "two.txt", '{"a":1}\x00{"a":2,"b":[true]}')
    write(t, "bad-aps.txt", '{"aps":{"badge":1}}')
    write(t, "bad-array.txt", '[1,2]')
    write(t, "bad-text.txt", 'message_id=42')
    write(t, "empty-object.txt", '{}')
    write(t, "big.txt", '{"blob":"%s"}' % ("y" * 4200))


def registration():
    t = "registration"
    write(t, "app-id.json", json.dumps({"device_token": "install-1", "apns_token": TOKEN_A, "device_name": "Phone",
                                        "device_model": "iPhone15,2", "os_version": "17.4", "app_version": "1.2",
                                        "environment": "sandbox", "groups": ["beta"], "push_to_start_token": TOKEN_C}))
    write(t, "token-only.json", json.dumps({"device_token": TOKEN_B, "name": "iPad", "model": "iPad13,1"}))
    write(t, "array.json", json.dumps([{"device_token": TOKEN_A}, {"device_token": "x", "apns_token": TOKEN_B, "groups": []}]))
    write(t, "lines.jsonl", '{"device_token": "%s"}\n\n{"device_token": "%s", "environment": "production"}\n' % (TOKEN_A, TOKEN_B))
    write(t, "bad-token.json", '{"device_token": "not-hex"}')
    write(t, "bad-missing.json", '{"apns_token": "%s"}' % TOKEN_A)
    write(t, "bad-groups.json", '{"device_token": "%s", "groups": ["a,b"]}' % TOKEN_A)
    write(t, "bad-id.json", '{"device_token": "a\\nb", "apns_token": "%s"}' % TOKEN_A)
    write(t, "bad-second-line.jsonl", '{"device_token": "%s"}\n{oops\n' % TOKEN_A)
    write(t, "empty.json", "\n")


def endpoint():
    t = "endpoint"
    write(t, "register.json", json.dumps({"device_token": "install-1", "apns_token": TOKEN_A, "device_name": "Phone", "groups": ["g"]}))
    write(t, "hook-register.json", json.dumps({"action": "register", "device_token": TOKEN_A, "environment": "sandbox"}))
    write(t, "hook-unregister.json", json.dumps({"action": "unregister", "apns_token": TOKEN_A}))
    write(t, "subscribe.json", json.dumps({"cwd": "/home/me/project", "installation_id": "inst", "apns_token": TOKEN_B,
                                           "agent_display_name": "Claude", "groups": ["x"]}))
    write(t, "notify.json", json.dumps({"title": "Build", "message": "done", "subtitle": "ci", "category": "C", "badge": 3, "data": {"url": "/x"}}))
    write(t, "reply-finished.json", json.dumps({"cwd": "/home/me/project/", "conversation_id": "c1", "message_preview": "All tests pass " * 10,
                                                "finished_at": "2024-05-01T12:00:00Z"}))
    write(t, "bad-badge.json", '{"title": "x", "badge": -1.5}')
    write(t, "bad-data-aps.json", '{"body": "x", "data": {"aps": {}}}')
    write(t, "bad-action.json", '{"action": "delete"}')
    write(t, "path-token.txt", "/api/v1/notifications/send/%ab%zz")
    write(t, "path-device.txt", "/api/v1/devices/" + TOKEN_A + "//")
    write(t, "bad-json.txt", "{\"title\": ")


def apns_error():
    t = "apns-error"
    write(t, "bad-device-token.json", '{"reason":"BadDeviceToken"}')
    write(t, "unregistered.json", '{"reason":"Unregistered","timestamp":%d}' % (NOW * 1000 + 500))
    write(t, "old-timestamp.json", '{"reason":"ExpiredToken","timestamp":1000}')
    write(t, "huge-timestamp.json", '{"reason":"Unregistered","timestamp":1.7e308}')
    write(t, "negative-timestamp.json", '{"reason":"Unregistered","timestamp":-9e18}')
    write(t, "unknown-reason.json", '{"reason":"SomethingNew","extra":[1]}')
    write(t, "reason-number.json", '{"reason":429}')
    write(t, "empty.txt", "")
    write(t, "html.txt", "<html><body>502 Bad Gateway</body></html>")


def provider_key():
    t = "provider-key"
    write(t, "pkcs8.p8", FIXTURE_KEY)
    write(t, "pkcs8-crlf.p8", "\r\n" + FIXTURE_KEY.replace("\n", "\r\n") + "\r\n")
    write(t, "sec1.pem", "-----BEGIN EC PRIVATE KEY-----\n"
          "MHcCAQEEIMgyugw7d6kYezVcrOXrkd8H/eepno99FhPpcb93Q1RjoAoGCCqGSM49\n"
          "AwEHoUQDQgAEGPDAkUBLVvPuvTDFQFUFQgnrR34MlA6AfMZhI3eow4tEsFz0BbMZ\n"
          "GxOH1eRBHAHtjbR2lwINO48AxJOB4/H7Yw==\n-----END EC PRIVATE KEY-----\n")
    write(t, "p384.pem", "-----BEGIN PRIVATE KEY-----\n"
          "MIG2AgEAMBAGByqGSM49AgEGBSuBBAAiBIGeMIGbAgEBBDC7t9qoBKFwuB976z/8\n"
          "9oQ4VgDy4h4QlniktG8SPjYiXMgR53aPL4CF3DsloOzWWLWhZANiAAToNmfoqTf6\n"
          "FCTspvv+mbRi/rAckJUyYLZyKla3rbKIGu3p0xLtA+VlkL0TCzdA9YWZzgGlyBNW\n"
          "lSIRhf3H9dpNdXrvR8ZPy9+wrn5wsVEsN1PGtTXGvvy1wfbcxp2SAUI=\n-----END PRIVATE KEY-----\n")
    write(t, "public.pem", "-----BEGIN PUBLIC KEY-----\n"
          "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEGah5f2a7h8XlgbK187Z39k7qwKap\n"
          "lfi5YP6f4qnFQzQICP0aKrUzFbK8zkdpv7k5YwTCxq4erhile5pcWjWQQQ==\n-----END PUBLIC KEY-----\n")
    write(t, "encrypted.pem", "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIGHAgEA\n-----END ENCRYPTED PRIVATE KEY-----\n")
    write(t, "truncated.p8", FIXTURE_KEY[:120])
    write(t, "not-pem.txt", "AuthKey_ABC123.p8\n")
    write(t, "not-utf8.bin", b"-----BEGIN PRIVATE KEY-----\n\xff\xfe\n-----END PRIVATE KEY-----\n")


def emulator_request():
    t = "emulator-request"
    good = provider_token()
    def request(method="POST", path="/3/device/" + TOKEN_A, headers=None, body='{"aps":{"alert":"hi"}}'):
        headers = headers if headers is not None else [("authorization", "bearer " + good), ("apns-topic", "com.example.app"),
                                                       ("apns-push-type", "alert"), ("apns-priority", "10")]
        return method + "\n" + path + "\n" + "".join(f"{n}: {v}\n" for n, v in headers) + "\n" + body
    write(t, "accepted.txt", request())
    write(t, "accepted-full.txt", request(headers=[("authorization", "bearer " + good), ("apns-topic", "com.example.app.voip"),
                                                   ("apns-push-type", "voip"), ("apns-priority", "5"), ("apns-collapse-id", "c"),
                                                   ("apns-id", "0a1b2c3d-0000-4000-8000-000000000001"), ("apns-expiration", "0")],
                                          body='{"caller":"x"}'))
    write(t, "background.txt", request(headers=[("authorization", "bearer " + good), ("apns-topic", "com.example.app"),
                                                ("apns-push-type", "background"), ("apns-priority", "10")], body='{"aps":{"content-available":1}}'))
    write(t, "iat-string.txt", request(headers=[("authorization", "bearer " + provider_token(iat=str(NOW))), ("apns-topic", "com.example.app")]))
    write(t, "expired.txt", request(headers=[("authorization", "bearer " + provider_token(iat=NOW - 7200)), ("apns-topic", "com.example.app")]))
    write(t, "wrong-kid.txt", request(headers=[("authorization", "bearer " + provider_token(kid="OTHER")), ("apns-topic", "com.example.app")]))
    write(t, "duplicate.txt", request(headers=[("authorization", "bearer " + good), ("apns-topic", "a"), ("apns-topic", "b")]))
    write(t, "get.txt", request(method="GET"))
    write(t, "bad-path.txt", request(path="/3/devices/x"))
    write(t, "no-token.txt", request(headers=[("apns-topic", "com.example.app")]))
    write(t, "bad-body.txt", request(body='{"aps": "x"}'))
    write(t, "jwt-only.txt", good)
    write(t, "jwt-garbage.txt", "bearer a.b.c")


if __name__ == "__main__":
    for make in (state_file, config, payload, data, registration, endpoint, apns_error, provider_key, emulator_request):
        make()
    print("seeds written under", os.path.normpath(CORPUS), file=sys.stderr)
