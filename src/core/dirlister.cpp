// SPDX-License-Identifier: LGPL-2.1-or-later
#include "dirlister.h"
#include "dirlister_p.h"
#include "mimetypes.h"

#include "error.h"
#include "freespacejob.h"
#include "urlidentity.h"

#include <QMimeType>

namespace Qvfs
{

using Internal::DirCache;
using Internal::DirFolder;
using Internal::FolderDelta;

// ---------------------------------------------------------------- filters

namespace
{
char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
}

bool endsWithNoCase(QByteArrayView s, QByteArrayView suffix)
{
    if (suffix.size() > s.size())
        return false;
    const char *p = s.data() + s.size() - suffix.size();
    for (qsizetype i = 0; i < suffix.size(); ++i) {
        if (lower(p[i]) != suffix[i])
            return false;
    }
    return true;
}

/*! Matches the class at \a p ('[' already consumed) against \a c; \a p moves past ']'. */
bool classMatches(const char *&p, const char *end, char c)
{
    bool negate = false;
    if (p < end && (*p == '!' || *p == '^')) {
        negate = true;
        ++p;
    }
    bool hit = false;
    bool first = true;
    while (p < end && (*p != ']' || first)) {
        first = false;
        char lo = lower(*p++);
        char hi = lo;
        if (p + 1 < end && *p == '-' && p[1] != ']') {
            hi = lower(p[1]);
            p += 2;
        }
        if (quint8(lower(c)) >= quint8(lo) && quint8(lower(c)) <= quint8(hi))
            hit = true;
    }
    if (p < end)
        ++p; // ']'
    return hit != negate;
}
} // namespace

bool globMatches(QByteArrayView pattern, QByteArrayView name)
{
    // Iterative, with one backtracking point (the last '*'): linear for usual patterns.
    const char *p = pattern.data(), *pe = p + pattern.size();
    const char *s = name.data(), *se = s + name.size();
    const char *starP = nullptr, *starS = nullptr;
    while (s < se) {
        if (p < pe && *p == '*') {
            starP = ++p;
            starS = s;
            continue;
        }
        if (p < pe && *p == '[') {
            const char *q = p + 1;
            if (classMatches(q, pe, *s)) {
                p = q;
                ++s;
                continue;
            }
        } else if (p < pe && (*p == '?' || lower(*p) == lower(*s))) {
            ++p;
            ++s;
            continue;
        }
        if (!starP)
            return false;
        p = starP;
        s = ++starS;
    }
    while (p < pe && *p == '*')
        ++p;
    return p == pe;
}

void DirListerFilters::compile()
{
    suffixes.clear();
    globs.clear();
    for (const QByteArray &pat : std::as_const(patterns)) {
        if (pat.isEmpty())
            continue;
        const QByteArray low = pat.toLower(); // ASCII only: bytes above 127 stay as they are
        const QByteArrayView rest = QByteArrayView(low).sliced(1);
        if (low.startsWith('*') && !rest.contains('*') && !rest.contains('?') && !rest.contains('['))
            suffixes.append(rest.toByteArray());
        else
            globs.append(low);
    }
}

bool DirListerFilters::matches(const Entry &e) const
{
    const QByteArrayView name = e.name();
    if (!showHidden && (e.number(Hidden, 0) != 0 || name.startsWith('.')))
        return false;
    const bool dir = e.isDir();
    if (dirsOnly && !dir)
        return false;
    if (dir)
        return true; // folders are never filtered by name or type: one must get to the files
    if (!suffixes.isEmpty() || !globs.isEmpty()) {
        bool hit = false;
        for (const QByteArray &sfx : suffixes) {
            if (endsWithNoCase(name, sfx)) {
                hit = true;
                break;
            }
        }
        for (qsizetype i = 0; !hit && i < globs.size(); ++i)
            hit = globMatches(globs.at(i), name);
        if (!hit)
            return false;
    }
    if (!mimeTypes.isEmpty()) {
        const QMimeType t = mimeTypeForFileName(name);
        bool hit = false;
        for (const QString &m : mimeTypes) {
            if (m.endsWith(QLatin1String("/*")) ? t.name().startsWith(m.chopped(1)) : t.inherits(m)) {
                hit = true;
                break;
            }
        }
        if (!hit)
            return false;
    }
    return true;
}

// ---------------------------------------------------------------- DirListerPrivate

EntryList DirListerPrivate::filtered(const EntryList &list) const
{
    EntryList out;
    bool all = true;
    for (const Entry &e : list) {
        if (filters.matches(e)) {
            out.append(e);
        } else {
            all = false;
        }
    }
    return all ? list : out;
}

void DirListerPrivate::folderChanged(DirFolder *f, const FolderDelta &d)
{
    const auto it = held.constFind(f->url);
    if (it == held.constEnd() || it->folder != f || it->initialPending)
        return; // the delivery from the event loop will hold the result
    const QUrl url = f->url;
    EntryList added = filtered(d.added);
    EntryList removed = filtered(d.removed);
    EntryList before, after;
    QList<std::pair<Entry, Entry>> renamed;
    for (const auto &r : d.renamed) {
        const bool vb = filters.matches(r.first), va = filters.matches(r.second);
        if (vb && va) {
            renamed.append(r);
        } else if (vb) {
            removed.append(r.first);
        } else if (va) {
            added.append(r.second);
        }
    }
    qsizetype i = 0;
    for (auto b = d.changedBefore.begin(), a = d.changedAfter.begin(); a != d.changedAfter.end(); ++a, ++b, ++i) {
        const bool vb = filters.matches(*b), va = filters.matches(*a);
        if (vb && va) {
            before.append(*b);
            after.append(*a);
        } else if (vb) {
            removed.append(*b);
        } else if (va) {
            added.append(*a);
        }
    }
    // Removals first: a rename over an existing name (mv a b) displaced the old b, which
    // must be gone before a becomes b, or there would be two b for a moment.
    if (!removed.isEmpty())
        Q_EMIT q->entriesRemoved(url, removed);
    for (const auto &r : std::as_const(renamed))
        Q_EMIT q->entryRenamed(url, r.first, r.second);
    if (!after.isEmpty())
        Q_EMIT q->entriesChanged(url, before, after);
    if (!added.isEmpty())
        Q_EMIT q->entriesAdded(url, added);
}

void DirListerPrivate::folderState(DirFolder *f, int what)
{
    const auto it = held.constFind(f->url);
    if (it == held.constEnd() || it->folder != f || it->initialPending)
        return;
    const QUrl url = f->url;
    switch (what) {
    case DirFolder::Completed:
        Q_EMIT q->listingCompleted(url);
        maybeCompleted();
        return;
    case DirFolder::FailedEvent:
        emitFailed(f); // its last word: no completed() after it
        return;
    case DirFolder::GoneEvent:
        Q_EMIT q->dirGone(url);
        return;
    case DirFolder::ModeEvent:
        Q_EMIT q->watchModeChanged(url, f->mode);
        return;
    }
}

void DirListerPrivate::emitFailed(DirFolder *f)
{
    Q_EMIT q->failed(f->url, f->error, errorText(f->error, f->errorArgs));
}

void DirListerPrivate::maybeCompleted()
{
    for (const Held &h : std::as_const(held)) {
        if (h.initialPending || !h.folder || h.folder->state == DirFolder::State::Listing)
            return;
    }
    Q_EMIT q->completed();
}

void DirListerPrivate::folderMoved(DirFolder *f, const QUrl &from, const QUrl &to)
{
    const auto it = held.find(from);
    if (it == held.end() || it->folder != f)
        return;
    const Held h = *it;
    held.erase(it);
    held.insert(to, h);
    if (!h.initialPending)
        Q_EMIT q->redirected(from, to);
}

void DirListerPrivate::folderDestroyed(DirFolder *f)
{
    for (auto it = held.begin(); it != held.end();) {
        if (it->folder == f)
            it = held.erase(it);
        else
            ++it;
    }
}

void DirListerPrivate::deliverInitial(const QUrl &url)
{
    const auto it = held.find(url);
    if (it == held.end() || !it->initialPending || !it->folder)
        return;
    it->initialPending = false;
    DirFolder *f = it->folder;
    if (std::exchange(it->reopened, false)) {
        Q_EMIT q->cleared(url); // what was said before: its entries come again now
        if (!held.contains(url) || held.value(url).folder != f)
            return;
    }
    Q_EMIT q->started(url);
    if (!held.contains(url) || held.value(url).folder != f)
        return; // closed from a slot
    const EntryList all = filtered(f->rows.toList());
    if (!all.isEmpty())
        Q_EMIT q->entriesAdded(url, all);
    if (!held.contains(url) || held.value(url).folder != f)
        return;
    switch (f->state) {
    case DirFolder::State::Complete:
        if (f->mode != WatchMode::None)
            Q_EMIT q->watchModeChanged(url, f->mode);
        if (!held.contains(url) || held.value(url).folder != f)
            return;
        Q_EMIT q->listingCompleted(url);
        maybeCompleted();
        return;
    case DirFolder::State::Failed:
        emitFailed(f);
        return;
    case DirFolder::State::Gone:
        Q_EMIT q->dirGone(url);
        return;
    case DirFolder::State::Idle:
    case DirFolder::State::Listing:
        return;
    }
}

void DirListerPrivate::refilter(const DirListerFilters &before)
{
    const QList<QUrl> urls = held.keys();
    for (const QUrl &url : urls) {
        const Held h = held.value(url);
        if (!h.folder || h.initialPending)
            continue;
        EntryList added, removed;
        for (const Entry &e : h.folder->rows.toList()) {
            const bool was = before.matches(e), is = filters.matches(e);
            if (was && !is)
                removed.append(e);
            else if (is && !was)
                added.append(e);
        }
        if (!removed.isEmpty())
            Q_EMIT q->entriesRemoved(url, removed);
        if (!added.isEmpty())
            Q_EMIT q->entriesAdded(url, added);
    }
}

// ---------------------------------------------------------------- DirLister

DirLister::DirLister(QObject *parent)
    : QObject(parent)
    , d(new DirListerPrivate(this))
{
    qRegisterMetaType<Qvfs::Entry>();
    qRegisterMetaType<Qvfs::EntryList>();
}

DirLister::~DirLister()
{
    closeAll();
    for (const QPointer<FreeSpaceJob> &job : std::as_const(d->freeSpaceJobs)) {
        if (job)
            job->kill(Job::Quietly);
    }
}

void DirLister::requestFreeSpace(const QUrl &url)
{
    const QUrl key = Url::normalized(url);
    if (d->freeSpaceJobs.value(key))
        return; // its answer answers this one too
    FreeSpaceJob *job = Qvfs::freeSpace(key);
    d->freeSpaceJobs.insert(key, job);
    connect(job, &Job::result, this, [this, key](Job *j) {
        const auto *f = static_cast<FreeSpaceJob *>(j);
        d->freeSpaceJobs.remove(key);
        if (f->error())
            Q_EMIT freeSpace(key, -1, -1, -1, f->error());
        else
            Q_EMIT freeSpace(key, f->total(), f->free(), f->available(), 0);
    });
}

bool DirLister::open(const QUrl &url, OpenFlags flags)
{
    if (!url.isValid() || url.scheme().isEmpty())
        return false;
    const QUrl key = Url::normalized(url);
    if (!(flags & Keep)) {
        const QList<QUrl> others = d->held.keys();
        for (const QUrl &u : others) {
            if (u == key || !d->held.contains(u))
                continue;
            close(u);
            Q_EMIT cleared(u); // its rows are no longer kept true
        }
    }
    if (!d->cache)
        d->cache = DirCache::forThread();
    const auto it = d->held.find(key);
    if (it != d->held.end()) {
        // Open here already: delivered again as for a first open (KIO's lister does the
        // same), from the event loop; what changes meanwhile is in what is delivered.
        DirFolder *f = it->folder;
        if (!it->initialPending) {
            it->initialPending = true;
            it->reopened = true;
            QMetaObject::invokeMethod(
                this, [this, key] { d->deliverInitial(key); }, Qt::QueuedConnection);
        }
        if ((flags & Reload) && f)
            f->start(true); // its differences follow the delivery
        return true;
    }
    DirFolder *f = d->cache->acquire(key, d.get(), d->details, d->pollMs, flags & Reload);
    d->held.insert(key, DirListerPrivate::Held { f, true });
    QMetaObject::invokeMethod(
        this, [this, key] { d->deliverInitial(key); }, Qt::QueuedConnection);
    return true;
}

void DirLister::close(const QUrl &url)
{
    const QUrl key = Url::normalized(url);
    const auto it = d->held.find(key);
    if (it == d->held.end())
        return;
    DirFolder *f = it->folder;
    d->held.erase(it);
    if (f && d->cache)
        d->cache->release(f, d.get());
}

void DirLister::closeAll()
{
    const QList<QUrl> urls = d->held.keys();
    for (const QUrl &u : urls)
        close(u);
}

QList<QUrl> DirLister::folders() const
{
    return d->held.keys();
}

bool DirLister::isOpen(const QUrl &url) const
{
    return d->held.contains(Url::normalized(url));
}

bool DirLister::isComplete(const QUrl &url) const
{
    const DirFolder *f = d->held.value(Url::normalized(url)).folder;
    return f && f->state == DirFolder::State::Complete;
}

bool DirLister::isComplete() const
{
    for (const DirListerPrivate::Held &h : std::as_const(d->held)) {
        if (!h.folder || h.folder->state == DirFolder::State::Listing)
            return false;
    }
    return true;
}

WatchMode DirLister::watchMode(const QUrl &url) const
{
    const DirFolder *f = d->held.value(Url::normalized(url)).folder;
    return f ? f->mode : WatchMode::None;
}

EntryList DirLister::entries(const QUrl &url) const
{
    const DirFolder *f = d->held.value(Url::normalized(url)).folder;
    return f ? d->filtered(f->rows.toList()) : EntryList();
}

Entry DirLister::find(const QUrl &url, QByteArrayView name) const
{
    const DirFolder *f = d->held.value(Url::normalized(url)).folder;
    if (!f)
        return {};
    const qsizetype slot = f->rows.find(name);
    return slot < 0 ? Entry() : f->rows.slot(slot);
}

bool DirLister::matches(const Entry &entry) const
{
    return d->filters.matches(entry);
}

void DirLister::setDetails(Details details)
{
    d->details = details | DetailBasic; // names and types are always needed
}

Details DirLister::details() const
{
    return d->details;
}

void DirLister::setNameFilters(const QList<QByteArray> &patterns)
{
    const DirListerFilters before = d->filters;
    d->filters.patterns = patterns;
    d->filters.compile();
    d->refilter(before);
}

QList<QByteArray> DirLister::nameFilters() const
{
    return d->filters.patterns;
}

void DirLister::setMimeFilters(const QStringList &mimeTypes)
{
    const DirListerFilters before = d->filters;
    d->filters.mimeTypes = mimeTypes;
    d->refilter(before);
}

QStringList DirLister::mimeFilters() const
{
    return d->filters.mimeTypes;
}

void DirLister::setShowHidden(bool show)
{
    if (show == d->filters.showHidden)
        return;
    const DirListerFilters before = d->filters;
    d->filters.showHidden = show;
    d->refilter(before);
}

bool DirLister::showHidden() const
{
    return d->filters.showHidden;
}

void DirLister::setDirsOnly(bool dirsOnly)
{
    if (dirsOnly == d->filters.dirsOnly)
        return;
    const DirListerFilters before = d->filters;
    d->filters.dirsOnly = dirsOnly;
    d->refilter(before);
}

bool DirLister::dirsOnly() const
{
    return d->filters.dirsOnly;
}

void DirLister::setPollInterval(int ms)
{
    d->pollMs = qMax(0, ms);
}

int DirLister::pollInterval() const
{
    return d->pollMs;
}

void DirLister::setCacheBudget(qint64 bytes)
{
    Internal::setCacheBudgetBytes(bytes);
}

qint64 DirLister::cacheBudget()
{
    return Internal::cacheBudgetBytes();
}

} // namespace Qvfs
