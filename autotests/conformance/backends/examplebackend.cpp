// SPDX-License-Identifier: LGPL-2.1-or-later
// example://: the example worker of examples/worker, built outside the source tree
// against the installed package (autotests/installtest.sh builds it and runs these rows
// with QVFS_WORKER_PATH pointing at it). It serves the folder $QVFS_EXAMPLE_ROOT, which
// this backend makes once (the worker opens it at its first command) with one fresh
// subfolder per row, seeded with raw system calls.
#include "backend.h"

#include "fixturedir.h"
#include "localtree.h"
#include "protocol.h"
#include "rawfs.h"
#include "url.h"

namespace
{

class ExampleBackend : public QvfsConformance::Backend
{
public:
    QByteArray name() const override { return QByteArrayLiteral("example"); }
    QString scheme() const override { return QStringLiteral("example"); }
    Capabilities capabilities() const override
    {
        return List | Stat | Read | Write | Mkdir | Delete | Rename | Seed | RawNames;
    }

    bool start(QByteArray *why) override
    {
        if (!Qvfs::Protocol::find(scheme()).isValid()) {
            *why = "no example worker installed (autotests/installtest.sh builds one)";
            return false;
        }
        m_root = std::make_unique<QvfsTest::FixtureDir>();
        qputenv("QVFS_EXAMPLE_ROOT", m_root->path());
        *why = m_root->errorString();
        return m_root->isValid();
    }
    void stop() override { m_root.reset(); }

    bool beginRow(QByteArray *why) override
    {
        m_row = "row-" + QByteArray::number(++m_rows);
        if (!QvfsTest::mkdirRaw(QvfsTest::join(m_root->path(), m_row))) {
            *why = "cannot make the row's folder";
            return false;
        }
        return true;
    }
    void endRow() override { QvfsTest::removeTreeRaw(QvfsTest::join(m_root->path(), m_row)); }

    bool seed(const QvfsConformance::Tree &tree, QByteArray *why) override
    {
        return QvfsConformance::seedLocal(QvfsTest::join(m_root->path(), m_row), tree, why);
    }

    QUrl url(QByteArrayView rel) const override
    {
        const QUrl row = Qvfs::Url::child(QUrl(QStringLiteral("example:///")), m_row);
        return rel.isEmpty() ? row : Qvfs::Url::child(row, rel);
    }

private:
    std::unique_ptr<QvfsTest::FixtureDir> m_root;
    QByteArray m_row;
    int m_rows = 0;
};

} // namespace

QVFS_CONFORMANCE_BACKEND(ExampleBackend, "example");
