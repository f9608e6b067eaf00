// SPDX-License-Identifier: LGPL-2.1-or-later
#include "rgwfixture.h"
#include "serverprocess.h"

#include <QDir>
#include <QFile>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QUuid>

#include <signal.h>
#include <unistd.h>

namespace
{

using namespace QvfsTest::ServerProcess;

// One deadline covers every step of a start.
constexpr qint64 StartMs = 120000;

const char *const Programs[] = { "/usr/bin/ceph-mon", "/usr/bin/ceph-osd", "/usr/bin/radosgw", "/usr/bin/ceph",
    "/usr/bin/radosgw-admin", "/usr/bin/monmaptool", "/usr/bin/curl" };

// The daemons' environment: glibc malloc with two arenas roughly halves radosgw's memory.
const QList<QByteArray> DaemonEnvironment { "MALLOC_ARENA_MAX=2" };

QByteArray tail(const QByteArray &text, int lines)
{
    QList<QByteArray> l = text.trimmed().split('\n');
    if (l.size() > lines)
        l = l.mid(l.size() - lines);
    return l.join('\n');
}

} // namespace

namespace QvfsTest
{

RgwFixture::RgwFixture() = default;

RgwFixture::~RgwFixture()
{
    stop();
}

bool RgwFixture::available(QString *why)
{
    for (const char *p : Programs) {
        if (::access(p, X_OK) != 0) {
            *why = QStringLiteral("%1 is missing (scripts/setup.sh --test installs radosgw, ceph-mon, ceph-osd, "
                                  "ceph-common and curl)")
                       .arg(QLatin1String(p));
            return false;
        }
    }
    return true;
}

QByteArray RgwFixture::endpoint() const
{
    return "http://127.0.0.1:" + QByteArray::number(m_port);
}

QByteArray RgwFixture::rgwLog() const
{
    return readFile(m_dir + "/log/ceph-client.rgw.t.log");
}

bool RgwFixture::fail(QString *error, const QString &why)
{
    QString text = why;
    for (const char *log : { "mon.out", "osd.out", "rgw.out", "ceph-client.rgw.t.log", "ceph-osd.0.log" }) {
        const QByteArray t = tail(readFile(m_dir + "/log/" + log), 15);
        if (!t.isEmpty())
            text += QStringLiteral("\n--- %1:\n%2").arg(QLatin1String(log), QString::fromLocal8Bit(t));
    }
    *error = text;
    stop();
    return false;
}

bool RgwFixture::waitFor(const char *step, const std::function<bool()> &done, QString *error)
{
    while (!done()) {
        for (const int pid : { m_monPid, m_osdPid, m_rgwPid }) {
            if (pid > 0 && exited(pid)) {
                m_monPid = pid == m_monPid ? -1 : m_monPid;
                m_osdPid = pid == m_osdPid ? -1 : m_osdPid;
                m_rgwPid = pid == m_rgwPid ? -1 : m_rgwPid;
                return fail(error, QStringLiteral("a daemon ended while waiting for %1").arg(QLatin1String(step)));
            }
        }
        if (nowMs() > m_deadline)
            return fail(
                error, QStringLiteral("timed out (%1 s) waiting for %2").arg(StartMs / 1000).arg(QLatin1String(step)));
        ::usleep(50000);
    }
    return true;
}

int RgwFixture::ceph(const QString &program, const QStringList &args, QByteArray *out) const
{
    QStringList all { QStringLiteral("-c"), QFile::decodeName(m_dir + "/ceph.conf") };
    all += args;
    const int timeout = int(qBound(qint64(1000), m_deadline - nowMs(), qint64(15000)));
    return run(program, all, out, {}, {}, timeout);
}

void RgwFixture::writeConfig()
{
    const QByteArray d = m_dir;
    const QList<QByteArray> lines {
        "# A throwaway Ceph cluster of the Qvfs tests (autotests/testutil/rgwfixture.cpp).",
        "[global]",
        "fsid = " + QUuid::createUuid().toByteArray(QUuid::WithoutBraces),
        "mon host = v2:127.0.0.1:" + QByteArray::number(m_monPort),
        // else two of the OSD's ports bind the machine's address
        "public addr = 127.0.0.1",
        "cluster addr = 127.0.0.1",
        "ms bind msgr1 = false",
        // inside the cluster only; S3's own authentication (SigV4) stays on
        "auth cluster required = none",
        "auth service required = none",
        "auth client required = none",
        "keyring = " + d + "/keyring",
        "run dir = " + d + "/run",
        "crash dir = " + d + "/crash",
        "log file = " + d + "/log/$cluster-$name.log",
        "mon cluster log file = default=" + d + "/log/$cluster.$channel.log cluster=" + d + "/log/$cluster.log",
        "mon debug dump location = " + d + "/log/$cluster-$name.tdump",
        "mon data avail warn = 2",
        "mon data avail crit = 1",
        // the default 1 s costs ~2 s per pool radosgw makes
        "paxos propose interval = 0.05",
        "paxos min wait = 0.01",
        "mon warn on pool no redundancy = false",
        "mon warn on insecure global id reclaim allowed = false",
        "mon mgr mkfs grace = 31536000",
        "osd pool default size = 1",
        "osd pool default pg num = 8",
        "[client]",
        "admin socket = " + d + "/run/$cluster-$name.$pid.asok",
        "[mon]",
        "admin socket = " + d + "/run/$cluster-$name.asok",
        "[mon.a]",
        "mon data = " + d + "/mon/a",
        "[osd]",
        "admin socket = " + d + "/run/$cluster-$name.asok",
        "[osd.0]",
        "osd data = " + d + "/osd/0",
        "osd objectstore = memstore",
        "memstore device bytes = 4294967296",
        "[client.rgw.t]",
        "admin socket = " + d + "/run/$cluster-$name.asok",
        "rgw data = " + d + "/rgw",
        "rgw frontends = beast endpoint=127.0.0.1:" + QByteArray::number(m_port),
        "rgw thread pool size = 64",
        // virtual-host style for the name of dnsName() (path-style stays for 127.0.0.1)
        "rgw dns name = " + dnsName(),
        "rgw luarocks location = " + d + "/rgw/luarocks",
        // radosgw's built-in "secure" mon session needs cephx: crc with auth none
        "ms mon client mode = crc",
    };
    writeFile(d + "/ceph.conf", lines.join('\n') + '\n');
}

bool RgwFixture::start(QString *error)
{
    stop();
    if (!available(error))
        return false;
    m_deadline = nowMs() + StartMs;
    m_tmp.reset(new QTemporaryDir(QDir::tempPath() + QStringLiteral("/qvfs-rgw-XXXXXX")));
    if (!m_tmp->isValid() || m_tmp->path().contains(u' ')) {
        *error = QStringLiteral("cannot make a temporary folder without blanks for the cluster");
        return false;
    }
    m_dir = QFile::encodeName(m_tmp->path());
    for (const char *sub : { "run", "crash", "log", "mon", "osd", "osd/0", "rgw" })
        ::mkdir(QByteArray(m_dir + '/' + sub).constData(), 0700);
    m_accessKey = "QVFSTEST" + QByteArray::number(QRandomGenerator::system()->generate64(), 16).toUpper();
    m_secretKey = "qvfs" + QByteArray::number(QRandomGenerator::system()->generate64(), 36)
        + QByteArray::number(QRandomGenerator::system()->generate64(), 36);
    m_monPort = freePort();
    m_port = freePort();
    while (m_port == m_monPort)
        m_port = freePort();
    writeConfig();
    const QString conf = QFile::decodeName(m_dir + "/ceph.conf");
    const QString dir = QFile::decodeName(m_dir);

    // the monitor
    QByteArray out;
    const QByteArray fsid = readFile(m_dir + "/ceph.conf").split('\n').at(2).mid(7);
    if (run(QStringLiteral("/usr/bin/monmaptool"),
            { QStringLiteral("--create"), QStringLiteral("--fsid"), QString::fromLatin1(fsid), QStringLiteral("--addv"),
                QStringLiteral("a"), QStringLiteral("[v2:127.0.0.1:%1]").arg(m_monPort),
                dir + QStringLiteral("/monmap") },
            &out)
        != 0)
        return fail(error, QStringLiteral("monmaptool failed: ") + QString::fromLocal8Bit(out));
    if (ceph(QStringLiteral("/usr/bin/ceph-mon"),
            { QStringLiteral("--mkfs"), QStringLiteral("-i"), QStringLiteral("a"), QStringLiteral("--monmap"),
                dir + QStringLiteral("/monmap") },
            &out)
        != 0)
        return fail(error, QStringLiteral("ceph-mon --mkfs failed: ") + QString::fromLocal8Bit(out));
    m_monPid = spawnInOwnSession({ "/usr/bin/ceph-mon", "-c", m_dir + "/ceph.conf", "-i", "a", "-f" },
        m_dir + "/log/mon.out", DaemonEnvironment);
    if (m_monPid <= 0)
        return fail(error, QStringLiteral("cannot start ceph-mon"));

    // the OSD: allocated once the monitor answers (idempotent for one uuid)
    const QString osdUuid = QUuid::createUuid().toString(QUuid::WithoutBraces);
    if (!waitFor(
            "the monitor",
            [&] {
                QByteArray o;
                return ceph(QStringLiteral("/usr/bin/ceph"), { QStringLiteral("osd"), QStringLiteral("new"), osdUuid },
                           &o)
                    == 0
                    && o.trimmed() == "0";
            },
            error))
        return false;
    if (ceph(QStringLiteral("/usr/bin/ceph-osd"),
            { QStringLiteral("-i"), QStringLiteral("0"), QStringLiteral("--mkfs"), QStringLiteral("--osd-uuid"),
                osdUuid },
            &out)
        != 0)
        return fail(error, QStringLiteral("ceph-osd --mkfs failed: ") + QString::fromLocal8Bit(out));
    m_osdPid = spawnInOwnSession({ "/usr/bin/ceph-osd", "-c", m_dir + "/ceph.conf", "-i", "0", "-f" },
        m_dir + "/log/osd.out", DaemonEnvironment);
    if (m_osdPid <= 0)
        return fail(error, QStringLiteral("cannot start ceph-osd"));
    if (!waitFor(
            "osd.0 up",
            [&] {
                QByteArray o;
                return ceph(QStringLiteral("/usr/bin/ceph"), { QStringLiteral("osd"), QStringLiteral("dump") }, &o) == 0
                    && o.contains("osd.0 up");
            },
            error))
        return false;

    // radosgw and its user
    m_rgwPid = spawnInOwnSession({ "/usr/bin/radosgw", "-c", m_dir + "/ceph.conf", "-n", "client.rgw.t", "-f" },
        m_dir + "/log/rgw.out", DaemonEnvironment);
    if (m_rgwPid <= 0)
        return fail(error, QStringLiteral("cannot start radosgw"));
    if (!waitFor(
            "the S3 user",
            [&] {
                return ceph(QStringLiteral("/usr/bin/radosgw-admin"),
                           { QStringLiteral("user"), QStringLiteral("create"), QStringLiteral("--uid=qvfs"),
                               QStringLiteral("--display-name=Qvfs tests"),
                               QStringLiteral("--access-key=") + QString::fromLatin1(m_accessKey),
                               QStringLiteral("--secret-key=") + QString::fromLatin1(m_secretKey) })
                    == 0;
            },
            error))
        return false;
    return waitFor(
        "a signed ListBuckets", [&] { return curl("GET", "/") == 200; }, error);
}

int RgwFixture::curl(const QByteArray &method, const QByteArray &path, QByteArray *body, const QByteArray &secret,
    const QStringList &extraArgs) const
{
    // curl does not send x-amz-content-sha256 itself, and radosgw refuses a signature without it
    QStringList args { QStringLiteral("-sS"), QStringLiteral("--max-time"), QStringLiteral("10"), QStringLiteral("-X"),
        QString::fromLatin1(method), QStringLiteral("--aws-sigv4"), QStringLiteral("aws:amz:us-east-1:s3"),
        QStringLiteral("--user"), QString::fromLatin1(m_accessKey + ':' + (secret.isNull() ? m_secretKey : secret)),
        QStringLiteral("-H"), QStringLiteral("x-amz-content-sha256: UNSIGNED-PAYLOAD"), QStringLiteral("-w"),
        QStringLiteral("\n%{http_code}") };
    args += extraArgs;
    args += QString::fromLatin1(endpoint() + path);
    QByteArray out;
    if (run(QStringLiteral("/usr/bin/curl"), args, &out, {}, {}, 20000) != 0)
        return 0;
    const qsizetype nl = out.lastIndexOf('\n');
    if (body)
        *body = out.left(qMax<qsizetype>(nl, 0));
    return out.mid(nl + 1).trimmed().toInt();
}

void RgwFixture::stop()
{
    // radosgw, then the OSD, then the monitor: each by its pid, SIGKILL after a grace
    for (int *pid : { &m_rgwPid, &m_osdPid, &m_monPid }) {
        if (*pid > 0) {
            ::kill(*pid, SIGTERM);
            reapOrKill(*pid, pid == &m_monPid ? 5000 : 10000);
        }
        *pid = -1;
    }
    m_tmp.reset();
    m_dir.clear();
}

} // namespace QvfsTest
