// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_TRASHWORKER_H
#define QVFS_TRASHWORKER_H

#include "fileops.h"
#include "fileworker.h"
#include "trashdirs_p.h"
#include "trashinfo_p.h"
#include "trashsizes_p.h"

#include <QByteArray>
#include <QHash>

#include <vector>

namespace Qvfs
{

/*!
 * The trash:/ worker: every trash of the user (trashdirs_p.h) as one flat folder whose
 * entries are named "<trash id>-<name in that trash>" ("0-report.pdf" in the home trash,
 * "7.0-clip.mkv" on the volume 7:0), with the original path (OriginalPath, DisplayName)
 * and the deletion time (DeletionTime); trashed folders can be entered and files read.
 * Deleting an entry deletes it for good; deleting trash:/ itself empties every trash: the
 * contents are renamed out of sight at once (into the trash's "expunged" folder) and
 * deleted afterwards between commands. TrashRequest::Action::Restore moves entries back
 * (trashworker_restore.cpp). A FileWorker: what lies inside a trash is local files.
 */
class TrashWorker : public FileWorker
{
public:
    TrashWorker()
        : FileWorker(QByteArrayLiteral("trash"))
    { }

    WorkerResult listDir(const ListRequest &request) override;
    WorkerResult stat(const StatRequest &request) override;
    WorkerResult get(const GetRequest &request) override;
    WorkerResult del(const DeleteRequest &request) override;
    WorkerResult directorySize(const DirectorySizeRequest &request) override;
    /*! Restores entries (TrashRequest::Action::Restore); trashing is the file worker's. */
    WorkerResult trash(const TrashRequest &request) override;
    // watching trash:/ with inotify on every trash's folders (trashworker_watch.cpp)
    WorkerResult watch(const WatchRequest &request) override;
    void unwatch(quint32 id) override;
    /*! Watch events, and the deletion of emptied trashes in slices between commands. */
    void watchEvent() override;
    /*! Deletes the rest of what an emptying put aside once the application is gone. */
    void finishBackgroundWork() override;

private:
    /*! Where a trash:/ URL points. */
    struct Where
    {
        Trash::Folder *trash = nullptr; //!< null for trash:/ itself
        QByteArray fileId; //!< the name in the trash's files/ folder
        QByteArray rest; //!< the path below that entry ("" for the entry itself)
        QByteArray localPath() const;
    };
    /*! Finds \a url's trash and entry: 0, or an error code (ErrMalformedUrl, ErrDoesNotExist). */
    int locate(const QUrl &url, Where *where);
    /*! Opens the trashes anew (volumes come and go) and schedules the purge of what was emptied. */
    void refresh();
    /*! Reads the .trashinfo of \a fileId in \a trash. */
    static bool readInfo(const Trash::Folder &trash, const QByteArray &fileId, Trash::Info *info, qint64 *mtime);
    /*!
     * Sends the entry \a fileId of \a trash (its files/ entry described as a listing does,
     * with the trash fields); false when it is not a complete entry (no info, no file). A
     * folder's Size is its content's, from \a sizes (counted and added when missing).
     */
    bool sendEntry(Trash::Folder &trash, const QByteArray &fileId, Details details, Trash::SizeCache *sizes);
    /*! Lists every trash: one entry per complete entry. */
    void listRoot(Details details);
    /*! Removes the entry \a fileId of \a trash for good as \a scope allows: its file, then its info. */
    FileOps::OpResult removeEntry(
        Trash::Folder &trash, const QByteArray &fileId, FileOps::RemoveScope scope, qint64 *removed);
    /*! Empties \a trash at once: info/ and files/ go into expunged/ and come back empty. */
    FileOps::OpResult expunge(Trash::Folder &trash);
    /*! Deletes what expunge() put aside, for about \a budgetMs; true when something is left. */
    bool purge(int budgetMs);

    // restoring (trashworker_restore.cpp)
    FileOps::OpResult restoreOne(const QUrl &url, ConflictPolicy policy, bool *skipped, QUrl *to);

    // watching (trashworker_watch.cpp)
    struct Watch;
    Watch *m_watch = nullptr;
    void readWatchEvents();
    /*! Watches every trash and where new ones would appear, until that holds still (false: no inotify). */
    bool rewatch();

    std::vector<Trash::Folder> m_trashes;
    bool m_purgePending = false;
};

} // namespace Qvfs

#endif
