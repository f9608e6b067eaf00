// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_POLLINGWATCH_P_H
#define QVFS_POLLINGWATCH_P_H

// The default WorkerBase::watch(): for a protocol without change notification, the folder
// is listed again every few seconds and only what differs goes out, found by a digest of
// each entry's fields per name. Internal.

#include "workerbase.h"

#include <QByteArray>
#include <QHash>

namespace Qvfs
{

class EntryBatcher;
class EntrySink;
class WatchServer;
class WorkerEngine;

/*! A polled folder: how to list it, when, and the digest of what its last listing gave. */
struct PolledFolder
{
    struct Digest
    {
        quint64 hash; // of the entry's fields
        quint32 generation; // of the listing that last gave the name
    };
    ListRequest list;
    int intervalMs = 0;
    qint64 dueMs = 0;
    quint32 generation = 1; // of the listing running or last run: a name it did not give is gone
    QHash<QByteArray, Digest> digests; // by name
};

/*!
 * The digest sink: takes the entries of a polled folder's listing in place of the batcher
 * (EntrySink::setDigest()), hashes each entry's fields (FNV-1a) and keeps the hash per
 * name in the folder. On the watch's first listing every entry goes out as well
 * (SendAll). On a later poll (SendChanged) an entry's fields are held until its end,
 * and it goes out (an upsert by name) only when its hash shows it new or changed.
 */
class PollingDigest
{
public:
    enum class Mode {
        SendAll, //!< entries are sent, and their digest kept
        SendChanged, //!< entries are digested; only new or changed ones are sent
    };
    explicit PollingDigest(EntryBatcher &batcher)
        : m_batcher(batcher)
    { }

    /*! The entries that follow are of \a folder's listing. */
    void startListing(PolledFolder *folder, Mode mode)
    {
        m_folder = folder;
        m_mode = mode;
    }

    void beginEntry();
    void addNumber(quint16 field, qint64 value);
    void addString(quint16 field, QByteArrayView value);
    void addAtom(quint16 field, QByteArrayView value);
    void endEntry();

private:
    void digestField(quint16 field, qint64 number, QByteArrayView str);
    void hashBytes(const void *p, qsizetype n);
    /*! Encodes the entry held back (SendChanged) into the batch. */
    void sendHeldEntry();

    EntryBatcher &m_batcher;
    PolledFolder *m_folder = nullptr;
    Mode m_mode = Mode::SendAll;
    quint64 m_hash = 0; // of the entry being built
    QByteArray m_name; // its Name
    QByteArray m_heldFields; // SendChanged: its fields, to encode if it turns out new or changed
};

/*!
 * The default watch (WorkerBase::watch() and unwatch()): a polled folder per watch. Its
 * first listing is the watch's; then every interval the WatchServer lets it list the
 * folder again, as a batch of changes, through the digest: what is new or changed is
 * sent, a name the listing no longer gives is reported removed, and a folder that is no
 * longer there ends the watch (watchGone()).
 */
class PollingWatch
{
public:
    PollingWatch(WorkerBase *q, WorkerEngine &engine, EntrySink &entries, WatchServer &watches);

    /*! WorkerBase::watch()'s default: polls when \a request.pollMs is above 0. */
    WorkerResult watch(const WatchRequest &request);
    /*! The watch \a id ends: its folder is polled no more. */
    void stop(quint32 id) { m_folders.remove(id); }
    /*! The folder of watch \a id now lives at \a url: polled there. */
    void moved(quint32 id, const QUrl &url);
    /*! The earlier of \a due and the next poll's time (WorkerEngine::nowMs(); -1: none). */
    qint64 nextDue(qint64 due) const;
    /*! Polls the folders of live watches whose time has come by \a now. */
    void pollDue(qint64 now);

private:
    void poll(quint32 id);
    /*! Lists \a folder with the digest as the sink. */
    WorkerResult list(PolledFolder &folder, PollingDigest::Mode mode);

    WorkerBase *q;
    WorkerEngine &m_engine;
    EntrySink &m_entries;
    WatchServer &m_watches;
    QHash<quint32, PolledFolder> m_folders; // by watch
    PollingDigest m_digest;
};

} // namespace Qvfs

#endif
