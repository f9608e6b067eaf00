// SPDX-License-Identifier: LGPL-2.1-or-later
// Another connection for one large transfer, in a child of the worker (smblane_p.h).
#include "smblane_p.h"

#include <cerrno>
#include <csignal>
#include <cstdint>

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace Qvfs::Smb
{

namespace
{

enum : int32_t { OpRead = 1, OpWrite = 2, OpClose = 3 };

struct Command
{
    int32_t op;
    int32_t slot;
    int64_t offset;
    int64_t length;
};

struct Answer
{
    int64_t result; // bytes, or -1
    int32_t err;
    int32_t unused;
};

bool sendRecord(int fd, const void *record, size_t size)
{
    for (;;) {
        const ssize_t n = ::send(fd, record, size, MSG_NOSIGNAL);
        if (n == ssize_t(size))
            return true;
        if (n < 0 && errno == EINTR)
            continue;
        return false;
    }
}

bool receiveRecord(int fd, void *record, size_t size)
{
    for (;;) {
        const ssize_t n = ::recv(fd, record, size, 0);
        if (n == ssize_t(size))
            return true;
        if (n < 0 && errno == EINTR)
            continue;
        if (n >= 0)
            errno = EPIPE; // closed, or a record of another size
        return false;
    }
}

/*! The child: opens its file on a context of its own, then answers commands. Never returns. */
[[noreturn]] void serve(int fd, Lane::Mode mode, const QByteArray &url, int port, const Login &login, char *memory,
    qint64 slotSize, int slots)
{
    const auto answer = [fd](int64_t result, int err) {
        const Answer a { result, int32_t(err), 0 };
        if (!sendRecord(fd, &a, sizeof a))
            ::_exit(0);
    };
    // Never the worker's context (a copy of it, sharing its connection), and never its
    // destructors: the new context is left to the process's end.
    auto *ctx = new Context;
    if (!ctx->init([login](const char *, const char *) { return login; })) {
        answer(-1, errno);
        ::_exit(1);
    }
    ctx->setPort(port);
    SMBCCTX *c = ctx->get();
    SMBCFILE *file = smbc_getFunctionOpen(c)(c, url.constData(), mode == Lane::Mode::Read ? O_RDONLY : O_WRONLY, 0644);
    if (!file) {
        answer(-1, errno ? errno : EIO);
        ::_exit(1);
    }
    answer(0, 0);
    for (;;) {
        Command cmd;
        if (!receiveRecord(fd, &cmd, sizeof cmd))
            ::_exit(0); // the worker went: the server closes the file with the connection
        if (cmd.op == OpClose) {
            errno = 0;
            const int rc = smbc_getFunctionClose(c)(c, file);
            answer(rc, rc == 0 ? 0 : errno);
            ::_exit(0);
        }
        if (cmd.slot < 0 || cmd.slot >= slots || cmd.length < 0 || cmd.length > slotSize || cmd.offset < 0) {
            answer(-1, EINVAL);
            continue;
        }
        char *at = memory + qint64(cmd.slot) * slotSize;
        if (smbc_getFunctionLseek(c)(c, file, off_t(cmd.offset), SEEK_SET) < 0) {
            answer(-1, errno);
            continue;
        }
        int64_t done = 0;
        int err = 0;
        while (done < cmd.length) {
            errno = 0;
            const ssize_t n = cmd.op == OpRead
                ? smbc_getFunctionRead(c)(c, file, at + done, size_t(cmd.length - done))
                : smbc_getFunctionWrite(c)(c, file, at + done, size_t(cmd.length - done));
            if (n < 0 || (n == 0 && cmd.op == OpWrite)) {
                err = errno ? errno : EIO;
                break;
            }
            if (n == 0)
                break; // the end of the file
            done += n;
        }
        answer(err ? -1 : done, err);
    }
}

} // namespace

Lane::~Lane()
{
    stop();
    if (m_memory)
        ::munmap(m_memory, size_t(m_slotSize * m_slots));
}

bool Lane::start(Mode mode, const QByteArray &libraryUrl, int port, const Login &login, qint64 slotSize, int slots)
{
    if (m_memory)
        return false; // one child per lane
    void *memory = ::mmap(nullptr, size_t(slotSize * slots), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED)
        return false;
    m_memory = static_cast<char *>(memory);
    m_slotSize = slotSize;
    m_slots = slots;
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0)
        return false;
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(fds[0]);
        ::prctl(PR_SET_PDEATHSIG, SIGKILL); // never outlives the worker
        if (::getppid() != parent)
            ::_exit(0);
        serve(fds[1], mode, libraryUrl, port, login, m_memory, slotSize, slots);
    }
    const int forkErr = errno;
    ::close(fds[1]);
    if (pid < 0) {
        ::close(fds[0]);
        errno = forkErr;
        return false;
    }
    m_pid = pid;
    m_fd = fds[0];
    m_mode = mode;
    m_opened = false;
    m_pending = 0;
    return true;
}

bool Lane::send(int slot, qint64 offset, qint64 length)
{
    if (m_pid <= 0)
        return false;
    const Command cmd { m_mode == Mode::Read ? OpRead : OpWrite, int32_t(slot), offset, length };
    if (!sendRecord(m_fd, &cmd, sizeof cmd))
        return false;
    ++m_pending;
    return true;
}

bool Lane::receive(qint64 *result, int *err)
{
    Answer a;
    if (m_pid <= 0 || !receiveRecord(m_fd, &a, sizeof a)) {
        *err = m_pid <= 0 ? EPIPE : errno;
        stop();
        return false;
    }
    *result = a.result;
    *err = a.err;
    return true;
}

bool Lane::ensureOpened(int *err)
{
    if (m_opened)
        return true;
    qint64 result = -1;
    if (!receive(&result, err))
        return false;
    if (result < 0) {
        stop();
        return false;
    }
    m_opened = true;
    return true;
}

bool Lane::ready(bool wait)
{
    if (m_opened || m_pid <= 0)
        return m_opened;
    pollfd p { m_fd, POLLIN, 0 };
    if (!wait && ::poll(&p, 1, 0) <= 0)
        return false; // still connecting
    int err = 0;
    return ensureOpened(&err);
}

qint64 Lane::wait(int *err)
{
    if (!ensureOpened(err))
        return -1;
    if (m_pending <= 0) {
        *err = EINVAL;
        return -1;
    }
    qint64 result = -1;
    if (!receive(&result, err))
        return -1;
    --m_pending;
    return result;
}

int Lane::finish(int *err)
{
    *err = 0;
    if (m_pid <= 0)
        return 0;
    int rc = 0;
    while (m_pid > 0 && m_pending > 0) {
        int e = 0;
        if (wait(&e) < 0 && rc == 0) {
            rc = -1;
            *err = e;
        }
    }
    if (m_pid <= 0)
        return rc;
    int e = 0;
    qint64 closed = -1;
    const Command cmd { OpClose, 0, 0, 0 };
    if (!ensureOpened(&e) || !sendRecord(m_fd, &cmd, sizeof cmd) || !receive(&closed, &e) || closed < 0) {
        if (rc == 0) {
            rc = -1;
            *err = e ? e : EPIPE;
        }
    }
    stop();
    return rc;
}

void Lane::stop()
{
    if (m_fd >= 0) {
        ::close(m_fd);
        m_fd = -1;
    }
    if (m_pid > 0) {
        ::kill(m_pid, SIGKILL); // at its end already, or in the middle of a call nobody waits for
        while (::waitpid(m_pid, nullptr, 0) < 0 && errno == EINTR) { }
        m_pid = 0;
    }
    m_pending = 0;
}

} // namespace Qvfs::Smb
