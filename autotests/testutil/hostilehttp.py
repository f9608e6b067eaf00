#!/usr/bin/env python3
"""hostilehttp.py - a deliberately misbehaving HTTP/1.1 server (test fixture).

Used by the http worker regression tests. The misbehaviour is the point: every
scenario sends exactly the (often broken) framing described below, written by
hand on raw sockets so nothing "fixes" it on the way out.

Usage:  python3 hostilehttp.py --scenario NAME [--size N]     (N defaults to 10000)

Binds 127.0.0.1 on an ephemeral port, prints one line "PORT <n>" to stdout and
serves until SIGTERM, until stdin reaches EOF (so it dies with its parent test),
or 120 s have passed. Every request is logged to stderr as
  REQ <method> <path> range=<Range|-> if-range=<If-Range|-> auth=<yes|no>

Resources (all scenarios):
  GET /count  200, body = number of requests seen so far (excluding /count).
  HEAD /file  headers of version A (Content-Length, ETag, Last-Modified,
              Accept-Ranges: bytes), no body; no ETag in splice-lastmod.
  other paths 404, Content-Length 0.
  /file version A = bytes((i*7+3) % 251), ETag "vA", Last-Modified Mon 01 Jan 2024;
        version B = bytes((i*13+5) % 251), ETag "vB", Last-Modified Tue 02 Jan 2024.

Scenarios (GET /file):
  splice-etag     GET without Range: 200, Content-Length=size, ETag A, sends half of
                  A, then drops the connection. GET with Range bytes=K-: 206 with a
                  correct Content-Range/Content-Length but ETag, Last-Modified and
                  bytes of version B (If-Range is ignored).
  splice-lastmod  as splice-etag, but no ETag header anywhere, only Last-Modified.
  overlong-206    GET without Range: as splice-etag. GET with Range bytes=K-: 206,
                  ETag A, Content-Range bytes K-(size-1)/size, no Content-Length,
                  Connection: close, then (size-K)+100000 bytes of A's pattern.
  overlong-200    200, ETag A, no Content-Length, Connection: close, size+5000 bytes
                  of A's pattern (legal close-delimited body, longer than HEAD said).
  chunk-garbage   200 chunked, ETag A: one valid 5-byte chunk, then the chunk-size
                  line "zz", then the remaining bytes, then close.
  chunk-huge      200 chunked: chunk-size line "ffffffffffffffff", a few bytes, close.
  chunk-cut       200 chunked: first 3000 bytes as three valid 1000-byte chunks, then
                  close without the terminating 0-chunk (the same on every request).
  auth-loop       every request (except /count) answers 401 with
                  WWW-Authenticate: Basic realm="r<counter>", Content-Length 0,
                  50 ms after it came: Qt resends from its network thread while the
                  worker counts in its event loop, and a server answering at once
                  lets that thread run ahead of a busy machine's event loop by a
                  varying number of sends. Late answers make the count the worker's.
  good            well-behaved server for version A: 200, or 206 for bytes=K- and
                  bytes=K-L (416 if unsatisfiable), keep-alive.
  trickle         GET /file: 200 with Content-Length=size, then one byte every
                  0.5 s; PROPFIND: 207 with Content-Length, the body one byte every
                  0.5 s. Never silent for long, never done.
  drip            as trickle, but 1,100 bytes every 1.5 s: each piece is progress
                  (over 1 KiB, well within a 2 s silence timeout), yet the whole
                  exchange averages ~730 bytes a second, never done for minutes.
  silent          reads each request and never answers (the connection stays open).
  propfind-big    PROPFIND /dir/ with Depth: 1 answers 207 with size + 1 responses
                  (the folder and files f0 ... f<size-1>), as fast as the socket
                  takes them, close-delimited; Depth: 0 answers the folder alone.
  dav-tree        a small WebDAV tree: /tree/ holding the collections sub/, which
                  holds "file" (the first --size bytes of version A), and odd/, which
                  holds "ok" and "a%2FPWN" (a name with a slash), and long/, which
                  holds "ok" and a file named with 300 "L"s; PROPFIND with Depth 0 or
                  1, GET and HEAD.
  dav-deep        a WebDAV tree without end: every collection under /deep/ holds one
                  more, named with 100 "n"s; each PROPFIND answered 30 ms late (a copy
                  of it has time to write while it is still being listed).

  interim-flood   every HEAD and PROPFIND is answered by "102 Processing" interim
                  answers, one every 10 ms, without end (never a final answer).
  stale-bytes     HEAD /file as in good, but 0.3 s after each HEAD answer the
                  server writes "HELLO" on the same kept-alive connection (bytes
                  that belong to no answer); the rest as in good.

--count-file PATH: the number of requests seen so far (as /count) is also written to
PATH after every request, for a test that cannot run a job at that moment.
"""
import argparse, os, re, socket, socketserver, sys, threading, time

ETAG = {'A': '"vA"', 'B': '"vB"'}
LASTMOD = {'A': 'Mon, 01 Jan 2024 00:00:00 GMT', 'B': 'Tue, 02 Jan 2024 00:00:00 GMT'}
PATTERN = {'A': (7, 3), 'B': (13, 5)}
REASON = {200: 'OK', 207: 'Multi-Status', 206: 'Partial Content', 400: 'Bad Request', 401: 'Unauthorized',
          404: 'Not Found', 416: 'Range Not Satisfiable',
          431: 'Request Header Fields Too Large'}
MAX_HEADER = 64 * 1024
SCENARIOS = ('splice-etag', 'splice-lastmod', 'overlong-206', 'overlong-200',
             'chunk-garbage', 'chunk-huge', 'chunk-cut', 'auth-loop', 'good',
             'trickle', 'silent', 'propfind-big', 'dav-tree', 'dav-deep',
             'interim-flood', 'stale-bytes', 'drip')

args = None
counter = 0
counter_lock = threading.Lock()


def data(version, start, end):
    """Bytes [start, end) of a version's pattern (continues past size)."""
    mul, add = PATTERN[version]
    return bytes((i * mul + add) % 251 for i in range(start, end))


def validators(version):
    hdrs = [('Last-Modified', LASTMOD[version])]
    if args.scenario != 'splice-lastmod':
        hdrs.insert(0, ('ETag', ETAG[version]))
    return hdrs


def dav_response(href, collection, size=0):
    """One <D:response> of a PROPFIND answer."""
    kind = b'<D:collection/>' if collection else b''
    return (b'<D:response><D:href>' + href + b'</D:href><D:propstat><D:prop>'
            b'<D:resourcetype>' + kind + b'</D:resourcetype><D:getcontentlength>'
            + str(size).encode() + b'</D:getcontentlength></D:prop>'
            b'<D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>\n')


def parse_range(value):
    """'bytes=K-' or 'bytes=K-L' -> (K, L or None); anything else -> None."""
    m = re.fullmatch(r'\s*bytes\s*=\s*(\d+)\s*-\s*(\d*)\s*', value or '')
    if not m:
        return None
    return int(m.group(1)), (int(m.group(2)) if m.group(2) else None)


class Handler(socketserver.BaseRequestHandler):
    def setup(self):
        self.buf = b''

    def send(self, status, headers, body=b'', close=False):
        head = 'HTTP/1.1 %d %s\r\n' % (status, REASON[status])
        head += ''.join('%s: %s\r\n' % h for h in headers) + '\r\n'
        self.request.sendall(head.encode('latin-1') + body)
        return not close

    def read_request(self):
        while b'\r\n\r\n' not in self.buf[:MAX_HEADER + 4]:
            if len(self.buf) > MAX_HEADER:
                self.send(431, [('Content-Length', '0'), ('Connection', 'close')])
                return None
            chunk = self.request.recv(65536)
            if not chunk:
                return None
            self.buf += chunk
        head, self.buf = self.buf.split(b'\r\n\r\n', 1)
        lines = head.decode('latin-1').split('\r\n')
        parts = lines[0].split()
        if len(parts) != 3:
            self.send(400, [('Content-Length', '0'), ('Connection', 'close')])
            return None
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(':')
            headers[name.strip().lower()] = value.strip()
        cl = headers.get('content-length', '0')
        need = int(cl) if cl.isdigit() else 0   # discard any request body
        while len(self.buf) < need:
            chunk = self.request.recv(65536)
            if not chunk:
                return None
            self.buf += chunk
        self.buf = self.buf[need:]
        return parts[0].upper(), parts[1], parts[2].upper(), headers

    def handle(self):
        try:
            while True:
                req = self.read_request()
                if req is None or not self.respond(*req):
                    break
        except OSError:
            pass

    def respond(self, method, path, version, headers):
        global counter
        sys.stderr.write('REQ %s %s range=%s if-range=%s auth=%s\n' % (
            method, path, headers.get('range', '-'), headers.get('if-range', '-'),
            'yes' if 'authorization' in headers else 'no'))
        sys.stderr.flush()
        conn = headers.get('connection', '').lower()
        keep = 'keep-alive' in conn if version == 'HTTP/1.0' else 'close' not in conn
        if path == '/count':
            with counter_lock:
                body = str(counter).encode()
            return self.send(200, [('Content-Length', str(len(body))),
                                   ('Content-Type', 'text/plain')],
                             body if method != 'HEAD' else b'', not keep) and keep
        with counter_lock:
            counter += 1
            n = counter
            if args.count_file:
                with open(args.count_file + '.tmp', 'w') as f:
                    f.write(str(n))
                os.replace(args.count_file + '.tmp', args.count_file)
        if args.scenario == 'auth-loop':
            time.sleep(0.05)
            return self.send(401, [('WWW-Authenticate', 'Basic realm="r%d"' % n),
                                   ('Content-Length', '0')]) and keep
        if args.scenario == 'interim-flood' and method in ('HEAD', 'PROPFIND'):
            try:
                while True:
                    self.request.sendall(b'HTTP/1.1 102 Processing\r\n\r\n')
                    time.sleep(0.01)
            except OSError:
                return False
        if args.scenario == 'silent':
            while self.request.recv(65536):
                pass
            return False
        if args.scenario in ('trickle', 'drip') and method in ('GET', 'PROPFIND'):
            body = data('A', 0, args.size) if method == 'GET' else (
                b'<?xml version="1.0"?><D:multistatus xmlns:D="DAV:"><D:response>'
                b'<D:href>' + path.encode() + b'</D:href></D:response>' + b' ' * args.size)
            self.send(200 if method == 'GET' else 207,
                      [('Content-Length', str(len(body)))] + validators('A'))
            piece, pause = (1, 0.5) if args.scenario == 'trickle' else (1100, 1.5)
            for i in range(0, len(body), piece):
                self.request.sendall(body[i:i + piece])
                time.sleep(pause)
            return False
        if args.scenario == 'propfind-big' and method == 'PROPFIND' and path.rstrip('/') == '/dir':
            return self.propfind(headers.get('depth', '1') == '0')
        if args.scenario == 'dav-deep' and method == 'PROPFIND' and path.startswith('/deep/'):
            time.sleep(0.03)
            own = path if path.endswith('/') else path + '/'
            hrefs = [own] + ([] if headers.get('depth', '1') == '0' else [own + 'n' * 100 + '/'])
            body = b'<?xml version="1.0" encoding="utf-8"?>\n<D:multistatus xmlns:D="DAV:">\n' + b''.join(
                dav_response(h.encode(), True) for h in hrefs) + b'</D:multistatus>\n'
            return self.send(207, [('Content-Type', 'application/xml; charset="utf-8"'),
                                   ('Content-Length', str(len(body)))], body) and keep
        if args.scenario == 'dav-tree':
            return self.dav_tree(method, path, headers.get('depth', '1') == '0') and keep
        if path != '/file' or method not in ('GET', 'HEAD'):
            return self.send(404, [('Content-Length', '0')]) and keep
        size = args.size
        if method == 'HEAD':
            ok = self.send(200, [('Content-Length', str(size))] + validators('A')
                           + [('Accept-Ranges', 'bytes')]) and keep
            if ok and args.scenario == 'stale-bytes':
                time.sleep(0.3)
                self.request.sendall(b'HELLO')
            return ok
        return self.get_file(size, parse_range(headers.get('range'))) and keep

    def get_file(self, size, rng):
        sc = args.scenario
        if rng and rng[0] >= size and sc in ('splice-etag', 'splice-lastmod',
                                             'overlong-206', 'good'):
            return self.send(416, [('Content-Range', 'bytes */%d' % size),
                                   ('Content-Length', '0')])
        if sc in ('splice-etag', 'splice-lastmod', 'overlong-206') and not rng:
            # Promise the whole file, deliver half, drop the connection.
            self.send(200, [('Content-Length', str(size))] + validators('A')
                      + [('Accept-Ranges', 'bytes')], data('A', 0, size // 2))
            return False
        if sc in ('splice-etag', 'splice-lastmod', 'good'):
            v = 'B' if sc != 'good' else 'A'
            if not rng:
                return self.send(200, [('Content-Length', str(size))] + validators(v)
                                 + [('Accept-Ranges', 'bytes')], data(v, 0, size))
            start, end = rng[0], min(size - 1, rng[1] if rng[1] is not None else size - 1)
            if end < start:
                return self.send(416, [('Content-Range', 'bytes */%d' % size),
                                       ('Content-Length', '0')])
            return self.send(206, [('Content-Range', 'bytes %d-%d/%d' % (start, end, size)),
                                   ('Content-Length', str(end - start + 1))]
                             + validators(v), data(v, start, end + 1))
        if sc == 'overlong-206':
            k = rng[0]
            self.send(206, validators('A') + [
                ('Content-Range', 'bytes %d-%d/%d' % (k, size - 1, size)),
                ('Connection', 'close')], data('A', k, size + 100000))
            return False
        if sc == 'overlong-200':
            self.send(200, validators('A') + [('Connection', 'close')],
                      data('A', 0, size + 5000))
            return False
        chunked = validators('A') + [('Transfer-Encoding', 'chunked')]
        if sc == 'chunk-garbage':
            self.send(200, chunked, b'5\r\n' + data('A', 0, 5) + b'\r\nzz\r\n'
                      + data('A', 5, size))
        elif sc == 'chunk-huge':
            self.send(200, chunked, b'ffffffffffffffff\r\n' + data('A', 0, 16))
        elif sc == 'chunk-cut':
            body = b''.join(b'3e8\r\n' + data('A', i, i + 1000) + b'\r\n'
                            for i in range(0, 3000, 1000))
            self.send(200, chunked, body)
        return False


    def dav_tree(self, method, path, depth_zero):
        long_name = '/tree/long/' + 'L' * 300
        tree = {'/tree/': ['/tree/sub/', '/tree/odd/', '/tree/long/'], '/tree/sub/': ['/tree/sub/file'],
                '/tree/long/': ['/tree/long/ok', long_name], '/tree/long/ok': None, long_name: None,
                '/tree/sub/file': None, '/tree/odd/': ['/tree/odd/ok', '/tree/odd/a%2FPWN'],
                '/tree/odd/ok': None, '/tree/odd/a%2FPWN': None}
        key = path if path in tree else path + '/'
        if key not in tree:
            return self.send(404, [('Content-Length', '0')])
        if method == 'PROPFIND':
            hrefs = [key] + ([] if depth_zero or tree[key] is None else tree[key])
            body = b'<?xml version="1.0" encoding="utf-8"?>\n<D:multistatus xmlns:D="DAV:">\n' + b''.join(
                dav_response(h.encode(), tree[h] is not None, 0 if tree[h] is not None else args.size)
                for h in hrefs) + b'</D:multistatus>\n'
            return self.send(207, [('Content-Type', 'application/xml; charset="utf-8"'),
                                   ('Content-Length', str(len(body)))], body)
        if method in ('GET', 'HEAD') and tree[key] is None:
            body = data('A', 0, args.size)
            return self.send(200, [('Content-Length', str(len(body)))] + validators('A'),
                             body if method == 'GET' else b'')
        return self.send(405, [('Content-Length', '0')])

    def propfind(self, depthZero):
        response = dav_response
        self.send(207, [('Content-Type', 'application/xml; charset="utf-8"'),
                        ('Connection', 'close')],
                  b'<?xml version="1.0" encoding="utf-8"?>\n<D:multistatus xmlns:D="DAV:">\n'
                  + response(b'/dir/', True))
        if not depthZero:
            block = 2000
            for first in range(0, args.size, block):
                self.request.sendall(b''.join(response(b'/dir/f%d' % i, False, 1)
                                              for i in range(first, min(args.size, first + block))))
        self.request.sendall(b'</D:multistatus>\n')
        return False


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def watch_stdin():
    try:
        while sys.stdin.buffer.read1(4096):
            pass
    except (OSError, ValueError):
        pass
    os._exit(0)


def main():
    global args
    p = argparse.ArgumentParser(description='Deliberately misbehaving HTTP server.')
    p.add_argument('--scenario', required=True, choices=SCENARIOS)
    p.add_argument('--size', type=int, default=10000)
    p.add_argument('--count-file', default=None)
    args = p.parse_args()
    threading.Thread(target=watch_stdin, daemon=True).start()
    threading.Timer(120, os._exit, (0,)).start()
    server = Server(('127.0.0.1', 0), Handler)
    sys.stdout.write('PORT %d\n' % server.server_address[1])
    sys.stdout.flush()
    server.serve_forever()


if __name__ == '__main__':
    main()
