#!/usr/bin/env python3
"""A loopback HTTP server for CrashShield's upload tests.

    upload_server.py --record FILE [--port N] [--plan BEHAVIOUR,BEHAVIOUR,...]

Prints "PORT <n>" on its first stdout line once listening on 127.0.0.1. Each request takes the next behaviour of the
plan (then "ok" for good):
  ok            read the body, answer 200
  500 | 400     answer that status
  429:S / 503:S answer that status with "Retry-After: S" (seconds)
  429date:S     answer 429 with Retry-After as an HTTP-date S seconds ahead
  limits:N:H    answer status N with "X-Sentry-Rate-Limits: H" ('|' in H stands for ','); "processed" when N is 2xx
  slow:S        read the body, sleep S seconds, then answer 200 (the client has given up by then)
  close         read the body, start a 200 response announcing 100 bytes, send 10 and close the connection
Every request is appended to FILE as one JSON line: time, behaviour, path, headers, the body gunzipped when
Content-Encoding is gzip (base64 in "body"), and "processed": true when the server took the body as delivered
(ok and slow). Lines are written when the request is done.
"""
import argparse, base64, email.utils, gzip, json, socket, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

parser = argparse.ArgumentParser()
parser.add_argument("--record", required=True)
parser.add_argument("--port", type=int, default=0)
parser.add_argument("--plan", default="")
args = parser.parse_args()
plan = [step for step in args.plan.split(",") if step]
lock = threading.Lock()


def next_behaviour():
    with lock:
        return plan.pop(0) if plan else "ok"


def record(entry):
    with lock, open(args.record, "a") as out:
        out.write(json.dumps(entry) + "\n")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *_):
        pass

    def do_POST(self):
        behaviour = next_behaviour()
        started = time.time()
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        body = gzip.decompress(raw) if self.headers.get("Content-Encoding") == "gzip" else raw
        name, _, value = behaviour.partition(":")
        processed = name in ("ok", "slow") or (name == "limits" and value.startswith("2"))
        if name == "slow":
            time.sleep(float(value))
        entry = {"time": started, "behaviour": behaviour, "path": self.path, "headers": dict(self.headers.items()),
                 "body": base64.b64encode(body).decode(), "processed": processed}
        try:
            if name == "close":
                self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\nContent-Type: application/json\r\n\r\n")
                self.wfile.write(b'{"ok": tru')
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True
                return
            headers = {}
            if name in ("ok", "slow"):
                status = 200
            elif name == "limits":
                code, _, limits = value.partition(":")
                status = int(code)
                headers["X-Sentry-Rate-Limits"] = limits.replace("|", ",")
            elif name == "429date":
                status = 429
                headers["Retry-After"] = email.utils.formatdate(time.time() + float(value), usegmt=True)
            else:
                status = int(name)
                if value:
                    headers["Retry-After"] = value
            payload = b"{}"
            self.send_response(status)
            for key, header in headers.items():
                self.send_header(key, header)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            record(entry)


server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
server.daemon_threads = True
print("PORT", server.server_address[1], flush=True)
server.serve_forever()
