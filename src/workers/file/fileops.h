// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_FILEOPS_H
#define QVFS_FILEOPS_H

#include "copyrules.h"
#include "fileops_base_p.h"
#include "questions.h" // UnreadableAction
#include "requests.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QtGlobal>

#include <sys/stat.h>

#include <memory>

/*!
 * The local filesystem operations of the file:// worker.
 *
 * Everything works in-process with Linux system calls on raw byte paths: a name is a
 * sequence of bytes (newlines, leading dashes, invalid UTF-8 and 255-byte names all
 * work). Trees are walked with directory fds and the *at() calls; symlinks met while
 * walking are never followed (a symlink is copied, sized or deleted as a link). Only the
 * last component of a path given by the caller is left unfollowed; symlinks earlier in
 * the path are followed, as usual.
 *
 * Errors are Qvfs::Error codes (error.h) plus the exact path concerned.
 *
 * remove() and directorySize() walk a tree by folder descriptors holding a bounded
 * number of them, so any depth works with any RLIMIT_NOFILE and no path grows with the
 * depth. copy() keeps two fds open per level of depth (source and destination), so very
 * deep trees need a generous RLIMIT_NOFILE there; it reaches the folders it made (to
 * finish them) and the sources it copied (a move deletes them at the end) by path again,
 * checking each is still the same entry.
 *
 * A write beyond RLIMIT_FSIZE raises SIGXFSZ, which kills the process by default: the
 * worker should ignore that signal, and then gets ErrFileTooLarge.
 * \since 0.1
 */
namespace Qvfs::FileOps
{

/*!
 * The worker's side of a long operation: cancellation, progress, and questions.
 * \since 0.1
 */
class Context
{
public:
    virtual ~Context() = default;
    /*! Called between chunks (at most 16 MiB apart) and entries; true stops with ErrCancelled. */
    virtual bool isCancelled() = 0;
    /*! The amounts that will be processed, known once the sources were counted. */
    virtual void setTotals(qint64 bytes, qint64 files, qint64 dirs) = 0;
    /*! Cumulative amounts done so far. Called per chunk and per entry: throttle it. */
    virtual void progress(qint64 bytes, qint64 files, qint64 dirs) = 0;
    /*!
     * \a dst exists and a copy of \a src (both raw paths) would replace it (the policy is
     * ConflictPolicy::Ask). Setting \a *applyToAll makes the answer the policy for the
     * rest of the operation (policyForAnswer(); Cancel stops anyway).
     */
    virtual ConflictAction askConflict(const QByteArray &src, const QByteArray &dst, bool *applyToAll) = 0;
    /*!
     * How many entries copy() left alone so far (cumulative), by the conflict policy or an
     * answer. A skipped entry is never counted as processed; with totals (countFirst) its
     * bytes (a folder's with what it holds) leave the byte total through another
     * setTotals(), the file and folder totals stay as counted (CopyAmounts in copyrules.h
     * has the rule). The default does nothing.
     */
    virtual void skipped(qint64 count) { Q_UNUSED(count) }
    /*!
     * An entry inside a copied tree (not a source itself) cannot be opened: \a error is
     * ErrAccessDenied. Skip leaves it out (its bytes out of the totals, as a skipped entry's; the
     * implementation reports it, and the copy goes on), Retry tries once more, Cancel ends
     * the copy with ErrCancelled. The default leaves it out, as `cp -r` does.
     */
    virtual UnreadableAction unreadable(const QByteArray &path, int error)
    {
        Q_UNUSED(path)
        Q_UNUSED(error)
        return UnreadableAction::Skip;
    }
    /*!
     * One entry of copy(), for per-file reports (raw paths): Copying then Copied for each
     * file, link, fifo or device node copied (also when a move copies it), CreatedFolder
     * for each destination folder made, Skipped for each entry left alone (\a destination
     * is the existing one), Moved for each entry moved by a rename. Called whether or not
     * anyone listens: an implementation that does not want them returns at once. The
     * default does nothing.
     */
    virtual void item(CopyItemEvent event, const QByteArray &source, const QByteArray &destination)
    {
        Q_UNUSED(event)
        Q_UNUSED(source)
        Q_UNUSED(destination)
    }
};

/*!
 * Options of copy().
 * \since 0.1
 */
struct CopyOptions
{
    /*!
     * What a destination that exists gets: decideCopy() in copyrules.h has the table (a
     * folder onto a folder is merged whatever the policy except Rename, which gives the
     * new entry a free name, freeNameCandidate()).
     */
    ConflictPolicy conflict = ConflictPolicy::Fail;
    /*!
     * Keep permissions (including setuid/setgid/sticky, but setuid and setgid are dropped
     * when the copy's owner differs from the source's), POSIX ACLs (the access ACL, and
     * the default ACL of folders) and the access and modification times with nanoseconds,
     * best effort (a filesystem refusing them is not an error). Where the destination's
     * filesystem takes no ACL, the group bits become the owning group's own rights rather
     * than the ACL's mask, which the mode shows as group bits (`chmod 640 f; setfacl -m
     * u:1000:rw f` copies as 0640, never as 0660 without the ACL). Without it new entries
     * get the source's rwx bits (with the same group bits) minus the umask and the current
     * time, and no ACL. Ownership is not copied, nor are hard links between sources; see
     * copy() for a replaced file's owner and for extended attributes.
     */
    bool preserve = true;
    /*!
     * Move: rename(2) whatever can be renamed; entries on another filesystem are copied,
     * and the copied sources are deleted only after every source was handled without
     * an error.
     */
    bool move = false;
    /*!
     * Count the sources first and report Context::setTotals(). For a move only the
     * sources on another filesystem than the destination are counted (a rename is
     * counted as one entry done).
     */
    bool countFirst = true;
    /*! For tests: false forces the named ".<name>.qvfs-<owner>-<random>.part" temporary instead of O_TMPFILE. */
    bool allowTmpFile = true;
};

/*!
 * Copies (or moves) \a sources: the worker library's TreeCopy — the copy contract every
 * worker shares (conflicts, free names, merges, moves by rename, skip accounting, events)
 * — over the local primitives of LocalCopyBackend (localcopybackend_p.h), reporting to
 * \a context in raw paths. The file worker's copy() hook runs the same pair.
 *
 * With \a destIsDirectory, each source goes to dest/<basename of the source> and \a dest
 * must be an existing folder; otherwise there must be exactly one source, copied as
 * \a dest itself. An entry inside a source tree that cannot be opened (EACCES) is for
 * Context::unreadable() to decide (left out by default, as `cp -r` does); a source that
 * cannot be read ends the copy.
 *
 * Regular files are copied by FICLONE, then copy_file_range() in 16 MiB chunks, then
 * read()/write(); a sparse source (st_blocks * 512 < st_size) keeps its holes. A copy is
 * the file as it was at one moment or ErrSourceChanged, never a mix: a sparse file that
 * grows while it is copied gets its new data too (or, growing faster than it is copied,
 * ErrSourceChanged), never its new size with zeros where the data is. Pseudo files whose
 * size the kernel does not know (/proc, /sys, debugfs...: no blocks, st_size 0 or 4096
 * whatever the content) are read to their end. The data
 * goes to an O_TMPFILE file in the destination folder (or a uniquely named hidden .part
 * file where O_TMPFILE is unsupported), which is linked or renamed into place only once
 * complete: after an error or a cancel no partial file remains and an existing
 * destination is untouched. Entries already completed in a tree stay. A .part temporary
 * left by a process that was killed (SIGKILL) is removed when a process writes its first
 * named temporary into that folder (each process looks at a folder once), if its name
 * shows that it was made on this machine, since its last boot, in this pid namespace, by
 * a process that no longer exists (pid and start time), and it belongs to this user;
 * anything else stays.
 *
 * Extended attributes, best effort, by copies and moves across filesystems: user.*
 * always; trusted.* and security.* where the process may (as root), except
 * security.selinux (the destination's policy labels the copy) and security.evm (made by
 * the kernel), and security.capability only when the copy has the source's owner (as
 * setuid); POSIX ACLs with CopyOptions::preserve. Regular files, folders, fifos and
 * device nodes keep them; symlinks none.
 *
 * A copy replacing a regular file (ConflictPolicy::Overwrite or the answer) gives the new file
 * the replaced one's owner and group, best effort (as another user than root, only a
 * group it belongs to), as `cp -f` writing into the existing file would; except in a
 * sticky folder writable by others where the replaced file belongs neither to this user
 * nor to the folder's owner (the kernel's protected_regular rule: a file planted there
 * must not get a copy of what replaces it). A move brings its source's entry instead, as
 * a rename does. A symlink at the destination is replaced, never written through.
 *
 * Context::item() hears of every entry, Context::skipped() of the entries left alone.
 *
 * Symlinks are copied as links; fifos and device nodes are recreated. Errors: a missing
 * source (ErrDoesNotExist), a folder copied into itself (ErrCycle, checked for every
 * source before anything is written), a file copied onto itself (ErrIdenticalFiles, unless
 * the policy renames), conflicts (see CopyOptions::conflict; a folder onto a file gives
 * ErrIsNotDirectory and a file onto a folder ErrIsDirectory if asked to overwrite), a
 * source that shrank while it was copied (ErrSourceChanged), disk full (ErrDiskFull
 * naming the destination), and errno errors naming the path concerned.
 * \since 0.1
 */
[[nodiscard]] OpResult copy(const QList<QByteArray> &sources, const QByteArray &dest, bool destIsDirectory,
    const CopyOptions &options, Context &context);

/*!
 * What remove() may delete.
 * \since 0.1
 */
enum class RemoveScope {
    Tree, //!< a file, a symlink (never its target), or a folder with everything inside
    Entry, //!< a file, a symlink or an empty folder (ErrDirectoryNotEmpty otherwise)
    NotFolder, //!< a file or a symlink; a folder gives ErrIsDirectory (decided by unlink() itself)
};

/*!
 * Deletes \a path as \a scope allows, never following a symlink (earlier components of
 * \a path are followed, as usual). A tree is walked by folder descriptors (any depth); a
 * folder swapped for a symlink meanwhile is deleted as the link, and a folder above the
 * walk moved away meanwhile stops it (ErrCannotDelete naming it). Progress reports files
 * and folders deleted (no totals). \a removedCount (may be null) receives how many
 * entries were deleted, also on error. The root folder is refused (ErrAccessDenied), and
 * a last component "." or ".." is ErrMalformedUrl.
 * \since 0.1
 */
[[nodiscard]] OpResult remove(const QByteArray &path, RemoveScope scope, Context &context, qint64 *removedCount);
/*! remove() of a Tree with \a recursive, else of an Entry. \since 0.1 */
[[nodiscard]] OpResult remove(const QByteArray &path, bool recursive, Context &context, qint64 *removedCount);

/*!
 * Creates the folder \a path. \a mode < 0 means 0777 minus the umask; otherwise the
 * folder gets exactly \a mode (07777 bits), set on a descriptor of the folder just made
 * (never through a symlink swapped in). With \a parents, like `mkdir -p`: missing
 * parents are created (0777 minus the umask) and an existing folder is not an error.
 * Without it an existing entry gives ErrAlreadyExists. \a created (may be null)
 * receives the device and inode of the folder when this call created it (invalid when it
 * existed already), from a descriptor opened without following symlinks right after.
 * \since 0.1
 */
[[nodiscard]] OpResult mkdir(const QByteArray &path, int mode = -1, bool parents = false,
    FileIdentity *created = nullptr, const FileIdentity &expectedParent = {});

/*!
 * Renames \a from to \a to on one filesystem. Without \a overwrite an existing \a to
 * gives ErrAlreadyExists (atomic with RENAME_NOREPLACE where supported); with it a file
 * is replaced atomically and an empty folder replaced by a folder. Another filesystem
 * gives ErrUnsupportedAction (use copy() with CopyOptions::move). Renaming onto another
 * name of the same file (a hard link) gives ErrIdenticalFiles.
 * \since 0.1
 */
[[nodiscard]] OpResult rename(const QByteArray &from, const QByteArray &to, bool overwrite);

/*!
 * Creates the symlink \a linkPath pointing to \a target (stored as is, not checked).
 * \since 0.1
 */
[[nodiscard]] OpResult symlink(
    const QByteArray &target, const QByteArray &linkPath, const FileIdentity &expectedParent = {});

/*!
 * Sets the permission bits (07777) of \a path. Without a valid \a expected a symlink's
 * target is changed (like chmod). With one, only that very entry is changed, on a
 * descriptor opened without following a symlink: another entry there now (a symlink
 * included) gives ErrSourceChanged, and a symlink itself ErrUnsupportedAction.
 * \since 0.1
 */
[[nodiscard]] OpResult chmod(const QByteArray &path, int mode, const FileIdentity &expected = {});

/*!
 * Sets the modification time of \a path (\a seconds and \a nanoseconds since the epoch;
 * the access time is left alone), of a symlink itself, never of its target. With a valid
 * \a expected, only that very entry, on a descriptor of it: another entry there now gives
 * ErrSourceChanged.
 * \since 0.1
 */
[[nodiscard]] OpResult setModificationTime(
    const QByteArray &path, qint64 seconds, qint64 nanoseconds, const FileIdentity &expected = {});

/*!
 * Opens the last component of \a path with \a flags (O_NOFOLLOW and O_CLOEXEC added)
 * relative to its parent folder (symlinks in the parent's path are followed, as usual)
 * into \a fd, and describes it in \a st. With a valid \a expected, a symlink or any
 * other entry than that one there gives ErrSourceChanged.
 * \since 0.1
 */
[[nodiscard]] OpResult openEntry(
    const QByteArray &path, int flags, const FileIdentity &expected, int *fd, struct stat *st);

/*!
 * The identity (device and inode, as a listing reports them) of the open file \a fd;
 * invalid when it cannot be described.
 * \since 0.1
 */
FileIdentity identityOf(int fd);

/*!
 * Sizes \a path without following symlinks, like `du -s --apparent-size`: \a bytes is
 * the sum of st_size of the regular files, a file with several names (hard links)
 * counted once; \a files counts every non-folder entry (symlinks and every name of a
 * hard-linked file included), \a dirs the folders inside \a path (not \a path itself).
 * A file \a path counts as one file. The output pointers may be null. Progress reports
 * the running counts. The tree is walked by folder descriptors (any depth).
 * \since 0.1
 */
[[nodiscard]] OpResult directorySize(
    const QByteArray &path, Context &context, qint64 *bytes, qint64 *files, qint64 *dirs);

} // namespace Qvfs::FileOps

#endif
