// SPDX-License-Identifier: LGPL-2.1-or-later
// qvfs rm, mkdir, cat, put, du, df.
#include "commands.h"
#include "format.h"
#include "progress.h"
#include "terminalask.h"

#include <Qvfs/DeleteJob>
#include <Qvfs/DirectorySizeJob>
#include <Qvfs/Error>
#include <Qvfs/FileJob>
#include <Qvfs/FreeSpaceJob>
#include <Qvfs/SimpleJob>
#include <Qvfs/StatJob>
#include <Qvfs/TransferJob>
#include <Qvfs/Url>
#include <Qvfs/UrlIdentity>

#include <QCoreApplication>
#include <QHash>
#include <QSocketNotifier>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

namespace Cli
{

namespace
{
void isAFolder(const QByteArray &arg)
{
    error(QCoreApplication::translate("qvfs", "cannot remove %1: Is a directory").arg(nameArg(arg)));
    setFailed();
}
} // namespace

// ---------------------------------------------------------------- rm

int cmdRm(const QList<QByteArray> &args)
{
    enum { OptRecursive = 1, OptForce, OptTrash };
    Parsed p;
    int status = Ok;
    if (!prepare("rm", args,
            { { OptRecursive, 'r', "recursive" }, { OptRecursive, 'R', nullptr }, { OptForce, 'f', "force" },
                { OptTrash, 0, "trash" } },
            &p, &status))
        return status;
    if (p.has(OptTrash)) {
        if (p.operands.isEmpty())
            return usageError("rm", QCoreApplication::translate("qvfs", "missing operand"));
        return trashUrls(p.operands); // folders go whole: -r changes nothing
    }
    const bool recursive = p.has(OptRecursive);
    const bool force = p.has(OptForce);
    if (p.operands.isEmpty()) {
        if (force)
            return Ok;
        return usageError("rm", QCoreApplication::translate("qvfs", "missing operand"));
    }
    for (const QByteArray &arg : std::as_const(p.operands)) {
        // "." and "..", as typed (a local path is cleaned when it becomes a URL) and as the
        // worker will see them: decoded, so "%2E%2E" or "x%2F.." are refused too.
        auto refuseDots = [&arg](QByteArrayView path) {
            const QByteArray last = lastSegment(path);
            if (last != "." && last != "..")
                return false;
            error(QCoreApplication::translate("qvfs", "refusing to remove '.' or '..' folder: skipping %1")
                      .arg(nameArg(arg)));
            setFailed();
            return true;
        };
        if (refuseDots(arg))
            continue;
        const QUrl url = toUrl(arg);
        if (!url.isValid())
            continue;
        const QByteArray decoded = decodedPath(url);
        if (refuseDots(decoded))
            continue;
        if (recursive && cleanAbsolutePath(decoded) == "/") {
            error(
                QCoreApplication::translate("qvfs", "it is dangerous to operate recursively on %1").arg(nameArg(arg)));
            setFailed();
            continue;
        }
        if (!recursive) {
            Qvfs::StatJob *job = Qvfs::stat(url, Qvfs::DetailBasic);
            prepareJob(job);
            if (!job->exec()) {
                if (!(force && job->error() == Qvfs::ErrDoesNotExist))
                    jobError(job);
                continue;
            }
            if (job->statResult().isDir()) {
                isAFolder(arg);
                continue;
            }
        }
        // Without -r files and links only: a folder that took the file's place after the
        // check above is refused by the worker itself.
        Qvfs::DeleteJob *job = Qvfs::del(url, recursive ? Qvfs::DeleteScope::Tree : Qvfs::DeleteScope::NoFolders);
        prepareJob(job);
        if (job->exec())
            continue;
        if (force && job->error() == Qvfs::ErrDoesNotExist)
            continue;
        if (!recursive && (job->error() == Qvfs::ErrIsDirectory || job->error() == Qvfs::ErrDirectoryNotEmpty))
            isAFolder(arg); // the worker refused a folder that took the file's place
        else
            jobError(job);
    }
    return ctx().status;
}

// ---------------------------------------------------------------- mkdir

int cmdMkdir(const QList<QByteArray> &args)
{
    enum { OptParents = 1, OptMode };
    Parsed p;
    int status = Ok;
    if (!prepare("mkdir", args, { { OptParents, 'p', "parents" }, { OptMode, 'm', "mode", true } }, &p, &status))
        return status;
    int mode = -1;
    if (p.has(OptMode)) {
        bool ok = false;
        const QByteArray m = p.value(OptMode);
        mode = m.toInt(&ok, 8);
        if (!ok || mode < 0 || mode > 07777 || m.startsWith('-') || m.startsWith('+'))
            return usageError("mkdir",
                QCoreApplication::translate("qvfs", "invalid mode %1 (an octal number is expected)").arg(nameArg(m)));
    }
    if (p.operands.isEmpty())
        return usageError("mkdir", QCoreApplication::translate("qvfs", "missing operand"));
    for (const QByteArray &arg : std::as_const(p.operands)) {
        const QUrl url = toUrl(arg);
        if (!url.isValid())
            continue;
        Qvfs::SimpleJob *job = p.has(OptParents) ? Qvfs::mkpath(url, mode) : Qvfs::mkdir(url, mode);
        prepareJob(job);
        if (job->exec())
            continue;
        if (job->error() == Qvfs::ErrDoesNotExist && !p.has(OptParents)) {
            // The library names the folder to create; what is missing is its parent.
            error(QCoreApplication::translate(
                "qvfs", "cannot create folder %1: its parent folder does not exist (-p creates it)")
                      .arg(urlArg(url)));
            setFailed();
            continue;
        }
        jobError(job);
    }
    return ctx().status;
}

// ---------------------------------------------------------------- cat

namespace
{
/*! A byte count or offset given on the command line: decimal digits only. */
bool parseCount(const QByteArray &text, qint64 *value)
{
    if (text.isEmpty() || text.size() > 18)
        return false;
    for (const char c : text) {
        if (c < '0' || c > '9')
            return false;
    }
    *value = text.toLongLong();
    return true;
}

/*!
 * Writes \a length bytes (-1: up to the end) of \a url from \a offset on to standard
 * output, through random access (Qvfs::open()): a few reads of 256 KiB in flight, each
 * piece written before the next is taken (a slow reader holds up the worker). Sets
 * \a *writeFailed when standard output failed.
 */
void catRange(const QUrl &url, qint64 offset, qint64 length, bool *writeFailed)
{
    constexpr qint64 Piece = 256 * 1024;
    constexpr int Ahead = 4;
    Qvfs::FileJob *job = Qvfs::open(url, QIODevice::ReadOnly);
    prepareJob(job);
    const qint64 end = length < 0 || offset > std::numeric_limits<qint64>::max() - length
        ? std::numeric_limits<qint64>::max()
        : offset + length;
    qint64 next = offset;
    bool atEnd = false;
    bool closing = false;
    QHash<quint32, qint64> owed; // what each read in flight has still to bring
    const auto ask = [&] {
        while (!atEnd && !*writeFailed && owed.size() < Ahead && next < end) {
            const qint64 n = qMin(Piece, end - next);
            const quint32 id = job->readAt(next, n);
            if (!id)
                return;
            owed.insert(id, n);
            next += n;
        }
        if (!closing && (atEnd || next >= end) && !*writeFailed) {
            closing = true;
            job->close();
        }
    };
    QObject::connect(
        job, &Qvfs::FileJob::dataRead, job, [&](Qvfs::FileJob *j, quint32 id, qint64, const QByteArray &data) {
            const auto it = owed.find(id);
            if (*writeFailed || it == owed.end())
                return;
            if (data.isEmpty()) {
                atEnd = true; // the end of the file: this read is over
            } else if (!writeStdout(data)) {
                *writeFailed = true;
                j->kill(Qvfs::Job::EmitResult);
                return;
            }
            *it -= data.size();
            if (data.isEmpty() || *it <= 0) {
                owed.erase(it);
                ask();
            }
        });
    ask();
    if (!job->exec() && !*writeFailed)
        jobError(job);
}
} // namespace

int cmdCat(const QList<QByteArray> &args)
{
    enum { OptOffset = 1, OptLength };
    Parsed p;
    int status = Ok;
    if (!prepare("cat", args, { { OptOffset, 0, "offset", true }, { OptLength, 0, "length", true } }, &p, &status))
        return status;
    qint64 offset = 0;
    qint64 length = -1;
    if (p.has(OptOffset) && !parseCount(p.value(OptOffset), &offset))
        return usageError("cat",
            QCoreApplication::translate("qvfs", "invalid offset %1 (a number of bytes is expected)")
                .arg(nameArg(p.value(OptOffset))));
    if (p.has(OptLength) && !parseCount(p.value(OptLength), &length))
        return usageError("cat",
            QCoreApplication::translate("qvfs", "invalid length %1 (a number of bytes is expected)")
                .arg(nameArg(p.value(OptLength))));
    if (p.operands.isEmpty())
        return usageError("cat", QCoreApplication::translate("qvfs", "missing operand"));
    if (p.has(OptOffset) || p.has(OptLength)) {
        bool writeFailed = false;
        for (const QByteArray &arg : std::as_const(p.operands)) {
            const QUrl url = toUrl(arg);
            if (!url.isValid())
                continue;
            catRange(url, offset, length, &writeFailed);
            if (writeFailed)
                break;
        }
        return ctx().status;
    }
    std::unique_ptr<ProgressBar> bar;
    if (ProgressBar::wanted(true))
        bar = std::make_unique<ProgressBar>(ProgressBar::Transfer);
    bool writeFailed = false;
    for (const QByteArray &arg : std::as_const(p.operands)) {
        const QUrl url = toUrl(arg);
        if (!url.isValid())
            continue;
        Qvfs::TransferJob *job = Qvfs::get(url);
        prepareJob(job);
        // Each chunk is written before the next one is read: a slow reader of our
        // output holds up the event loop, and so the worker (backpressure).
        QObject::connect(
            job, &Qvfs::TransferJob::data, job, [&writeFailed](Qvfs::TransferJob *j, const QByteArray &data) {
                if (writeFailed)
                    return;
                if (!writeStdout(data)) {
                    writeFailed = true;
                    j->kill(Qvfs::Job::EmitResult);
                }
            });
        if (bar)
            bar->attach(job);
        if (!job->exec() && !writeFailed)
            jobError(job);
        if (writeFailed)
            break;
    }
    if (bar)
        bar->finish();
    return ctx().status;
}

// ---------------------------------------------------------------- put

int cmdPut(const QList<QByteArray> &args)
{
    enum { OptForce = 1 };
    Parsed p;
    int status = Ok;
    if (!prepare("put", args, { { OptForce, 'f', "force" } }, &p, &status))
        return status;
    if (p.operands.size() != 1)
        return usageError("put",
            p.operands.isEmpty() ? QCoreApplication::translate("qvfs", "missing operand")
                                 : QCoreApplication::translate("qvfs", "only one destination may be given"));
    const QUrl url = toUrl(p.operands.first());
    if (!url.isValid())
        return ctx().status;
    if (ctx().stdinClosed) {
        // main() put /dev/null there: an empty file is not what the user meant.
        error(QCoreApplication::translate("qvfs", "standard input is closed"));
        setFailed();
        return ctx().status;
    }
    std::unique_ptr<ProgressBar> bar;
    if (ProgressBar::wanted(false))
        bar = std::make_unique<ProgressBar>(ProgressBar::Transfer);
    putFromDescriptor(STDIN_FILENO, QString(), url, p.has(OptForce) ? Qvfs::PutOverwrite : Qvfs::PutDefault, bar.get());
    if (bar)
        bar->finish();
    return ctx().status;
}

bool putFromDescriptor(int fd, const QString &source, const QUrl &url, Qvfs::PutFlags flags, ProgressBar *bar)
{
    Qvfs::TransferJob *job = Qvfs::put(url, -1, flags);
    prepareJob(job);
    job->setAsyncDataEnabled(true);
    if (bar) {
        bar->attach(job);
        struct stat st;
        if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
            bar->setTotalBytes(qint64(st.st_size) - qMax<qint64>(0, qint64(::lseek(fd, 0, SEEK_CUR))));
    }

    // Read only when the worker wants more: no unbounded buffering.
    QSocketNotifier notifier(fd, QSocketNotifier::Read);
    notifier.setEnabled(false);
    int readError = 0;
    QByteArray buffer;
    QObject::connect(job, &Qvfs::TransferJob::dataReq, &notifier,
        [&notifier](Qvfs::TransferJob *, QByteArray &) { notifier.setEnabled(true); });
    QObject::connect(&notifier, &QSocketNotifier::activated, job, [&notifier, &readError, &buffer, job, fd] {
        notifier.setEnabled(false);
        buffer.resize(256 * 1024);
        const ssize_t n = ::read(fd, buffer.data(), size_t(buffer.size()));
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN) {
                notifier.setEnabled(true);
                return;
            }
            readError = errno;
            job->kill(Qvfs::Job::EmitResult); // the destination stays untouched
            return;
        }
        buffer.resize(n);
        job->sendAsyncData(buffer); // empty: the end of the data
    });
    if (job->exec())
        return true;
    if (readError) {
        const QString why = QString::fromLocal8Bit(strerror(readError));
        if (fd == STDIN_FILENO)
            error(QCoreApplication::translate("qvfs", "error reading standard input: %1").arg(why));
        else
            error(QCoreApplication::translate("qvfs", "error reading %1: %2").arg(source, why));
        setFailed();
    } else {
        jobError(job);
    }
    return false;
}

// ---------------------------------------------------------------- du

int cmdDu(const QList<QByteArray> &args)
{
    enum { OptHuman = 1, OptJson, OptSummarize, OptBytes };
    Parsed p;
    int status = Ok;
    if (!prepare("du", args,
            { { OptHuman, 'h', "human-readable" }, { OptJson, 0, "json" }, { OptSummarize, 's', "summarize" },
                { OptBytes, 'b', "bytes" } },
            &p, &status))
        return status;
    QList<QByteArray> operands = p.operands;
    if (operands.isEmpty())
        operands.append(QByteArrayLiteral("."));
    const bool human = p.last({ OptHuman, OptBytes }) == OptHuman;
    std::unique_ptr<ProgressBar> bar;
    if (ProgressBar::wanted(false))
        bar = std::make_unique<ProgressBar>(ProgressBar::Count);
    for (const QByteArray &arg : std::as_const(operands)) {
        const QUrl url = toUrl(arg);
        if (!url.isValid())
            continue;
        const QByteArray shown = operandShown(arg, url);
        Qvfs::DirectorySizeJob *job = Qvfs::directorySize(url);
        prepareJob(job);
        if (bar)
            bar->attach(job);
        if (!job->exec()) {
            jobError(job);
            continue;
        }
        if (bar)
            bar->hide();
        if (p.has(OptJson)) {
            QByteArray o("{");
            appendJsonBytes(o, "name", shown);
            o += ",\"url\":";
            appendJsonString(o, url.toEncoded(QUrl::RemovePassword));
            appendJsonNumber(o, "bytes", job->totalBytes());
            appendJsonNumber(o, "files", job->totalFiles());
            appendJsonNumber(o, "dirs", job->totalDirectories());
            o += "}\n";
            out(o);
        } else {
            out(human ? humanSize(job->totalBytes()) : QByteArray::number(job->totalBytes()));
            out("\t");
            out(shownName(shown, Sink::Stdout));
            out("\n");
        }
        flushOut();
    }
    if (bar)
        bar->finish();
    flushOut();
    return ctx().status;
}

// ---------------------------------------------------------------- df

namespace
{
/*! One line of df's table. */
struct DfRow
{
    qint64 size = -1;
    qint64 used = -1;
    qint64 available = -1;
    QByteArray name; //!< the operand, shown as given
};

/*! used / (used + available) in percent, rounded up as df(1) does; -1 when unknown. */
int usePercent(qint64 used, qint64 available)
{
    if (used < 0 || available < 0)
        return -1;
    quint64 u = quint64(used);
    quint64 a = quint64(available);
    while (u > std::numeric_limits<quint64>::max() / 100) { // petabytes: keep the ratio
        u >>= 1;
        a >>= 1;
    }
    const quint64 n = u + a; // both below 2^63: no overflow
    if (n == 0)
        return -1;
    return int((u * 100 + n - 1) / n);
}

/*! A figure of the table: bytes, or like 4.0K with \a human; "-" when unknown. */
QString dfFigure(qint64 bytes, bool human)
{
    if (bytes < 0)
        return QStringLiteral("-");
    return QString::fromLatin1(human ? humanSize(bytes) : QByteArray::number(bytes));
}
} // namespace

int cmdDf(const QList<QByteArray> &args)
{
    enum { OptHuman = 1, OptJson };
    Parsed p;
    int status = Ok;
    if (!prepare("df", args, { { OptHuman, 'h', "human-readable" }, { OptJson, 0, "json" } }, &p, &status))
        return status;
    QList<QByteArray> operands = p.operands;
    if (operands.isEmpty())
        operands.append(QByteArrayLiteral("."));
    const bool human = p.has(OptHuman);
    const bool json = p.has(OptJson);
    QList<DfRow> rows;
    for (const QByteArray &arg : std::as_const(operands)) {
        const QUrl url = toUrl(arg);
        if (!url.isValid())
            continue;
        const QByteArray shown = operandShown(arg, url);
        Qvfs::FreeSpaceJob *job = Qvfs::freeSpace(url);
        prepareJob(job);
        if (!job->exec()) {
            jobError(job);
            continue;
        }
        if (json) {
            // One object per URL as it comes; a figure the protocol does not give is left out.
            QByteArray o("{");
            appendJsonBytes(o, "name", shown);
            o += ",\"url\":";
            appendJsonString(o, url.toEncoded(QUrl::RemovePassword));
            const std::pair<const char *, qint64> figures[] = { { "size", job->total() }, { "used", job->used() },
                { "available", job->available() }, { "free", job->free() } };
            for (const auto &[key, value] : figures) {
                if (value >= 0)
                    appendJsonNumber(o, key, value);
            }
            o += "}\n";
            out(o);
            flushOut();
            continue;
        }
        rows.append(DfRow { job->total(), job->used(), job->available(), shown });
    }
    if (!json && !rows.isEmpty()) {
        // Like df(1): the figures right-aligned under their headings, the URL last.
        QList<QStringList> cells;
        cells.append({
            //: df's heading: the size of the filesystem
            QCoreApplication::translate("qvfs", "Size"),
            //: df's heading: the bytes in use
            QCoreApplication::translate("qvfs", "Used"),
            //: df's heading: the bytes still available (short, like df's "Avail")
            QCoreApplication::translate("qvfs", "Avail"),
            //: df's heading: used / (used + available) in percent
            QCoreApplication::translate("qvfs", "Use%"),
        });
        for (const DfRow &r : std::as_const(rows)) {
            const int pct = usePercent(r.used, r.available);
            cells.append({ dfFigure(r.size, human), dfFigure(r.used, human), dfFigure(r.available, human),
                pct < 0 ? QStringLiteral("-") : QString::number(pct) + QLatin1Char('%') });
        }
        qsizetype widths[4] = { 0, 0, 0, 0 };
        for (const QStringList &line : std::as_const(cells)) {
            for (int c = 0; c < 4; ++c)
                widths[c] = qMax(widths[c], line.at(c).size());
        }
        for (qsizetype i = 0; i < cells.size(); ++i) {
            QString line;
            for (int c = 0; c < 4; ++c) {
                line += cells.at(i).at(c).rightJustified(widths[c]);
                line += QLatin1Char(' ');
            }
            out(line.toLocal8Bit());
            if (i == 0)
                //: df's heading of the last column: the URL as given
                out(QCoreApplication::translate("qvfs", "URL").toLocal8Bit());
            else
                out(shownName(rows.at(i - 1).name, Sink::Stdout));
            out("\n");
        }
    }
    flushOut();
    return ctx().status;
}

} // namespace Cli
