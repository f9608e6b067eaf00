// SPDX-License-Identifier: LGPL-2.1-or-later
// Copies and moves inside one server (the "copy" capability): files with copy-data (the
// bytes stay on the server), folders made and filled, symlinks made again, conflicts
// resolved as the request says. A server without copy-data gets ErrUnsupportedAction
// before anything is touched, and the job copies through the application instead.
#include "sftpworker.h"

#include "copyrules.h"
#include "error.h"
#include "sftp_debug.h"
#include "sshprocess_p.h"
#include "url.h"

#include <QDateTime>

namespace Qvfs
{

using Sftp::Attributes;
using Sftp::Session;

/*! One copy request: the state of the walk. */
class SftpCopy
{
public:
    SftpCopy(SftpWorker *worker, const CopyRequest &request)
        : w(worker)
        , s(worker->m_session)
        , m_request(request)
        , m_policy(request.conflict)
    { }

    WorkerResult run();

private:
    using Result = Session::Result;
    using Action = CopyAction; // Create, Replace, Merge or Skip once resolved

    bool fail(const Result &r, const QUrl &url)
    {
        if (m_result.ok())
            m_result = w->fail(r, url);
        return false;
    }
    bool fail(int code, const QUrl &url)
    {
        if (m_result.ok())
            m_result = WorkerResult::fail(code, url);
        return false;
    }
    bool checkKilled(const QUrl &url) { return w->wasKilled() ? fail(ErrCancelled, url) : true; }
    void report() { w->setProcessed(m_amounts.bytes, m_amounts.files, m_amounts.folders); }
    QByteArray canonical(const QByteArray &path)
    {
        QByteArray out;
        return s.realPath(path, &out).ok() ? out : path;
    }
    /*! The first free name beside \a name in \a dir (copyrules.h's rule); empty, with m_result set, if none. */
    QByteArray freeName(const QByteArray &dir, const QByteArray &name, bool isDir, const QUrl &url);
    bool skip(const QByteArray &src, const QUrl &srcUrl, const Attributes &attrs, const QUrl &dstUrl);
    bool renamed(const QByteArray &dst, const QUrl &srcUrl, const Attributes &attrs, const QUrl &dstUrl);

    bool resolve(const QByteArray &src, const QUrl &srcUrl, const Attributes &attrs, QByteArray *dst, QUrl *dstUrl,
        Action *action);
    bool copyEntry(const QByteArray &src, const QUrl &srcUrl, const Attributes &attrs, QByteArray dst, QUrl dstUrl);
    bool copyFolder(const QByteArray &src, const QUrl &srcUrl, const Attributes &attrs, const QByteArray &dst,
        const QUrl &dstUrl, bool create);
    bool copyFile(const QByteArray &src, const QUrl &srcUrl, const Attributes &attrs, const QByteArray &dst,
        const QUrl &dstUrl, bool replace);
    bool copyLink(const QByteArray &src, const QUrl &srcUrl, const QByteArray &dst, const QUrl &dstUrl, bool replace);

    SftpWorker *w;
    Session &s;
    const CopyRequest &m_request;
    ConflictPolicy m_policy;
    WorkerResult m_result = WorkerResult::pass();
    CopyAmounts m_amounts; //!< processed, skipped and (countFirst) the totals
    bool m_counted = false; //!< countFirst: the totals were counted
    /*! move: what was copied, children before their folder, deleted at the very end. */
    QList<std::pair<QByteArray, bool>> m_copied;
};

namespace
{

QByteArray childOf(const QByteArray &dir, const QByteArray &name)
{
    return dir == "/" ? QByteArray('/' + name) : QByteArray(dir + '/' + name);
}

void splitPath(const QByteArray &path, QByteArray *dir, QByteArray *name)
{
    const qsizetype slash = path.lastIndexOf('/');
    *dir = slash <= 0 ? QByteArrayLiteral("/") : path.left(slash);
    *name = path.mid(slash + 1);
}

} // namespace

QByteArray SftpCopy::freeName(const QByteArray &dir, const QByteArray &name, bool isDir, const QUrl &url)
{
    Result failed;
    const QByteArray free = firstFreeName(name, isDir, [&](const QByteArray &candidate) {
        Attributes a;
        const Result r = s.lstat(childOf(dir, candidate), &a);
        if (r.error == ErrDoesNotExist)
            return NameProbe::Free;
        if (r.ok())
            return NameProbe::Taken;
        failed = r;
        return NameProbe::Failed;
    });
    if (free.isEmpty()) {
        if (!failed.ok())
            fail(failed, url);
        else
            fail(ErrAlreadyExists, url);
    }
    return free;
}

bool SftpCopy::resolve(
    const QByteArray &src, const QUrl &srcUrl, const Attributes &attrs, QByteArray *dst, QUrl *dstUrl, Action *action)
{
    Attributes existing;
    const Result r = s.lstat(*dst, &existing);
    if (!r.ok() && r.error != ErrDoesNotExist)
        return fail(r, *dstUrl);
    const CopyTarget target = !r.ok() ? CopyTarget::Absent : existing.isDir() ? CopyTarget::Folder : CopyTarget::Other;
    const bool identical = target != CopyTarget::Absent && canonical(src) == canonical(*dst);
    const CopyDecision d = decideCopyAsking(&m_policy, attrs.isDir(), target, identical, [&] {
        return w->askConflict(ConflictQuestion { srcUrl, *dstUrl });
    });
    switch (d.action) {
    case CopyAction::Rename: {
        QByteArray dir, name;
        splitPath(*dst, &dir, &name);
        const QByteArray free = freeName(dir, name, attrs.isDir(), *dstUrl);
        if (free.isEmpty())
            return false;
        *dst = childOf(dir, free);
        *dstUrl = w->urlOf(*dst);
        *action = Action::Create;
        return true;
    }
    case CopyAction::Fail:
        return fail(d.error == ErrNotAnswered && w->wasKilled() ? ErrCancelled : d.error, *dstUrl);
    case CopyAction::Ask:
        return fail(ErrInternal, *dstUrl); // never from decideCopyAsking()
    case CopyAction::Create:
    case CopyAction::Replace:
    case CopyAction::Merge:
    case CopyAction::Skip:
        break;
    }
    *action = d.action;
    return true;
}

// An entry left alone: never processed; its bytes (a folder's with what it holds) leave
// the byte total (copyrules.h's accounting).
bool SftpCopy::skip(const QByteArray &src, const QUrl &srcUrl, const Attributes &attrs, const QUrl &dstUrl)
{
    qint64 bytes = 0;
    if (m_counted) {
        if (attrs.isDir()) {
            SftpWorker::TreeCounts inside;
            if (w->countTree(src, &inside, false).error == ErrCancelled)
                return fail(ErrCancelled, srcUrl);
            bytes = inside.bytes;
        } else {
            bytes = attrs.bytesForTotals();
        }
    }
    m_amounts.skip(bytes);
    if (m_counted)
        w->setTotals(m_amounts.totalBytes, m_amounts.totalFiles, m_amounts.totalFolders);
    w->setSkipped(m_amounts.skipped);
    w->reportItem(CopyItemEvent::Skipped, srcUrl, dstUrl);
    report();
    return true;
}

// A move done by a rename to \a dst: processed, with what a folder holds when it was counted.
bool SftpCopy::renamed(const QByteArray &dst, const QUrl &srcUrl, const Attributes &attrs, const QUrl &dstUrl)
{
    if (attrs.isDir()) {
        ++m_amounts.folders;
        SftpWorker::TreeCounts inside;
        if (m_counted && w->countTree(dst, &inside, false).error == ErrCancelled)
            return fail(ErrCancelled, srcUrl);
        m_amounts.bytes = Sftp::addBytes(m_amounts.bytes, inside.bytes);
        m_amounts.files += inside.files;
        m_amounts.folders += inside.folders;
    } else {
        ++m_amounts.files;
        m_amounts.bytes = Sftp::addBytes(m_amounts.bytes, attrs.bytesForTotals());
    }
    w->reportItem(CopyItemEvent::Moved, srcUrl, dstUrl);
    report();
    return true;
}

bool SftpCopy::copyEntry(
    const QByteArray &src, const QUrl &srcUrl, const Attributes &attrs, QByteArray dst, QUrl dstUrl)
{
    if (!checkKilled(srcUrl))
        return false;
    Action action;
    if (!resolve(src, srcUrl, attrs, &dst, &dstUrl, &action))
        return false;
    if (action == Action::Skip)
        return skip(src, srcUrl, attrs, dstUrl);
    if (m_request.move && (action == Action::Create || (action == Action::Replace && !attrs.isDir()))) {
        // Within one server a move is a rename, at every level where nothing is in the
        // way (a file replacing a file is renamed over it); inside a merged folder too.
        const Result r = s.rename(src, dst, action == Action::Replace);
        if (r.ok())
            return renamed(dst, srcUrl, attrs, dstUrl);
        if (r.failure != Session::Failure::None)
            return fail(r, srcUrl);
    }
    if (attrs.isDir())
        return copyFolder(src, srcUrl, attrs, dst, dstUrl, action != Action::Merge);
    if (attrs.isSymLink())
        return copyLink(src, srcUrl, dst, dstUrl, action == Action::Replace);
    if (attrs.isRegular() || !attrs.has(Attributes::Permissions))
        return copyFile(src, srcUrl, attrs, dst, dstUrl, action == Action::Replace);
    // A fifo, socket or device: SFTP cannot make one.
    return fail(ErrCannotRead, srcUrl);
}

bool SftpCopy::copyFolder(const QByteArray &src, const QUrl &srcUrl, const Attributes &attrs, const QByteArray &dst,
    const QUrl &dstUrl, bool create)
{
    QList<std::pair<QByteArray, Attributes>> entries;
    Result r = w->readFolder(src, &entries);
    if (!r.ok())
        return fail(r, srcUrl);
    const quint32 mode = attrs.permissions & 07777;
    if (create) {
        // The owner can fill it whatever the source's mode; the exact mode comes at the end.
        r = s.mkdir(dst, m_request.preserve ? int((mode & 0777 & ~022u) | 0700) : -1);
        if (!r.ok())
            return fail(r, dstUrl);
        w->reportItem(CopyItemEvent::CreatedFolder, srcUrl, dstUrl);
    }
    bool ok = true;
    for (const auto &[name, childAttrs] : std::as_const(entries)) {
        const QByteArray from = childOf(src, name);
        const QByteArray to = childOf(dst, name);
        ok = copyEntry(from, Url::child(srcUrl, name), childAttrs, to, Url::child(dstUrl, name));
        if (!ok)
            break;
    }
    if (create && m_request.preserve && s.isConnected()) {
        // Also after an error, so that no folder stays owner-only; best effort.
        Attributes a;
        a.setPermissions(mode);
        if (attrs.has(Attributes::AccessModTime))
            a.setTimes(attrs.atime, attrs.mtime);
        (void)s.setStat(dst, a);
    }
    if (!ok)
        return false;
    ++m_amounts.folders;
    if (m_request.move)
        m_copied.append({ src, true });
    report();
    return true;
}

bool SftpCopy::copyFile(const QByteArray &src, const QUrl &srcUrl, const Attributes &attrs, const QByteArray &dst,
    const QUrl &dstUrl, bool replace)
{
    w->reportItem(CopyItemEvent::Copying, srcUrl, dstUrl);
    Session::PutOptions o;
    o.overwrite = replace;
    if (m_request.preserve) {
        // Never a setuid or setgid file under another owner than the source's.
        if (attrs.has(Attributes::Permissions))
            o.permissions = attrs.permissions & 01777;
        if (attrs.has(Attributes::AccessModTime))
            o.mtime = attrs.mtime;
    } else {
        o.mtime = QDateTime::currentSecsSinceEpoch();
    }
    const qint64 before = m_amounts.bytes;
    const Result r = s.copyFile(src, dst, o, [this, before](quint64 n) {
        m_amounts.bytes = before + qint64(n);
        report();
    });
    if (!r.ok()) {
        m_amounts.bytes = before;
        if (r.path == src)
            return fail(r, srcUrl);
        return fail(r, dstUrl);
    }
    m_amounts.bytes = Sftp::addBytes(before, qMax<qint64>(attrs.signedSize(), 0));
    ++m_amounts.files;
    if (m_request.move)
        m_copied.append({ src, false });
    w->reportItem(CopyItemEvent::Copied, srcUrl, dstUrl);
    report();
    return true;
}

bool SftpCopy::copyLink(
    const QByteArray &src, const QUrl &srcUrl, const QByteArray &dst, const QUrl &dstUrl, bool replace)
{
    w->reportItem(CopyItemEvent::Copying, srcUrl, dstUrl);
    QByteArray target;
    Result r = s.readLink(src, &target);
    if (!r.ok())
        return fail(r, srcUrl);
    if (!replace) {
        r = s.symlink(target, dst);
    } else {
        // Made beside it under a name nobody uses, then renamed over it.
        QByteArray dir, name;
        splitPath(dst, &dir, &name);
        const QByteArray temp = childOf(dir, temporaryNameFor(name, Sftp::Ssh::randomHex(8)));
        r = s.symlink(target, temp);
        if (r.ok()) {
            r = s.rename(temp, dst, true);
            if (!r.ok() && s.isConnected())
                (void)s.remove(temp);
        }
    }
    if (!r.ok())
        return fail(r, dstUrl);
    ++m_amounts.files;
    if (m_request.move)
        m_copied.append({ src, false });
    w->reportItem(CopyItemEvent::Copied, srcUrl, dstUrl);
    report();
    return true;
}

WorkerResult SftpCopy::run()
{
    const QUrl &dest = m_request.destination;
    for (const QUrl &u : m_request.sources) {
        if (!isSameServer(u, dest, 22))
            return WorkerResult::fail(ErrUnsupportedAction, u);
    }
    WorkerResult c = w->ensureConnected();
    if (!c.ok())
        return c;
    if (!s.hasExtension("copy-data")) {
        // The job copies through the application then.
        qCDebug(QVFS_SFTP) << "no copy-data on this server: copies go through the application";
        return WorkerResult::fail(ErrUnsupportedAction, dest);
    }
    QByteArray destPath;
    c = w->serverPath(dest, &destPath);
    if (!c.ok())
        return c;
    bool into = m_request.target == CopyRequest::Target::Into;
    if (m_request.target == CopyRequest::Target::IntoIfFolder) {
        Attributes a;
        into = s.stat(destPath, &a).ok() && a.isDir();
    }
    if (!into && m_request.sources.size() != 1)
        return WorkerResult::fail(ErrIsNotDirectory, dest);

    struct Item
    {
        QUrl url;
        QByteArray path;
        Attributes attrs;
        QByteArray dst;
        QUrl dstUrl;
    };
    QList<Item> items;
    const QByteArray destCanonical = canonical(into ? destPath : QByteArray());
    for (const QUrl &u : m_request.sources) {
        Item item;
        item.url = u;
        c = w->serverPath(u, &item.path);
        if (!c.ok())
            return c;
        const Result r = s.lstat(item.path, &item.attrs);
        if (!r.ok())
            return w->fail(r, u);
        QByteArray dir, name;
        splitPath(item.path, &dir, &name);
        if (item.path == "/")
            return WorkerResult::fail(ErrCycle, u);
        item.dst = into ? childOf(destPath, name) : destPath;
        item.dstUrl = into ? Url::child(dest, name) : dest;
        if (item.attrs.isDir()) {
            // A folder into itself or below itself.
            QByteArray dstDir, dstName;
            splitPath(item.dst, &dstDir, &dstName);
            const QByteArray target = childOf(into ? destCanonical : canonical(dstDir), dstName);
            const QByteArray source = canonical(item.path);
            if (target == source || target.startsWith(QByteArray(source + '/')))
                return WorkerResult::fail(ErrCycle, u);
        }
        items.append(item);
    }

    if (m_request.countFirst) {
        SftpWorker::TreeCounts totals;
        for (const Item &item : std::as_const(items)) {
            if (item.attrs.isDir()) {
                ++totals.folders;
                const Result r = w->countTree(item.path, &totals, false);
                if (r.error == ErrCancelled)
                    return WorkerResult::fail(ErrCancelled, item.url);
            } else {
                ++totals.files;
                totals.bytes = Sftp::addBytes(totals.bytes, item.attrs.bytesForTotals());
            }
        }
        w->setTotals(totals.bytes, totals.files, totals.folders);
        m_amounts.totalBytes = totals.bytes;
        m_amounts.totalFiles = totals.files;
        m_amounts.totalFolders = totals.folders;
        m_counted = true;
    }

    for (const Item &item : std::as_const(items)) {
        if (!copyEntry(item.path, item.url, item.attrs, item.dst, item.dstUrl))
            return m_result;
    }
    // A move: everything arrived, now the copied sources go (a folder only once empty:
    // what a conflict left alone stays with it).
    for (const auto &[path, isDir] : std::as_const(m_copied)) {
        const Result r = isDir ? s.rmdir(path) : s.remove(path);
        if (!r.ok() && r.error != ErrDoesNotExist && r.error != ErrDirectoryNotEmpty)
            return w->fail(r, w->urlOf(path));
    }
    return m_result;
}

WorkerResult SftpWorker::copy(const CopyRequest &request)
{
    return SftpCopy(this, request).run();
}

} // namespace Qvfs
