// SPDX-License-Identifier: LGPL-2.1-or-later
// fileaccess_benchmark: random access (Qvfs::open(), FileJob, FileDevice) on file://
// against its baselines, measured in the same run on the same file:
//   1. a 4 KiB read at a random offset, its round trip on a warm worker:
//        pread() in this process (the floor),
//        FileJob::readAt() answered through the event loop (the asynchronous API),
//        FileDevice::seek() + read(4096) (the blocking QIODevice, no event loop);
//      median and 99th percentile in µs, the ratio to pread (bar: FileJob median ≤ 100 µs);
//   2. reading the whole file in order: read() in 64 KiB blocks (the floor), a get job
//      (TransferJob) whose consumer only counts the bytes, the same get job whose consumer
//      copies them into a 64 KiB buffer (what every QIODevice reader does), FileJob with 4
//      reads of 256 KiB in flight, FileDevice::read() in 64 KiB blocks (bar: FileDevice
//      ≥ 80% of get).
//      Each runs R times in turn (default 5), the best counts (page cache warm for all).
//
// Usage: fileaccess_benchmark [--quick] [--size MIB] [--reads N] [--rounds R]
//                             [--ahead N] [--ahead-kib K] [--via URL] [DIR]
//   DIR    where the test file goes (default: a temporary folder under TMPDIR)
//   --via URL  open the file through another protocol that serves this machine's files,
//              e.g. sftp://root@127.0.0.1:2222 (the file's local path is appended); the
//              baselines (pread, read) stay local
//   --quick  32 MiB and 2,000 reads (default: 256 MiB, 10,000 reads)
//   --ahead, --ahead-kib  FileDevice::setReadAhead() for the sequential run
// Prints a table and one key=value line; never asserts a time (exit 1 only when a read
// fails or returns wrong bytes).
#include <Qvfs/FileDevice>
#include <Qvfs/FileJob>
#include <Qvfs/Job>
#include <Qvfs/TransferJob>
#include <Qvfs/Url>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QHash>
#include <QRandomGenerator>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>
#include <vector>

namespace
{

constexpr qint64 Block = 4096;
constexpr qint64 SeqBlock = 64 * 1024;

struct Stats
{
    double medianUs = 0;
    double p99Us = 0;
};

Stats stats(std::vector<qint64> ns)
{
    Stats s;
    if (ns.empty())
        return s;
    std::sort(ns.begin(), ns.end());
    s.medianUs = double(ns[ns.size() / 2]) / 1e3;
    s.p99Us = double(ns[std::min(ns.size() - 1, ns.size() * 99 / 100)]) / 1e3;
    return s;
}

bool writeFile(const QByteArray &path, qint64 size)
{
    const int fd = ::open(path.constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return false;
    QByteArray block(1024 * 1024, Qt::Uninitialized);
    quint64 x = 0x9e3779b97f4a7c15ull;
    for (qint64 done = 0; done < size; done += block.size()) {
        for (qsizetype i = 0; i + 8 <= block.size(); i += 8) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            std::memcpy(block.data() + i, &x, 8);
        }
        const qint64 n = std::min<qint64>(block.size(), size - done);
        if (::write(fd, block.constData(), size_t(n)) != ssize_t(n)) {
            ::close(fd);
            return false;
        }
    }
    return ::close(fd) == 0;
}

/*! MB/s of reading \a bytes in \a ns. */
double mbps(qint64 bytes, qint64 ns)
{
    return ns > 0 ? double(bytes) / (double(ns) / 1e9) / 1e6 : 0;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    qint64 sizeMiB = 256;
    int reads = 10000;
    int rounds = 5;
    int ahead = -1;
    qint64 aheadChunk = 256 * 1024;
    QByteArray only; // get, get-copy, job or device: that sequential contender alone (for a profiler)
    QByteArray dirArg;
    QUrl via; // another protocol's root that serves this machine's files
    for (int i = 1; i < argc; ++i) {
        const QByteArray a(argv[i]);
        if (a == "--quick") {
            sizeMiB = 32;
            reads = 2000;
        } else if (a == "--size" && i + 1 < argc) {
            sizeMiB = std::max(1, std::atoi(argv[++i]));
        } else if (a == "--reads" && i + 1 < argc) {
            reads = std::max(10, std::atoi(argv[++i]));
        } else if (a == "--rounds" && i + 1 < argc) {
            rounds = std::max(1, std::atoi(argv[++i]));
        } else if (a == "--ahead" && i + 1 < argc) {
            ahead = std::max(0, std::atoi(argv[++i]));
        } else if (a == "--ahead-kib" && i + 1 < argc) {
            aheadChunk = qint64(std::max(4, std::atoi(argv[++i]))) * 1024;
        } else if (a == "--via" && i + 1 < argc) {
            via = QUrl(QString::fromLocal8Bit(argv[++i]));
        } else if (a == "--only" && i + 1 < argc) {
            only = argv[++i];
            reads = 10;
        } else if (!a.startsWith('-')) {
            dirArg = a;
        } else {
            std::fprintf(stderr,
                "usage: fileaccess_benchmark [--quick] [--size MIB] [--reads N] [--rounds R] [--ahead N] "
                "[--ahead-kib K] [--via URL] [DIR]\n");
            return 2;
        }
    }
    QTemporaryDir tmp(
        dirArg.isEmpty() ? QString() : QString::fromLocal8Bit(dirArg) + QStringLiteral("/qvfs-fa-XXXXXX"));
    if (!tmp.isValid()) {
        std::fprintf(stderr, "fileaccess_benchmark: cannot create a temporary folder\n");
        return 1;
    }
    const QByteArray path = QFile::encodeName(tmp.path()) + "/data";
    const qint64 size = sizeMiB * 1024 * 1024;
    if (!writeFile(path, size)) {
        std::fprintf(stderr, "fileaccess_benchmark: cannot write %s\n", path.constData());
        return 1;
    }
    QUrl url = Qvfs::Url::fromLocalPath(path);
    if (via.isValid()) {
        via.setPath(QStringLiteral("/"));
        url = Qvfs::Url::child(via, path.mid(1));
    }
    const int fd = ::open(path.constData(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 1;
    // Warm the page cache for every contender.
    {
        QByteArray buf(SeqBlock, Qt::Uninitialized);
        while (::read(fd, buf.data(), size_t(buf.size())) > 0) { }
    }

    // Random offsets, 4 KiB aligned, the same for every contender.
    QRandomGenerator rng(2026);
    std::vector<qint64> offsets(size_t(reads) + 200);
    for (qint64 &o : offsets)
        o = qint64(rng.bounded(quint64(size / Block))) * Block;

    int failures = 0;
    QElapsedTimer clock;
    clock.start();

    // ---- 1a. pread
    std::vector<qint64> preadNs;
    {
        QByteArray buf(Block, Qt::Uninitialized);
        for (size_t i = 0; i < offsets.size(); ++i) {
            const qint64 t0 = clock.nsecsElapsed();
            const ssize_t n = ::pread(fd, buf.data(), size_t(Block), off_t(offsets[i]));
            const qint64 t1 = clock.nsecsElapsed();
            if (n != Block)
                ++failures;
            if (i >= 200)
                preadNs.push_back(t1 - t0);
        }
    }

    // ---- 1b. FileJob::readAt through the event loop, one at a time
    std::vector<qint64> jobNs;
    {
        Qvfs::FileJob *job = Qvfs::open(url, QIODevice::ReadOnly);
        job->setAutoDelete(false);
        QEventLoop loop;
        bool opened = false;
        bool ended = false;
        QObject::connect(job, &Qvfs::FileJob::opened, &loop, [&] {
            opened = true;
            loop.quit();
        });
        QObject::connect(job, &Qvfs::Job::result, &loop, [&] {
            ended = true;
            loop.quit();
        });
        loop.exec(); // the job starts from the event loop
        if (!opened) {
            std::fprintf(stderr, "fileaccess_benchmark: %s\n", qPrintable(job->errorString()));
            return 1;
        }
        QByteArray got;
        qint64 at = 0;
        QByteArray expected(Block, Qt::Uninitialized);
        QObject::connect(
            job, &Qvfs::FileJob::dataRead, &loop, [&](Qvfs::FileJob *, quint32, qint64, const QByteArray &d) {
                got += d;
                if (got.size() >= Block || d.isEmpty())
                    loop.quit();
            });
        for (size_t i = 0; i < offsets.size(); ++i) {
            got.clear();
            at = offsets[i];
            const qint64 t0 = clock.nsecsElapsed();
            job->readAt(at, Block);
            loop.exec();
            const qint64 t1 = clock.nsecsElapsed();
            if (i >= 200)
                jobNs.push_back(t1 - t0);
            if (i % 97 == 0) {
                // Spot checks against pread, outside the timed part.
                ::pread(fd, expected.data(), size_t(Block), off_t(at));
                if (got != expected)
                    ++failures;
            }
        }
        job->close();
        while (!ended)
            loop.exec();
        if (job->error())
            ++failures;
        delete job;
    }

    // ---- 1c. FileDevice seek + read(4 KiB), blocking
    std::vector<qint64> devNs;
    {
        Qvfs::FileDevice dev(url);
        if (!dev.open(QIODevice::ReadOnly)) {
            std::fprintf(stderr, "fileaccess_benchmark: %s\n", qPrintable(dev.errorString()));
            return 1;
        }
        QByteArray buf(Block, Qt::Uninitialized);
        for (size_t i = 0; i < offsets.size(); ++i) {
            const qint64 t0 = clock.nsecsElapsed();
            dev.seek(offsets[i]);
            const qint64 n = dev.read(buf.data(), Block);
            const qint64 t1 = clock.nsecsElapsed();
            if (n != Block)
                ++failures;
            if (i >= 200)
                devNs.push_back(t1 - t0);
        }
        dev.close();
    }

    // ---- 2. sequential: read(), get, FileDevice; twice each, the best counts
    qint64 readBest = 0, getBest = 0, getCopyBest = 0, devBest = 0, jobBest = 0;
    for (int round = 0; round < rounds; ++round) {
        {
            QByteArray buf(SeqBlock, Qt::Uninitialized);
            qint64 total = 0;
            const qint64 t0 = clock.nsecsElapsed();
            for (qint64 at = 0;; at += SeqBlock) {
                const ssize_t n = ::pread(fd, buf.data(), size_t(SeqBlock), off_t(at));
                if (n <= 0)
                    break;
                total += n;
            }
            const qint64 ns = clock.nsecsElapsed() - t0;
            if (total != size)
                ++failures;
            if (!readBest || ns < readBest)
                readBest = ns;
        }
        for (const bool copyOut : { false, true }) {
            if (!only.isEmpty() && only != (copyOut ? "get-copy" : "get"))
                continue;
            // copyOut: the consumer copies each piece into a 64 KiB buffer of its own, the
            // work a reader of any QIODevice (FileDevice included) does for every byte.
            Qvfs::TransferJob *job = Qvfs::get(url);
            qint64 total = 0;
            QByteArray buf(SeqBlock, Qt::Uninitialized);
            QObject::connect(job, &Qvfs::TransferJob::data, job, [&](Qvfs::TransferJob *, const QByteArray &d) {
                if (copyOut) {
                    for (qsizetype at = 0; at < d.size(); at += SeqBlock)
                        std::memcpy(
                            buf.data(), d.constData() + at, size_t(std::min<qsizetype>(SeqBlock, d.size() - at)));
                }
                total += d.size();
            });
            const qint64 t0 = clock.nsecsElapsed();
            const bool ok = job->exec();
            const qint64 ns = clock.nsecsElapsed() - t0;
            if (!ok || total != size)
                ++failures;
            qint64 &best = copyOut ? getCopyBest : getBest;
            if (!best || ns < best)
                best = ns;
        }
        if (only.isEmpty() || only == "device") {
            QByteArray buf(SeqBlock, Qt::Uninitialized);
            qint64 total = 0;
            const qint64 t0 = clock.nsecsElapsed();
            Qvfs::FileDevice dev(url);
            if (ahead >= 0)
                dev.setReadAhead(ahead, aheadChunk);
            if (dev.open(QIODevice::ReadOnly)) {
                for (;;) {
                    const qint64 n = dev.read(buf.data(), SeqBlock);
                    if (n <= 0)
                        break;
                    total += n;
                }
                dev.close();
            }
            const qint64 ns = clock.nsecsElapsed() - t0;
            if (total != size)
                ++failures;
            if (!devBest || ns < devBest)
                devBest = ns;
        }
        if (only.isEmpty() || only == "job") {
            // FileJob alone: 4 reads of 256 KiB in flight, the next asked for as one ends.
            Qvfs::FileJob *job = Qvfs::open(url, QIODevice::ReadOnly);
            qint64 total = 0;
            bool atEnd = false;
            int inFlight = 0;
            const auto ask = [&] {
                while (!atEnd && inFlight < 4 && job->isOpen()) {
                    job->read(256 * 1024);
                    ++inFlight;
                }
                if (atEnd && inFlight == 0)
                    job->close();
            };
            QHash<quint32, qint64> got;
            QObject::connect(job, &Qvfs::FileJob::opened, job, ask);
            QObject::connect(
                job, &Qvfs::FileJob::dataRead, job, [&](Qvfs::FileJob *, quint32 id, qint64, const QByteArray &d) {
                    total += d.size();
                    qint64 &n = got[id];
                    n += d.size();
                    if (d.isEmpty() || n == 256 * 1024) {
                        atEnd = atEnd || d.isEmpty();
                        got.remove(id);
                        --inFlight;
                        ask();
                    }
                });
            const qint64 t0 = clock.nsecsElapsed();
            const bool ok = job->exec();
            const qint64 ns = clock.nsecsElapsed() - t0;
            if (!ok || total != size)
                ++failures;
            if (!jobBest || ns < jobBest)
                jobBest = ns;
        }
    }
    ::close(fd);

    const Stats p = stats(preadNs), j = stats(jobNs), d = stats(devNs);
    const double readMBps = mbps(size, readBest), getMBps = mbps(size, getBest), getCopyMBps = mbps(size, getCopyBest),
                 jobMBps = mbps(size, jobBest), devMBps = mbps(size, devBest);
    const auto share = [getMBps](double v) { return getMBps > 0 ? v / getMBps * 100 : 0; };
    std::printf("file: %lld MiB in %s, %d random 4 KiB reads (after 200 to warm up), best of %d sequential rounds, "
                "%d worker starts\n",
        sizeMiB, tmp.path().toLocal8Bit().constData(), reads, rounds, Qvfs::workerStartCount());
    if (via.isValid()) // the bars are file://'s
        std::printf("opened through %s (the bars below are those of file://)\n", qPrintable(url.toDisplayString()));
    std::printf("\n4 KiB random read, round trip     median µs   p99 µs   ratio to pread (median)\n");
    std::printf("  pread (floor)                    %9.1f %8.1f   1.0\n", p.medianUs, p.p99Us);
    std::printf("  FileJob::readAt + event loop     %9.1f %8.1f   %.1f   (bar: median <= 100 µs: %s)\n", j.medianUs,
        j.p99Us, p.medianUs > 0 ? j.medianUs / p.medianUs : 0, j.medianUs <= 100 ? "met" : "NOT met");
    std::printf("  FileDevice seek + read           %9.1f %8.1f   %.1f\n", d.medianUs, d.p99Us,
        p.medianUs > 0 ? d.medianUs / p.medianUs : 0);
    std::printf("\nsequential read of the whole file  MB/s      share of get\n");
    std::printf("  read() 64 KiB blocks (floor)     %8.0f   %.0f%%\n", readMBps, share(readMBps));
    std::printf("  get job (TransferJob)            %8.0f   100%%\n", getMBps);
    std::printf("  get job, copied to a 64 KiB buf  %8.0f   %.0f%%\n", getCopyMBps, share(getCopyMBps));
    std::printf("  FileJob, 4 x 256 KiB in flight   %8.0f   %.0f%%\n", jobMBps, share(jobMBps));
    std::printf("  FileDevice::read 64 KiB blocks   %8.0f   %.0f%%   (bar: >= 80%% of get: %s; %.0f%% of get copied)\n",
        devMBps, share(devMBps), getMBps > 0 && devMBps >= 0.8 * getMBps ? "met" : "NOT met",
        getCopyMBps > 0 ? devMBps / getCopyMBps * 100 : 0);
    std::printf("\npread_us=%.1f filejob_us=%.1f filejob_p99_us=%.1f filedevice_us=%.1f read_MBps=%.0f get_MBps=%.0f "
                "get_copy_MBps=%.0f filejob_MBps=%.0f filedevice_MBps=%.0f failures=%d\n",
        p.medianUs, j.medianUs, j.p99Us, d.medianUs, readMBps, getMBps, getCopyMBps, jobMBps, devMBps, failures);
    return failures ? 1 : 0;
}
