// SPDX-License-Identifier: LGPL-2.1-or-later
#include "dirmodel.h"
#include "naturalcompare.h"

#include "qvfsmodels_debug.h"

#include <Qvfs/DirLister>
#include <Qvfs/Error>
#include <Qvfs/MimeTypes>
#include <Qvfs/SimpleJob>
#include <Qvfs/StatJob>
#include <Qvfs/Url>
#include <Qvfs/UrlIdentity>

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QLocale>
#include <QMimeDatabase>
#include <QPointer>
#include <QRunnable>
#include <QSet>
#include <QThreadPool>
#include <QTimer>

#include <algorithm>
#include <unordered_map>
#include <vector>

namespace Qvfs
{

namespace
{
constexpr int SliceMs = 6; // one merge step keeps the thread this long at most
constexpr int LoadingIntervalMs = 100; // merges while a folder is listed, after its first rows
constexpr int MaxRuns = 16; // more separate ranges than this: one layoutChanged
constexpr qsizetype SyncSortRows = 20000; // larger folders are re-sorted in a pool thread
constexpr int MaxSniffJobs = 4;
constexpr qsizetype MaxChunk = 4096; // entries merged in one step at most (a step costs k log k + n)

struct SortSpec
{
    int column = DirModel::NameColumn;
    Qt::SortOrder order = Qt::AscendingOrder;
    bool foldersFirst = true;
    bool operator==(const SortSpec &o) const
    {
        return column == o.column && order == o.order && foldersFirst == o.foldersFirst;
    }
    bool operator!=(const SortSpec &o) const { return !(*this == o); }
};

/*! An entry's sort key, read out of its batch once. */
struct Key
{
    QByteArrayView name;
    qint64 a = 0;
    qint64 b = 0;
    const QString *type = nullptr;
    bool dir = false;
};

/*! Type comments by MIME name, at stable addresses (keys point at them). */
using TypeComments = std::unordered_map<QString, QString>;

// The Type column's rule (mimeTypeOf(): file type, the worker's field, the name), so the
// sort agrees with what the column shows; content sniffed later re-sorts nothing.
const QString &typeComment(TypeComments &cache, const Entry &e)
{
    const QString mime = mimeTypeOf(e);
    auto it = cache.find(mime);
    if (it == cache.end()) {
        static thread_local QMimeDatabase db;
        it = cache.emplace(mime, db.mimeTypeForName(mime).comment()).first;
    }
    return it->second;
}

Key keyOf(const Entry &e, const SortSpec &s, TypeComments &types)
{
    Key k;
    k.name = e.name();
    k.dir = e.isDir();
    switch (s.column) {
    case DirModel::SizeColumn:
        k.a = e.size();
        break;
    case DirModel::ModifiedColumn:
        k.a = e.number(MTime, 0);
        k.b = e.number(MTimeNs, 0);
        break;
    case DirModel::TypeColumn:
        k.type = &typeComment(types, e);
        break;
    default:
        break;
    }
    return k;
}

int compareKeys(const Key &x, const Key &y, const SortSpec &s)
{
    if (s.foldersFirst && x.dir != y.dir)
        return x.dir ? -1 : 1; // whatever the order
    int c = 0;
    switch (s.column) {
    case DirModel::SizeColumn:
        c = x.a < y.a ? -1 : x.a > y.a ? 1 : 0;
        break;
    case DirModel::ModifiedColumn:
        c = x.a < y.a ? -1 : x.a > y.a ? 1 : x.b < y.b ? -1 : x.b > y.b ? 1 : 0;
        break;
    case DirModel::TypeColumn:
        c = x.type->compare(*y.type, Qt::CaseInsensitive);
        break;
    default:
        break;
    }
    if (!c)
        c = naturalCompare(x.name, y.name); // 0 only for the same name: a total order
    return s.order == Qt::AscendingOrder ? c : -c;
}
} // namespace

/*! One folder shown: its rows in sorted order. */
struct Node
{
    Node *parent = nullptr;
    QUrl url; // normalized
    QByteArray name; // in the parent
    Entry self; // its row in the parent
    QList<Entry> rows; // sorted by spec
    QList<EntryList> pending; // arrived, not merged yet (whole batches; the first from pendingOffset)
    qsizetype pendingOffset = 0;
    qsizetype pendingCount = 0;
    QHash<QByteArray, Node *> children; // folders expanded (tree mode)
    QHash<QByteArray, QString> sniffed; // MIME types found by content
    SortSpec spec;
    quint64 id = 0;
    quint64 generation = 0; // bumped with every change of rows
    mutable int rowHint = 0;
    bool everMerged = false;
    bool complete = false;
    bool loadedSent = false;
    bool sorting = false; // a re-sort runs in the pool
};

class DirModelPrivate
{
public:
    explicit DirModelPrivate(DirModel *q)
        : q(q)
        , lister(new DirLister(q))
    { }

    DirModel *q;
    DirLister *lister;
    Node *root = nullptr;
    QHash<QUrl, Node *> nodes; // open folders by normalized URL
    QHash<quint64, Node *> nodeIds;
    quint64 nextId = 1;
    SortSpec spec;
    bool tree = false;
    mutable TypeComments types;
    QTimer processTimer;
    QSet<Node *> dirty; // nodes with pending entries
    qint64 lastProcessMs = -1000000;
    qsizetype chunk = 2048;
    QElapsedTimer clock;
    // content sniffing of MIME types, for rows a view asked about
    mutable QList<std::pair<QUrl, QByteArray>> sniffQueue;
    mutable QSet<QByteArray> sniffKnown; // url + '\0' + name queued or done
    mutable QTimer sniffTimer;
    int sniffRunning = 0;

    Key key(const Entry &e, const SortSpec &s) const { return keyOf(e, s, types); }
    int compare(const Entry &a, const Entry &b, const SortSpec &s) const
    {
        return compareKeys(key(a, s), key(b, s), s);
    }

    Node *newNode(Node *parent, const QUrl &url);
    void deleteTree(Node *n, bool closeLister);
    Node *nodeOf(const QModelIndex &index) const
    {
        return index.isValid() ? static_cast<Node *>(index.internalPointer()) : root;
    }
    /*! The node of the folder shown by the row \a index (tree mode), if expanded. */
    Node *childNode(const QModelIndex &index) const
    {
        if (!index.isValid())
            return root;
        const Node *n = nodeOf(index);
        if (!n || index.row() < 0 || index.row() >= n->rows.size())
            return nullptr;
        return n->children.value(n->rows.at(index.row()).name().toByteArray());
    }
    int rowOf(const Node *n) const;
    QModelIndex indexOfNode(const Node *n) const
    {
        return n == root || !n->parent ? QModelIndex() : q->createIndex(rowOf(n), 0, n->parent);
    }
    int findRow(const Node *n, const Entry &e) const;
    int lowerBound(const Node *n, const Key &k, int lo = 0) const;

    // from the lister
    void added(const QUrl &url, const EntryList &entries);
    void removed(const QUrl &url, const EntryList &entries);
    void changed(const QUrl &url, const EntryList &before, const EntryList &after);
    void renamed(const QUrl &url, const Entry &before, const Entry &after);
    void completed(const QUrl &url);
    void gone(const QUrl &url);
    void redirected(const QUrl &from, const QUrl &to);

    // merging
    void schedule();
    void process();
    void mergeSome(Node *n, qsizetype count);
    void flushPending(Node *n);
    void maybeLoaded(Node *n);
    void changeRows(Node *n, const QList<std::pair<Entry, Entry>> &pairs);
    void removeRows(Node *n, QList<int> rows);
    /*! A layout change of \a n's rows: \a mutate changes them; persistent indexes follow by name. */
    void relayout(Node *n, const std::function<void()> &mutate, const QHash<QByteArray, Entry> &renamedTo = {},
        const QSet<const Node *> &dropped = {});
    void resort(Node *n);
    void applySort(quint64 id, quint64 generation, const SortSpec &s, const std::vector<quint32> &order);

    QString mimeName(const Node *n, const Entry &e) const;
    void queueSniff(const Node *n, const Entry &e) const;
    void runSniffs();
};

// ---------------------------------------------------------------- nodes and rows

Node *DirModelPrivate::newNode(Node *parent, const QUrl &url)
{
    auto *n = new Node;
    n->parent = parent;
    n->url = url;
    n->spec = spec;
    n->id = nextId++;
    nodes.insert(url, n);
    nodeIds.insert(n->id, n);
    return n;
}

void DirModelPrivate::deleteTree(Node *n, bool closeLister)
{
    for (Node *c : std::as_const(n->children))
        deleteTree(c, closeLister);
    if (closeLister)
        lister->close(n->url);
    if (nodes.value(n->url) == n)
        nodes.remove(n->url);
    nodeIds.remove(n->id);
    dirty.remove(n);
    delete n;
}

int DirModelPrivate::lowerBound(const Node *n, const Key &k, int lo) const
{
    int hi = int(n->rows.size());
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (compareKeys(key(n->rows.at(mid), n->spec), k, n->spec) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int DirModelPrivate::findRow(const Node *n, const Entry &e) const
{
    const QByteArrayView name = e.name();
    const int r = lowerBound(n, key(e, n->spec));
    if (r < n->rows.size() && n->rows.at(r).name() == name)
        return r;
    // Not where its values say (should not happen): by name.
    for (int i = 0; i < n->rows.size(); ++i) {
        if (n->rows.at(i).name() == name)
            return i;
    }
    return -1;
}

int DirModelPrivate::rowOf(const Node *n) const
{
    const Node *p = n->parent;
    if (n->rowHint < p->rows.size() && p->rows.at(n->rowHint).name() == QByteArrayView(n->name))
        return n->rowHint;
    n->rowHint = qMax(0, findRow(p, n->self));
    return n->rowHint;
}

// ---------------------------------------------------------------- merging new entries

void DirModelPrivate::added(const QUrl &url, const EntryList &entries)
{
    Node *n = nodes.value(url);
    if (!n || entries.isEmpty())
        return;
    n->pending.append(entries);
    n->pendingCount += entries.size();
    dirty.insert(n);
    if (!n->everMerged) {
        // The first rows of a folder show at once.
        n->everMerged = true;
        mergeSome(n, qMin<qsizetype>(n->pendingCount, 4096));
        maybeLoaded(n);
    }
    if (n->pendingCount)
        schedule();
}

void DirModelPrivate::schedule()
{
    // While a folder is listed its batches are gathered (one merge each 100 ms); once
    // listed, a change shows at the next turn of the event loop.
    bool loading = false;
    for (const Node *n : std::as_const(dirty))
        loading = loading || !n->complete;
    const qint64 since = clock.elapsed() - lastProcessMs;
    const int delay = loading ? int(qMax<qint64>(0, LoadingIntervalMs - since)) : 0;
    if (!processTimer.isActive() || processTimer.remainingTime() > delay)
        processTimer.start(delay);
}

void DirModelPrivate::process()
{
    lastProcessMs = clock.elapsed();
    const qint64 deadline = lastProcessMs + SliceMs;
    const QList<Node *> work = dirty.values();
    for (Node *n : work) {
        if (!dirty.contains(n))
            continue; // dropped meanwhile
        while (n->pendingCount && clock.elapsed() < deadline) {
            QElapsedTimer t;
            t.start();
            mergeSome(n, qMin(chunk, n->pendingCount));
            // Slices near a few milliseconds whatever the machine.
            const qint64 took = t.elapsed();
            if (took < SliceMs / 2)
                chunk = qMin<qsizetype>(chunk * 2, MaxChunk);
            else if (took > SliceMs)
                chunk = qMax<qsizetype>(chunk / 2, 256);
        }
        maybeLoaded(n);
    }
    for (auto it = dirty.begin(); it != dirty.end();) {
        if ((*it)->pendingCount == 0)
            it = dirty.erase(it);
        else
            ++it;
    }
    if (!dirty.isEmpty())
        processTimer.start(0); // the rest in the next slice, after what else is waiting
}

void DirModelPrivate::flushPending(Node *n)
{
    while (n->pendingCount)
        mergeSome(n, n->pendingCount);
    dirty.remove(n);
}

void DirModelPrivate::mergeSome(Node *n, qsizetype count)
{
    // Take count entries, sort them, find where they go (a galloping search from the
    // last place: k log(n/k) comparisons), then insert them as ranges or in one layout change.
    std::vector<std::pair<Key, Entry>> add;
    add.reserve(size_t(count));
    while (qsizetype(add.size()) < count && !n->pending.isEmpty()) {
        const EntryList &b = n->pending.first();
        const qsizetype take = qMin<qsizetype>(b.size() - n->pendingOffset, count - qsizetype(add.size()));
        for (qsizetype i = 0; i < take; ++i) {
            const Entry e = b.at(n->pendingOffset + i);
            add.emplace_back(key(e, n->spec), e);
        }
        n->pendingOffset += take;
        if (n->pendingOffset >= b.size()) {
            n->pending.removeFirst();
            n->pendingOffset = 0;
        }
    }
    n->pendingCount -= qsizetype(add.size());
    if (add.empty())
        return;
    const SortSpec s = n->spec;
    std::sort(
        add.begin(), add.end(), [&s](const auto &x, const auto &y) { return compareKeys(x.first, y.first, s) < 0; });
    const int rows = int(n->rows.size());
    std::vector<int> pos(add.size());
    int lo = 0;
    for (size_t i = 0; i < add.size(); ++i) {
        const Key &k = add[i].first;
        int step = 1, hi = lo;
        while (hi < rows && compareKeys(key(n->rows.at(hi), s), k, s) < 0) {
            lo = hi + 1;
            hi = lo + step;
            step *= 2;
        }
        hi = qMin(hi, rows);
        while (lo < hi) {
            const int mid = lo + (hi - lo) / 2;
            if (compareKeys(key(n->rows.at(mid), s), k, s) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        pos[i] = lo;
    }
    int runs = 1;
    for (size_t i = 1; i < pos.size(); ++i)
        runs += pos[i] != pos[i - 1] ? 1 : 0;
    const QModelIndex parent = indexOfNode(n);
    ++n->generation;
    if (runs <= MaxRuns) {
        // Last range first: the positions of the earlier ones stay valid.
        size_t end = add.size();
        while (end > 0) {
            size_t begin = end - 1;
            while (begin > 0 && pos[begin - 1] == pos[end - 1])
                --begin;
            const int at = pos[begin];
            const int len = int(end - begin);
            q->beginInsertRows(parent, at, at + len - 1);
            n->rows.insert(at, len, Entry());
            for (int i = 0; i < len; ++i)
                n->rows[at + i] = std::move(add[begin + size_t(i)].second);
            q->endInsertRows();
            end = begin;
        }
        return;
    }
    relayout(n, [&] {
        QList<Entry> merged;
        merged.reserve(rows + qsizetype(add.size()));
        size_t j = 0;
        for (int r = 0; r <= rows; ++r) {
            while (j < add.size() && pos[j] == r)
                merged.append(std::move(add[j++].second));
            if (r < rows)
                merged.append(std::move(n->rows[r]));
        }
        n->rows = std::move(merged);
    });
}

void DirModelPrivate::relayout(Node *n, const std::function<void()> &mutate, const QHash<QByteArray, Entry> &renamedTo,
    const QSet<const Node *> &dropped)
{
    Q_EMIT q->layoutAboutToBeChanged();
    // The persistent indexes of this folder follow their entry by name; those below a
    // dropped folder are no more.
    const QModelIndexList persistent = q->persistentIndexList();
    QModelIndexList from, to;
    std::vector<std::pair<QModelIndex, Entry>> mine;
    for (const QModelIndex &p : persistent) {
        const Node *pn = static_cast<const Node *>(p.internalPointer());
        bool below = false;
        for (const Node *a = pn; a && !below; a = a->parent)
            below = dropped.contains(a);
        if (below) {
            from.append(p);
            to.append(QModelIndex());
        } else if (pn == n && p.row() < n->rows.size()) {
            mine.emplace_back(p, n->rows.at(p.row()));
        }
    }
    mutate();
    for (const auto &m : mine) {
        const QByteArray name = m.second.name().toByteArray();
        const Entry now = renamedTo.value(name, m.second);
        const int r = findRow(n, now);
        from.append(m.first);
        to.append(r < 0 ? QModelIndex() : q->createIndex(r, m.first.column(), n));
    }
    q->changePersistentIndexList(from, to);
    Q_EMIT q->layoutChanged();
}

void DirModelPrivate::maybeLoaded(Node *n)
{
    if (n->complete && n->pendingCount == 0 && !n->loadedSent) {
        n->loadedSent = true;
        Q_EMIT q->loaded(n->url);
    }
}

void DirModelPrivate::completed(const QUrl &url)
{
    Node *n = nodes.value(url);
    if (!n)
        return;
    n->complete = true;
    n->loadedSent = false;
    if (n->pendingCount)
        schedule(); // the rest is merged at once now
    maybeLoaded(n);
}

// ---------------------------------------------------------------- removals and changes

void DirModelPrivate::removed(const QUrl &url, const EntryList &entries)
{
    Node *n = nodes.value(url);
    if (!n)
        return;
    flushPending(n);
    QList<int> rows;
    rows.reserve(entries.size());
    for (const Entry &e : entries) {
        const int r = findRow(n, e);
        if (r >= 0)
            rows.append(r);
    }
    removeRows(n, rows);
    maybeLoaded(n);
}

void DirModelPrivate::removeRows(Node *n, QList<int> rows)
{
    if (rows.isEmpty())
        return;
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    QList<Node *> victims; // expanded folders among the rows
    QSet<const Node *> dropped;
    for (int r : std::as_const(rows)) {
        if (Node *c = n->children.take(n->rows.at(r).name().toByteArray())) {
            victims.append(c);
            dropped.insert(c);
        }
    }
    int runs = 1;
    for (qsizetype i = 1; i < rows.size(); ++i)
        runs += rows.at(i) != rows.at(i - 1) + 1 ? 1 : 0;
    ++n->generation;
    if (runs <= MaxRuns) {
        const QModelIndex parent = indexOfNode(n);
        qsizetype end = rows.size();
        while (end > 0) {
            qsizetype begin = end - 1;
            while (begin > 0 && rows.at(begin - 1) == rows.at(begin) - 1)
                --begin;
            const int first = rows.at(begin), last = rows.at(end - 1);
            // Still reachable while Qt looks for persistent indexes below the rows.
            for (Node *c : std::as_const(victims))
                n->children.insert(c->name, c);
            q->beginRemoveRows(parent, first, last);
            for (Node *c : std::as_const(victims))
                n->children.remove(c->name);
            n->rows.remove(first, last - first + 1);
            q->endRemoveRows();
            end = begin;
        }
    } else {
        relayout(
            n,
            [&] {
                QList<Entry> kept;
                kept.reserve(n->rows.size() - rows.size());
                qsizetype j = 0;
                for (int r = 0; r < n->rows.size(); ++r) {
                    if (j < rows.size() && rows.at(j) == r) {
                        ++j;
                        continue;
                    }
                    kept.append(std::move(n->rows[r]));
                }
                n->rows = std::move(kept);
            },
            {}, dropped);
    }
    for (Node *c : std::as_const(victims))
        deleteTree(c, true);
}

void DirModelPrivate::changed(const QUrl &url, const EntryList &before, const EntryList &after)
{
    Node *n = nodes.value(url);
    if (!n)
        return;
    QList<std::pair<Entry, Entry>> pairs;
    pairs.reserve(after.size());
    auto b = before.begin();
    for (auto a = after.begin(); a != after.end() && b != before.end(); ++a, ++b)
        pairs.append({ *b, *a });
    changeRows(n, pairs);
}

void DirModelPrivate::renamed(const QUrl &url, const Entry &before, const Entry &after)
{
    Node *n = nodes.value(url);
    if (!n)
        return;
    changeRows(n, { { before, after } });
}

void DirModelPrivate::changeRows(Node *n, const QList<std::pair<Entry, Entry>> &pairs)
{
    flushPending(n);
    const SortSpec &s = n->spec;
    int minRow = INT_MAX, maxRow = -1;
    QList<std::pair<Entry, Entry>> moving;
    for (const auto &p : pairs) {
        const int r = findRow(n, p.first);
        if (r < 0)
            continue;
        const Entry &a = p.second;
        const QByteArray oldName = p.first.name().toByteArray();
        if (Node *c = n->children.value(oldName)) {
            // An expanded folder renamed or changed: its node follows its row.
            c->self = a;
            if (a.name() != QByteArrayView(oldName)) {
                n->children.remove(oldName);
                c->name = a.name().toByteArray();
                n->children.insert(c->name, c);
            }
        }
        const Key k = key(a, s);
        const bool inPlace = (r == 0 || compareKeys(key(n->rows.at(r - 1), s), k, s) < 0)
            && (r + 1 >= n->rows.size() || compareKeys(k, key(n->rows.at(r + 1), s), s) < 0);
        if (inPlace) {
            n->rows[r] = a;
            minRow = qMin(minRow, r);
            maxRow = qMax(maxRow, r);
        } else {
            moving.append(p);
        }
    }
    ++n->generation;
    if (maxRow >= 0) {
        const QModelIndex parent = indexOfNode(n);
        Q_EMIT q->dataChanged(q->index(minRow, 0, parent), q->index(maxRow, DirModel::ColumnCount - 1, parent));
    }
    if (moving.isEmpty())
        return;
    if (moving.size() <= MaxRuns) {
        // Each to its new place: the row (and its selection) moves with it.
        const QModelIndex parent = indexOfNode(n);
        for (const auto &p : std::as_const(moving)) {
            const int r = findRow(n, p.first);
            if (r < 0)
                continue;
            const int t = lowerBound(n, key(p.second, s)); // counting the old row itself
            const int dest = t; // before the row now at t (original numbering)
            const int finalRow = t > r ? t - 1 : t;
            if (dest == r || dest == r + 1) {
                n->rows[r] = p.second;
                Q_EMIT q->dataChanged(q->index(r, 0, parent), q->index(r, DirModel::ColumnCount - 1, parent));
                continue;
            }
            q->beginMoveRows(parent, r, r, parent, dest);
            n->rows.removeAt(r);
            n->rows.insert(finalRow, p.second);
            q->endMoveRows();
        }
        return;
    }
    QHash<QByteArray, Entry> renamedTo;
    for (const auto &p : std::as_const(moving))
        renamedTo.insert(p.first.name().toByteArray(), p.second);
    relayout(
        n,
        [&] {
            // Out of their places, then merged back in order.
            QSet<QByteArray> names;
            for (const auto &p : std::as_const(moving))
                names.insert(p.first.name().toByteArray());
            QList<Entry> kept;
            kept.reserve(n->rows.size());
            for (Entry &e : n->rows) {
                if (!names.contains(e.name().toByteArray()))
                    kept.append(std::move(e));
            }
            std::vector<std::pair<Key, Entry>> add;
            for (const auto &p : std::as_const(moving))
                add.emplace_back(key(p.second, s), p.second);
            std::sort(add.begin(), add.end(),
                [&s](const auto &x, const auto &y) { return compareKeys(x.first, y.first, s) < 0; });
            QList<Entry> merged;
            merged.reserve(kept.size() + qsizetype(add.size()));
            size_t j = 0;
            for (Entry &e : kept) {
                const Key k = key(e, s);
                while (j < add.size() && compareKeys(add[j].first, k, s) < 0)
                    merged.append(add[j++].second);
                merged.append(std::move(e));
            }
            while (j < add.size())
                merged.append(add[j++].second);
            n->rows = std::move(merged);
        },
        renamedTo);
}

// ---------------------------------------------------------------- folder events

void DirModelPrivate::gone(const QUrl &url)
{
    Node *n = nodes.value(url);
    if (!n)
        return;
    // Its rows went with the lister's removals; a sub-folder's row goes with its parent's.
    Q_EMIT q->folderGone(url);
}

void DirModelPrivate::redirected(const QUrl &from, const QUrl &to)
{
    Node *n = nodes.take(from);
    if (!n)
        return;
    n->url = to;
    nodes.insert(to, n);
    if (n == root)
        Q_EMIT q->urlChanged(to);
}

// ---------------------------------------------------------------- sorting

namespace
{
class SortTask : public QRunnable
{
public:
    SortTask(DirModel *model, std::function<void(quint64, quint64, SortSpec, std::vector<quint32>)> done, quint64 id,
        quint64 generation, QList<Entry> rows, SortSpec spec)
        : m_model(model)
        , m_done(std::move(done))
        , m_id(id)
        , m_generation(generation)
        , m_rows(std::move(rows))
        , m_spec(spec)
    { }

    void run() override
    {
        // A snapshot of the rows: the batches they point into stay alive with it.
        TypeComments types;
        std::vector<std::pair<Key, quint32>> keys;
        keys.reserve(size_t(m_rows.size()));
        for (qsizetype i = 0; i < m_rows.size(); ++i)
            keys.emplace_back(keyOf(m_rows.at(i), m_spec, types), quint32(i));
        const SortSpec s = m_spec;
        std::sort(keys.begin(), keys.end(),
            [&s](const auto &x, const auto &y) { return compareKeys(x.first, y.first, s) < 0; });
        std::vector<quint32> order;
        order.reserve(keys.size());
        for (const auto &k : keys)
            order.push_back(k.second);
        QMetaObject::invokeMethod(
            m_model,
            [done = m_done, id = m_id, gen = m_generation, spec = m_spec, order = std::move(order)] {
                done(id, gen, spec, order);
            },
            Qt::QueuedConnection);
    }

private:
    QPointer<DirModel> m_model;
    std::function<void(quint64, quint64, SortSpec, std::vector<quint32>)> m_done;
    quint64 m_id;
    quint64 m_generation;
    QList<Entry> m_rows;
    SortSpec m_spec;
};
} // namespace

void DirModelPrivate::resort(Node *n)
{
    if (n->spec == spec && !n->sorting)
        return;
    flushPending(n);
    if (n->rows.size() <= SyncSortRows) {
        const SortSpec s = spec;
        relayout(n, [&] {
            std::vector<std::pair<Key, Entry>> keys;
            keys.reserve(size_t(n->rows.size()));
            for (Entry &e : n->rows)
                keys.emplace_back(key(e, s), std::move(e));
            std::sort(keys.begin(), keys.end(),
                [&s](const auto &x, const auto &y) { return compareKeys(x.first, y.first, s) < 0; });
            for (size_t i = 0; i < keys.size(); ++i)
                n->rows[qsizetype(i)] = std::move(keys[i].second);
            n->spec = s;
            ++n->generation;
        });
        return;
    }
    // A large folder is sorted in a pool thread; the thread of the model only reorders.
    n->sorting = true;
    QPointer<DirModel> model(q);
    QThreadPool::globalInstance()->start(new SortTask(
        q,
        [this, model](quint64 id, quint64 gen, SortSpec s, const std::vector<quint32> &order) {
            if (model)
                applySort(id, gen, s, order);
        },
        n->id, n->generation, n->rows, spec));
}

void DirModelPrivate::applySort(quint64 id, quint64 generation, const SortSpec &s, const std::vector<quint32> &order)
{
    Node *n = nodeIds.value(id);
    if (!n)
        return;
    n->sorting = false;
    if (n->generation != generation || s != spec || order.size() != size_t(n->rows.size())) {
        resort(n); // changed meanwhile: again
        return;
    }
    relayout(n, [&] {
        QList<Entry> sorted;
        sorted.reserve(n->rows.size());
        for (quint32 i : order)
            sorted.append(std::move(n->rows[i]));
        n->rows = std::move(sorted);
        n->spec = s;
        ++n->generation;
    });
}

// ---------------------------------------------------------------- MIME types

QString DirModelPrivate::mimeName(const Node *n, const Entry &e) const
{
    // mimeTypeOf()'s rule, with what content sniffing found before the name's guess.
    const QString byType = mimeTypeForFileType(e.type());
    if (!byType.isEmpty())
        return byType;
    if (e.contains(MimeType))
        return e.string(MimeType);
    const QString sniffed = n->sniffed.value(e.name().toByteArray());
    if (!sniffed.isEmpty())
        return sniffed;
    const QMimeType t = mimeTypeForFileName(e.name());
    if (t.isDefault())
        queueSniff(n, e); // the name says nothing: its worker looks inside, later
    return t.name();
}

void DirModelPrivate::queueSniff(const Node *n, const Entry &e) const
{
    const QByteArray key = n->url.toEncoded() + '\0' + e.name().toByteArray();
    if (sniffKnown.contains(key))
        return;
    sniffKnown.insert(key);
    sniffQueue.append({ n->url, e.name().toByteArray() });
    if (!sniffTimer.isActive())
        sniffTimer.start(0);
}

void DirModelPrivate::runSniffs()
{
    while (sniffRunning < MaxSniffJobs && !sniffQueue.isEmpty()) {
        const auto [url, name] = sniffQueue.takeFirst();
        if (!nodes.contains(url))
            continue;
        StatJob *job = Qvfs::stat(Url::child(url, name), DetailBasic | DetailMimeType);
        ++sniffRunning;
        QObject::connect(job, &Job::result, q, [this, job, url = url, name = name] {
            --sniffRunning;
            Node *n = nodes.value(url);
            if (n && !job->error()) {
                const QString mime = job->statResult().string(MimeType);
                if (!mime.isEmpty()) {
                    n->sniffed.insert(name, mime);
                    for (int r = 0; r < n->rows.size(); ++r) {
                        if (n->rows.at(r).name() == QByteArrayView(name)) {
                            const QModelIndex i = q->index(r, DirModel::TypeColumn, indexOfNode(n));
                            Q_EMIT q->dataChanged(i.siblingAtColumn(0), i);
                            break;
                        }
                    }
                }
            }
            runSniffs();
        });
    }
}

// ---------------------------------------------------------------- DirModel

DirModel::DirModel(QObject *parent)
    : QAbstractItemModel(parent)
    , d(new DirModelPrivate(this))
{
    d->clock.start();
    d->processTimer.setSingleShot(true);
    connect(&d->processTimer, &QTimer::timeout, this, [this] { d->process(); });
    d->sniffTimer.setSingleShot(true);
    connect(&d->sniffTimer, &QTimer::timeout, this, [this] { d->runSniffs(); });
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
    if (!c->rows.isEmpty()) {
        beginRemoveRows(index.siblingAtColumn(0), 0, int(c->rows.size()) - 1);
        for (Node *g : std::as_const(c->children))
            d->deleteTree(g, true);
        c->children.clear();
        c->rows.clear();
        endRemoveRows();
    }
    Node *p = c->parent;
    p->children.remove(c->name);
    d->deleteTree(c, true);
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
                const QString mime = d->mimeName(n, e);
                auto it = d->types.find(mime);
                if (it == d->types.end())
                    it = d->types.emplace(mime, QMimeDatabase().mimeTypeForName(mime).comment()).first;
                r.setData(it->second);
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
    Qvfs::rename(Url::child(n->url, old), Url::child(n->url, name));
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
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsSelectable | Qt::ItemIsEnabled;
    if (index.column() == NameColumn)
        f |= Qt::ItemIsEditable;
    const Node *n = d->nodeOf(index);
    if (!d->tree || index.column() > 0 || !n || index.row() >= n->rows.size() || !n->rows.at(index.row()).isDir())
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
    return r;
}

} // namespace Qvfs
