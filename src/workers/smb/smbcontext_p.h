// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_SMBCONTEXT_P_H
#define QVFS_SMBCONTEXT_P_H

#include <QByteArray>
#include <QUrl>

#include <functional>
#include <utility>

#include <libsmbclient.h>

namespace Qvfs::Smb
{

/*! Who logs in: filled in by the worker, read by libsmbclient's authentication callback. */
struct Login
{
    QByteArray domain; //!< empty: the configuration's workgroup
    QByteArray user; //!< empty with \a guest: anonymous
    QByteArray password;
    bool guest = false;
};

/*!
 * The one libsmbclient context of a worker process, used from one thread, always through
 * smbc_getFunction*() (never the global compatibility API).
 *
 * Configuration: libsmbclient reads `$HOME/.smb/smb.conf` when it starts, else
 * `/etc/samba/smb.conf`. The worker does not depend on HOME: the library starts with HOME
 * unset, so it reads the system's client configuration (what `smbclient` uses), or the
 * file QVFS_SMB_CONF names instead. SMB2 and SMB3 only; no automatic anonymous login
 * (guest only when asked for); Kerberos off (NTLM); each call times out after 20 s,
 * below the pool's deadline for a silent worker.
 *
 * Credentials come from the worker through \a loginFor when libsmbclient connects to a
 * server: it is called with the server and share, and says whether it was asked during
 * the current operation (authenticationAsked()), which tells a refused login from a
 * denied file.
 */
class Context
{
public:
    Context();
    ~Context();
    Context(const Context &) = delete;
    Context &operator=(const Context &) = delete;

    /*! Makes the context; false when libsmbclient cannot start (errno says why). */
    bool init(std::function<Login(const char *server, const char *share)> loginFor);
    bool isValid() const { return m_ctx != nullptr; }
    /*! The TCP port of the next connections (0: 445 with 139 as fallback). */
    void setPort(int port);
    /*! Drops every connection (another host, or new credentials). */
    void purge();
    /*! Resets authenticationAsked(). */
    void beginOperation() { m_asked = false; }
    /*! Whether the callback gave credentials since beginOperation(): a connection was made. */
    bool authenticationAsked() const { return m_asked; }

    SMBCCTX *get() const { return m_ctx; }

    /*!
     * Writes all \a size bytes of \a data to \a file (a write may take fewer); false with
     * errno set when one fails. libsmbclient sends one write of the server's maximum size
     * at a time and waits for its answer, so callers write in large pieces.
     */
    bool writeAll(SMBCFILE *file, const char *data, qint64 size);

    /*!
     * The URL libsmbclient takes for \a url: "smb://host/share/path" with the path
     * percent-encoded byte by byte (libsmbclient decodes it), and without user, password
     * or port (those go through the callback and setPort()).
     */
    static QByteArray libraryUrl(const QUrl &url);

private:
    static void authenticate(
        SMBCCTX *c, const char *srv, const char *shr, char *wg, int wglen, char *un, int unlen, char *pw, int pwlen);

    SMBCCTX *m_ctx = nullptr;
    std::function<Login(const char *, const char *)> m_loginFor;
    bool m_asked = false;
};

/*! A file of a context, closed when it goes out of scope. */
class File
{
public:
    explicit File(SMBCCTX *ctx)
        : m_ctx(ctx)
    { }
    ~File() { close(); }
    File(const File &) = delete;
    File &operator=(const File &) = delete;
    SMBCFILE *&handle() { return m_file; }
    /*! Closes; the result of the close (0, or -1 with errno). */
    int close()
    {
        if (!m_file)
            return 0;
        SMBCFILE *f = std::exchange(m_file, nullptr);
        return smbc_getFunctionClose(m_ctx)(m_ctx, f);
    }

private:
    SMBCCTX *m_ctx;
    SMBCFILE *m_file = nullptr;
};

} // namespace Qvfs::Smb

#endif
