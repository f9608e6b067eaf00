// SPDX-License-Identifier: LGPL-2.1-or-later
// sftp://: the real sftp worker against a real OpenSSH server on 127.0.0.1, reached by the
// real OpenSSH client with a throwaway key in a throwaway agent. The server runs in the
// helper qvfs-test-sshd (testutil/sshdhelper.cpp), outside this process's children, since
// the suite checks after every row that no child process is left. The worker finds the
// fixture's ssh_config through QVFS_SSH_CONFIG (so the real ~/.ssh is never read), the
// agent through SSH_AUTH_SOCK and keeps its connection sockets under the fixture's folder
// (XDG_RUNTIME_DIR). One fresh folder per row on the server, seeded with raw system calls
// behind the server's back (sshd serves this machine's files).
#include "backend.h"

#include "fixturehelper.h"
#include "localtree.h"
#include "rawfs.h"
#include "url.h"

#include <Qvfs/Job>

namespace
{

class SftpBackend : public QvfsConformance::Backend
{
public:
    QByteArray name() const override { return QByteArrayLiteral("sftp"); }
    QString scheme() const override { return QStringLiteral("sftp"); }
    Capabilities capabilities() const override
    {
        return List | Stat | Read | Write | Mkdir | Delete | Rename | Seed | RawNames;
    }

    bool start(QByteArray *why) override
    {
        if (!startHelper(why))
            return false;
        for (const char *name : { "QVFS_SSH_CONFIG", "SSH_AUTH_SOCK", "XDG_RUNTIME_DIR", "HOME" })
            m_savedEnv.append({ name, qgetenv(name), qEnvironmentVariableIsSet(name) });
        const QByteArray runtime = m_dir + "/xdg-runtime";
        QvfsTest::mkdirRaw(runtime, 0700);
        Qvfs::shutdownIdleWorkers(); // a worker that started before would not see these
        qputenv("QVFS_SSH_CONFIG", m_config);
        qputenv("SSH_AUTH_SOCK", m_dir + "/agent.sock");
        qputenv("XDG_RUNTIME_DIR", runtime);
        qputenv("HOME", m_dir);
        return true;
    }

    void stop() override
    {
        Qvfs::shutdownIdleWorkers();
        for (const auto &[name, value, set] : std::as_const(m_savedEnv)) {
            if (set)
                qputenv(name, value);
            else
                qunsetenv(name);
        }
        m_savedEnv.clear();
        stopHelper();
    }

    bool beginRow(QByteArray *why) override
    {
        m_row = "row-" + QByteArray::number(++m_rows);
        if (!QvfsTest::mkdirRaw(rowPath())) {
            *why = "cannot make the row's folder " + rowPath();
            return false;
        }
        return true;
    }
    void endRow() override { QvfsTest::removeTreeRaw(rowPath()); }

    bool seed(const QvfsConformance::Tree &tree, QByteArray *why) override
    {
        return QvfsConformance::seedLocal(rowPath(), tree, why);
    }

    QUrl url(QByteArrayView rel) const override
    {
        const QUrl row = QvfsTest::sftpUrl(m_port, rowPath());
        return rel.isEmpty() ? row : Qvfs::Url::child(row, rel);
    }

private:
    QByteArray rowPath() const { return m_dir + "/data/" + m_row; }

    bool startHelper(QByteArray *why)
    {
        // "ok PORT DIR CONFIG"
        const QList<QByteArray> f = m_helper.start("qvfs-test-sshd", {}, 3, "the sshd fixture", why);
        if (f.isEmpty())
            return false;
        m_port = f.at(0).toInt();
        m_dir = f.at(1);
        m_config = f.at(2);
        return true;
    }

    void stopHelper() { m_helper.stop(); }

    struct SavedEnv
    {
        const char *name;
        QByteArray value;
        bool set;
    };
    QList<SavedEnv> m_savedEnv;
    QvfsTest::FixtureHelper m_helper;
    int m_port = 0;
    QByteArray m_dir;
    QByteArray m_config;
    QByteArray m_row;
    int m_rows = 0;
};

} // namespace

QVFS_CONFORMANCE_BACKEND(SftpBackend, "sftp");
