// SPDX-License-Identifier: LGPL-2.1-or-later
// The engine's single requests: one packet out, its reply in (stat, mkdir, rename,
// links, attributes, handles, reads and writes). Connecting, the I/O loop, ssh's
// diagnostics and listings are in sftpsession_connect.cpp, _loop.cpp, _diagnostics.cpp
// and _dir.cpp.
#include "sftpsession.h"
#include "sftpsession_p.h"

#include "error.h"

#include <QCoreApplication>

namespace Qvfs::Sftp
{

// ================================================================ Session: simple requests

namespace
{

// A STATUS reply's FAILURE is all OpenSSH says where a name is taken: \a r becomes
// ErrAlreadyExists then when \a path exists.
Result takenOr(Session &session, Result r, quint32 status, const QByteArray &path)
{
    Attributes a;
    if (!r.ok() && status == Packet::Failure && session.lstat(path, &a).ok())
        r.error = ErrAlreadyExists;
    return r;
}

} // namespace

Result Session::realPath(const QByteArray &path, QByteArray *resolved)
{
    return d->whenConnected([&] { return d->nameCall(d->request(Packet::Realpath, path), path, resolved); });
}

Result Session::stat(const QByteArray &path, Attributes *attrs)
{
    return d->whenConnected([&] { return d->attrsCall(d->request(Packet::Stat, path), path, attrs); });
}

Result Session::lstat(const QByteArray &path, Attributes *attrs)
{
    return d->whenConnected([&] { return d->attrsCall(d->request(Packet::Lstat, path), path, attrs); });
}

Result Session::mkdir(const QByteArray &path, int mode)
{
    return d->whenConnected([&] {
        Attributes a;
        if (mode >= 0)
            a.setPermissions(quint32(mode) & 07777);
        const quint32 id = d->request(Packet::Mkdir, path, [&](Packet::Writer &w) { w.attrs(a); });
        quint32 status = 0;
        const Result r = d->statusCall(id, path, Op::Write, &status);
        return takenOr(*this, r, status, path);
    });
}

Result Session::rmdir(const QByteArray &path)
{
    return d->whenConnected([&] {
        quint32 status = 0;
        Result r = d->statusCall(d->request(Packet::Rmdir, path), path, Op::Delete, &status);
        if (!r.ok() && (status == Packet::Failure || status == Packet::NoSuchFile)) {
            // OpenSSH says FAILURE for ENOTEMPTY, and NO_SUCH_FILE for ENOTDIR.
            Attributes a;
            if (lstat(path, &a).ok())
                r.error = a.isDir() ? ErrDirectoryNotEmpty : ErrIsNotDirectory;
        }
        return r;
    });
}

Result Session::remove(const QByteArray &path)
{
    return d->whenConnected([&] {
        quint32 status = 0;
        Result r = d->statusCall(d->request(Packet::Remove, path), path, Op::Delete, &status);
        Attributes a;
        if (!r.ok() && status == Packet::Failure && lstat(path, &a).ok() && a.isDir())
            r.error = ErrIsDirectory;
        return r;
    });
}

Result Session::rename(const QByteArray &from, const QByteArray &to, bool overwrite)
{
    return d->whenConnected([&]() -> Result {
        if (overwrite && d->extPosixRename) {
            const quint32 id
                = d->extendedRequest("posix-rename@openssh.com", from, [&](Packet::Writer &w) { w.string(to); });
            return d->statusCall(id, from, Op::Rename);
        }
        const auto plainRename = [this](const QByteArray &a, const QByteArray &b, quint32 *status) {
            const quint32 id = d->request(Packet::Rename, a, [&](Packet::Writer &w) { w.string(b); });
            return d->statusCall(id, a, Op::Rename, status);
        };
        quint32 status = 0;
        Result r = plainRename(from, to, &status);
        if (r.ok() || status == Packet::NoSuchFile || status == Packet::PermissionDenied || d->broken)
            return r;
        Attributes existing;
        if (!lstat(to, &existing).ok())
            return r; // failed for another reason
        if (!overwrite) {
            r.error = ErrAlreadyExists;
            r.path = to;
            return r;
        }
        // No posix-rename: move the old destination aside, put the new one in place, then
        // remove the old one; on failure put it back. Never both lost, but not atomic.
        Attributes source;
        if (lstat(from, &source).ok() && existing.isDir() && !source.isDir())
            return makeError(ErrIsDirectory, to, {});
        const QByteArray aside = d->temporaryName(to);
        r = plainRename(to, aside, nullptr);
        if (!r.ok())
            return r;
        r = plainRename(from, to, nullptr);
        if (!r.ok()) {
            (void)plainRename(aside, to, nullptr);
            return r;
        }
        if (existing.isDir())
            (void)rmdir(aside);
        else
            (void)remove(aside);
        return {};
    });
}

Result Session::symlink(const QByteArray &target, const QByteArray &linkPath)
{
    return d->whenConnected([&] {
        // OpenSSH's server takes the arguments the other way round from the draft (its
        // PROTOCOL, 4.1); servers that announce OpenSSH's extensions are taken to follow it.
        bool openssh = false;
        for (const auto &ext : d->version.extensions)
            openssh = openssh || ext.first.endsWith("@openssh.com");
        Packet::Writer w(d->out);
        const quint32 id = d->begin(w, Packet::Symlink);
        w.string(openssh ? target : linkPath);
        w.string(openssh ? linkPath : target);
        d->finish(w);
        quint32 status = 0;
        const Result r = d->statusCall(id, linkPath, Op::Write, &status);
        return takenOr(*this, r, status, linkPath);
    });
}

Result Session::readLink(const QByteArray &path, QByteArray *target)
{
    return d->whenConnected([&] { return d->nameCall(d->request(Packet::Readlink, path), path, target); });
}

Result Session::hardlink(const QByteArray &from, const QByteArray &to)
{
    return d->whenConnected([&] {
        if (!d->extHardlink)
            return d->unsupported(to, "hardlink@openssh.com");
        const quint32 id = d->extendedRequest("hardlink@openssh.com", from, [&](Packet::Writer &w) { w.string(to); });
        quint32 status = 0;
        const Result r = d->statusCall(id, to, Op::Write, &status);
        return takenOr(*this, r, status, to);
    });
}

Result Session::setStat(const QByteArray &path, const Attributes &attrs)
{
    return d->whenConnected([&] {
        const quint32 id = d->request(Packet::Setstat, path, [&](Packet::Writer &w) { w.attrs(attrs); });
        return d->statusCall(id, path, Op::Write);
    });
}

Result Session::lsetStat(const QByteArray &path, const Attributes &attrs)
{
    return d->whenConnected([&] {
        if (!d->extLsetstat)
            return d->unsupported(path, "lsetstat@openssh.com");
        const quint32 id = d->extendedRequest("lsetstat@openssh.com", path, [&](Packet::Writer &w) { w.attrs(attrs); });
        return d->statusCall(id, path, Op::Write);
    });
}

Result Session::setPermissions(const QByteArray &path, quint32 mode)
{
    Attributes a;
    a.setPermissions(mode & 07777);
    return setStat(path, a);
}

Result Session::setModificationTime(const QByteArray &path, qint64 mtime)
{
    Attributes a;
    const quint32 t = quint32(qBound<qint64>(0, mtime, qint64(UINT32_MAX)));
    a.setTimes(t, t);
    return setStat(path, a);
}

Result Session::userGroupNames(
    const QList<quint32> &uids, const QList<quint32> &gids, QList<QByteArray> *users, QList<QByteArray> *groups)
{
    return d->whenConnected([&] {
        if (!d->extUserGroupNames)
            return d->unsupported({}, "users-groups-by-id@openssh.com");
        const auto ids = [](const QList<quint32> &list) {
            QByteArray out;
            Packet::Writer w(out);
            for (quint32 id : list)
                w.u32(id);
            return out;
        };
        const quint32 id = d->extendedRequest(
            "users-groups-by-id@openssh.com", ids(uids), [&](Packet::Writer &w) { w.string(ids(gids)); });
        return d->call(id, [&](const Packet::Reply &reply) {
            if (reply.type == Packet::ExtendedReply) {
                if (Packet::parseUserGroupNames(reply.data, uids.size(), gids.size(), users, groups))
                    return Result();
                return makeError(ErrProtocolError, {},
                    QCoreApplication::translate("Qvfs", "Malformed users-groups-by-id reply."), Failure::ProtocolError);
            }
            return d->statusResult(reply, {}, Op::Other);
        });
    });
}

Result Session::statVfs(const QByteArray &path, StatVfs *out)
{
    return d->whenConnected([&] {
        if (!d->extStatVfs)
            return d->unsupported(path, "statvfs@openssh.com");
        return d->call(d->extendedRequest("statvfs@openssh.com", path), [&](const Packet::Reply &reply) {
            if (reply.type == Packet::ExtendedReply) {
                if (Packet::parseStatVfs(reply.data, out))
                    return Result();
                return makeError(ErrProtocolError, path,
                    QCoreApplication::translate("Qvfs", "Malformed statvfs reply."), Failure::ProtocolError);
            }
            return d->statusResult(reply, path, Op::Read);
        });
    });
}

Result Session::open(const QByteArray &path, quint32 openFlags, const Attributes &attrs, QByteArray *handle)
{
    return d->whenConnected([&] {
        const quint32 id = d->request(Packet::Open, path, [&](Packet::Writer &w) {
            w.u32(openFlags);
            w.attrs(attrs);
        });
        return d->handleCall(id, path, (openFlags & Packet::OpenWrite) ? Op::Write : Op::Read, handle);
    });
}

Result Session::close(const QByteArray &handle)
{
    return d->whenConnected([&] { return d->statusCall(d->request(Packet::Close, handle), {}, Op::Write); });
}

void Session::closeInBackground(const QByteArray &handle)
{
    if (!d->connected || handle.isEmpty())
        return;
    const quint32 id = d->request(Packet::Close, handle);
    d->discard(id);
}

Result Session::fstat(const QByteArray &handle, Attributes *attrs)
{
    return d->whenConnected([&] { return d->attrsCall(d->request(Packet::Fstat, handle), {}, attrs); });
}

Result Session::fsync(const QByteArray &handle)
{
    return d->whenConnected([&] {
        if (!d->extFsync)
            return d->unsupported({}, "fsync@openssh.com");
        return d->statusCall(d->extendedRequest("fsync@openssh.com", handle), {}, Op::Write);
    });
}

Result Session::read(const QByteArray &handle, quint64 offset, quint32 length, QByteArray *data)
{
    return d->whenConnected([&] {
        const quint32 id = d->request(Packet::Read, handle, [&](Packet::Writer &w) {
            w.u64(offset);
            w.u32(qMin(length, d->readChunk));
        });
        data->clear();
        return d->call(id, [&](const Packet::Reply &reply) {
            if (reply.type == Packet::Data) {
                if (quint32(reply.data.size()) > qMin(length, d->readChunk))
                    return makeError(ErrProtocolError, {},
                        QCoreApplication::translate("Qvfs", "The server sent more data than asked for."),
                        Failure::ProtocolError);
                *data = reply.data.toByteArray();
                return Result();
            }
            if (reply.type == Packet::Status && reply.status == Packet::Eof)
                return Result();
            return d->statusResult(reply, {}, Op::Read);
        });
    });
}

Result Session::write(const QByteArray &handle, quint64 offset, QByteArrayView data)
{
    qsizetype pos = 0;
    return upload(handle, offset, [&](char *buffer, qint64 capacity) -> qint64 {
        const qint64 n = qMin<qint64>(capacity, data.size() - pos);
        std::memcpy(buffer, data.data() + pos, size_t(n));
        pos += n;
        return n;
    });
}

Result Session::fsetStat(const QByteArray &handle, const Attributes &attrs)
{
    return d->whenConnected([&] {
        const quint32 id = d->request(Packet::Fsetstat, handle, [&](Packet::Writer &w) { w.attrs(attrs); });
        return d->statusCall(id, {}, Op::Write);
    });
}

} // namespace Qvfs::Sftp
