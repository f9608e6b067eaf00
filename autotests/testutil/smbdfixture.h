// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_TESTUTIL_SMBDFIXTURE_H
#define QVFS_TESTUTIL_SMBDFIXTURE_H

#include <QByteArray>
#include <QList>
#include <QStringList>

#include <sys/types.h>

#include <memory>

class QTemporaryDir;

namespace QvfsTest
{

/*!
 * A real Samba server on 127.0.0.1 for the tests, all of it throwaway and inside one
 * temporary folder (dir()): its smb.conf, password database, state, locks, pid files,
 * logs and the two shares.
 *
 * - smbd (standalone server, SMB2 and later, no NetBIOS) on a free port, started in a
 *   session of its own (it signals its whole process group when it stops) and stopped
 *   by its pid;
 * - the share "share" (read-write, path sharePath(), only user() may log in) and the
 *   share "guest" (read-only, guest ok, path guestPath());
 * - user() is the Unix account smbd works as for the share: "nobody" when the tests run
 *   as root, else the account running them (an unprivileged smbd cannot switch users).
 *   Its SMB password is password(), random per fixture, in the fixture's own tdbsam
 *   database (smbpasswd -c as root, pdbedit -s otherwise).
 *
 * The shares' folders belong to user(), and so must everything a test makes in them
 * behind the server's back: smbd, as root, works on the files as user() (so permissions
 * behave as on a real server), and a root-owned file there could be read but not
 * written. handOver() gives a seeded tree to user().
 *
 * The first share listing makes smbd spawn samba-dcerpcd (and its rpcd_* helpers),
 * which takes a second or more; start() does one so that the tests' first listing is
 * quick. samba-dcerpcd outlives smbd: stop() ends it by its pid file after checking that
 * its command line names our smb.conf, then ends anything else whose command line
 * still names it (the rpcd_* helpers have no pid file), waits for all of them and
 * removes the folder. /etc/samba/smb.conf and ~/.smb are never read or written; the
 * rpcd_* helpers of Samba 4.17 log to /var/log/samba whatever the configuration says.
 */
class SmbdFixture
{
public:
    SmbdFixture();
    ~SmbdFixture();
    SmbdFixture(const SmbdFixture &) = delete;
    SmbdFixture &operator=(const SmbdFixture &) = delete;

    /*! Whether this machine can run the fixture (smbd and the client tools installed). */
    static bool available(QString *why);

    /*! Sets everything up and starts smbd; false with the reason in \a error. */
    bool start(QString *error);
    /*! Stops smbd and samba-dcerpcd and removes the folder (also run by the destructor). */
    void stop();
    bool isRunning() const { return m_smbdPid > 0; }

    int port() const { return m_port; }
    QByteArray host() const { return QByteArrayLiteral("127.0.0.1"); }
    /*! The temporary folder. */
    QByteArray dir() const { return m_dir; }
    QByteArray configPath() const { return m_dir + "/smb.conf"; }
    /*! The folder served as "share". */
    QByteArray sharePath() const { return m_dir + "/share"; }
    /*! The folder served as "guest". */
    QByteArray guestPath() const { return m_dir + "/guest"; }
    QByteArray user() const { return m_user; }
    QByteArray password() const { return m_password; }
    uid_t uid() const { return m_uid; }
    gid_t gid() const { return m_gid; }

    /*! Gives \a path and everything below it to user() (nothing to do when that is us). */
    bool handOver(const QByteArray &path) const;

    /*!
     * Runs smbclient with this server's configuration and port ("-s CONF -p PORT") and
     * \a args after them, to its end (one minute at most); returns its exit code (-1 if
     * it did not run) with standard output and error in \a out. Credentials are the
     * caller's: "-U", user() + '%' + password(), or "-N" for a guest.
     */
    int smbclient(const QStringList &args, QByteArray *out = nullptr) const;

    /*! smbd's own output so far (it logs to standard output). */
    QByteArray log() const;

    /*! The processes (but this one) whose command line contains \a needle. */
    static QList<int> processesMentioning(const QByteArray &needle);

private:
    bool startSmbd(QString *error);
    bool setPassword(QString *error);
    void writeConfig();
    void stopDcerpcd();

    std::unique_ptr<QTemporaryDir> m_tmp;
    QByteArray m_dir;
    QByteArray m_user;
    QByteArray m_password;
    uid_t m_uid = 0;
    gid_t m_gid = 0;
    int m_port = 0;
    int m_smbdPid = -1;
};

} // namespace QvfsTest

#endif
