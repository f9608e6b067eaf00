// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_DIRCACHE_P_H
#define QVFS_DIRCACHE_P_H

// The folders of DirLister: one cache per thread holding the received batches
// themselves, one listing and watch per folder shared by every lister of it. Internal.

#include "entry.h"
#include "entrycodec_p.h"
#include "request_p.h"

#include <QElapsedTimer>
#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QTimer>
#include <QUrl>

#include <memory>
#include <vector>

namespace Qvfs
{
class DirListerPrivate;
class StatJob;
} // namespace Qvfs

namespace Qvfs::Internal
{

/*!
 * The entries of one folder: Entry handles into the received batches (16 bytes each; the
 * values stay where the worker's batch put them) in slots that keep their place, and an
 * open-addressing index from name bytes to slot (4 bytes a slot, linear probing).
 */
class FolderRows
{
public:
    qsizetype size() const { return m_live; }
    qsizetype slotCount() const { return m_slots.size(); }
    /*! The entry in \a slot (empty when the slot is free). */
    const Entry &slot(qsizetype slot) const { return m_slots.at(slot); }
    /*! The slot of \a name, or -1. */
    qsizetype find(QByteArrayView name) const;
    enum class Upsert { Added, Changed, Same };
    /*! Inserts \a e or replaces the entry of its name (*\a old gets it). */
    Upsert upsert(const Entry &e, Entry *old, qsizetype *slot);
    /*! Removes \a name; false when unknown. */
    bool remove(QByteArrayView name, Entry *old);
    /*! Removes the entry in \a slot. */
    void removeSlot(qsizetype slot);
    /*! The entry in \a slot becomes \a e (another name; nothing else holds that name). */
    void rename(qsizetype slot, const Entry &e);
    void reserve(qsizetype extra);
    void clear();
    /*! Every entry (one segment per run of one batch). */
    EntryList toList() const;
    /*! Whether free slots may be squeezed out now (the caller holds no slot numbers). */
    void compactIfSparse();
    /*! Bytes of the slot table and index (the batches not counted). */
    qint64 overheadBytes() const { return qint64(m_slots.capacity()) * 16 + qint64(m_index.capacity()) * 4; }

private:
    size_t bucketOf(QByteArrayView name) const;
    void insertIndex(quint32 slot, QByteArrayView name);
    void eraseIndex(size_t bucket);
    void rebuildIndex(size_t capacity);

    QList<Entry> m_slots;
    std::vector<quint32> m_index; // slot + 1; 0 = empty bucket
    std::vector<quint32> m_free;
    qsizetype m_live = 0;
};

/*! What one batch did to a folder, as listers are told. */
struct FolderDelta
{
    EntryList added;
    EntryList changedBefore;
    EntryList changedAfter;
    EntryList removed;
    QList<std::pair<Entry, Entry>> renamed;
    bool isEmpty() const { return added.isEmpty() && changedAfter.isEmpty() && removed.isEmpty() && renamed.isEmpty(); }
};

class DirCache;

/*! The byte budget of every thread's cache for folders nobody holds. */
qint64 cacheBudgetBytes();
void setCacheBudgetBytes(qint64 bytes);

/*! One folder of the cache: its entries, its listing and watch, its listers. */
class DirFolder : public QObject, public RequestClient
{
    Q_OBJECT
public:
    enum class State {
        Idle, //!< cached: nobody holds it, nothing watches it
        Listing, //!< listing (first time, or revalidating cached entries)
        Complete, //!< listed; kept true by its watch (or by the application's own jobs)
        Failed, //!< could not be listed
        Gone, //!< deleted under the watch
    };

    DirFolder(DirCache *cache, const QUrl &url);
    ~DirFolder() override;

    /*! Starts listing and watching; \a revalidate: the entries held are checked, differences emitted. */
    void start(bool revalidate);
    /*! Stops the listing or watch. */
    void stop();

    QUrl url; // normalized
    FolderRows rows;
    State state = State::Idle;
    bool everComplete = false;
    WatchMode mode = WatchMode::None;
    Details details;
    int pollMs = 0;
    int error = 0;
    QStringList errorArgs;
    QList<DirListerPrivate *> holders;
    qint64 batchBytes = 0; // received batches kept (approximate: counted once per batch)
    quint64 lastUsed = 0;
    qint64 bytes() const { return batchBytes + rows.overheadBytes(); }

    // RequestClient
    void requestEntries(EntryBatch *batch) override;
    void requestChanges(const WatchChanges &changes) override;
    void requestFinished(const MetaData &results) override;
    void requestFailed(int code, const QStringList &args) override;
    QObject *context() override { return this; }

    // the application's own changes (ChangeNotifier), applied when no native watch covers it
    void publishedEntries(const EntryList &entries);
    void publishedChanged(QByteArrayView name);
    void publishedRemoved(QByteArrayView name);
    void publishedRenamed(QByteArrayView from, QByteArrayView to, const Entry &entry);
    /*!
     * The folder \a name in this one had names come or go (its modification time moved),
     * which no watch of this folder tells: its row is looked at again (never added).
     */
    void publishedTouched(QByteArrayView name);
    /*! Whether a native watch keeps it true (published changes are then redundant). */
    bool isNativelyWatched() const { return mode == WatchMode::Native && state == State::Complete; }

private:
    void applyEntries(const EntryList &entries, FolderDelta *delta);
    void countBatch(const EntryBatch *batch);
    void commit(const QList<std::pair<QByteArray, QByteArray>> &renamed, const QList<QByteArray> &removed,
        const EntryList &upserts, const QHash<QByteArray, Entry> &renameEntries);
    void endResync(FolderDelta *delta);
    void listed(WatchMode mode);
    void notify(const FolderDelta &delta);
    void notifyState(int what);
    void applyPublished();
    /*! Stats \a name and applies what it finds (\a onlyNewer: publishedTouched()'s rule). */
    void statName(const QByteArray &name, bool onlyNewer);
    void schedulePublished();
    void setWantsEntries(bool on);
    void restartLater();

    DirCache *m_cache;
    std::unique_ptr<Request> m_request;
    bool m_isWatch = false;
    bool m_resyncing = false;
    std::vector<bool> m_seen; // resync: the slots the fresh listing named
    EntryList m_pending; // a watch batch's entries until its commit
    const EntryBatch *m_lastBatch = nullptr;
    bool m_wantsEntries = false;
    int m_restarts = 0;
    QElapsedTimer m_restartClock;
    // published changes waiting to be applied together
    EntryList m_pubEntries;
    QList<QByteArray> m_pubRemoved;
    QList<std::pair<QByteArray, QByteArray>> m_pubRenamed;
    QHash<QByteArray, Entry> m_pubRenameEntries;
    QSet<QByteArray> m_pubDirty;
    QSet<QByteArray> m_pubTouched;
    QTimer m_pubTimer;
    int m_statsRunning = 0;
    FolderDelta m_statDelta;

public:
    enum StateEvent { Completed, FailedEvent, GoneEvent, ModeEvent };
};

/*! The folders of one thread. */
class DirCache : public QObject
{
    Q_OBJECT
public:
    static DirCache *forThread();
    ~DirCache() override;

    /*! \a holder holds \a url (normalized) with \a details; starts or revalidates it as needed. */
    DirFolder *acquire(const QUrl &url, DirListerPrivate *holder, Details details, int pollMs, bool reload);
    /*! \a holder lets \a folder go; a folder nobody holds is cached (unwatched) or dropped. */
    void release(DirFolder *folder, DirListerPrivate *holder);
    /*! \a folder now lives at \a to (renamed under its watch). */
    void rekey(DirFolder *folder, const QUrl &to);
    /*! Drops a cached folder (gone, failed, or over the budget). */
    void drop(DirFolder *folder);
    DirFolder *folder(const QUrl &normalizedUrl) const { return m_folders.value(normalizedUrl); }

private:
    DirCache();
    void evict();
    DirFolder *folderOf(const QUrl &url, QByteArray *name) const;
    void onEntriesAdded(const QUrl &dir, const EntryList &entries);
    void onChanged(const QList<QUrl> &urls);
    void onRemoved(const QList<QUrl> &urls);
    /*!
     * The entry \a url changed or went (\a publish): its held folder learns it, and its
     * parent's row is looked at again.
     */
    void published(const QUrl &url, void (DirFolder::*publish)(QByteArrayView name));
    void onRenamed(const QUrl &from, const QUrl &to, const Entry &entry);
    /*! Names came or went in the folder \a dir: its row in its parent is looked at again. */
    void contentChanged(const QUrl &dir);

    QHash<QUrl, DirFolder *> m_folders;
    QList<DirFolder *> m_unused; // least recently used first
    quint64 m_clock = 0;
};

} // namespace Qvfs::Internal

#endif
