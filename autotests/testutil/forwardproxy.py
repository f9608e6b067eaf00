#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""An HTTP forward proxy on 127.0.0.1 for host names that exist nowhere else.

Usage: forwardproxy.py --domain DOMAIN --to PORT

A client configured with this proxy (http_proxy) sends it each request in absolute form,
"GET http://NAME:P/path HTTP/1.1" with "Host: NAME:P". When NAME is DOMAIN or ends with
".DOMAIN", the request goes to 127.0.0.1:PORT as "GET /path HTTP/1.1" with its Host header
unchanged, so the server sees the name the client used (an S3 server answering
virtual-host style requests, bucket.DOMAIN). Any other name gets 502. One request per
connection: "Connection: close" goes to the server, and the answer is relayed until the
server closes.

Prints "port P" once it listens, then serves until its standard input ends.
"""
import argparse, select, socket, socketserver, sys, threading

MAX_HEAD = 64 * 1024
args = None


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        head = b''
        while b'\r\n\r\n' not in head:
            got = self.request.recv(65536)
            if not got or len(head) > MAX_HEAD:
                return
            head += got
        head, rest = head.split(b'\r\n\r\n', 1)
        lines = head.split(b'\r\n')
        method, target, version = lines[0].split(b' ', 2)
        if not target.startswith(b'http://'):
            return self.refuse(b'400 Bad Request')
        authority, _, path = target[len(b'http://'):].partition(b'/')
        name = authority.rsplit(b':', 1)[0].decode('ascii', 'replace').lower()
        if name != args.domain and not name.endswith('.' + args.domain):
            return self.refuse(b'502 Bad Gateway')
        kept = [h for h in lines[1:] if not h.lower().startswith((b'connection:', b'proxy-connection:'))]
        out = b'\r\n'.join([method + b' /' + path + b' ' + version] + kept + [b'Connection: close']) + b'\r\n\r\n'
        server = socket.create_connection(('127.0.0.1', args.to))
        try:
            server.sendall(out + rest)
            self.relay(server)
        finally:
            server.close()

    def refuse(self, status):
        self.request.sendall(b'HTTP/1.1 ' + status + b'\r\nContent-Length: 0\r\nConnection: close\r\n\r\n')

    def relay(self, server):
        ends = [self.request, server]
        while True:
            ready, _, _ = select.select(ends, [], [], 30)
            if not ready:
                return
            for s in ready:
                data = s.recv(65536)
                if not data:
                    return  # one request per connection: either side closing ends it
                (server if s is self.request else self.request).sendall(data)


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    global args
    p = argparse.ArgumentParser()
    p.add_argument('--domain', required=True)
    p.add_argument('--to', type=int, required=True)
    args = p.parse_args()
    args.domain = args.domain.lower()
    server = Server(('127.0.0.1', 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print('port', server.server_address[1], flush=True)
    sys.stdin.read()
    server.shutdown()


if __name__ == '__main__':
    main()
