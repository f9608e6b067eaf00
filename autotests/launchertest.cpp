// SPDX-License-Identifier: LGPL-2.1-or-later
// The `qvfs` launcher (src/cli/launcher.c): it starts the file worker before the client
// loads Qt and hands it over through QVFS_PRESPAWNED_WORKER. The client adopts it for the
// job, or ends it when no job wants it; nothing of the handover reaches a worker; a
// handover that is not the client's own is ignored; and the client reaps its worker.

#include "testutil/clirun.h"
#include "testutil/procutil.h"

#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <cstring>
#include <sys/socket.h>
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
    /*! Runs qvfs-client itself (no launcher) with QVFS_PRESPAWNED_WORKER=\a handover. */
    Result client(const QStringList &args, const QString &handover, const std::function<void()> &inChild = {})
    {
        QProcessEnvironment env = debugEnvironment();
        env.insert(QStringLiteral("QVFS_PRESPAWNED_WORKER"), handover);
        const QString program = QFileInfo(CliRun::qvfsBinary()).absolutePath() + QStringLiteral("/qvfs-client");
        return CliRun::run(program, args, m_tmp.path(), {}, env, inChild);
    }
    /*! The number after \a prefix in the debug lines \a err, or 0. */
    static qint64 pidAfter(const QByteArray &err, const char *prefix)
    {
        const qsizetype at = err.indexOf(prefix);
        if (at < 0)
            return 0;
        const qsizetype from = at + qsizetype(std::strlen(prefix));
        qsizetype to = from;
        while (to < err.size() && err.at(to) >= '0' && err.at(to) <= '9')
            ++to;
        return err.mid(from, to - from).toLongLong();
    }

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

    void dfWithoutOperand()
    {
        // df works on the working folder without an operand: its worker is started ahead too.
        const Result r = qvfs({ QStringLiteral("df") });
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(r.out.endsWith(" .\n"));
        QVERIFY2(r.err.contains("adopted the worker the launcher started"), r.err.constData());
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
        // ...and it holds as many sockets as a worker the client starts itself (its own
        // end): the client's end did not come along.
        const QStringList lsFds { QStringLiteral("ls"), QStringLiteral("-l"), QStringLiteral("/proc/self/fd/") };
        r = qvfs(lsFds);
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY2(r.err.contains("adopted the worker the launcher started"), r.err.constData());
        QProcessEnvironment env = debugEnvironment();
        env.insert(QStringLiteral("QVFS_WORKER_PREFIX"), QStringLiteral("env"));
        const Result own = qvfs(lsFds, env);
        QVERIFY2(own.code == 0 && !own.err.contains("adopted"), own.err.constData());
        QCOMPARE(r.out.count("socket:["), own.out.count("socket:["));
        QVERIFY(r.out.count("socket:[") >= 1);
    }

    void unusedWorkerIsEnded()
    {
        // A file: URL of another host is refused before any job: the worker the launcher
        // started for it is ended at once.
        const Result r = qvfs({ QStringLiteral("stat"), QStringLiteral("file://elsewhere.invalid/x") });
        QCOMPARE(r.code, 1);
        QVERIFY(!r.err.contains("adopted"));
        const qint64 pid = pidAfter(r.err, "ending the worker the launcher started, unused ");
        QVERIFY2(pid > 0, r.err.constData());
        QVERIFY2(ProcUtil::procStat(pid).isEmpty(), "the unused worker was not reaped");
    }

    void workerReapedByTheClient()
    {
        for (int round = 0; round < 5; ++round) {
            const Result r = qvfs({ QStringLiteral("stat"), file("f") });
            QVERIFY2(r.code == 0, r.err.constData());
            const qint64 pid = pidAfter(r.err, "adopted the worker the launcher started ");
            QVERIFY2(pid > 0, r.err.constData());
            // Gone, not a zombie left for whoever inherits it.
            QVERIFY2(ProcUtil::procStat(pid).isEmpty(), "the worker outlived its client");
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
        // Given to the client directly (no launcher): ignored, and the job runs as usual;
        // the worker the client starts does not inherit the variable.
        QFETCH(QString, value);
        const Result r = client({ QStringLiteral("cat"), QStringLiteral("/proc/self/environ") }, value);
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(r.out.contains("QT_LOGGING_RULES="));
        QVERIFY(!r.out.contains("QVFS_PRESPAWNED_WORKER"));
        QVERIFY2(r.err.contains("ignoring"), r.err.constData());
        QVERIFY2(!r.err.contains("adopted"), r.err.constData());
        QCOMPARE(r.err.count("started worker"), qsizetype(1));
    }

    void socketOfSomeoneElseIsIgnored()
    {
        // A socket the client inherited but did not make (a display or bus connection a
        // stale value could name), and a child of its: neither is taken nor touched.
        int sv[2];
        QVERIFY(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
        const int inherited = 40;
        const Result r = client({ QStringLiteral("stat"), file("f") },
            QStringLiteral("%1:%2:/bin/true").arg(inherited).arg(::getpid()), [&] { ::dup2(sv[1], inherited); });
        ::close(sv[0]);
        ::close(sv[1]);
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY2(r.err.contains("ignoring"), r.err.constData());
        QVERIFY2(!r.err.contains("adopted"), r.err.constData());
    }

    void ownSocketWithoutItsWorker()
    {
        // A socket the client's own process made (before exec, as the launcher does) but a
        // pid that is no child of it: nothing to adopt; the socket is closed.
        const int made = 41;
        const Result r = client({ QStringLiteral("ls"), QStringLiteral("-l"), QStringLiteral("/proc/self/fd/") },
            QStringLiteral("%1:1:/bin/true").arg(made), [] {
                int sv[2];
                if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0)
                    ::dup2(sv[0], made);
            });
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY2(r.err.contains("the worker the launcher started is gone: 1"), r.err.constData());
        QVERIFY2(!r.err.contains("adopted"), r.err.constData());
        QVERIFY(!r.out.contains(QByteArray(" " + QByteArray::number(made) + " -> socket:"))); // not in the worker
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
