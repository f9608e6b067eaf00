// SPDX-License-Identifier: LGPL-2.1-or-later
// The webdav conformance backends (webdavbackend.cpp: nginx, webdavapachebackend.cpp:
// apache2), one class for both; see webdavbackend.cpp.
#ifndef QVFS_CONFORMANCE_WEBDAVBACKEND_H
#define QVFS_CONFORMANCE_WEBDAVBACKEND_H

#include "backend.h"

#include "localtree.h"
#include "rawfs.h"

#include <Qvfs/Url>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QSet>
#include <QTest>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace QvfsConformanceWebDav
{

class WebDavBackend : public QvfsConformance::Backend
{
public:
    explicit WebDavBackend(bool apache = false)
        : m_apache(apache)
    { }
    ~WebDavBackend() override { stopHelper(); }

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
        const QByteArray program = QFile::encodeName(QCoreApplication::applicationDirPath()) + "/qvfs-test-httpd";
        if (::access(program.constData(), X_OK) != 0) {
            *why = program + " is not built";
            return false;
        }
        int in[2], out[2];
        if (::pipe2(in, O_CLOEXEC) != 0)
            return false;
        if (::pipe2(out, O_CLOEXEC) != 0) {
            ::close(in[0]);
            ::close(in[1]);
            return false;
        }
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, in[0], STDIN_FILENO);
        posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
        char server[16];
        qstrcpy(server, m_apache ? "apache" : "nginx");
        char *argv[] = { const_cast<char *>(program.constData()), server, nullptr };
        pid_t pid = -1;
        const int rc = posix_spawn(&pid, program.constData(), &fa, nullptr, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        ::close(in[0]);
        ::close(out[1]);
        m_toHelper = in[1];
        m_fromHelper = out[0];
        if (rc != 0) {
            *why = "cannot start " + program;
            stopHelper();
            return false;
        }
        int status = 0;
        ::waitpid(pid, &status, 0); // it forked: the server lives on in its child
        // "ok PORT HTTPSPORT OTHERPORT ROOT" or "error WHY"
        QByteArray line;
        QElapsedTimer t;
        t.start();
        while (!line.contains('\n') && t.elapsed() < 60000) {
            pollfd p { m_fromHelper, POLLIN, 0 };
            if (::poll(&p, 1, 1000) <= 0)
                continue;
            char buf[1024];
            const ssize_t n = ::read(m_fromHelper, buf, sizeof buf);
            if (n <= 0)
                break;
            line.append(buf, n);
        }
        line = line.left(line.indexOf('\n'));
        const QList<QByteArray> f = line.split(' ');
        if (f.size() != 5 || f.at(0) != "ok") {
            *why = line.isEmpty() ? QByteArray("the web server did not start") : line.mid(line.indexOf(' ') + 1);
            stopHelper();
            return false;
        }
        m_port = f.at(1).toInt();
        m_root = f.at(4);
        struct stat st;
        if (::stat(m_root.constData(), &st) == 0) { // the fixture hands the served folder to the server's user
            m_uid = st.st_uid;
            m_gid = st.st_gid;
        }
        return true;
    }

    void stopHelper()
    {
        if (m_toHelper >= 0) {
            ::close(m_toHelper); // the helper stops the server, then closes its output
            m_toHelper = -1;
        }
        if (m_fromHelper >= 0) {
            QElapsedTimer t;
            t.start();
            while (t.elapsed() < 15000) {
                pollfd p { m_fromHelper, POLLIN, 0 };
                if (::poll(&p, 1, 500) <= 0)
                    continue;
                char buf[256];
                if (::read(m_fromHelper, buf, sizeof buf) <= 0)
                    break;
            }
            ::close(m_fromHelper);
            m_fromHelper = -1;
        }
    }

    bool m_apache = false;
    uid_t m_uid = ::getuid();
    gid_t m_gid = ::getgid();
    int m_toHelper = -1;
    int m_fromHelper = -1;
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
