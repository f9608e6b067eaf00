// SPDX-License-Identifier: LGPL-2.1-or-later
// Copies and moves inside one server (the "copy" capability): the sftp primitives under
// the worker library's TreeCopy, which decides everything else. Files are copied with
// copy-data (the bytes stay on the server), folders made and filled, symlinks made again,
// moves renamed. A server without copy-data gets ErrUnsupportedAction before anything is
// touched, and the job copies through the application instead.
#include "sftpworker.h"

#include "copyrules.h"
#include "error.h"
#include "rawpath_p.h"
#include "sftp_debug.h"
#include "sshprocess_p.h"
#include "treecopy.h"
#include "url.h"

#include <QDateTime>

namespace Qvfs
{

using Sftp::Attributes;
using Sftp::Session;

/*! The primitives of a copy on one sftp server; addresses are server paths. */
class SftpCopyBackend final : public CopyBackend
{
public:
    explicit SftpCopyBackend(SftpWorker *worker)
        : w(worker)
        , s(worker->m_session)
    { }

    WorkerResult begin(const CopyRequest &request) override;
    WorkerResult place(const QUrl &url, CopyPlace *out) override
    {
        out->url = url;
        return w->serverPath(url, &out->address);
    }
    WorkerResult stat(const CopyPlace &place, CopyEntry *out, bool follow) override
    {
        Attributes a;
        const Result r = follow ? s.stat(place.address, &a) : s.lstat(place.address, &a);
        if (!r.ok())
            return w->fail(r, place.url);
        const qsizetype slash = place.address.lastIndexOf('/');
        *out = entryOf(place, place.address.mid(slash + 1), a);
        return WorkerResult::pass();
    }
    WorkerResult list(const CopyEntry &folder, QList<CopyEntry> *out) override
    {
        QList<std::pair<QByteArray, Attributes>> entries;
        const Result r = w->readFolder(folder.place.address, &entries);
        if (!r.ok())
            return w->fail(r, folder.place.url);
        out->clear();
        out->reserve(entries.size());
        for (const auto &[name, attrs] : std::as_const(entries))
            out->append(entryOf(child(folder.place, name), name, attrs));
        return WorkerResult::pass();
    }
    bool isSame(const CopyEntry &a, const CopyEntry &b) override
    {
        return canonical(a.place.address) == canonical(b.place.address);
    }
    bool isInside(const CopyEntry &folder, const CopyPlace &target) override
    {
        // The target's folder resolved (it exists; the target may not yet).
        QByteArray parent, name;
        Internal::splitPath(target.address, &parent, &name);
        const QByteArray resolved = Internal::joinPath(canonical(parent), name);
        const QByteArray source = canonical(folder.place.address);
        return resolved.startsWith(QByteArray(source + '/'));
    }
    WorkerResult makeFolder(const CopyEntry &source, const CopyPlace &dst) override
    {
        // The owner can fill it whatever the source's mode; the exact mode comes at the end.
        const int mode = m_preserve && source.permissions >= 0 ? int((source.permissions & 0777 & ~022) | 0700) : -1;
        return w->fail(s.mkdir(dst.address, mode), dst.url);
    }
    void finishFolder(const CopyEntry &source, const CopyPlace &dst) override
    {
        if (!m_preserve || !s.isConnected())
            return;
        Attributes a;
        if (source.permissions >= 0)
            a.setPermissions(quint32(source.permissions));
        if (source.mtime >= 0)
            a.setTimes(quint32(qMax<qint64>(source.atime, 0)), quint32(source.mtime));
        (void)s.setStat(dst.address, a);
    }
    WorkerResult copyFile(const CopyEntry &source, const CopyPlace &dst, bool replace,
        const std::function<void(qint64)> &progress) override
    {
        Session::PutOptions o;
        o.overwrite = replace;
        if (m_preserve) {
            // Never a setuid or setgid file under another owner than the source's.
            if (source.permissions >= 0)
                o.permissions = source.permissions & 01777;
            if (source.mtime >= 0)
                o.mtime = source.mtime;
        } else {
            o.mtime = QDateTime::currentSecsSinceEpoch();
        }
        const Result r = s.copyFile(source.place.address, dst.address, o,
            [&progress](quint64 n) { progress(qint64(qMin<quint64>(n, quint64(INT64_MAX)))); });
        return w->fail(r, r.path == source.place.address ? source.place.url : dst.url);
    }
    WorkerResult copyLink(const CopyEntry &source, const CopyPlace &dst, bool replace) override;
    WorkerResult rename(const CopyEntry &source, const CopyPlace &dst, bool replace) override
    {
        const Result r = s.rename(source.place.address, dst.address, replace);
        if (r.ok() || r.failure != Session::Failure::None)
            return w->fail(r, source.place.url);
        return WorkerResult::fail(ErrUnsupportedAction); // another mount, say: copied instead
    }
    WorkerResult remove(const CopyEntry &entry) override
    {
        const QByteArray &path = entry.place.address;
        return w->fail(entry.isFolder() ? s.rmdir(path) : s.remove(path), entry.place.url);
    }

private:
    using Result = Session::Result;

    static CopyEntry entryOf(const CopyPlace &place, const QByteArray &name, const Attributes &a)
    {
        CopyEntry e;
        e.place = place;
        e.name = name;
        const bool file = a.isRegular() || !a.has(Attributes::Permissions);
        e.type = a.isDir()  ? CopyEntry::Type::Folder
            : a.isSymLink() ? CopyEntry::Type::Link
            : file          ? CopyEntry::Type::File
                            : CopyEntry::Type::Special; // SFTP cannot make one: ErrCannotRead
        e.size = file ? qMax<qint64>(a.signedSize(), 0) : 0;
        if (a.has(Attributes::Permissions))
            e.permissions = int(a.permissions & 07777);
        if (a.has(Attributes::AccessModTime)) {
            e.atime = a.atime;
            e.mtime = a.mtime;
        }
        return e;
    }
    QByteArray canonical(const QByteArray &path)
    {
        QByteArray out;
        return s.realPath(path, &out).ok() ? out : path;
    }

    SftpWorker *w;
    Session &s;
    bool m_preserve = true;
};

WorkerResult SftpCopyBackend::begin(const CopyRequest &request)
{
    m_preserve = request.preserve;
    for (const QUrl &u : request.sources) {
        if (!isSameServer(u, request.destination, 22))
            return WorkerResult::fail(ErrUnsupportedAction, u);
    }
    WorkerResult c = w->ensureConnected();
    if (!c.ok())
        return c;
    if (!s.hasExtension("copy-data")) {
        // The job copies through the application then.
        qCDebug(QVFS_SFTP) << "no copy-data on this server: copies go through the application";
        return WorkerResult::fail(ErrUnsupportedAction, request.destination);
    }
    return WorkerResult::pass();
}

WorkerResult SftpCopyBackend::copyLink(const CopyEntry &source, const CopyPlace &dst, bool replace)
{
    QByteArray target;
    Result r = s.readLink(source.place.address, &target);
    if (!r.ok())
        return w->fail(r, source.place.url);
    if (!replace) {
        r = s.symlink(target, dst.address);
    } else {
        // Made beside it under a name nobody uses, then renamed over it.
        const QByteArray name = dst.address.mid(dst.address.lastIndexOf('/') + 1);
        const CopyPlace temp = sibling(dst, temporaryNameFor(name, Sftp::Ssh::randomHex(8)));
        r = s.symlink(target, temp.address);
        if (r.ok()) {
            r = s.rename(temp.address, dst.address, true);
            if (!r.ok() && s.isConnected())
                (void)s.remove(temp.address);
        }
    }
    return w->fail(r, dst.url);
}

WorkerResult SftpWorker::copy(const CopyRequest &request)
{
    SftpCopyBackend backend(this);
    return TreeCopy(*this, backend, request).run();
}

} // namespace Qvfs
