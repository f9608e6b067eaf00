// SPDX-License-Identifier: LGPL-2.1-or-later
// qvfs stat: a readable block per URL, like coreutils `stat`, or JSON Lines.
#include "commands.h"
#include "format.h"
#include "terminalask.h"

#include <Qvfs/Error>
#include <Qvfs/StatJob>
#include <Qvfs/Url>

#include <QCoreApplication>

#include <sys/sysmacros.h>

namespace Cli
{

namespace
{

enum StatOption { OptJson = 1, OptDereference };

QByteArray padded(const QByteArray &s, int width)
{
    return s + QByteArray(qMax(0, width - int(s.size())), ' ');
}

QByteArray text(const QString &s)
{
    return s.toLocal8Bit();
}

void printBlock(const QByteArray &arg, const Qvfs::Entry &e)
{
    using namespace Qvfs;
    QByteArray block;
    QByteArray name = shownName(arg, Sink::Stdout);
    if (e.isLink() && e.contains(LinkTarget))
        name += " -> " + shownName(e.bytes(LinkTarget), Sink::Stdout);
    // The name goes in as bytes: it need not be UTF-8.
    block += text(QCoreApplication::translate("qvfs", "  File: %1")).replace("%1", name);
    block += '\n';
    const QByteArray size = e.contains(Size) ? QByteArray::number(e.size()) : QByteArray("?");
    const QByteArray blocks = e.contains(Blocks) ? QByteArray::number(e.number(Blocks)) : QByteArray("?");
    block += text(QCoreApplication::translate("qvfs", "  Size: %1\tBlocks: %2 %3")
                      .arg(QString::fromLatin1(padded(size, 10)), QString::fromLatin1(padded(blocks, 10)),
                          typeDescription(e.type(), e.size())));
    block += '\n';
    if (e.contains(Device) || e.contains(Inode) || e.contains(NLink)) {
        QByteArray device("?");
        if (e.contains(Device)) {
            const auto dev = dev_t(e.number(Device));
            device = QByteArray::number(quint64(major(dev))) + ',' + QByteArray::number(quint64(minor(dev)));
        }
        const QByteArray inode = e.contains(Inode) ? QByteArray::number(e.number(Inode)) : QByteArray("?");
        const QByteArray links = e.contains(NLink) ? QByteArray::number(e.number(NLink)) : QByteArray("?");
        block += text(
            QCoreApplication::translate("qvfs", "Device: %1\tInode: %2 Links: %3")
                .arg(QString::fromLatin1(device), QString::fromLatin1(padded(inode, 11)), QString::fromLatin1(links)));
        block += '\n';
    }
    if (e.contains(Mode) || e.contains(Uid) || e.contains(Gid)) {
        const qint64 mode = e.number(Mode, -1);
        const QString perm
            = mode >= 0 ? QStringLiteral("%1").arg(mode & 07777, 4, 8, QLatin1Char('0')) : QStringLiteral("?");
        auto owner = [&e](Field id, Field nameField) {
            const QString num = e.contains(id) ? QString::number(e.number(id)) : QStringLiteral("?");
            const QString nm = e.contains(nameField) ? nameArg(e.bytes(nameField), Sink::Stdout, NameStyle::Plain)
                                                     : QStringLiteral("?");
            return QStringLiteral("%1/%2").arg(num, 5).arg(nm, 8);
        };
        block += text(
            QCoreApplication::translate("qvfs", "Access: (%1/%2)  Uid: (%3)   Gid: (%4)")
                .arg(perm, QString::fromLatin1(modeString(e.type(), mode)), owner(Uid, User), owner(Gid, Group)));
        block += '\n';
    }
    if (e.contains(ATime)) {
        block += text(QCoreApplication::translate("qvfs", "Access: %1")
                          .arg(QString::fromLocal8Bit(statDate(e.number(ATime), e.number(ATimeNs, 0)))));
        block += '\n';
    }
    if (e.contains(MTime)) {
        block += text(QCoreApplication::translate("qvfs", "Modify: %1")
                          .arg(QString::fromLocal8Bit(statDate(e.number(MTime), e.number(MTimeNs, 0)))));
        block += '\n';
    }
    if (e.contains(BTime) || e.contains(ATime)) {
        const QString birth = e.contains(BTime)
            ? QString::fromLocal8Bit(statDate(e.number(BTime), e.number(BTimeNs, 0)))
            : QStringLiteral("-");
        block += text(QCoreApplication::translate("qvfs", " Birth: %1").arg(birth));
        block += '\n';
    }
    if (e.contains(MimeType)) {
        block += text(QCoreApplication::translate("qvfs", "  Type: %1")
                          .arg(nameArg(e.bytes(MimeType), Sink::Stdout, NameStyle::Text)));
        block += '\n';
    }
    out(block);
}

/*! The URL a link at \a link with the target \a target points to (not cleaned: the worker resolves ".."). */
QUrl linkTargetUrl(const QUrl &link, QByteArrayView target)
{
    QByteArray path;
    if (target.startsWith('/')) {
        path = target.toByteArray();
    } else {
        const QByteArray at = decodedPath(link);
        path = at.left(at.lastIndexOf('/') + 1) + target;
    }
    const QUrl local = Qvfs::Url::fromLocalPath(path);
    if (!local.isValid() || Qvfs::Url::isLocalFile(link))
        return local;
    QUrl url = link.adjusted(QUrl::RemoveQuery | QUrl::RemoveFragment);
    url.setPath(local.path(QUrl::FullyEncoded), QUrl::TolerantMode);
    return url;
}

/*!
 * `stat -L` of \a url gave the link \a link itself: the worker could not follow it. Follows
 * the chain link by link to fail as coreutils does (a missing target: ErrDoesNotExist; a
 * loop or a chain longer than the kernel follows: ErrSymlinkLoop). When the chain can be
 * followed after all (it changed meanwhile), *\a link becomes what it ends in.
 */
bool follow(const QUrl &url, Qvfs::Entry *link, Qvfs::Details details)
{
    QUrl at = url;
    Qvfs::Entry e = *link;
    for (int hop = 0; hop < 40 && e.isLink(); ++hop) {
        const QUrl next = linkTargetUrl(at, e.bytes(Qvfs::LinkTarget));
        if (!next.isValid())
            break;
        Qvfs::StatJob *job = Qvfs::stat(next, details & ~Qvfs::Details(Qvfs::DetailResolveSymlink));
        prepareJob(job);
        if (!job->exec()) {
            if (job->error() == Qvfs::ErrDoesNotExist)
                reportError(Qvfs::ErrDoesNotExist, { url.toString(QUrl::FullyEncoded) });
            else
                jobError(job);
            return false;
        }
        e = job->statResult();
        at = next;
        if (!e.isLink()) {
            *link = e;
            return true;
        }
    }
    reportError(Qvfs::ErrSymlinkLoop, { url.toString(QUrl::FullyEncoded) });
    return false;
}

} // namespace

int cmdStat(const QList<QByteArray> &args)
{
    Parsed p;
    int status = Ok;
    if (!prepare("stat", args, { { OptJson, 0, "json" }, { OptDereference, 'L', "dereference" } }, &p, &status))
        return status;
    if (p.operands.isEmpty())
        return usageError("stat", QCoreApplication::translate("qvfs", "missing operand"));
    const bool json = p.has(OptJson);
    Qvfs::Details details = Qvfs::DetailsFull | Qvfs::DetailAllTimes;
    if (p.has(OptDereference))
        details |= Qvfs::DetailResolveSymlink;
    for (const QByteArray &arg : std::as_const(p.operands)) {
        const QUrl url = toUrl(arg);
        if (!url.isValid())
            continue;
        Qvfs::StatJob *job = Qvfs::stat(url, details);
        prepareJob(job);
        if (!job->exec()) {
            jobError(job);
            continue;
        }
        Qvfs::Entry e = job->statResult();
        if (p.has(OptDereference) && e.isLink() && !follow(url, &e, details))
            continue;
        if (json) {
            // JSON names what the URL is called (the argument is in "url" anyway).
            const Qvfs::Entry named = job->statResult();
            out(entryJson(e, named.contains(Qvfs::Name) ? named.name() : QByteArrayView(arg), url));
            out("\n");
        } else {
            printBlock(arg, e);
        }
    }
    flushOut();
    return ctx().status;
}

} // namespace Cli
