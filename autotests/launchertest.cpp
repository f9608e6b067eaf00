// SPDX-License-Identifier: LGPL-2.1-or-later
// The `qvfs` launcher (src/cli/launcher.c): it starts the file worker before the client
// loads Qt and hands it over through QVFS_PRESPAWNED_WORKER. The client adopts it for the
// job, or ends it when no job wants it; nothing of the handover reaches a worker; a
// handover that is not ours is ignored; and no worker outlives the client.

#include "testutil/clirun.h"
#include "testutil/procutil.h"

#include <QElapsedTimer>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <unistd.h>

using CliRun::Result;

class LauncherTest : public QObject
{
    Q_OBJECT

    QTemporaryDir m_tmp;

    /*! The client's environment with the core's debug lines, and no worker overrides. */
    static QProcessEnvironment debugEnvironment()
    {
        QProcessEnvironment env = CliRun::environment();
        env.insert(QStringLiteral("QT_LOGGING_RULES"), QStringLiteral("qvfs.core.debug=true"));
        env.remove(QStringLiteral("QVFS_WORKER_PATH"));
        env.remove(QStringLiteral("QVFS_WORKER_PREFIX"));
        env.remove(QStringLiteral("QVFS_PRESPAWNED_WORKER"));
        return env;
    }
    Result qvfs(const QStringList &args, const QProcessEnvironment &env = debugEnvironment())
    {
        return CliRun::run(CliRun::qvfsBinary(), args, m_tmp.path(), {}, env);
    }
    QString file(const char *name) const { return m_tmp.path() + QLatin1Char('/') + QLatin1String(name); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        QFile f(file("f"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        QCOMPARE(f.write("hello"), qint64(5));
    }

    void adoptsTheWorkerItStarted()
    {
        const Result r = qvfs({ QStringLiteral("stat"), file("f") });
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(r.out.contains("Size: 5"));
        QVERIFY2(r.err.contains("adopted the worker the launcher started"), r.err.constData());
        // It is the only worker this client started.
        QCOMPARE(r.err.count("started worker"), qsizetype(1));
    }

    void handoverStaysWithTheClient()
    {
        // The worker describes itself: the variable is not in its environment...
        Result r = qvfs({ QStringLiteral("cat"), QStringLiteral("/proc/self/environ") });
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY2(r.err.contains("adopted the worker the launcher started"), r.err.constData());
        QVERIFY(r.out.contains("QT_LOGGING_RULES=")); // it is the worker's environment
        QVERIFY(!r.out.contains("QVFS_PRESPAWNED_WORKER"));
        // ...and its one socket is its own end: the client's end did not come along.
        r = qvfs({ QStringLiteral("ls"), QStringLiteral("-l"), QStringLiteral("/proc/self/fd/") });
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY2(r.err.contains("adopted the worker the launcher started"), r.err.constData());
        QCOMPARE(r.out.count("socket:["), qsizetype(1));
    }

    void unusedWorkerIsEnded()
    {
        // A file: URL of another host is refused before any job: the worker the launcher
        // started for it is ended at once.
        const Result r = qvfs({ QStringLiteral("stat"), QStringLiteral("file://elsewhere.invalid/x") });
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("ending the worker the launcher started, unused"), r.err.constData());
        QVERIFY(!r.err.contains("adopted"));
    }

    void noWorkerOutlivesTheClient()
    {
        for (int round = 0; round < 5; ++round) {
            const Result r = qvfs({ QStringLiteral("stat"), file("f") });
            QVERIFY2(r.code == 0, r.err.constData());
            const QRegularExpressionMatch m
                = QRegularExpression(QStringLiteral("adopted the worker the launcher started (\\d+)"))
                      .match(QString::fromLocal8Bit(r.err));
            QVERIFY2(m.hasMatch(), r.err.constData());
            const qint64 pid = m.captured(1).toLongLong();
            // Not waited for by the ending client: it leaves at end of file by itself.
            QElapsedTimer t;
            t.start();
            for (;;) {
                const QList<QByteArray> stat = ProcUtil::procStat(pid);
                if (stat.isEmpty() || stat.at(0) == "Z" || stat.at(0) == "X")
                    break;
                QVERIFY2(t.elapsed() < 5000, "the worker is still running after its client ended");
                QThread::msleep(2);
            }
        }
    }

    void foreignHandoverIsIgnored_data()
    {
        QTest::addColumn<QString>("value");
        QTest::newRow("standard output") << QStringLiteral("1:1:/bin/true");
        QTest::newRow("closed descriptor") << QStringLiteral("987:1:/bin/true");
        QTest::newRow("not a number") << QStringLiteral("x:y:z");
        QTest::newRow("no executable") << QStringLiteral("5");
    }
    void foreignHandoverIsIgnored()
    {
        // Given to the client directly (no launcher): ignored, and the job runs as usual.
        QFETCH(QString, value);
        QProcessEnvironment env = debugEnvironment();
        env.insert(QStringLiteral("QVFS_PRESPAWNED_WORKER"), value);
        const QString client = QFileInfo(CliRun::qvfsBinary()).absolutePath() + QStringLiteral("/qvfs-client");
        const Result r = CliRun::run(client, { QStringLiteral("stat"), file("f") }, m_tmp.path(), {}, env);
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(r.out.contains("Size: 5"));
        QVERIFY2(!r.err.contains("adopted"), r.err.constData());
        QCOMPARE(r.err.count("started worker"), qsizetype(1));
    }

    void noWorkerAheadWithAPrefix()
    {
        // The client must start its worker under QVFS_WORKER_PREFIX itself (a test may
        // hold its system calls, or forbid it to start at all).
        QProcessEnvironment env = debugEnvironment();
        env.insert(QStringLiteral("QVFS_WORKER_PREFIX"), QStringLiteral("env"));
        const Result r = qvfs({ QStringLiteral("stat"), file("f") }, env);
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY2(!r.err.contains("adopted"), r.err.constData());
        QCOMPARE(r.err.count("started worker"), qsizetype(1));
    }

    void missingClient()
    {
        // A launcher without its client (a broken installation) says what is missing.
        const QString lone = file("lone-qvfs");
        QVERIFY(QFile::copy(CliRun::qvfsBinary(), lone));
        QVERIFY(QFile::setPermissions(lone, QFileDevice::ReadOwner | QFileDevice::ExeOwner));
        const Result r = CliRun::run(lone, { QStringLiteral("stat"), file("f") }, m_tmp.path());
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.startsWith("qvfs: ") && r.err.contains("qvfs-client: "), r.err.constData());
        QVERIFY(r.out.isEmpty());
    }
};

QTEST_GUILESS_MAIN(LauncherTest)
#include "launchertest.moc"
