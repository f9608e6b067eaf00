// SPDX-License-Identifier: LGPL-2.1-or-later
// webdav://: the real http worker against Debian's nginx with the dav and dav-ext modules
// on 127.0.0.1 (testutil/httpserverfixture), run by the helper qvfs-test-httpd
// (testutil/httpdhelper.cpp) outside this process's children, since every row checks
// that no child process is left. Each row works in a fresh folder of the served tree,
// seeded with raw system calls behind the server. Names on WebDAV are UTF-8 (the
// worker's "names": "utf8"), so no RawNames.
//
// nginx's dav-ext module (3.0) leaves every name that starts with '.' out of its
// listings: a seeded folder holding such a name (or a tree with one below) cannot be
// listed completely, and the backend says so for that folder (itemCapabilities()).
// The same hides the temporaries of uploads (".NAME.qvfs-XXXX.part") from the suite's
// listing of the scratch area: endRow() looks for them on disk instead.
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
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace
{

class WebDavBackend : public QvfsConformance::Backend
{
public:
    ~WebDavBackend() override { stopHelper(); }

    QByteArray name() const override { return QByteArrayLiteral("webdav"); }
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
            if (item.path.at(slash + 1) != '.')
                continue;
            // every folder above it lists (flat or recursively) without it
            for (qsizetype s = slash; s > 0; s = item.path.lastIndexOf('/', s - 1))
                m_incomplete.insert(item.path.left(s));
            m_incomplete.insert(QByteArray());
        }
        return QvfsConformance::seedLocal(rowPath(), tree, why);
    }

    QUrl url(QByteArrayView rel) const override
    {
        const QUrl row = QUrl::fromEncoded("webdav://127.0.0.1:" + QByteArray::number(m_port) + '/' + m_row);
        return rel.isEmpty() ? row : Qvfs::Url::child(row, rel);
    }

private:
    QByteArray rowPath() const { return m_root + '/' + m_row; }

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
        char nginx[] = "nginx";
        char *argv[] = { const_cast<char *>(program.constData()), nginx, nullptr };
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

    int m_toHelper = -1;
    int m_fromHelper = -1;
    int m_port = 0;
    QByteArray m_root;
    QByteArray m_row;
    int m_rows = 0;
    QSet<QByteArray> m_incomplete; // seeded folders that dav-ext cannot list completely
};

} // namespace

QVFS_CONFORMANCE_BACKEND(WebDavBackend, "webdav");
