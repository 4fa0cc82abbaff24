"""A stand-in for js/server.mjs (an app's own framework server), run by the serving
stage's launcher in place of Node: ``python app_server.py <framework> <app> <socket>``.

What it does is read from ``<app>/mode``: ``serve`` answers on the Unix socket (an
echo of each request as JSON, and a few fixed routes), ``exit`` writes a line and
exits 3 before listening, ``hang`` never listens, ``hog`` grows past any small memory
limit."""

from __future__ import annotations

import http.server
import json
import os
import pathlib
import socket
import socketserver
import sys
import time


class Echo(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:
        pass

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if self.path == "/stream":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            for piece in (b"<p>one</p>", b"<p>two</p>", b"<p>three</p>"):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.flush()
                time.sleep(0.05)
            self.wfile.write(b"0\r\n\r\n")
            return
        if self.path == "/teapot":
            out = b"short and stout"
            self.send_response(418)
            self.send_header("X-Pot", "tea")
            self.send_header("Set-Cookie", "a=1")
            self.send_header("Set-Cookie", "b=2")
            self.send_header("Cache-Control", "max-age=31536000")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(out)
            return
        if self.path == "/die":
            os._exit(7)
        if self.path.startswith("/reach/"):
            port = int(self.path.rsplit("/", 1)[1])
            try:
                socket.create_connection(("127.0.0.1", port), timeout=2).close()
                reached = "reached"
            except OSError as exc:
                reached = f"refused: {exc}"
            body = reached.encode()
        out = json.dumps({"method": self.command, "path": self.path, "body": body.decode("latin-1"),
                          "headers": dict(self.headers.items()), "env": dict(os.environ),
                          "cwd": os.getcwd()}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(out)

    do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _answer


class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


def main() -> None:
    _framework, app, socket_path = sys.argv[1:4]
    mode = (pathlib.Path(app) / "mode").read_text().strip()
    if mode == "exit":
        print("boom: the app's server cannot start", flush=True)
        sys.exit(3)
    if mode == "hang":
        time.sleep(600)
    if mode == "hog":
        hoard = []
        while True:
            hoard.append(bytearray(16 * 2**20))
            time.sleep(0.01)
    with Server(socket_path, Echo) as server:
        print("iwc-server: listening", flush=True)
        server.serve_forever()


if __name__ == "__main__":
    main()
