// SPDX-License-Identifier: LGPL-2.1-or-later
// Listing a folder: OPENDIR, READDIRs kept in flight, and the link targets resolved
// in the same pipeline.
#include "sftpsession.h"
#include "sftpsession_p.h"

#include "error.h"
#include "rawpath_p.h"

#include <QCoreApplication>

namespace Qvfs::Sftp
{

using Internal::joinPath;

Result Session::listDir(const QByteArray &path, int flags, const EntryCallback &callback)
{
    Result r;
    if (!d->checkConnected(&r))
        return r;
    QByteArray handle;
    {
        Packet::Writer w(d->out);
        const quint32 id = d->begin(w, Packet::Opendir);
        w.string(path);
        d->finish(w);
        r = d->handleCall(id, path, Op::Read, &handle);
        if (!r.ok())
            return r;
    }

    // Links of the current batch whose target is being looked up.
    struct PendingLink
    {
        QByteArray name;
        QByteArray longName;
        Attributes attrs;
        quint32 readlinkId = 0;
        quint32 statId = 0;
        QByteArray target;
        Attributes targetAttrs;
        bool targetValid = false;
        int answers = 0;
    };
    QList<PendingLink> links;
    QList<quint32> readdirIds; // in flight, oldest first
    bool eof = false;
    Result failure;

    const auto sendReaddir = [&] {
        Packet::Writer w(d->out);
        const quint32 id = d->begin(w, Packet::Readdir);
        w.string(handle);
        d->finish(w);
        readdirIds.append(id);
    };
    const auto deliverLinks = [&]() -> Result {
        for (const PendingLink &l : std::as_const(links)) {
            DirEntry e;
            e.name = l.name;
            e.longName = l.longName;
            e.attrs = l.attrs;
            e.linkTarget = l.target;
            e.targetAttrs = l.targetAttrs;
            e.targetValid = l.targetValid;
            if (const int err = callback(e))
                return makeError(err, joinPath(path, l.name), {});
        }
        links.clear();
        return {};
    };
    const SessionPrivate::ReplyHandler handler = [&](const Packet::Reply &reply) -> Result {
        const qsizetype rd = readdirIds.indexOf(reply.id);
        if (rd >= 0) {
            readdirIds.removeAt(rd);
            if (reply.type == Packet::Status && reply.status == Packet::Eof) {
                eof = true;
                return {};
            }
            if (reply.type != Packet::Name)
                return d->statusResult(reply, path, Op::Read);
            Packet::NameReader names(reply.names, reply.nameCount);
            DirEntry e;
            while (names.next(&e.name, &e.longName, &e.attrs)) {
                if (!(flags & IncludeDotEntries) && (e.name == "." || e.name == ".."))
                    continue;
                if ((flags & ResolveLinks) && e.attrs.isSymLink()) {
                    PendingLink l;
                    l.name = e.name.toByteArray();
                    l.longName = e.longName.toByteArray();
                    l.attrs = e.attrs;
                    const QByteArray full = joinPath(path, e.name.toByteArray());
                    Packet::Writer w(d->out);
                    l.readlinkId = d->begin(w, Packet::Readlink);
                    w.string(full);
                    d->finish(w);
                    l.statId = d->begin(w, Packet::Stat);
                    w.string(full);
                    d->finish(w);
                    links.append(std::move(l));
                    continue;
                }
                if (const int err = callback(e))
                    return makeError(err, joinPath(path, e.name.toByteArray()), {});
            }
            return {};
        }
        for (PendingLink &l : links) {
            if (reply.id == l.readlinkId) {
                ++l.answers;
                if (reply.type == Packet::Name && reply.nameCount >= 1) {
                    Packet::NameReader names(reply.names, reply.nameCount);
                    QByteArrayView n, longName;
                    Attributes a;
                    names.next(&n, &longName, &a);
                    l.target = n.toByteArray();
                }
                return {};
            }
            if (reply.id == l.statId) {
                ++l.answers;
                if (reply.type == Packet::Attrs) {
                    l.targetAttrs = reply.attrs;
                    l.targetValid = true;
                }
                return {};
            }
        }
        return d->breakWith(d->protocolError(
            QCoreApplication::translate("Qvfs", "The server answered a request that was never sent.")));
    };

    while (true) {
        // Lookups of a batch's links finish before more entries come in, so that
        // memory stays bounded by one batch.
        if (!links.isEmpty()) {
            bool all = true;
            for (const PendingLink &l : std::as_const(links))
                all = all && l.answers == 2;
            if (all) {
                failure = deliverLinks();
                if (!failure.ok())
                    break;
            }
        }
        if (links.isEmpty()) {
            if (eof && readdirIds.isEmpty())
                break;
            while (!eof && readdirIds.size() < d->readdirDepth)
                sendReaddir();
        }
        failure = d->pump(handler);
        if (!failure.ok())
            break;
    }
    for (quint32 id : std::as_const(readdirIds))
        d->discard(id);
    for (const PendingLink &l : std::as_const(links)) {
        if (l.answers < 2) {
            d->discard(l.readlinkId);
            d->discard(l.statId);
        }
    }
    if (d->connected) {
        // Nobody waits for the directory handle's close.
        Packet::Writer w(d->out);
        const quint32 id = d->begin(w, Packet::Close);
        w.string(handle);
        d->finish(w);
        d->discard(id);
    }
    return failure;
}

} // namespace Qvfs::Sftp
