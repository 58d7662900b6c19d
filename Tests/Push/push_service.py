#!/usr/bin/env python3
"""A push service stand-in for the tests: HTTPS on 127.0.0.1 with a throwaway
certificate authority, browsers' subscription keys of its own, and for every
push it takes, one JSON line on standard output with what it found: the VAPID
token checked and the payload decrypted, both with independent code
(`cryptography` and `http_ece`, not the server's).

    push_service.py FOLDER COUNT [N=BEHAVIOUR ...]

writes FOLDER/ca.pem, prints {"port", "ca", "subscriptions": [PushSubscription
JSON, ...]} first, then a line per request. BEHAVIOUR for subscription N:
`410` answers 410; `429` answers 429 with Retry-After: 1 the first time, then
201; `hang` never answers. Others answer 201.
"""
import base64
import datetime
import json
import os
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.x509.oid import NameOID
import ipaddress


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def certificate(folder):
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    ca = os.path.join(folder, "ca.pem")
    with open(ca, "wb") as file:
        file.write(cert.public_bytes(serialization.Encoding.PEM))
    keyfile = os.path.join(folder, "ca-key.pem")
    with open(keyfile, "wb") as file:
        file.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    return ca, keyfile


def check_vapid(authorization, audience):
    """What is wrong with the VAPID token, or None when it holds (RFC 8292)."""
    if not authorization or not authorization.startswith("vapid "):
        return "no vapid authorization"
    parts = dict(part.strip().split("=", 1) for part in authorization[len("vapid "):].split(","))
    token, key = parts.get("t"), parts.get("k")
    header, claims, signature = token.split(".")
    if json.loads(unb64url(header)) != {"typ": "JWT", "alg": "ES256"}:
        return "header " + unb64url(header).decode()
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(key))
    raw = unb64url(signature)
    if len(raw) != 64:
        return "signature of %d bytes" % len(raw)
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    try:
        public.verify(der, (header + "." + claims).encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        return "the signature does not verify"
    body = json.loads(unb64url(claims))
    if body.get("aud") != audience:
        return "aud %r, not %r" % (body.get("aud"), audience)
    if not time.time() < body.get("exp", 0) <= time.time() + 24 * 3600:
        return "exp %r" % body.get("exp")
    if not str(body.get("sub", "")).startswith(("mailto:", "https:")):
        return "sub %r" % body.get("sub")
    return None


def main():
    folder, count = sys.argv[1], int(sys.argv[2])
    behaviours = dict(item.split("=", 1) for item in sys.argv[3:])
    ca, keyfile = certificate(folder)
    browsers = []
    for _ in range(count):
        private = ec.generate_private_key(ec.SECP256R1())
        point = private.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        browsers.append({"private": private, "p256dh": point, "auth": os.urandom(16)})
    answered_429 = set()
    output = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            index = int(self.path.rsplit("/", 1)[1])
            behaviour = behaviours.get(str(index), "")
            record = {"subscription": index, "ttl": self.headers.get("TTL"), "urgency": self.headers.get("Urgency"),
                      "topic": self.headers.get("Topic"), "encoding": self.headers.get("Content-Encoding")}
            record["vapid"] = check_vapid(self.headers.get("Authorization"), "https://127.0.0.1:%d" % port) or "ok"
            try:
                browser = browsers[index]
                plain = http_ece.decrypt(body, private_key=browser["private"], auth_secret=browser["auth"], version="aes128gcm")
                record["payload"] = json.loads(plain)
            except Exception as error:  # noqa: BLE001 - the test reads what went wrong
                record["payload"] = None
                record["error"] = repr(error)
            if behaviour == "hang":
                record["status"] = "hang"
                with output:
                    print(json.dumps(record), flush=True)
                time.sleep(3600)
                return
            status, fields = 201, {}
            if behaviour == "410":
                status = 410
            elif behaviour == "429" and index not in answered_429:
                answered_429.add(index)
                status, fields = 429, {"Retry-After": "1"}
            record["status"] = status
            record["at"] = time.time()
            with output:
                print(json.dumps(record), flush=True)
            self.send_response(status)
            for name, value in fields.items():
                self.send_header(name, value)
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    port = server.server_address[1]
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(ca, keyfile)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    subscriptions = [{"endpoint": "https://127.0.0.1:%d/push/%d" % (port, index),
                      "keys": {"p256dh": b64url(b["p256dh"]), "auth": b64url(b["auth"])}} for index, b in enumerate(browsers)]
    print(json.dumps({"port": port, "ca": ca, "subscriptions": subscriptions}), flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
