// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_HTTPSERVERFIXTURE_H
#define QVFS_HTTPSERVERFIXTURE_H

#include <QByteArray>
#include <QByteArrayList>
#include <QProcess>
#include <QString>
#include <QTemporaryDir>
#include <QUrl>

#include <memory>

/*!
 * A real web server on 127.0.0.1 for tests: Debian's nginx with the dav and dav-ext
 * modules, or apache2 with mod_dav_fs and mod_auth_digest, each with its configuration,
 * served folder, logs and temporary files in a QTemporaryDir, on free ports (tried
 * again when a port was taken meanwhile), ready when its ports accept connections, and
 * stopped (SIGTERM to the process it started) and removed when the fixture goes.
 *
 * Both servers serve the same layout, so one test row runs against either:
 *   /            WebDAV (PUT DELETE MKCOL COPY MOVE PROPFIND), no body size limit
 *   /auth/       the same, for user() / password() only (nginx: Basic, apache: Digest)
 *   /forbidden/  403 for everything
 *   /small/      request bodies up to 1 KiB (413 above)
 *   /norange/    Range requests ignored (whole 200 answers)
 *   /r/same/X    302 to /X;  /r/perm/X 301 to /X;  /r/307/X 307 to /X
 *   /r/other/X   302 to otherUrl("/X") (another origin: the same host, another port)
 *   /r/loop/X    302 to itself
 *   /r/down/X    (https, nginx) 302 to the plain http URL of /X
 *   /auth/away/X 302 to otherUrl("/X"), before any authentication
 * nginx also listens with TLS and HTTP/2 on httpsUrl(), with a self-signed certificate
 * made with openssl (caFile()). The access log records per request the connection, the
 * server port, the request line, the status and the Authorization header (accessLog()).
 *
 * When the tests run as root, nginx's workers run as root too (`user root;`) and apache,
 * which refuses root, as www-data: the fixture's file helpers hand what they create to
 * that user.
 */
class HttpServerFixture
{
public:
    enum class Server { Nginx, Apache };

    explicit HttpServerFixture(Server server);
    ~HttpServerFixture();
    HttpServerFixture(const HttpServerFixture &) = delete;
    HttpServerFixture &operator=(const HttpServerFixture &) = delete;

    /*! Starts the server; false with errorString() if it could not. */
    bool start();
    /*! Stops the server (also done by the destructor). */
    void stop();
    bool isRunning() const;
    QString errorString() const { return m_error; }

    Server server() const { return m_server; }
    /*! "nginx" or "apache". */
    QByteArray name() const;
    /*! The user name and password of /auth/. */
    static QString user() { return QStringLiteral("alice"); }
    static QString password() { return QStringLiteral("s3cret"); }
    /*! The realm of /auth/. */
    static QString realm() { return QStringLiteral("qvfs"); }

    quint16 port() const { return m_port; }
    quint16 httpsPort() const { return m_httpsPort; }
    quint16 otherPort() const { return m_otherPort; }
    /*! http://127.0.0.1:port + \a encodedPath (percent-encoded, starting with '/'). */
    QUrl url(const QByteArray &encodedPath = "/") const;
    /*! The same over TLS and HTTP/2 (nginx only; invalid for apache). */
    QUrl httpsUrl(const QByteArray &encodedPath = "/") const;
    /*! The same files at another origin (another port). */
    QUrl otherUrl(const QByteArray &encodedPath = "/") const;
    /*! The PEM file of the server's self-signed certificate (nginx). */
    QString caFile() const;

    /*! The served folder, raw bytes. */
    QByteArray root() const { return m_root; }
    /*! root() + '/' + \a relative (raw bytes). */
    QByteArray path(QByteArrayView relative) const;
    /*! Creates (or replaces) the file \a relative with \a data, owned by the server's user. */
    bool writeFile(QByteArrayView relative, QByteArrayView data) const;
    /*! Creates the folder \a relative (and its parents), owned by the server's user. */
    bool makeDir(QByteArrayView relative) const;
    bool exists(QByteArrayView relative) const;
    /*! The contents of \a relative (empty if it cannot be read). */
    QByteArray readFile(QByteArrayView relative) const;
    /*! The names in the folder \a relative, raw bytes, sorted ("." and ".." left out). */
    QByteArrayList entries(QByteArrayView relative) const;
    /*! The modification time of \a relative, seconds since the epoch (-1 if missing). */
    qint64 mtime(QByteArrayView relative) const;
    /*! Hands \a relative (recursively) to the server's user (after a test created files itself). */
    void chownToServer(QByteArrayView relative) const;
    /*! The folder the server keeps request bodies in while it receives them (nginx), empty if none. */
    QByteArray bodyTempDir() const;

    /*! The access log, one line per request: "<connection> <port> \"<request line>\" <status> auth=<Authorization>". */
    QByteArrayList accessLog() const;
    /*! How many requests of \a method on \a path (percent-encoded, exact) are in the access log. */
    int requestCount(QByteArrayView method, QByteArrayView encodedPath) const;
    /*! How many different connections the access log shows. */
    int connectionCount() const;

private:
    bool startOnce(bool *portTaken);
    bool writeNginxConfig();
    bool writeApacheConfig();
    bool makeCertificate();
    bool waitReady(int ms);

    Server m_server;
    std::unique_ptr<QTemporaryDir> m_dir;
    QByteArray m_base;
    QByteArray m_root;
    QProcess m_process;
    quint16 m_port = 0;
    quint16 m_httpsPort = 0;
    quint16 m_otherPort = 0;
    int m_uid = -1;
    int m_gid = -1;
    QString m_error;
};

#endif
