// SPDX-License-Identifier: LGPL-2.1-or-later
// The trash:/ worker: finding entries, listing, stat, reading, deleting and emptying.
#include "trashworker.h"

#include "fileops.h"
#include "url.h"

#include <QDateTime>
#include <QElapsedTimer>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace Qvfs
{

using FileOps::Fd;
using FileOps::OpResult;

namespace
{
constexpr qint64 MaxInfoBytes = 64 * 1024;
constexpr char Expunged[] = "expunged";

/*! A FileOps::Context that only stops: for walks the request does not report (sizes, purges). */
class QuietContext : public FileOps::Context
{
public:
    explicit QuietContext(std::function<bool()> stop)
        : m_stop(std::move(stop))
    { }
    bool isCancelled() override { return m_stop(); }
    void setTotals(qint64, qint64, qint64) override { }
    void progress(qint64, qint64, qint64) override { }
    ConflictAction askConflict(const QByteArray &, const QByteArray &, bool *) override
    {
        return ConflictAction::Cancel;
    }

private:
    std::function<bool()> m_stop;
};

/*! The last component of \a path. */
QByteArray baseName(const QByteArray &path)
{
    const qsizetype slash = path.lastIndexOf('/');
    return slash < 0 ? path : path.mid(slash + 1);
}

/*! \a request with the URL of \a localPath (inside a trash), for the file worker. */
template<typename Request>
Request atLocalPath(Request request, const QByteArray &localPath)
{
    request.url = Url::fromLocalPath(localPath);
    return request;
}

/*! \a result, naming \a url instead of the local path inside the trash. */
WorkerResult named(const WorkerResult &result, const QUrl &url)
{
    if (result.ok() || result.code() == ErrInternal)
        return result;
    return WorkerResult::fail(result.code(), url);
}
} // namespace

QByteArray TrashWorker::Where::localPath() const
{
    return FileOps::fdPath(trash->files.get(), rest.isEmpty() ? fileId : fileId + '/' + rest);
}

void TrashWorker::refresh()
{
    m_trashes = Trash::existingTrashes();
    for (const Trash::Folder &t : m_trashes) {
        struct stat st;
        if (::fstatat(t.fd.get(), Expunged, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) && st.st_nlink > 2)
            m_purgePending = true; // a folder put aside (info-*, files-*) is still there
    }
    if (m_purgePending)
        setWatchTimer(0);
}

int TrashWorker::locate(const QUrl &url, Where *where)
{
    if (url.scheme() != QLatin1String("trash"))
        return ErrMalformedUrl;
    QByteArray path = QByteArray::fromPercentEncoding(url.path(QUrl::FullyEncoded).toLatin1());
    if (path.contains('\0') || !(path.isEmpty() || path.startsWith('/')))
        return ErrMalformedUrl;
    QList<QByteArray> segments;
    for (const QByteArray &s : path.split('/')) {
        if (s.isEmpty())
            continue;
        if (s == "." || s == "..")
            return ErrMalformedUrl; // never resolved: "%2E%2E" must not climb out of the entry
        segments.append(s);
    }
    *where = Where();
    if (segments.isEmpty())
        return 0;
    const QByteArray &first = segments.first();
    const qsizetype dash = first.indexOf('-');
    if (dash <= 0 || dash + 1 >= first.size())
        return ErrDoesNotExist;
    const QByteArray id = first.left(dash);
    where->fileId = first.mid(dash + 1);
    segments.removeFirst();
    where->rest = segments.join('/');
    for (Trash::Folder &t : m_trashes) {
        if (t.id == id) {
            where->trash = &t;
            break;
        }
    }
    struct stat st;
    const QByteArray infoName = where->fileId + Trash::InfoSuffix.toByteArray();
    if (!where->trash || ::fstatat(where->trash->info.get(), infoName.constData(), &st, AT_SYMLINK_NOFOLLOW) < 0)
        return ErrDoesNotExist;
    return 0;
}

bool TrashWorker::readInfo(const Trash::Folder &trash, const QByteArray &fileId, Trash::Info *info, qint64 *mtime)
{
    const QByteArray name = fileId + Trash::InfoSuffix.toByteArray();
    Fd fd(::openat(trash.info.get(), name.constData(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    struct stat st;
    if (!fd.valid() || ::fstat(fd.get(), &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > MaxInfoBytes)
        return false;
    QByteArray content(qsizetype(st.st_size), Qt::Uninitialized);
    qsizetype done = 0;
    while (done < content.size()) {
        const ssize_t n = ::read(fd.get(), content.data() + done, size_t(content.size() - done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += n;
    }
    content.truncate(done);
    if (mtime)
        *mtime = st.st_mtim.tv_sec;
    return Trash::parseInfo(content, info);
}

bool TrashWorker::sendEntry(Trash::Folder &trash, const QByteArray &fileId, Details details, Trash::SizeCache *sizes)
{
    Trash::Info info;
    qint64 infoMtime = 0;
    if (!readInfo(trash, fileId, &info, &infoMtime))
        return false;
    struct statx st;
    if (statx(trash.files.get(), fileId.constData(), AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT,
            statxMask(details) | STATX_TYPE, &st)
        != 0)
        return false;
    qint64 size = -1;
    if (S_ISDIR(st.stx_mode) && (details & DetailBasic) && sizes) {
        size = sizes->size(fileId, infoMtime);
        if (size < 0) {
            QuietContext quiet([this] { return wasKilled(); });
            qint64 bytes = 0;
            if (FileOps::directorySize(FileOps::fdPath(trash.files.get(), fileId), quiet, &bytes, nullptr, nullptr)
                    .ok()) {
                sizes->set(fileId, infoMtime, bytes);
                size = bytes;
            }
        }
    }
    const QByteArray original = trash.originalPath(info.path);
    beginEntry();
    addEntryFields(
        QByteArray(trash.id + '-' + fileId), trash.files.get(), fileId.constData(), st, details, false, nullptr, size);
    addString(OriginalPath, original);
    addString(DisplayName, QString::fromUtf8(baseName(original)).toUtf8());
    if (info.deletionTime >= 0)
        addNumber(DeletionTime, info.deletionTime);
    endEntry();
    return true;
}

void TrashWorker::listRoot(Details details)
{
    for (Trash::Folder &t : m_trashes) {
        Trash::SizeCache sizes;
        sizes.load(t.fd.get());
        FileOps::DirStream dir(Fd(::openat(t.info.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)));
        if (!dir.valid())
            continue;
        QHash<QByteArray, bool> listed;
        int n = 0;
        while (struct dirent *e = dir.next()) {
            QByteArray fileId(e->d_name);
            if (!fileId.endsWith(Trash::InfoSuffix) || fileId.size() == Trash::InfoSuffix.size())
                continue;
            fileId.chop(Trash::InfoSuffix.size());
            if (sendEntry(t, fileId, details, &sizes))
                listed.insert(fileId, true);
            if (++n % 256 == 0 && wasKilled())
                return;
        }
        sizes.retain(listed);
        sizes.save(t.fd.get());
    }
}

WorkerResult TrashWorker::listDir(const ListRequest &request)
{
    refresh();
    Where w;
    if (const int err = locate(request.url, &w))
        return WorkerResult::fail(err, request.url);
    if (!w.trash) {
        if (request.recursive)
            return WorkerResult::fail(ErrUnsupportedAction, request.url);
        listRoot(request.details);
        return WorkerResult::pass();
    }
    return named(FileWorker::listDir(atLocalPath(request, w.localPath())), request.url);
}

WorkerResult TrashWorker::stat(const StatRequest &request)
{
    refresh();
    Where w;
    if (const int err = locate(request.url, &w))
        return WorkerResult::fail(err, request.url);
    if (!w.trash) {
        beginEntry();
        addString(Name, "/");
        addNumber(Type, qint64(FileType::Directory));
        if (request.details & DetailBasic)
            addNumber(Mode, 0700);
        endEntry();
        return WorkerResult::pass();
    }
    if (w.rest.isEmpty()) {
        Trash::SizeCache sizes;
        sizes.load(w.trash->fd.get());
        if (!sendEntry(*w.trash, w.fileId, request.details, &sizes))
            return WorkerResult::fail(ErrDoesNotExist, request.url);
        sizes.save(w.trash->fd.get());
        return WorkerResult::pass();
    }
    return named(FileWorker::stat(atLocalPath(request, w.localPath())), request.url);
}

WorkerResult TrashWorker::get(const GetRequest &request)
{
    refresh();
    Where w;
    if (const int err = locate(request.url, &w))
        return WorkerResult::fail(err, request.url);
    if (!w.trash)
        return WorkerResult::fail(ErrIsDirectory, request.url);
    return named(FileWorker::get(atLocalPath(request, w.localPath())), request.url);
}

WorkerResult TrashWorker::directorySize(const DirectorySizeRequest &request)
{
    refresh();
    Where w;
    if (const int err = locate(request.url, &w))
        return WorkerResult::fail(err, request.url);
    if (!w.trash) {
        // The whole trash: every entry's content.
        qint64 bytes = 0, files = 0, dirs = 0;
        QuietContext quiet([this] { return wasKilled(); });
        for (const Trash::Folder &t : m_trashes) {
            qint64 b = 0, f = 0, d = 0;
            if (FileOps::directorySize(FileOps::fdPath(t.files.get(), {}), quiet, &b, &f, &d).ok()) {
                bytes += b;
                files += f;
                dirs += d;
            }
        }
        setResult(ResultKey::Bytes, bytes);
        setResult(ResultKey::Files, files);
        setResult(ResultKey::Folders, dirs);
        return WorkerResult::pass();
    }
    return named(FileWorker::directorySize(atLocalPath(request, w.localPath())), request.url);
}

OpResult TrashWorker::removeEntry(
    Trash::Folder &trash, const QByteArray &fileId, FileOps::RemoveScope scope, qint64 *removed)
{
    QuietContext quiet([this] { return wasKilled(); });
    struct stat st;
    if (::fstatat(trash.files.get(), fileId.constData(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
        const OpResult r = FileOps::remove(FileOps::fdPath(trash.files.get(), fileId), scope, quiet, removed);
        if (!r.ok())
            return r;
    }
    const QByteArray infoName = fileId + Trash::InfoSuffix.toByteArray();
    if (::unlinkat(trash.info.get(), infoName.constData(), 0) < 0 && errno != ENOENT)
        return FileOps::errnoResult(errno, FileOps::Operation::Delete, {});
    Trash::SizeCache sizes;
    sizes.load(trash.fd.get());
    sizes.remove(fileId);
    sizes.save(trash.fd.get());
    return {};
}

OpResult TrashWorker::expunge(Trash::Folder &trash)
{
    Fd aside(Trash::openOwnedFolder(trash.fd.get(), Expunged, true));
    if (!aside.valid())
        return FileOps::errnoResult(errno, FileOps::Operation::Delete, {});
    static int serial = 0;
    const QByteArray tag = QByteArray::number(::getpid()) + '-'
        + QByteArray::number(QDateTime::currentMSecsSinceEpoch()) + '-' + QByteArray::number(++serial);
    // info/ first: an entry without its info is no longer listed, so the trash looks empty
    // from the first rename on.
    for (const char *part : { "info", "files" }) {
        const QByteArray to = QByteArray(part) + '-' + tag;
        if (::renameat(trash.fd.get(), part, aside.get(), to.constData()) < 0 && errno != ENOENT)
            return FileOps::errnoResult(errno, FileOps::Operation::Delete, {});
    }
    ::unlinkat(trash.fd.get(), "directorysizes", 0);
    if (!Trash::openParts(&trash, true))
        return FileOps::errnoResult(errno, FileOps::Operation::Write, {});
    return {};
}

bool TrashWorker::purge(int budgetMs)
{
    QElapsedTimer clock;
    clock.start();
    QuietContext budget([&clock, budgetMs] { return clock.elapsed() >= budgetMs; });
    if (m_trashes.empty())
        m_trashes = Trash::existingTrashes();
    for (const Trash::Folder &t : m_trashes) {
        FileOps::DirStream aside(Fd(Trash::openOwnedFolder(t.fd.get(), Expunged, false)));
        if (!aside.valid())
            continue;
        // One deleter per trash: another process holding the lock deletes it already.
        if (::flock(aside.fd(), LOCK_EX | LOCK_NB) != 0)
            continue;
        while (struct dirent *e = aside.next()) {
            qint64 removed = 0;
            const OpResult r
                = FileOps::remove(FileOps::fdPath(aside.fd(), e->d_name), FileOps::RemoveScope::Tree, budget, &removed);
            if (r.error == ErrCancelled)
                return true;
            if (clock.elapsed() >= budgetMs)
                return true;
        }
    }
    return false;
}

WorkerResult TrashWorker::del(const DeleteRequest &request)
{
    refresh();
    Where w;
    if (const int err = locate(request.url, &w))
        return WorkerResult::fail(err, request.url);
    if (!w.trash) {
        // Emptying: everything out of sight now, deleted between the next commands.
        if (request.scope != DeleteRequest::Scope::Tree)
            return WorkerResult::fail(ErrDirectoryNotEmpty, request.url);
        for (Trash::Folder &t : m_trashes) {
            const OpResult r = expunge(t);
            if (!r.ok())
                return WorkerResult::fail(r.error, Url::fromLocalPath(t.path));
        }
        m_purgePending = true;
        setWatchTimer(0);
        return WorkerResult::pass();
    }
    if (!w.rest.isEmpty())
        return WorkerResult::fail(ErrUnsupportedAction, request.url); // a trashed entry goes as a whole
    const FileOps::RemoveScope scope = request.scope == DeleteRequest::Scope::Tree ? FileOps::RemoveScope::Tree
        : request.scope == DeleteRequest::Scope::Entry                             ? FileOps::RemoveScope::Entry
                                                                                   : FileOps::RemoveScope::NotFolder;
    qint64 removed = 0;
    const OpResult r = removeEntry(*w.trash, w.fileId, scope, &removed);
    setResult(ResultKey::Removed, removed);
    if (!r.ok())
        return WorkerResult::fail(r.error, request.url);
    return WorkerResult::pass();
}

void TrashWorker::finishBackgroundWork()
{
    if (!m_purgePending)
        return;
    // The application waits for its workers to end (a command-line client does before it
    // exits): a child of this process deletes the rest on its own, detached, and this one
    // ends now. Should the fork fail, the next trash worker resumes (refresh()).
    const pid_t pid = ::fork();
    if (pid != 0)
        return;
    ::setsid();
    const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    for (int fd = 0; fd <= 2; ++fd)
        ::dup2(null, fd); // a pipe the application's output goes to must not wait for it
    while (purge(1000)) { }
    ::_exit(0);
}

void TrashWorker::watchEvent()
{
    if (m_watch)
        readWatchEvents();
    if (m_purgePending) {
        m_purgePending = purge(50);
        if (m_purgePending)
            setWatchTimer(0);
    }
}

} // namespace Qvfs
