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

#include "wire_p.h"
#include "workerbase.h"

#include <QUrlQuery>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
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

class TestWorker : public Qvfs::WorkerBase
{
public:
    TestWorker()
        : WorkerBase(QByteArrayLiteral("test"))
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

    Qvfs::WorkerResult stat(const QUrl &url, Qvfs::Details) override
    {
        const QByteArray b = behaviour(url);
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
            Qvfs::MetaData q;
            q.setBytes("url", "test://bob@example.org/");
            q.setBytes("realm", "test");
            q.setBytes("user", "bob");
            const Qvfs::MetaData a = ask("password", q);
            if (!a.contains("password"))
                return Qvfs::WorkerResult::fail(Qvfs::ErrCannotAuthenticate, url);
            entry(a.bytes("user") + ':' + a.bytes("password"), 0);
        } else if (b == "ask") {
            Qvfs::MetaData q;
            q.setBytes("source", "test:///a");
            q.setBytes("destination", "test:///b");
            const Qvfs::MetaData a = ask("conflict", q);
            if (a.bytes("action").isEmpty())
                return Qvfs::WorkerResult::fail(Qvfs::ErrNotAnswered, url);
            entry(a.bytes("action"), a.number("apply-to-all"));
        } else {
            return Qvfs::WorkerResult::fail(Qvfs::ErrDoesNotExist, url);
        }
        return Qvfs::WorkerResult::pass();
    }

    Qvfs::WorkerResult listDir(const QUrl &url, Qvfs::Details, bool) override
    {
        const QByteArray b = behaviour(url);
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
            // A well-framed Entries message whose payload uses an undefined key set.
            const char payload[] = { 1, 9, 1, 2, 3, 4 };
            char frame[Qvfs::Wire::HeaderSize + sizeof payload];
            Qvfs::Wire::putHeader(frame,
                Qvfs::Wire::Header { quint32(sizeof payload), quint16(Qvfs::Wire::Msg::Entries), 0, requestId() });
            memcpy(frame + Qvfs::Wire::HeaderSize, payload, sizeof payload);
            (void)!write(socketFd(), frame, sizeof frame);
            sleepMs(5000);
            return Qvfs::WorkerResult::pass();
        }
        return Qvfs::WorkerResult::fail(Qvfs::ErrDoesNotExist, url);
    }

    Qvfs::WorkerResult get(const QUrl &url) override
    {
        if (behaviour(url) == "evil") {
            data("abc");
            return Qvfs::WorkerResult::pass();
        }
        if (behaviour(url) != "data")
            return Qvfs::WorkerResult::fail(Qvfs::ErrDoesNotExist, url);
        Qvfs::MetaData m;
        m.setBytes("mimetype", "application/x-test");
        sendMetaData(m);
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

    Qvfs::WorkerResult put(const QUrl &url) override
    {
        if (behaviour(url) != "sink")
            return Qvfs::WorkerResult::fail(Qvfs::ErrAccessDenied, url);
        QByteArray chunk;
        qint64 total = 0;
        while (readData(&chunk))
            total += chunk.size();
        if (wasKilled())
            return Qvfs::WorkerResult::fail(Qvfs::ErrCancelled);
        setResult("bytes", total);
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
