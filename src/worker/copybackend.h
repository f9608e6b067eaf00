// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_COPYBACKEND_H
#define QVFS_COPYBACKEND_H

#include "qvfsworker_export.h"
#include "requests.h"
#include "workerbase.h"

#include <QByteArray>
#include <QList>
#include <QUrl>

#include <functional>
#include <memory>

namespace Qvfs
{

/*!
 * \file copybackend.h
 * The primitives a worker implements so that TreeCopy can copy and move inside it: the
 * protocol's own operations on single entries. Everything a copy decides (conflicts,
 * free names, merges, moves by rename, skip accounting, events, progress, cancel) is
 * TreeCopy's, so every worker copying through it behaves the same.
 */

/*!
 * A backend's own state attached to a place or an entry — an open folder, what a stat
 * found — which TreeCopy carries without looking inside.
 * \since 0.1
 */
class QVFSWORKER_EXPORT CopyHandle
{
public:
    virtual ~CopyHandle();
};

/*!
 * Where an entry is or goes: its URL (for events and errors) and the backend's own
 * address of it (a server path for sftp and smb, a local path for file, nothing for
 * WebDAV: the URL is the address). TreeCopy never reads \a address; it gets places from
 * CopyBackend::place(), child(), sibling() and enter() only, and a place's URL through
 * CopyBackend::url().
 * \since 0.1
 */
struct CopyPlace
{
    /*!
     * Its URL; may stay empty where the backend makes it only when asked
     * (CopyBackend::url()): a tree copy of small local files would otherwise spend a third
     * of its time making URLs nobody reads.
     */
    QUrl url;
    QByteArray address;
    /*!
     * What the backend resolves \a address against, when it has more than a path: the
     * file worker keeps a descriptor of the folder the place is in, so that nothing below
     * a folder the copy opened is reached through a path again. child() and sibling()
     * carry it over. TreeCopy drops it from the places it keeps for later (the folders to
     * finish, the sources to delete), so that a copy of many folders holds no more than
     * the folders it is in: a backend must work from \a address alone there.
     */
    std::shared_ptr<CopyHandle> folder;

    /*! Whether the place names something (child() gives an invalid one for a name no URL can hold). */
    bool isValid() const noexcept { return url.isValid() || (url.isEmpty() && !address.isNull()); }
};

/*!
 * One entry as a copy sees it, from CopyBackend::stat() or list().
 * \since 0.1
 */
struct CopyEntry
{
    /*! What the entry is; a symbolic link is a Link, never what it points to. */
    enum class Type : quint8 {
        File,
        Folder,
        Link,
        Special, //!< a fifo, socket or device
    };
    CopyPlace place;
    QByteArray name; //!< the last segment, raw bytes
    Type type = Type::File;
    qint64 size = -1; //!< the bytes it counts for in the totals; -1 unknown (a folder: -1)
    int permissions = -1; //!< 07777 bits, -1 unknown
    qint64 atime = -1; //!< seconds since the epoch, -1 unknown
    qint64 mtime = -1; //!< seconds since the epoch, -1 unknown
    /*! The backend's own description of it (the file worker's stat: device, inode, nanoseconds). */
    std::shared_ptr<const CopyHandle> native;

    bool isFolder() const noexcept { return type == Type::Folder; }
};

/*!
 * The primitives of one protocol for TreeCopy: about ten operations on single entries.
 * Each returns WorkerResult::pass() or the failure to report (naming the URL concerned,
 * as url() gives it; a second argument may carry the system's text); TreeCopy ends the
 * copy with it, except for the codes each function documents as "do it another way", and
 * for two failures about an entry inside a copied tree (not a source itself) that name
 * the source entry's URL:
 * - ErrAccessDenied: it cannot be read. TreeCopy asks (CopyObserver::askUnreadable():
 *   skip, retry, cancel), leaves it out (CopyObserver::leftOut(): the job ends with
 *   ErrPartial) and goes on, as `cp -r` does.
 * - ErrDoesNotExist: it was deleted since it was listed. TreeCopy passes it over.
 *
 * A new protocol gets copies and moves inside its worker (no data through the
 * application) by implementing these; the worker's copy() hook is then
 * `return TreeCopy(*this, backend, request).run();`.
 * \since 0.1
 */
class QVFSWORKER_EXPORT CopyBackend
{
public:
    virtual ~CopyBackend();

    /*!
     * Called once before anything else: checks that the request can be done inside this
     * worker (every source on the destination's server; the server able to copy), and
     * connects. ErrUnsupportedAction makes the job copy through the application instead,
     * so it must come before anything changed.
     */
    virtual WorkerResult begin(const CopyRequest &request) = 0;
    /*! The place of \a url (a source or the destination), or the error (ErrMalformedUrl, ...). */
    virtual WorkerResult place(const QUrl &url, CopyPlace *out) = 0;
    /*! The URL of \a place: its own, or (the default gives its own) made from its address. */
    virtual QUrl url(const CopyPlace &place);
    /*!
     * The place of \a name inside the folder \a folder (a place enter() gave). The
     * default joins the URL with Url::child() and the address with '/' (an address "/"
     * gives "/name"), and carries the folder handle over; an invalid place
     * (CopyPlace::isValid()) means the name cannot be a URL (TreeCopy fails with
     * ErrMalformedUrl).
     */
    virtual CopyPlace child(const CopyPlace &folder, const QByteArray &name);
    /*! The place of \a name in the same folder as \a place (the default as child()). */
    virtual CopyPlace sibling(const CopyPlace &place, const QByteArray &name);
    /*!
     * What is at \a place, without following a symbolic link (or following it with \a
     * follow), into \a out (its place, name, type, size, permissions and times).
     * Nothing there is the failure ErrDoesNotExist.
     */
    virtual WorkerResult stat(const CopyPlace &place, CopyEntry *out, bool follow) = 0;
    /*!
     * The entries of the folder \a folder, without "." and "..", into \a out. Names that
     * cannot be URLs are left out here (and reported with WorkerBase::leftOutUnsafeName()).
     */
    virtual WorkerResult list(const CopyEntry &folder, QList<CopyEntry> *out) = 0;
    /*! Whether \a a and \a b, both existing, are the same entry (one file under two names too). */
    virtual bool isSame(const CopyEntry &a, const CopyEntry &b) = 0;
    /*!
     * Whether \a target is anywhere below \a folder (a copy into itself: ErrCycle). The
     * folder itself is not below it: a folder onto itself is for isSame() and the table.
     */
    virtual bool isInside(const CopyEntry &folder, const CopyPlace &target) = 0;
    /*!
     * Whether moving \a source to \a dst is most likely one rename (the same server, the
     * same filesystem): a move then counts it as one entry instead of counting what it
     * holds first (a tree renamed whole moves nothing, and counting it could take longer
     * than the move). Only a guess: where the rename fails after all, the content is
     * counted as it is copied. The default says yes.
     */
    virtual bool renamesWhole(const CopyEntry &source, const CopyPlace &dst);
    /*!
     * Opens the folder at \a folder for what goes in it, giving the place child() is
     * called with in \a inside (TreeCopy sets it to \a folder before the call: the
     * default, for backends whose places are paths or URLs, changes nothing). \a expected
     * is what stat() found there (the destination, a folder merged into), or null for a
     * folder makeFolder() has just made. It must be that very folder: another entry there
     * now (a symbolic link swapped in) fails with ErrSourceChanged.
     */
    virtual WorkerResult enter(const CopyPlace &folder, const CopyEntry *expected, CopyPlace *inside);
    /*!
     * Makes the folder \a dst for the folder \a source (nothing is there). It must be
     * writable by the worker whatever \a source's mode: finishFolder() gives the final one.
     */
    virtual WorkerResult makeFolder(const CopyEntry &source, const CopyPlace &dst) = 0;
    /*!
     * Gives the folder \a dst, made by makeFolder() and filled, \a source's attributes
     * (when the request preserves them). Called for every folder made, deepest first,
     * also after a failure (so that no folder stays owner-only); best effort.
     */
    virtual void finishFolder(const CopyEntry &source, const CopyPlace &dst) = 0;
    /*!
     * Copies the file \a source to \a dst, atomically: \a dst ends complete or as it was
     * (\a replace: replacing what is there; else nothing is there, and a name taken
     * meanwhile fails with ErrAlreadyExists). \a progress receives the bytes copied so far.
     */
    virtual WorkerResult copyFile(
        const CopyEntry &source, const CopyPlace &dst, bool replace, const std::function<void(qint64 bytes)> &progress)
        = 0;
    /*! Makes the symbolic link \a dst like \a source (\a replace: replacing what is there, atomically). */
    virtual WorkerResult copyLink(const CopyEntry &source, const CopyPlace &dst, bool replace) = 0;
    /*! Makes the special file \a dst like \a source. The default fails with ErrCannotRead on \a source. */
    virtual WorkerResult copySpecial(const CopyEntry &source, const CopyPlace &dst, bool replace);
    /*!
     * Moves \a source to \a dst by one rename on the server, a folder with everything in
     * it (\a replace: a file over a file, atomically; else never replacing anything).
     * ErrUnsupportedAction: it cannot be renamed there (another device, no rename); TreeCopy
     * then copies and deletes the source at the end.
     */
    virtual WorkerResult rename(const CopyEntry &source, const CopyPlace &dst, bool replace) = 0;
    /*!
     * Removes the source \a entry after a move copied it: a file, a link, or a folder only
     * if it is empty (ErrDirectoryNotEmpty otherwise: something in it was skipped).
     */
    virtual WorkerResult remove(const CopyEntry &entry) = 0;
    /*!
     * Optional: copies the folder \a source with everything in it to \a dst (nothing is
     * there) in one server operation (WebDAV's COPY of a collection). The default, and a
     * backend that cannot, answer ErrUnsupportedAction: TreeCopy then descends.
     */
    virtual WorkerResult copyTree(const CopyEntry &source, const CopyPlace &dst);
};

} // namespace Qvfs

#endif
