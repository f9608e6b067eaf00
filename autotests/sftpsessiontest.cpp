// SPDX-License-Identifier: LGPL-2.1-or-later
// The sftp engine (Qvfs::Sftp::Session) against a real OpenSSH server on 127.0.0.1,
// reached through the real OpenSSH client: every operation, big transfers byte for byte,
// names that are not UTF-8, host keys (unknown, refused, changed), passwords and
// passphrases through the askpass relay, cancellation, a server that dies, and one
// authentication for five sessions (ControlMaster). Figures beside OpenSSH's own `sftp -b`
// are printed, never asserted.
#include "sftpsession.h"
#include "error.h"
#include "sftppacket_p.h"
#include "testutil/bigfile.h"
#include "testutil/rawpath.h"
#include "testutil/serverprocess.h"
#include "testutil/sshdfixture.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QSet>
#include <QTest>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstring>
#include <random>
#include <thread>

using namespace Qvfs;
using Qvfs::Sftp::Attributes;
using Qvfs::Sftp::Session;
using QvfsTest::makeRandomFile;
using QvfsTest::sameFiles;

Q_DECLARE_METATYPE(Session::Failure)
Q_DECLARE_METATYPE(SshdFixture::HostKeyCheck)

namespace
{

// A file only an injected shell command would create: this process's own name, so
// nothing else on the machine makes it exist.
QByteArray injectionMarker()
{
    return "/tmp/qvfs-sftp-injected-" + QByteArray::number(::getpid());
}

constexpr qint64 BigSize = 100 * 1024 * 1024;

using QvfsTest::namesIn;
using QvfsTest::ServerProcess::exists;
using QvfsTest::ServerProcess::readFile;
using QvfsTest::ServerProcess::writeFile;

double mbPerSecond(qint64 bytes, qint64 ms)
{
    return ms > 0 ? double(bytes) / (1024.0 * 1024.0) / (double(ms) / 1000.0) : 0.0;
}

// Records the prompts a session asks and answers them from a list.
struct Asker
{
    QList<Session::Prompt> prompts;
    QList<QByteArray> answers; // one per prompt; a missing one refuses
    bool acceptHostKey = true;

    Session::AskCallback callback()
    {
        return [this](const Session::Prompt &p) {
            prompts.append(p);
            Session::AskResult r;
            if (p.kind == Session::Prompt::UnknownHostKey) {
                r.accepted = acceptHostKey;
                return r;
            }
            const qsizetype i = prompts.size() - 1
                - std::count_if(prompts.cbegin(), prompts.cend(),
                    [](const Session::Prompt &x) { return x.kind == Session::Prompt::UnknownHostKey; });
            if (i >= 0 && i < answers.size()) {
                r.accepted = true;
                r.answer = answers.at(i);
            }
            return r;
        };
    }
};

} // namespace

class SftpSessionTest : public QObject
{
    Q_OBJECT

private:
    SshdFixture m_sshd;
    QByteArray m_runtime; // shared by the tests that do not care about connection sharing
    QByteArray m_config;
    QByteArray m_askpass;

    Session::Options options(const QByteArray &runtimeDir = {}, const QByteArray &config = {}) const
    {
        Session::Options o;
        o.host = m_sshd.host();
        o.port = m_sshd.port();
        o.user = "root";
        o.configFile = config.isEmpty() ? m_config : config;
        o.runtimeDir = runtimeDir.isEmpty() ? m_runtime : runtimeDir;
        o.environment = m_sshd.agentEnvironment();
        return o;
    }

    // OpenSSH's sftp in batch mode, riding on the same connection master as the sessions.
    qint64 timeSftpBatch(const QByteArray &batch, const QByteArray &runtimeDir, bool shared = true)
    {
        const QByteArray batchFile = m_sshd.dir() + "/batch";
        writeFile(batchFile, batch);
        QStringList args { QStringLiteral("-F"), QString::fromLocal8Bit(m_config), QStringLiteral("-P"),
            QString::number(m_sshd.port()), QStringLiteral("-b"), QString::fromLocal8Bit(batchFile) };
        if (shared) {
            args << QStringLiteral("-o") << QStringLiteral("ControlMaster=auto") << QStringLiteral("-o")
                 << QStringLiteral("ControlPath=%1/%C").arg(QString::fromLocal8Bit(runtimeDir));
        }
        args << QStringLiteral("root@127.0.0.1");
        QElapsedTimer t;
        t.start();
        QByteArray out;
        const int rc = SshdFixture::run(QStringLiteral("sftp"), args, &out, {}, m_sshd.agentEnvironment());
        const qint64 ms = t.elapsed();
        if (rc != 0) {
            qWarning("sftp -b failed (%d): %s", rc, out.constData());
            return -1;
        }
        return ms;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVFS_START_SERVER(m_sshd);
        m_runtime = m_sshd.newRuntimeDir();
        m_config = m_sshd.clientConfig(SshdFixture::HostKeyCheck::Trusted);
    }

    void cleanupTestCase()
    {
        const QByteArray dir = m_sshd.dir();
        m_sshd.stop();
        QVERIFY(!dir.isEmpty());
        QVERIFY2(!exists(dir), dir.constData());
    }

    void connectAndNegotiate()
    {
        Session s;
        const Session::Result r = s.connect(options());
        QVERIFY2(r.ok(), qPrintable(r.detail));
        QVERIFY(s.isConnected());
        QCOMPARE(s.serverVersion(), 3u);
        QVERIFY(s.hasExtension("posix-rename@openssh.com"));
        QVERIFY(s.hasExtension("limits@openssh.com"));
        QVERIFY(s.hasExtension("copy-data"));
        QVERIFY(s.limits().maxReadLength >= 32768);
        QCOMPARE(s.readChunkSize(), quint32(qMin<quint64>(s.limits().maxReadLength, 256 * 1024)));
        QVERIFY(s.writeChunkSize() > 32768);
        QByteArray home;
        QVERIFY(s.realPath(".", &home).ok());
        QCOMPARE(home, QByteArray("/root"));
        QByteArray resolved;
        QVERIFY(s.realPath(m_sshd.dataDir() + "/../data/.", &resolved).ok());
        QCOMPARE(resolved, m_sshd.dataDir());
        s.disconnect();
        QVERIFY(!s.isConnected());
        Attributes a;
        QCOMPARE(s.stat("/", &a).error, int(ErrConnectionFailed));
    }

    void stat_data()
    {
        QTest::addColumn<QByteArray>("name");
        QTest::addColumn<bool>("follow");
        QTest::addColumn<int>("error");
        QTest::addColumn<quint32>("type");
        QTest::addColumn<quint64>("size");
        QTest::newRow("file") << QByteArray("stat/file") << true << 0 << 0100000u << quint64(5);
        QTest::newRow("dir") << QByteArray("stat/dir") << true << 0 << 0040000u << quint64(0);
        QTest::newRow("link-lstat") << QByteArray("stat/link") << false << 0 << 0120000u << quint64(4);
        QTest::newRow("link-stat") << QByteArray("stat/link") << true << 0 << 0100000u << quint64(5);
        QTest::newRow("dangling-lstat") << QByteArray("stat/dangling") << false << 0 << 0120000u << quint64(7);
        QTest::newRow("dangling-stat") << QByteArray("stat/dangling") << true << int(ErrDoesNotExist) << 0u
                                       << quint64(0);
        QTest::newRow("missing") << QByteArray("stat/missing") << true << int(ErrDoesNotExist) << 0u << quint64(0);
        QTest::newRow("under-a-file") << QByteArray("stat/file/x") << true << int(ErrDoesNotExist) << 0u << quint64(0);
    }

    void stat()
    {
        QFETCH(QByteArray, name);
        QFETCH(bool, follow);
        QFETCH(int, error);
        QFETCH(quint32, type);
        QFETCH(quint64, size);
        const QByteArray base = m_sshd.dataDir() + "/stat";
        if (!exists(base)) {
            QCOMPARE(::mkdir(base.constData(), 0755), 0);
            QVERIFY(writeFile(base + "/file", "hello"));
            QCOMPARE(::mkdir(QByteArray(base + "/dir").constData(), 0750), 0);
            QCOMPARE(::symlink("file", QByteArray(base + "/link").constData()), 0);
            QCOMPARE(::symlink("nowhere", QByteArray(base + "/dangling").constData()), 0);
            const timespec times[2] = { { 1500000000, 0 }, { 1600000000, 0 } };
            QCOMPARE(::utimensat(AT_FDCWD, QByteArray(base + "/file").constData(), times, 0), 0);
        }
        Session s;
        QVERIFY(s.connect(options()).ok());
        Attributes a;
        const QByteArray path = m_sshd.dataDir() + '/' + name;
        const Session::Result r = follow ? s.stat(path, &a) : s.lstat(path, &a);
        QCOMPARE(r.error, error);
        if (error) {
            QCOMPARE(r.path, path);
            QVERIFY(!r.detail.isEmpty());
            return;
        }
        struct stat st;
        QCOMPARE(follow ? ::stat(path.constData(), &st) : ::lstat(path.constData(), &st), 0);
        QCOMPARE(a.fileType(), type);
        QCOMPARE(a.permissions, quint32(st.st_mode));
        QCOMPARE(a.mtime, quint32(st.st_mtime));
        QCOMPARE(a.uid, quint32(st.st_uid));
        if (type != 0040000u)
            QCOMPARE(a.size, size);
        if (name == "stat/file")
            QCOMPARE(a.mtime, 1600000000u);
    }

    void statRate()
    {
        Session s;
        QVERIFY(s.connect(options()).ok());
        Attributes a;
        QVERIFY(s.stat(m_sshd.dataDir(), &a).ok());
        QElapsedTimer t;
        t.start();
        for (int i = 0; i < 1000; ++i)
            QVERIFY(s.stat(m_sshd.dataDir(), &a).ok());
        const qint64 ms = qMax<qint64>(1, t.elapsed());
        qInfo("figure: 1,000 sequential stats, warm: %lld ms (%lld stats/s)", ms, 1000 * 1000 / ms);
    }

    void listLarge()
    {
        const QByteArray dir = m_sshd.dataDir() + "/many";
        QCOMPARE(::mkdir(dir.constData(), 0755), 0);
        QSet<QByteArray> expected;
        for (int i = 0; i < 10000; ++i) {
            const QByteArray name = "entry-" + QByteArray::number(i) + (i % 7 ? ".txt" : ".dat");
            const int fd = ::open(QByteArray(dir + '/' + name).constData(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
            QVERIFY(fd >= 0);
            if (i % 10 == 0)
                QCOMPARE(::write(fd, "x", 1), ssize_t(1));
            ::close(fd);
            expected.insert(name);
        }

        // Cold: a fresh runtime folder, so ssh connects and authenticates.
        const QByteArray cold = m_sshd.newRuntimeDir();
        QElapsedTimer t;
        t.start();
        Session s;
        QVERIFY(s.connect(options(cold)).ok());
        QSet<QByteArray> seen;
        int withSize = 0;
        Session::Result r = s.listDir(dir, 0, [&](const Session::DirEntry &e) {
            seen.insert(e.name.toByteArray());
            withSize += e.attrs.has(Attributes::Size) && e.attrs.size == 1 ? 1 : 0;
            return 0;
        });
        const qint64 coldMs = t.elapsed();
        QVERIFY2(r.ok(), qPrintable(r.detail));
        QCOMPARE(seen.size(), 10000);
        QCOMPARE(seen, expected);
        QCOMPARE(withSize, 1000);

        t.restart();
        int count = 0;
        r = s.listDir(dir, 0, [&](const Session::DirEntry &) { return ++count, 0; });
        const qint64 warmMs = t.elapsed();
        QVERIFY(r.ok());
        QCOMPARE(count, 10000);

        // A callback that stops the listing; the session goes on.
        count = 0;
        r = s.listDir(dir, 0, [&](const Session::DirEntry &) { return ++count == 10 ? int(ErrCancelled) : 0; });
        QCOMPARE(r.error, int(ErrCancelled));
        QCOMPARE(count, 10);
        Attributes a;
        QVERIFY(s.stat(dir, &a).ok());
        QVERIFY(a.isDir());

        const qint64 sftpCold = timeSftpBatch("ls -l " + dir + "\n", {}, false);
        qInfo("figure: list 10,000 entries: cold (connect + auth + list) %lld ms, warm %lld ms; "
              "sftp -b 'ls -l' cold %lld ms",
            coldMs, warmMs, sftpCold);
    }

    void listResolveLinks()
    {
        const QByteArray dir = m_sshd.dataDir() + "/links";
        QCOMPARE(::mkdir(dir.constData(), 0755), 0);
        QVERIFY(writeFile(dir + "/target", "0123456789"));
        QCOMPARE(::symlink("target", QByteArray(dir + "/good").constData()), 0);
        QCOMPARE(::symlink("/nonexistent/\xff", QByteArray(dir + "/dangling").constData()), 0);
        QCOMPARE(::mkdir(QByteArray(dir + "/sub").constData(), 0755), 0);
        QCOMPARE(::symlink("sub", QByteArray(dir + "/dirlink").constData()), 0);

        Session s;
        QVERIFY(s.connect(options()).ok());
        for (int flags : { 0, int(Session::ResolveLinks), int(Session::ResolveLinks | Session::IncludeDotEntries) }) {
            QMap<QByteArray, Session::DirEntry> got;
            QMap<QByteArray, QByteArray> targets;
            const Session::Result r = s.listDir(dir, flags, [&](const Session::DirEntry &e) {
                got.insert(e.name.toByteArray(), e);
                targets.insert(e.name.toByteArray(), e.linkTarget.toByteArray());
                return 0;
            });
            QVERIFY(r.ok());
            QCOMPARE(got.size(), (flags & Session::IncludeDotEntries) ? 7 : 5);
            QVERIFY(got.value("good").attrs.isSymLink());
            if (!(flags & Session::ResolveLinks)) {
                QVERIFY(targets.value("good").isEmpty());
                QVERIFY(!got.value("good").targetValid);
                continue;
            }
            QCOMPARE(targets.value("good"), QByteArray("target"));
            QVERIFY(got.value("good").targetValid);
            QVERIFY(got.value("good").targetAttrs.isRegular());
            QCOMPARE(got.value("good").targetAttrs.size, quint64(10));
            QCOMPARE(targets.value("dangling"), QByteArray("/nonexistent/\xff"));
            QVERIFY(!got.value("dangling").targetValid);
            QVERIFY(got.value("dirlink").targetAttrs.isDir());
            QVERIFY(targets.value("target").isEmpty());
        }
    }

    void operations()
    {
        const QByteArray d = m_sshd.dataDir() + "/ops";
        Session s;
        QVERIFY(s.connect(options()).ok());

        // mkdir, and again
        QVERIFY(s.mkdir(d, 0750).ok());
        struct stat st;
        QCOMPARE(::stat(d.constData(), &st), 0);
        QVERIFY(S_ISDIR(st.st_mode));
        QCOMPARE(st.st_mode & 0777, 0750u);
        Session::Result r = s.mkdir(d);
        QCOMPARE(r.error, int(ErrAlreadyExists));
        QCOMPARE(r.path, d);
        QCOMPARE(s.mkdir(d + "/no/such").error, int(ErrDoesNotExist));

        // files through put/get
        Session::PutOptions po;
        QByteArray content = "first";
        const auto source = [&content](qsizetype *pos) {
            return [&content, pos](char *buf, qint64 cap) -> qint64 {
                const qint64 n = qMin<qint64>(cap, content.size() - *pos);
                std::memcpy(buf, content.constData() + *pos, size_t(n));
                *pos += n;
                return n;
            };
        };
        qsizetype pos = 0;
        QVERIFY(s.put(d + "/a", po, source(&pos)).ok());
        QCOMPARE(readFile(d + "/a"), QByteArray("first"));
        pos = 0;
        QCOMPARE(s.put(d + "/a", po, source(&pos)).error, int(ErrAlreadyExists));
        content = "second, longer";
        pos = 0;
        po.overwrite = true;
        po.permissions = 0640;
        po.mtime = 1234567890;
        QVERIFY(s.put(d + "/a", po, source(&pos)).ok());
        QCOMPARE(readFile(d + "/a"), content);
        QCOMPARE(::stat(QByteArray(d + "/a").constData(), &st), 0);
        QCOMPARE(st.st_mode & 07777, 0640u);
        QCOMPARE(qint64(st.st_mtime), qint64(1234567890));
        // overwrite keeps the old permissions when none are given
        po.permissions.reset();
        po.mtime.reset();
        pos = 0;
        QVERIFY(s.put(d + "/a", po, source(&pos)).ok());
        QCOMPARE(::stat(QByteArray(d + "/a").constData(), &st), 0);
        QCOMPARE(st.st_mode & 07777, 0640u);
        QCOMPARE(namesIn(d), QList<QByteArray>({ "a" })); // no temporary left
        // into a missing folder: the error names the destination, not the temporary file
        pos = 0;
        r = s.put(d + "/missing/x", po, source(&pos));
        QCOMPARE(r.error, int(ErrDoesNotExist));
        QCOMPARE(r.path, d + "/missing/x");
        // over a symlink: the link is replaced, the file it pointed at keeps its contents
        // and lends its permissions
        QVERIFY(writeFile(d + "/pointee", "pointee"));
        QCOMPARE(::chmod(QByteArray(d + "/pointee").constData(), 0620), 0);
        QCOMPARE(::symlink("pointee", QByteArray(d + "/symlink").constData()), 0);
        pos = 0;
        QVERIFY(s.put(d + "/symlink", po, source(&pos)).ok());
        QCOMPARE(::lstat(QByteArray(d + "/symlink").constData(), &st), 0);
        QVERIFY(S_ISREG(st.st_mode));
        QCOMPARE(st.st_mode & 07777, 0620u);
        QCOMPARE(readFile(d + "/symlink"), content);
        QCOMPARE(readFile(d + "/pointee"), QByteArray("pointee"));
        QCOMPARE(::unlink(QByteArray(d + "/symlink").constData()), 0);
        QCOMPARE(::unlink(QByteArray(d + "/pointee").constData()), 0);

        QByteArray got;
        Attributes a;
        QVERIFY(s.get(
                     d + "/a", [&](QByteArrayView c) { return got.append(c), 0; }, {}, &a)
                    .ok());
        QCOMPARE(got, content);
        QCOMPARE(a.size, quint64(content.size()));
        QCOMPARE(s.get(d, [](QByteArrayView) { return 0; }).error, int(ErrIsDirectory));
        QCOMPARE(s.get(d + "/missing", [](QByteArrayView) { return 0; }).error, int(ErrDoesNotExist));

        // setstat
        QVERIFY(s.setPermissions(d + "/a", 0604).ok());
        QVERIFY(s.setModificationTime(d + "/a", 1700000000).ok());
        QCOMPARE(::stat(QByteArray(d + "/a").constData(), &st), 0);
        QCOMPARE(st.st_mode & 07777, 0604u);
        QCOMPARE(qint64(st.st_mtime), qint64(1700000000));
        QCOMPARE(s.setPermissions(d + "/missing", 0600).error, int(ErrDoesNotExist));

        // rename: refused onto an existing file without overwrite, atomic with it
        QVERIFY(writeFile(d + "/b", "bee"));
        r = s.rename(d + "/a", d + "/b", false);
        QCOMPARE(r.error, int(ErrAlreadyExists));
        QCOMPARE(readFile(d + "/b"), QByteArray("bee"));
        QVERIFY(s.rename(d + "/a", d + "/b", true).ok());
        QCOMPARE(readFile(d + "/b"), content);
        QVERIFY(!exists(d + "/a"));
        QVERIFY(s.rename(d + "/b", d + "/c", false).ok());
        QCOMPARE(s.rename(d + "/b", d + "/c", false).error, int(ErrDoesNotExist));

        // symlink (OpenSSH's argument order) and readlink
        QVERIFY(s.symlink("c", d + "/link").ok());
        char buf[64] = {};
        QCOMPARE(::readlink(QByteArray(d + "/link").constData(), buf, sizeof buf - 1), ssize_t(1));
        QCOMPARE(QByteArray(buf), QByteArray("c"));
        QByteArray target;
        QVERIFY(s.readLink(d + "/link", &target).ok());
        QCOMPARE(target, QByteArray("c"));
        QCOMPARE(s.symlink("x", d + "/link").error, int(ErrAlreadyExists));
        QCOMPARE(s.readLink(d + "/c", &target).error, int(ErrCannotRead)); // not a link

        // hardlink, server-side copy, statvfs
        QVERIFY(s.hardlink(d + "/c", d + "/hard").ok());
        struct stat st2;
        QCOMPARE(::stat(QByteArray(d + "/hard").constData(), &st2), 0);
        QCOMPARE(::stat(QByteArray(d + "/c").constData(), &st), 0);
        QCOMPARE(st.st_ino, st2.st_ino);
        QVERIFY(makeRandomFile(d + "/big", 3 * 1024 * 1024 + 17, 7));
        const timespec times[2] = { { 1400000000, 0 }, { 1400000000, 0 } };
        QCOMPARE(::utimensat(AT_FDCWD, QByteArray(d + "/big").constData(), times, 0), 0);
        quint64 copied = 0;
        r = s.copyFile(d + "/big", d + "/copy", {}, [&](quint64 n) { copied = n; });
        QVERIFY2(r.ok(), qPrintable(r.detail));
        QVERIFY(sameFiles(d + "/big", d + "/copy"));
        QCOMPARE(copied, quint64(3 * 1024 * 1024 + 17));
        QCOMPARE(::stat(QByteArray(d + "/copy").constData(), &st), 0);
        QCOMPARE(qint64(st.st_mtime), qint64(1400000000));
        QCOMPARE(s.copyFile(d + "/big", d + "/copy", {}).error, int(ErrAlreadyExists));
        Sftp::StatVfs vfs;
        QVERIFY(s.statVfs(d, &vfs).ok());
        struct statvfs local;
        QCOMPARE(::statvfs(d.constData(), &local), 0);
        QCOMPARE(vfs.blocks, quint64(local.f_blocks));
        QCOMPARE(vfs.fragmentSize, quint64(local.f_frsize));

        // remove and rmdir, with their refusals
        QCOMPARE(s.rmdir(d).error, int(ErrDirectoryNotEmpty));
        QCOMPARE(s.remove(d).error, int(ErrIsDirectory));
        QCOMPARE(s.rmdir(d + "/c").error, int(ErrIsNotDirectory));
        for (const char *n : { "c", "link", "hard", "big", "copy" })
            QVERIFY2(s.remove(d + '/' + n).ok(), n);
        QCOMPARE(s.remove(d + "/c").error, int(ErrDoesNotExist));
        QVERIFY(s.rmdir(d).ok());
        QVERIFY(!exists(d));
    }

    void nonUtf8Names()
    {
        const QByteArray d = m_sshd.dataDir() + "/bytes-\xff\xfe";
        const QByteArray name = "caf\xe9 \x80-n\xc3\xa4me\x01.bin";
        const QByteArray renamed = "\xc0\xaf\xed\xa0\x80 moved";
        Session s;
        QVERIFY(s.connect(options()).ok());
        QVERIFY(s.mkdir(d).ok());
        QVERIFY(exists(d));

        const QByteArray data = "bytes, not text\n";
        qsizetype pos = 0;
        QVERIFY(s.put(d + '/' + name, {}, [&](char *buf, qint64 cap) -> qint64 {
                     const qint64 n = qMin<qint64>(cap, data.size() - pos);
                     std::memcpy(buf, data.constData() + pos, size_t(n));
                     pos += n;
                     return n;
                 }).ok());
        QCOMPARE(readFile(d + '/' + name), data);

        QList<QByteArray> names;
        QVERIFY(
            s.listDir(d, 0, [&](const Session::DirEntry &e) { return names.append(e.name.toByteArray()), 0; }).ok());
        QCOMPARE(names, QList<QByteArray>({ name }));
        Attributes a;
        QVERIFY(s.stat(d + '/' + names.first(), &a).ok());
        QCOMPARE(a.size, quint64(data.size()));
        QByteArray got;
        QVERIFY(s.get(d + '/' + name, [&](QByteArrayView c) { return got.append(c), 0; }).ok());
        QCOMPARE(got, data);

        QVERIFY(s.rename(d + '/' + name, d + '/' + renamed, false).ok());
        QCOMPARE(namesIn(d), QList<QByteArray>({ renamed }));
        QVERIFY(s.symlink(renamed, d + "/l\xff").ok());
        QByteArray target;
        QVERIFY(s.readLink(d + "/l\xff", &target).ok());
        QCOMPARE(target, renamed);
        QByteArray resolved;
        QVERIFY(s.realPath(d + "/./" + renamed, &resolved).ok());
        QCOMPARE(resolved, d + '/' + renamed);
        QVERIFY(s.remove(d + "/l\xff").ok());
        QVERIFY(s.remove(d + '/' + renamed).ok());
        QVERIFY(s.rmdir(d).ok());
        QVERIFY(!exists(d));
    }

    void bigTransfers()
    {
        const QByteArray d = m_sshd.dataDir() + "/big";
        QCOMPARE(::mkdir(d.constData(), 0755), 0);
        const QByteArray local = d + "/local.bin";
        QVERIFY(makeRandomFile(local, BigSize, 42));

        Session s;
        QVERIFY(s.connect(options()).ok());
        // Rounds alternate with OpenSSH's sftp (the machine is noisy, the first transfer
        // pays for cold caches); the best of each is printed.
        constexpr int Rounds = 3;
        qint64 upMs = LLONG_MAX, downMs = LLONG_MAX, sftpPut = LLONG_MAX, sftpGet = LLONG_MAX;
        int upPeak = 0, downPeak = 0;
        for (int round = 0; round < Rounds; ++round) {
            // upload
            s.resetStatistics();
            int fd = ::open(local.constData(), O_RDONLY | O_CLOEXEC);
            QVERIFY(fd >= 0);
            quint64 progress = 0;
            Session::PutOptions po;
            po.overwrite = true;
            QElapsedTimer t;
            t.start();
            Session::Result r = s.uploadFromFd(fd, d + "/up.bin", po, [&](quint64 n) { progress = n; });
            upMs = qMin(upMs, t.elapsed());
            ::close(fd);
            QVERIFY2(r.ok(), qPrintable(r.detail));
            QCOMPARE(progress, quint64(BigSize));
            QVERIFY(sameFiles(local, d + "/up.bin"));
            upPeak = qMax(upPeak, s.statistics().peakInFlight);
            const qint64 put = timeSftpBatch("put " + local + ' ' + d + "/sftp-up.bin\n", m_runtime);
            QVERIFY(put > 0);
            sftpPut = qMin(sftpPut, put);

            // download
            s.resetStatistics();
            fd = ::open(QByteArray(d + "/down.bin").constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
            QVERIFY(fd >= 0);
            Attributes a;
            t.restart();
            r = s.downloadToFd(
                d + "/up.bin", fd, [&](quint64 n) { progress = n; }, &a);
            downMs = qMin(downMs, t.elapsed());
            ::close(fd);
            QVERIFY2(r.ok(), qPrintable(r.detail));
            QCOMPARE(a.size, quint64(BigSize));
            QVERIFY(sameFiles(local, d + "/down.bin"));
            downPeak = qMax(downPeak, s.statistics().peakInFlight);
            const qint64 get = timeSftpBatch("get " + d + "/up.bin " + d + "/sftp-down.bin\n", m_runtime);
            QVERIFY(get > 0);
            sftpGet = qMin(sftpGet, get);
            QVERIFY(sameFiles(local, d + "/sftp-down.bin"));
        }
        // Reads are small requests: the whole window goes out at once. Writes carry their
        // data, so what can be unanswered at once is bounded by ssh's channel window
        // (2 MiB) and the pipes, about eight 255 KiB writes here: still pipelined.
        QVERIFY2(downPeak >= 32, qPrintable(QString::number(downPeak)));
        QVERIFY2(upPeak >= 8, qPrintable(QString::number(upPeak)));
        qInfo("figure: upload 100 MiB, best of %d: %lld ms (%.0f MB/s, peak %d in flight of %u B); sftp -b put %lld ms "
              "(%.0f MB/s); ratio %.2f",
            Rounds, upMs, mbPerSecond(BigSize, upMs), upPeak, s.writeChunkSize(), sftpPut,
            mbPerSecond(BigSize, sftpPut), double(upMs) / double(sftpPut));
        qInfo("figure: download 100 MiB, best of %d: %lld ms (%.0f MB/s, peak %d in flight of %u B); sftp -b get %lld "
              "ms (%.0f MB/s); ratio %.2f",
            Rounds, downMs, mbPerSecond(BigSize, downMs), downPeak, s.readChunkSize(), sftpGet,
            mbPerSecond(BigSize, sftpGet), double(downMs) / double(sftpGet));
        for (const char *n : { "local.bin", "up.bin", "down.bin", "sftp-up.bin", "sftp-down.bin" })
            ::unlink(QByteArray(d + '/' + n).constData());
    }

    void streaming()
    {
        // Odd sizes, an offset, an unknown size (the last request reads short and is
        // asked again), small source chunks, a sink that stops.
        const QByteArray d = m_sshd.dataDir() + "/stream";
        QCOMPARE(::mkdir(d.constData(), 0755), 0);
        const qint64 size = 5 * 1024 * 1024 + 123;
        QVERIFY(makeRandomFile(d + "/src", size, 5));
        const QByteArray expected = readFile(d + "/src");

        Session::Options o = options();
        o.maxRequests = 32;
        Session s;
        QVERIFY(s.connect(o).ok());
        QByteArray handle;
        QVERIFY(s.open(d + "/src", Sftp::Packet::OpenRead, {}, &handle).ok());
        for (quint64 offset : { quint64(0), quint64(1), quint64(size - 1), quint64(size), quint64(size + 5) }) {
            QByteArray got;
            quint64 n = 0;
            const Session::Result r = s.download(
                handle, offset, [&](QByteArrayView c) { return got.append(c), 0; }, {}, &n, -1);
            QVERIFY2(r.ok(), qPrintable(r.detail));
            QCOMPARE(n, quint64(got.size()));
            QVERIFY(got == expected.mid(qsizetype(qMin<quint64>(offset, quint64(size)))));
        }
        // with the size known
        QByteArray got;
        QVERIFY(s.download(
                     handle, 0, [&](QByteArrayView c) { return got.append(c), 0; }, {}, nullptr, size)
                    .ok());
        QVERIFY(got == expected);
        // one READ
        QByteArray one;
        QVERIFY(s.read(handle, quint64(size - 10), 100, &one).ok());
        QCOMPARE(one, expected.right(10));
        QVERIFY(s.read(handle, quint64(size), 100, &one).ok());
        QVERIFY(one.isEmpty());
        // a sink that stops
        int calls = 0;
        const Session::Result stopped
            = s.download(handle, 0, [&](QByteArrayView) { return ++calls == 3 ? int(ErrDiskFull) : 0; });
        QCOMPARE(stopped.error, int(ErrDiskFull));
        Attributes a;
        QVERIFY(s.fstat(handle, &a).ok()); // the session is still in step
        QCOMPARE(a.size, quint64(size));
        QVERIFY(s.close(handle).ok());

        // upload in tiny pieces, and write() at an offset
        qsizetype pos = 0;
        QVERIFY(s.put(d + "/dst", {}, [&](char *buf, qint64 cap) -> qint64 {
                     const qint64 n = qMin(qMin<qint64>(cap, 1000), qint64(expected.size() - pos));
                     std::memcpy(buf, expected.constData() + pos, size_t(n));
                     pos += n;
                     return n;
                 }).ok());
        QVERIFY(sameFiles(d + "/src", d + "/dst"));
        QVERIFY(s.open(d + "/dst", Sftp::Packet::OpenWrite, {}, &handle).ok());
        QVERIFY(s.write(handle, 10, "0123456789").ok());
        QVERIFY(s.close(handle).ok());
        QByteArray patched = expected;
        patched.replace(10, 10, "0123456789");
        QVERIFY(readFile(d + "/dst") == patched);
        // a source that fails: nothing is left
        pos = 0;
        const Session::Result failed = s.put(d + "/failed", {}, [&](char *buf, qint64 cap) -> qint64 {
            if (pos > 2 * 1024 * 1024)
                return -qint64(ErrCannotRead);
            std::memset(buf, 'x', size_t(cap));
            pos += cap;
            return cap;
        });
        QCOMPARE(failed.error, int(ErrCannotRead));
        QCOMPARE(failed.path, d + "/failed");
        QCOMPARE(namesIn(d), QList<QByteArray>({ "dst", "src" }));
    }

    void cancel_data()
    {
        QTest::addColumn<bool>("upload");
        QTest::newRow("upload") << true;
        QTest::newRow("download") << false;
    }

    void cancel()
    {
        QFETCH(bool, upload);
        const QByteArray d = m_sshd.dataDir() + (upload ? "/cancel-up" : "/cancel-down");
        QCOMPARE(::mkdir(d.constData(), 0755), 0);
        if (!upload)
            QVERIFY(makeRandomFile(d + "/src", BigSize, 3));
        Session s;
        QVERIFY(s.connect(options()).ok());
        std::atomic<bool> cancelled { false };
        QElapsedTimer sinceCancel;
        s.setCancelCallback([&] { return cancelled.load(); });
        const auto onProgress = [&](quint64 n) {
            if (n >= 20 * 1024 * 1024 && !cancelled) {
                cancelled = true;
                sinceCancel.start();
            }
        };
        Session::Result r;
        if (upload) {
            r = s.put(
                d + "/dst", {},
                [](char *buf, qint64 cap) -> qint64 {
                    std::memset(buf, 'u', size_t(cap));
                    return cap; // endless
                },
                onProgress);
        } else {
            const int fd = ::open(QByteArray(d + "/dst").constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
            r = s.downloadToFd(d + "/src", fd, onProgress);
            ::close(fd);
        }
        const qint64 ms = sinceCancel.elapsed();
        QCOMPARE(r.error, int(ErrCancelled));
        qInfo("figure: %s cancelled after 20 MiB: the call returned %lld ms after the kill",
            upload ? "upload" : "download", ms);
        // The session stays usable, and (the server works in order) by the time a new
        // request is answered the temporary file is gone.
        cancelled = false;
        Attributes a;
        QVERIFY(s.stat(d, &a).ok());
        if (upload)
            QCOMPARE(namesIn(d), QList<QByteArray>());
        else
            QCOMPARE(namesIn(d), QList<QByteArray>({ "dst", "src" }));
        ::unlink(QByteArray(d + "/src").constData());
        ::unlink(QByteArray(d + "/dst").constData());
    }

    void serverDies_data()
    {
        QTest::addColumn<bool>("upload");
        QTest::newRow("upload") << true;
        QTest::newRow("download") << false;
    }

    void serverDies()
    {
        QFETCH(bool, upload);
        SshdFixture sshd; // its own server, to kill
        QString why;
        QVERIFY2(sshd.start(&why), qPrintable(why));
        Session::Options o;
        o.host = sshd.host();
        o.port = sshd.port();
        o.user = "root";
        o.configFile = sshd.clientConfig(SshdFixture::HostKeyCheck::Trusted);
        o.runtimeDir = sshd.newRuntimeDir();
        o.environment = sshd.agentEnvironment();
        const QByteArray src = sshd.dataDir() + "/src";
        if (!upload)
            QVERIFY(makeRandomFile(src, BigSize, 9));
        Session s;
        QVERIFY(s.connect(o).ok());
        QElapsedTimer sinceKill;
        const auto onProgress = [&](quint64 n) {
            if (n >= 10 * 1024 * 1024 && sshd.isRunning()) {
                sshd.killServer();
                sinceKill.start();
            }
        };
        Session::Result r;
        if (upload) {
            r = s.put(
                sshd.dataDir() + "/dst", {},
                [](char *buf, qint64 cap) -> qint64 {
                    std::memset(buf, 'u', size_t(cap));
                    return cap;
                },
                onProgress);
        } else {
            r = s.get(
                src, [](QByteArrayView) { return 0; }, onProgress);
        }
        const qint64 ms = sinceKill.elapsed();
        QVERIFY(!sshd.isRunning());
        QCOMPARE(r.error, int(ErrConnectionFailed));
        QCOMPARE(r.failure, Session::Failure::ConnectionLost);
        QVERIFY(!s.isConnected());
        qInfo("figure: %s, server killed: error after %lld ms (%s)", upload ? "upload" : "download", ms,
            qPrintable(r.detail));
        Attributes a;
        QCOMPARE(s.stat("/", &a).error, int(ErrConnectionFailed));
        // Connecting again fails cleanly too.
        const Session::Result again = s.connect(o);
        QCOMPARE(again.error, int(ErrConnectionFailed));
        QCOMPARE(again.failure, Session::Failure::ConnectionRefused);
    }

    void unknownHostKey_data()
    {
        QTest::addColumn<SshdFixture::HostKeyCheck>("check");
        QTest::addColumn<bool>("accept");
        QTest::newRow("accepted") << SshdFixture::HostKeyCheck::Ask << true;
        QTest::newRow("refused") << SshdFixture::HostKeyCheck::Ask << false;
        QTest::newRow("strict") << SshdFixture::HostKeyCheck::Strict << true;
    }

    void unknownHostKey()
    {
        QFETCH(SshdFixture::HostKeyCheck, check);
        QFETCH(bool, accept);
        const QByteArray config = m_sshd.clientConfig(check); // empties known_hosts
        Asker asker;
        asker.acceptHostKey = accept;
        Session s;
        s.setAskCallback(asker.callback());
        const Session::Result r = s.connect(options(m_sshd.newRuntimeDir(), config));
        if (check == SshdFixture::HostKeyCheck::Strict) {
            QCOMPARE(r.error, int(ErrUnknownHostKey));
            QCOMPARE(r.failure, Session::Failure::HostKeyUnknown);
            QCOMPARE(asker.prompts.size(), 0);
        } else {
            QCOMPARE(asker.prompts.size(), 1);
            const Session::Prompt &p = asker.prompts.first();
            QCOMPARE(p.kind, Session::Prompt::UnknownHostKey);
            QCOMPARE(p.fingerprint.toUtf8(), m_sshd.hostKeyFingerprint());
            QCOMPARE(p.keyType, QStringLiteral("ED25519"));
            QCOMPARE(p.host, m_sshd.host());
            QVERIFY(p.text.contains(QLatin1String("authenticity")));
            if (accept) {
                QVERIFY2(r.ok(), qPrintable(r.detail));
                Attributes a;
                QVERIFY(s.stat("/", &a).ok());
            } else {
                QCOMPARE(r.error, int(ErrUnknownHostKey));
                QCOMPARE(r.failure, Session::Failure::HostKeyUnknown);
                QCOMPARE(r.detail.toUtf8(), m_sshd.hostKeyFingerprint());
            }
        }
        const bool recorded = check == SshdFixture::HostKeyCheck::Ask && accept;
        QCOMPARE(m_sshd.knownHostsHasServer(), recorded);
        if (recorded) {
            // OpenSSH recorded it: a new connection (no master) asks nothing.
            Asker second;
            Session s2;
            s2.setAskCallback(second.callback());
            QVERIFY(s2.connect(options(m_sshd.newRuntimeDir(), config)).ok());
            QCOMPARE(second.prompts.size(), 0);
        }
        m_config = m_sshd.clientConfig(SshdFixture::HostKeyCheck::Trusted);
    }

    void changedHostKey_data()
    {
        QTest::addColumn<QByteArray>("strict");
        QTest::newRow("ask") << QByteArray("ask");
        QTest::newRow("yes") << QByteArray("yes");
        QTest::newRow("accept-new") << QByteArray("accept-new");
        QTest::newRow("no") << QByteArray("no");
    }

    void changedHostKey()
    {
        QFETCH(QByteArray, strict);
        const QByteArray config
            = m_sshd.clientConfig(SshdFixture::HostKeyCheck::Ask, { "StrictHostKeyChecking " + strict });
        QVERIFY(m_sshd.writeWrongHostKey());
        Asker asker;
        Session s;
        s.setAskCallback(asker.callback());
        const Session::Result r = s.connect(options(m_sshd.newRuntimeDir(), config));
        QCOMPARE(r.error, int(ErrHostKeyChanged));
        QCOMPARE(r.failure, Session::Failure::HostKeyChanged);
        QVERIFY2(r.detail.contains(QLatin1String("has changed")), qPrintable(r.detail));
        QCOMPARE(asker.prompts.size(), 0);
        QVERIFY(!s.isConnected());
        m_config = m_sshd.clientConfig(SshdFixture::HostKeyCheck::Trusted);
    }

    void password_data()
    {
        QTest::addColumn<QList<QByteArray>>("answers");
        QTest::addColumn<int>("error");
        QTest::addColumn<int>("prompts");
        QTest::newRow("right") << QList<QByteArray>({ "pass word!" }) << 0 << 1;
        QTest::newRow("wrong, then right") << QList<QByteArray>({ "wrong", "pass word!" }) << 0 << 2;
        QTest::newRow("always wrong") << QList<QByteArray>({ "a", "b", "c" }) << int(ErrCannotAuthenticate) << 3;
        QTest::newRow("cancelled") << QList<QByteArray>() << int(ErrCancelled) << 1;
    }

    void password()
    {
        QFETCH(QList<QByteArray>, answers);
        QFETCH(int, error);
        QFETCH(int, prompts);
        QByteArray user;
        QString why;
        if (!m_sshd.createUser("pass word!", &user, &why))
            QSKIP(qPrintable(why));
        const QByteArray config = m_sshd.clientConfig(SshdFixture::HostKeyCheck::Trusted,
            { "PubkeyAuthentication no", "PreferredAuthentications password", "NumberOfPasswordPrompts 3" });
        Session::Options o = options(m_sshd.newRuntimeDir(), config);
        o.user = user;
        o.environment = m_sshd.noAgentEnvironment();
        Asker asker;
        asker.answers = answers;
        Session s;
        s.setAskCallback(asker.callback());
        const Session::Result r = s.connect(o);
        QCOMPARE(r.error, error);
        QCOMPARE(asker.prompts.size(), prompts);
        for (int i = 0; i < asker.prompts.size(); ++i) {
            const Session::Prompt &p = asker.prompts.at(i);
            QCOMPARE(p.kind, Session::Prompt::Password);
            QCOMPARE(p.attempt, i + 1); // asked again: the worker knows the answer was wrong
            QVERIFY(p.text.contains(QString::fromLatin1(user)));
        }
        if (error == ErrCannotAuthenticate)
            QCOMPARE(r.failure, Session::Failure::AuthenticationFailed);
        if (error == 0) {
            QByteArray home;
            QVERIFY(s.realPath(".", &home).ok());
            QCOMPARE(home, m_sshd.userHome());
            qsizetype pos = 0;
            const QByteArray data = "mine";
            Session::PutOptions po;
            po.overwrite = true;
            QVERIFY(s.put(home + "/file", po, [&](char *b, qint64 c) -> qint64 {
                         const qint64 n = qMin<qint64>(c, data.size() - pos);
                         std::memcpy(b, data.constData() + pos, size_t(n));
                         pos += n;
                         return n;
                     }).ok());
            struct stat st;
            QCOMPARE(::stat(QByteArray(home + "/file").constData(), &st), 0);
            QVERIFY(st.st_uid != 0);
            QCOMPARE(s.mkdir("/root/not-yours").error, int(ErrAccessDenied));
        }
    }

    void keyboardInteractive()
    {
        // PAM asks through keyboard-interactive; ssh shows "(user@host) Password: ".
        SshdFixture sshd;
        sshd.setKeyboardInteractive(true);
        QString why;
        QVERIFY2(sshd.start(&why), qPrintable(why));
        QByteArray user;
        if (!sshd.createUser("kbd pass", &user, &why))
            QSKIP(qPrintable(why));
        Session::Options o;
        o.host = sshd.host();
        o.port = sshd.port();
        o.user = user;
        o.configFile = sshd.clientConfig(SshdFixture::HostKeyCheck::Trusted,
            { "PubkeyAuthentication no", "PreferredAuthentications keyboard-interactive" });
        o.runtimeDir = sshd.newRuntimeDir();
        o.environment = sshd.noAgentEnvironment();
        Asker asker;
        asker.answers = { "not it", "kbd pass" };
        Session s;
        s.setAskCallback(asker.callback());
        const Session::Result r = s.connect(o);
        QVERIFY2(r.ok(), qPrintable(r.detail));
        QCOMPARE(asker.prompts.size(), 2);
        for (int i = 0; i < 2; ++i) {
            QCOMPARE(asker.prompts.at(i).kind, Session::Prompt::Password);
            QCOMPARE(asker.prompts.at(i).attempt, i + 1);
            QVERIFY2(asker.prompts.at(i).text.startsWith(QLatin1Char('(')), qPrintable(asker.prompts.at(i).text));
        }
        QByteArray home;
        QVERIFY(s.realPath(".", &home).ok());
        QCOMPARE(home, sshd.userHome());
    }

    void stalledServer()
    {
        // A server that stops answering without closing the connection: the request
        // times out (or is cancelled) instead of hanging.
        SshdFixture sshd;
        QString why;
        QVERIFY2(sshd.start(&why), qPrintable(why));
        Session::Options o;
        o.host = sshd.host();
        o.port = sshd.port();
        o.user = "root";
        o.configFile = sshd.clientConfig(SshdFixture::HostKeyCheck::Trusted);
        o.runtimeDir = sshd.newRuntimeDir();
        o.environment = sshd.agentEnvironment();
        o.ioTimeoutMs = 1500;
        Session s;
        QVERIFY(s.connect(o).ok());
        Attributes a;
        QVERIFY(s.stat("/", &a).ok());

        // cancelled while waiting: the session stays usable once the server is back
        sshd.freezeServer(true);
        QElapsedTimer t;
        t.start();
        s.setCancelCallback([&] { return t.elapsed() > 300; });
        Session::Result r = s.stat("/", &a);
        const qint64 cancelMs = t.elapsed();
        QCOMPARE(r.error, int(ErrCancelled));
        s.setCancelCallback({});
        sshd.freezeServer(false);
        QVERIFY(s.stat("/", &a).ok());
        QVERIFY(a.isDir());

        // unanswered: a timeout, and the session is gone
        sshd.freezeServer(true);
        t.restart();
        r = s.listDir("/", 0, [](const Session::DirEntry &) { return 0; });
        const qint64 timeoutMs = t.elapsed();
        sshd.freezeServer(false);
        QCOMPARE(r.error, int(ErrTimedOut));
        QCOMPARE(r.failure, Session::Failure::TimedOut);
        QVERIFY(!s.isConnected());
        QCOMPARE(s.stat("/", &a).error, int(ErrTimedOut));
        qInfo("figure: frozen server: cancel honoured %lld ms after the request (300 ms asked), "
              "timeout after %lld ms (1500 ms set)",
            cancelMs, timeoutMs);
    }

    void passphrase_data()
    {
        QTest::addColumn<bool>("answer");
        QTest::newRow("answered") << true;
        QTest::newRow("cancelled") << false;
    }

    void passphrase()
    {
        QFETCH(bool, answer);
        const QByteArray config = m_sshd.clientConfig(SshdFixture::HostKeyCheck::Trusted,
            { "IdentityFile " + m_sshd.passphraseKeyPath(), "IdentitiesOnly yes", "PasswordAuthentication no",
                "KbdInteractiveAuthentication no" });
        Session::Options o = options(m_sshd.newRuntimeDir(), config);
        o.environment = m_sshd.noAgentEnvironment();
        Asker asker;
        if (answer)
            asker.answers = { m_sshd.passphrase() };
        Session s;
        s.setAskCallback(asker.callback());
        const Session::Result r = s.connect(o);
        QCOMPARE(r.error, answer ? 0 : int(ErrCancelled));
        QCOMPARE(asker.prompts.size(), 1);
        QCOMPARE(asker.prompts.first().kind, Session::Prompt::Passphrase);
        QCOMPARE(asker.prompts.first().keyFile.toUtf8(), m_sshd.passphraseKeyPath());
    }

    void connectErrors_data()
    {
        QTest::addColumn<QByteArray>("host");
        QTest::addColumn<int>("port");
        QTest::addColumn<QByteArray>("user");
        QTest::addColumn<QList<QByteArray>>("extra");
        QTest::addColumn<int>("error");
        QTest::addColumn<Session::Failure>("failure");
        QTest::newRow("refused") << QByteArray("127.0.0.1") << 1 << QByteArray("root") << QList<QByteArray>()
                                 << int(ErrConnectionFailed) << Session::Failure::ConnectionRefused;
        QTest::newRow("no such host") << QByteArray("no-such-host.invalid") << 0 << QByteArray("root")
                                      << QList<QByteArray>() << int(ErrHostNotFound) << Session::Failure::HostNotFound;
        QTest::newRow("denied") << QByteArray("127.0.0.1") << 0 << QByteArray("root")
                                << QList<QByteArray>({ "PubkeyAuthentication no", "PasswordAuthentication no",
                                       "KbdInteractiveAuthentication no" })
                                << int(ErrCannotAuthenticate) << Session::Failure::AuthenticationFailed;
        QTest::newRow("option as host") << QByteArray("-oProxyCommand=touch " + injectionMarker()) << 0
                                        << QByteArray("root") << QList<QByteArray>() << int(ErrMalformedUrl)
                                        << Session::Failure::None;
        QTest::newRow("shell in user") << QByteArray("127.0.0.1") << 0 << QByteArray("a;touch " + injectionMarker())
                                       << QList<QByteArray>() << int(ErrMalformedUrl) << Session::Failure::None;
        QTest::newRow("silent server") << QByteArray("127.0.0.1") << -1 << QByteArray("root") << QList<QByteArray>()
                                       << int(ErrTimedOut) << Session::Failure::TimedOut;
    }

    void connectErrors()
    {
        QFETCH(QByteArray, host);
        QFETCH(int, port);
        QFETCH(QByteArray, user);
        QFETCH(QList<QByteArray>, extra);
        QFETCH(int, error);
        QFETCH(Session::Failure, failure);
        // A server that accepts connections and never says a word.
        int silent = -1;
        if (port == -1) {
            silent = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
            sockaddr_in a {};
            a.sin_family = AF_INET;
            a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            socklen_t len = sizeof a;
            QCOMPARE(::bind(silent, reinterpret_cast<sockaddr *>(&a), sizeof a), 0);
            QCOMPARE(::listen(silent, 4), 0);
            QCOMPARE(::getsockname(silent, reinterpret_cast<sockaddr *>(&a), &len), 0);
            port = ntohs(a.sin_port);
        }
        Session::Options o
            = options(m_sshd.newRuntimeDir(), m_sshd.clientConfig(SshdFixture::HostKeyCheck::Trusted, extra));
        o.host = host;
        o.user = user;
        o.port = port ? port : m_sshd.port();
        o.connectTimeoutSeconds = 2;
        Asker asker;
        Session s;
        s.setAskCallback(asker.callback());
        QElapsedTimer t;
        t.start();
        const Session::Result r = s.connect(o);
        if (silent >= 0)
            ::close(silent);
        QVERIFY2(r.error == error, qPrintable(QStringLiteral("%1: %2").arg(r.error).arg(r.detail)));
        QCOMPARE(r.failure, failure);
        QVERIFY(!r.detail.isEmpty());
        QCOMPARE(asker.prompts.size(), 0);
        QVERIFY(!exists(injectionMarker()));
        qInfo("figure: %s: %lld ms (%s)", QTest::currentDataTag(), t.elapsed(), qPrintable(r.detail));
        m_config = m_sshd.clientConfig(SshdFixture::HostKeyCheck::Trusted);
    }

    void environment_data()
    {
        QTest::addColumn<QByteArray>("program"); // QVFS_SSH_PROGRAM, as a shell script's body
        QTest::addColumn<int>("error");
        QTest::addColumn<QString>("detail");
        QTest::newRow("ssh") << QByteArray("exec ssh \"$@\"") << 0 << QString();
        QTest::newRow("missing") << QByteArray() << int(ErrCannotCreateWorker) << QStringLiteral("No such file");
        QTest::newRow("chatty shell") << QByteArray("echo 'Welcome to the server!'; exec ssh \"$@\"")
                                      << int(ErrProtocolError) << QStringLiteral("Welcome to the server");
    }

    void environment()
    {
        // QVFS_SSH_CONFIG and QVFS_SSH_PROGRAM stand in for empty options; a program that
        // prints before SFTP starts (as a shell start-up file on the server would) is named.
        QFETCH(QByteArray, program);
        QFETCH(int, error);
        QFETCH(QString, detail);
        QByteArray path = m_sshd.dir() + "/no-such-ssh";
        if (!program.isEmpty()) {
            path = m_sshd.dir() + "/ssh-wrapper-" + QByteArray::number(QTest::currentDataTag()[0]);
            QVERIFY(writeFile(path, "#!/bin/sh\n" + program + '\n'));
            QCOMPARE(::chmod(path.constData(), 0755), 0);
        }
        qputenv("QVFS_SSH_CONFIG", m_config);
        qputenv("QVFS_SSH_PROGRAM", path);
        Session::Options o = options(m_sshd.newRuntimeDir());
        o.configFile.clear();
        Session s;
        const Session::Result r = s.connect(o);
        qunsetenv("QVFS_SSH_CONFIG");
        qunsetenv("QVFS_SSH_PROGRAM");
        QVERIFY2(r.error == error, qPrintable(QStringLiteral("%1: %2").arg(r.error).arg(r.detail)));
        QVERIFY2(r.detail.contains(detail), qPrintable(r.detail));
        if (!error) {
            Attributes a;
            QVERIFY(s.stat("/", &a).ok());
        }
    }

    void sharedConnection()
    {
        // Five sessions at once to one host: one authenticates (and becomes the master),
        // the four others wait for it and ride on its connection.
        const QByteArray runtime = m_sshd.newRuntimeDir();
        const int before = m_sshd.countInLog("Accepted publickey");
        constexpr int N = 5;
        std::atomic<int> ok { 0 };
        std::atomic<int> connected { 0 };
        std::vector<std::thread> threads;
        const Session::Options o = options(runtime);
        for (int i = 0; i < N; ++i) {
            threads.emplace_back([&] {
                Session s;
                if (!s.connect(o).ok())
                    return;
                ++connected;
                while (connected.load() < N && s.isConnected())
                    ::usleep(1000); // all five connected at the same time
                Attributes a;
                if (s.stat("/", &a).ok() && a.isDir())
                    ++ok;
            });
        }
        for (std::thread &t : threads)
            t.join();
        QCOMPARE(ok.load(), N);
        QCOMPARE(m_sshd.countInLog("Accepted publickey") - before, 1);
    }
};

QTEST_GUILESS_MAIN(SftpSessionTest)
#include "sftpsessiontest.moc"
