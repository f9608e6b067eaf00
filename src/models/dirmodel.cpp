// SPDX-License-Identifier: LGPL-2.1-or-later
#include "dirmodel.h"

#include "dirmodel_p.h"
#include "qvfsmodels_debug.h"

#include <Qvfs/DirLister>
#include <Qvfs/Job>
#include <Qvfs/MimeTypes>
#include <Qvfs/SimpleJob>
#include <Qvfs/Url>
#include <Qvfs/UrlIdentity>

#include <QCoreApplication>
#include <QDateTime>
#include <QLocale>
#include <QMimeDatabase>
#include <QTimer>

namespace Qvfs
{

using namespace Internal;

// ---------------------------------------------------------------- DirModel

DirModel::DirModel(QObject *parent)
    : QAbstractItemModel(parent)
    , d(new DirModelPrivate(this))
{
    qRegisterMetaType<Qvfs::Job *>(); // jobStarted(), queued or spied
    d->clock.start();
    d->processTimer.setSingleShot(true);
    connect(&d->processTimer, &QTimer::timeout, this, [this] { d->process(); });
    d->sniffTimer.setSingleShot(true);
    connect(&d->sniffTimer, &QTimer::timeout, this, [this] { d->runSniffs(); });
    d->countTimer.setSingleShot(true);
    connect(&d->countTimer, &QTimer::timeout, this, [this] { d->runCounts(); });
    DirLister *l = d->lister;
    connect(l, &DirLister::entriesAdded, this, [this](const QUrl &u, const EntryList &e) { d->added(u, e); });
    connect(l, &DirLister::entriesRemoved, this, [this](const QUrl &u, const EntryList &e) { d->removed(u, e); });
    connect(l, &DirLister::entriesChanged, this,
        [this](const QUrl &u, const EntryList &b, const EntryList &a) { d->changed(u, b, a); });
    connect(l, &DirLister::entryRenamed, this,
        [this](const QUrl &u, const Entry &b, const Entry &a) { d->renamed(u, b, a); });
    connect(l, &DirLister::listingCompleted, this, [this](const QUrl &u) { d->completed(u); });
    connect(l, &DirLister::dirGone, this, [this](const QUrl &u) { d->gone(u); });
    connect(l, &DirLister::redirected, this, [this](const QUrl &f, const QUrl &t) { d->redirected(f, t); });
    connect(l, &DirLister::cleared, this, [this](const QUrl &u) { d->cleared(u); });
    connect(l, &DirLister::failed, this, &DirModel::failed);
}

DirModel::~DirModel()
{
    if (d->root)
        d->deleteTree(d->root, false);
    d->root = nullptr;
}

DirLister *DirModel::dirLister() const
{
    return d->lister;
}

void DirModel::setUrl(const QUrl &url)
{
    beginResetModel();
    if (d->root)
        d->deleteTree(d->root, true);
    d->root = nullptr;
    d->dirty.clear();
    d->processTimer.stop();
    const QUrl key = Url::normalized(url);
    if (key.isValid()) {
        d->root = d->newNode(nullptr, key);
        d->lister->open(key);
    }
    endResetModel();
}

QUrl DirModel::url() const
{
    return d->root ? d->root->url : QUrl();
}

void DirModel::setTreeMode(bool tree)
{
    d->tree = tree;
}

bool DirModel::treeMode() const
{
    return d->tree;
}

void DirModel::setFoldersFirst(bool first)
{
    if (first == d->spec.foldersFirst)
        return;
    d->spec.foldersFirst = first;
    const QList<Node *> all = d->nodes.values();
    for (Node *n : all)
        d->resort(n);
}

bool DirModel::foldersFirst() const
{
    return d->spec.foldersFirst;
}

int DirModel::sortColumn() const
{
    return d->spec.column;
}

Qt::SortOrder DirModel::sortOrder() const
{
    return d->spec.order;
}

void DirModel::sort(int column, Qt::SortOrder order)
{
    if (column < 0 || column >= ColumnCount)
        return;
    d->spec.column = column;
    d->spec.order = order;
    const QList<Node *> all = d->nodes.values();
    for (Node *n : all)
        d->resort(n);
}

QModelIndex DirModel::indexForUrl(const QUrl &url) const
{
    const QUrl key = Url::normalized(url);
    const Node *n = d->nodes.value(Url::normalized(Url::parent(key)));
    if (!n)
        return {};
    const QByteArray name = Url::fileName(key);
    // The lister knows its entry (O(1)); its values find the row.
    const Entry e = d->lister->find(n->url, name);
    if (e.isEmpty())
        return {};
    const int r = d->findRow(n, e);
    return r < 0 ? QModelIndex() : createIndex(r, 0, const_cast<Node *>(n));
}

QUrl DirModel::urlForIndex(const QModelIndex &index) const
{
    const Node *n = d->nodeOf(index);
    if (!index.isValid() || !n || index.row() >= n->rows.size())
        return d->root ? d->root->url : QUrl();
    return Url::child(n->url, n->rows.at(index.row()).name());
}

Entry DirModel::entryForIndex(const QModelIndex &index) const
{
    const Node *n = d->nodeOf(index);
    if (!index.isValid() || !n || index.row() >= n->rows.size())
        return {};
    return n->rows.at(index.row());
}

void DirModel::closeFolder(const QModelIndex &index)
{
    Node *c = d->childNode(index);
    if (!c || c == d->root)
        return;
    d->collapse(c);
}

bool DirModel::isLoaded(const QUrl &url) const
{
    const Node *n = url.isEmpty() ? d->root : d->nodes.value(Url::normalized(url));
    return n && n->complete && n->pendingCount == 0;
}

QModelIndex DirModel::index(int row, int column, const QModelIndex &parent) const
{
    if (column < 0 || column >= ColumnCount || row < 0)
        return {};
    Node *n = d->childNode(parent);
    if (!n || row >= n->rows.size())
        return {};
    return createIndex(row, column, n);
}

QModelIndex DirModel::parent(const QModelIndex &child) const
{
    if (!child.isValid())
        return {};
    const Node *n = d->nodeOf(child);
    return n ? d->indexOfNode(n) : QModelIndex();
}

QModelIndex DirModel::sibling(int row, int column, const QModelIndex &index) const
{
    const Node *n = d->nodeOf(index);
    if (!index.isValid() || !n || row < 0 || row >= n->rows.size() || column < 0 || column >= ColumnCount)
        return {};
    return createIndex(row, column, index.internalPointer());
}

int DirModel::rowCount(const QModelIndex &parent) const
{
    if (parent.column() > 0)
        return 0;
    const Node *n = d->childNode(parent);
    return n ? int(n->rows.size()) : 0;
}

int DirModel::columnCount(const QModelIndex &parent) const
{
    return parent.column() > 0 ? 0 : ColumnCount;
}

bool DirModel::hasChildren(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return d->root != nullptr;
    if (!d->tree || parent.column() > 0)
        return false;
    const Node *n = d->nodeOf(parent);
    if (!n || parent.row() >= n->rows.size() || !n->rows.at(parent.row()).isDir())
        return false;
    // A folder not listed yet may hold something: no look inside (no I/O here).
    const Node *c = d->childNode(parent);
    return !c || !c->complete || !c->rows.isEmpty() || c->pendingCount;
}

bool DirModel::canFetchMore(const QModelIndex &parent) const
{
    if (!parent.isValid() || !d->tree || parent.column() > 0)
        return false;
    const Node *n = d->nodeOf(parent);
    return n && parent.row() < n->rows.size() && n->rows.at(parent.row()).isDir() && !d->childNode(parent);
}

void DirModel::fetchMore(const QModelIndex &parent)
{
    if (!canFetchMore(parent))
        return;
    Node *n = d->nodeOf(parent);
    const Entry e = n->rows.at(parent.row());
    const QUrl url = Url::normalized(Url::child(n->url, e.name()));
    if (d->nodes.contains(url))
        return;
    Node *c = d->newNode(n, url);
    c->name = e.name().toByteArray();
    c->self = e;
    c->rowHint = parent.row();
    n->children.insert(c->name, c);
    d->lister->open(url, DirLister::Keep);
}

QVariant DirModel::data(const QModelIndex &index, int role) const
{
    QModelRoleData r(role);
    multiData(index, QModelRoleDataSpan(r));
    return r.data();
}

void DirModel::multiData(const QModelIndex &index, QModelRoleDataSpan roleDataSpan) const
{
    const Node *n = d->nodeOf(index);
    if (!index.isValid() || !n || index.row() >= n->rows.size()) {
        for (QModelRoleData &r : roleDataSpan)
            r.clearData();
        return;
    }
    const Entry &e = n->rows.at(index.row());
    for (QModelRoleData &r : roleDataSpan) {
        switch (r.role()) {
        case Qt::DisplayRole:
        case Qt::EditRole:
            switch (index.column()) {
            case NameColumn:
                r.setData(e.contains(DisplayName) && r.role() == Qt::DisplayRole
                        ? e.string(DisplayName)
                        : QString::fromUtf8(e.name().data(), e.name().size()));
                break;
            case SizeColumn:
                if (e.isDir() || !e.contains(Size))
                    r.clearData();
                else
                    r.setData(QLocale().formattedDataSize(e.size()));
                break;
            case ModifiedColumn:
                if (e.contains(MTime))
                    r.setData(QLocale().toString(QDateTime::fromSecsSinceEpoch(e.number(MTime)), QLocale::ShortFormat));
                else
                    r.clearData();
                break;
            case TypeColumn: {
                r.setData(typeComment(d->types, d->mimeName(n, e))); // what it sorts by, too
                break;
            }
            default:
                r.clearData();
            }
            break;
        case Qt::TextAlignmentRole:
            if (index.column() == SizeColumn)
                r.setData(QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter)));
            else
                r.clearData();
            break;
        case EntryRole:
            r.setData(QVariant::fromValue(e));
            break;
        case UrlRole:
            r.setData(Url::child(n->url, e.name()));
            break;
        case NameBytesRole:
            r.setData(e.name().toByteArray());
            break;
        case IsDirRole:
            r.setData(e.isDir());
            break;
        case MimeTypeRole:
            r.setData(d->mimeName(n, e));
            break;
        case IconNameRole: {
            if (e.isDir()) {
                r.setData(QStringLiteral("folder"));
                break;
            }
            static thread_local QMimeDatabase db;
            r.setData(db.mimeTypeForName(d->mimeName(n, e)).iconName());
            break;
        }
        case SizeRole:
            r.setData(e.isDir() ? qint64(-1) : e.size());
            break;
        case ModifiedRole:
            if (e.contains(MTime))
                r.setData(QDateTime::fromMSecsSinceEpoch(e.number(MTime) * 1000 + e.number(MTimeNs, 0) / 1000000));
            else
                r.clearData();
            break;
        case ChildCountRole:
            if (e.isDir())
                r.setData(d->childCount(n, e));
            else
                r.clearData();
            break;
        default:
            r.clearData();
        }
    }
}

bool DirModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    // Renaming: a job does it; the row changes when the change arrives.
    if (role != Qt::EditRole || index.column() != NameColumn)
        return false;
    const Node *n = d->nodeOf(index);
    if (!index.isValid() || !n || index.row() >= n->rows.size())
        return false;
    const QByteArray name = value.typeId() == QMetaType::QByteArray ? value.toByteArray() : value.toString().toUtf8();
    const QByteArrayView old = n->rows.at(index.row()).name();
    if (name == old || !Url::isSafeName(name))
        return false;
    Q_EMIT jobStarted(Qvfs::rename(Url::child(n->url, old), Url::child(n->url, name)));
    return true;
}

QVariant DirModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractItemModel::headerData(section, orientation, role);
    switch (section) {
    case NameColumn:
        return QCoreApplication::translate("Qvfs", "Name");
    case SizeColumn:
        return QCoreApplication::translate("Qvfs", "Size");
    case ModifiedColumn:
        return QCoreApplication::translate("Qvfs", "Modified");
    case TypeColumn:
        return QCoreApplication::translate("Qvfs", "Type");
    default:
        return {};
    }
}

Qt::ItemFlags DirModel::flags(const QModelIndex &index) const
{
    if (!index.isValid())
        return d->root ? Qt::ItemIsDropEnabled : Qt::NoItemFlags; // into the folder shown
    Qt::ItemFlags f = Qt::ItemIsSelectable | Qt::ItemIsEnabled | Qt::ItemIsDragEnabled;
    if (index.column() == NameColumn)
        f |= Qt::ItemIsEditable;
    const Node *n = d->nodeOf(index);
    const bool dir = n && index.row() < n->rows.size() && n->rows.at(index.row()).isDir();
    if (dir)
        f |= Qt::ItemIsDropEnabled;
    if (!d->tree || index.column() > 0 || !dir)
        f |= Qt::ItemNeverHasChildren;
    return f;
}

QHash<int, QByteArray> DirModel::roleNames() const
{
    QHash<int, QByteArray> r = QAbstractItemModel::roleNames();
    r.insert(EntryRole, "entry");
    r.insert(UrlRole, "url");
    r.insert(NameBytesRole, "nameBytes");
    r.insert(IsDirRole, "isDir");
    r.insert(MimeTypeRole, "mimeType");
    r.insert(IconNameRole, "iconName");
    r.insert(SizeRole, "size");
    r.insert(ModifiedRole, "modified");
    r.insert(ChildCountRole, "childCount");
    return r;
}

} // namespace Qvfs
