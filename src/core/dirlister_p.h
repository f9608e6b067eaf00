// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_DIRLISTER_P_H
#define QVFS_DIRLISTER_P_H

#include "dircache_p.h"
#include "dirlister.h"
#include "freespacejob.h"

#include <QHash>
#include <QPointer>

namespace Qvfs
{

/*! What a lister shows: hidden entries, folders only, name and MIME filters. */
struct DirListerFilters
{
    bool showHidden = false;
    bool dirsOnly = false;
    QList<QByteArray> patterns; // as given
    QStringList mimeTypes;
    // compiled from patterns: "*.ext" as a suffix, the others as globs (lower case)
    QList<QByteArray> suffixes;
    QList<QByteArray> globs;

    void compile();
    bool matches(const Entry &e) const;
};

/*! Shell glob \a pattern against \a name, bytes, ASCII case-insensitive ('*', '?', '[...]'). */
bool globMatches(QByteArrayView pattern, QByteArrayView name);

class DirListerPrivate
{
public:
    explicit DirListerPrivate(DirLister *q)
        : q(q)
    { }

    DirLister *q;
    QPointer<Internal::DirCache> cache;
    struct Held
    {
        Internal::DirFolder *folder = nullptr;
        bool initialPending = true; // what the folder holds is delivered from the event loop
        bool reopened = false; // ...again: cleared() first
    };
    QHash<QUrl, Held> held; // by normalized URL
    Details details = DetailsDefault;
    int pollMs = 0;
    DirListerFilters filters;
    QHash<QUrl, QPointer<FreeSpaceJob>> freeSpaceJobs; // requestFreeSpace() on its way, by normalized URL

    // from the cache
    void folderChanged(Internal::DirFolder *f, const Internal::FolderDelta &delta);
    void folderState(Internal::DirFolder *f, int what);
    void folderMoved(Internal::DirFolder *f, const QUrl &from, const QUrl &to);
    void folderDestroyed(Internal::DirFolder *f);

    void deliverInitial(const QUrl &url);
    void emitFailed(Internal::DirFolder *f);
    void maybeCompleted();
    /*! Emits what passes \a now but not \a before (added) and the reverse (removed). */
    void refilter(const DirListerFilters &before);
    /*! The entries of \a list that pass; \a list itself when all do. */
    EntryList filtered(const EntryList &list) const;
};

} // namespace Qvfs

#endif
