// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_LOCALCOPYBACKEND_P_H
#define QVFS_LOCALCOPYBACKEND_P_H

// The file worker's primitives under TreeCopy (copybackend.h): what copy() in fileops.h
// promises for one entry, on descriptors. Internal.

#include "copybackend.h"
#include "fileops_util_p.h"

#include <QHash>

#include <fcntl.h>
#include <sys/stat.h>

#include <memory>
#include <set>
#include <utility>

namespace Qvfs::FileOps
{

/*!
 * Local files for TreeCopy. A place's address is its raw path; its folder handle, when it
 * has one, is a descriptor of the folder it is in, so that nothing below a folder the copy
 * opened is reached through a path again (a folder swapped for a symbolic link meanwhile
 * redirects nothing). Places without a handle — the sources and the destination as named,
 * and what TreeCopy keeps for finishing and deleting — are reached by path, never
 * following a symbolic link at their last component except the destination folder named
 * by the user (as `cp` follows it).
 *
 * URLs are made only when TreeCopy asks for one (an event, a question, an error): a tree
 * copy of small files would otherwise spend a third of its time making URLs.
 *
 * Regular files go through an O_TMPFILE file (or a named hidden temporary) in the
 * destination folder, filled by FICLONE, copy_file_range() or read()/write() with holes
 * kept, linked into place only when complete; folders are made owner-writable and get
 * their mode, ACLs, attributes and times when finished; entries made or replaced are
 * never written through a symbolic link.
 */
class LocalCopyBackend final : public CopyBackend
{
public:
    /*!
     * \a cancelled is asked between chunks of a file (at most 16 MiB apart): true stops
     * the copy with ErrCancelled. \a allowTmpFile false: always the named temporary (tests).
     */
    explicit LocalCopyBackend(std::function<bool()> cancelled, bool allowTmpFile = true);
    ~LocalCopyBackend() override;

    WorkerResult begin(const CopyRequest &request) override;
    QUrl url(const CopyPlace &place) override;
    WorkerResult place(const QUrl &url, CopyPlace *out) override;
    CopyPlace child(const CopyPlace &folder, const QByteArray &name) override;
    CopyPlace sibling(const CopyPlace &place, const QByteArray &name) override;
    WorkerResult stat(const CopyPlace &place, CopyEntry *out, bool follow) override;
    WorkerResult list(const CopyEntry &folder, QList<CopyEntry> *out) override;
    bool isSame(const CopyEntry &a, const CopyEntry &b) override;
    bool isInside(const CopyEntry &folder, const CopyPlace &target) override;
    bool renamesWhole(const CopyEntry &source, const CopyPlace &dst) override;
    WorkerResult enter(const CopyPlace &folder, const CopyEntry *expected, CopyPlace *inside) override;
    WorkerResult makeFolder(const CopyEntry &source, const CopyPlace &dst) override;
    void finishFolder(const CopyEntry &source, const CopyPlace &dst) override;
    WorkerResult copyFile(const CopyEntry &source, const CopyPlace &dst, bool replace,
        const std::function<void(qint64 bytes)> &progress) override;
    WorkerResult copyLink(const CopyEntry &source, const CopyPlace &dst, bool replace) override;
    WorkerResult copySpecial(const CopyEntry &source, const CopyPlace &dst, bool replace) override;
    WorkerResult rename(const CopyEntry &source, const CopyPlace &dst, bool replace) override;
    WorkerResult remove(const CopyEntry &entry) override;

private:
    /*! Where a place is for the *at() calls: a folder descriptor (or AT_FDCWD) and a name. */
    struct At
    {
        int dirFd = AT_FDCWD;
        QByteArray name;
        Fd owned; //!< the folder opened by path for a place without a handle
    };
    /*! \a place for the *at() calls; with \a folderFd, always a real folder descriptor. */
    bool resolve(const CopyPlace &place, At *at, bool folderFd = false);
    WorkerResult failErrno(int err, Operation op, const CopyPlace &place);
    WorkerResult failOn(int code, const CopyPlace &place, int err = 0);
    /*! A failure of the fileops helpers, naming their path (or \a place). */
    WorkerResult failedOp(const OpResult &r, const CopyPlace &place);
    struct timespec *times(const struct stat &st);
    WorkerResult copyNode(const CopyEntry &source, const CopyPlace &dst, bool replace);
    // the data movers of copyFile(); false with \a *error set on failure
    bool copyData(int in, int out, const struct stat &st, dev_t dstDev, qint64 *copied, const CopyPlace &src,
        const CopyPlace &dst, const std::function<void(qint64)> &progress, WorkerResult *error);
    bool copySparse(int in, int out, off_t size, off_t *copiedSize, qint64 *copied, const CopyPlace &src,
        const CopyPlace &dst, const std::function<void(qint64)> &progress, WorkerResult *error);
    bool copyToEnd(int in, int out, const CopyPlace &src, const CopyPlace &dst, WorkerResult *error);
    bool copyRange(int in, int out, off_t offset, off_t length, off_t expected, off_t *done, qint64 *copied,
        const CopyPlace &src, const CopyPlace &dst, const std::function<void(qint64)> &progress, WorkerResult *error);

    const std::function<bool()> m_cancelled;
    const bool m_allowTmpFile;
    bool m_preserve = true;
    bool m_move = false;
    const mode_t m_umask;
    const uid_t m_euid;
    struct timespec m_times[2];
    std::unique_ptr<char[]> m_buffer;
    bool m_useCopyRange = true; // for the current file
    std::pair<dev_t, dev_t> m_devices; // (source, destination) filesystems of the current file
    std::set<std::pair<dev_t, dev_t>> m_noClone; // (source, destination) filesystems without FICLONE
    std::set<std::pair<dev_t, dev_t>> m_noCopyRange; // ... without copy_file_range
    QHash<QByteArray, std::pair<dev_t, ino_t>> m_made; // folders made, by path: finished only if still them
};

/*!
 * The local path of \a url, or an empty array when it is malformed: not a local file
 * URL, relative, with a NUL byte (Url::localPath()) or a "." or ".." segment after
 * decoding ("%2E%2E" is one). Every hook of the file worker takes its paths from here.
 */
QByteArray localPathOf(const QUrl &url);

} // namespace Qvfs::FileOps

#endif
