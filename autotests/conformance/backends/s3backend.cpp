// SPDX-License-Identifier: LGPL-2.1-or-later
// s3+http://: the real s3 worker against a real Ceph radosgw on 127.0.0.1
// (testutil/rgwfixture.cpp), run by the helper qvfs-test-rgw (testutil/rgwhelper.cpp)
// outside this process's children, since every row checks that no child process is left.
// Each row works under a fresh prefix "row-N/" of the bucket "conformance" (with its folder
// marker), seeded out of band through the worker's engine (S3::Client: one PUT per file, a
// marker per folder; a big filled file copied by the server from one uploaded once) and
// deleted by prefix at the row's end.
//
// The suite answers no password questions, so the keys travel in the URLs
// (s3+http://ACCESS:SECRET@127.0.0.1:PORT/conformance/row-N/...), which the worker uses
// before anything else (no AWS file is read then). Keys are UTF-8 here (the worker's
// "names": "utf8"), so no RawNames. Built only with the worker (conformance/CMakeLists.txt).
#include "backend.h"

#include "fixturehelper.h"

#include "httpclient_p.h"
#include "s3client_p.h"

#include <Qvfs/Job>
#include <Qvfs/Url>

#include <QSet>

#include <memory>

namespace
{

constexpr const char *Bucket = "conformance";
constexpr qint64 BigFill = 16 * 1024 * 1024; //!< filled files this big are copied by the server

class S3Backend : public QvfsConformance::Backend
{
public:
    QByteArray name() const override { return QByteArrayLiteral("s3"); }
    QString scheme() const override { return QStringLiteral("s3+http"); }
    Capabilities capabilities() const override
    {
        return List | Stat | Read | Write | Mkdir | Delete | Rename | Seed | NoServerRename;
    }

    bool start(QByteArray *why) override
    {
        // "ok PORT ACCESS SECRET"
        const QList<QByteArray> f = m_helper.start("qvfs-test-rgw", {}, 3, "the radosgw fixture", why);
        if (f.isEmpty())
            return false;
        m_port = f.at(0).toInt();
        m_access = f.at(1);
        m_secret = f.at(2);
        m_http = std::make_unique<Qvfs::Http::HttpClient>();
        m_s3 = std::make_unique<Qvfs::S3::Client>(m_http.get());
        m_s3->setKeys(Qvfs::S3::Keys { m_access, m_secret, {} });
        const Qvfs::S3::Result r = m_s3->createBucket(location({}));
        if (!r.ok()) {
            *why = "cannot make the bucket: error " + QByteArray::number(r.error);
            stop();
            return false;
        }
        return true;
    }

    void stop() override
    {
        Qvfs::shutdownIdleWorkers(); // their connections end before the server does
        m_s3.reset();
        m_http.reset();
        m_helper.stop();
    }

    bool beginRow(QByteArray *why) override
    {
        m_row = "row-" + QByteArray::number(++m_rows);
        return put(m_row + '/', {}, why);
    }
    void endRow() override
    {
        QList<QByteArray> keys;
        const Qvfs::S3::Location at = location({});
        if (m_s3->list(at, m_row + '/', false,
                    [&](const Qvfs::S3::ListEntry &e) {
                        keys.append(e.key);
                        return true;
                    })
                .ok()) {
            for (qsizetype i = 0; i < keys.size(); i += 1000)
                (void)m_s3->deleteObjects(at, keys.mid(i, 1000));
        }
    }

    bool seed(const QvfsConformance::Tree &tree, QByteArray *why) override
    {
        for (const QvfsConformance::Item &item : tree) {
            const QByteArray key = m_row + '/' + item.path;
            if (item.kind == QvfsConformance::Item::Dir) {
                if (!put(key + '/', {}, why))
                    return false;
            } else if (item.fill && item.fillSize >= BigFill) {
                if (!copyOfFilled(key, item, why))
                    return false;
            } else if (!put(key, item.fill ? QByteArray(item.fillSize, item.fill) : item.content, why)) {
                return false;
            }
        }
        return true;
    }

    QUrl url(QByteArrayView rel) const override
    {
        QUrl root;
        root.setScheme(QStringLiteral("s3+http"));
        root.setUserName(QString::fromLatin1(m_access));
        root.setPassword(QString::fromLatin1(m_secret));
        root.setHost(QStringLiteral("127.0.0.1"));
        root.setPort(m_port);
        root.setPath(QStringLiteral("/") + QLatin1String(Bucket) + QLatin1Char('/') + QString::fromUtf8(m_row));
        return rel.isEmpty() ? root : Qvfs::Url::child(root, rel);
    }

private:
    Qvfs::S3::Location location(const QByteArray &key) const
    {
        QUrl u;
        u.setScheme(QStringLiteral("s3+http"));
        u.setHost(QStringLiteral("127.0.0.1"));
        u.setPort(m_port);
        u.setPath(QStringLiteral("/") + QLatin1String(Bucket));
        Qvfs::S3::Location at;
        Qvfs::S3::Location::parse(u, &at);
        return at.withKey(key);
    }
    // A big filled file (the kill rows' 300 MiB) goes up once, under "cache/", and each row
    // gets a copy made by the server: seconds of upload per row saved.
    bool copyOfFilled(const QByteArray &key, const QvfsConformance::Item &item, QByteArray *why)
    {
        const QByteArray cached = "cache/" + QByteArray::number(item.fillSize) + '-' + QByteArray(1, item.fill);
        if (!m_cached.contains(cached)) {
            if (!put(cached, QByteArray(item.fillSize, item.fill), why))
                return false;
            m_cached.insert(cached);
        }
        const Qvfs::S3::Result r = m_s3->copyObject(location(cached), location(key));
        if (!r.ok())
            *why = "cannot seed " + key + " (a copy): error " + QByteArray::number(r.error);
        return r.ok();
    }
    bool put(const QByteArray &key, const QByteArray &data, QByteArray *why)
    {
        const Qvfs::S3::Result r = m_s3->put(location(key), data);
        if (!r.ok())
            *why = "cannot seed " + key + ": error " + QByteArray::number(r.error);
        return r.ok();
    }

    QvfsTest::FixtureHelper m_helper;
    std::unique_ptr<Qvfs::Http::HttpClient> m_http;
    std::unique_ptr<Qvfs::S3::Client> m_s3;
    int m_port = 0;
    QByteArray m_access;
    QByteArray m_secret;
    QByteArray m_row;
    int m_rows = 0;
    QSet<QByteArray> m_cached; //!< the big filled files uploaded once (copyOfFilled())
};

} // namespace

QVFS_CONFORMANCE_BACKEND(S3Backend, "s3");
