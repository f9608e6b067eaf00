// SPDX-License-Identifier: LGPL-2.1-or-later
// dirmodel_benchmark: DirModel beside QFileSystemModel in one run, on a tmpfs folder of
// 100,000 files "1.txt".."100000.txt" (the anchors of research/model-anchors.md), and
// a bare ListJob of the same folder as the baseline. Prints the figures of issue 13:
//   first rows of the 100k folder (warm worker), listed and fully sorted by name
//   (natural) against the ListJob, the longest stall of the application thread, memory
//   per row, a 1,000-file burst (update rounds, last file visible), one file created in
//   the 100k folder (entries on the wire, listings, time visible, CPU of app + worker);
//   and QCollator (numeric) against naturalCompare() sorting the 100k names.
// Never asserts a time: the machine is shared and noisy. Run with
//   QT_QPA_PLATFORM=offscreen build/bin/dirmodel_benchmark [--runs N] [--dir TMPFS_DIR]
#include "entrycodec_p.h"
#include "procutil.h"

#include <Qvfs/DirLister>
#include <Qvfs/DirModel>
#include <Qvfs/ListJob>
#include <Qvfs/NaturalCompare>
#include <Qvfs/Url>

#include <QCollator>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileSystemModel>
#include <QGuiApplication>
#include <QLocale>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <dirent.h>
#include <fcntl.h>
#include <malloc.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace
{

double nowMs()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

/*! CPU time of every thread of \a pid in nanoseconds (schedstat: exact, unlike ticks). */
qint64 cpuNs(qint64 pid)
{
    qint64 total = 0;
    const QByteArray taskDir = "/proc/" + QByteArray::number(pid) + "/task";
    DIR *d = opendir(taskDir.constData());
    if (!d)
        return -1;
    while (dirent *e = readdir(d)) {
        if (e->d_name[0] == '.')
            continue;
        total += ProcUtil::readProcFile(taskDir + '/' + e->d_name + "/schedstat").split(' ').value(0).toLongLong();
    }
    closedir(d);
    return total;
}

qint64 heapBytes()
{
    const struct mallinfo2 m = mallinfo2();
    return qint64(m.uordblks + m.hblkhd);
}

qint64 rssKb()
{
    for (const QByteArray &line : ProcUtil::readProcFile("/proc/self/status").split('\n')) {
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').value(0).toLongLong();
    }
    return -1;
}

/*! The pid of this process's file worker with an inotify descriptor (the watcher). */
qint64 watcherPid()
{
    for (qint64 pid : ProcUtil::childPids()) {
        const QByteArray fdDir = "/proc/" + QByteArray::number(pid) + "/fd";
        DIR *d = opendir(fdDir.constData());
        if (!d)
            continue;
        bool found = false;
        while (dirent *e = readdir(d)) {
            char target[64];
            const ssize_t n = readlink(QByteArray(fdDir + '/' + e->d_name).constData(), target, sizeof target - 1);
            found = found || (n > 0 && QByteArray(target, n) == "anon_inode:inotify");
        }
        closedir(d);
        if (found)
            return pid;
    }
    return 0;
}

/*! The longest gap between two ticks of a 2 ms timer: how long the thread was away. */
class StallMeter
{
public:
    StallMeter()
    {
        m_timer.setTimerType(Qt::PreciseTimer);
        QObject::connect(&m_timer, &QTimer::timeout, [this] {
            const double now = nowMs();
            m_max = std::max(m_max, now - m_last);
            m_last = now;
        });
    }
    void start()
    {
        m_max = 0;
        m_last = nowMs();
        m_timer.start(2);
    }
    double stop()
    {
        m_timer.stop();
        return std::max(m_max, nowMs() - m_last);
    }

private:
    QTimer m_timer;
    double m_last = 0;
    double m_max = 0;
};

/*! Runs the event loop, sleeping between events (a 5 ms tick looks at \a done), until \a done or the timeout. */
bool waitUntil(const std::function<bool()> &done, int timeoutMs)
{
    // (processEvents(flags, ms) would spin: it drops WaitForMoreEvents, and the spinning
    // thread would take a core from the worker.)
    const double end = nowMs() + timeoutMs;
    QTimer tick;
    tick.start(5);
    while (!done()) {
        if (nowMs() > end)
            return false;
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    }
    return true;
}

void idle(int ms)
{
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

double median(std::vector<double> v)
{
    if (v.empty())
        return -1;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

QString range(std::vector<double> v)
{
    if (v.empty())
        return QStringLiteral("-");
    std::sort(v.begin(), v.end());
    return QStringLiteral("%1 (%2–%3)")
        .arg(v[v.size() / 2], 0, 'f', 1)
        .arg(v.front(), 0, 'f', 1)
        .arg(v.back(), 0, 'f', 1);
}

bool makeFiles(const QByteArray &dir, int n, const char *prefix, const char *suffix)
{
    ::mkdir(dir.constData(), 0755);
    char name[4096];
    for (int i = 1; i <= n; ++i) {
        snprintf(name, sizeof name, "%s/%s%d%s", dir.constData(), prefix, i, suffix);
        const int fd = ::open(name, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0)
            return false;
        ::close(fd);
    }
    return true;
}

void removeTree(const QByteArray &dir)
{
    DIR *d = opendir(dir.constData());
    if (!d)
        return;
    while (dirent *e = readdir(d)) {
        const QByteArray n(e->d_name);
        if (n == "." || n == "..")
            continue;
        const QByteArray p = dir + '/' + n;
        if (unlink(p.constData()) != 0)
            removeTree(p);
    }
    closedir(d);
    rmdir(dir.constData());
}

void row(const char *figure, const QString &qvfs, const QString &qfsm, const char *bar)
{
    std::printf("| %-58s | %-24s | %-26s | %-22s |\n", figure, qPrintable(qvfs), qPrintable(qfsm), bar);
}

} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QGuiApplication app(argc, argv);
    int runs = 3;
    QByteArray base = "/dev/shm";
    const QStringList args = app.arguments();
    for (int i = 1; i + 1 < args.size(); ++i) {
        if (args.at(i) == QLatin1String("--runs"))
            runs = qMax(1, args.at(i + 1).toInt());
        else if (args.at(i) == QLatin1String("--dir"))
            base = args.at(i + 1).toLocal8Bit();
    }
    const QByteArray root = base + "/qvfs-dirmodel-bench-" + QByteArray::number(getpid());
    const QByteArray flat = root + "/flat100k";
    ::mkdir(root.constData(), 0755);
    std::fprintf(stderr, "making %s ...\n", flat.constData());
    if (!makeFiles(flat, 100000, "", ".txt")) {
        std::fprintf(stderr, "cannot make the data set in %s\n", root.constData());
        return 1;
    }
    const QUrl flatUrl = Qvfs::Url::fromLocalPath(flat);
    // A closed folder is not kept: every run lists afresh.
    Qvfs::DirLister::setCacheBudget(0);

    // Warm workers: a lister on an empty folder keeps the watcher up; a listing warms the pool.
    const QByteArray warmDir = root + "/warm";
    ::mkdir(warmDir.constData(), 0755);
    Qvfs::DirLister warm;
    warm.open(Qvfs::Url::fromLocalPath(warmDir));
    waitUntil([&] { return warm.isComplete(); }, 10000);
    {
        Qvfs::ListJob *j = Qvfs::listDir(Qvfs::Url::fromLocalPath(warmDir));
        j->exec();
    }
    const qint64 watcher = watcherPid();

    // ---- the bare ListJob of the same folder (entries kept), the baseline ----
    std::vector<double> listMs, listFirstMs;
    for (int r = 0; r < runs; ++r) {
        Qvfs::EntryList keep;
        const double t0 = nowMs();
        double first = -1;
        Qvfs::ListJob *job = Qvfs::listDir(flatUrl, Qvfs::DetailsDefault);
        QObject::connect(job, &Qvfs::ListJob::entries, [&](Qvfs::ListJob *, const Qvfs::EntryList &l) {
            if (first < 0)
                first = nowMs() - t0;
            keep.append(l);
        });
        job->exec();
        listMs.push_back(nowMs() - t0);
        listFirstMs.push_back(first);
        idle(100);
    }

    // ---- DirModel: load the 100k folder ----
    std::vector<double> firstMs, loadedMs, stallMs, bytesPerRow, rssPerRow;
    StallMeter stall;
    for (int r = 0; r < runs; ++r) {
        malloc_trim(0);
        const qint64 heap0 = heapBytes();
        const qint64 rss0 = rssKb();
        auto *model = new Qvfs::DirModel;
        double first = -1;
        QObject::connect(model, &QAbstractItemModel::rowsInserted, [&](const QModelIndex &parent) {
            if (first < 0 && !parent.isValid())
                first = nowMs();
        });
        QObject::connect(model, &QAbstractItemModel::layoutChanged, [&] {
            if (first < 0 && model->rowCount() > 0)
                first = nowMs();
        });
        stall.start();
        const double t0 = nowMs();
        model->setUrl(flatUrl);
        waitUntil([&] { return model->isLoaded(); }, 60000);
        const double done = nowMs();
        stallMs.push_back(stall.stop());
        firstMs.push_back(first - t0);
        loadedMs.push_back(done - t0);
        if (model->rowCount() != 100000)
            std::fprintf(stderr, "DirModel: %d rows, not 100000\n", model->rowCount());
        bytesPerRow.push_back(double(heapBytes() - heap0) / 100000.0);
        rssPerRow.push_back(double(rssKb() - rss0) * 1024.0 / 100000.0);
        delete model;
        idle(100);
    }

    // ---- QFileSystemModel: the same folder ----
    std::vector<double> qFirstMs, qLoadedMs, qSortedMs, qStallMs, qBytesPerRow;
    const QString flatPath = QString::fromLocal8Bit(flat);
    for (int r = 0; r < runs; ++r) {
        malloc_trim(0);
        const qint64 heap0 = heapBytes();
        auto *fsm = new QFileSystemModel;
        double first = -1, loaded = -1, last = nowMs();
        QModelIndex rootIndex;
        QObject::connect(fsm, &QAbstractItemModel::rowsInserted, [&](const QModelIndex &parent) {
            last = nowMs();
            if (first < 0 && parent == rootIndex && rootIndex.isValid())
                first = last;
        });
        QObject::connect(fsm, &QAbstractItemModel::layoutChanged, [&] { last = nowMs(); });
        QObject::connect(fsm, &QFileSystemModel::directoryLoaded, [&](const QString &p) {
            if (p == flatPath)
                loaded = nowMs();
        });
        stall.start();
        const double t0 = nowMs();
        rootIndex = fsm->setRootPath(flatPath);
        waitUntil([&] { return loaded > 0 && fsm->rowCount(rootIndex) >= 100000 && nowMs() - last > 500; }, 60000);
        // the anchor's full natural sort after the load: sort(1) then sort(0)
        const double s0 = nowMs();
        fsm->sort(1);
        fsm->sort(0);
        const double s1 = nowMs();
        qStallMs.push_back(stall.stop());
        qFirstMs.push_back(first - t0);
        qLoadedMs.push_back(last - t0);
        qSortedMs.push_back(s1 - s0);
        qBytesPerRow.push_back(double(heapBytes() - heap0) / 100000.0);
        delete fsm;
        idle(100);
    }

    // ---- natural order: QCollator (numeric, the locale's ICU) against naturalCompare ----
    std::vector<QByteArray> names;
    {
        DIR *d = opendir(flat.constData());
        while (dirent *e = readdir(d)) {
            if (e->d_name[0] != '.')
                names.emplace_back(e->d_name);
        }
        closedir(d);
    }
    double collatorMs, naturalMs;
    {
        QCollator collator;
        collator.setNumericMode(true);
        collator.setCaseSensitivity(Qt::CaseInsensitive);
        std::vector<QString> s;
        for (const QByteArray &n : names)
            s.push_back(QString::fromUtf8(n));
        const double t0 = nowMs();
        std::sort(
            s.begin(), s.end(), [&collator](const QString &a, const QString &b) { return collator.compare(a, b) < 0; });
        collatorMs = nowMs() - t0;
    }
    {
        std::vector<QByteArray> s = names;
        const double t0 = nowMs();
        std::sort(s.begin(), s.end(),
            [](const QByteArray &a, const QByteArray &b) { return Qvfs::naturalCompare(a, b) < 0; });
        naturalMs = nowMs() - t0;
    }

    // ---- a 1,000-file burst into a watched, empty folder ----
    std::vector<double> burstRounds, burstLastMs, qBurstRounds, qBurstLastMs;
    for (int r = 0; r < runs; ++r) {
        for (int which = 0; which < 2; ++which) {
            const QByteArray dir = root + "/burst" + QByteArray::number(r) + (which ? "q" : "d");
            ::mkdir(dir.constData(), 0755);
            int rounds = 0;
            double lastCreate = 0, visible = -1;
            std::unique_ptr<QAbstractItemModel> m;
            std::function<int()> count;
            if (which == 0) {
                auto *dm = new Qvfs::DirModel;
                m.reset(dm);
                dm->setUrl(Qvfs::Url::fromLocalPath(dir));
                waitUntil([&] { return dm->isLoaded(); }, 10000);
                count = [dm] { return dm->rowCount(); };
            } else {
                auto *fsm = new QFileSystemModel;
                m.reset(fsm);
                const QModelIndex ri = fsm->setRootPath(QString::fromLocal8Bit(dir));
                idle(300);
                count = [fsm, ri] { return fsm->rowCount(ri); };
            }
            idle(300);
            QObject::connect(m.get(), &QAbstractItemModel::rowsInserted, [&] { ++rounds; });
            QObject::connect(m.get(), &QAbstractItemModel::layoutChanged, [&] { ++rounds; });
            QObject::connect(m.get(), &QAbstractItemModel::rowsRemoved, [&] { ++rounds; });
            QObject::connect(m.get(), &QAbstractItemModel::rowsMoved, [&] { ++rounds; });
            char name[4096];
            for (int i = 0; i < 1000; ++i) {
                snprintf(name, sizeof name, "%s/b%d", dir.constData(), i);
                const int fd = ::open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
                if (fd >= 0)
                    ::close(fd);
            }
            lastCreate = nowMs();
            if (waitUntil([&] { return count() >= 1000; }, 10000))
                visible = nowMs() - lastCreate;
            idle(1500); // what else comes (QFileSystemModel resorts)
            (which ? qBurstRounds : burstRounds).push_back(rounds);
            (which ? qBurstLastMs : burstLastMs).push_back(visible);
        }
    }

    // ---- one file created in the loaded 100k folder ----
    std::vector<double> oneVisibleMs, oneCpuMs, oneWorkerCpuMs, oneWire, oneEntries, oneListings, qOneVisibleMs,
        qOneCpuMs;
    for (int r = 0; r < runs; ++r) {
        // DirModel
        {
            Qvfs::DirModel model;
            model.setUrl(flatUrl);
            waitUntil([&] { return model.isLoaded(); }, 60000);
            idle(1000);
            int entries = 0, listings = 0;
            qint64 wire = 0;
            QObject::connect(
                model.dirLister(), &Qvfs::DirLister::entriesAdded, [&](const QUrl &, const Qvfs::EntryList &l) {
                    entries += int(l.size());
                    const Qvfs::Internal::EntryBatch *last = nullptr;
                    for (const Qvfs::Entry &e : l) {
                        if (e.batch() != last) {
                            last = e.batch();
                            wire += 12 + last->payload.size(); // frame header + payload
                        }
                    }
                });
            QObject::connect(model.dirLister(), &Qvfs::DirLister::listingCompleted, [&] { ++listings; });
            const qint64 app0 = cpuNs(getpid()), w0 = cpuNs(watcher);
            const QByteArray newFile = flat + "/new" + QByteArray::number(r) + ".txt";
            const double t0 = nowMs();
            const int fd = ::open(newFile.constData(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
            ::close(fd);
            waitUntil([&] { return model.rowCount() == 100001; }, 10000);
            oneVisibleMs.push_back(nowMs() - t0);
            idle(300);
            oneCpuMs.push_back(double(cpuNs(getpid()) - app0) / 1e6);
            oneWorkerCpuMs.push_back(double(cpuNs(watcher) - w0) / 1e6);
            oneWire.push_back(double(wire));
            oneEntries.push_back(entries);
            oneListings.push_back(listings);
            ::unlink(newFile.constData());
            idle(200);
        }
        // QFileSystemModel
        {
            QFileSystemModel fsm;
            const QModelIndex ri = fsm.setRootPath(flatPath);
            waitUntil([&] { return fsm.rowCount(ri) >= 100000; }, 60000);
            idle(2000);
            const qint64 app0 = cpuNs(getpid());
            const QByteArray newFile = flat + "/qnew" + QByteArray::number(r) + ".txt";
            const double t0 = nowMs();
            const int fd = ::open(newFile.constData(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
            ::close(fd);
            const QString nf = QString::fromLocal8Bit(newFile);
            waitUntil([&] { return fsm.index(nf).isValid(); }, 20000);
            qOneVisibleMs.push_back(nowMs() - t0);
            idle(1500);
            qOneCpuMs.push_back(double(cpuNs(getpid()) - app0) / 1e6);
            ::unlink(newFile.constData());
            idle(200);
        }
    }

    warm.closeAll();
    removeTree(root);

    std::printf("dirmodel_benchmark: 100,000 files on %s, %d runs each, medians (min–max); locale %s\n\n",
        base.constData(), runs, qPrintable(QLocale().name()));
    std::printf("| %-58s | %-24s | %-26s | %-22s |\n", "figure", "DirModel", "QFileSystemModel", "bar");
    std::printf("|%s|%s|%s|%s|\n", QByteArray(60, '-').constData(), QByteArray(26, '-').constData(),
        QByteArray(28, '-').constData(), QByteArray(24, '-').constData());
    row("open the 100k folder: first rows, ms (warm worker)", range(firstMs), range(qFirstMs), "<= 15 ms");
    row("listed and fully sorted by name (natural), ms", range(loadedMs),
        range(qLoadedMs) + QStringLiteral(" + sort ") + QString::number(median(qSortedMs), 'f', 0), "<= 1.5x ListJob");
    row("  bare ListJob of the same folder, entries kept, ms", range(listMs), QStringLiteral("-"), "baseline");
    row("  bare ListJob: first entries, ms", range(listFirstMs), QStringLiteral("-"), "");
    row("  ratio to the ListJob", QString::number(median(loadedMs) / median(listMs), 'f', 2),
        QString::number((median(qLoadedMs) + median(qSortedMs)) / median(listMs), 'f', 2), "<= 1.5");
    row("longest stall of the application thread while loading, ms", range(stallMs), range(qStallMs), "<= 16 ms");
    row("application heap per row (mallinfo2), B", range(bytesPerRow), range(qBytesPerRow), "<= 120 B");
    row("  RSS per row, B", range(rssPerRow), QStringLiteral("-"), "");
    row("1,000-file burst: model update rounds", range(burstRounds), range(qBurstRounds), "<= 3");
    row("1,000-file burst: last file visible after created, ms", range(burstLastMs), range(qBurstLastMs), "<= 200 ms");
    row("1 file in the 100k folder: visible after created, ms", range(oneVisibleMs), range(qOneVisibleMs), "<= 100 ms");
    row("1 file in the 100k folder: CPU app, ms", range(oneCpuMs), range(qOneCpuMs), "");
    row("1 file in the 100k folder: CPU worker (watcher), ms", range(oneWorkerCpuMs), QStringLiteral("in app"), "");
    std::vector<double> total;
    for (size_t i = 0; i < oneCpuMs.size(); ++i)
        total.push_back(oneCpuMs[i] + oneWorkerCpuMs[i]);
    row("1 file in the 100k folder: CPU app + worker, ms", range(total), range(qOneCpuMs), "<= 5 ms");
    row("1 file in the 100k folder: entries the lister got", range(oneEntries), QStringLiteral("-"), "1");
    row("1 file in the 100k folder: listings", range(oneListings), QStringLiteral("re-reads 100k"), "0");
    row("1 file in the 100k folder: Entries frame bytes received", range(oneWire), QStringLiteral("-"), "one entry");
    std::printf(
        "\nsorting the 100,000 names: QCollator (numeric) %.1f ms, naturalCompare() %.1f ms\n", collatorMs, naturalMs);
    return 0;
}
