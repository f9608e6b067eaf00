// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_DIRLISTER_H
#define QVFS_DIRLISTER_H

#include "entry.h"
#include "field.h"
#include "qvfscore_export.h"
#include "requests.h"

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QStringList>
#include <QUrl>

#include <memory>

namespace Qvfs
{

class DirListerPrivate;

/*!
 * Live folders for views: lists folders and keeps them true while they change.
 *
 * A folder opened here is listed and watched by its worker in one request (see
 * WatchRequest): the watch exists before the listing starts, so nothing is lost between
 * the two and nothing appears twice. Changes then arrive as batches coalesced in the
 * worker (one stat per changed name, never a re-listing); a lost event queue is
 * re-listed exactly and reported as the differences. Where no native watch exists
 * (remote protocols) the application's own jobs still keep the folder true through
 * ChangeNotifier — a copy, rename or delete shows without a listing — and polling can be
 * asked for (setPollInterval()).
 *
 * Every lister of a thread shares one cache of folders (the received batches
 * themselves: no copy): listers of one URL share one listing, and one that joins gets
 * what arrived so far, then the live batches. A folder nobody holds stays cached,
 * unwatched, within a byte budget (setCacheBudget()); opening it again shows its entries
 * at once and then only the differences a fresh listing finds.
 *
 * Nothing is emitted from within open() but cleared() for the folders it closes: the
 * entries already known follow from the event loop, also when the folder was open here
 * already (cleared() first, then its entries, listingCompleted() and completed(), as for
 * a first open). Every open ends with listingCompleted() or failed(). Filters (names as
 * bytes, MIME types by name, hidden entries, folders only) apply to every signal;
 * changing one emits the differences.
 * \since 0.1
 */
class QVFSCORE_EXPORT DirLister : public QObject
{
    Q_OBJECT
public:
    enum OpenFlag {
        NoFlags = 0,
        Keep = 0x1, //!< add the folder to those already open (tree views); otherwise they are closed first
        Reload = 0x2, //!< list it afresh even when it is open or cached (differences are emitted)
    };
    Q_DECLARE_FLAGS(OpenFlags, OpenFlag)

    explicit DirLister(QObject *parent = nullptr);
    ~DirLister() override;

    /*!
     * Opens the folder \a url: listed and watched, shared with other listers. Returns
     * false for an invalid URL. The signals tell the rest, from the event loop; a folder
     * open here already is delivered again (cleared(), its entries, listingCompleted()).
     * Without Keep the other folders are closed first, each with cleared().
     */
    bool open(const QUrl &url, OpenFlags flags = NoFlags);
    /*! Closes \a url (and stops watching it when nobody else holds it). */
    void close(const QUrl &url);
    /*! Closes every folder. */
    void closeAll();
    /*! The folders open, as given to open() (normalized). */
    QList<QUrl> folders() const;
    /*! Whether \a url is open here. */
    bool isOpen(const QUrl &url) const;
    /*! Whether \a url was listed completely (and is kept true since). */
    bool isComplete(const QUrl &url) const;
    /*! Whether every open folder was listed. */
    bool isComplete() const;
    /*! How \a url is kept true (WatchMode::None: by the application's own jobs only). */
    WatchMode watchMode(const QUrl &url) const;

    /*! The entries of \a url that pass the filters (empty when not open). */
    EntryList entries(const QUrl &url) const;
    /*! The entry \a name of the open folder \a url, filters ignored; empty when none. */
    Entry find(const QUrl &url, QByteArrayView name) const;
    /*! Whether \a entry passes the filters. */
    bool matches(const Entry &entry) const;

    /*! The details asked for (default: DetailsDefault); set before opening. */
    void setDetails(Details details);
    Details details() const;
    /*!
     * Shows only entries whose name matches one of \a patterns (shell globs on the name's
     * bytes, case-insensitive: "*.cpp", "IMG_????.jpg"); empty: every name. Folders are
     * never filtered by name.
     */
    void setNameFilters(const QList<QByteArray> &patterns);
    QList<QByteArray> nameFilters() const;
    /*!
     * Shows only entries of one of \a mimeTypes (or a type inheriting one), judged by the
     * name (no content is read); empty: every type. Folders always pass.
     */
    void setMimeFilters(const QStringList &mimeTypes);
    QStringList mimeFilters() const;
    /*! Shows hidden entries (dot-names, names in the folder's .hidden); default false. */
    void setShowHidden(bool show);
    bool showHidden() const;
    /*! Shows folders only; default false. */
    void setDirsOnly(bool dirsOnly);
    bool dirsOnly() const;
    /*!
     * Polls folders that cannot be watched natively every \a ms milliseconds (0, the
     * default: they follow the application's own changes only). Applies to folders opened
     * afterwards.
     */
    void setPollInterval(int ms);
    int pollInterval() const;

    /*!
     * Asks how large the filesystem holding \a url is and how much of it is free (a file
     * manager's status bar: "12 GB free"); freeSpace() follows from the event loop, once.
     * \a url is any URL, an open folder or not; asked again while a question about it is
     * on its way, it is not asked twice. A FreeSpaceJob does the work; the lister ends the
     * ones still running when it is destroyed.
     */
    void requestFreeSpace(const QUrl &url);

    /*!
     * The bytes this thread's cache may keep for folders no lister holds (default 32
     * MiB); the least recently used go first. Folders held are never dropped.
     */
    static void setCacheBudget(qint64 bytes);
    static qint64 cacheBudget();

Q_SIGNALS:
    /*! Listing \a url started (from the event loop after open()). */
    void started(const QUrl &url);
    /*! \a entries appeared in \a url (listed, created, or now passing the filters). */
    void entriesAdded(const QUrl &url, const Qvfs::EntryList &entries);
    /*! Entries of \a url changed: \a before[i] became \a after[i] (same names). */
    void entriesChanged(const QUrl &url, const Qvfs::EntryList &before, const Qvfs::EntryList &after);
    /*! \a entries (as they were) are gone from \a url (or no longer pass the filters). */
    void entriesRemoved(const QUrl &url, const Qvfs::EntryList &entries);
    /*! \a before was renamed \a after in \a url. */
    void entryRenamed(const QUrl &url, const Qvfs::Entry &before, const Qvfs::Entry &after);
    /*! \a url is listed completely; changes follow as they happen. */
    void listingCompleted(const QUrl &url);
    /*!
     * Every open folder is listed (or failed): after the listingCompleted() of the last
     * one still listing. A folder that fails ends with failed() alone.
     */
    void completed();
    /*!
     * Forget what was said of \a url: it was closed by open() without Keep, or opened
     * again (its entries then come again). Views drop its rows (KIO's clearDir()).
     */
    void cleared(const QUrl &url);
    /*! \a url could not be listed: \a error (a Qvfs::Error) and its translated \a text. */
    void failed(const QUrl &url, int error, const QString &text);
    /*! \a url was deleted (or its filesystem unmounted); reported once. It stays open, empty. */
    void dirGone(const QUrl &url);
    /*! The open folder \a from was renamed to \a to; it stays open under \a to. */
    void redirected(const QUrl &from, const QUrl &to);
    /*! How \a url is kept true changed (see watchMode()). */
    void watchModeChanged(const QUrl &url, Qvfs::WatchMode mode);
    /*!
     * The answer to requestFreeSpace(\a url), in bytes (FreeSpaceJob's figures): the
     * filesystem's size, what is not in use, and what the user may still write. Each is
     * -1 when unknown: the protocol does not tell it, or the question failed (then
     * \a error is its Qvfs::Error, else 0).
     */
    void freeSpace(const QUrl &url, qint64 total, qint64 free, qint64 available, int error);

private:
    friend class DirListerPrivate;
    std::unique_ptr<DirListerPrivate> d;
};

} // namespace Qvfs

Q_DECLARE_OPERATORS_FOR_FLAGS(Qvfs::DirLister::OpenFlags)

#endif
