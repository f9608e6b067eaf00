// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_REQUESTS_H
#define QVFS_REQUESTS_H

// The commands an application sends to a worker, one struct per command. Jobs fill
// them, the wire carries them (one encoder/decoder each, requests_p.h), and worker hooks
// receive them. Fields a protocol does not understand are ignored by it.

#include "conflict.h"
#include "field.h"

#include <QByteArray>
#include <QList>
#include <QUrl>

namespace Qvfs
{

/*!
 * The identity of a file on its filesystem: device and inode numbers, as a listing
 * reports them (Device, Inode). A request that carries a valid identity is done only
 * on that very file: a worker opens the entry without following a symlink and fails
 * with ErrSourceChanged when it is another one (the entry was swapped meanwhile).
 * \since 0.1
 */
struct FileIdentity
{
    qint64 device = -1;
    qint64 inode = -1;
    bool isValid() const noexcept { return inode >= 0 && device >= 0; }
    bool operator==(const FileIdentity &o) const noexcept { return device == o.device && inode == o.inode; }
    bool operator!=(const FileIdentity &o) const noexcept { return !(*this == o); }
};

/*! List a folder, or a whole tree (names relative to \a url). \since 0.1 */
struct ListRequest
{
    QUrl url;
    Details details = DetailsDefault;
    bool recursive = false;
    /*! Recursive only: enter symlinks to folders (each folder once). */
    bool followSymlinks = false;
};

/*! Describe one URL (a single entry). \since 0.1 */
struct StatRequest
{
    QUrl url;
    Details details = DetailsDefault;
};

/*! Create a folder. \since 0.1 */
struct MkdirRequest
{
    QUrl url;
    /*! Permission bits (07777); -1: the default (0777 less the umask on file://). */
    int permissions = -1;
    /*! Create missing parents too; an existing folder is then no error (`mkdir -p`). */
    bool parents = false;
    /*! When valid, the folder it goes in must be this very folder (see FileIdentity). */
    FileIdentity expectedParent;
};

/*! Delete an entry. \since 0.1 */
struct DeleteRequest
{
    /*! What may be deleted. */
    enum class Scope : quint8 {
        Tree, //!< a file, a link, or a folder with everything inside
        Entry, //!< a file, a link or an empty folder (ErrDirectoryNotEmpty otherwise)
        NotFolder, //!< a file or a link; any folder gives ErrIsDirectory (`rm` without -r)
    };
    QUrl url;
    Scope scope = Scope::Tree;
};

/*! Rename or move within one worker's reach (no copying). \since 0.1 */
struct RenameRequest
{
    QUrl source;
    QUrl destination;
    /*! Replace an existing destination; otherwise ErrAlreadyExists. */
    bool overwrite = false;
};

/*! Copy or move files and trees inside one worker. \since 0.1 */
struct CopyRequest
{
    /*! Where the sources go. */
    enum class Target : quint8 {
        As, //!< the one source becomes \a destination itself
        Into, //!< each source goes into the existing folder \a destination
        IntoIfFolder, //!< Into when \a destination is an existing folder, else As
    };
    QList<QUrl> sources;
    QUrl destination;
    Target target = Target::IntoIfFolder;
    ConflictPolicy conflict = ConflictPolicy::Fail;
    /*! A move: sources are deleted once everything was copied (or renamed). */
    bool move = false;
    /*! Keep permissions and modification times. */
    bool preserve = true;
    /*! Count the sources first, for totals. */
    bool countFirst = true;
    /*! Report each file and folder (WorkerBase::reportItem()), for the job's per-file signals. */
    bool reportItems = false;
};

/*! What a copy reports about each entry when CopyRequest::reportItems is set. \since 0.1 */
enum class CopyItemEvent : quint8 {
    Copying = 1, //!< a file or link starts to be copied
    Copied = 2, //!< a file or link was copied (or moved by copying)
    CreatedFolder = 3, //!< a destination folder was created
    Skipped = 4, //!< left alone by the conflict policy or an answer
    Moved = 5, //!< moved by a rename, without copying
};

/*! Stream a file's content to the application. \since 0.1 */
struct GetRequest
{
    QUrl url;
    /*! Start at this byte. */
    qint64 offset = 0;
    /*! When valid, the file must be this one (see FileIdentity). */
    FileIdentity expected;
};

/*! Write a file from data the application streams. \since 0.1 */
struct PutRequest
{
    QUrl url;
    /*! Permission bits (07777); -1: a new file gets the default, a replaced one keeps its own. */
    int permissions = -1;
    /*! Replace an existing file (atomically, once complete). */
    bool overwrite = false;
    /*! The modification time to give the file (seconds since the epoch); -1: now. */
    qint64 mtime = -1;
    qint64 mtimeNs = 0;
    /*! The size, when the application knows it (-1 unknown): progress, and servers that need it up front. */
    qint64 size = -1;
    /*!
     * When valid, the folder it goes in must be this very folder (a copy writing into a
     * folder it created: a symlink swapped in meanwhile must not redirect the write).
     */
    FileIdentity expectedParent;
};

/*! Create a symbolic link. \since 0.1 */
struct SymlinkRequest
{
    /*! What the link points to, raw bytes, stored as is. */
    QByteArray target;
    QUrl link;
    /*! When valid, the folder it goes in must be this very folder (see FileIdentity). */
    FileIdentity expectedParent;
};

/*! Set permission bits. \since 0.1 */
struct ChmodRequest
{
    QUrl url;
    int permissions = 0;
    /*! When valid, only on this very entry, never through a symlink (see FileIdentity). */
    FileIdentity expected;
};

/*! Set the modification time (the access time is left alone; a link's own time). \since 0.1 */
struct SetTimeRequest
{
    QUrl url;
    qint64 seconds = 0;
    qint64 nanoseconds = 0;
    /*! When valid, only on this very entry, never through a symlink (see FileIdentity). */
    FileIdentity expected;
};

/*! Count the files, folders and bytes under a URL. \since 0.1 */
struct DirectorySizeRequest
{
    QUrl url;
};

/*!
 * The size and the free space of the filesystem (or the storage, a quota) that holds a
 * URL, like statvfs(2): the worker reports what its protocol knows, nothing else.
 * \since 0.1
 */
struct FreeSpaceRequest
{
    QUrl url;
};

/*!
 * Copy one file between this worker's protocol and a local file, by the worker itself
 * (the bytes never pass through the application): copyToFile has a file:// \a
 * destination, copyFromFile a file:// \a source.
 * \since 0.1
 */
struct FileCopyRequest
{
    QUrl source;
    QUrl destination;
    /*! Replace an existing destination (atomically, once complete). */
    bool overwrite = false;
    /*! Permission bits for the destination; -1: the default. */
    int permissions = -1;
    /*! The destination's modification time; -1: keep what the copy gets. */
    qint64 mtime = -1;
    qint64 mtimeNs = 0;
    /*! When valid, the source must be this very file (see FileIdentity). */
    FileIdentity expected;
    /*! When valid, the destination's folder must be this very folder (see PutRequest). */
    FileIdentity expectedParent;
    /*!
     * The source's size as the job found it (-1: unknown). A copy that reads another
     * number of bytes fails (ErrSourceChanged) instead of keeping them.
     */
    qint64 size = -1;
};

/*!
 * Move entries to the trash, or back out of it (the freedesktop.org Trash specification):
 * Trash sends local file:// entries to the trash of their own filesystem (the file worker
 * does it, by renames: never a copy across filesystems); Restore moves trash:/ entries
 * back to where they were trashed from (the trash worker does it).
 * \since 0.1
 */
struct TrashRequest
{
    enum class Action : quint8 {
        Trash, //!< file:// entries into their filesystem's trash
        Restore, //!< trash:/ entries back to their original paths
    };
    Action action = Action::Trash;
    /*! The entries, all of one scheme: file:// to trash, trash:/ to restore. */
    QList<QUrl> urls;
    /*! Restore: what an entry that exists at the original path gets (copyrules.h: decideCopy()). */
    ConflictPolicy conflict = ConflictPolicy::Fail;
    /*! Report each entry moved (CopyItemEvent::Moved: from, to) or skipped. */
    bool reportItems = false;
};

/*!
 * How a watched folder learns of changes (see WatchRequest).
 * \since 0.1
 */
enum class WatchMode : quint8 {
    None = 0, //!< not watched: only the application's own jobs update it
    Native = 1, //!< the system reports every change (inotify for file://)
    Polling = 2, //!< the worker re-reads the folder periodically and sends what differs
    PollingAtLimit = 3, //!< polling because no more native watches were available (a system limit)
};

/*!
 * Watch a folder: the worker adds the watch first, then lists the folder (as ListDir
 * does), marks the end of the listing, and from then on reports the folder's changes on
 * the same request until it is killed — so nothing is lost between listing and watching.
 * A worker that declares "watch" watches natively; any worker polls when \a pollMs is
 * above 0 (it re-lists every pollMs milliseconds and sends only what differs).
 * \since 0.1
 */
struct WatchRequest
{
    QUrl url;
    Details details = DetailsDefault;
    /*! Poll this often when the folder cannot be watched natively (milliseconds; 0: never). */
    int pollMs = 0;
};

/*!
 * Open a file for random access: positional reads and writes until it is closed (see
 * Qvfs::open() and WorkerBase::open()). Writes go to the file itself, in place: there is
 * no temporary and no rename, so a reader may see a write half done, and a kill or crash
 * leaves what was written so far.
 * \since 0.1
 */
struct OpenRequest
{
    QUrl url;
    bool read = true; //!< reads are allowed
    bool write = false; //!< writes, truncation and appending are allowed
    /*! Every write goes to the end of the file (O_APPEND). */
    bool append = false;
    /*! Cut the file to length 0 when it is opened (needs write). */
    bool truncate = false;
    /*! Create the file when it does not exist (needs write). */
    bool create = false;
    /*! Fail with ErrAlreadyExists when it exists (with create: O_EXCL). */
    bool exclusive = false;
    /*! Permission bits of a file it creates (07777); -1: the default (0666 less the umask). */
    int permissions = -1;
};

/*!
 * What a worker reports once it opened a file (OpenRequest).
 * \since 0.1
 */
struct OpenedFile
{
    /*! The size when opened; -1 when the worker cannot tell. */
    qint64 size = -1;
    /*! The MIME type, when known (from the name, the first bytes, or the server). */
    QString mimeType;
    /*! Reads at any offset work; otherwise only in order from the start (a stream). */
    bool canSeek = false;
    /*! Writes at an offset work. */
    bool canWrite = false;
    /*! The file can be cut or extended. */
    bool canTruncate = false;
    /*! Data can be added at the end. */
    bool canAppend = false;
};

} // namespace Qvfs

#endif
