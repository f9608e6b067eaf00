// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_CHANGENOTIFIER_H
#define QVFS_CHANGENOTIFIER_H

#include "entry.h"
#include "qvfscore_export.h"

#include <QList>
#include <QObject>
#include <QUrl>

namespace Qvfs
{

/*!
 * The application's own changes, as its jobs make them: like KDirNotify, but within the
 * process and with the entries themselves.
 *
 * Every job that creates, changes, renames or deletes something (copy, move, put, mkdir,
 * rename, symlink, chmod, set time, delete) publishes here exactly what it changed once
 * it succeeded — with the new entry the worker sent back when some DirLister holds the
 * folder without a native watch (a remote folder), so that lister follows the
 * application's own changes without listing anything. An application that changes files
 * by other means (QFile) may publish them too.
 *
 * One object per process; publishing is thread-safe, and the signals reach receivers
 * in other threads queued.
 * \since 0.1
 */
class QVFSCORE_EXPORT ChangeNotifier : public QObject
{
    Q_OBJECT
public:
    /*! The process's notifier. */
    static ChangeNotifier *instance();

    /*! \a entries (whose Name fields are their names) are now in the folder \a dir, new or changed. */
    void publishEntries(const QUrl &dir, const Qvfs::EntryList &entries);
    /*! Something changed at \a urls (created, written, attributes); no entry is known. */
    void publishChanged(const QList<QUrl> &urls);
    /*! \a urls are gone. */
    void publishRemoved(const QList<QUrl> &urls);
    /*! \a from is now \a to; \a entry is \a to's entry when known. */
    void publishRenamed(const QUrl &from, const QUrl &to, const Qvfs::Entry &entry = {});

Q_SIGNALS:
    void entriesAdded(const QUrl &dir, const Qvfs::EntryList &entries);
    void changed(const QList<QUrl> &urls);
    void removed(const QList<QUrl> &urls);
    void renamed(const QUrl &from, const QUrl &to, const Qvfs::Entry &entry);

private:
    ChangeNotifier();
};

} // namespace Qvfs

#endif
