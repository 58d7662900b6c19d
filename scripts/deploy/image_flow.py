"""What scripts/deploy/check-image asks of the servers it starts, with the
standard library only.

  image_flow.py talk SEND_URL STREAM_URL STATE_FILE
      Two new users; the second holds a stream of its chat list from
      STREAM_URL while the first opens a chat with it and sends a message
      through SEND_URL. Passes when the message arrives on the stream; the
      users' tokens and the message go to STATE_FILE.
  image_flow.py kept URL STATE_FILE
      The message of STATE_FILE is in the first user's chat list at URL.
"""
import json
import secrets
import socket
import sys
import time
import urllib.request
from urllib.parse import urlsplit

WAIT = 60


def call(base, method, path, token=None, body=None):
    request = urllib.request.Request(base + path, method=method,
                                     data=None if body is None else json.dumps(body).encode())
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(request, timeout=WAIT) as answer:
        return json.load(answer)


def sign_up(base, prefix):
    return call(base, "POST", "/api/users", body={"name": f"{prefix}_{secrets.token_hex(4)}"})


def open_stream(base, token, topics):
    """A raw socket: the events are read as they come, with a deadline."""
    parts = urlsplit(base)
    connection = socket.create_connection((parts.hostname, parts.port), timeout=WAIT)
    connection.sendall((f"GET /api/events?topics={topics} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
                        f"Authorization: Bearer {token}\r\nAccept: text/event-stream\r\n\r\n").encode())
    return connection


def wait_for(connection, text):
    deadline = time.monotonic() + WAIT
    seen = b""
    while text.encode() not in seen:
        left = deadline - time.monotonic()
        if left <= 0:
            sys.exit(f"the stream did not carry {text!r} within {WAIT} s; it carried:\n{seen.decode(errors='replace')[-2000:]}")
        connection.settimeout(left)
        piece = connection.recv(65536)
        if not piece:
            sys.exit(f"the stream ended before it carried {text!r}:\n{seen.decode(errors='replace')[-2000:]}")
        seen += piece


def talk(send_url, stream_url, state_file):
    sender = sign_up(send_url, "sender")
    recipient = sign_up(send_url, "recipient")
    stream = open_stream(stream_url, recipient["token"], "chats")
    # The first event is the list as it is: the stream is subscribed.
    wait_for(stream, "event: chats")
    chat = call(send_url, "POST", "/api/chats", sender["token"], {"contact": recipient["user"]["name"]})
    text = f"hello through {urlsplit(send_url).netloc} {secrets.token_hex(3)}"
    call(send_url, "POST", f"/api/chats/{chat['id']}/messages", sender["token"], {"text": text})
    wait_for(stream, text)
    stream.close()
    json.dump({"sender": sender["token"], "text": text}, open(state_file, "w"))
    print(f"a message sent through {send_url} arrived on a stream from {stream_url}")


def kept(url, state_file):
    state = json.load(open(state_file))
    chats = call(url, "GET", "/api/chats", state["sender"])
    if not any(item["message"] == state["text"] for item in chats["items"]):
        sys.exit(f"the message {state['text']!r} is not in the chat list at {url}: {json.dumps(chats)[:2000]}")
    print(f"the message is still there at {url}")


if __name__ == "__main__":
    command, *arguments = sys.argv[1:]
    {"talk": talk, "kept": kept}[command](*arguments)
