// SPDX-License-Identifier: LGPL-2.1-or-later
// qvfs stat: a readable block per URL, like coreutils `stat`, or JSON Lines.
#include "commands.h"
#include "format.h"
#include "terminalask.h"

#include <Qvfs/StatJob>

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
        job->setAskDelegate(TerminalAsk::instance());
        if (!job->exec()) {
            jobError(job);
            continue;
        }
        if (json) {
            // JSON names what the URL is called (the argument is in "url" anyway).
            const Qvfs::Entry e = job->statResult();
            out(entryJson(e, e.contains(Qvfs::Name) ? e.name() : QByteArrayView(arg), url));
            out("\n");
        } else {
            printBlock(arg, job->statResult());
        }
    }
    flushOut();
    return ctx().status;
}

} // namespace Cli
