// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_SSHPROCESS_P_H
#define QVFS_SSHPROCESS_P_H

#include <QByteArray>
#include <QList>

#include <sys/types.h>

/*!
 * The Linux plumbing of the sftp engine beside the ssh child process (a ChildProcess,
 * childprocess_p.h): the private runtime folder, the per-host connection lock and the
 * askpass socket. Internal.
 */
namespace Qvfs::Sftp::Ssh
{

/*!
 * Makes sure \a dir is a folder owned by us and private (mode 0700, no symlink),
 * creating it (and, for the default location, nothing above it) when missing.
 * Returns false with a reason in \a error.
 */
bool ensurePrivateDir(const QByteArray &dir, QByteArray *error);

/*! The default runtime folder: $XDG_RUNTIME_DIR/qvfs-ssh, else /tmp/qvfs-ssh-UID. */
QByteArray defaultRuntimeDir();

/*! Random bytes as lowercase hex (2 × \a bytes characters). */
QByteArray randomHex(int bytes);

/*! An exclusive flock() on a file, taken without blocking. */
class Lock
{
public:
    Lock() = default;
    ~Lock();
    Lock(const Lock &) = delete;
    Lock &operator=(const Lock &) = delete;
    /*! Opens (creates) \a path; false with errno's text in \a error. */
    bool open(const QByteArray &path, QByteArray *error);
    /*! Tries once to take the lock. */
    bool tryLock();
    void release();

private:
    int m_fd = -1;
    bool m_locked = false;
};

/*! The listening askpass socket. */
class AskpassServer
{
public:
    AskpassServer() = default;
    ~AskpassServer();
    AskpassServer(const AskpassServer &) = delete;
    AskpassServer &operator=(const AskpassServer &) = delete;

    /*! Listens on a new socket in \a dir; false with errno's text in \a error. */
    bool listen(const QByteArray &dir, QByteArray *error);
    /*! Stops listening and removes the socket file. */
    void close();
    int fd() const { return m_fd; }
    const QByteArray &path() const { return m_path; }
    const QByteArray &token() const { return m_token; }

    struct Request
    {
        int fd = -1; //!< the connection, to answer on and close
        QByteArray hint;
        QByteArray prompt;
    };
    /*!
     * Accepts one waiting connection and reads its request (bounded in size, and in time
     * by \a timeoutMs). Returns false (and closes the connection) for a peer of another
     * uid, a wrong token or a malformed request, or when nobody was waiting.
     */
    bool accept(Request *request, int timeoutMs);
    /*! Sends the answer (or a refusal) and closes the request's connection. */
    static void answer(Request *request, bool accepted, const QByteArray &text);

private:
    int m_fd = -1;
    QByteArray m_path;
    QByteArray m_token;
};

} // namespace Qvfs::Sftp::Ssh

#endif
