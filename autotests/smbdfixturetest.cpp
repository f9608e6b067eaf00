// SPDX-License-Identifier: LGPL-2.1-or-later
// The Samba fixture (testutil/smbdfixture.cpp) checked with Samba's own client, so that
// the smb worker's tests can trust it: both shares are listed, a file put into "share"
// comes back the same and lands on disk as the share's account, a file seeded behind the
// server's back and handed over can be read and deleted, "guest" is readable without a
// password and not writable, a wrong password is refused, and stop() leaves no process
// that names the fixture's smb.conf and no folder.
#include "testutil/smbdfixture.h"
#include "testutil/serverprocess.h"

#include <QFile>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

using QvfsTest::SmbdFixture;

namespace
{

QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool writeFile(const QString &path, const QByteArray &data)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(data) == data.size();
}

// Whether smbclient -L's output \a out has a line "NAME Disk ...".
bool listsDisk(const QByteArray &out, const QByteArray &name)
{
    const QList<QByteArray> lines = out.split('\n');
    for (const QByteArray &line : lines) {
        if (line.simplified().startsWith(QByteArray(name + " Disk")))
            return true;
    }
    return false;
}

} // namespace

class SmbdFixtureTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVFS_START_SERVER(m_smbd);
        QVERIFY(m_local.isValid());
    }

    void cleanupTestCase() { m_smbd.stop(); }

    void listsShares()
    {
        QByteArray out;
        QCOMPARE(m_smbd.smbclient(
                     { QStringLiteral("-L"), QStringLiteral("127.0.0.1"), QStringLiteral("-U"), login() }, &out),
            0);
        QVERIFY2(listsDisk(out, "share"), out.constData());
        QVERIFY2(listsDisk(out, "guest"), out.constData());
    }

    void putGetRoundTrip()
    {
        QByteArray data(300 * 1024, Qt::Uninitialized);
        QRandomGenerator::global()->fillRange(reinterpret_cast<quint32 *>(data.data()), data.size() / 4);
        const QString up = m_local.filePath(QStringLiteral("up.bin"));
        const QString down = m_local.filePath(QStringLiteral("down.bin"));
        QVERIFY(writeFile(up, data));
        QByteArray out;
        QCOMPARE(
            shareCommand(QStringLiteral("put ") + up + QStringLiteral(" round.bin; get round.bin ") + down, &out), 0);
        QCOMPARE(readFile(down), data);
        // on disk as the share's account
        const QByteArray onDisk = m_smbd.sharePath() + "/round.bin";
        QCOMPARE(readFile(QFile::decodeName(onDisk)), data);
        struct stat st;
        QCOMPARE(::stat(onDisk.constData(), &st), 0);
        QCOMPARE(st.st_uid, m_smbd.uid());
        QVERIFY2(!(st.st_mode & S_IXUSR), "an upload is not made executable");
    }

    void seededBehindTheServer()
    {
        // What a test makes in the share with plain system calls, once handed over, can
        // be read, written below and deleted through the server.
        const QByteArray folder = m_smbd.sharePath() + "/seeded";
        QCOMPARE(::mkdir(folder.constData(), 0755), 0);
        QVERIFY(writeFile(QFile::decodeName(folder + "/f.txt"), "seeded content"));
        QVERIFY(m_smbd.handOver(folder));
        const QString down = m_local.filePath(QStringLiteral("seeded.txt"));
        QByteArray out;
        QCOMPARE(shareCommand(QStringLiteral("get seeded/f.txt ") + down
                         + QStringLiteral("; mkdir seeded/sub; rename seeded/f.txt seeded/g.txt; "
                                          "del seeded/g.txt; rmdir seeded/sub; rmdir seeded"),
                     &out),
            0);
        QVERIFY2(!out.contains("NT_STATUS_"), out.constData());
        QCOMPARE(readFile(down), QByteArray("seeded content"));
        QVERIFY(::access(folder.constData(), F_OK) != 0);
    }

    void guestReadOnly()
    {
        QVERIFY(writeFile(QFile::decodeName(m_smbd.guestPath() + "/public.txt"), "public"));
        QVERIFY(m_smbd.handOver(m_smbd.guestPath() + "/public.txt"));
        const QString down = m_local.filePath(QStringLiteral("public.txt"));
        QByteArray out;
        QCOMPARE(m_smbd.smbclient({ QStringLiteral("//127.0.0.1/guest"), QStringLiteral("-N"), QStringLiteral("-c"),
                                      QStringLiteral("get public.txt ") + down },
                     &out),
            0);
        QCOMPARE(readFile(down), QByteArray("public"));
        m_smbd.smbclient({ QStringLiteral("//127.0.0.1/guest"), QStringLiteral("-N"), QStringLiteral("-c"),
                             QStringLiteral("put ") + down + QStringLiteral(" written.txt") },
            &out);
        QVERIFY2(out.contains("NT_STATUS_"), out.constData());
        QVERIFY(::access(QByteArray(m_smbd.guestPath() + "/written.txt").constData(), F_OK) != 0);
        // and the guest has no access to "share"
        QVERIFY(m_smbd.smbclient({ QStringLiteral("//127.0.0.1/share"), QStringLiteral("-N"), QStringLiteral("-c"),
                                     QStringLiteral("ls") },
                    &out)
            != 0);
    }

    void wrongPassword()
    {
        QByteArray out;
        const QString wrong = QString::fromLocal8Bit(m_smbd.user()) + QStringLiteral("%not-the-password");
        QVERIFY(m_smbd.smbclient({ QStringLiteral("//127.0.0.1/share"), QStringLiteral("-U"), wrong,
                                     QStringLiteral("-c"), QStringLiteral("ls") },
                    &out)
            != 0);
        QVERIFY2(out.contains("NT_STATUS_LOGON_FAILURE"), out.constData());
    }

    void stopLeavesNothing()
    {
        // Runs last: the listings above have spawned samba-dcerpcd and its helpers.
        const QByteArray conf = m_smbd.configPath();
        const QByteArray dir = m_smbd.dir();
        const QList<int> before = SmbdFixture::processesMentioning(conf);
        QVERIFY2(before.size() >= 2, "smbd and samba-dcerpcd run");
        QByteArray dcerpcd;
        for (int pid : before) {
            QByteArray cmd = readFile(QStringLiteral("/proc/%1/cmdline").arg(pid));
            if (cmd.contains("samba-dcerpcd"))
                dcerpcd = cmd;
        }
        QVERIFY2(!dcerpcd.isEmpty(), "samba-dcerpcd runs");
        m_smbd.stop();
        QVERIFY(!m_smbd.isRunning());
        const QList<int> after = SmbdFixture::processesMentioning(conf);
        QVERIFY2(after.isEmpty(), qPrintable(QStringLiteral("%1 processes left").arg(after.size())));
        QVERIFY(::access(dir.constData(), F_OK) != 0);
    }

private:
    QString login() const { return QString::fromLocal8Bit(m_smbd.user() + '%' + m_smbd.password()); }

    int shareCommand(const QString &command, QByteArray *out)
    {
        return m_smbd.smbclient(
            { QStringLiteral("//127.0.0.1/share"), QStringLiteral("-U"), login(), QStringLiteral("-c"), command }, out);
    }

    SmbdFixture m_smbd;
    QTemporaryDir m_local;
};

QTEST_GUILESS_MAIN(SmbdFixtureTest)

#include "smbdfixturetest.moc"
