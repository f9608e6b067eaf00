// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_FILEWORKER_H
#define QVFS_FILEWORKER_H

#include "fileentryinfo_p.h"
#include "fileops.h"
#include "workerbase.h"

#include <QByteArray>
#include <QByteArrayView>

#include <sys/stat.h>

#include <functional>

namespace Qvfs
{

/*!
 * The file:// worker: listings with dirfd-relative statx asking only for what the details
 * need (filelister_linux.cpp), and the operations of fileops.h (fileworker.cpp).
 */
class FileWorker : public WorkerBase
{
public:
    FileWorker()
        : WorkerBase(QByteArrayLiteral("file"))
    { }
    /*! A worker of another scheme on local files (the trash worker). */
    explicit FileWorker(const QByteArray &protocol)
        : WorkerBase(protocol)
    { }

    WorkerResult listDir(const ListRequest &request) override;
    WorkerResult stat(const StatRequest &request) override;
    WorkerResult mkdir(const MkdirRequest &request) override;
    WorkerResult del(const DeleteRequest &request) override;
    WorkerResult rename(const RenameRequest &request) override;
    WorkerResult copy(const CopyRequest &request) override;
    WorkerResult get(const GetRequest &request) override;
    WorkerResult put(const PutRequest &request) override;
    WorkerResult symlink(const SymlinkRequest &request) override;
    WorkerResult chmod(const ChmodRequest &request) override;
    WorkerResult directorySize(const DirectorySizeRequest &request) override;
    WorkerResult freeSpace(const FreeSpaceRequest &request) override;
    WorkerResult setModificationTime(const SetTimeRequest &request) override;
    /*! Trashes local entries (TrashRequest::Action::Trash) with Trash::Trasher. */
    WorkerResult trash(const TrashRequest &request) override;
    // watching folders with inotify (filewatcher_linux.cpp)
    WorkerResult watch(const WatchRequest &request) override;
    void unwatch(quint32 id) override;
    void watchEvent() override;
    // random access: fileopen_linux.cpp
    WorkerResult openFile(const OpenRequest &request, OpenedFile *file) override;
    WorkerResult readAt(qint64 offset, char *buffer, qint64 length, qint64 *bytesRead) override;
    WorkerResult writeAt(qint64 offset, QByteArrayView data) override;
    WorkerResult append(QByteArrayView data, qint64 *offset) override;
    WorkerResult truncate(qint64 length) override;
    WorkerResult fileSize(qint64 *size) override;
    WorkerResult closeFile() override;
    /*! Resolves this process's user and group names (the name service's first lookup). */
    void warmUp() override;

    // used by OpContext
    using WorkerBase::askConflict;
    using WorkerBase::askUnreadable;
    using WorkerBase::leftOut;
    using WorkerBase::reportItem;
    using WorkerBase::setProcessed;
    using WorkerBase::setSkipped;
    using WorkerBase::setTotals;
    using WorkerBase::wasKilled;

protected:
    struct ListState;
    /*! The local path of \a url, or an empty array when it is malformed (FileOps::localPathOf()). */
    static QByteArray pathOf(const QUrl &url);
    /*! Lists the folder \a fd, named \a prefix relative to the listed root (recursive). */
    WorkerResult listFolder(int fd, const QByteArray &prefix, ListState &state);
    struct Watcher;
    Watcher *m_watcher = nullptr; // made by the first watch, gone with the last one
    void flushWatches();
    /*! Adds the fields of one entry; \a name is what goes into Name. */
    void addEntry(QByteArrayView name, int dirfd, const char *path, const struct statx &st, Details details,
        bool hidden, const QByteArrayView *linkTarget = nullptr);
    /*! What statx() must fill in for \a details. */
    static unsigned statxMask(Details details);
    /*!
     * The fields of addEntry() (between beginEntry() and endEntry(), for a worker adding its
     * own); \a size, when not negative, is the Size instead of the entry's own.
     */
    void addEntryFields(QByteArrayView name, int dirfd, const char *path, const struct statx &st, Details details,
        bool hidden, const QByteArrayView *linkTarget = nullptr, qint64 size = -1);
    WorkerResult fail(const FileOps::OpResult &r, const QUrl &fallback);
    /*!
     * Keeps \a fd, opened on \a url with O_NONBLOCK (a fifo must not wait for its other
     * end) and described by \a st, when it is a regular file: blocking again. Anything else
     * (a folder, fifo, device or socket: no file to read) is closed: ErrIsDirectory for a
     * folder, ErrCannotRead otherwise.
     */
    static WorkerResult keepRegularFile(int fd, const struct stat &st, const QUrl &url);
    /*! Moves one entry of a TrashRequest: where it went in \a to, or that it stayed (\a skipped). */
    using EntryMove = std::function<FileOps::OpResult(const QUrl &url, QUrl *to, bool *skipped)>;
    /*!
     * Runs \a move for each entry of \a request, as a TrashRequest goes: counted in files,
     * each reported (reportItem()), one that fails left out (leftOut()) while the others go
     * on — unless it is the only one, or the request was killed: then it is the request's
     * error. One denied among several is a question first (askUnreadable(): skip, retry,
     * cancel).
     */
    WorkerResult forEachEntry(const TrashRequest &request, const EntryMove &move);
    /*! The Qvfs::Error of the errno value \a err met during \a op. */
    static int errnoError(int err, FileOps::Operation op = FileOps::Operation::Read)
    {
        return FileOps::errorFromErrno(err, op);
    }

    FileEntryInfo::NameCache m_users { FileEntryInfo::lookupUser, {}, 0, {} };
    FileEntryInfo::NameCache m_groups { FileEntryInfo::lookupGroup, {}, 0, {} };
    QByteArray m_linkBuf = QByteArray(4096, Qt::Uninitialized);
    int m_openFd = -1; // the file of openFile(), until closeFile()
    bool m_openWrite = false;
};

} // namespace Qvfs

#endif
