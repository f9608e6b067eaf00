// SPDX-License-Identifier: LGPL-2.1-or-later
// delayproxy: a TCP forwarder on 127.0.0.1 that holds every byte back for N milliseconds
// in each direction (so a connection through it has a round trip 2 N ms longer) without
// limiting throughput: data keeps being read while earlier data waits, up to a large
// per-direction budget. For the remote-protocol benchmarks (sftp, WebDAV), which compare
// a client with its baseline through the same delay.
//
// Usage: delayproxy --to PORT [--to-host ADDRESS] [--delay-ms N] [--listen PORT]
//   --to PORT          where connections are forwarded (on --to-host, default 127.0.0.1)
//   --delay-ms N       delay per direction in milliseconds (default 10: a 20 ms round trip)
//   --listen PORT      port to listen on, on 127.0.0.1 (default 0: a free one)
// Prints "port P" (the port it listens on) on a line of its own once it accepts
// connections, then runs until it is killed or its standard input ends (when it is not a
// terminal), so a parent that goes away takes it along.
//
// One thread, one poll() loop; every chunk read is stamped with the time it may be
// written. End of data (a half close) is passed on after the same delay.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace
{

constexpr size_t ReadChunk = 256 * 1024;
constexpr size_t DirectionBudget = 64 * 1024 * 1024; // bytes held per direction at most

long long nowUs()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void setNonBlocking(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one); // no Nagle delay on top
}

struct Chunk
{
    long long due; // when it may be written (µs, monotonic)
    std::string data; // empty: the end of the data
    size_t written = 0;
};

// One direction of a connection: read from `from`, write to `to` once due.
struct Direction
{
    int from = -1;
    int to = -1;
    std::deque<Chunk> queue;
    size_t held = 0;
    bool readEnded = false; // end of data read (queued as an empty chunk)
    bool writeEnded = false; // end of data passed on (shutdown)
};

struct Pair
{
    int client = -1;
    int server = -1;
    bool connected = false; // the connection to the server is up
    Direction up; // client → server
    Direction down; // server → client
    bool dead = false;
};

void closePair(Pair &p)
{
    if (p.client >= 0)
        close(p.client);
    if (p.server >= 0)
        close(p.server);
    p.client = p.server = -1;
    p.dead = true;
}

// Reads what is there (within the budget). False: the connection failed.
bool readSide(Direction &d, long long delayUs)
{
    static std::vector<char> buf(ReadChunk);
    while (!d.readEnded && d.held < DirectionBudget) {
        const ssize_t n = read(d.from, buf.data(), buf.size());
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return true;
        if (n < 0)
            return false;
        Chunk c;
        c.due = nowUs() + delayUs;
        if (n == 0) {
            d.readEnded = true;
            d.queue.push_back(std::move(c));
            return true;
        }
        c.data.assign(buf.data(), size_t(n));
        d.held += size_t(n);
        d.queue.push_back(std::move(c));
    }
    return true;
}

// Writes what is due. False: the connection failed.
bool writeSide(Direction &d)
{
    const long long now = nowUs();
    while (!d.queue.empty() && d.queue.front().due <= now) {
        Chunk &c = d.queue.front();
        if (c.data.empty()) {
            shutdown(d.to, SHUT_WR);
            d.writeEnded = true;
            d.queue.pop_front();
            continue;
        }
        const ssize_t n = write(d.to, c.data.data() + c.written, c.data.size() - c.written);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return true;
        if (n <= 0)
            return false;
        c.written += size_t(n);
        if (c.written == c.data.size()) {
            d.held -= c.data.size();
            d.queue.pop_front();
        }
    }
    return true;
}

int usage()
{
    std::fprintf(stderr, "usage: delayproxy --to PORT [--to-host ADDRESS] [--delay-ms N] [--listen PORT]\n");
    return 2;
}

} // namespace

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    int toPort = 0, listenPort = 0;
    long long delayMs = 10;
    std::string toHost = "127.0.0.1";
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : nullptr;
        if (a == "--to" && v)
            toPort = std::atoi(argv[++i]);
        else if (a == "--to-host" && v)
            toHost = argv[++i];
        else if (a == "--delay-ms" && v)
            delayMs = std::atoll(argv[++i]);
        else if (a == "--listen" && v)
            listenPort = std::atoi(argv[++i]);
        else
            return usage();
    }
    if (toPort <= 0 || toPort > 65535 || delayMs < 0)
        return usage();
    const long long delayUs = delayMs * 1000;

    sockaddr_in target {};
    target.sin_family = AF_INET;
    target.sin_port = htons(uint16_t(toPort));
    if (inet_pton(AF_INET, toHost.c_str(), &target.sin_addr) != 1)
        return usage();

    const int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr {};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(uint16_t(listenPort));
    socklen_t len = sizeof addr;
    if (bind(listener, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 || listen(listener, 64) != 0
        || getsockname(listener, reinterpret_cast<sockaddr *>(&addr), &len) != 0) {
        std::perror("delayproxy: listen");
        return 1;
    }
    setNonBlocking(listener);
    std::printf("port %d\n", ntohs(addr.sin_port));
    std::fflush(stdout);
    const bool watchStdin = !isatty(STDIN_FILENO);

    std::vector<std::unique_ptr<Pair>> pairs;
    std::vector<pollfd> fds;
    for (;;) {
        // What to wait for, and until when.
        fds.clear();
        fds.push_back({ listener, POLLIN, 0 });
        if (watchStdin)
            fds.push_back({ STDIN_FILENO, POLLIN, 0 });
        long long nextDue = -1;
        for (auto &p : pairs) {
            if (!p->connected) {
                fds.push_back({ p->server, POLLOUT, 0 });
                continue;
            }
            for (Direction *d : { &p->up, &p->down }) {
                short from = 0;
                if (!d->readEnded && d->held < DirectionBudget)
                    from = POLLIN;
                fds.push_back({ d->from, from, 0 });
                short to = 0;
                if (!d->queue.empty()) {
                    if (d->queue.front().due <= nowUs())
                        to = POLLOUT;
                    else if (nextDue < 0 || d->queue.front().due < nextDue)
                        nextDue = d->queue.front().due;
                }
                fds.push_back({ d->to, to, 0 });
            }
        }
        int timeout = -1;
        if (nextDue >= 0)
            timeout = int(std::max(0LL, (nextDue - nowUs() + 999) / 1000));
        if (poll(fds.data(), fds.size(), timeout) < 0 && errno != EINTR) {
            std::perror("delayproxy: poll");
            return 1;
        }
        size_t i = 0;
        if (fds[i++].revents & POLLIN) {
            for (;;) {
                const int c = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
                if (c < 0)
                    break;
                auto p = std::make_unique<Pair>();
                p->client = c;
                setNonBlocking(c);
                p->server = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
                setNonBlocking(p->server);
                if (connect(p->server, reinterpret_cast<const sockaddr *>(&target), sizeof target) != 0
                    && errno != EINPROGRESS) {
                    closePair(*p);
                    continue;
                }
                p->up.from = p->down.to = p->client;
                p->up.to = p->down.from = p->server;
                pairs.push_back(std::move(p));
            }
        }
        if (watchStdin && (fds[i++].revents & (POLLIN | POLLHUP))) {
            char b[256];
            if (read(STDIN_FILENO, b, sizeof b) <= 0)
                return 0;
        }
        // Every pair: (re)try reads and due writes; poll's flags only tell when to look.
        for (auto &p : pairs) {
            if (p->dead)
                continue;
            if (!p->connected) {
                int err = 0;
                socklen_t el = sizeof err;
                pollfd w { p->server, POLLOUT, 0 };
                if (poll(&w, 1, 0) <= 0)
                    continue;
                getsockopt(p->server, SOL_SOCKET, SO_ERROR, &err, &el);
                if (err != 0) {
                    closePair(*p);
                    continue;
                }
                p->connected = true;
            }
            bool ok = true;
            for (Direction *d : { &p->up, &p->down })
                ok = ok && readSide(*d, delayUs) && writeSide(*d);
            if (!ok || (p->up.writeEnded && p->down.writeEnded))
                closePair(*p);
        }
        std::vector<std::unique_ptr<Pair>> alive;
        for (auto &p : pairs) {
            if (!p->dead)
                alive.push_back(std::move(p));
        }
        pairs.swap(alive);
    }
}
