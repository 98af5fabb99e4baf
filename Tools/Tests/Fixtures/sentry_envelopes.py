#!/usr/bin/env python3
"""Parses Sentry envelopes with the sentry-sdk package's own parser (an implementation independent of CrashShield's).

    sentry_envelopes.py RECORD_FILE

Reads the request log of upload_server.py; for every processed request prints one JSON line:
{"envelope_headers": ..., "items": [{"headers": ..., "type": ..., "event": ...}]}. Exits 2 when sentry-sdk is
missing (pip install sentry-sdk).
"""
import base64, json, sys

try:
    from sentry_sdk.envelope import Envelope
except ImportError:
    print("sentry-sdk is not installed: python3 -m pip install sentry-sdk", file=sys.stderr)
    sys.exit(2)

with open(sys.argv[1]) as records:
    for line in records:
        entry = json.loads(line)
        if not entry["processed"]:
            continue
        envelope = Envelope.deserialize(base64.b64decode(entry["body"]))
        items = [{"headers": item.headers, "type": item.type, "event": item.get_event()} for item in envelope.items]
        print(json.dumps({"envelope_headers": envelope.headers, "items": items,
                          "request_headers": entry["headers"], "path": entry["path"]}))
