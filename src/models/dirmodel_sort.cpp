// SPDX-License-Identifier: LGPL-2.1-or-later
// DirModel's re-sorting: in place for small folders, in a pool thread for large ones
// (the model's thread only reorders).
#include "dirmodel_p.h"
#include "qvfsmodels_debug.h"

#include <QPointer>
#include <QRunnable>
#include <QThreadPool>

#include <algorithm>

namespace Qvfs
{

using namespace Internal;

// ---------------------------------------------------------------- sorting

namespace
{
class SortTask : public QRunnable
{
public:
    SortTask(DirModel *model, std::function<void(quint64, quint64, SortSpec, std::vector<quint32>)> done, quint64 id,
        quint64 generation, QList<Entry> rows, SortSpec spec, QHash<QByteArray, QString> sniffed)
        : m_model(model)
        , m_done(std::move(done))
        , m_id(id)
        , m_generation(generation)
        , m_rows(std::move(rows))
        , m_spec(spec)
        , m_sniffed(std::move(sniffed))
    { }

    void run() override
    {
        // A snapshot of the rows: the batches they point into stay alive with it.
        TypeComments types;
        std::vector<std::pair<Key, quint32>> keys;
        keys.reserve(size_t(m_rows.size()));
        for (qsizetype i = 0; i < m_rows.size(); ++i) {
            const Entry &e = m_rows.at(i);
            keys.emplace_back(m_sniffed.isEmpty() ? keyOf(e, m_spec, types)
                                                  : keyOf(e, m_spec, types, m_sniffed.value(e.name().toByteArray())),
                quint32(i));
        }
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
    QHash<QByteArray, QString> m_sniffed; // sorting by type: what content sniffing found, by name
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
                keys.emplace_back(key(n, e, s), std::move(e));
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
    QHash<QByteArray, QString> sniffed;
    if (spec.column == DirModel::TypeColumn) {
        for (auto it = n->sniffs.cbegin(); it != n->sniffs.cend(); ++it) {
            if (!it->mime.isEmpty())
                sniffed.insert(it.key(), it->mime);
        }
    }
    QPointer<DirModel> model(q);
    QThreadPool::globalInstance()->start(new SortTask(
        q,
        [this, model](quint64 id, quint64 gen, SortSpec s, const std::vector<quint32> &order) {
            if (model)
                applySort(id, gen, s, order);
        },
        n->id, n->generation, n->rows, spec, sniffed));
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

} // namespace Qvfs
