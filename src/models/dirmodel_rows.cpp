// SPDX-License-Identifier: LGPL-2.1-or-later
// DirModel's rows: nodes, merging what the lister sends in slices, removals, changes
// and renames, folders gone or redirected.
#include "dirmodel_p.h"
#include "qvfsmodels_debug.h"

#include <Qvfs/Url>
#include <Qvfs/UrlIdentity>

#include <QCoreApplication>

#include <algorithm>
#include <numeric>

namespace Qvfs
{

using namespace Internal;

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

int DirModelPrivate::lowerBound(const Node *n, const Key &k, int lo, int hi) const
{
    if (hi < 0)
        hi = int(n->rows.size());
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (compareKeys(key(n, n->rows.at(mid), n->spec), k, n->spec) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int DirModelPrivate::findRow(const Node *n, const Entry &e) const
{
    const QByteArrayView name = e.name();
    const int r = lowerBound(n, key(n, e, n->spec));
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
        if (!expandWalks.isEmpty())
            continueExpand();
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
    if (!expandWalks.isEmpty())
        continueExpand();
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
            add.emplace_back(key(n, e, n->spec), e);
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
        while (hi < rows && compareKeys(key(n, n->rows.at(hi), s), k, s) < 0) {
            lo = hi + 1;
            hi = lo + step;
            step *= 2;
        }
        hi = qMin(hi, rows);
        while (lo < hi) {
            const int mid = lo + (hi - lo) / 2;
            if (compareKeys(key(n, n->rows.at(mid), s), k, s) < 0)
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
    if (!expandWalks.isEmpty())
        continueExpand(); // (a path that is not there ends its walk)
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
    QList<std::pair<Entry, Entry>> kept;
    QList<int> replacedRows;
    EntryList replacements;
    for (const auto &p : pairs) {
        // An expanded folder that is no folder any more (replaced by a file at once): its
        // row goes with what was below it, and the file comes as a row of its own.
        if (!p.second.isDir() && n->children.contains(p.first.name().toByteArray())) {
            const int r = findRow(n, p.first);
            if (r >= 0) {
                replacedRows.append(r);
                replacements.append(p.second);
                continue;
            }
        }
        kept.append(p);
    }
    if (!replacedRows.isEmpty()) {
        removeRows(n, replacedRows);
        n->pending.append(replacements);
        n->pendingCount += replacements.size();
        flushPending(n);
        if (kept.isEmpty())
            return;
    }
    changeMoreRows(n, kept);
}

void DirModelPrivate::changeMoreRows(Node *n, const QList<std::pair<Entry, Entry>> &pairs)
{
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
        const Key k = key(n, a, s);
        const bool inPlace = (r == 0 || compareKeys(key(n, n->rows.at(r - 1), s), k, s) < 0)
            && (r + 1 >= n->rows.size() || compareKeys(k, key(n, n->rows.at(r + 1), s), s) < 0);
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
            const int t = lowerBound(n, key(n, p.second, s)); // counting the old row itself
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
                add.emplace_back(key(n, p.second, s), p.second);
            std::sort(add.begin(), add.end(),
                [&s](const auto &x, const auto &y) { return compareKeys(x.first, y.first, s) < 0; });
            QList<Entry> merged;
            merged.reserve(kept.size() + qsizetype(add.size()));
            size_t j = 0;
            for (Entry &e : kept) {
                const Key k = key(n, e, s);
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
    if (n != root) {
        const int r = findRow(n->parent, n->self);
        if (r >= 0 && n->parent->rows.at(r).isDir()) {
            // Still a folder in its parent: replaced at once (rm -rf x && mkdir x), or its
            // parent did not say it yet. Listed again: what is there now shows (or it fails).
            n->complete = false;
            n->loadedSent = false;
            n->everMerged = false;
            lister->open(n->url, DirLister::Keep | DirLister::Reload);
        } else {
            collapse(n);
        }
    }
    Q_EMIT q->folderGone(url);
}

void DirModelPrivate::collapse(Node *c)
{
    Node *p = c->parent;
    if (!c->rows.isEmpty()) {
        // (Its folders stay reachable while Qt looks for persistent indexes below the rows.)
        q->beginRemoveRows(indexOfNode(c), 0, int(c->rows.size()) - 1);
        for (Node *g : std::as_const(c->children))
            deleteTree(g, true);
        c->children.clear();
        c->rows.clear();
        q->endRemoveRows();
    }
    p->children.remove(c->name);
    deleteTree(c, true);
}

void DirModelPrivate::cleared(const QUrl &url)
{
    Node *n = nodes.value(url);
    if (!n)
        return;
    if (!lister->isOpen(url)) {
        // Closed through the lister (open() without Keep): not kept true any more, so not shown.
        if (n != root) {
            collapse(n);
            return;
        }
        q->beginResetModel();
        deleteTree(root, true);
        root = nullptr;
        dirty.clear();
        processTimer.stop();
        q->endResetModel();
        return;
    }
    // Opened again: its entries come again.
    n->pending.clear();
    n->pendingOffset = 0;
    n->pendingCount = 0;
    dirty.remove(n);
    QList<int> all(n->rows.size());
    std::iota(all.begin(), all.end(), 0);
    removeRows(n, all);
    n->complete = false;
    n->loadedSent = false;
    n->everMerged = false;
}

void DirModelPrivate::moveRow(Node *n, int r)
{
    const SortSpec &s = n->spec;
    const int size = int(n->rows.size());
    const Key k = key(n, n->rows.at(r), s);
    int to = r; // where it ends
    if (r > 0 && compareKeys(k, key(n, n->rows.at(r - 1), s), s) < 0)
        to = lowerBound(n, k, 0, r);
    else if (r + 1 < size && compareKeys(key(n, n->rows.at(r + 1), s), k, s) < 0)
        to = lowerBound(n, k, r + 1, size) - 1;
    const QModelIndex parent = indexOfNode(n);
    if (to != r) {
        ++n->generation;
        q->beginMoveRows(parent, r, r, parent, to > r ? to + 1 : to);
        n->rows.move(r, to);
        q->endMoveRows();
    }
    Q_EMIT q->dataChanged(q->index(to, 0, parent), q->index(to, DirModel::ColumnCount - 1, parent));
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

} // namespace Qvfs
