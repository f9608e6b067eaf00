// SPDX-License-Identifier: LGPL-2.1-or-later
// file://: the real file worker on a scratch folder in /dev/shm (fast, and big files for
// the kill rows cost no disk), seeded with raw system calls.
#include "backend.h"

#include "fixturedir.h"
#include "rawfs.h"

#include <fcntl.h>
#include <unistd.h>

namespace
{

class FileBackend : public QvfsConformance::Backend
{
public:
    QByteArray name() const override { return QByteArrayLiteral("file"); }
    QString scheme() const override { return QStringLiteral("file"); }
    Capabilities capabilities() const override
    {
        return List | Stat | Read | Write | Mkdir | Delete | Rename | Seed | RawNames;
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
        for (const QvfsConformance::Item &item : tree) {
            const QByteArray p = QvfsTest::join(m_dir->path(), item.path);
            bool ok = false;
            if (item.kind == QvfsConformance::Item::Dir)
                ok = QvfsTest::mkdirRaw(p);
            else if (item.fill)
                ok = writeFilled(p, item.fill, item.fillSize);
            else
                ok = QvfsTest::writeRaw(p, item.content);
            if (!ok) {
                *why = QByteArray("cannot make " + p);
                return false;
            }
        }
        return true;
    }

    QUrl url(QByteArrayView rel) const override
    {
        return QvfsTest::fileUrl(rel.isEmpty() ? m_dir->path() : QvfsTest::join(m_dir->path(), rel));
    }

private:
    static bool writeFilled(const QByteArray &path, char fill, qint64 size)
    {
        const int fd = ::open(path.constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0)
            return false;
        const QByteArray chunk(1024 * 1024, fill);
        bool ok = true;
        for (qint64 done = 0; ok && done < size; done += chunk.size()) {
            const size_t n = size_t(qMin<qint64>(chunk.size(), size - done));
            ok = ::write(fd, chunk.constData(), n) == ssize_t(n);
        }
        return ::close(fd) == 0 && ok;
    }

    std::unique_ptr<QvfsTest::FixtureDir> m_dir;
};

} // namespace

QVFS_CONFORMANCE_BACKEND(FileBackend, "file");
