// SPDX-License-Identifier: LGPL-2.1-or-later
#include "dircache_p.h"

#include "changenotifier.h"
#include "changenotifier_p.h"
#include "dirlister_p.h"
#include "error.h"
#include "protocol.h"
#include "qvfs_debug.h"
#include "statjob.h"
#include "url.h"
#include "urlidentity.h"

#include <QCoreApplication>
#include <QThread>

#include <atomic>

namespace Qvfs::Internal
{

namespace
{
constexpr int PublishDelayMs = 30; // the application's own changes, gathered this long
constexpr qsizetype MinIndex = 16;

std::atomic<qint64> s_cacheBudget { 32 * 1024 * 1024 };
} // namespace

qint64 cacheBudgetBytes()
{
    return s_cacheBudget.load();
}

void setCacheBudgetBytes(qint64 bytes)
{
    s_cacheBudget.store(qMax<qint64>(0, bytes));
}

// ---------------------------------------------------------------- FolderRows

size_t FolderRows::bucketOf(QByteArrayView name) const
{
    return qHash(name) & (m_index.size() - 1);
}

qsizetype FolderRows::find(QByteArrayView name) const
{
    if (m_index.empty())
        return -1;
    const size_t mask = m_index.size() - 1;
    for (size_t b = bucketOf(name);; b = (b + 1) & mask) {
        const quint32 v = m_index[b];
        if (!v)
            return -1;
        if (m_slots.at(v - 1).name() == name)
            return v - 1;
    }
}

void FolderRows::rebuildIndex(size_t capacity)
{
    m_index.assign(capacity, 0);
    const size_t mask = capacity - 1;
    for (qsizetype s = 0; s < m_slots.size(); ++s) {
        const Entry &e = m_slots.at(s);
        if (e.isEmpty())
            continue;
        size_t b = qHash(e.name()) & mask;
        while (m_index[b])
            b = (b + 1) & mask;
        m_index[b] = quint32(s + 1);
    }
}

void FolderRows::insertIndex(quint32 slot, QByteArrayView name)
{
    // Load at most 1/2: short probes, also for the names not there yet (every insert).
    if (m_index.empty() || size_t(m_live + 1) * 2 > m_index.size()) {
        size_t cap = qMax<size_t>(MinIndex, m_index.size());
        while (size_t(m_live + 1) * 2 > cap)
            cap *= 2;
        if (cap != m_index.size())
            rebuildIndex(cap);
    }
    const size_t mask = m_index.size() - 1;
    size_t b = bucketOf(name);
    while (m_index[b])
        b = (b + 1) & mask;
    m_index[b] = slot + 1;
}

void FolderRows::eraseIndex(size_t bucket)
{
    // Backward shift: no tombstones, probes stay short.
    const size_t mask = m_index.size() - 1;
    size_t hole = bucket;
    for (size_t j = (hole + 1) & mask; m_index[j]; j = (j + 1) & mask) {
        const size_t home = bucketOf(m_slots.at(m_index[j] - 1).name());
        if (((hole - home) & mask) < ((j - home) & mask)) {
            m_index[hole] = m_index[j];
            hole = j;
        }
    }
    m_index[hole] = 0;
}

void FolderRows::reserve(qsizetype extra)
{
    const qsizetype want = m_slots.size() + extra - qsizetype(m_free.size());
    if (want > m_slots.capacity())
        m_slots.reserve(qMax(want, m_slots.capacity() + m_slots.capacity() / 2));
}

FolderRows::Upsert FolderRows::upsert(const Entry &e, Entry *old, qsizetype *slot)
{
    const QByteArrayView name = e.name();
    const qsizetype s = find(name);
    if (s >= 0) {
        *slot = s;
        *old = m_slots.at(s);
        if (*old == e)
            return Upsert::Same; // keeps the older handle: no second batch pinned for nothing
        m_slots[s] = e;
        return Upsert::Changed;
    }
    qsizetype n;
    if (!m_free.empty()) {
        n = m_free.back();
        m_free.pop_back();
        m_slots[n] = e;
    } else {
        n = m_slots.size();
        m_slots.append(e);
    }
    insertIndex(quint32(n), name);
    ++m_live;
    *slot = n;
    return Upsert::Added;
}

bool FolderRows::remove(QByteArrayView name, Entry *old)
{
    if (m_index.empty())
        return false;
    const size_t mask = m_index.size() - 1;
    for (size_t b = bucketOf(name);; b = (b + 1) & mask) {
        const quint32 v = m_index[b];
        if (!v)
            return false;
        if (m_slots.at(v - 1).name() == name) {
            eraseIndex(b);
            if (old)
                *old = m_slots.at(v - 1);
            m_slots[v - 1] = Entry();
            m_free.push_back(v - 1);
            --m_live;
            return true;
        }
    }
}

void FolderRows::removeSlot(qsizetype slot)
{
    const Entry e = m_slots.at(slot);
    remove(e.name(), nullptr);
}

void FolderRows::rename(qsizetype slot, const Entry &e)
{
    const Entry old = m_slots.at(slot);
    remove(old.name(), nullptr); // frees the slot...
    Q_ASSERT(!m_free.empty() && m_free.back() == quint32(slot));
    m_free.pop_back(); // ...which the entry takes again under its new name
    m_slots[slot] = e;
    insertIndex(quint32(slot), e.name());
    ++m_live;
}

void FolderRows::clear()
{
    m_slots.clear();
    m_index.clear();
    m_free.clear();
    m_live = 0;
}

EntryList FolderRows::toList() const
{
    EntryList l;
    for (const Entry &e : m_slots) {
        if (!e.isEmpty())
            l.append(e);
    }
    return l;
}

void FolderRows::compactIfSparse()
{
    if (m_free.size() < 1024 || qsizetype(m_free.size()) * 4 < m_slots.size())
        return;
    QList<Entry> live;
    live.reserve(m_live);
    for (const Entry &e : std::as_const(m_slots)) {
        if (!e.isEmpty())
            live.append(e);
    }
    m_slots = std::move(live);
    m_free.clear();
    m_free.shrink_to_fit();
    size_t cap = MinIndex;
    while (size_t(m_live) * 2 > cap)
        cap *= 2;
    rebuildIndex(cap);
}

// ---------------------------------------------------------------- DirFolder

DirFolder::DirFolder(DirCache *cache, const QUrl &u)
    : QObject(cache)
    , url(u)
    , m_cache(cache)
{
    m_pubTimer.setSingleShot(true);
    m_pubTimer.setInterval(PublishDelayMs);
    connect(&m_pubTimer, &QTimer::timeout, this, &DirFolder::applyPublished);
}

DirFolder::~DirFolder()
{
    stop();
    setWantsEntries(false);
}

void DirFolder::start(bool revalidate)
{
    stop();
    const bool native = Protocol::find(url.scheme()).hasCapability(Protocol::Watch);
    m_request.reset(new Request(this));
    if (native || pollMs > 0) {
        WatchRequest w;
        w.url = url;
        w.details = details;
        w.pollMs = pollMs;
        m_request->set(w);
        m_isWatch = true;
    } else {
        // Nothing can watch it: listed once, then kept true by the application's own jobs.
        ListRequest l;
        l.url = url;
        l.details = details;
        m_request->set(l);
        m_isWatch = false;
    }
    m_resyncing = revalidate && rows.size() > 0;
    if (m_resyncing)
        m_seen.assign(size_t(rows.slotCount()), false);
    else if (rows.size() > 0) {
        // A fresh listing of what was not kept true: start from nothing.
        FolderDelta d;
        d.removed = rows.toList();
        rows.clear();
        notify(d);
    }
    state = State::Listing;
    m_request->start();
}

void DirFolder::stop()
{
    if (m_request) {
        m_request->cancel();
        m_request.reset();
    }
    m_resyncing = false;
    m_seen.clear();
    m_pending.clear();
    m_lastBatch = nullptr;
}

void DirFolder::countBatch(const EntryBatch *batch)
{
    if (batch != m_lastBatch) {
        m_lastBatch = batch;
        batchBytes += batch->payload.size() + qint64(batch->offsets.size()) * 4 + 64;
    }
}

void DirFolder::applyEntries(const EntryList &entries, FolderDelta *delta)
{
    rows.reserve(entries.size());
    for (const Entry &e : entries) {
        if (!Url::isSafeName(e.name()))
            continue; // a peer's name that would leave the folder
        Entry old;
        qsizetype slot = -1;
        switch (rows.upsert(e, &old, &slot)) {
        case FolderRows::Upsert::Added:
            delta->added.append(e);
            break;
        case FolderRows::Upsert::Changed:
            delta->changedBefore.append(old);
            delta->changedAfter.append(e);
            break;
        case FolderRows::Upsert::Same:
            break;
        }
        if (m_resyncing && size_t(slot) < m_seen.size())
            m_seen[size_t(slot)] = true; // slots beyond were added by this listing
    }
}

void DirFolder::requestEntries(EntryBatch *batch)
{
    countBatch(batch);
    const EntryList list = EntryList::fromBatch(batch);
    if (state == State::Listing || m_resyncing) {
        FolderDelta d;
        applyEntries(list, &d);
        notify(d);
        return;
    }
    m_pending.append(list); // applied with the batch's commit
}

void DirFolder::requestChanges(const WatchChanges &c)
{
    switch (c.kind) {
    case WatchChanges::Kind::Listed:
        listed(c.mode);
        return;
    case WatchChanges::Kind::Resync:
        // Events were lost: a fresh listing follows; what it does not name is gone.
        m_pending.clear();
        m_resyncing = true;
        m_seen.assign(size_t(rows.slotCount()), false);
        return;
    case WatchChanges::Kind::Commit: {
        const EntryList upserts = std::exchange(m_pending, EntryList());
        commit(c.renamed, c.removed, upserts, {});
        return;
    }
    case WatchChanges::Kind::Gone: {
        FolderDelta d;
        d.removed = rows.toList();
        rows.clear();
        state = State::Gone;
        setWantsEntries(false);
        notify(d);
        notifyState(GoneEvent);
        return;
    }
    case WatchChanges::Kind::Moved:
        m_cache->rekey(this, Url::normalized(c.url));
        return;
    }
}

void DirFolder::commit(const QList<std::pair<QByteArray, QByteArray>> &renamed, const QList<QByteArray> &removed,
    const EntryList &upserts, const QHash<QByteArray, Entry> &renameEntries)
{
    FolderDelta d;
    QSet<QByteArray> consumed;
    if (!renamed.isEmpty()) {
        // A rename keeps its row: the old name's slot takes the new name and entry.
        QHash<QByteArray, Entry> byName = renameEntries;
        for (const Entry &e : upserts)
            byName.insert(e.name().toByteArray(), e);
        for (const auto &r : renamed) {
            if (!Url::isSafeName(r.first) || !Url::isSafeName(r.second))
                continue;
            const qsizetype from = rows.find(r.first);
            if (from < 0)
                continue; // unknown: the new name's entry adds it
            const Entry before = rows.slot(from);
            Entry after = byName.value(r.second);
            if (after.isEmpty()) {
                after = before;
                after.setString(Name, r.second);
            }
            Entry displaced;
            if (rows.remove(r.second, &displaced))
                d.removed.append(displaced);
            rows.rename(rows.find(r.first), after);
            d.renamed.append({ before, after });
            consumed.insert(r.second);
        }
    }
    for (const QByteArray &name : removed) {
        Entry old;
        if (rows.remove(name, &old))
            d.removed.append(old);
    }
    if (consumed.isEmpty()) {
        applyEntries(upserts, &d);
    } else {
        EntryList rest;
        for (const Entry &e : upserts) {
            if (!consumed.contains(e.name().toByteArray()))
                rest.append(e);
        }
        applyEntries(rest, &d);
    }
    notify(d);
}

void DirFolder::endResync(FolderDelta *delta)
{
    for (size_t s = 0; s < m_seen.size(); ++s) {
        const Entry &e = rows.slot(qsizetype(s));
        if (!m_seen[s] && !e.isEmpty()) {
            delta->removed.append(e);
            rows.removeSlot(qsizetype(s));
        }
    }
    m_resyncing = false;
    m_seen.clear();
}

void DirFolder::listed(WatchMode newMode)
{
    FolderDelta d;
    if (m_resyncing)
        endResync(&d);
    notify(d);
    const bool modeChanged = newMode != mode;
    mode = newMode;
    state = State::Complete;
    everComplete = true;
    error = 0;
    errorArgs.clear();
    // Where no native watch keeps it true, the jobs' own results do.
    setWantsEntries(mode != WatchMode::Native);
    rows.compactIfSparse();
    if (modeChanged)
        notifyState(ModeEvent); // how it is kept, before it is said to be complete
    notifyState(Completed);
    if (!m_pubEntries.isEmpty() || !m_pubRemoved.isEmpty() || !m_pubRenamed.isEmpty() || !m_pubDirty.isEmpty()
        || !m_pubTouched.isEmpty())
        schedulePublished();
}

void DirFolder::requestFinished(const MetaData &)
{
    if (!m_isWatch)
        listed(WatchMode::None); // a plain listing: complete
    // A watch ends only after Gone, or when stopped (then nobody is told).
}

void DirFolder::requestFailed(int code, const QStringList &args)
{
    if (m_isWatch && code == ErrUnsupportedAction && state == State::Listing && pollMs <= 0) {
        // The worker cannot watch after all: list, then follow the application's own changes.
        const bool revalidate = m_resyncing;
        m_request.reset(new Request(this));
        ListRequest l;
        l.url = url;
        l.details = details;
        m_request->set(l);
        m_isWatch = false;
        m_resyncing = revalidate;
        m_request->start();
        return;
    }
    const bool workerTrouble = code == ErrWorkerDied || code == ErrTimedOut || code == ErrServerTimedOut
        || code == ErrProtocolError || code == ErrCancelled;
    if (everComplete && workerTrouble && !holders.isEmpty() && state != State::Gone) {
        qCDebug(QVFS_CORE) << "watch of" << url << "lost:" << code << "- starting it again";
        restartLater();
        return;
    }
    FolderDelta d;
    if (rows.size() > 0) {
        // What was cached or listed can no longer be vouched for.
        d.removed = rows.toList();
        rows.clear();
    }
    m_resyncing = false;
    m_seen.clear();
    state = State::Failed;
    error = code;
    errorArgs = args;
    setWantsEntries(false);
    notify(d);
    notifyState(FailedEvent);
}

void DirFolder::restartLater()
{
    if (!m_restartClock.isValid() || m_restartClock.elapsed() > 60000) {
        m_restarts = 0;
        m_restartClock.start();
    }
    state = State::Complete; // the entries stay; the differences follow the restart
    if (++m_restarts > 5) {
        // The worker keeps dying: no more watching; the application's own jobs still count.
        mode = WatchMode::None;
        setWantsEntries(true);
        notifyState(ModeEvent);
        return;
    }
    QTimer::singleShot(100 * m_restarts, this, [this] {
        if (!holders.isEmpty() && state == State::Complete)
            start(true);
    });
}

void DirFolder::notify(const FolderDelta &delta)
{
    if (delta.isEmpty())
        return;
    const QList<DirListerPrivate *> hs = holders;
    for (DirListerPrivate *h : hs) {
        if (holders.contains(h))
            h->folderChanged(this, delta);
    }
}

void DirFolder::notifyState(int what)
{
    const QList<DirListerPrivate *> hs = holders;
    for (DirListerPrivate *h : hs) {
        if (holders.contains(h))
            h->folderState(this, what);
    }
}

void DirFolder::setWantsEntries(bool on)
{
    if (on == m_wantsEntries)
        return;
    m_wantsEntries = on;
    Internal::wantResultEntries(url, details, on);
}

// ---- the application's own changes ----

void DirFolder::schedulePublished()
{
    if (!m_pubTimer.isActive())
        m_pubTimer.start();
}

void DirFolder::publishedEntries(const EntryList &entries)
{
    for (const Entry &e : entries) {
        m_pubDirty.remove(e.name().toByteArray());
        m_pubRemoved.removeAll(e.name().toByteArray());
    }
    m_pubEntries.append(entries);
    schedulePublished();
}

void DirFolder::publishedChanged(QByteArrayView name)
{
    m_pubDirty.insert(name.toByteArray());
    schedulePublished();
}

void DirFolder::publishedRemoved(QByteArrayView name)
{
    const QByteArray n = name.toByteArray();
    m_pubDirty.remove(n);
    if (!m_pubEntries.isEmpty()) {
        EntryList kept;
        for (const Entry &e : std::as_const(m_pubEntries)) {
            if (e.name() != name)
                kept.append(e);
        }
        m_pubEntries = kept;
    }
    m_pubRemoved.append(n);
    schedulePublished();
}

void DirFolder::publishedRenamed(QByteArrayView from, QByteArrayView to, const Entry &entry)
{
    m_pubRenamed.append({ from.toByteArray(), to.toByteArray() });
    if (!entry.isEmpty())
        m_pubRenameEntries.insert(to.toByteArray(), entry);
    schedulePublished();
}

void DirFolder::publishedTouched(QByteArrayView name)
{
    m_pubTouched.insert(name.toByteArray());
    schedulePublished();
}

void DirFolder::applyPublished()
{
    if (state != State::Complete)
        return; // applied once the listing is complete (listed())
    const auto renamed = std::exchange(m_pubRenamed, {});
    const auto renameEntries = std::exchange(m_pubRenameEntries, {});
    const QList<QByteArray> removed = std::exchange(m_pubRemoved, {});
    const EntryList entries = std::exchange(m_pubEntries, EntryList());
    const QSet<QByteArray> dirty = std::exchange(m_pubDirty, {});
    const QSet<QByteArray> touched = std::exchange(m_pubTouched, {});
    if (!renamed.isEmpty() || !removed.isEmpty() || !entries.isEmpty())
        commit(renamed, removed, entries, renameEntries);
    // A change without an entry: look at each such name once, then apply them together.
    for (const QByteArray &name : dirty)
        statName(name, false);
    for (const QByteArray &name : touched) {
        if (!dirty.contains(name) && rows.find(name) >= 0)
            statName(name, true);
    }
}

void DirFolder::statName(const QByteArray &name, bool onlyNewer)
{
    if (!Url::isSafeName(name))
        return;
    StatJob *job = Qvfs::stat(Url::child(url, name), details);
    ++m_statsRunning;
    connect(job, &Job::result, this, [this, job, name, onlyNewer] {
        --m_statsRunning;
        if (onlyNewer) {
            // A row of a folder kept true by its watch: changed only when the stat is newer
            // than the row (the watch may have said more since), never added or removed.
            const qsizetype slot = rows.find(name);
            if (!job->error() && slot >= 0) {
                const Entry &old = rows.slot(slot);
                Entry e = job->statResult();
                const auto time = [](const Entry &x) { return std::pair(x.number(MTime, 0), x.number(MTimeNs, 0)); };
                if (e.name() != QByteArrayView(name))
                    e.setString(Name, name);
                if (e.type() == old.type() && time(e) >= time(old))
                    applyEntries(EntryList() << e, &m_statDelta);
            }
        } else if (!job->error()) {
            Entry e = job->statResult();
            if (e.name() != QByteArrayView(name))
                e.setString(Name, name);
            applyEntries(EntryList() << e, &m_statDelta);
        } else if (job->error() == ErrDoesNotExist || job->error() == ErrIsNotDirectory) {
            Entry old;
            if (rows.remove(name, &old))
                m_statDelta.removed.append(old);
        }
        if (m_statsRunning == 0)
            notify(std::exchange(m_statDelta, FolderDelta()));
    });
}

// ---------------------------------------------------------------- DirCache

DirCache::DirCache()
{
    ChangeNotifier *n = ChangeNotifier::instance();
    connect(n, &ChangeNotifier::entriesAdded, this, &DirCache::onEntriesAdded);
    connect(n, &ChangeNotifier::changed, this, &DirCache::onChanged);
    connect(n, &ChangeNotifier::removed, this, &DirCache::onRemoved);
    connect(n, &ChangeNotifier::renamed, this, &DirCache::onRenamed);
}

DirCache::~DirCache()
{
    const QList<DirFolder *> folders = m_folders.values();
    m_folders.clear();
    for (DirFolder *f : folders) {
        for (DirListerPrivate *h : std::as_const(f->holders))
            h->folderDestroyed(f);
        delete f;
    }
}

DirCache *DirCache::forThread()
{
    static thread_local QPointer<DirCache> cache;
    if (!cache) {
        cache = new DirCache;
        QCoreApplication *app = QCoreApplication::instance();
        if (app && app->thread() == QThread::currentThread()) {
            cache->setParent(app); // ends with the application object, like the scheduler
        } else {
            DirCache *c = cache;
            QObject::connect(QThread::currentThread(), &QThread::finished, c, &QObject::deleteLater);
        }
    }
    return cache;
}

DirFolder *DirCache::acquire(const QUrl &url, DirListerPrivate *holder, Details details, int pollMs, bool reload)
{
    DirFolder *f = m_folders.value(url);
    if (!f) {
        f = new DirFolder(this, url);
        f->details = details;
        f->pollMs = pollMs;
        f->holders.append(holder);
        f->lastUsed = ++m_clock;
        m_folders.insert(url, f);
        f->start(false);
        return f;
    }
    m_unused.removeOne(f);
    f->holders.append(holder);
    f->lastUsed = ++m_clock;
    const bool moreDetails = (f->details | details) != f->details;
    f->details |= details;
    f->pollMs = qMax(f->pollMs, pollMs);
    // Listed again when cached (its entries show at once, then the differences), when it
    // failed or was deleted before (it may be back), or when more details are wanted.
    const DirFolder::State s = f->state;
    if (s == DirFolder::State::Idle || s == DirFolder::State::Failed || s == DirFolder::State::Gone || moreDetails
        || reload)
        f->start(s == DirFolder::State::Idle || s == DirFolder::State::Complete || s == DirFolder::State::Listing);
    return f;
}

void DirCache::release(DirFolder *f, DirListerPrivate *holder)
{
    f->holders.removeOne(holder);
    if (!f->holders.isEmpty())
        return;
    f->lastUsed = ++m_clock;
    const bool keep = f->everComplete && f->state != DirFolder::State::Gone && f->state != DirFolder::State::Failed
        && f->state != DirFolder::State::Listing;
    if (!keep) {
        drop(f);
        return;
    }
    // Kept for a quick return, unwatched: opened again, it is revalidated.
    f->stop();
    f->state = DirFolder::State::Idle;
    m_unused.append(f);
    evict();
}

void DirCache::drop(DirFolder *f)
{
    m_unused.removeOne(f);
    const auto it = m_folders.find(f->url);
    if (it != m_folders.end() && it.value() == f)
        m_folders.erase(it);
    f->stop();
    f->deleteLater(); // it may be inside one of its own callbacks
}

void DirCache::evict()
{
    qint64 total = 0;
    for (DirFolder *f : std::as_const(m_unused))
        total += f->bytes();
    const qint64 budget = cacheBudgetBytes();
    while (total > budget && !m_unused.isEmpty()) {
        DirFolder *f = m_unused.takeFirst();
        total -= f->bytes();
        drop(f);
    }
}

void DirCache::rekey(DirFolder *f, const QUrl &to)
{
    const QUrl from = f->url;
    if (from == to)
        return;
    if (DirFolder *other = m_folders.value(to)) {
        if (other->holders.isEmpty())
            drop(other);
    }
    m_folders.remove(from);
    m_folders.insert(to, f);
    f->url = to;
    const QList<DirListerPrivate *> hs = f->holders;
    for (DirListerPrivate *h : hs)
        h->folderMoved(f, from, to);
}

DirFolder *DirCache::folderOf(const QUrl &url, QByteArray *name) const
{
    *name = Url::fileName(url);
    DirFolder *f = m_folders.value(Url::normalized(Url::parent(url)));
    if (!f || f->holders.isEmpty() || f->isNativelyWatched() || name->isEmpty())
        return nullptr; // a native watch reports it exactly; an unheld folder is revalidated
    return f;
}

void DirCache::contentChanged(const QUrl &dir)
{
    const QUrl d = Url::normalized(dir);
    const QByteArray name = Url::fileName(d);
    DirFolder *p = name.isEmpty() ? nullptr : m_folders.value(Url::normalized(Url::parent(d)));
    if (!p || p->holders.isEmpty())
        return;
    const DirFolder *self = m_folders.value(d);
    if (self && !self->holders.isEmpty() && self->isNativelyWatched() && p->isNativelyWatched())
        return; // the watcher looks at the row itself (it watches both)
    p->publishedTouched(name);
}

void DirCache::onEntriesAdded(const QUrl &dir, const EntryList &entries)
{
    DirFolder *f = m_folders.value(Url::normalized(dir));
    if (f && !f->holders.isEmpty() && !f->isNativelyWatched())
        f->publishedEntries(entries);
    contentChanged(dir);
}

void DirCache::published(const QUrl &url, void (DirFolder::*publish)(QByteArrayView name))
{
    QByteArray name;
    if (DirFolder *f = folderOf(url, &name))
        (f->*publish)(name);
    contentChanged(Url::parent(url));
}

void DirCache::onChanged(const QList<QUrl> &urls)
{
    for (const QUrl &u : urls)
        published(u, &DirFolder::publishedChanged);
}

void DirCache::onRemoved(const QList<QUrl> &urls)
{
    for (const QUrl &u : urls) {
        published(u, &DirFolder::publishedRemoved);
        // A held folder deleted by this application, where nothing watches it.
        DirFolder *self = m_folders.value(Url::normalized(u));
        if (self && !self->holders.isEmpty() && !self->isNativelyWatched() && self->state == DirFolder::State::Complete)
            self->requestChanges([] {
                WatchChanges c;
                c.kind = WatchChanges::Kind::Gone;
                return c;
            }());
    }
}

void DirCache::onRenamed(const QUrl &from, const QUrl &to, const Entry &entry)
{
    QByteArray fromName, toName;
    DirFolder *a = folderOf(from, &fromName);
    DirFolder *b = folderOf(to, &toName);
    if (a && a == b) {
        a->publishedRenamed(fromName, toName, entry);
    } else {
        if (a)
            a->publishedRemoved(fromName);
        if (b) {
            if (entry.isEmpty())
                b->publishedChanged(toName);
            else
                b->publishedEntries(EntryList() << entry);
        }
    }
    contentChanged(Url::parent(from));
    if (Url::parent(to) != Url::parent(from))
        contentChanged(Url::parent(to));
    DirFolder *self = m_folders.value(Url::normalized(from));
    if (self && !self->holders.isEmpty() && !self->isNativelyWatched())
        rekey(self, Url::normalized(to));
}

} // namespace Qvfs::Internal
