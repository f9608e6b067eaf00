// SPDX-License-Identifier: LGPL-2.1-or-later
// smb://: the real smb worker (libsmbclient) against a real Samba server on 127.0.0.1
// (testutil/smbdfixture.cpp), run by the helper qvfs-test-smbd (testutil/smbdhelper.cpp)
// outside this process's children, since every row checks that no child process is left.
// Each row works in a fresh folder DIR/share/row-N of the share "share", seeded with raw
// system calls behind the server and handed to the share's Unix account (as root smbd
// works on the share as "nobody", so a root-owned file there would be read-only to it).
//
// The suite answers no password questions (its rows give no ask delegate but for
// conflicts), so the password travels in the URLs (smb://USER:PASSWORD@127.0.0.1:PORT/
// share/...), which the worker uses before it would ask. Names on SMB are UTF-8 and
// exclude '\\', ':', '*' and the like, so no RawNames. Built only with the worker
// (conformance/CMakeLists.txt).
#include "backend.h"

#include "fixturehelper.h"
#include "localtree.h"
#include "rawfs.h"

#include <Qvfs/Job>
#include <Qvfs/Url>

#include <sys/stat.h>
#include <unistd.h>

namespace
{

class SmbBackend : public QvfsConformance::Backend
{
public:
    QByteArray name() const override { return QByteArrayLiteral("smb"); }
    QString scheme() const override { return QStringLiteral("smb"); }
    Capabilities capabilities() const override
    {
        return List | Stat | Read | Write | Mkdir | Delete | Rename | Seed | Watch;
    }

    bool start(QByteArray *why) override
    {
        // "ok PORT DIR USER PASSWORD"
        const QList<QByteArray> f = m_helper.start("qvfs-test-smbd", {}, 4, "the smbd fixture", why);
        if (f.isEmpty())
            return false;
        m_port = f.at(0).toInt();
        m_dir = f.at(1);
        m_user = f.at(2);
        m_password = f.at(3);
        struct stat st;
        if (::stat(sharePath().constData(), &st) != 0) { // the fixture gives the share to its account
            *why = "the share's folder " + sharePath() + " is missing";
            m_helper.stop();
            return false;
        }
        m_uid = st.st_uid;
        m_gid = st.st_gid;
        return true;
    }

    void stop() override
    {
        Qvfs::shutdownIdleWorkers(); // their connections end before the server does
        m_helper.stop();
    }

    bool beginRow(QByteArray *why) override
    {
        m_row = "row-" + QByteArray::number(++m_rows);
        if (!QvfsTest::mkdirRaw(rowPath()) || !chownTree(rowPath())) {
            *why = "cannot make the row's folder " + rowPath();
            return false;
        }
        return true;
    }
    void endRow() override { QvfsTest::removeTreeRaw(rowPath()); }

    bool seed(const QvfsConformance::Tree &tree, QByteArray *why) override
    {
        if (!QvfsConformance::seedLocal(rowPath(), tree, why))
            return false;
        if (!chownTree(rowPath())) {
            *why = "cannot hand the seeded tree to " + m_user;
            return false;
        }
        return true;
    }

    QUrl url(QByteArrayView rel) const override
    {
        QUrl root;
        root.setScheme(QStringLiteral("smb"));
        root.setUserName(QString::fromUtf8(m_user));
        root.setPassword(QString::fromUtf8(m_password));
        root.setHost(QStringLiteral("127.0.0.1"));
        root.setPort(m_port);
        root.setPath(QStringLiteral("/share/") + QString::fromUtf8(m_row));
        return rel.isEmpty() ? root : Qvfs::Url::child(root, rel);
    }

private:
    QByteArray sharePath() const { return m_dir + "/share"; }
    QByteArray rowPath() const { return sharePath() + '/' + m_row; }

    // Hands \a path and everything below to the share's account, when that is not us.
    bool chownTree(const QByteArray &path) const
    {
        if (m_uid == ::geteuid())
            return true;
        struct stat st;
        if (::lstat(path.constData(), &st) != 0 || ::lchown(path.constData(), m_uid, m_gid) != 0)
            return false;
        if (!S_ISDIR(st.st_mode))
            return true;
        bool ok = true;
        for (const QByteArray &name : QvfsTest::namesIn(path))
            ok = chownTree(QvfsTest::join(path, name)) && ok;
        return ok;
    }

    QvfsTest::FixtureHelper m_helper;
    int m_port = 0;
    QByteArray m_dir;
    QByteArray m_user;
    QByteArray m_password;
    uid_t m_uid = ::geteuid();
    gid_t m_gid = ::getegid();
    QByteArray m_row;
    int m_rows = 0;
};

} // namespace

QVFS_CONFORMANCE_BACKEND(SmbBackend, "smb");
