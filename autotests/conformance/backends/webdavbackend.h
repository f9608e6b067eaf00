// SPDX-License-Identifier: LGPL-2.1-or-later
// The webdav conformance backends (webdavbackend.cpp: nginx, webdavapachebackend.cpp:
// apache2), one class for both; see webdavbackend.cpp.
#ifndef QVFS_CONFORMANCE_WEBDAVBACKEND_H
#define QVFS_CONFORMANCE_WEBDAVBACKEND_H

#include "backend.h"

#include "fixturehelper.h"
#include "localtree.h"
#include "rawfs.h"

#include <Qvfs/Url>

#include <QSet>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

namespace QvfsConformanceWebDav
{

class WebDavBackend : public QvfsConformance::Backend
{
public:
    explicit WebDavBackend(bool apache = false)
        : m_apache(apache)
    { }

    QByteArray name() const override
    {
        return m_apache ? QByteArrayLiteral("webdavapache") : QByteArrayLiteral("webdav");
    }
    QString scheme() const override { return QStringLiteral("webdav"); }
    Capabilities capabilities() const override { return List | Stat | Read | Write | Mkdir | Delete | Rename | Seed; }

    Capabilities itemCapabilities(QByteArrayView rel) const override
    {
        if (m_incomplete.contains(rel.toByteArray()))
            return capabilities() & ~Capabilities(List);
        return capabilities();
    }

    bool start(QByteArray *why) override { return startHelper(why); }
    void stop() override { stopHelper(); }

    bool beginRow(QByteArray *why) override
    {
        m_row = "row" + QByteArray::number(++m_rows);
        if (!QvfsTest::mkdirRaw(rowPath())) {
            *why = "cannot make the row's folder " + rowPath();
            return false;
        }
        chownTree(rowPath());
        return true;
    }
    void endRow() override
    {
        QList<QByteArray> temporaries;
        QvfsTest::findTemporaries(rowPath(), &temporaries);
        QvfsTest::removeTreeRaw(rowPath());
        m_incomplete.clear();
        if (!temporaries.isEmpty())
            QTest::qFail(QByteArray("temporary files left on the server: " + temporaries.join(", ")).constData(),
                __FILE__, __LINE__);
    }

    bool seed(const QvfsConformance::Tree &tree, QByteArray *why) override
    {
        for (const QvfsConformance::Item &item : tree) {
            const qsizetype slash = item.path.lastIndexOf('/');
            if (m_apache || item.path.at(slash + 1) != '.')
                continue;
            // every folder above it lists (flat or recursively) without it
            for (qsizetype s = slash; s > 0; s = item.path.lastIndexOf('/', s - 1))
                m_incomplete.insert(item.path.left(s));
            m_incomplete.insert(QByteArray());
        }
        if (!QvfsConformance::seedLocal(rowPath(), tree, why))
            return false;
        chownTree(rowPath());
        return true;
    }

    QUrl url(QByteArrayView rel) const override
    {
        const QUrl row = QUrl::fromEncoded("webdav://127.0.0.1:" + QByteArray::number(m_port) + '/' + m_row);
        return rel.isEmpty() ? row : Qvfs::Url::child(row, rel);
    }

private:
    QByteArray rowPath() const { return m_root + '/' + m_row; }

    // Hands \a path and everything below to the server's user, when that is not us.
    void chownTree(const QByteArray &path) const
    {
        if (m_uid == ::getuid())
            return;
        struct stat st;
        if (::lstat(path.constData(), &st) != 0 || ::lchown(path.constData(), m_uid, m_gid) != 0
            || !S_ISDIR(st.st_mode))
            return;
        for (const QByteArray &name : QvfsTest::namesIn(path))
            chownTree(QvfsTest::join(path, name));
    }

    bool startHelper(QByteArray *why)
    {
        // "ok PORT HTTPSPORT OTHERPORT ROOT"
        const QList<QByteArray> f
            = m_helper.start("qvfs-test-httpd", { m_apache ? "apache" : "nginx" }, 4, "the web server", why);
        if (f.isEmpty())
            return false;
        m_port = f.at(0).toInt();
        m_root = f.at(3);
        struct stat st;
        if (::stat(m_root.constData(), &st) == 0) { // the fixture hands the served folder to the server's user
            m_uid = st.st_uid;
            m_gid = st.st_gid;
        }
        return true;
    }

    void stopHelper() { m_helper.stop(); }

    bool m_apache = false;
    uid_t m_uid = ::getuid();
    gid_t m_gid = ::getgid();
    QvfsTest::FixtureHelper m_helper;
    int m_port = 0;
    QByteArray m_root;
    QByteArray m_row;
    int m_rows = 0;
    QSet<QByteArray> m_incomplete; // seeded folders that dav-ext cannot list completely
};

class WebDavApacheBackend : public WebDavBackend
{
public:
    WebDavApacheBackend()
        : WebDavBackend(true)
    { }
};

} // namespace QvfsConformanceWebDav

#endif
