// SPDX-License-Identifier: LGPL-2.1-or-later
// qvfs-sftp-askpass: the SSH_ASKPASS program of the sftp engine. It relays ssh's prompt
// to the session that started ssh and prints the answer (askpassprotocol_p.h). It has
// no user interface of its own and refuses (exit 1) whenever the session cannot be
// reached, so ssh never falls back to a terminal.
#include "askpassprotocol_p.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace Qvfs::Sftp;

namespace
{

// Moves all \a n bytes at \a p with \a io (read() or write() alike), again after EINTR
// and after a short count. false at the end of the file or on an error.
template<typename Char, typename Io>
bool transferAll(Char *p, size_t n, Io io)
{
    while (n > 0) {
        const ssize_t done = io(p, n);
        if (done < 0 && errno == EINTR)
            continue;
        if (done <= 0)
            return false;
        p += done;
        n -= size_t(done);
    }
    return true;
}

// Sockets with send() (no SIGPIPE), anything else (ssh's pipe) with write().
bool writeAll(int fd, const void *data, size_t n, bool socket)
{
    return transferAll(static_cast<const char *>(data), n, [fd, socket](const char *p, size_t left) {
        return socket ? ::send(fd, p, left, MSG_NOSIGNAL) : ::write(fd, p, left);
    });
}

bool readAll(int fd, void *data, size_t n)
{
    return transferAll(static_cast<char *>(data), n, [fd](char *p, size_t left) { return ::read(fd, p, left); });
}

void appendField(std::string &out, const char *s, uint32_t max)
{
    size_t n = std::strlen(s);
    if (n > max)
        n = max;
    unsigned char len[4];
    Askpass::putU32(len, uint32_t(n));
    out.append(reinterpret_cast<const char *>(len), 4);
    out.append(s, n);
}

} // namespace

int main(int argc, char **argv)
{
    const char *socketPath = std::getenv(Askpass::SocketVariable);
    const char *token = std::getenv(Askpass::TokenVariable);
    const char *hint = std::getenv("SSH_ASKPASS_PROMPT");
    if (!socketPath || !token || argc < 2)
        return 1;

    sockaddr_un addr {};
    addr.sun_family = AF_UNIX;
    if (std::strlen(socketPath) >= sizeof addr.sun_path)
        return 1;
    std::strcpy(addr.sun_path, socketPath);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0)
        return 1;

    std::string request(Askpass::Magic, sizeof Askpass::Magic);
    appendField(request, token, Askpass::MaxToken);
    appendField(request, hint ? hint : "", Askpass::MaxHint);
    appendField(request, argv[1], Askpass::MaxPrompt);
    if (!writeAll(fd, request.data(), request.size(), true))
        return 1;

    unsigned char head[5];
    if (!readAll(fd, head, sizeof head) || head[0] != 1)
        return 1;
    const uint32_t n = Askpass::getU32(head + 1);
    if (n > Askpass::MaxAnswer)
        return 1;
    char answer[Askpass::MaxAnswer + 1];
    if (!readAll(fd, answer, n))
        return 1;
    ::close(fd);
    answer[n] = '\n';
    const bool ok = writeAll(STDOUT_FILENO, answer, n + 1, false);
    explicit_bzero(answer, sizeof answer);
    return ok ? 0 : 1;
}
