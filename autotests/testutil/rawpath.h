// SPDX-License-Identifier: LGPL-2.1-or-later
// Raw-byte filesystem helpers for the tests: fixtures are made and checked with system
// calls on byte paths, never through QFile, QDir or QUrl::toLocalFile, which would
// replace the bytes of a name that is not UTF-8. On Qt Core alone (qvfstestutil_base),
// for the engine tests too; rawfs.h adds what needs Qvfs (file:// URLs, file types).
#ifndef QVFS_TESTUTIL_RAWPATH_H
#define QVFS_TESTUTIL_RAWPATH_H

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QPair>
#include <QStringBuilder>

#include <sys/stat.h>

namespace QvfsTest
{

constexpr qint64 MiB = 1024 * 1024;

/*! \a dir and \a name joined with one '/'. */
QByteArray join(QByteArrayView dir, QByteArrayView name);
/*! The same, for a \a name made with operator+ (a QStringBuilder with QT_USE_QSTRINGBUILDER). */
template<typename A, typename B>
QByteArray join(QByteArrayView dir, const QStringBuilder<A, B> &name)
{
    return join(dir, QByteArrayView(QByteArray(name)));
}
/*! Writes \a content to a new or truncated file (never through a symlink) with \a mode. */
bool writeRaw(const QByteArray &path, QByteArrayView content, mode_t mode = 0644);
/*! The whole content of \a path; \a ok (if given) says whether it could be read to the end. */
QByteArray readRaw(const QByteArray &path, bool *ok = nullptr);
/*! What contentOf() gives for a file it cannot read: no content of a test equals it. */
constexpr QByteArrayView CannotRead = "<cannot read>";
/*!
 * The content of \a path, or CannotRead when it cannot be read to the end: a missing file
 * must not pass for an empty one in a comparison.
 */
QByteArray contentOf(const QByteArray &path);
/*! Creates the folder \a path with exactly \a mode (the umask does not apply). */
bool mkdirRaw(const QByteArray &path, mode_t mode = 0755);
/*! Creates the symlink \a path pointing to \a target. */
bool symlinkRaw(const QByteArray &target, const QByteArray &path);
/*! Whether \a path exists (a dangling symlink exists). */
bool existsRaw(const QByteArray &path);
/*! lstat() of \a path; all zero when it does not exist. */
struct stat lstatRaw(const QByteArray &path);
/*! The target of the symlink \a path (empty when it is none). */
QByteArray readLinkRaw(const QByteArray &path);
/*! Sets the access and modification times of \a path (not following a symlink). */
bool setTimes(const QByteArray &path, qint64 sec, long nsec);
/*! The names in the folder \a dir (hidden ones too, not "." and ".."), sorted. */
QList<QByteArray> namesIn(const QByteArray &dir);
/*! \a list, sorted. */
QList<QByteArray> sorted(QList<QByteArray> list);
/*! Removes \a path and everything below it, opening closed folders first; by descriptor, at any depth. */
void removeTreeRaw(const QByteArray &path);
/*! Adds the library's named temporaries (".<name>.qvfs-XXXXXX.part") below \a dir to \a found. */
void findTemporaries(const QByteArray &dir, QList<QByteArray> *found);
/*! \a size bytes that depend on \a seed (a fast generator, not random). */
QByteArray pseudoRandom(qsizetype size, quint32 seed);
/*! Writes a file of \a size bytes (a multiple of 1 MiB is exact) in 1 MiB chunks. */
bool writeBig(const QByteArray &path, qint64 size);

/*! The user name of \a uid (its number when it has none). */
QByteArray userName(uid_t uid);
/*! The group name of \a gid (its number when it has none). */
QByteArray groupName(gid_t gid);
/*! The process's umask (read without changing it for good). */
mode_t currentUmask();

/*! One node of a tree snapshot. */
struct Node
{
    mode_t type = 0;
    mode_t mode = 0;
    qint64 size = 0;
    QByteArray content; //!< of a regular file
    QByteArray link; //!< of a symlink
    qint64 mtime = 0;
    long mtimeNs = 0;
};

/*! Every node under \a root by relative path ("" is \a root itself). */
QMap<QByteArray, Node> snapshot(const QByteArray &root);

/*!
 * Compares two snapshots (type, mode, size, content, link target and, with \a times, the
 * modification time to the nanosecond) with QTest macros: check QTest::currentTestFailed()
 * afterwards. \a skipRoot leaves out the root node (a merged folder keeps its own).
 */
void compareTrees(
    const QMap<QByteArray, Node> &expected, const QMap<QByteArray, Node> &actual, bool skipRoot, bool times);

/*!
 * The standard tree for copies at \a root: files of several modes, a hidden file, nested
 * and empty folders, relative, absolute, dangling and folder symlinks, with \a fifo a
 * fifo; every node with its own modification time in nanoseconds.
 */
bool makeTree(const QByteArray &root, bool fifo = true);

/*!
 * Names that must survive every job byte for byte: not UTF-8, control bytes, 255 bytes,
 * characters that mean something in URLs and shells. Pairs of (row tag, name).
 */
QList<QPair<QByteArray, QByteArray>> oddNames();

} // namespace QvfsTest

#endif
