// SPDX-License-Identifier: LGPL-2.1-or-later
#include "sshprocess_p.h"

#include "askpassprotocol_p.h"
#include "fileops_util_p.h"
#include "sftp_debug.h"

#include <QDeadlineTimer>

#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace Qvfs::Sftp::Ssh
{

namespace
{

using FileOps::errnoText;

bool readFully(int fd, char *p, size_t n, const QDeadlineTimer &deadline)
{
    while (n > 0) {
        const qint64 left = deadline.remainingTime();
        if (left <= 0)
            return false;
        pollfd pfd { fd, POLLIN, 0 };
        const int r = ::poll(&pfd, 1, int(left));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        const ssize_t got = ::read(fd, p, n);
        if (got < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (got <= 0)
            return false;
        p += got;
        n -= size_t(got);
    }
    return true;
}

bool readField(int fd, QByteArray *out, quint32 max, const QDeadlineTimer &deadline)
{
    unsigned char len[4];
    if (!readFully(fd, reinterpret_cast<char *>(len), 4, deadline))
        return false;
    const quint32 n = Askpass::getU32(len);
    if (n > max)
        return false;
    out->resize(qsizetype(n));
    return readFully(fd, out->data(), n, deadline);
}

} // namespace

// ---------------------------------------------------------------- runtime folder

QByteArray defaultRuntimeDir()
{
    const char *xdg = std::getenv("XDG_RUNTIME_DIR");
    if (xdg && xdg[0] == '/') {
        struct stat st;
        if (::stat(xdg, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::geteuid())
            return QByteArray(xdg) + "/qvfs-ssh";
    }
    return "/tmp/qvfs-ssh-" + QByteArray::number(qulonglong(::geteuid()));
}

bool ensurePrivateDir(const QByteArray &dir, QByteArray *error)
{
    if (dir.isEmpty() || !dir.startsWith('/')) {
        *error = "the runtime folder must be an absolute path";
        return false;
    }
    if (::mkdir(dir.constData(), 0700) != 0 && errno != EEXIST) {
        *error = errnoText(dir.constData(), errno);
        return false;
    }
    struct stat st;
    if (::lstat(dir.constData(), &st) != 0) {
        *error = errnoText(dir.constData(), errno);
        return false;
    }
    if (!S_ISDIR(st.st_mode) || st.st_uid != ::geteuid()) {
        *error = dir + ": not a folder of ours";
        return false;
    }
    if ((st.st_mode & 077) != 0 && ::chmod(dir.constData(), 0700) != 0) {
        *error = errnoText(dir.constData(), errno);
        return false;
    }
    return true;
}

QByteArray randomHex(int bytes)
{
    QByteArray raw(bytes, '\0');
    qsizetype got = 0;
    while (got < bytes) {
        const ssize_t r = ::getrandom(raw.data() + got, size_t(bytes - got), 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += r;
    }
    if (got < bytes) {
        // getrandom cannot fail on Linux ≥ 3.17 once seeded; keep going regardless.
        const quint64 mix = quint64(QDeadlineTimer::current().deadline()) ^ (quint64(::getpid()) << 32);
        for (qsizetype i = got; i < bytes; ++i)
            raw[i] = char(mix >> ((i % 8) * 8));
    }
    return raw.toHex();
}

// ---------------------------------------------------------------- Lock

Lock::~Lock()
{
    release();
    if (m_fd >= 0)
        ::close(m_fd);
}

bool Lock::open(const QByteArray &path, QByteArray *error)
{
    m_fd = ::open(path.constData(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (m_fd < 0) {
        *error = errnoText(path.constData(), errno);
        return false;
    }
    return true;
}

bool Lock::tryLock()
{
    if (m_locked)
        return true;
    while (::flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EINTR)
            return false;
    }
    m_locked = true;
    return true;
}

void Lock::release()
{
    if (m_locked) {
        ::flock(m_fd, LOCK_UN);
        m_locked = false;
    }
}

// ---------------------------------------------------------------- AskpassServer

AskpassServer::~AskpassServer()
{
    close();
}

bool AskpassServer::listen(const QByteArray &dir, QByteArray *error)
{
    m_path = dir + "/ask-" + randomHex(8);
    m_token = randomHex(16);
    sockaddr_un addr {};
    addr.sun_family = AF_UNIX;
    if (size_t(m_path.size()) >= sizeof addr.sun_path) {
        *error = m_path + ": path too long for a socket";
        return false;
    }
    std::memcpy(addr.sun_path, m_path.constData(), size_t(m_path.size()));
    m_fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (m_fd < 0) {
        *error = errnoText("socket", errno);
        return false;
    }
    if (::bind(m_fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 || ::listen(m_fd, 4) != 0) {
        *error = errnoText(m_path.constData(), errno);
        ::close(m_fd);
        m_fd = -1;
        return false;
    }
    return true;
}

void AskpassServer::close()
{
    if (m_fd >= 0) {
        ::close(m_fd);
        m_fd = -1;
        ::unlink(m_path.constData());
    }
}

bool AskpassServer::accept(Request *request, int timeoutMs)
{
    const int c = ::accept4(m_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0)
        return false;
    ucred cred {};
    socklen_t len = sizeof cred;
    if (::getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || cred.uid != ::geteuid()) {
        qCWarning(QVFS_SFTP) << "askpass: refused a connection from uid" << cred.uid;
        ::close(c);
        return false;
    }
    const QDeadlineTimer deadline(qMax(timeoutMs, 0));
    char magic[sizeof Askpass::Magic];
    QByteArray token;
    if (!readFully(c, magic, sizeof magic, deadline) || std::memcmp(magic, Askpass::Magic, sizeof magic) != 0
        || !readField(c, &token, Askpass::MaxToken, deadline) || token != m_token
        || !readField(c, &request->hint, Askpass::MaxHint, deadline)
        || !readField(c, &request->prompt, Askpass::MaxPrompt, deadline)) {
        qCWarning(QVFS_SFTP) << "askpass: malformed request refused";
        ::close(c);
        return false;
    }
    request->fd = c;
    return true;
}

void AskpassServer::answer(Request *request, bool accepted, const QByteArray &text)
{
    if (request->fd < 0)
        return;
    const QByteArrayView answer = QByteArrayView(text).first(qMin<qsizetype>(text.size(), Askpass::MaxAnswer));
    QByteArray reply(5 + answer.size(), '\0');
    reply[0] = accepted ? 1 : 0;
    Askpass::putU32(reinterpret_cast<unsigned char *>(reply.data() + 1), accepted ? quint32(answer.size()) : 0);
    if (accepted)
        std::memcpy(reply.data() + 5, answer.data(), size_t(answer.size()));
    const char *p = reply.constData();
    qsizetype left = accepted ? reply.size() : 5;
    const QDeadlineTimer deadline(2000);
    while (left > 0 && !deadline.hasExpired()) {
        const ssize_t w = ::send(request->fd, p, size_t(left), MSG_NOSIGNAL);
        if (w < 0 && (errno == EINTR || errno == EAGAIN)) {
            pollfd pfd { request->fd, POLLOUT, 0 };
            ::poll(&pfd, 1, 50);
            continue;
        }
        if (w <= 0)
            break;
        p += w;
        left -= w;
    }
    explicit_bzero(reply.data(), size_t(reply.size()));
    ::close(request->fd);
    request->fd = -1;
}

} // namespace Qvfs::Sftp::Ssh
