// SPDX-License-Identifier: LGPL-2.1-or-later
// qvfs-worker-test: serves test:///<behaviour>?<arguments> so the autotests can prove
// every failure path with a real process. Behaviours (the first path segment):
//   ok        stat: an entry named after the path, Size = the "size" argument
//             (every entry carries Inode = the worker's pid)
//   pid       stat: Size = this process's pid (to see which worker served a job)
//   flood     list: "n" entries (default: until killed), Name = "f<i>"
//   slow      stat after "ms" milliseconds, checking for kill every 10 ms
//   hang      stat: sleeps without heartbeats (the deadline must fire)
//   crash     list: a few entries, then abort()
//   exit      stat: _exit(3) at once
//   garbage   stat: writes bytes that are not a frame
//   badbatch  list: a well-framed Entries message with a malformed payload
//   ask       stat: asks a "conflict" question; the answer's "action" becomes Name
//   evil      stat: a folder; list: names that try to leave it ("../escape.txt", ...);
//             get evil/<name>: "abc"
//   password  stat: asks for a password for realm "test"; Name = "user:password"
//   data      get: "size" bytes of 'x' in 64 KiB chunks; stat: a regular file of that size
//   sink      put: reads everything; result "bytes"
//   eventloop stat: runs a Qt event loop inside the hook (waitUntil) until a timer of "ms"
//             milliseconds fires (-1: never; a kill must still end it); Name = "waited"
//   fs        a real folder: test:///fs/<path> is $QVFS_TEST_FS_ROOT/<path>, with list,
//             stat, put, delete and mkdir, and no watch of its own (the live-folder tests
//             poll it, or follow their own jobs). Every listing appends a line to
//             $QVFS_TEST_FS_ROOT.listings, so a test counts the listings a lister made.

#include "workerbase.h"

#include <QtEndian>

#include <QTimer>
#include <QUrlQuery>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace
{

void sleepMs(int ms)
{
    timespec ts { ms / 1000, long(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0) { }
}

QByteArray behaviour(const QUrl &url)
{
    const QString path = url.path();
    return path.section(QLatin1Char('/'), 1, 1).toUtf8();
}

qint64 arg(const QUrl &url, const char *name, qint64 fallback)
{
    bool ok = false;
    const qint64 v = QUrlQuery(url).queryItemValue(QLatin1String(name)).toLongLong(&ok);
    return ok ? v : fallback;
}

/*! The local path of a test:///fs/... URL (empty: not one, or no root set). */
QByteArray fsPath(const QUrl &url)
{
    const QByteArray root = qgetenv("QVFS_TEST_FS_ROOT");
    const QByteArray path = QByteArray::fromPercentEncoding(url.path(QUrl::FullyEncoded).toLatin1());
    if (root.isEmpty() || !(path == "/fs" || path.startsWith("/fs/")))
        return {};
    const QByteArray rel = path.mid(3);
    for (const QByteArray &seg : rel.split('/')) {
        if (seg == "..")
            return {};
    }
    return root + rel;
}

Qvfs::FileType fsType(mode_t m)
{
    return S_ISDIR(m) ? Qvfs::FileType::Directory : S_ISLNK(m) ? Qvfs::FileType::Symlink : Qvfs::FileType::Regular;
}

class TestWorker : public Qvfs::WorkerBase
{
public:
    void fsEntry(const QByteArray &name, const struct stat &st)
    {
        beginEntry();
        addString(Qvfs::Name, name);
        addNumber(Qvfs::Type, qint64(fsType(st.st_mode)));
        addNumber(Qvfs::Mode, st.st_mode & 07777);
        addNumber(Qvfs::Size, st.st_size);
        addNumber(Qvfs::MTime, st.st_mtim.tv_sec);
        addNumber(Qvfs::MTimeNs, st.st_mtim.tv_nsec);
        endEntry();
    }

    Qvfs::WorkerResult fsList(const QUrl &url)
    {
        const QByteArray path = fsPath(url);
        DIR *dir = path.isEmpty() ? nullptr : opendir(path.constData());
        if (!dir)
            return Qvfs::WorkerResult::fail(Qvfs::ErrDoesNotExist, url);
        const QByteArray log = qgetenv("QVFS_TEST_FS_ROOT") + ".listings";
        const int logFd = ::open(log.constData(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
        if (logFd >= 0) {
            const QByteArray line = url.toEncoded() + '\n';
            (void)!::write(logFd, line.constData(), size_t(line.size()));
            ::close(logFd);
        }
        while (dirent *de = readdir(dir)) {
            const QByteArray name(de->d_name);
            struct stat st;
            if (name == "." || name == ".." || fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
                continue;
            fsEntry(name, st);
        }
        closedir(dir);
        return Qvfs::WorkerResult::pass();
    }

    Qvfs::WorkerResult fsStat(const QUrl &url)
    {
        const QByteArray path = fsPath(url);
        struct stat st;
        if (path.isEmpty() || lstat(path.constData(), &st) != 0)
            return Qvfs::WorkerResult::fail(Qvfs::ErrDoesNotExist, url);
        fsEntry(path.mid(path.lastIndexOf('/') + 1), st);
        return Qvfs::WorkerResult::pass();
    }

    Qvfs::WorkerResult fsPut(const Qvfs::PutRequest &request)
    {
        const QByteArray path = fsPath(request.url);
        if (path.isEmpty())
            return Qvfs::WorkerResult::fail(Qvfs::ErrAccessDenied, request.url);
        struct stat st;
        if (!request.overwrite && lstat(path.constData(), &st) == 0)
            return Qvfs::WorkerResult::fail(Qvfs::ErrAlreadyExists, request.url);
        const QByteArray tmp = path + ".part-test";
        const int fd = ::open(tmp.constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0)
            return Qvfs::WorkerResult::fail(Qvfs::ErrCannotWrite, request.url);
        QByteArray chunk;
        while (readData(&chunk))
            (void)!::write(fd, chunk.constData(), size_t(chunk.size()));
        ::close(fd);
        if (wasKilled()) {
            ::unlink(tmp.constData());
            return Qvfs::WorkerResult::fail(Qvfs::ErrCancelled);
        }
        if (request.mtime >= 0) {
            const timespec times[2] = { { 0, UTIME_OMIT }, { time_t(request.mtime), long(request.mtimeNs) } };
            utimensat(AT_FDCWD, tmp.constData(), times, 0);
        }
        if (::rename(tmp.constData(), path.constData()) != 0)
            return Qvfs::WorkerResult::fail(Qvfs::ErrCannotWrite, request.url);
        return Qvfs::WorkerResult::pass();
    }

    Qvfs::WorkerResult del(const Qvfs::DeleteRequest &request) override
    {
        const QByteArray path = fsPath(request.url);
        if (path.isEmpty())
            return Qvfs::WorkerResult::fail(Qvfs::ErrAccessDenied, request.url);
        if (::unlink(path.constData()) != 0 && ::rmdir(path.constData()) != 0)
            return Qvfs::WorkerResult::fail(
                errno == ENOENT ? Qvfs::ErrDoesNotExist : Qvfs::ErrCannotDelete, request.url);
        setResult(ResultKey::Removed, 1);
        return Qvfs::WorkerResult::pass();
    }

    Qvfs::WorkerResult mkdir(const Qvfs::MkdirRequest &request) override
    {
        const QByteArray path = fsPath(request.url);
        if (path.isEmpty())
            return Qvfs::WorkerResult::fail(Qvfs::ErrAccessDenied, request.url);
        if (::mkdir(path.constData(), 0755) != 0)
            return Qvfs::WorkerResult::fail(
                errno == EEXIST ? Qvfs::ErrAlreadyExists : Qvfs::ErrCannotWrite, request.url);
        return Qvfs::WorkerResult::pass();
    }

    TestWorker()
        : WorkerBase(QByteArrayLiteral("test"), EventLoop)
    { }

    void entry(const QByteArray &name, qint64 size)
    {
        beginEntry();
        addString(Qvfs::Name, name);
        addNumber(Qvfs::Type, qint64(Qvfs::FileType::Regular));
        addNumber(Qvfs::Size, size);
        addNumber(Qvfs::Inode, qint64(getpid())); // which worker served it
        endEntry();
    }

    Qvfs::WorkerResult stat(const Qvfs::StatRequest &request) override
    {
        const QUrl &url = request.url;
        const QByteArray b = behaviour(url);
        if (b == "fs")
            return fsStat(url);
        if (b == "data") {
            beginEntry();
            addString(Qvfs::Name, "data");
            addNumber(Qvfs::Type, qint64(Qvfs::FileType::Regular));
            addNumber(Qvfs::Size, arg(url, "size", 1024 * 1024));
            endEntry();
        } else if (b == "evil") {
            beginEntry();
            addString(Qvfs::Name, "evil");
            addNumber(Qvfs::Type, qint64(Qvfs::FileType::Directory));
            endEntry();
        } else if (b == "ok") {
            entry(url.path().toUtf8(), arg(url, "size", 0));
        } else if (b == "pid") {
            entry("pid", qint64(getpid()));
        } else if (b == "slow") {
            const qint64 ms = arg(url, "ms", 1000);
            for (qint64 t = 0; t < ms; t += 10) {
                if (wasKilled())
                    return Qvfs::WorkerResult::fail(Qvfs::ErrCancelled);
                sleepMs(10);
            }
            entry("slow", ms);
        } else if (b == "eventloop") {
            const qint64 ms = arg(url, "ms", 50);
            bool fired = false;
            QTimer timer;
            timer.setSingleShot(true);
            QObject::connect(&timer, &QTimer::timeout, [&fired] { fired = true; });
            if (ms >= 0)
                timer.start(int(ms));
            if (!waitUntil([&fired] { return fired; }))
                return Qvfs::WorkerResult::fail(wasKilled() ? Qvfs::ErrCancelled : Qvfs::ErrTimedOut, url);
            entry("waited", ms);
        } else if (b == "hang") {
            for (;;)
                sleepMs(1000);
        } else if (b == "exit") {
            _exit(3);
        } else if (b == "garbage") {
            const char junk[] = "\xff\xff\xff\x7fthis is not a frame at all";
            (void)!write(socketFd(), junk, sizeof junk);
            sleepMs(5000);
        } else if (b == "password") {
            Qvfs::PasswordQuestion q;
            q.url = QUrl(QStringLiteral("test://bob@example.org/"));
            q.realm = QStringLiteral("test");
            q.user = QStringLiteral("bob");
            q.retry = arg(url, "retry", 0) != 0;
            const Qvfs::Credentials a = askPassword(q);
            if (!a.answered)
                return Qvfs::WorkerResult::fail(Qvfs::ErrCannotAuthenticate, url);
            entry(a.user.toUtf8() + ':' + a.password.toUtf8(), 0);
        } else if (b == "ask") {
            const Qvfs::ConflictAnswer a = askConflict(
                Qvfs::ConflictQuestion { QUrl(QStringLiteral("test:///a")), QUrl(QStringLiteral("test:///b")) });
            if (!a.answered)
                return Qvfs::WorkerResult::fail(Qvfs::ErrNotAnswered, url);
            entry(Qvfs::conflictActionName(a.action), a.applyToAll ? 1 : 0);
        } else {
            return Qvfs::WorkerResult::fail(Qvfs::ErrDoesNotExist, url);
        }
        return Qvfs::WorkerResult::pass();
    }

    Qvfs::WorkerResult listDir(const Qvfs::ListRequest &request) override
    {
        const QUrl &url = request.url;
        const QByteArray b = behaviour(url);
        if (b == "fs")
            return fsList(url);
        if (b == "flood") {
            const qint64 n = arg(url, "n", -1);
            for (qint64 i = 0; n < 0 || i < n; ++i) {
                entry("f" + QByteArray::number(i), i);
                if (wasKilled())
                    return Qvfs::WorkerResult::fail(Qvfs::ErrCancelled);
            }
            return Qvfs::WorkerResult::pass();
        }
        if (b == "evil") {
            for (const char *name : { "ok.txt", "../escape.txt", "sub/../../escape2.txt", "/etc/escape3.txt" })
                entry(name, 3);
            return Qvfs::WorkerResult::pass();
        }
        if (b == "crash") {
            for (int i = 0; i < 10; ++i)
                entry("c" + QByteArray::number(i), i);
            std::abort();
        }
        if (b == "badbatch") {
            // A well-framed Entries message (type 30) whose payload uses an undefined key
            // set; the header is written by hand, as a foreign peer would.
            const char payload[] = { 1, 9, 1, 2, 3, 4 };
            const quint32 header[3] = { qToLittleEndian(quint32(sizeof payload)), qToLittleEndian(quint32(30)),
                qToLittleEndian(requestId()) };
            char frame[sizeof header + sizeof payload];
            memcpy(frame, header, sizeof header);
            memcpy(frame + sizeof header, payload, sizeof payload);
            (void)!write(socketFd(), frame, sizeof frame);
            sleepMs(5000);
            return Qvfs::WorkerResult::pass();
        }
        return Qvfs::WorkerResult::fail(Qvfs::ErrDoesNotExist, url);
    }

    Qvfs::WorkerResult get(const Qvfs::GetRequest &request) override
    {
        const QUrl &url = request.url;
        if (behaviour(url) == "evil") {
            data("abc");
            return Qvfs::WorkerResult::pass();
        }
        if (behaviour(url) != "data")
            return Qvfs::WorkerResult::fail(Qvfs::ErrDoesNotExist, url);
        mimeType(QStringLiteral("application/x-test"));
        const qint64 size = arg(url, "size", 1024 * 1024);
        setTotals(size, 1);
        const QByteArray chunk(64 * 1024, 'x');
        qint64 done = 0;
        while (done < size) {
            const qint64 n = qMin<qint64>(chunk.size(), size - done);
            data(QByteArrayView(chunk.constData(), n));
            done += n;
            setProcessed(done);
            if (wasKilled())
                return Qvfs::WorkerResult::fail(Qvfs::ErrCancelled);
        }
        return Qvfs::WorkerResult::pass();
    }

    Qvfs::WorkerResult put(const Qvfs::PutRequest &request) override
    {
        const QUrl &url = request.url;
        if (behaviour(url) == "fs")
            return fsPut(request);
        if (behaviour(url) != "sink")
            return Qvfs::WorkerResult::fail(Qvfs::ErrAccessDenied, url);
        QByteArray chunk;
        qint64 total = 0;
        while (readData(&chunk))
            total += chunk.size();
        if (wasKilled())
            return Qvfs::WorkerResult::fail(Qvfs::ErrCancelled);
        setResult(ResultKey::Bytes, total);
        return Qvfs::WorkerResult::pass();
    }
};

} // namespace

int main(int argc, char **argv)
{
    std::signal(SIGPIPE, SIG_IGN);
    TestWorker worker;
    return worker.exec(argc, argv);
}
