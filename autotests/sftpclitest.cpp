// SPDX-License-Identifier: LGPL-2.1-or-later
// The built `qvfs` program with sftp:// URLs against a real OpenSSH server on 127.0.0.1
// (testutil/sshdfixture.h): ls, stat, cp both ways, cat, put, rm, mkdir and mv, each
// checked on the server's side. The program's workers read the fixture's ssh_config
// (QVFS_SSH_CONFIG), never the real ~/.ssh.
#include "testutil/clirun.h"
#include "testutil/serverprocess.h"
#include "testutil/sshdfixture.h"

#include <QTemporaryDir>
#include <QTest>
#include <QTranslator>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace
{

using CliRun::Result;

using QvfsTest::ServerProcess::exists;
using QvfsTest::ServerProcess::readFile;
using QvfsTest::ServerProcess::writeFile;

} // namespace

class SftpCliTest : public QObject
{
    Q_OBJECT

private:
    SshdFixture m_sshd;
    QProcessEnvironment m_env;
    std::unique_ptr<QTemporaryDir> m_local;

    QByteArray base() const { return "sftp://root@127.0.0.1:" + QByteArray::number(m_sshd.port()); }
    QByteArray remote(const QByteArray &rel) const { return base() + m_sshd.dataDir() + '/' + rel; }
    QByteArray server(const QByteArray &rel) const { return m_sshd.dataDir() + '/' + rel; }
    QByteArray local(const QByteArray &rel) const { return QFile::encodeName(m_local->path()) + '/' + rel; }

    Result qvfs(const QList<QByteArray> &args, const QByteArray &input = {})
    {
        QStringList a;
        for (const QByteArray &arg : args)
            a << QString::fromLocal8Bit(arg);
        return CliRun::run(CliRun::qvfsBinary(), a, m_local->path(), input, m_env);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVFS_START_SERVER(m_sshd);
        m_local = std::make_unique<QTemporaryDir>();
        QVERIFY(m_local->isValid());
        m_env = QProcessEnvironment::systemEnvironment();
        m_env.insert(QStringLiteral("LC_ALL"), QStringLiteral("C"));
        m_env.insert(QStringLiteral("TZ"), QStringLiteral("UTC"));
        m_env.insert(QStringLiteral("HOME"), QString::fromLocal8Bit(m_sshd.dir()));
        m_env.insert(QStringLiteral("QVFS_SSH_CONFIG"),
            QString::fromLocal8Bit(m_sshd.clientConfig(SshdFixture::HostKeyCheck::Trusted)));
        m_env.insert(QStringLiteral("SSH_AUTH_SOCK"), QString::fromLocal8Bit(m_sshd.agentSocket()));
        m_env.insert(QStringLiteral("XDG_RUNTIME_DIR"), QString::fromLocal8Bit(m_sshd.newRuntimeDir()));
        QVERIFY(writeFile(server("a.txt"), "alpha\n"));
        QCOMPARE(::mkdir(server("d").constData(), 0755), 0);
        QVERIFY(writeFile(server("d/inner"), "inner\n"));
    }

    void cleanupTestCase() { m_sshd.stop(); }

    void commands_data()
    {
        QTest::addColumn<QList<QByteArray>>("args");
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<int>("code");
        QTest::addColumn<QByteArray>("stdoutHas");
        // Each row's effect on the server is checked in commands() by its tag.
        QTest::newRow("ls") << QList<QByteArray> { "ls", "-1", "@" } << QByteArray() << 0 << QByteArray("a.txt\nd\n");
        QTest::newRow("ls -l") << QList<QByteArray> { "ls", "-l", "@d" } << QByteArray() << 0
                               << QByteArray(" root root ");
        QTest::newRow("stat") << QList<QByteArray> { "stat", "@a.txt" } << QByteArray() << 0 << QByteArray("Size: 6");
        QTest::newRow("stat, missing") << QList<QByteArray> { "stat", "@missing" } << QByteArray() << 1 << QByteArray();
        QTest::newRow("cat") << QList<QByteArray> { "cat", "@a.txt", "@d/inner" } << QByteArray() << 0
                             << QByteArray("alpha\ninner\n");
        QTest::newRow("put") << QList<QByteArray> { "put", "@put.txt" } << QByteArray("from stdin\n") << 0
                             << QByteArray();
        QTest::newRow("cp in") << QList<QByteArray> { "cp", "local.txt", "@copied.txt" } << QByteArray() << 0
                               << QByteArray();
        QTest::newRow("cp out") << QList<QByteArray> { "cp", "@a.txt", "out.txt" } << QByteArray() << 0 << QByteArray();
        QTest::newRow("cp -r out") << QList<QByteArray> { "cp", "-r", "@d", "tree" } << QByteArray() << 0
                                   << QByteArray();
        QTest::newRow("mkdir -p") << QList<QByteArray> { "mkdir", "-p", "@x/y/z" } << QByteArray() << 0 << QByteArray();
        QTest::newRow("mv") << QList<QByteArray> { "mv", "@put.txt", "@x/y/moved.txt" } << QByteArray() << 0
                            << QByteArray();
        QTest::newRow("rm -r") << QList<QByteArray> { "rm", "-r", "@x" } << QByteArray() << 0 << QByteArray();
        QTest::newRow("rm, missing") << QList<QByteArray> { "rm", "@missing" } << QByteArray() << 1 << QByteArray();
    }

    void commands()
    {
        QFETCH(QList<QByteArray>, args);
        QFETCH(QByteArray, input);
        QFETCH(int, code);
        QFETCH(QByteArray, stdoutHas);
        const QByteArray tag(QTest::currentDataTag());
        if (tag == "cp in")
            QVERIFY(writeFile(local("local.txt"), "local\n"));
        for (QByteArray &a : args) {
            if (a.startsWith('@'))
                a = a == "@" ? base() + m_sshd.dataDir() : remote(a.mid(1));
        }
        const Result r = qvfs(args, input);
        QVERIFY2(r.code == code, r.err.constData());
        QVERIFY2(r.out.contains(stdoutHas), r.out.constData());
        if (code != 0) {
            QVERIFY2(r.err.contains("sftp://root@127.0.0.1"), r.err.constData()); // the message names the URL
            return;
        }
        QVERIFY2(r.err.isEmpty(), r.err.constData());
        if (tag == "put")
            QCOMPARE(readFile(server("put.txt")), QByteArray("from stdin\n"));
        else if (tag == "cp in")
            QCOMPARE(readFile(server("copied.txt")), QByteArray("local\n"));
        else if (tag == "cp out")
            QCOMPARE(readFile(local("out.txt")), QByteArray("alpha\n"));
        else if (tag == "cp -r out")
            QCOMPARE(readFile(local("tree/inner")), QByteArray("inner\n"));
        else if (tag == "mkdir -p")
            QVERIFY(exists(server("x/y/z")));
        else if (tag == "mv")
            QVERIFY(!exists(server("put.txt")) && readFile(server("x/y/moved.txt")) == "from stdin\n");
        else if (tag == "rm -r")
            QVERIFY(!exists(server("x")));
    }

    void workerMessagesTranslated()
    {
        // The worker makes the detail of this error ("ssh ended before ..."): it must
        // come in the user's language too, from the catalog the worker installs itself.
        QString qm = QStringLiteral(QVFS_CLI_TEST_QM_DIR "/de/qvfs_qt.qm");
        if (!QFile::exists(qm))
            qm = QStringLiteral(QVFS_CLI_TEST_QM_DIR "/po/de/qvfs_qt.qm");
        QTranslator translator;
        QVERIFY2(translator.load(qm), qPrintable(qm));
        // ssh ending at once is seen either as its exit or as the connection closing.
        const QString ended = translator.translate("Qvfs", "ssh ended before the SFTP session started.");
        const QString lost = translator.translate("Qvfs", "The connection to the server was lost.");
        QVERIFY(!ended.isEmpty() && !lost.isEmpty());
        const QProcessEnvironment saved = m_env;
        m_env.remove(QStringLiteral("LC_ALL"));
        m_env.insert(QStringLiteral("LANG"), QStringLiteral("de_DE.UTF-8"));
        m_env.insert(QStringLiteral("QVFS_SSH_PROGRAM"), QStringLiteral("/bin/false"));
        const Result r = qvfs({ "ls", remote("a.txt") });
        m_env = saved;
        QCOMPARE(r.code, 1);
        const QString err = QString::fromUtf8(r.err);
        QVERIFY2(err.contains(ended) || err.contains(lost), r.err.constData());
        QVERIFY2(r.err.contains(QByteArray("127.0.0.1:").append(QByteArray::number(m_sshd.port()))),
            r.err.constData()); // names the server
    }
};

QTEST_GUILESS_MAIN(SftpCliTest)
#include "sftpclitest.moc"
