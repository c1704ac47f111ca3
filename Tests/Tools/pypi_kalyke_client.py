"""Sends through kalyke-apns (PyPI), a client library nobody here wrote, to apns-emulator.

Usage: python3 pypi_kalyke_client.py BASE_URL CA_FILE KEY_PATH KEY_ID TEAM_ID TOPIC DEVICE_TOKEN

kalyke signs `iat` as a numeric string and opens a new HTTP/2 connection with a freshly signed
provider token for every notification: both are what APNs accepts. The library is used as shipped;
only its base URL (fixed to Apple's hosts) and its TLS trust (to add the emulator's CA) are
redirected, by subclassing. Prints one JSON line per notification: kind, apns_id or error.
"""
import asyncio
import json
import sys
from dataclasses import dataclass

import httpx2
import kalyke
from kalyke import (ApnsConfig, ApnsPushType, LiveActivityApnsConfig, LiveActivityEvent, LiveActivityPayload,
                    Payload, PayloadAlert, VoIPApnsConfig)
from kalyke.models import CriticalSound, InterruptionLevel

BASE_URL, CA_FILE, KEY_PATH, KEY_ID, TEAM_ID, TOPIC, DEVICE = sys.argv[1:8]


def redirected(client_class):
    @dataclass(frozen=True)
    class Redirected(client_class):
        @property
        def _base_url(self) -> str:
            return BASE_URL

        def _init_client(self, apns_config):
            headers = apns_config.make_headers()
            headers["authorization"] = f"bearer {self._make_authorization()}"
            return httpx2.AsyncClient(headers=headers, http2=True, verify=CA_FILE)
    return Redirected


async def main() -> None:
    arguments = dict(use_sandbox=False, team_id=TEAM_ID, auth_key_id=KEY_ID, auth_key_filepath=KEY_PATH)
    sends = [
        ("alert", redirected(kalyke.ApnsClient)(**arguments),
         Payload(alert=PayloadAlert(title="kalyke", body="an alert"), badge=1, sound="default"),
         ApnsConfig(topic=TOPIC)),
        ("background", redirected(kalyke.ApnsClient)(**arguments),
         Payload(content_available=True),
         ApnsConfig(topic=TOPIC, push_type=ApnsPushType.BACKGROUND, priority=kalyke.ApnsPriority.BASED_ON_POWER)),
        ("liveactivity", redirected(kalyke.LiveActivityClient)(**arguments),
         LiveActivityPayload(event=LiveActivityEvent.UPDATE, content_state={"progress": 0.5}),
         LiveActivityApnsConfig(topic=TOPIC + ".push-type.liveactivity")),
        ("voip", redirected(kalyke.VoIPClient)(**arguments),
         {"caller": "kalyke"},
         VoIPApnsConfig(topic=TOPIC + ".voip")),
        # kalyke's CriticalSound as its own dict(): the object itself is handed to httpx's JSON
        # encoder unconverted, which cannot write it (kalyke-apns 1.5.0).
        ("critical", redirected(kalyke.ApnsClient)(**arguments),
         Payload(alert=PayloadAlert(title="kalyke", body="a critical alert"),
                 sound=CriticalSound(critical=True, name="default", volume=0.6).dict(),
                 interruption_level=InterruptionLevel.CRITICAL),
         ApnsConfig(topic=TOPIC)),
    ]
    for kind, client, payload, config in sends:
        try:
            apns_id = await client.send_message(device_token=DEVICE, payload=payload, apns_config=config)
            print(json.dumps({"kind": kind, "apns_id": apns_id}), flush=True)
        except Exception as error:  # report, so the test names what failed
            print(json.dumps({"kind": kind, "error": f"{type(error).__name__}: {error}"}), flush=True)


asyncio.run(main())
