// SPDX-License-Identifier: LGPL-2.1-or-later
#include "httpserverfixture.h"
#include "serverprocess.h"

#include <QCryptographicHash>
#include <QDeadlineTimer>
#include <QFile>
#include <QThread>

#include <algorithm>
#include <cerrno>
#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

namespace
{

const char nginxBinary[] = "/usr/sbin/nginx";
const char nginxDavExt[] = "/usr/lib/nginx/modules/ngx_http_dav_ext_module.so";
const char apacheBinary[] = "/usr/sbin/apache2";
const char apacheModules[] = "/usr/lib/apache2/modules";

} // namespace

HttpServerFixture::HttpServerFixture(Server server)
    : m_server(server)
{
    m_process.setProcessChannelMode(QProcess::MergedChannels);
}

HttpServerFixture::~HttpServerFixture()
{
    stop();
}

QByteArray HttpServerFixture::name() const
{
    return m_server == Server::Nginx ? QByteArrayLiteral("nginx") : QByteArrayLiteral("apache");
}

bool HttpServerFixture::isRunning() const
{
    return m_process.state() == QProcess::Running;
}

QUrl HttpServerFixture::url(const QByteArray &encodedPath) const
{
    return QUrl::fromEncoded("http://127.0.0.1:" + QByteArray::number(m_port) + encodedPath);
}

QUrl HttpServerFixture::httpsUrl(const QByteArray &encodedPath) const
{
    if (!m_httpsPort)
        return QUrl();
    return QUrl::fromEncoded("https://127.0.0.1:" + QByteArray::number(m_httpsPort) + encodedPath);
}

QUrl HttpServerFixture::otherUrl(const QByteArray &encodedPath) const
{
    return QUrl::fromEncoded("http://127.0.0.1:" + QByteArray::number(m_otherPort) + encodedPath);
}

QString HttpServerFixture::caFile() const
{
    return QString::fromLocal8Bit(m_base + "/cert.pem");
}

QByteArray HttpServerFixture::path(QByteArrayView relative) const
{
    QByteArray p = m_root;
    if (!relative.startsWith('/'))
        p += '/';
    p += relative;
    return p;
}

bool HttpServerFixture::writeFile(QByteArrayView relative, QByteArrayView data) const
{
    const QByteArray p = path(relative);
    if (!QvfsTest::ServerProcess::writeFile(p, data.toByteArray()))
        return false;
    if (m_uid >= 0)
        return ::chown(p.constData(), uid_t(m_uid), gid_t(m_gid)) == 0;
    return true;
}

bool HttpServerFixture::makeDir(QByteArrayView relative) const
{
    const QByteArray full = path(relative);
    for (qsizetype i = m_root.size() + 1; i <= full.size(); ++i) {
        if (i != full.size() && full.at(i) != '/')
            continue;
        const QByteArray part = full.left(i);
        if (::mkdir(part.constData(), 0755) != 0 && errno != EEXIST)
            return false;
        if (m_uid >= 0 && ::chown(part.constData(), uid_t(m_uid), gid_t(m_gid)) != 0)
            return false;
    }
    return true;
}

bool HttpServerFixture::exists(QByteArrayView relative) const
{
    struct stat st;
    return ::lstat(path(relative).constData(), &st) == 0;
}

QByteArray HttpServerFixture::readFile(QByteArrayView relative) const
{
    return QvfsTest::ServerProcess::readFile(path(relative));
}

QByteArrayList HttpServerFixture::entries(QByteArrayView relative) const
{
    QByteArrayList names;
    DIR *d = ::opendir(path(relative).constData());
    if (!d)
        return names;
    while (dirent *e = ::readdir(d)) {
        if (qstrcmp(e->d_name, ".") != 0 && qstrcmp(e->d_name, "..") != 0)
            names.append(QByteArray(e->d_name));
    }
    ::closedir(d);
    std::sort(names.begin(), names.end());
    return names;
}

qint64 HttpServerFixture::mtime(QByteArrayView relative) const
{
    struct stat st;
    if (::lstat(path(relative).constData(), &st) != 0)
        return -1;
    return qint64(st.st_mtime);
}

void HttpServerFixture::chownToServer(QByteArrayView relative) const
{
    if (m_uid >= 0)
        QvfsTest::ServerProcess::chownTree(path(relative), uid_t(m_uid), gid_t(m_gid));
}

QByteArray HttpServerFixture::bodyTempDir() const
{
    return m_server == Server::Nginx ? m_base + "/tmp/body" : QByteArray();
}

QByteArrayList HttpServerFixture::accessLog() const
{
    QByteArrayList lines = QvfsTest::ServerProcess::readFile(m_base + "/access.log").split('\n');
    lines.removeAll(QByteArray());
    return lines;
}

int HttpServerFixture::requestCount(QByteArrayView method, QByteArrayView encodedPath) const
{
    const QByteArray needle = '"' + method.toByteArray() + ' ' + encodedPath.toByteArray() + " HTTP/";
    int n = 0;
    for (const QByteArray &l : accessLog()) {
        if (l.contains(needle))
            ++n;
    }
    return n;
}

int HttpServerFixture::connectionCount() const
{
    QSet<QByteArray> seen;
    for (const QByteArray &l : accessLog())
        seen.insert(l.left(l.indexOf(' ')));
    return int(seen.size());
}

bool HttpServerFixture::makeCertificate()
{
    QProcess openssl;
    openssl.setProcessChannelMode(QProcess::MergedChannels);
    openssl.start(QStringLiteral("openssl"),
        { QStringLiteral("req"), QStringLiteral("-x509"), QStringLiteral("-newkey"), QStringLiteral("ec"),
            QStringLiteral("-pkeyopt"), QStringLiteral("ec_paramgen_curve:prime256v1"), QStringLiteral("-nodes"),
            QStringLiteral("-days"), QStringLiteral("2"), QStringLiteral("-subj"), QStringLiteral("/CN=localhost"),
            QStringLiteral("-addext"), QStringLiteral("subjectAltName=DNS:localhost,IP:127.0.0.1"),
            QStringLiteral("-keyout"), QString::fromLocal8Bit(m_base + "/key.pem"), QStringLiteral("-out"), caFile() });
    if (!openssl.waitForFinished(30000) || openssl.exitStatus() != QProcess::NormalExit || openssl.exitCode() != 0) {
        m_error = QStringLiteral("openssl could not make a certificate (is openssl installed?): ")
            + QString::fromLocal8Bit(openssl.readAll());
        return false;
    }
    return true;
}

bool HttpServerFixture::writeNginxConfig()
{
    const QByteArray b = m_base;
    const QByteArray http = QByteArray::number(m_port);
    const QByteArray https = QByteArray::number(m_httpsPort);
    const QByteArray other = QByteArray::number(m_otherPort);
    QByteArray c;
    c += "load_module " + QByteArray(nginxDavExt) + ";\n";
    if (::geteuid() == 0)
        c += "user root;\n";
    c += "daemon off;\nmaster_process on;\nworker_processes 1;\n";
    c += "pid " + b + "/nginx.pid;\nerror_log " + b + "/error.log warn;\n";
    c += "events { worker_connections 1024; }\n";
    c += "http {\n"
         "  default_type application/octet-stream;\n"
         "  types { text/plain txt; text/html html; image/png png; }\n"
         "  log_format qvfs '$connection $server_port \"$request\" $status auth=$http_authorization';\n"
         "  access_log "
        + b + "/access.log qvfs;\n";
    for (const char *t : { "client_body", "proxy", "fastcgi", "uwsgi", "scgi" })
        c += "  " + QByteArray(t) + "_temp_path " + b + "/tmp/" + (qstrcmp(t, "client_body") == 0 ? "body" : t) + ";\n";
    c += "  client_max_body_size 0;\n"
         "  keepalive_timeout 75s;\n"
         "  keepalive_requests 1000000;\n"
         "  sendfile on;\n"
         "  server {\n"
         "    listen 127.0.0.1:"
        + http + ";\n    listen 127.0.0.1:" + https + " ssl http2;\n";
    c += "    ssl_certificate " + b + "/cert.pem;\n    ssl_certificate_key " + b + "/key.pem;\n";
    c += "    root " + m_root + ";\n";
    c += "    dav_methods PUT DELETE MKCOL COPY MOVE;\n"
         "    dav_ext_methods PROPFIND OPTIONS;\n"
         "    dav_access user:rw group:rw all:r;\n"
         "    create_full_put_path off;\n"
         "    location / { }\n"
         "    location /auth/ { auth_basic \"qvfs\"; auth_basic_user_file "
        + b + "/htpasswd; }\n";
    c += "    location /forbidden/ { deny all; }\n"
         "    location /small/ { client_max_body_size 1k; }\n"
         "    location /norange/ { max_ranges 0; }\n"
         "    location ~ ^/r/same/(.*)$ { return 302 /$1; }\n"
         "    location ~ ^/r/perm/(.*)$ { return 301 /$1; }\n"
         "    location ~ ^/r/307/(.*)$ { return 307 /$1; }\n"
         "    location ~ ^/r/other/(.*)$ { return 302 http://127.0.0.1:"
        + other + "/$1; }\n";
    c += "    location ~ ^/r/down/(.*)$ { return 302 http://127.0.0.1:" + http + "/$1; }\n";
    c += "    location ~ ^/auth/away/(.*)$ { return 302 http://127.0.0.1:" + other + "/$1; }\n";
    c += "    location ~ ^/r/loop/ { return 302 $uri; }\n"
         "  }\n"
         "  server {\n"
         "    listen 127.0.0.1:"
        + other + ";\n    root " + m_root + ";\n    location / { }\n  }\n}\n";
    if (!QvfsTest::ServerProcess::writeFile(b + "/nginx.conf", c))
        return false;
    return QvfsTest::ServerProcess::writeFile(
        b + "/htpasswd", QByteArray(user().toUtf8() + ":{PLAIN}" + password().toUtf8() + '\n'));
}

bool HttpServerFixture::writeApacheConfig()
{
    const QByteArray b = m_base;
    const QByteArray m = apacheModules;
    QByteArray c;
    c += "ServerRoot " + b + "\nDefaultRuntimeDir " + b + "/run\nPidFile " + b + "/run/httpd.pid\n";
    c += "Mutex file:" + b + "/run default\n";
    c += "Listen 127.0.0.1:" + QByteArray::number(m_port) + "\nListen 127.0.0.1:" + QByteArray::number(m_otherPort)
        + '\n';
    c += "ServerName 127.0.0.1\nErrorLog " + b + "/error.log\nLogLevel warn\n";
    c += "LogFormat \"%{remote}p %{local}p \\\"%r\\\" %>s auth=%{Authorization}i\" qvfs\nCustomLog " + b
        + "/access.log qvfs\n";
    for (const char *mod : { "mpm_event", "authz_core", "authn_core", "authn_file", "authz_user", "auth_digest",
             "auth_basic", "dav", "dav_fs", "dir", "mime", "alias" })
        c += "LoadModule " + QByteArray(mod) + "_module " + m + "/mod_" + mod + ".so\n";
    if (::geteuid() == 0)
        c += "User #" + QByteArray::number(m_uid) + "\nGroup #" + QByteArray::number(m_gid) + '\n';
    if (QFile::exists(QStringLiteral("/etc/mime.types")))
        c += "TypesConfig /etc/mime.types\n";
    else
        c += "TypesConfig " + b + "/mime.types\n";
    c += "KeepAlive On\nMaxKeepAliveRequests 0\nKeepAliveTimeout 75\nTimeout 60\n";
    c += "DavLockDB " + b + "/lock/davlock\n";
    c += "DocumentRoot " + m_root + "\nLimitRequestBody 0\n";
    c += "<Directory " + m_root + ">\n  Dav On\n  AllowOverride None\n  Require all granted\n</Directory>\n";
    c += "<Location /auth/>\n  AuthType Digest\n  AuthName \"qvfs\"\n  AuthDigestProvider file\n"
         "  AuthUserFile "
        + b + "/digest.pw\n  Require valid-user\n</Location>\n";
    c += "<Location /forbidden/>\n  Require all denied\n</Location>\n";
    c += "<Location /small/>\n  LimitRequestBody 1024\n</Location>\n";
    c += "<Location /norange/>\n  MaxRanges none\n</Location>\n";
    c += "RedirectMatch 302 ^/r/same/(.*)$ /$1\n";
    c += "RedirectMatch 301 ^/r/perm/(.*)$ /$1\n";
    c += "RedirectMatch 307 ^/r/307/(.*)$ /$1\n";
    c += "RedirectMatch 302 ^/r/other/(.*)$ http://127.0.0.1:" + QByteArray::number(m_otherPort) + "/$1\n";
    c += "RedirectMatch 302 ^/r/loop/(.*)$ /r/loop/$1\n";
    c += "RedirectMatch 302 ^/auth/away/(.*)$ http://127.0.0.1:" + QByteArray::number(m_otherPort) + "/$1\n";
    if (!QvfsTest::ServerProcess::writeFile(b + "/httpd.conf", c)
        || !QvfsTest::ServerProcess::writeFile(b + "/mime.types", "text/plain txt\n"))
        return false;
    const QByteArray ha1 = QCryptographicHash::hash(
        (user() + QLatin1Char(':') + realm() + QLatin1Char(':') + password()).toUtf8(), QCryptographicHash::Md5)
                               .toHex();
    return QvfsTest::ServerProcess::writeFile(
        b + "/digest.pw", QByteArray(user().toUtf8() + ':' + realm().toUtf8() + ':' + ha1 + '\n'));
}

bool HttpServerFixture::start()
{
    m_error.clear();
    const char *binary = m_server == Server::Nginx ? nginxBinary : apacheBinary;
    if (::access(binary, X_OK) != 0 || (m_server == Server::Nginx && ::access(nginxDavExt, R_OK) != 0)) {
        m_error = QStringLiteral("%1 is not installed (scripts/setup.sh --test installs it)")
                      .arg(QString::fromLatin1(
                          m_server == Server::Nginx ? "nginx with libnginx-mod-http-dav-ext" : "apache2"));
        return false;
    }
    m_dir = std::make_unique<QTemporaryDir>(QDir::tempPath() + QStringLiteral("/qvfs-httpd-XXXXXX"));
    if (!m_dir->isValid()) {
        m_error = QStringLiteral("no temporary folder");
        return false;
    }
    m_base = QFile::encodeName(m_dir->path());
    m_root = m_base + "/root";
    // apache's user must reach the served folder
    ::chmod(m_base.constData(), 0755);
    for (const char *d : { "/root", "/tmp", "/run", "/lock" }) {
        if (::mkdir(QByteArray(m_base + d).constData(), 0755) != 0) {
            m_error = QStringLiteral("cannot create the server's folders");
            return false;
        }
    }
    if (m_server == Server::Apache && ::geteuid() == 0) {
        const passwd *pw = ::getpwnam("www-data");
        if (!pw)
            pw = ::getpwnam("nobody");
        if (!pw) {
            m_error = QStringLiteral("no unprivileged user for apache (www-data or nobody)");
            return false;
        }
        m_uid = int(pw->pw_uid);
        m_gid = int(pw->pw_gid);
        QvfsTest::ServerProcess::chownTree(m_root, uid_t(m_uid), gid_t(m_gid));
        QvfsTest::ServerProcess::chownTree(m_base + "/lock", uid_t(m_uid), gid_t(m_gid));
    }
    if (m_server == Server::Nginx && !makeCertificate())
        return false;
    for (int attempt = 0; attempt < 8; ++attempt) {
        bool portTaken = false;
        if (startOnce(&portTaken))
            return true;
        if (!portTaken)
            return false;
    }
    m_error = QStringLiteral("no free ports after 8 attempts: ") + m_error;
    return false;
}

bool HttpServerFixture::startOnce(bool *portTaken)
{
    *portTaken = false;
    const auto freePort = [] { return quint16(QvfsTest::ServerProcess::freePort()); };
    m_port = freePort();
    m_otherPort = freePort();
    m_httpsPort = m_server == Server::Nginx ? freePort() : 0;
    if (!m_port || !m_otherPort || (m_server == Server::Nginx && !m_httpsPort) || m_port == m_otherPort
        || m_port == m_httpsPort || m_otherPort == m_httpsPort) {
        *portTaken = true;
        m_error = QStringLiteral("could not pick ports");
        return false;
    }
    ::unlink(QByteArray(m_base + "/error.log").constData());
    QStringList args;
    QString program;
    if (m_server == Server::Nginx) {
        if (!writeNginxConfig()) {
            m_error = QStringLiteral("cannot write nginx.conf");
            return false;
        }
        program = QString::fromLatin1(nginxBinary);
        const QString b = QFile::decodeName(m_base);
        args = { QStringLiteral("-e"), b + QStringLiteral("/error.log"), QStringLiteral("-p"), b, QStringLiteral("-c"),
            b + QStringLiteral("/nginx.conf") };
    } else {
        if (!writeApacheConfig()) {
            m_error = QStringLiteral("cannot write httpd.conf");
            return false;
        }
        program = QString::fromLatin1(apacheBinary);
        const QString b = QFile::decodeName(m_base);
        args = { QStringLiteral("-d"), b, QStringLiteral("-f"), b + QStringLiteral("/httpd.conf"),
            QStringLiteral("-DFOREGROUND") };
    }
    m_process.start(program, args);
    if (!m_process.waitForStarted(10000)) {
        m_error = QStringLiteral("cannot run %1: %2").arg(program, m_process.errorString());
        return false;
    }
    if (waitReady(15000))
        return true;
    const QByteArray log = QvfsTest::ServerProcess::readFile(m_base + "/error.log") + m_process.readAll();
    stop();
    *portTaken = log.contains("Address already in use") || log.contains("could not bind");
    m_error = QStringLiteral("%1 did not start: %2").arg(QString::fromLatin1(name()), QString::fromLocal8Bit(log));
    return false;
}

bool HttpServerFixture::waitReady(int ms)
{
    QList<quint16> ports { m_port, m_otherPort };
    if (m_httpsPort)
        ports.append(m_httpsPort);
    const QDeadlineTimer deadline(ms);
    for (quint16 p : ports) {
        for (;;) {
            if (m_process.state() != QProcess::Running)
                return false;
            if (QvfsTest::ServerProcess::canConnect(p))
                break;
            if (deadline.hasExpired())
                return false;
            QThread::msleep(20);
        }
    }
    return true;
}

void HttpServerFixture::stop()
{
    if (m_process.state() != QProcess::NotRunning) {
        m_process.terminate(); // nginx: fast shutdown; apache: stop; both end their children
        if (!m_process.waitForFinished(10000)) {
            m_process.kill();
            m_process.waitForFinished(5000);
        }
    }
}
