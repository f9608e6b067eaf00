// SPDX-License-Identifier: LGPL-2.1-or-later
// trash:/: the real trash worker, inside a trashed folder of a throwaway home trash
// ($XDG_DATA_HOME in /dev/shm, set before any worker starts), seeded with raw system
// calls behind it. What lies in the trash can be listed, described and read; it is not
// written, renamed or deleted piecemeal (entries go whole), so those rows are skipped.
#include "backend.h"

#include "fixturedir.h"
#include "localtree.h"
#include "rawfs.h"

#include <Qvfs/Url>

#include <unistd.h>

namespace
{

class TrashBackend : public QvfsConformance::Backend
{
public:
    QByteArray name() const override { return QByteArrayLiteral("trash"); }
    QString scheme() const override { return QStringLiteral("trash"); }
    Capabilities capabilities() const override { return List | Stat | Read | Seed | RawNames; }

    bool start(QByteArray *why) override
    {
        m_home = std::make_unique<QvfsTest::FixtureDir>(QByteArrayLiteral("/dev/shm"));
        if (!m_home->isValid()) {
            *why = m_home->errorString();
            return false;
        }
        m_trash = QvfsTest::join(m_home->path(), "Trash");
        qputenv("XDG_DATA_HOME", m_home->path());
        return QvfsTest::mkdirRaw(m_trash, 0700) && QvfsTest::mkdirRaw(m_trash + "/files", 0700)
            && QvfsTest::mkdirRaw(m_trash + "/info", 0700);
    }
    void stop() override
    {
        qunsetenv("XDG_DATA_HOME");
        m_home.reset();
    }

    bool beginRow(QByteArray *why) override
    {
        // A fresh trashed folder per row: trash:/0-rowN.
        m_entry = "row" + QByteArray::number(++m_rows);
        const QByteArray info = "[Trash Info]\nPath=/conformance/" + m_entry + "\nDeletionDate=2026-01-01T00:00:00\n";
        if (!QvfsTest::mkdirRaw(entryPath()) || !QvfsTest::writeRaw(infoPath(), info)) {
            *why = "cannot make the trashed folder";
            return false;
        }
        return true;
    }
    void endRow() override
    {
        QvfsTest::removeTreeRaw(entryPath());
        ::unlink(infoPath().constData());
    }

    bool seed(const QvfsConformance::Tree &tree, QByteArray *why) override
    {
        return QvfsConformance::seedLocal(entryPath(), tree, why);
    }

    QUrl url(QByteArrayView rel) const override
    {
        const QUrl entry = Qvfs::Url::child(QUrl(QStringLiteral("trash:/")), QByteArray("0-" + m_entry));
        return rel.isEmpty() ? entry : Qvfs::Url::child(entry, rel);
    }

private:
    QByteArray entryPath() const { return QvfsTest::join(m_trash, QByteArray("files/" + m_entry)); }
    QByteArray infoPath() const { return QvfsTest::join(m_trash, QByteArray("info/" + m_entry + ".trashinfo")); }

    std::unique_ptr<QvfsTest::FixtureDir> m_home;
    QByteArray m_trash;
    QByteArray m_entry;
    int m_rows = 0;
};

} // namespace

QVFS_CONFORMANCE_BACKEND(TrashBackend, "trash");
