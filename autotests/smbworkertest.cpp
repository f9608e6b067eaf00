// SPDX-License-Identifier: LGPL-2.1-or-later
// The smb worker through the public jobs API and the real worker process, against a real
// Samba server on 127.0.0.1 (testutil/smbdfixture.h): the shares of a host, passwords (from
// the URL, asked, asked again when wrong, guest only by name), a missing share, 10,000
// entries, 256 MiB both ways byte for byte, a kill mid-transfer (nothing under the final
// name, no temporary left), a copy inside the share done by the server (no bytes through
// the application), and a watched folder following what other clients do. The rows every backend shares are in the
// conformance suite (backends/smbbackend.cpp).
#include "testutil/bigfile.h"
#include "testutil/serverprocess.h"
#include "testutil/smbdfixture.h"

#include "answerer.h"
#include "fixturedir.h"
#include "jobrunner.h"
#include "livefolders.h"
#include "procutil.h"
#include "rawfs.h"
#include "workerenv.h"

#include <Qvfs/CopyJob>
#include <Qvfs/DirLister>
#include <Qvfs/Error>
#include <Qvfs/FreeSpaceJob>
#include <Qvfs/Job>
#include <Qvfs/ListJob>
#include <Qvfs/Question>
#include <Qvfs/StatJob>
#include <Qvfs/TransferJob>
#include <Qvfs/Url>
#include <Qvfs/UrlIdentity>

#include <QElapsedTimer>
#include <QFile>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTest>

#include <algorithm>
#include <csignal>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

using namespace Qvfs;
using namespace QvfsTest;

namespace
{

constexpr qint64 BigSize = 256 * MiB;

// Ends the idle workers and waits until none is left (smbd is a child of this test too).
bool settleTestWorkers(int timeoutMs = 5000)
{
    return QvfsTest::settleWorkers({ "/qvfs-worker-smb", "/qvfs-worker-file" }, timeoutMs);
}

} // namespace

class SmbWorkerTest : public QObject
{
    Q_OBJECT

private:
    SmbdFixture m_smbd;

    enum class Password { InUrl, Asked };
    QUrl url(const QByteArray &path, Password password = Password::InUrl, const QByteArray &user = {}) const
    {
        QUrl u;
        u.setScheme(QStringLiteral("smb"));
        u.setUserName(QString::fromUtf8(user.isEmpty() ? m_smbd.user() : user));
        if (password == Password::InUrl && user.isEmpty())
            u.setPassword(QString::fromUtf8(m_smbd.password()));
        u.setHost(QStringLiteral("127.0.0.1"));
        u.setPort(m_smbd.port());
        u.setPath(QStringLiteral("/"));
        return path.isEmpty() ? u : Url::child(u, path);
    }
    QByteArray shared(const QByteArray &rel) const { return join(m_smbd.sharePath(), rel); }
    /*! Runs smbclient's \a commands on "share" as the share's user; true when it succeeded. */
    bool onShare(const QString &commands) const
    {
        QByteArray out;
        const int rc = m_smbd.smbclient(
            { QStringLiteral("//127.0.0.1/share"), QStringLiteral("-U"),
                QString::fromUtf8(m_smbd.user() + '%' + m_smbd.password()), QStringLiteral("-c"), commands },
            &out);
        if (rc != 0 || out.contains("NT_STATUS_"))
            qWarning("smbclient %s: %s", qPrintable(commands), out.constData());
        return rc == 0 && !out.contains("NT_STATUS_");
    }
    /*! The smb worker's change notifiers running (smbnotifier_p.h), wherever they come from. */
    static int notifiers() { return int(SmbdFixture::processesMentioning("--smb-notifier").size()); }
    /*! Names in the share's folder \a rel (behind the server's back). */
    QList<QByteArray> sharedNames(const QByteArray &rel) const { return namesIn(shared(rel)); }

private Q_SLOTS:
    void initTestCase() { QVFS_START_SERVER(m_smbd); }

    void cleanupTestCase()
    {
        QVERIFY(settleTestWorkers());
        m_smbd.stop();
    }

    void cleanup() { QVERIFY(settleTestWorkers()); }

    void shares()
    {
        // smb://host/ lists the disk shares as folders; IPC$ is not one.
        ListJob *job = listDir(url({}));
        QList<QByteArray> names;
        connect(job, &ListJob::entries, this, [&names](ListJob *, const EntryList &list) {
            for (const Entry &e : list) {
                names.append(e.name().toByteArray());
                QCOMPARE(e.type(), FileType::Directory);
            }
        });
        auto j = run(job);
        QVERIFY2(j->error() == 0, qPrintable(j->errorString()));
        std::sort(names.begin(), names.end());
        QCOMPARE(names, (QList<QByteArray> { "guest", "share" }));
        auto st = run(stat(url({})));
        QCOMPARE(st->error(), 0);
        QCOMPARE(st->statResult().type(), FileType::Directory);
    }

    void wrongPassword()
    {
        QUrl u = url("share/");
        u.setPassword(QStringLiteral("not the password"));
        auto j = run(listDir(u));
        QCOMPARE(j->error(), int(ErrCannotAuthenticate));
        QVERIFY(!j->errorString().contains(QStringLiteral("not the password")));
    }

    void askedPassword()
    {
        // No password in the URL: asked (realm "smb"), once; a wrong answer is asked
        // about again, with retry set.
        CredentialsAnswerer delegate;
        delegate.answers = { "wrong", m_smbd.password() };
        ListJob *job = listDir(url("share/", Password::Asked));
        job->setAskDelegate(&delegate);
        auto j = run(job);
        QVERIFY2(j->error() == 0, qPrintable(j->errorString()));
        QCOMPARE(delegate.passwords.size(), 2);
        QCOMPARE(delegate.passwords.at(0).realm, QStringLiteral("smb"));
        QCOMPARE(delegate.passwords.at(0).user, QString::fromUtf8(m_smbd.user()));
        QVERIFY(!delegate.passwords.at(0).retry);
        QVERIFY(delegate.passwords.at(1).retry);

        // A new worker gets it from the application's credential cache: not asked again.
        QVERIFY(settleTestWorkers());
        CredentialsAnswerer refusing;
        ListJob *again = listDir(url("share/", Password::Asked));
        again->setAskDelegate(&refusing);
        auto cached = run(again);
        QVERIFY2(cached->error() == 0, qPrintable(cached->errorString()));
        QCOMPARE(refusing.passwords.size(), 0);

        // Another user nobody answers for: cannot authenticate.
        ListJob *other = listDir(url("share/", Password::Asked, "someoneelse"));
        other->setAskDelegate(&refusing);
        auto r = run(other);
        QCOMPARE(r->error(), int(ErrCannotAuthenticate));
        QCOMPARE(refusing.passwords.size(), 1);
    }

    void guest()
    {
        // Anonymous only when asked for by name, and only where the server allows guests.
        QVERIFY(writeRaw(join(m_smbd.guestPath(), "readme"), "for everyone"));
        QVERIFY(m_smbd.handOver(m_smbd.guestPath()));
        ListJob *job = listDir(url("guest/", Password::Asked, "guest"));
        QList<QByteArray> names;
        connect(job, &ListJob::entries, this, [&names](ListJob *, const EntryList &list) {
            for (const Entry &e : list)
                names.append(e.name().toByteArray());
        });
        auto j = run(job);
        QVERIFY2(j->error() == 0, qPrintable(j->errorString()));
        QCOMPARE(names, QList<QByteArray> { "readme" });
        auto denied = run(listDir(url("share/", Password::Asked, "guest")));
        QCOMPARE(denied->error(), int(ErrCannotAuthenticate));
    }

    void missing()
    {
        auto share = run(listDir(url("nosuchshare/")));
        QCOMPARE(share->error(), int(ErrDoesNotExist));
        QVERIFY2(share->errorString().contains(QStringLiteral("nosuchshare")), qPrintable(share->errorString()));
        auto file = run(stat(url("share/nosuchfile")));
        QCOMPARE(file->error(), int(ErrDoesNotExist));
        QVERIFY2(file->errorString().contains(QStringLiteral("nosuchfile")), qPrintable(file->errorString()));
    }

    void manyEntries()
    {
        const QByteArray many = shared("many");
        QVERIFY(mkdirRaw(many));
        for (int i = 0; i < 10000; ++i)
            QVERIFY(writeRaw(join(many, "entry-" + QByteArray::number(i)), {}));
        QVERIFY(m_smbd.handOver(many));
        int count = 0;
        ListJob *job = listDir(url("share/many/"));
        connect(
            job, &ListJob::entries, this, [&count](ListJob *, const EntryList &list) { count += int(list.size()); });
        auto j = run(job);
        QVERIFY2(j->error() == 0, qPrintable(j->errorString()));
        QCOMPARE(count, 10000);
        removeTreeRaw(many);
    }

    void bigBothWays()
    {
        // 256 MiB up and down again, byte for byte, and then copied inside the share by
        // the server: no byte of it through this process.
        FixtureDir local("/dev/shm");
        QVERIFY(local.isValid());
        const QByteArray up = join(local.path(), "up.bin");
        QVERIFY(makeRandomFile(up, BigSize, 21));
        auto put = run(copyAs(fileUrl(up), url("share/big")), 120000);
        QVERIFY2(put->error() == 0, qPrintable(put->errorString()));
        QVERIFY(sameFiles(up, shared("big")));
        const QByteArray down = join(local.path(), "down.bin");
        auto get = run(copyAs(url("share/big"), fileUrl(down)), 120000);
        QVERIFY2(get->error() == 0, qPrintable(get->errorString()));
        QVERIFY(sameFiles(up, down));

        const qint64 before = ProcUtil::bytesReadBySelf();
        auto inside = run(copyAs(url("share/big"), url("share/copy")), 120000);
        QVERIFY2(inside->error() == 0, qPrintable(inside->errorString()));
        const qint64 through = ProcUtil::bytesReadBySelf() - before;
        QVERIFY2(through < MiB, qPrintable(QString::number(through)));
        QVERIFY(sameFiles(up, shared("copy")));
        qInfo("figure: a 256 MiB copy inside the share read %lld bytes in this process", through);
        ::unlink(shared("big").constData());
        ::unlink(shared("copy").constData());
    }

    void severalConnections()
    {
        // Large transfers go over several connections, the worker's and its forked
        // lanes', taking chunks in turn (smblane_p.h). With 64 KiB chunks a file of 1 MiB
        // and a bit is 17 chunks: every way in and out must come back byte for byte, in
        // order, with the lanes' chunks where they belong, and leave no process behind.
        // QVFS_SMB_LANES=force: the lanes are waited for and must do their part, so that
        // a transfer that succeeds went over every connection.
        qputenv("QVFS_SMB_READ_CHUNK", "65536");
        qputenv("QVFS_SMB_WRITE_CHUNK", "65536");
        qputenv("QVFS_SMB_LANES", "force");
        const auto restore = qScopeGuard([] {
            qunsetenv("QVFS_SMB_READ_CHUNK");
            qunsetenv("QVFS_SMB_WRITE_CHUNK");
            qunsetenv("QVFS_SMB_LANES");
            settleTestWorkers();
        });
        QVERIFY(settleTestWorkers()); // a worker started with the small chunks
        FixtureDir local("/dev/shm");
        QVERIFY(local.isValid());
        const qint64 size = 17 * 65536 - 4321;
        const QByteArray up = join(local.path(), "up.bin");
        QVERIFY(makeRandomFile(up, size, 31));
        QFile f(QString::fromLocal8Bit(up));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray content = f.readAll();

        // file -> smb (copyFromFile) and smb -> file (copyToFile)
        auto put = run(copyAs(fileUrl(up), url("share/lanes")));
        QVERIFY2(put->error() == 0, qPrintable(put->errorString()));
        QVERIFY(sameFiles(up, shared("lanes")));
        const QByteArray down = join(local.path(), "down.bin");
        auto get = run(copyAs(url("share/lanes"), fileUrl(down)));
        QVERIFY2(get->error() == 0, qPrintable(get->errorString()));
        QVERIFY(sameFiles(up, down));
        // Through the application: get (also from an offset) and put in odd pieces.
        TransferJob *g = Qvfs::get(url("share/lanes"), 70000);
        QByteArray received;
        connect(g, &TransferJob::data, this, [&received](TransferJob *, const QByteArray &d) { received += d; });
        auto gj = run(g);
        QVERIFY2(gj->error() == 0, qPrintable(gj->errorString()));
        QVERIFY(received == content.mid(70000));
        TransferJob *p = Qvfs::put(url("share/lanes2"));
        qsizetype sent = 0;
        connect(p, &TransferJob::dataReq, this, [&sent, &content](TransferJob *, QByteArray &data) {
            data = content.mid(sent, 50000);
            sent += data.size();
        });
        auto pj = run(p);
        QVERIFY2(pj->error() == 0, qPrintable(pj->errorString()));
        QVERIFY(sameFiles(up, shared("lanes2")));
        const QList<QByteArray> names = namesIn(m_smbd.sharePath());
        QCOMPARE(std::count_if(names.cbegin(), names.cend(), [](const QByteArray &n) { return n.contains("lanes"); }),
            2); // no temporary left beside them
        // No lane outlives its transfer: only the worker itself is left.
        QTRY_COMPARE_WITH_TIMEOUT(SmbdFixture::processesMentioning("qvfs-worker-smb").size(), qsizetype(1), 2000);
        ::unlink(shared("lanes").constData());
        ::unlink(shared("lanes2").constData());
    }

    void freeSpace()
    {
        // The server's figures for the share's disk (Samba: statvfs of its folder); the
        // host itself has none.
        auto j = run(Qvfs::freeSpace(url("share/")));
        QVERIFY2(j->error() == 0, qPrintable(j->errorString()));
        struct statvfs st;
        QCOMPARE(::statvfs(m_smbd.sharePath().constData(), &st), 0);
        const qint64 unit = qint64(st.f_frsize ? st.f_frsize : st.f_bsize);
        const qint64 total = qint64(st.f_blocks) * unit;
        const qint64 available = qint64(st.f_bavail) * unit;
        QVERIFY2(qAbs(j->total() - total) <= total / 100, qPrintable(QString::number(j->total())));
        QVERIFY2(
            qAbs(j->available() - available) <= 64 * MiB + total / 100, qPrintable(QString::number(j->available())));
        QVERIFY(j->used() >= 0 && j->used() <= j->total());
        auto host = run(Qvfs::freeSpace(url({})));
        QCOMPARE(host->error(), int(ErrUnsupportedAction));
    }

    void dosAttributes()
    {
        // The DOS attributes another client set are what a listing says, hidden and
        // read-only, for files and folders; a stat says both for a file and read-only for
        // a folder (libsmbclient's stat of a folder cannot tell hidden); no owner and no
        // permission bits are made up.
        QVERIFY(mkdirRaw(shared("attrs")));
        QVERIFY(writeRaw(shared("attrs/file"), "x"));
        QVERIFY(writeRaw(shared("attrs/plain"), "x"));
        QVERIFY(writeRaw(shared("attrs/ro"), "x"));
        QVERIFY(mkdirRaw(shared("attrs/folder")));
        QVERIFY(mkdirRaw(shared("attrs/open")));
        QVERIFY(mkdirRaw(shared("attrs/rofolder")));
        QVERIFY(m_smbd.handOver(shared("attrs")));
        QVERIFY(onShare(QStringLiteral(
            "setmode attrs/file +h; setmode attrs/folder +h; setmode attrs/ro +r; setmode attrs/rofolder +r")));
        const QSet<QByteArray> hidden { "file", "folder" };
        const QSet<QByteArray> readOnly { "ro", "rofolder" };
        QHash<QByteArray, Entry> listed;
        ListJob *job = listDir(url("share/attrs/"));
        connect(job, &ListJob::entries, this, [&listed](ListJob *, const EntryList &list) {
            for (const Entry &e : list)
                listed.insert(e.name().toByteArray(), e);
        });
        auto l = run(job);
        QVERIFY2(l->error() == 0, qPrintable(l->errorString()));
        QCOMPARE(listed.size(), 6);
        for (const QByteArray name : { "file", "plain", "ro", "folder", "open", "rofolder" }) {
            QCOMPARE(listed.value(name).number(Hidden, 0) == 1, hidden.contains(name));
            QCOMPARE(listed.value(name).number(ReadOnly, 0) == 1, readOnly.contains(name));
            auto st = run(Qvfs::stat(url("share/attrs/" + name)));
            QVERIFY2(st->error() == 0, qPrintable(st->errorString()));
            const Entry e = st->statResult();
            if (name != QByteArrayView("folder"))
                QCOMPARE(e.number(Hidden, 0) == 1, hidden.contains(name));
            QCOMPARE(e.number(ReadOnly, 0) == 1, readOnly.contains(name));
            QCOMPARE(e.number(Mode), qint64(-1));
            QCOMPARE(e.number(Uid), qint64(-1));
        }
        QVERIFY(onShare(QStringLiteral("setmode attrs/ro -r; setmode attrs/rofolder -r")));
        removeTreeRaw(shared("attrs"));
    }

    void watching()
    {
        // A folder a lister shows follows what another client (smbclient) does on the
        // share, and what a process does behind the server: each change once, a rename as
        // a rename, the folder's deletion once; one notifier process while it is watched.
        const QByteArray dir = shared("live");
        QVERIFY(mkdirRaw(dir));
        for (int i = 0; i < 20; ++i)
            QVERIFY(writeRaw(join(dir, "a" + QByteArray::number(i)), "x"));
        QVERIFY(m_smbd.handOver(dir));
        FixtureDir local("/dev/shm");
        QVERIFY(local.isValid());
        const QByteArray seven = join(local.path(), "seven");
        QVERIFY(writeRaw(seven, "1234567"));
        {
            DirLister lister;
            ListerTracker t(&lister);
            const QUrl u = Url::normalized(url("share/live/"));
            QVERIFY(lister.open(u));
            QVERIFY(waitFor([&] { return t.completed == 1; }));
            QCOMPARE(lister.watchMode(u), WatchMode::Native);
            QCOMPARE(t.names(u), readdirNames(dir));
            QCOMPARE(notifiers(), 1);

            QVERIFY(onShare(QStringLiteral("put %1 live/new").arg(QString::fromUtf8(seven))));
            QVERIFY(waitFor([&] { return t.entry(u, "new").size() == 7; }));
            QVERIFY(onShare(QStringLiteral("rename live/a1 live/renamed")));
            QVERIFY(waitFor([&] { return t.names(u).contains("renamed"); }));
            QCOMPARE(t.renamed, 1); // one row renamed, not a removal and an addition
            QVERIFY(!t.names(u).contains("a1"));
            QVERIFY(onShare(QStringLiteral("del live/a2")));
            QVERIFY(waitFor([&] { return !t.names(u).contains("a2"); }));
            QVERIFY(onShare(QStringLiteral("mkdir live/sub")));
            QVERIFY(waitFor([&] { return t.entry(u, "sub").type() == FileType::Directory; }));
            // Behind the server's back: Samba sees it through inotify and tells us.
            QVERIFY(writeRaw(join(dir, "local"), "hello world"));
            QVERIFY(m_smbd.handOver(join(dir, "local")));
            QVERIFY(waitFor([&] { return t.entry(u, "local").size() == 11; }));
            QVERIFY(waitQuiet(t));
            QCOMPARE(t.names(u), readdirNames(dir));

            // Deleted by another client: said once, and its notifier ends.
            QVERIFY(onShare(QStringLiteral("deltree live")));
            QVERIFY(waitFor([&] { return t.gone == 1; }));
            QVERIFY(waitFor([] { return notifiers() == 0; }, 5000));
            QVERIFY(waitQuiet(t));
            QCOMPARE(t.gone, 1);
            QVERIFY2(t.errors.isEmpty(), qPrintable(t.errors.join(QLatin1Char('\n'))));
        }
        QVERIFY(settleTestWorkers());
        QCOMPARE(notifiers(), 0);
    }

    void watchingLostEventsAndNotifiers()
    {
        // More changes than the server keeps while the notifier is not listening (it is
        // stopped): the server says "many things changed", and the folder is listed anew;
        // a notifier killed is started again; a lister closed ends its notifier.
        const QByteArray dir = shared("flood");
        QVERIFY(mkdirRaw(dir));
        QVERIFY(m_smbd.handOver(dir));
        DirLister lister;
        ListerTracker t(&lister);
        const QUrl u = Url::normalized(url("share/flood/"));
        QVERIFY(lister.open(u));
        QVERIFY(waitFor([&] { return t.completed == 1; }));
        const QList<int> pids = SmbdFixture::processesMentioning("--smb-notifier");
        QCOMPARE(pids.size(), 1);
        QCOMPARE(::kill(pids.first(), SIGSTOP), 0);
        for (int i = 0; i < 300; ++i)
            QVERIFY(writeRaw(join(dir, "flood-with-a-long-name-" + QByteArray::number(i)), {}));
        QVERIFY(m_smbd.handOver(dir));
        QTest::qWait(1500); // the server's notifications of local changes come within a second
        QCOMPARE(::kill(pids.first(), SIGCONT), 0);
        QVERIFY(waitFor([&] { return t.names(u).size() == 300; }, 30000));
        QVERIFY(waitQuiet(t));
        QCOMPARE(t.names(u), readdirNames(dir));
        QVERIFY2(t.errors.isEmpty(), qPrintable(t.errors.join(QLatin1Char('\n'))));

        // A notifier that dies (its connection dropped) is started again, and what
        // happened meanwhile is listed anew.
        QCOMPARE(::kill(pids.first(), SIGKILL), 0);
        QCOMPARE(::unlink(join(dir, "flood-with-a-long-name-7").constData()), 0);
        QVERIFY(waitFor([&] { return !t.names(u).contains("flood-with-a-long-name-7"); }));
        QVERIFY(waitFor([&] {
            const QList<int> now = SmbdFixture::processesMentioning("--smb-notifier");
            return now.size() == 1 && now.first() != pids.first();
        }));
        QVERIFY(onShare(QStringLiteral("mkdir flood/after")));
        QVERIFY(waitFor([&] { return t.names(u).contains("after"); }));
        QVERIFY(waitQuiet(t));
        QCOMPARE(t.names(u), readdirNames(dir));
        QVERIFY2(t.errors.isEmpty(), qPrintable(t.errors.join(QLatin1Char('\n'))));
        lister.closeAll();
        QVERIFY(waitFor([] { return notifiers() == 0; }, 5000));
        removeTreeRaw(dir);
    }

    void killMidPut()
    {
        FixtureDir local("/dev/shm");
        QVERIFY(local.isValid());
        const QByteArray up = join(local.path(), "data");
        QVERIFY(makeRandomFile(up, BigSize, 7));
        QVERIFY(mkdirRaw(shared("kill")));
        QVERIFY(m_smbd.handOver(shared("kill")));
        Job *job = copy(fileUrl(up), url("share/kill/"));
        job->setAutoDelete(false);
        std::unique_ptr<Job> hold(job);
        QSignalSpy result(job, &Job::result);
        connect(job, &Job::processedAmountChanged, this, [job](Job *, Job::Unit unit, qint64 amount) {
            if (unit == Job::Bytes && amount >= 20 * MiB)
                job->kill(Job::EmitResult);
        });
        QTRY_VERIFY_WITH_TIMEOUT(result.count() == 1, 60000);
        QCOMPARE(job->error(), int(ErrCancelled));
        QVERIFY2(settleTestWorkers(5000), "the worker did not stop after the kill");
        // Nothing under the final name, and the temporary went with the kill.
        QCOMPARE(sharedNames("kill"), QList<QByteArray>());
        removeTreeRaw(shared("kill"));
    }
};

QTEST_GUILESS_MAIN(SmbWorkerTest)
#include "smbworkertest.moc"
