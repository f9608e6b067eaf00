// SPDX-License-Identifier: LGPL-2.1-or-later
#include "jobfixture.h"
#include "procutil.h"
#include "rawfs.h"
#include "workerenv.h"

#include <QTest>

#include <unistd.h>

namespace QvfsTest
{

JobFixture::JobFixture()
    : m_isRoot(::geteuid() == 0)
{ }

JobFixture::~JobFixture() = default;

QByteArray JobFixture::path(QByteArrayView rel) const
{
    return join(root(), rel);
}

QUrl JobFixture::url(QByteArrayView rel) const
{
    return fileUrl(path(rel));
}

void JobFixture::init()
{
    m_dir = std::make_unique<FixtureDir>();
    QVERIFY2(m_dir->isValid(), m_dir->errorString().constData());
}

void JobFixture::cleanup()
{
    const bool settled = settleWorkers();
    const QList<qint64> left = ProcUtil::childPids();
    m_mount.reset();
    QList<QByteArray> temps;
    if (m_dir)
        findTemporaries(m_dir->path(), &temps);
    if (m_shm)
        findTemporaries(m_shm->path(), &temps);
    m_dir.reset();
    m_shm.reset();
    qunsetenv("QVFS_WORKER_PREFIX");
    QVERIFY2(settled,
        QByteArray("worker processes still running after the test: " + QByteArray::number(left.size())).constData());
    QVERIFY2(temps.isEmpty(), QByteArray("temporary files left behind: " + temps.join(", ")).constData());
}

QByteArray JobFixture::makeShm()
{
    m_shm = std::make_unique<FixtureDir>("/dev/shm");
    return m_shm->isValid() ? m_shm->path() : QByteArray();
}

bool JobFixture::mountTmpfs(const QByteArray &where)
{
    m_mount = std::make_unique<TmpfsMount>(where, "size=64m,mode=0755");
    return m_mount->mounted();
}

} // namespace QvfsTest
