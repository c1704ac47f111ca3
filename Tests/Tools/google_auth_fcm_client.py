"""Gets an access token from apns-emulator with google-auth (PyPI), Google's own client library for
service accounts, and sends through the emulator's FCM HTTP v1 route with requests (PyPI).

Usage: python3 google_auth_fcm_client.py FCM_URL SERVICE_ACCOUNT_FILE DEVICE_TOKEN [SCRIPTED_TOKEN...]

The TLS trust comes from REQUESTS_CA_BUNDLE (the emulator's CA file), which both libraries honour.
The library is used as shipped: it reads the service account file the emulator wrote, signs an RS256
assertion for the file's token_uri (the emulator's /token) and posts the JWT-bearer grant. Prints one
JSON line per step: the token (whether it is valid, never its value), a good send, a send with a
bad message, one with an unknown member, then two sends to each SCRIPTED_TOKEN (with the Retry-After
header answered).
"""
import json
import sys

import google.auth.transport.requests
import requests
from google.oauth2 import service_account

FCM_URL, ACCOUNT_FILE, DEVICE = sys.argv[1:4]
SCRIPTED = sys.argv[4:]
SCOPE = "https://www.googleapis.com/auth/firebase.messaging"

credentials = service_account.Credentials.from_service_account_file(ACCOUNT_FILE, scopes=[SCOPE])
credentials.refresh(google.auth.transport.requests.Request())
print(json.dumps({"step": "token", "valid": credentials.valid, "has_token": bool(credentials.token),
                  "expiry": credentials.expiry.isoformat() if credentials.expiry else None}), flush=True)

url = f"{FCM_URL}/v1/projects/{credentials.project_id}/messages:send"
headers = {"Authorization": f"Bearer {credentials.token}", "Content-Type": "application/json"}


def send(step, body):
    answer = requests.post(url, headers=headers, data=json.dumps(body), timeout=10)
    print(json.dumps({"step": step, "status": answer.status_code, "retry_after": answer.headers.get("Retry-After"),
                      "body": answer.json()}), flush=True)


send("good", {"message": {"token": DEVICE, "notification": {"title": "Hi", "body": "From google-auth"},
                          "data": {"kind": "greeting"}}})
send("bad", {"message": {"token": DEVICE, "data": {"count": 3}}})
send("unknown", {"message": {"token": DEVICE, "notifcation": {"title": "typo"}}})
for token in SCRIPTED:
    for attempt in (1, 2):
        send(f"scripted {attempt}", {"message": {"token": token, "data": {"attempt": str(attempt)}}})
