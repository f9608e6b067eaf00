// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_HTTPCLIENT_P_H
#define QVFS_HTTPCLIENT_P_H

#include "httpresult_p.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QHash>
#include <QList>
#include <QNetworkReply>
#include <QObject>
#include <QPair>
#include <QSet>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslError>
#include <QUrl>

#include <functional>
#include <memory>
#include <optional>

class QAuthenticator;
class QTcpSocket;
class QNetworkAccessManager;

namespace Qvfs::Http
{

class UploadDevice;

/*! What counts as progress against the transfer timeout: this many bytes more, either way. */
constexpr qint64 ProgressBytes = 1024;

/*! A consumer of a body that took this long waited for the application (backpressure), not for the server. */
constexpr qint64 ConsumerWaitMs = 100;

/*! Whether \a status is a redirect the client follows (with a Location). */
inline bool isRedirect(int status)
{
    return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

/*!
 * The least a whole exchange must average, both ways together, once the transfer timeout
 * has passed: the silence rule alone lets a server that sends ProgressBytes just before
 * each timeout hold a request (and a folder view, and a worker) for ever.
 */
constexpr qint64 MinAverageBytesPerSecond = 1024;

/*!
 * The pace of one exchange against MinAverageBytesPerSecond, counted from its start, or
 * from the last time the application made it wait (a slow reader, a slow upload source).
 */
class ExchangePace
{
public:
    void start() { restart(0); }
    /*! Counts again from now, with \a moved bytes (both ways) already moved. */
    void restart(qint64 moved)
    {
        m_since.start();
        m_base = moved;
    }
    /*! Whether \a moved bytes (both ways, since the start) are too few for the time spent after \a graceMs. */
    bool tooSlow(qint64 moved, qint64 graceMs) const
    {
        const qint64 ms = m_since.elapsed() - graceMs;
        return ms > 0 && moved - m_base < ms * MinAverageBytesPerSecond / 1000;
    }

private:
    QElapsedTimer m_since;
    qint64 m_base = 0;
};

/*! A user name and password for one server (never logged, never in error texts). */
struct Credentials
{
    QString user;
    QString password;
};

/*! What HttpClient asks when a server wants a password. */
struct AuthQuestion
{
    QUrl url; //!< the request's URL, without user information
    QString realm; //!< the server's realm text
    QString user; //!< a user name to suggest (from the URL or a previous answer)
    bool previousFailed = false; //!< the credentials given before were refused
};

/*! The answer to a certificate question. */
enum class TrustDecision {
    Refuse, //!< the request fails with ErrUntrustedCertificate
    Once, //!< trusted while this client lives (the worker's life)
    Always, //!< the same; the caller also stores the decision for later workers
};

/*! What HttpClient asks when a server's certificate is not trusted. */
struct CertificateQuestion
{
    QUrl url; //!< the request's URL, without user information
    QString host;
    int port = 0;
    QList<QSslError> errors; //!< what is wrong (self-signed, expired, host name mismatch ...)
    QList<QSslCertificate> chain; //!< the server's chain, peer first
    QByteArray sha256; //!< the SHA-256 digest of the peer certificate, hex: what a trust pins
    QString errorText; //!< errors as one technical line
};

/*! What HEAD (or the headers of a GET) says about a resource. */
struct ResourceInfo
{
    int status = 0;
    qint64 size = -1; //!< the whole resource's size, -1 if unknown
    std::optional<qint64> mtime; //!< Last-Modified, seconds since the epoch
    QByteArray contentType; //!< lower case, without parameters
    QByteArray etag; //!< as sent
    bool acceptsRanges = false; //!< Accept-Ranges: bytes
    QUrl url; //!< the final URL after redirects (http or https)
};

/*!
 * Whether \a validator (an ETag as sent, or what If-Range carries) is a strong entity tag:
 * quoted, not W/"...". Only a strong one tells the same version of a resource byte for
 * byte, so only it may go into If-Range (RFC 9110, 13.1.5); else Last-Modified does.
 */
inline bool isStrongEtag(QByteArrayView validator)
{
    return validator.startsWith('"');
}

/*!
 * The HTTP transport of the http(s) and WebDAV worker, on one QNetworkAccessManager that
 * lives as long as the worker (connections are reused across requests and jobs).
 *
 * Calls are synchronous: each runs a QEventLoop until its request is done, with a 50 ms
 * tick that calls Callbacks::cancelled() (the worker's kill check and heartbeat) and
 * aborts the request when it returns true, so a kill is noticed within 100 ms whatever
 * the server does. A request with no progress for transferTimeout() ms (progress: the
 * headers, or 1 KiB more of the body either way; a server trickling bytes makes none)
 * fails with ErrServerTimedOut, and so does one that, after its first transferTimeout()
 * ms, averages less than MinAverageBytesPerSecond (ExchangePace). A request Qt sends more than 8 times (it resends on
 * its own after a 401 or a dropped connection) fails too. Questions (password, certificate) are asked from inside the
 * loop through the callbacks, which may block.
 *
 * URLs may use http, https, webdav, webdavs, dav or davs: the WebDAV schemes go on the
 * wire as http/https. User information in a URL becomes that server's credentials and
 * is never sent in the request line; every URL handed back (redirects, ResourceInfo)
 * is an http(s) URL without user information.
 *
 * Redirects are followed here, not by Qt (manual policy): up to maxRedirects(), each
 * reported through Callbacks::redirected(); never from https to http; a write (and any
 * request with a streamed body) is never redirected to another server, and a 303 only
 * for GET and HEAD. Credentials belong to one origin (scheme, host, port): another
 * server gets none unless the callback gives it its own.
 *
 * Writes are never sent twice: see UploadDevice. That also keeps Qt from sending a
 * write again after a 401 (it cannot rewind the body), so a write must find its
 * connection authenticated: when the worker's slot answered the 401, a bodiless write is
 * sent once more (the server refused the first, it did not carry it out); and a write to
 * a server that asks for credentials, on HTTP/1.1 connections unused for a while (Qt may
 * have replaced them, and it answers a new connection's 401 from its own cache, out of
 * sight), is preceded by an OPTIONS request that takes the 401 instead. Downloads and listings use HTTP/1.1:
 * on Qt 6.4 an HTTP/2 reply ignores setReadBufferSize() (measured: a 100 MB download
 * read at 50 MB/s grew the process by 95 MB over HTTP/2 and by 2 MB over HTTP/1.1), so
 * only small requests (HEAD, Depth 0 PROPFIND) may use HTTP/2.
 */
class HttpClient : public QObject
{
    Q_OBJECT
public:
    /*! How the client reaches its owner; every member may be empty. */
    struct Callbacks
    {
        /*! Polled at least every 50 ms while a request runs; true aborts it (ErrCancelled). */
        std::function<bool()> cancelled;
        /*! A redirect was followed from \a from to \a to (both http(s), no user information). */
        std::function<void(const QUrl &from, const QUrl &to, int status)> redirected;
        /*! Credentials for a server that asks; nothing: the request fails with ErrCannotAuthenticate. */
        std::function<std::optional<Credentials>(const AuthQuestion &)> credentials;
        /*! Whether to trust a certificate that failed verification; unset: Refuse. */
        std::function<TrustDecision(const CertificateQuestion &)> trust;
    };

    /*! One request for send(). */
    struct Request
    {
        QByteArray method = "GET";
        QUrl url;
        QList<QPair<QByteArray, QByteArray>> headers;
        QByteArray body; //!< a small body (PROPFIND XML)
        UploadDevice *upload = nullptr; //!< a streamed body (PUT); never redirected, never resent
        /*! A write: sent once at most (an UploadDevice over body), HTTP/1.1, no redirect to another server. */
        bool write = false;
        bool http2 = false; //!< may use HTTP/2 (small read-only requests only)
        bool followRedirects = true;
        bool ignoreCancel = false; //!< clean-up after a kill: runs anyway, with a short timeout
        /*!
         * Called once the status of the final (non-redirect) answer is known, before its
         * body; a failure stops the request with that result.
         */
        std::function<Result(QNetworkReply *reply, int status)> onHeaders;
        /*!
         * Reads the body of a 2xx answer as it arrives (the reply's read buffer is one
         * chunk, so the server waits for a slow reader); a failure stops the request with
         * that result. Unset: the body is kept in Response::body (up to 1 MiB).
         */
        std::function<Result(QNetworkReply *reply)> onData;
        /*!
         * onHeaders and onData without a QNetworkReply, for a GET that may go over the
         * client's own socket (see setDirect()): the final answer's status, headers and URL
         * (after redirects), then each piece of a 2xx body as it arrives (read through a
         * reused buffer on Qt's path too). Set both, and neither onHeaders nor onData.
         */
        std::function<Result(int status, const QList<QNetworkReply::RawHeaderPair> &headers, const QUrl &url)> onHead;
        std::function<Result(QByteArrayView piece)> onBody;
    };

    /*! The answer to send(). */
    struct Response
    {
        int status = 0;
        QByteArray reason;
        QUrl url; //!< the final URL (after redirects)
        QList<QNetworkReply::RawHeaderPair> headers;
        QByteArray body; //!< the body, when Request::onData was unset or the status was not 2xx (capped)
        bool bodyTruncated = false;
        QByteArray header(QByteArrayView name) const;
    };

    explicit HttpClient(QObject *parent = nullptr);
    ~HttpClient() override;

    void setCallbacks(Callbacks callbacks);
    const Callbacks &callbacks() const { return m_callbacks; }

    /*! Milliseconds without progress after which a request fails (default 20000, below the pool's 30 s). */
    void setTransferTimeout(int ms) { m_timeoutMs = ms; }
    int transferTimeout() const { return m_timeoutMs; }
    /*! Redirects followed per request (default 10). */
    void setMaxRedirects(int n) { m_maxRedirects = n; }
    int maxRedirects() const { return m_maxRedirects; }
    /*! Bytes per read of a streamed body and the reply's read buffer (default 256 KiB). */
    void setChunkSize(qint64 bytes) { m_chunkSize = bytes; }
    qint64 chunkSize() const { return m_chunkSize; }
    /*! The interval of the cancel check (default 50 ms). */
    void setTickInterval(int ms) { m_tickMs = ms; }

    /*! Trusts the certificates in the PEM file \a path as CAs; false if it holds none. */
    bool addCaCertificates(const QString &path);
    void addCaCertificates(const QList<QSslCertificate> &certificates);
    /*!
     * Trusts the certificate with SHA-256 digest \a sha256Hex on \a host:\a port despite
     * \a errors (a decision stored earlier). Other errors still ask again.
     */
    void pinCertificate(
        const QString &host, int port, const QByteArray &sha256Hex, const QList<QSslError::SslError> &errors);
    /*! Credentials for the server of \a url (its scheme, host and port). */
    void setCredentials(const QUrl &url, const Credentials &credentials);
    /*! The user and password of \a url, when it names a user, become its server's credentials. */
    void useUrlCredentials(const QUrl &url);
    /*!
     * Whether requests may go over a socket of the client's own instead of Qt Network
     * (default true); see httpclient_direct.cpp: a streamed upload (Request::upload),
     * and a PROPFIND or HEAD without a streamed answer (a stat), on one kept-alive
     * connection. Only where Qt would add nothing: no proxy, and a server that has not
     * asked for credentials. A server that refuses an upload before its body (401, 417),
     * cannot be reached, or shows a certificate no earlier question allowed, gets the
     * request through Qt, with nothing of it sent before. And a download (get()) over
     * https: Qt hands a TLS reply's bytes from its HTTP thread in pieces of what one
     * socket read decrypted, a round trip between the threads and two copies each.
     */
    void setDirect(bool on) { m_direct = on; }
    /*! Downloads over plain http go direct too (tests: Qt's path is as fast there). */
    void setDirectHttpGets(bool on) { m_directHttpGets = on; }
    /*! Requests sent over the client's own socket so far. */
    int directSends() const { return m_directSends; }
    /*! Forgets all connections (after trust was revoked). */
    void clearConnections();

    /*! The manager (one per client; tests count its connections through the server). */
    QNetworkAccessManager *manager() const { return m_nam; }

    /*!
     * Sends \a request, following redirects. Transport failures, kill, timeouts, refused
     * redirects and refused certificates give a failed Result; any HTTP answer passes,
     * with its status in \a response, for the caller to map per method (statusResult()).
     */
    Result send(Request &request, Response *response);

    /*!
     * Stats an http(s) URL with HEAD (falling back to a one-byte GET where HEAD is not
     * allowed). 404 → ErrDoesNotExist, 401/403 → ErrCannotAuthenticate/ErrAccessDenied.
     */
    Result head(const QUrl &url, ResourceInfo *info);

    /*! Receivers of get(). */
    struct GetHandler
    {
        /*! Called once, before the first byte, with the resource's details; false stops (ErrCancelled). */
        std::function<bool(const ResourceInfo &)> headers;
        /*! Called with each chunk; false stops (ErrCancelled). May block: the server waits. */
        std::function<bool(QByteArrayView chunk)> data;
    };

    /*!
     * Downloads \a url from byte \a offset, streamed to \a handler with backpressure.
     *
     * Content-Encoding is refused (identity), so the bytes are the resource's bytes. If
     * the connection drops mid-way, the download continues in the same call with a
     * Range request, but only if the answer is a 206 whose Content-Range starts exactly
     * at the next byte and an If-Range validator (the first answer's strong ETag, else
     * its Last-Modified) was sent; otherwise it fails (ErrSourceChanged if the resource
     * changed), or starts again if no byte reached the handler yet. A server that
     * ignores the Range of an explicit \a offset gives ErrUnsupportedAction.
     */
    Result get(const QUrl &url, qint64 offset, const GetHandler &handler);

    /*!
     * Reads up to \a length bytes (at most chunkSize() in memory at once, straight into
     * \a buffer) of \a url at \a offset with one GET "Range: bytes=offset-(offset+length-1)";
     * \a *got receives how many: fewer only where the resource ends (0 at or past its end,
     * a 416). With \a validator (a strong ETag) as If-Range, a changed resource gives
     * ErrSourceChanged. A server that answers 200 with the whole resource ignores ranges:
     * with \a allowSkip the bytes before \a offset are read and dropped (a server without
     * ranges, read in order), otherwise ErrCannotSeek. The rest of a body that is not
     * needed is not read (the connection is dropped).
     */
    Result readRange(const QUrl &url, qint64 offset, char *buffer, qint64 length, qint64 *got,
        const QByteArray &validator, bool allowSkip);

    /*! The URL as sent: http(s) for the WebDAV schemes, without user information. */
    static QUrl wireUrl(const QUrl &url);
    /*! "scheme://host:port" of \a url (wire scheme, effective port): what credentials belong to. */
    static QString origin(const QUrl &url);

private:
    struct Context;
    Result sendOnce(Request &request, const QUrl &url, Response *response, bool *retryAfterAuth);
    Result settleAuthentication(const QUrl &url, bool ignoreCancel);
    void onAuthenticationRequired(QNetworkReply *reply, QAuthenticator *authenticator);
    void onSslErrors(QNetworkReply *reply, const QList<QSslError> &errors);
    // Whether \a errors of \a url's server are to be ignored: pinned, or the trust question
    // (\a *asked) answered yes, which pins them; \a *errorText: the errors as one line.
    bool trustAfterErrors(const QUrl &url, QSslCertificate peer, QList<QSslCertificate> chain,
        const QList<QSslError> &errors, QString *errorText, bool *asked);
    // whether the certificate questions asked before allow \a errors of \a peer on url's server
    bool pinned(const QUrl &url, const QSslCertificate &peer, const QList<QSslError> &errors) const;
    static QByteArray pinKey(const QUrl &url, const QSslCertificate &peer);
    bool goesDirect(const Request &req, const QUrl &url);
    // the request over a socket of our own; \a *useQt: nothing was sent, Qt is to send it
    Result sendDirect(Request &req, const QUrl &url, Response *resp, bool *useQt);
    QSslConfiguration sslConfiguration() const;
    // what Qt holds of \a reply's body, handed to \a onBody through m_readBuffer
    Result readPieces(QNetworkReply *reply, const std::function<Result(QByteArrayView)> &onBody);

    QNetworkAccessManager *m_nam = nullptr;
    Callbacks m_callbacks;
    int m_timeoutMs = 20000;
    int m_maxRedirects = 10;
    qint64 m_chunkSize = 256 * 1024;
    int m_tickMs = 50;
    bool m_direct = true;
    bool m_directHttpGets = false;
    QByteArray m_readBuffer; // onBody's pieces on Qt's path
    int m_directSends = 0;
    int m_directAgain = 0; // a download cut before its answer, sent again (once)
    std::unique_ptr<QTcpSocket> m_directSocket; // kept alive for the next small request
    QString m_directOrigin;
    QList<QSslCertificate> m_caCertificates;
    // "host:port" + digest → the errors accepted for it
    QHash<QByteArray, QSet<int>> m_pins;
    // origin → credentials; origin + '\n' + realm → credentials
    QHash<QString, Credentials> m_credentials;
    struct OriginState
    {
        bool needsAuth = false; //!< the server asked for credentials once
        QElapsedTimer http1Used; //!< last request on the HTTP/1.1 connections
        int proxied = -1; //!< requests go through a proxy (1) or not (0); -1: not asked yet
    };
    QHash<QString, OriginState> m_origins;
    Context *m_current = nullptr;
};

} // namespace Qvfs::Http

#endif
