// SPDX-License-Identifier: LGPL-2.1-or-later
// What a file manager's view needs beyond rows: drag and drop and the clipboard (URLs in
// and out, a drop as a copy or move job), item counts of folder rows (ChildCountRole),
// and expandToUrl().
#include "dirmodel_p.h"
#include "qvfsmodels_debug.h"

#include <Qvfs/CopyJob>
#include <Qvfs/ListJob>
#include <Qvfs/Url>
#include <Qvfs/UrlIdentity>

#include <QMimeData>

namespace Qvfs
{

using namespace Internal;

namespace
{
const QString QvfsUrlsFormat = QStringLiteral("application/x-qvfs-urls");
const QString UriListFormat = QStringLiteral("text/uri-list");
} // namespace

// ---------------------------------------------------------------- drag and drop, clipboard

QList<QUrl> DirModel::urlsFromMimeData(const QMimeData *data)
{
    if (!data)
        return {};
    if (!data->hasFormat(QvfsUrlsFormat))
        return data->urls();
    QList<QUrl> urls;
    for (const QByteArray &line : data->data(QvfsUrlsFormat).split('\n')) {
        const QUrl u = QUrl::fromEncoded(line, QUrl::StrictMode);
        if (!line.isEmpty() && u.isValid())
            urls.append(u);
    }
    return urls;
}

void DirModel::setUrlsOnMimeData(QMimeData *data, const QList<QUrl> &urls)
{
    // text/uri-list for everyone; the exact encoded bytes for Qvfs (a name that is not
    // UTF-8 stays percent-encoded bytes there, whatever a reader of the list decodes).
    data->setUrls(urls);
    QByteArray exact;
    for (const QUrl &u : urls)
        exact += u.toEncoded(QUrl::FullyEncoded) + '\n';
    data->setData(QvfsUrlsFormat, exact);
}

QStringList DirModel::mimeTypes() const
{
    return { QvfsUrlsFormat, UriListFormat };
}

QMimeData *DirModel::mimeData(const QModelIndexList &indexes) const
{
    QList<QUrl> urls;
    QSet<QUrl> seen;
    for (const QModelIndex &i : indexes) {
        if (!i.isValid() || i.model() != this)
            continue;
        const QUrl u = urlForIndex(i);
        if (u.isValid() && !seen.contains(u)) {
            seen.insert(u);
            urls.append(u);
        }
    }
    if (urls.isEmpty())
        return nullptr;
    auto *data = new QMimeData;
    setUrlsOnMimeData(data, urls);
    return data;
}

Qt::DropActions DirModel::supportedDropActions() const
{
    return Qt::CopyAction | Qt::MoveAction;
}

Qt::DropActions DirModel::supportedDragActions() const
{
    return Qt::CopyAction | Qt::MoveAction;
}

QUrl DirModelPrivate::dropFolder(int row, int column, const QModelIndex &parent) const
{
    if (!root)
        return {};
    if (!parent.isValid())
        return root->url; // between the rows, or on no row: the folder shown
    const Node *n = nodeOf(parent);
    if (!n || parent.row() >= n->rows.size() || !n->rows.at(parent.row()).isDir())
        return {}; // on a file (or between the rows "below" it, which has none)
    Q_UNUSED(row);
    Q_UNUSED(column);
    return Url::normalized(Url::child(n->url, n->rows.at(parent.row()).name())); // on a folder, or into its rows
}

bool DirModel::canDropMimeData(
    const QMimeData *data, Qt::DropAction action, int row, int column, const QModelIndex &parent) const
{
    if (!data || (action != Qt::CopyAction && action != Qt::MoveAction))
        return false;
    const QUrl dest = d->dropFolder(row, column, parent);
    const QList<QUrl> urls = urlsFromMimeData(data);
    if (!dest.isValid() || urls.isEmpty())
        return false;
    bool allThere = true;
    for (const QUrl &u : urls) {
        const QUrl src = Url::normalized(u);
        if (Url::isAncestorOrSame(src, dest))
            return false; // a folder into itself
        allThere = allThere && Url::normalized(Url::parent(src)) == dest;
    }
    return !(action == Qt::MoveAction && allThere); // moved where it is: nothing to do
}

bool DirModel::dropMimeData(
    const QMimeData *data, Qt::DropAction action, int row, int column, const QModelIndex &parent)
{
    if (!canDropMimeData(data, action, row, column, parent))
        return false;
    const QUrl dest = d->dropFolder(row, column, parent);
    const QList<QUrl> urls = urlsFromMimeData(data);
    CopyJob *job = action == Qt::MoveAction ? Qvfs::move(urls, dest) : Qvfs::copy(urls, dest);
    Q_EMIT jobStarted(job);
    return true; // the rows follow when the job changed the folders
}

// ---------------------------------------------------------------- item counts

int DirModelPrivate::childCount(const Node *n, const Entry &e) const
{
    const QByteArray name = e.name().toByteArray();
    if (const Node *c = n->children.value(name); c && c->complete && !c->pendingCount)
        return int(c->rows.size()); // expanded: its rows
    const auto it = n->counts.constFind(name);
    const bool fresh
        = it != n->counts.constEnd() && it->mtime == e.number(MTime, 0) && it->mtimeNs == e.number(MTimeNs, 0);
    if (!fresh && Url::isLocalFile(n->url) && (it == n->counts.constEnd() || !it->queued)) {
        // A local folder is cheap to count (a listing in its worker); asked for, it is,
        // later. (A remote one would cost a round trip per row: not counted.)
        Node::Count &c = n->counts[name];
        c.queued = true;
        c.mtime = e.number(MTime, 0);
        c.mtimeNs = e.number(MTimeNs, 0);
        countQueue.append({ n->url, name });
        if (!countTimer.isActive())
            countTimer.start(0);
    }
    const auto now = n->counts.constFind(name);
    return now == n->counts.constEnd() ? -1 : now->count; // (the count before, while counting again)
}

void DirModelPrivate::runCounts()
{
    while (countRunning < MaxCountJobs && !countQueue.isEmpty()) {
        const auto [url, name] = countQueue.takeFirst();
        if (!nodes.contains(url))
            continue;
        ListJob *job = Qvfs::listDir(Url::child(url, name), DetailBasic | DetailHiddenFile);
        ++countRunning;
        auto counted = std::make_shared<int>(0);
        QObject::connect(job, &ListJob::entries, q, [this, counted](ListJob *, const EntryList &list) {
            for (const Entry &e : list)
                *counted += lister->matches(e) ? 1 : 0;
        });
        QObject::connect(job, &Job::result, q, [this, job, url = url, name = name, counted] {
            --countRunning;
            Node *n = nodes.value(url);
            const auto it = n ? n->counts.find(name) : QHash<QByteArray, Node::Count>::iterator();
            if (n && it != n->counts.end()) {
                it->queued = false;
                const int before = it->count;
                it->count = job->error() ? -1 : *counted;
                const Entry e = lister->find(n->url, name);
                const int r = e.isEmpty() ? -1 : findRow(n, e);
                if (r >= 0 && it->count != before) {
                    const QModelIndex parent = indexOfNode(n);
                    Q_EMIT q->dataChanged(q->index(r, 0, parent), q->index(r, DirModel::ColumnCount - 1, parent),
                        { DirModel::ChildCountRole });
                }
            }
            runCounts();
        });
    }
}

// ---------------------------------------------------------------- expandToUrl

void DirModel::expandToUrl(const QUrl &url)
{
    if (!d->tree || !d->root)
        return;
    const QUrl target = Url::normalized(url);
    if (target == d->root->url || !Url::isAncestorOrSame(d->root->url, target))
        return;
    DirModelPrivate::ExpandWalk walk;
    for (QUrl u = target; u != d->root->url;) {
        walk.chain.prepend(u);
        const QUrl up = Url::normalized(Url::parent(u));
        if (up == u)
            return; // (not below the root after all)
        u = up;
    }
    d->expandWalks.append(walk);
    d->continueExpand();
}

void DirModelPrivate::continueExpand()
{
    // (A slot may ask for more walks meanwhile: they come after these.)
    const QList<ExpandWalk> walks = std::exchange(expandWalks, {});
    QList<ExpandWalk> going;
    for (ExpandWalk walk : walks) {
        bool over = false;
        while (!over) {
            if (walk.said >= walk.chain.size()) {
                over = true; // there
                break;
            }
            const QUrl &u = walk.chain.at(walk.said);
            const Node *n = nodes.value(Url::normalized(Url::parent(u)));
            const QModelIndex index = q->indexForUrl(u);
            if (!index.isValid()) {
                // Not there (yet): over once its folder is listed and every entry merged.
                over = !n || (n->complete && !n->pendingCount);
                break;
            }
            if (!index.data(DirModel::IsDirRole).toBool()) {
                over = true; // a file: its folders are open
                break;
            }
            ++walk.said;
            Q_EMIT q->expand(index);
            if (walk.said < walk.chain.size() && q->canFetchMore(index))
                q->fetchMore(index);
            if (walk.said < walk.chain.size() && !nodes.contains(u))
                break; // (closed from a slot)
        }
        if (!over)
            going.append(walk);
    }
    expandWalks = going + expandWalks;
}

} // namespace Qvfs
