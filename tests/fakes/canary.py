"""A canary service on loopback: what a hostile app would love to reach.

``running()`` starts, on 127.0.0.1 and free ports,

* one TCP port that speaks HTTP (any method, any path: the HTTP token, with
  ``Access-Control-Allow-Origin: *`` so that any page could read it; paths ending in
  ``.js`` get ``var leaked = "<token>";`` so ``importScripts`` and ``<script>`` leak it
  too) and WebSocket (an upgrade is answered and the WebSocket token sent at once);
  a TURN-over-TCP client connecting here is recorded as a connection;
* one UDP port answering STUN binding requests (a success response with a mapped
  address), so a WebRTC page that reaches it would get a server-reflexive candidate.

Every connection, request and datagram is recorded (``Canary.hits``): a test asserts
there are none, which is stronger than "the token did not leak" — nothing reached the
service at all. Tokens are random per run; apps never see them except by reaching the
service.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import hashlib
import secrets
import socket
import struct
import threading
from typing import Iterator

WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
STUN_COOKIE = 0x2112A442


@dataclasses.dataclass
class Canary:
    host: str
    tcp_port: int
    udp_port: int
    http_token: str
    ws_token: str
    hits: list[str] = dataclasses.field(default_factory=list)
    _lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)

    @property
    def address(self) -> str:
        """host:port of the HTTP/WebSocket/TCP side."""
        return f"{self.host}:{self.tcp_port}"

    def record(self, what: str) -> None:
        with self._lock:
            self.hits.append(what)

    def recorded(self) -> list[str]:
        with self._lock:
            return list(self.hits)


def _read_head(conn: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data and len(data) < 65536:
        chunk = conn.recv(4096)
        if not chunk:
            break
        data += chunk
    return data


def _ws_frame(text: str) -> bytes:
    payload = text.encode()
    assert len(payload) < 126
    return bytes([0x81, len(payload)]) + payload


def _serve_tcp(canary: Canary, conn: socket.socket, peer: tuple) -> None:
    with conn:
        conn.settimeout(5.0)
        canary.record(f"tcp connection from {peer[0]}:{peer[1]}")
        try:
            head = _read_head(conn)
        except OSError:
            return
        if not head:
            return
        lines = head.split(b"\r\n")
        request = lines[0].decode("latin-1", "replace")
        headers = {}
        for line in lines[1:]:
            name, _, value = line.decode("latin-1", "replace").partition(":")
            headers[name.strip().lower()] = value.strip()
        canary.record(f"request {request}")
        if headers.get("upgrade", "").lower() == "websocket":
            key = headers.get("sec-websocket-key", "")
            accept = base64.b64encode(hashlib.sha1((key + WS_GUID).encode()).digest()).decode()
            conn.sendall((
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Accept: {accept}\r\n\r\n").encode() + _ws_frame(canary.ws_token))
            with contextlib.suppress(OSError):
                conn.recv(1024)
            return
        path = request.split(" ")[1] if " " in request else "/"
        if path.split("?")[0].endswith(".js"):
            body, kind = f'var leaked = "{canary.http_token}";\n'.encode(), "text/javascript"
        else:
            body, kind = canary.http_token.encode(), "text/plain"
        conn.sendall((
            f"HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {len(body)}\r\n"
            "Access-Control-Allow-Origin: *\r\nAccess-Control-Allow-Headers: *\r\n"
            "Access-Control-Allow-Private-Network: true\r\nConnection: close\r\n\r\n").encode() + body)


def _stun_reply(packet: bytes, peer: tuple) -> bytes | None:
    if len(packet) < 20:
        return None
    kind, _length, cookie = struct.unpack("!HHI", packet[:8])
    if kind != 0x0001 or cookie != STUN_COOKIE:
        return None
    transaction = packet[8:20]
    port = peer[1] ^ (STUN_COOKIE >> 16)
    address = struct.unpack("!I", socket.inet_aton("203.0.113.7"))[0] ^ STUN_COOKIE
    attribute = struct.pack("!HHBBHI", 0x0020, 8, 0, 0x01, port, address)  # XOR-MAPPED-ADDRESS
    return struct.pack("!HHI", 0x0101, len(attribute), STUN_COOKIE) + transaction + attribute


@contextlib.contextmanager
def running(host: str = "127.0.0.1") -> Iterator[Canary]:
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    tcp.bind((host, 0))
    tcp.listen(64)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind((host, 0))
    canary = Canary(host, tcp.getsockname()[1], udp.getsockname()[1],
                    "CANARY-HTTP-" + secrets.token_hex(12), "CANARY-WS-" + secrets.token_hex(12))
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, peer = tcp.accept()
            except OSError:
                return
            threading.Thread(target=_serve_tcp, args=(canary, conn, peer), daemon=True).start()

    def datagrams() -> None:
        while not stop.is_set():
            try:
                packet, peer = udp.recvfrom(2048)
            except OSError:
                return
            if stop.is_set() or peer is None:
                return
            canary.record(f"udp datagram of {len(packet)} bytes from {peer[0]}:{peer[1]}")
            reply = _stun_reply(packet, peer)
            if reply is not None:
                with contextlib.suppress(OSError):
                    udp.sendto(reply, peer)

    threads = [threading.Thread(target=accept, daemon=True), threading.Thread(target=datagrams, daemon=True)]
    for thread in threads:
        thread.start()
    try:
        yield canary
    finally:
        stop.set()
        for sock in (tcp, udp):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
        for thread in threads:
            thread.join(timeout=2)
