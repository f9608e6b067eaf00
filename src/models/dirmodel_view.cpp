// SPDX-License-Identifier: LGPL-2.1-or-later
// What a file manager's view needs beyond rows: drag and drop and the clipboard (URLs in
// and out, a drop as a copy or move job).
#include "dirmodel_p.h"
#include "qvfsmodels_debug.h"

#include <Qvfs/CopyJob>
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

} // namespace Qvfs
