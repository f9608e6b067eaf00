// SPDX-License-Identifier: LGPL-2.1-or-later
// qvfs watch: lists folders, then prints their changes as they happen (like gio monitor
// or inotifywait), or JSON Lines.
#include "commands.h"
#include "format.h"
#include "terminalask.h"

#include <Qvfs/DirLister>
#include <Qvfs/Url>
#include <Qvfs/UrlIdentity>

#include <QCoreApplication>
#include <QEventLoop>
#include <QHash>

namespace Cli
{

namespace
{

enum WatchOption { OptJson = 1, OptAll, OptChanges, OptPoll };

const char *modeName(Qvfs::WatchMode mode)
{
    switch (mode) {
    case Qvfs::WatchMode::Native:
        return "native";
    case Qvfs::WatchMode::Polling:
        return "polling";
    case Qvfs::WatchMode::PollingAtLimit:
        return "polling-at-limit";
    case Qvfs::WatchMode::None:
        break;
    }
    return "none";
}

/*! Prints what a lister says, one line (or JSON object) per event, at once. */
class Printer
{
public:
    Printer(bool json, bool initial)
        : m_json(json)
        , m_initial(initial)
    { }

    /*! How a folder is named in text output: as given on the command line. */
    QHash<QUrl, QByteArray> shown;
    QHash<QUrl, bool> listed; // listingCompleted seen: later additions are changes

    void entry(const char *event, const QUrl &folder, const Qvfs::Entry &e)
    {
        const QUrl url = Qvfs::Url::child(folder, e.name());
        if (m_json) {
            QByteArray o = "{\"event\":\"";
            o += event;
            o += "\",\"folder\":";
            appendJsonString(o, folder.toEncoded());
            o += ',';
            o += entryJson(e, e.name(), url).mid(1); // the entry's object, opened above
            o += '\n';
            emitLine(o);
            return;
        }
        emitLine(QByteArray(event) + ' ' + pathOf(folder, e.name()) + '\n');
    }

    void renamed(const QUrl &folder, const Qvfs::Entry &before, const Qvfs::Entry &after)
    {
        if (m_json) {
            QByteArray o = "{\"event\":\"renamed\",\"folder\":";
            appendJsonString(o, folder.toEncoded());
            o += ',';
            appendJsonBytes(o, "from", before.name());
            o += ',';
            o += entryJson(after, after.name(), Qvfs::Url::child(folder, after.name())).mid(1);
            o += '\n';
            emitLine(o);
            return;
        }
        emitLine("renamed " + pathOf(folder, before.name()) + " -> " + pathOf(folder, after.name()) + '\n');
    }

    void folderEvent(const char *event, const QUrl &folder, const QUrl &other = {}, const QByteArray &extra = {})
    {
        if (m_json) {
            QByteArray o = "{\"event\":\"";
            o += event;
            o += "\",\"folder\":";
            appendJsonString(o, folder.toEncoded());
            if (!other.isEmpty()) {
                o += ",\"to\":";
                appendJsonString(o, other.toEncoded());
            }
            if (!extra.isEmpty())
                o += extra;
            o += "}\n";
            emitLine(o);
            return;
        }
        QByteArray line = QByteArray(event) + ' ' + shownFolder(folder);
        if (!other.isEmpty())
            line += " -> " + urlArg(other, Sink::Stdout).toUtf8();
        emitLine(line + '\n');
    }

    bool initial() const { return m_initial; }
    bool json() const { return m_json; }

private:
    QByteArray shownFolder(const QUrl &folder) const
    {
        const auto it = shown.constFind(folder);
        return it != shown.constEnd() ? shownName(*it, Sink::Stdout) : urlArg(folder, Sink::Stdout).toUtf8();
    }
    QByteArray pathOf(const QUrl &folder, QByteArrayView name) const
    {
        // The folder as given, then the name's bytes: the same path a shell would use.
        const auto it = shown.constFind(folder);
        QByteArray base = it != shown.constEnd() ? *it : decodedPath(folder);
        if (!base.endsWith('/'))
            base += '/';
        base += name.toByteArray();
        return shownName(base, Sink::Stdout);
    }
    void emitLine(const QByteArray &line)
    {
        out(line);
        flushOut(); // as it happens: a reader sees each change at once
    }

    bool m_json;
    bool m_initial;
};

} // namespace

int cmdWatch(const QList<QByteArray> &args)
{
    Parsed p;
    int status = Ok;
    if (!prepare("watch", args,
            { { OptJson, 0, "json" }, { OptAll, 'a', "all" }, { OptChanges, 'c', "changes" },
                { OptPoll, 0, "poll", true } },
            &p, &status))
        return status;
    if (p.operands.isEmpty())
        return usageError("watch", QCoreApplication::translate("qvfs", "missing operand"));
    int pollMs = 0;
    if (p.has(OptPoll)) {
        bool ok = false;
        pollMs = p.value(OptPoll).toInt(&ok);
        if (!ok || pollMs < 100)
            return usageError("watch",
                QCoreApplication::translate("qvfs", "invalid poll interval %1 (milliseconds, at least 100)")
                    .arg(nameArg(p.value(OptPoll))));
    }
    Printer printer(p.has(OptJson), !p.has(OptChanges));
    Qvfs::DirLister lister;
    lister.setShowHidden(p.has(OptAll));
    lister.setPollInterval(pollMs);
    lister.setDetails(Qvfs::DetailsDefault);

    int open = 0;
    QEventLoop loop;
    const auto closeOne = [&](const QUrl &url) {
        lister.close(url);
        if (--open <= 0)
            loop.quit();
    };
    QObject::connect(&lister, &Qvfs::DirLister::entriesAdded, [&](const QUrl &u, const Qvfs::EntryList &list) {
        const bool change = printer.listed.value(u);
        if (!change && !printer.initial())
            return;
        for (const Qvfs::Entry &e : list)
            printer.entry(change ? "added" : "listed", u, e);
    });
    QObject::connect(&lister, &Qvfs::DirLister::entriesRemoved, [&](const QUrl &u, const Qvfs::EntryList &list) {
        for (const Qvfs::Entry &e : list)
            printer.entry("removed", u, e);
    });
    QObject::connect(&lister, &Qvfs::DirLister::entriesChanged,
        [&](const QUrl &u, const Qvfs::EntryList &, const Qvfs::EntryList &after) {
            for (const Qvfs::Entry &e : after)
                printer.entry("changed", u, e);
        });
    QObject::connect(&lister, &Qvfs::DirLister::entryRenamed,
        [&](const QUrl &u, const Qvfs::Entry &b, const Qvfs::Entry &a) { printer.renamed(u, b, a); });
    QObject::connect(&lister, &Qvfs::DirLister::listingCompleted, [&](const QUrl &u) {
        if (printer.listed.value(u))
            return; // listed again (a lost event queue): its differences were printed
        printer.listed.insert(u, true);
        QByteArray extra = ",\"mode\":\"";
        extra += modeName(lister.watchMode(u));
        extra += '"';
        printer.folderEvent("ready", u, {}, extra);
    });
    QObject::connect(&lister, &Qvfs::DirLister::watchModeChanged, [&](const QUrl &u, Qvfs::WatchMode mode) {
        if (!printer.listed.value(u))
            return; // said with "ready"
        QByteArray extra = ",\"mode\":\"";
        extra += modeName(mode);
        extra += '"';
        printer.folderEvent(mode == Qvfs::WatchMode::None ? "unwatched" : "watching", u, {}, extra);
    });
    QObject::connect(&lister, &Qvfs::DirLister::dirGone, [&](const QUrl &u) {
        printer.folderEvent("gone", u);
        closeOne(u);
    });
    QObject::connect(&lister, &Qvfs::DirLister::redirected, [&](const QUrl &from, const QUrl &to) {
        printer.folderEvent("moved", from, to);
        printer.listed.insert(to, printer.listed.take(from));
        printer.shown.remove(from);
    });
    QObject::connect(&lister, &Qvfs::DirLister::failed, [&](const QUrl &u, int code, const QString &) {
        reportError(code, { u.toString(QUrl::FullyEncoded) });
        closeOne(u);
    });

    for (const QByteArray &arg : std::as_const(p.operands)) {
        const QUrl url = toUrl(arg);
        if (!url.isValid())
            continue;
        const QUrl key = Qvfs::Url::normalized(url);
        if (lister.isOpen(key))
            continue;
        printer.shown.insert(key, arg);
        lister.open(key, Qvfs::DirLister::Keep);
        ++open;
    }
    if (open > 0)
        loop.exec(); // until every folder is gone or failed, or a signal ends the program
    flushOut();
    return ctx().status;
}

} // namespace Cli
