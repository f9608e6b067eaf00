// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_TESTUTIL_RGWFIXTURE_H
#define QVFS_TESTUTIL_RGWFIXTURE_H

#include <QByteArray>
#include <QStringList>

#include <functional>
#include <memory>

class QTemporaryDir;

namespace QvfsTest
{

/*!
 * A real S3 server for the tests: Ceph's radosgw on 127.0.0.1 as a single-node cluster
 * (one monitor, one OSD on memstore, radosgw with its beast frontend), all of it throwaway
 * and inside one temporary folder (dir()): ceph.conf, the monitor's store, the OSD's
 * folder, admin sockets, run and crash folders, logs. The recipe and its pitfalls are in
 * ../shared/research/s3-radosgw.md.
 *
 * start() builds the cluster on free ports (cephx off inside the cluster; S3's own
 * authentication, SigV4 with the rgw user's keys, stays fully on), makes the user
 * accessKey()/secretKey() and waits until a SigV4-signed ListBuckets answers 200, so the
 * first request of a test succeeds. The daemons are this process's children in sessions
 * of their own; stop() ends radosgw, the OSD and the monitor in that order by their pids
 * (SIGTERM, SIGKILL after a grace), reaps them and removes the folder. Nothing is read
 * from /etc/ceph nor written to /var/log/ceph, /var/lib/ceph or /run/ceph.
 *
 * Memstore keeps every byte in the OSD's memory until the process ends: a test that
 * uploads hundreds of MiB makes the OSD that much larger.
 */
class RgwFixture
{
public:
    RgwFixture();
    ~RgwFixture();
    RgwFixture(const RgwFixture &) = delete;
    RgwFixture &operator=(const RgwFixture &) = delete;

    /*! Whether this machine can run the fixture (radosgw, ceph-mon, ceph-osd, the tools, curl). */
    static bool available(QString *why);

    /*! Builds and starts the cluster; false with the reason (and the logs' ends) in \a error. */
    bool start(QString *error);
    /*! Stops the three daemons by pid and removes the folder (also run by the destructor). */
    void stop();
    bool isRunning() const { return m_rgwPid > 0; }

    /*! The S3 endpoint's port on 127.0.0.1. */
    int port() const { return m_port; }
    /*!
     * The host name radosgw takes for itself (rgw dns name): a request whose Host is
     * BUCKET.s3.test is about BUCKET (virtual-host style). No resolver knows it: a client
     * reaches it through autotests/testutil/forwardproxy.py.
     */
    static QByteArray dnsName() { return QByteArrayLiteral("s3.test"); }
    /*! "http://127.0.0.1:PORT". */
    QByteArray endpoint() const;
    QByteArray dir() const { return m_dir; }
    QByteArray accessKey() const { return m_accessKey; }
    QByteArray secretKey() const { return m_secretKey; }
    /*! The pids of radosgw, the OSD and the monitor (for checks that they are gone). */
    QList<int> pids() const { return { m_rgwPid, m_osdPid, m_monPid }; }
    /*! radosgw's log so far (one access line per request: "beast: ... \"GET /bkt?... HTTP/1.1\" 200"). */
    QByteArray rgwLog() const;

    /*!
     * Runs curl with a SigV4 signature of this server's user (or \a secret instead of the
     * user's) on \a method \a path (path-style, encoded) with \a extraArgs; returns the
     * HTTP status (0 when curl failed) and the body in \a body.
     */
    int curl(const QByteArray &method, const QByteArray &path, QByteArray *body = nullptr,
        const QByteArray &secret = QByteArray(), const QStringList &extraArgs = {}) const;

private:
    bool fail(QString *error, const QString &why);
    bool waitFor(const char *step, const std::function<bool()> &done, QString *error);
    int ceph(const QString &program, const QStringList &args, QByteArray *out = nullptr) const;
    void writeConfig();

    std::unique_ptr<QTemporaryDir> m_tmp;
    QByteArray m_dir;
    QByteArray m_accessKey;
    QByteArray m_secretKey;
    int m_port = 0;
    int m_monPort = 0;
    int m_monPid = -1;
    int m_osdPid = -1;
    int m_rgwPid = -1;
    qint64 m_deadline = 0;
};

} // namespace QvfsTest

#endif
