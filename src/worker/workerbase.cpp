// SPDX-License-Identifier: LGPL-2.1-or-later
// WorkerBase: the facade a worker sees. Each call forwards to the part that does the work
// (workerengine_p.h, entrysink_p.h, watchserver_p.h, pollingwatch_p.h,
// openfileserver_p.h); the default hooks are here.
#include "workerbase.h"
#include "entrysink_p.h"
#include "keys_p.h"
#include "openfileserver_p.h"
#include "pollingwatch_p.h"
#include "url_p.h"
#include "watchserver_p.h"
#include "workerbase_debug.h"
#include "workerengine_p.h"

#include <QtNumeric>

#include <limits>

namespace Qvfs
{

using namespace Internal;

/*!
 * WorkerBase's parts, made together. Each keeps references to those it works with; a
 * constructor only keeps them, nothing is used before exec(). The engine comes first, as
 * every part works with it.
 */
class WorkerBasePrivate
{
public:
    WorkerBasePrivate(WorkerBase *q, const QByteArray &protocol, WorkerBase::Options options)
        : engine(q, protocol, options, entries, watches, files)
        , entries(engine)
        , watches(q, engine, entries.batcher(), polling)
        , polling(q, engine, entries, watches)
        , files(q, engine)
    { }

    WorkerEngine engine;
    EntrySink entries;
    WatchServer watches;
    PollingWatch polling;
    OpenFileServer files;
};

WorkerBase::WorkerBase(const QByteArray &protocol, Options options)
    : d(new WorkerBasePrivate(this, protocol, options))
{ }

WorkerBase::~WorkerBase() = default;

int WorkerBase::exec(int argc, char **argv)
{
    return d->engine.exec(argc, argv);
}

// ---- default hooks ----

WorkerResult WorkerBase::listDir(const ListRequest &r)
{
    return WorkerResult::fail(ErrUnsupportedAction, r.url);
}
WorkerResult WorkerBase::stat(const StatRequest &r)
{
    return WorkerResult::fail(ErrUnsupportedAction, r.url);
}
WorkerResult WorkerBase::mkdir(const MkdirRequest &r)
{
    return WorkerResult::fail(ErrUnsupportedAction, r.url);
}
WorkerResult WorkerBase::del(const DeleteRequest &r)
{
    return WorkerResult::fail(ErrUnsupportedAction, r.url);
}
WorkerResult WorkerBase::rename(const RenameRequest &r)
{
    return WorkerResult::fail(ErrUnsupportedAction, r.source);
}
WorkerResult WorkerBase::copy(const CopyRequest &r)
{
    return WorkerResult::fail(ErrUnsupportedAction, r.destination);
}
WorkerResult WorkerBase::get(const GetRequest &r)
{
    return WorkerResult::fail(ErrUnsupportedAction, r.url);
}
WorkerResult WorkerBase::put(const PutRequest &r)
{
    return WorkerResult::fail(ErrUnsupportedAction, r.url);
}
WorkerResult WorkerBase::symlink(const SymlinkRequest &r)
{
    return WorkerResult::fail(ErrUnsupportedAction, r.link);
}
WorkerResult WorkerBase::chmod(const ChmodRequest &r)
{
    return WorkerResult::fail(ErrUnsupportedAction, r.url);
}
WorkerResult WorkerBase::setModificationTime(const SetTimeRequest &r)
{
    return WorkerResult::fail(ErrUnsupportedAction, r.url);
}
WorkerResult WorkerBase::directorySize(const DirectorySizeRequest &r)
{
    return WorkerResult::fail(ErrUnsupportedAction, r.url);
}
void WorkerBase::finishBackgroundWork() { }

WorkerResult WorkerBase::trash(const TrashRequest &r)
{
    return WorkerResult::fail(ErrUnsupportedAction, r.urls.value(0));
}

WorkerResult WorkerBase::freeSpace(const FreeSpaceRequest &r)
{
    return WorkerResult::fail(ErrUnsupportedAction, r.url);
}
WorkerResult WorkerBase::copyToFile(const FileCopyRequest &r)
{
    return WorkerResult::fail(ErrUnsupportedAction, r.source);
}
WorkerResult WorkerBase::copyFromFile(const FileCopyRequest &r)
{
    return WorkerResult::fail(ErrUnsupportedAction, r.destination);
}
WorkerResult WorkerBase::special(const QUrl &url)
{
    return WorkerResult::fail(ErrUnsupportedAction, url);
}
WorkerResult WorkerBase::openFile(const OpenRequest &r, OpenedFile *)
{
    return WorkerResult::fail(ErrUnsupportedAction, r.url);
}
WorkerResult WorkerBase::readAt(qint64, char *, qint64, qint64 *)
{
    return WorkerResult::fail(ErrUnsupportedAction);
}
WorkerResult WorkerBase::writeAt(qint64, QByteArrayView)
{
    return WorkerResult::fail(ErrUnsupportedAction);
}
WorkerResult WorkerBase::append(QByteArrayView, qint64 *)
{
    return WorkerResult::fail(ErrUnsupportedAction);
}
WorkerResult WorkerBase::truncate(qint64)
{
    return WorkerResult::fail(ErrUnsupportedAction);
}
WorkerResult WorkerBase::fileSize(qint64 *)
{
    return WorkerResult::fail(ErrUnsupportedAction);
}
WorkerResult WorkerBase::closeFile()
{
    return WorkerResult::pass();
}

WorkerResult WorkerBase::watch(const WatchRequest &r)
{
    return d->polling.watch(r);
}

void WorkerBase::unwatch(quint32 id)
{
    d->polling.stop(id);
}

void WorkerBase::watchEvent() { }

void WorkerBase::setHost(const QUrl &) { }

void WorkerBase::closeConnection() { }

void WorkerBase::warmUp() { }

// ---- for hooks: the entries ----

const MetaData &WorkerBase::options() const
{
    return d->engine.opts;
}

void WorkerBase::beginEntry()
{
    d->entries.beginEntry();
}

void WorkerBase::addNumber(Field field, qint64 value)
{
    d->entries.addNumber(field, value);
}

void WorkerBase::addString(Field field, QByteArrayView value)
{
    d->entries.addString(field, value);
}

void WorkerBase::addAtom(Field field, QByteArrayView value)
{
    d->entries.addAtom(field, value);
}

void WorkerBase::endEntry()
{
    d->entries.endEntry();
}

void WorkerBase::whenFirstBatchSent(std::function<void(const QList<QByteArray> &)> hook)
{
    d->entries.batcher().whenFirstBatchSent(std::move(hook));
}

// ---- for hooks: streaming, progress, results ----

void WorkerBase::data(QByteArrayView chunk)
{
    d->engine.data(chunk);
}

bool WorkerBase::readData(QByteArray *chunk)
{
    return d->engine.readData(chunk);
}

void WorkerBase::setTotals(qint64 bytes, qint64 files, qint64 dirs)
{
    d->engine.setTotals(bytes, files, dirs);
}

void WorkerBase::setProcessed(qint64 bytes, qint64 files, qint64 dirs)
{
    d->engine.setProcessed(bytes, files, dirs);
}

void WorkerBase::setSkipped(qint64 count)
{
    d->engine.setSkipped(count);
}

void WorkerBase::sendMetaData(const MetaData &meta)
{
    d->engine.sendMetaData(meta);
}

void WorkerBase::mimeType(const QString &type)
{
    MetaData m;
    m.setString(Keys::MimeType, type);
    sendMetaData(m);
}

void WorkerBase::redirection(const QUrl &url)
{
    d->engine.redirection(url);
}

void WorkerBase::reportItem(CopyItemEvent event, const QUrl &source, const QUrl &destination)
{
    d->engine.reportItem(event, source, destination);
}

void WorkerBase::setResult(ResultKey key, qint64 value)
{
    d->engine.setResult(key, value);
}

void WorkerBase::setFreeSpace(quint64 unit, quint64 totalBlocks, quint64 freeBlocks, quint64 availableBlocks)
{
    const auto bytes = [unit](quint64 blocks) {
        quint64 n = 0;
        if (qMulOverflow(blocks, unit, &n) || n > quint64(std::numeric_limits<qint64>::max()))
            return std::numeric_limits<qint64>::max();
        return qint64(n);
    };
    setResult(ResultKey::SpaceTotal, bytes(totalBlocks));
    setResult(ResultKey::SpaceFree, bytes(freeBlocks));
    setResult(ResultKey::SpaceAvailable, bytes(availableBlocks));
}

void WorkerBase::leftOut(const QUrl &url, int error)
{
    d->engine.leftOut(url, error);
}

void WorkerBase::leftOutUnsafeName(const QUrl &folder, QByteArrayView name)
{
    qCWarning(QVFS_WORKER) << folder.toDisplayString() << "holds an entry whose name is no safe name:" << name;
    leftOut(Url::Detail::reportedChild(folder, name), ErrUnsafeName);
}

// ---- for hooks: questions ----

ConflictAnswer WorkerBase::askConflict(const ConflictQuestion &question)
{
    return decodeConflictAnswer(d->engine.ask(encodeQuestion(question)));
}

Credentials WorkerBase::askPassword(const PasswordQuestion &question)
{
    return decodeCredentials(d->engine.ask(encodeQuestion(question)));
}

Trust WorkerBase::askTrust(const TrustQuestion &question)
{
    return decodeTrust(d->engine.ask(encodeQuestion(question)));
}

UnreadableAnswer WorkerBase::askUnreadable(const UnreadableQuestion &question)
{
    return decodeUnreadableAnswer(d->engine.ask(encodeQuestion(question)));
}

// ---- for hooks: kill and waiting ----

bool WorkerBase::wasKilled()
{
    return d->engine.wasKilled();
}

bool WorkerBase::waitUntil(const std::function<bool()> &done, int timeoutMs)
{
    return d->engine.waitUntil(done, timeoutMs);
}

bool WorkerBase::waitForDescriptor(int fd, int timeoutMs)
{
    return d->engine.waitForDescriptor(fd, timeoutMs);
}

int WorkerBase::socketFd() const
{
    return d->engine.conn.fd();
}

quint32 WorkerBase::requestId() const
{
    return d->engine.current;
}

// ---- for watches ----

void WorkerBase::setWatchMode(WatchMode mode)
{
    d->watches.setStartMode(mode);
}

void WorkerBase::setWatchDescriptor(int fd)
{
    d->watches.setDescriptor(fd);
}

void WorkerBase::setWatchTimer(int ms)
{
    d->watches.setTimer(ms);
}

bool WorkerBase::isWatching(quint32 id) const
{
    return d->watches.isWatching(id);
}

QList<std::pair<QByteArray, QByteArray>> WorkerBase::plainRenames(
    const QList<std::pair<QByteArray, QByteArray>> &renames, const QSet<QByteArray> &existing)
{
    return WatchServer::plainRenames(renames, existing);
}

QSet<QByteArray> WorkerBase::reportRenames(const QList<std::pair<QByteArray, QByteArray>> &renames)
{
    QSet<QByteArray> renamedFrom;
    for (const auto &r : renames) {
        reportRenamed(r.first, r.second);
        renamedFrom.insert(r.first);
    }
    return renamedFrom;
}

bool WorkerBase::beginChanges(quint32 id)
{
    return d->watches.beginChanges(id);
}

void WorkerBase::reportRemoved(QByteArrayView name)
{
    d->watches.reportRemoved(name);
}

void WorkerBase::reportRenamed(QByteArrayView from, QByteArrayView to)
{
    d->watches.reportRenamed(from, to);
}

void WorkerBase::endChanges()
{
    d->watches.endChanges();
}

bool WorkerBase::beginResync(quint32 id)
{
    return d->watches.beginResync(id);
}

void WorkerBase::endResync()
{
    d->watches.endResync();
}

void WorkerBase::watchGone(quint32 id)
{
    d->watches.gone(id);
}

void WorkerBase::watchMoved(quint32 id, const QUrl &url)
{
    d->watches.moved(id, url);
}

} // namespace Qvfs
