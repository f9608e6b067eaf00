// SPDX-License-Identifier: LGPL-2.1-or-later
// test://: qvfs-worker-test (src/workers/test) has no storage. It serves synthetic content
// by behaviour: "data?size=N" is a readable, stat-able file of N bytes 'x', "flood?n=N" a
// listable folder of N files "f<i>" of i bytes (which cannot be read or stat-ed), and any
// other path does not exist; "sink" swallows a put, which cannot be read back. So it has
// no scratch area and no Seed capability: seed() accepts only the trees that are one of
// those behaviours, and every other row is skipped by capability.
#include "backend.h"

#include <QMap>

namespace
{

using QvfsConformance::Item;

class TestBackend : public QvfsConformance::Backend
{
public:
    QByteArray name() const override { return QByteArrayLiteral("test"); }
    QString scheme() const override { return QStringLiteral("test"); }
    Capabilities capabilities() const override { return List | Stat | Read; }
    Capabilities itemCapabilities(QByteArrayView rel) const override
    {
        const auto it = m_seeded.constFind(rel.toByteArray());
        if (it == m_seeded.cend())
            return capabilities(); // a path that does not exist: every answer is "does not exist"
        return it->second;
    }

    bool beginRow(QByteArray *) override
    {
        m_seeded.clear();
        return true;
    }
    void endRow() override { m_seeded.clear(); }

    bool seed(const QvfsConformance::Tree &tree, QByteArray *why) override
    {
        QMap<QByteArray, QPair<QUrl, Capabilities>> seeded;
        for (qsizetype i = 0; i < tree.size(); ++i) {
            const Item &item = tree.at(i);
            const bool xs = item.fill ? item.fill == 'x' : item.content == QByteArray(item.content.size(), 'x');
            if (item.kind == Item::File && item.path == "data" && xs) {
                seeded.insert(item.path, { at("/data?size=" + QByteArray::number(item.size())), Stat | Read });
                continue;
            }
            if (item.kind == Item::Dir && !item.path.contains('/')) {
                // a flood: the folder's files f0..f<n-1> of 0..n-1 bytes follow it
                qsizetype n = 0;
                while (i + 1 + n < tree.size()) {
                    const Item &f = tree.at(i + 1 + n);
                    if (f.kind != Item::File || f.path != item.path + "/f" + QByteArray::number(n) || f.size() != n)
                        break;
                    ++n;
                }
                seeded.insert(item.path, { at("/flood?n=" + QByteArray::number(n)), List });
                i += n;
                continue;
            }
            *why = QByteArray("the test worker serves fixed synthetic content and cannot hold \"" + item.path + '"');
            return false;
        }
        m_seeded.insert(seeded);
        return true;
    }

    QUrl url(QByteArrayView rel) const override
    {
        const auto it = m_seeded.constFind(rel.toByteArray());
        if (it != m_seeded.cend())
            return it->first;
        // Behaviour "none": nothing exists there.
        return at("/none/" + rel.toByteArray());
    }

private:
    static QUrl at(const QByteArray &pathAndQuery) { return QUrl(QString::fromLatin1("test://" + pathAndQuery)); }

    QMap<QByteArray, QPair<QUrl, Capabilities>> m_seeded;
};

} // namespace

QVFS_CONFORMANCE_BACKEND(TestBackend, "test");
