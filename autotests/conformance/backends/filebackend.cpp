// SPDX-License-Identifier: LGPL-2.1-or-later
// file://: the real file worker on a scratch folder in /dev/shm (fast, and big files for
// the kill rows cost no disk), seeded with raw system calls.
#include "backend.h"

#include "fixturedir.h"
#include "localtree.h"
#include "rawfs.h"

namespace
{

class FileBackend : public QvfsConformance::Backend
{
public:
    QByteArray name() const override { return QByteArrayLiteral("file"); }
    QString scheme() const override { return QStringLiteral("file"); }
    Capabilities capabilities() const override
    {
        return List | Stat | Read | Write | Mkdir | Delete | Rename | Seed | RawNames | Watch;
    }

    bool beginRow(QByteArray *why) override
    {
        m_dir = std::make_unique<QvfsTest::FixtureDir>(QByteArrayLiteral("/dev/shm"));
        if (!m_dir->isValid())
            m_dir = std::make_unique<QvfsTest::FixtureDir>();
        *why = m_dir->errorString();
        return m_dir->isValid();
    }
    void endRow() override { m_dir.reset(); }

    bool seed(const QvfsConformance::Tree &tree, QByteArray *why) override
    {
        return QvfsConformance::seedLocal(m_dir->path(), tree, why);
    }

    QUrl url(QByteArrayView rel) const override
    {
        return QvfsTest::fileUrl(rel.isEmpty() ? m_dir->path() : QvfsTest::join(m_dir->path(), rel));
    }

private:
    std::unique_ptr<QvfsTest::FixtureDir> m_dir;
};

} // namespace

QVFS_CONFORMANCE_BACKEND(FileBackend, "file");
