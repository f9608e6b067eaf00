// SPDX-License-Identifier: LGPL-2.1-or-later
#include "changenotifier.h"
#include "changenotifier_p.h"
#include "keys_p.h"
#include "url.h"
#include "urlidentity.h"

#include <QHash>
#include <QMutex>
#include <QMutexLocker>

namespace Qvfs
{

namespace
{
struct Wanted
{
    QMutex mutex;
    QHash<QUrl, QList<Details>> folders; // normalized folder URL -> details of each want
};

Wanted &wanted()
{
    static Wanted w;
    return w;
}
} // namespace

ChangeNotifier::ChangeNotifier()
{
    qRegisterMetaType<Qvfs::Entry>();
    qRegisterMetaType<Qvfs::EntryList>();
    qRegisterMetaType<QList<QUrl>>();
}

ChangeNotifier *ChangeNotifier::instance()
{
    static ChangeNotifier *n = new ChangeNotifier; // lives as long as the process
    return n;
}

void ChangeNotifier::publishEntries(const QUrl &dir, const EntryList &entries)
{
    if (!entries.isEmpty())
        Q_EMIT entriesAdded(dir, entries);
}

void ChangeNotifier::publishChanged(const QList<QUrl> &urls)
{
    if (!urls.isEmpty())
        Q_EMIT changed(urls);
}

void ChangeNotifier::publishRemoved(const QList<QUrl> &urls)
{
    if (!urls.isEmpty())
        Q_EMIT removed(urls);
}

void ChangeNotifier::publishRenamed(const QUrl &from, const QUrl &to, const Entry &entry)
{
    Q_EMIT renamed(from, to, entry);
}

namespace Internal
{

void wantResultEntries(const QUrl &dir, Details details, bool on)
{
    Wanted &w = wanted();
    QMutexLocker lock(&w.mutex);
    const QUrl key = Url::normalized(dir);
    if (on) {
        w.folders[key].append(details);
        return;
    }
    auto it = w.folders.find(key);
    if (it == w.folders.end())
        return;
    it->removeOne(details);
    if (it->isEmpty())
        w.folders.erase(it);
}

namespace
{
/*! \a entry named as \a url's last segment (a worker's stat may name it otherwise). */
Entry named(const Entry &entry, const QUrl &url)
{
    Entry e = entry;
    const QByteArray name = Url::fileName(url);
    if (!e.isEmpty() && e.name() != QByteArrayView(name))
        e.setString(Name, name);
    return e;
}
} // namespace

void requestResultEntry(WireCommand &command)
{
    const QUrl url = resultEntryUrl(command);
    if (!url.isValid())
        return;
    Wanted &w = wanted();
    QMutexLocker lock(&w.mutex);
    if (w.folders.isEmpty())
        return;
    const auto it = w.folders.constFind(Url::normalized(Url::parent(url)));
    if (it == w.folders.constEnd())
        return;
    Details details;
    for (Details d : *it)
        details |= d;
    command.options.setNumber(Keys::ResultEntry, qint64(uint(details)));
}

void publishResult(const WireCommand &c, const Entry &entry)
{
    ChangeNotifier *n = ChangeNotifier::instance();
    using Cmd = Wire::Command;
    switch (c.command) {
    case Cmd::Mkdir:
    case Cmd::Put:
    case Cmd::Symlink:
    case Cmd::Chmod:
    case Cmd::SetModificationTime:
    case Cmd::CopyFromFile: {
        const QUrl url = resultEntryUrl(c);
        if (entry.isEmpty()) {
            n->publishChanged({ url });
        } else {
            EntryList l;
            l.append(named(entry, url));
            n->publishEntries(Url::parent(url), l);
        }
        return;
    }
    case Cmd::Rename:
        if (c.urls.size() >= 2)
            n->publishRenamed(c.urls.at(0), c.urls.at(1), entry.isEmpty() ? entry : named(entry, c.urls.at(1)));
        return;
    case Cmd::CopyToFile:
        if (c.urls.size() >= 2)
            n->publishChanged({ c.urls.at(1) });
        return;
    case Cmd::Delete:
        n->publishRemoved({ c.urls.value(0) });
        return;
    case Cmd::Copy: {
        // Inside one worker: the destination, and what the sources became in it when it
        // is a folder (the worker decided); a lister looks at each once.
        if (c.urls.size() < 2)
            return;
        const QList<QUrl> sources = c.urls.mid(0, c.urls.size() - 1);
        const QUrl dest = c.urls.last();
        QList<QUrl> changed { dest };
        for (const QUrl &s : sources)
            changed.append(Url::child(dest, Url::fileName(s)));
        n->publishChanged(changed);
        if (c.options.number(Keys::Move, 0))
            n->publishRemoved(sources);
        return;
    }
    default:
        return;
    }
}

} // namespace Internal

} // namespace Qvfs
