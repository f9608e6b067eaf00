// SPDX-License-Identifier: LGPL-2.1-or-later
// The hooks of the file:// worker but listings and stat (filelister_linux.cpp); most hand
// over to fileops.h.
#include "fileworker.h"

#include "fileentryinfo_p.h"
#include "url.h"

#include <QElapsedTimer>
#include <QMimeDatabase>

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Qvfs
{

namespace
{
class OpContext : public FileOps::Context
{
public:
    /*! \a reportItems: the request asked for per-entry reports (CopyRequest::reportItems). */
    explicit OpContext(FileWorker *w, bool reportItems = false)
        : m_w(w)
        , m_reportItems(reportItems)
    { }
    bool isCancelled() override { return m_w->wasKilled(); }
    void setTotals(qint64 bytes, qint64 files, qint64 dirs) override
    {
        // The first totals go out at once; lowered ones (skipped entries, maybe thousands)
        // with the next progress at most ten times a second, and at the end (finish()).
        m_totals[0] = bytes;
        m_totals[1] = files;
        m_totals[2] = dirs;
        m_totalsPending = true;
        if (!m_timer.isValid() || m_timer.elapsed() >= 100)
            sendTotals();
    }
    void progress(qint64 bytes, qint64 files, qint64 dirs) override
    {
        if (m_totalsPending && m_timer.elapsed() >= 100)
            sendTotals();
        m_w->setProcessed(bytes, files, dirs);
    }
    void skipped(qint64 count) override { m_w->setSkipped(count); }
    void item(CopyItemEvent event, const QByteArray &source, const QByteArray &destination) override
    {
        if (m_reportItems)
            m_w->reportItem(event, Url::fromLocalPath(source), Url::fromLocalPath(destination));
    }
    /*! Sends what is still pending; before the request ends. */
    void finish()
    {
        if (m_totalsPending)
            sendTotals();
    }
    FileOps::Answer askConflict(const QByteArray &src, const QByteArray &dst, bool *applyToAll) override
    {
        const ConflictAnswer a
            = m_w->askConflict(ConflictQuestion { Url::fromLocalPath(src), Url::fromLocalPath(dst) });
        *applyToAll = a.applyToAll;
        m_unanswered = !a.answered;
        if (!a.answered)
            return FileOps::Answer::Cancel;
        switch (a.action) {
        case ConflictAction::Overwrite:
            return FileOps::Answer::Overwrite;
        case ConflictAction::Skip:
            return FileOps::Answer::Skip;
        case ConflictAction::Rename:
            return FileOps::Answer::Rename;
        case ConflictAction::Cancel:
            break;
        }
        return FileOps::Answer::Cancel;
    }
    bool unanswered() const { return m_unanswered; }

private:
    void sendTotals()
    {
        m_w->setTotals(m_totals[0], m_totals[1], m_totals[2]);
        m_totalsPending = false;
        m_timer.start();
    }

    FileWorker *m_w;
    const bool m_reportItems;
    bool m_unanswered = false;
    bool m_totalsPending = false;
    qint64 m_totals[3] = { -1, -1, -1 };
    QElapsedTimer m_timer;
};

FileOps::Conflict conflictPolicy(ConflictPolicy policy)
{
    switch (policy) {
    case ConflictPolicy::Overwrite:
        return FileOps::Conflict::Overwrite;
    case ConflictPolicy::Skip:
        return FileOps::Conflict::Skip;
    case ConflictPolicy::Rename:
        return FileOps::Conflict::Rename;
    case ConflictPolicy::Ask:
        return FileOps::Conflict::Ask;
    case ConflictPolicy::Fail:
        break;
    }
    return FileOps::Conflict::Fail;
}
} // namespace

WorkerResult FileWorker::fail(const FileOps::OpResult &r, const QUrl &fallback)
{
    if (r.error == ErrInternal)
        return WorkerResult::fail(r.error, r.detail + " (" + r.path + ')');
    if (!r.path.isEmpty())
        return WorkerResult::fail(r.error, Url::fromLocalPath(r.path));
    return WorkerResult::fail(r.error, fallback);
}

WorkerResult FileWorker::mkdir(const MkdirRequest &request)
{
    const FileOps::OpResult r = FileOps::mkdir(Url::localPath(request.url), request.permissions, request.parents);
    return r.ok() ? WorkerResult::pass() : fail(r, request.url);
}

WorkerResult FileWorker::del(const DeleteRequest &request)
{
    OpContext ctx(this);
    qint64 removed = 0;
    const FileOps::OpResult r
        = FileOps::remove(Url::localPath(request.url), request.scope == DeleteRequest::Scope::Tree, ctx, &removed);
    setResult(ResultKey::Removed, removed);
    return r.ok() ? WorkerResult::pass() : fail(r, request.url);
}

WorkerResult FileWorker::rename(const RenameRequest &request)
{
    if (!Url::isLocalFile(request.destination))
        return WorkerResult::fail(ErrUnsupportedAction, request.destination);
    const FileOps::OpResult r
        = FileOps::rename(Url::localPath(request.source), Url::localPath(request.destination), request.overwrite);
    return r.ok() ? WorkerResult::pass() : fail(r, request.source);
}

WorkerResult FileWorker::copy(const CopyRequest &request)
{
    const QList<QUrl> &sources = request.sources;
    const QUrl &dest = request.destination;
    if (!Url::isLocalFile(dest))
        return WorkerResult::fail(ErrUnsupportedAction, dest);
    QList<QByteArray> paths;
    paths.reserve(sources.size());
    for (const QUrl &u : sources) {
        if (!Url::isLocalFile(u))
            return WorkerResult::fail(ErrUnsupportedAction, u);
        paths.append(Url::localPath(u));
    }
    FileOps::CopyOptions o;
    o.conflict = conflictPolicy(request.conflict);
    o.preserve = request.preserve;
    o.move = request.move;
    o.countFirst = request.countFirst;
    OpContext ctx(this, request.reportItems);
    const QByteArray destPath = Url::localPath(dest);
    bool into = request.target == CopyRequest::Target::Into;
    if (request.target == CopyRequest::Target::IntoIfFolder) {
        struct stat st;
        into = ::stat(destPath.constData(), &st) == 0 && S_ISDIR(st.st_mode);
    }
    const FileOps::OpResult r = FileOps::copy(paths, destPath, into, o, ctx);
    ctx.finish();
    if (r.error == ErrCancelled && ctx.unanswered())
        return WorkerResult::fail(
            ErrNotAnswered, r.path.isEmpty() ? dest.toEncoded() : Url::fromLocalPath(r.path).toEncoded());
    return r.ok() ? WorkerResult::pass() : fail(r, dest);
}

WorkerResult FileWorker::get(const GetRequest &request)
{
    const QUrl &url = request.url;
    const QByteArray path = Url::localPath(url);
    // O_NONBLOCK: opening a fifo must not wait for a writer; only regular files are read.
    const int fd = open(path.constData(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return WorkerResult::fail(errnoError(errno), url);
    struct stat st;
    if (fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        return WorkerResult::fail(errnoError(err), url);
    }
    if (!S_ISREG(st.st_mode)) {
        // A folder, fifo, device or socket: not readable as a file.
        ::close(fd);
        return WorkerResult::fail(S_ISDIR(st.st_mode) ? int(ErrIsDirectory) : int(ErrCannotRead), url);
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    const qint64 offset = request.offset;
    if (offset > 0 && lseek(fd, offset, SEEK_SET) < 0) {
        ::close(fd);
        return WorkerResult::fail(ErrCannotRead, url);
    }
    QByteArray buf(256 * 1024, Qt::Uninitialized);
    ssize_t n = read(fd, buf.data(), size_t(buf.size()));
    if (n < 0) {
        const int err = errno;
        ::close(fd);
        return WorkerResult::fail(errnoError(err), url);
    }
    {
        // The MIME type goes out before any data: from the name and the first bytes.
        const QMimeDatabase &db = FileEntryInfo::mimeDatabase();
        const QString name = QString::fromLocal8Bit(Url::fileName(url));
        mimeType(db.mimeTypeForFileNameAndData(name, QByteArray::fromRawData(buf.constData(), n > 0 ? n : 0)).name());
    }
    setTotals(qint64(st.st_size) - qMax<qint64>(offset, 0), 1, -1);
    qint64 done = 0;
    while (n > 0) {
        data(QByteArrayView(buf.constData(), n));
        done += n;
        setProcessed(done);
        if (wasKilled())
            break;
        n = read(fd, buf.data(), size_t(buf.size()));
    }
    const int err = errno;
    ::close(fd);
    if (n < 0)
        return WorkerResult::fail(errnoError(err), url);
    setProcessed(done, 1);
    return WorkerResult::pass();
}

WorkerResult FileWorker::put(const PutRequest &request)
{
    const QUrl &url = request.url;
    const QByteArray path = Url::localPath(url);
    const bool overwrite = request.overwrite;
    const int permissions = request.permissions;
    FileOps::AtomicWriter writer;
    FileOps::OpResult r = writer.open(path, overwrite, permissions);
    if (!r.ok())
        return fail(r, url);
    QByteArray chunk;
    qint64 done = 0;
    while (readData(&chunk)) {
        r = writer.write(chunk);
        if (!r.ok())
            return fail(r, url); // the writer's destructor discards the temporary
        done += chunk.size();
        setProcessed(done);
    }
    if (wasKilled())
        return WorkerResult::fail(ErrCancelled, url);
    if (request.mtime >= 0)
        writer.setModificationTime(request.mtime, request.mtimeNs);
    r = writer.commit();
    return r.ok() ? WorkerResult::pass() : fail(r, url);
}

WorkerResult FileWorker::symlink(const SymlinkRequest &request)
{
    const FileOps::OpResult r = FileOps::symlink(request.target, Url::localPath(request.link));
    return r.ok() ? WorkerResult::pass() : fail(r, request.link);
}

WorkerResult FileWorker::chmod(const ChmodRequest &request)
{
    const FileOps::OpResult r = FileOps::chmod(Url::localPath(request.url), request.permissions);
    return r.ok() ? WorkerResult::pass() : fail(r, request.url);
}

WorkerResult FileWorker::directorySize(const DirectorySizeRequest &request)
{
    const QUrl &url = request.url;
    OpContext ctx(this);
    qint64 bytes = 0, files = 0, dirs = 0;
    const FileOps::OpResult r = FileOps::directorySize(Url::localPath(url), ctx, &bytes, &files, &dirs);
    setResult(ResultKey::Bytes, bytes);
    setResult(ResultKey::Files, files);
    setResult(ResultKey::Folders, dirs);
    return r.ok() ? WorkerResult::pass() : fail(r, url);
}

WorkerResult FileWorker::setModificationTime(const SetTimeRequest &request)
{
    const QUrl &url = request.url;
    const qint64 seconds = request.seconds;
    const qint64 nanoseconds = request.nanoseconds;
    const QByteArray path = Url::localPath(url);
    // Access time untouched; the link itself, not its target.
    const timespec times[2] = { { 0, UTIME_OMIT }, { time_t(seconds), long(nanoseconds) } };
    if (utimensat(AT_FDCWD, path.constData(), times, AT_SYMLINK_NOFOLLOW) != 0)
        return WorkerResult::fail(errnoError(errno, FileOps::Operation::Write), url);
    return WorkerResult::pass();
}

} // namespace Qvfs
