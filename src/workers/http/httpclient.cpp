// SPDX-License-Identifier: LGPL-2.1-or-later
#include "error.h"
#include "http_debug.h"
#include "httpclient_p.h"
#include "httpdate_p.h"
#include "qvfs_version.h"
#include "uploaddevice_p.h"
#include "url_p.h"

#include <QAuthenticator>
#include <QEventLoop>
#include <QNetworkAccessManager>
#include <QNetworkRequest>
#include <QSslConfiguration>
#include <QTcpSocket>
#include <QTimer>

namespace Qvfs::Http
{

namespace
{

// Errors of the transport, not of an HTTP answer (which the caller maps per method).
bool isTransportError(QNetworkReply::NetworkError e)
{
    return e < QNetworkReply::ContentAccessDenied || e == QNetworkReply::ContentReSendError
        || e == QNetworkReply::ProtocolUnknownError || e == QNetworkReply::ProtocolFailure;
}

struct ContentRange
{
    qint64 start = -1;
    qint64 end = -1;
    qint64 total = -1; // -1: "*"
};

bool parseNumber(QByteArrayView v, qint64 *out)
{
    v = v.trimmed();
    if (v.isEmpty() || v.size() > 18)
        return false;
    qint64 n = 0;
    for (char c : v) {
        if (c < '0' || c > '9')
            return false;
        n = n * 10 + (c - '0');
    }
    *out = n;
    return true;
}

// "bytes 0-99/1000", "bytes 0-99/*", "bytes */1000"
std::optional<ContentRange> parseContentRange(QByteArrayView v)
{
    v = v.trimmed();
    if (!v.startsWith("bytes "))
        return std::nullopt;
    v = v.sliced(6).trimmed();
    const qsizetype slash = v.indexOf('/');
    if (slash < 0)
        return std::nullopt;
    ContentRange r;
    const QByteArrayView range = v.first(slash).trimmed();
    const QByteArrayView total = v.sliced(slash + 1).trimmed();
    if (total != "*" && !parseNumber(total, &r.total))
        return std::nullopt;
    if (range == "*")
        return r;
    const qsizetype dash = range.indexOf('-');
    if (dash < 0 || !parseNumber(range.first(dash), &r.start) || !parseNumber(range.sliced(dash + 1), &r.end)
        || r.end < r.start || (r.total >= 0 && r.end >= r.total))
        return std::nullopt;
    return r;
}

QByteArray mimeOnly(QByteArrayView v)
{
    const qsizetype semi = v.indexOf(';');
    if (semi >= 0)
        v = v.first(semi);
    return v.trimmed().toByteArray().toLower();
}

QByteArray headerOf(const QList<QNetworkReply::RawHeaderPair> &headers, QByteArrayView name)
{
    for (const auto &h : headers) {
        if (h.first.compare(name, Qt::CaseInsensitive) == 0)
            return h.second;
    }
    return QByteArray();
}

void fillInfo(ResourceInfo *info, int status, const QList<QNetworkReply::RawHeaderPair> &headers)
{
    info->status = status;
    qint64 n = -1;
    if (status == 206) {
        if (const auto cr = parseContentRange(headerOf(headers, "content-range")))
            info->size = cr->total;
    } else if (parseNumber(headerOf(headers, "content-length"), &n)) {
        info->size = n;
    }
    info->mtime = parseHttpDate(headerOf(headers, "last-modified"));
    info->contentType = mimeOnly(headerOf(headers, "content-type"));
    info->etag = headerOf(headers, "etag").trimmed();
    info->acceptsRanges = headerOf(headers, "accept-ranges").trimmed().compare("bytes", Qt::CaseInsensitive) == 0;
}

// Whether a resumed reply is the same version of the resource as the first one: its own
// validator (the strong ETag, else Last-Modified) equals the one If-Range sent. A server
// that ignores If-Range answers 206 with its new version's validator, or none.
bool sameVersion(const QList<QNetworkReply::RawHeaderPair> &headers, const QByteArray &validator)
{
    if (isStrongEtag(validator))
        return headerOf(headers, "etag").trimmed() == validator;
    // A 206 may leave Last-Modified out (RFC 9110, 15.3.7); only another one is another version.
    const QByteArray own = headerOf(headers, "last-modified").trimmed();
    return own.isEmpty() || own == validator;
}

bool sameVersion(QNetworkReply *reply, const QByteArray &validator)
{
    return sameVersion(reply->rawHeaderPairs(), validator);
}

QByteArray methodOf(QByteArrayView m)
{
    return m.toByteArray().toUpper();
}

} // namespace

// A request sent more often than this (by Qt itself: authentication, resends) is ended.
constexpr int MaxSendsPerRequest = 8;

struct HttpClient::Context
{
    QNetworkReply *reply = nullptr;
    bool finished = false;
    bool cancelled = false;
    bool timedOut = false;
    bool headersSeen = false;
    bool redirect = false;
    int status = 0;
    std::optional<Result> stop;
    QElapsedTimer activity;
    ExchangePace pace;
    qint64 received = 0; // body bytes, as Qt counts them
    qint64 sent = 0;
    // The application's own time (a slow reader, a slow source, a question answered) is
    // no server's slowness.
    void applicationWaited()
    {
        activity.restart();
        pace.restart(received + sent);
    }
    bool authChallenged = false;
    int authAsked = 0;
    int sends = 0; // how often Qt sent the request (it sends again on its own)
    bool bodyCapped = false; // an unstreamed body reached its cap: the reply was ended there
    qint64 receivedMark = 0; // body bytes received, sent when activity last restarted
    qint64 sentMark = 0;
    QString sslErrorText;
};

QByteArray HttpClient::Response::header(QByteArrayView name) const
{
    return headerOf(headers, name);
}

HttpClient::HttpClient(QObject *parent)
    : QObject(parent)
    , m_nam(new QNetworkAccessManager(this))
{
    m_nam->setRedirectPolicy(QNetworkRequest::ManualRedirectPolicy);
    connect(m_nam, &QNetworkAccessManager::authenticationRequired, this, &HttpClient::onAuthenticationRequired);
    connect(m_nam, &QNetworkAccessManager::sslErrors, this, &HttpClient::onSslErrors);
}

HttpClient::~HttpClient() = default;

void HttpClient::setCallbacks(Callbacks callbacks)
{
    m_callbacks = std::move(callbacks);
}

bool HttpClient::addCaCertificates(const QString &path)
{
    const QList<QSslCertificate> certs = QSslCertificate::fromPath(path, QSsl::Pem);
    if (certs.isEmpty())
        return false;
    addCaCertificates(certs);
    return true;
}

void HttpClient::addCaCertificates(const QList<QSslCertificate> &certificates)
{
    m_caCertificates += certificates;
}

void HttpClient::pinCertificate(
    const QString &host, int port, const QByteArray &sha256Hex, const QList<QSslError::SslError> &errors)
{
    QSet<int> &kinds = m_pins[host.toUtf8().toLower() + ':' + QByteArray::number(port) + ' ' + sha256Hex.toLower()];
    for (const QSslError::SslError e : errors)
        kinds.insert(int(e));
}

void HttpClient::setCredentials(const QUrl &url, const Credentials &credentials)
{
    m_credentials.insert(origin(url), credentials);
}

void HttpClient::useUrlCredentials(const QUrl &url)
{
    if (!url.userName().isEmpty())
        setCredentials(url, Credentials { url.userName(QUrl::FullyDecoded), url.password(QUrl::FullyDecoded) });
}

void HttpClient::clearConnections()
{
    m_nam->clearConnectionCache();
    m_directSocket.reset();
}

QSslConfiguration HttpClient::sslConfiguration() const
{
    QSslConfiguration c = QSslConfiguration::defaultConfiguration();
    if (!m_caCertificates.isEmpty())
        c.addCaCertificates(m_caCertificates);
    return c;
}

QUrl HttpClient::wireUrl(const QUrl &url)
{
    QUrl u = url.adjusted(QUrl::RemoveUserInfo | QUrl::RemoveFragment);
    const QString s = u.scheme().toLower();
    if (s == QLatin1String("webdav") || s == QLatin1String("dav"))
        u.setScheme(QStringLiteral("http"));
    else if (s == QLatin1String("webdavs") || s == QLatin1String("davs"))
        u.setScheme(QStringLiteral("https"));
    else
        u.setScheme(s);
    if (u.path().isEmpty())
        u.setPath(QStringLiteral("/"));
    return u;
}

QString HttpClient::origin(const QUrl &url)
{
    const QUrl u = wireUrl(url);
    const bool tls = u.scheme() == QLatin1String("https");
    return u.scheme() + QLatin1String("://") + u.host().toLower() + QLatin1Char(':')
        + QString::number(u.port(tls ? 443 : 80));
}

Result HttpClient::send(Request &req, Response *resp)
{
    Response local;
    if (!resp)
        resp = &local;
    useUrlCredentials(req.url);
    QUrl url = wireUrl(req.url);
    const QString scheme = url.scheme();
    if (scheme != QLatin1String("http") && scheme != QLatin1String("https"))
        return Result::fail(ErrUnsupportedProtocol, req.url.scheme().toUtf8());
    if (url.host().isEmpty())
        return Result::fail(ErrMalformedUrl, req.url);
    req.method = methodOf(req.method);
    if (req.write || req.upload) {
        const Result a = settleAuthentication(url, req.ignoreCancel);
        if (!a.ok())
            return a;
    }
    const QUrl first = url;
    bool retried = false;
    int hops = 0;
    for (;;) {
        *resp = Response();
        bool retryAfterAuth = false;
        Result r = sendOnce(req, url, resp, &retryAfterAuth);
        resp->url = url;
        if (retryAfterAuth && !retried) {
            // The server answered 401 and Qt could not send the body again: the request
            // was refused, not carried out, so sending it again is no double write.
            retried = true;
            qCDebug(QVFS_HTTP) << req.method << url.toDisplayString() << "again, with credentials";
            continue;
        }
        if (!r.ok() || !req.followRedirects || !isRedirect(resp->status))
            return r;
        const QByteArray location = resp->header("location").trimmed();
        if (location.isEmpty())
            return r;
        QUrl target = url.resolved(QUrl::fromEncoded(location, QUrl::TolerantMode))
                          .adjusted(QUrl::RemoveUserInfo | QUrl::RemoveFragment);
        const QString ts = target.scheme().toLower();
        if (!target.isValid() || target.host().isEmpty()
            || (ts != QLatin1String("http") && ts != QLatin1String("https")))
            return Result::fail(
                ErrServerError, urlArgument(url), "redirected to an unusable URL: " + location.left(500), resp->status);
        if (++hops > m_maxRedirects)
            return Result::fail(ErrServerError, urlArgument(first), "too many redirects", resp->status);
        if (url.scheme() == QLatin1String("https") && ts == QLatin1String("http"))
            return Result::fail(ErrServerError, urlArgument(url),
                "refused a redirect from https to unencrypted " + urlArgument(target), resp->status);
        const bool sameOrigin = origin(target) == origin(url);
        if (req.upload)
            return Result::fail(ErrServerError, urlArgument(url),
                "the upload was redirected to " + urlArgument(target) + " and cannot be sent again", resp->status);
        if (req.write && !sameOrigin)
            return Result::fail(ErrServerError, urlArgument(url),
                "refused to follow a write to another server: " + urlArgument(target), resp->status);
        if (resp->status == 303 && req.method != "GET" && req.method != "HEAD")
            return Result::fail(ErrServerError, urlArgument(url), "HTTP 303 See Other", resp->status);
        qCDebug(QVFS_HTTP) << "redirect" << resp->status << url.toDisplayString() << "->" << target.toDisplayString();
        if (m_callbacks.redirected)
            m_callbacks.redirected(url, target, resp->status);
        url = target;
    }
}

Result HttpClient::settleAuthentication(const QUrl &url, bool ignoreCancel)
{
    // Qt drops connections idle for its cache expiry (two minutes by default); a
    // reconnected channel keeps its authentication, a new connection set does not.
    constexpr qint64 freshMs = 20000;
    const OriginState state = m_origins.value(origin(url));
    if (!state.needsAuth || (state.http1Used.isValid() && !state.http1Used.hasExpired(freshMs)))
        return Result::pass();
    Request options;
    options.method = "OPTIONS";
    options.url = url;
    options.ignoreCancel = ignoreCancel;
    Response resp;
    const Result r = send(options, &resp);
    qCDebug(QVFS_HTTP) << "OPTIONS before a write to" << url.toDisplayString() << r.error << resp.status;
    return r; // any answer will do; only a transport failure stops the write
}

Result HttpClient::sendOnce(Request &req, const QUrl &url, Response *resp, bool *retryAfterAuth)
{
    *retryAfterAuth = false;
    if (!req.ignoreCancel && m_callbacks.cancelled && m_callbacks.cancelled())
        return Result::fail(ErrCancelled);
    if (goesDirect(req, url)) {
        bool useQt = false;
        const Result r = sendDirect(req, url, resp, &useQt);
        if (!useQt)
            return r;
    }

    QNetworkRequest nr(url);
    nr.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    const bool tls = url.scheme() == QLatin1String("https");
    // Qt keeps one connection set per combination of these attributes: the same
    // everywhere on plain http (no HTTP/2 without TLS), so that requests share channels
    // (and the authentication those carry).
    nr.setAttribute(QNetworkRequest::Http2AllowedAttribute, tls && req.http2 && !req.write && !req.upload);
    nr.setAttribute(QNetworkRequest::CacheLoadControlAttribute, QNetworkRequest::AlwaysNetwork);
    nr.setAttribute(QNetworkRequest::CacheSaveControlAttribute, false);
    nr.setHeader(QNetworkRequest::UserAgentHeader, QByteArrayLiteral("Qvfs/" QVFS_VERSION_STRING));
    if (tls)
        nr.setSslConfiguration(sslConfiguration());
    for (const auto &h : std::as_const(req.headers))
        nr.setRawHeader(h.first, h.second);

    std::unique_ptr<UploadDevice> ownBody;
    UploadDevice *device = req.upload;
    if (!device && req.write) {
        ownBody = std::make_unique<UploadDevice>(req.body);
        device = ownBody.get();
    }
    QNetworkReply *reply = nullptr;
    if (device) {
        nr.setAttribute(QNetworkRequest::DoNotBufferUploadDataAttribute, true);
        nr.setHeader(QNetworkRequest::ContentLengthHeader, device->size());
        reply = m_nam->sendCustomRequest(nr, req.method, device);
    } else if (req.method == "GET") {
        reply = m_nam->get(nr);
    } else if (req.method == "HEAD") {
        reply = m_nam->head(nr);
    } else if (!req.body.isEmpty()) {
        reply = m_nam->sendCustomRequest(nr, req.method, req.body);
    } else {
        reply = m_nam->sendCustomRequest(nr, req.method);
    }
    if (req.onData || req.onBody)
        reply->setReadBufferSize(m_chunkSize);
    qCDebug(QVFS_HTTP) << req.method << url.toDisplayString();

    Context ctx;
    ctx.reply = reply;
    ctx.activity.start();
    ctx.pace.start();
    Context *previous = m_current;
    m_current = &ctx;
    constexpr qsizetype bodyCap = 1024 * 1024;

    QEventLoop loop;
    auto stop = [&](const Result &r) {
        if (!ctx.stop)
            ctx.stop = r;
        if (!reply->isFinished())
            reply->abort();
    };
    auto headersReady = [&] {
        if (ctx.headersSeen)
            return;
        ctx.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (ctx.status == 0)
            return;
        ctx.headersSeen = true;
        // Again now: Qt 6.4 drops the read buffer size of a request sent with a body
        // (PROPFIND) and buffers the whole answer as fast as the server sends it (a
        // 1,000,000-response listing grew the worker to 289 MB).
        if (req.onData || req.onBody)
            reply->setReadBufferSize(m_chunkSize);
        ctx.redirect = req.followRedirects && isRedirect(ctx.status) && reply->hasRawHeader("Location");
        if (!ctx.redirect && (req.onHeaders || req.onHead)) {
            const Result r = req.onHeaders ? req.onHeaders(reply, ctx.status)
                                           : req.onHead(ctx.status, reply->rawHeaderPairs(), url);
            ctx.applicationWaited();
            if (!r.ok())
                stop(r);
        }
    };
    auto readBody = [&] {
        headersReady();
        if (ctx.stop || ctx.cancelled || ctx.timedOut)
            return;
        if ((req.onData || req.onBody) && !ctx.redirect && ctx.status >= 200 && ctx.status < 300) {
            QElapsedTimer consumer;
            consumer.start();
            const Result r = req.onData ? req.onData(reply) : readPieces(reply, req.onBody);
            if (consumer.elapsed() >= ConsumerWaitMs)
                ctx.applicationWaited();
            if (!r.ok())
                stop(r);
            return;
        }
        const QByteArray b = reply->readAll();
        const qsizetype room = bodyCap - resp->body.size();
        resp->body += QByteArrayView(b).first(qMin(room, b.size()));
        if (b.size() > room) {
            // Enough of an answer nobody streams (an error page, a reply to DELETE or
            // MOVE): the rest is not waited for, however fast it comes.
            resp->bodyTruncated = true;
            ctx.bodyCapped = true;
            reply->abort();
        }
    };
    connect(reply, &QNetworkReply::metaDataChanged, &loop, [&] {
        ctx.activity.restart();
        headersReady();
    });
    connect(reply, &QNetworkReply::readyRead, &loop, readBody);
    // Progress is ProgressBytes at a time: a server that trickles a byte every second is
    // never silent for long and never done, and must end as a silent one does.
    const auto progressed = [&ctx](qint64 *mark, qint64 bytes) {
        if (bytes - *mark >= ProgressBytes) {
            *mark = bytes;
            ctx.activity.restart();
        }
    };
    connect(reply, &QNetworkReply::downloadProgress, &loop, [&](qint64 received, qint64) {
        ctx.received = received;
        progressed(&ctx.receivedMark, received);
    });
    connect(reply, &QNetworkReply::requestSent, &loop, [&] {
        // Qt sends a request again on its own: after a 401 (and, with credentials it holds,
        // whenever the challenge's realm changes: a server with a new realm each time
        // was answered tens of thousands of times a minute), after a dropped kept-alive
        // connection. A few times is enough.
        if (++ctx.sends <= MaxSendsPerRequest || ctx.stop)
            return; // (once stopped, Qt may still have had one more on its way: said once)
        qCWarning(QVFS_HTTP) << req.method << url.toDisplayString() << "was sent" << MaxSendsPerRequest
                             << "times without an answer to keep" << (ctx.authChallenged ? "(authentication)" : "");
        stop(ctx.authChallenged
                ? Result::fail(ErrCannotAuthenticate, url)
                : Result::fail(ErrServerError, urlArgument(url), "the request was sent again too often"));
    });
    connect(reply, &QNetworkReply::uploadProgress, &loop, [&](qint64 sent, qint64) {
        ctx.sent = sent;
        progressed(&ctx.sentMark, sent);
    });
    if (device) // an application feeding an upload slowly is no server gone silent
        connect(device, &UploadDevice::waitedForSource, &loop, [&ctx] { ctx.applicationWaited(); });
    connect(reply, &QNetworkReply::encrypted, &loop, [&] { ctx.activity.restart(); });
    connect(reply, &QNetworkReply::finished, &loop, [&] {
        ctx.finished = true;
        loop.quit();
    });
    QTimer tick;
    tick.setInterval(m_tickMs);
    connect(&tick, &QTimer::timeout, &loop, [&] {
        if (ctx.finished || reply->isFinished())
            return;
        if (!req.ignoreCancel && m_callbacks.cancelled && m_callbacks.cancelled()) {
            ctx.cancelled = true;
            reply->abort();
            return;
        }
        if (device && device->isShort()) {
            stop(Result::fail(ErrCannotWrite, url));
            return;
        }
        const int limit = req.ignoreCancel ? qMin(m_timeoutMs, 5000) : m_timeoutMs;
        if (ctx.activity.hasExpired(limit) || ctx.pace.tooSlow(ctx.received + ctx.sent, limit)) {
            qCDebug(QVFS_HTTP) << req.method << url.toDisplayString()
                               << "timed out:" << (ctx.activity.hasExpired(limit) ? "silent" : "too slow on average");
            ctx.timedOut = true;
            reply->abort();
        }
    });
    tick.start();
    if (!reply->isFinished())
        loop.exec();
    tick.stop();
    m_current = previous;

    if (!ctx.stop && !ctx.cancelled && !ctx.timedOut && reply->bytesAvailable() > 0)
        readBody();
    headersReady();
    resp->status = ctx.status;
    resp->reason = reply->attribute(QNetworkRequest::HttpReasonPhraseAttribute).toByteArray();
    resp->headers = reply->rawHeaderPairs();
    const QNetworkReply::NetworkError error = reply->error();
    const QString errorString = reply->errorString();
    if (!reply->attribute(QNetworkRequest::Http2WasUsedAttribute).toBool())
        m_origins[origin(url)].http1Used.start();
    reply->disconnect(&loop);
    delete reply;

    if (ctx.cancelled)
        return Result::fail(ErrCancelled);
    if (ctx.timedOut)
        return Result::fail(ErrServerTimedOut, url); // the server, not this worker
    if (ctx.stop)
        return *ctx.stop;
    if (device && device->isShort())
        return Result::fail(ErrCannotWrite, url);
    if (ctx.bodyCapped)
        return Result::pass(ctx.status); // the status and the first MiB are the answer
    if (error == QNetworkReply::ContentReSendError) {
        // A 401 answered before Qt could send the body again: the request was refused, not
        // carried out, and may go again if its body is still whole.
        if (ctx.authChallenged && (ownBody || (device && device->delivered() == 0)))
            *retryAfterAuth = true;
        qCDebug(QVFS_HTTP) << req.method << url.toDisplayString() << "not sent again after the connection closed"
                           << (ctx.authChallenged ? "(authentication)" : "");
        if (ctx.authChallenged && !*retryAfterAuth)
            return Result::fail(ErrCannotAuthenticate, url);
        return Result::fail(ErrConnectionFailed, Url::Detail::hostDisplay(url),
            "the connection closed after the " + req.method
                + " request was sent; it was not sent again and may or may not have been carried out");
    }
    if (error != QNetworkReply::NoError && (ctx.status == 0 || isTransportError(error)))
        return networkResult(error, url, errorString, ctx.sslErrorText);
    return Result::pass(ctx.status);
}

Result HttpClient::readPieces(QNetworkReply *reply, const std::function<Result(QByteArrayView)> &onBody)
{
    if (m_readBuffer.size() != m_chunkSize)
        m_readBuffer.resize(m_chunkSize);
    while (reply->bytesAvailable() > 0) {
        const qint64 n = reply->read(m_readBuffer.data(), m_readBuffer.size());
        if (n <= 0)
            break;
        const Result r = onBody(QByteArrayView(m_readBuffer).first(n));
        if (!r.ok())
            return r;
    }
    return Result::pass();
}

void HttpClient::onAuthenticationRequired(QNetworkReply *reply, QAuthenticator *auth)
{
    Context *ctx = m_current && m_current->reply == reply ? m_current : nullptr;
    int attempt = 1;
    if (ctx) {
        ctx->authChallenged = true;
        attempt = ++ctx->authAsked;
    }
    if (attempt > 3) {
        // Emptied, not left as it was: Qt sends a request again with the credentials it
        // still holds whenever the realm changes, so a server with a new realm in every
        // challenge would be answered forever (Qt 6.4).
        *auth = QAuthenticator();
        return; // the reply fails with 401
    }
    const QUrl url = reply->url().adjusted(QUrl::RemoveUserInfo);
    const QString o = origin(url);
    m_origins[o].needsAuth = true;
    const QString key = o + QLatin1Char('\n') + auth->realm();
    // Qt fills the authenticator with what it tried already (its cache or our last answer)
    const bool triedSomething = !auth->user().isEmpty();
    QString storeKey = key;
    auto stored = m_credentials.constFind(key);
    if (stored == m_credentials.constEnd()) {
        stored = m_credentials.constFind(o);
        storeKey = o;
    }
    const bool haveStored = stored != m_credentials.constEnd();
    const bool storedFailed
        = haveStored && triedSomething && stored->user == auth->user() && stored->password == auth->password();
    if (haveStored && !storedFailed) {
        auth->setUser(stored->user);
        auth->setPassword(stored->password);
        return;
    }
    QString suggestion = auth->user();
    if (haveStored) {
        suggestion = stored->user;
        m_credentials.remove(storeKey); // refused: ask, and forget them
    }
    if (!m_callbacks.credentials)
        return;
    AuthQuestion q;
    q.url = url;
    q.realm = auth->realm();
    q.user = suggestion;
    q.previousFailed = triedSomething || attempt > 1;
    const std::optional<Credentials> answer = m_callbacks.credentials(q);
    if (ctx)
        ctx->applicationWaited();
    if (!answer)
        return;
    auth->setUser(answer->user);
    auth->setPassword(answer->password);
    m_credentials.insert(key, *answer);
}

void HttpClient::onSslErrors(QNetworkReply *reply, const QList<QSslError> &errors)
{
    Context *ctx = m_current && m_current->reply == reply ? m_current : nullptr;
    const QSslConfiguration conf = reply->sslConfiguration();
    QString text;
    bool asked = false;
    const bool trusted = trustAfterErrors(reply->url().adjusted(QUrl::RemoveUserInfo), conf.peerCertificate(),
        conf.peerCertificateChain(), errors, &text, &asked);
    if (ctx) {
        ctx->sslErrorText = text;
        if (asked)
            ctx->applicationWaited();
    }
    if (trusted)
        reply->ignoreSslErrors(errors);
}

bool HttpClient::trustAfterErrors(const QUrl &url, QSslCertificate peer, QList<QSslCertificate> chain,
    const QList<QSslError> &errors, QString *errorText, bool *asked)
{
    *asked = false;
    if (peer.isNull() && !errors.isEmpty())
        peer = errors.constFirst().certificate();
    const QByteArray digest = peer.digest(QCryptographicHash::Sha256).toHex();
    QStringList texts;
    QSet<int> kinds;
    for (const QSslError &e : errors) {
        texts.append(e.errorString());
        kinds.insert(int(e.error()));
    }
    texts.removeDuplicates();
    const QString text = texts.join(QLatin1String("; "));
    *errorText = text;
    const int port = url.port(443);
    if (pinned(url, peer, errors))
        return true;
    if (!m_callbacks.trust || peer.isNull())
        return false;
    CertificateQuestion q;
    q.url = url;
    q.host = url.host();
    q.port = port;
    q.errors = errors;
    q.chain = chain;
    if (q.chain.isEmpty())
        q.chain.append(peer);
    q.sha256 = digest;
    q.errorText = text;
    const TrustDecision d = m_callbacks.trust(q);
    *asked = true;
    if (d == TrustDecision::Refuse)
        return false;
    m_pins[pinKey(url, peer)].unite(kinds);
    return true;
}

QByteArray HttpClient::pinKey(const QUrl &url, const QSslCertificate &peer)
{
    return url.host().toUtf8().toLower() + ':' + QByteArray::number(url.port(443)) + ' '
        + peer.digest(QCryptographicHash::Sha256).toHex();
}

bool HttpClient::pinned(const QUrl &url, const QSslCertificate &peer, const QList<QSslError> &errors) const
{
    QSet<int> kinds;
    for (const QSslError &e : errors)
        kinds.insert(int(e.error()));
    const auto pin = m_pins.constFind(pinKey(url, peer));
    return pin != m_pins.constEnd() && pin->contains(kinds);
}

Result HttpClient::head(const QUrl &url, ResourceInfo *info)
{
    Request req;
    req.method = "HEAD";
    req.url = url;
    req.http2 = true;
    req.headers = { { "Accept-Encoding", "identity" } };
    Response resp;
    Result r = send(req, &resp);
    if (!r.ok())
        return r;
    if (resp.status == 405 || resp.status == 501) {
        // HEAD not allowed: the headers of a one-byte GET
        Request get;
        get.method = "GET";
        get.url = resp.url;
        get.headers = { { "Accept-Encoding", "identity" }, { "Range", "bytes=0-0" } };
        bool gotHeaders = false;
        get.onHeaders = [&gotHeaders](QNetworkReply *, int status) {
            // the headers are all we want: stop before the body
            if (status < 200 || status >= 300)
                return Result::pass();
            gotHeaders = true;
            return Result::fail(ErrCancelled);
        };
        r = send(get, &resp);
        if (!r.ok() && !gotHeaders)
            return r;
    }
    if (resp.status < 200 || resp.status >= 300)
        return statusResult(Method::Head, resp.status, resp.url, QUrl(), resp.reason);
    *info = ResourceInfo();
    fillInfo(info, resp.status, resp.headers);
    info->url = resp.url;
    return Result::pass(resp.status);
}

Result HttpClient::get(const QUrl &url, qint64 offset, const GetHandler &handler)
{
    qint64 delivered = 0;
    qint64 total = -1;
    QByteArray validator;
    bool announced = false;
    int drops = 0;
    QUrl current = url;
    for (;;) {
        const qint64 from = offset + delivered;
        const bool resuming = delivered > 0;
        // What this reply's own framing promises (a 206's range, a Content-Length): never
        // more is taken, and less is a dropped transfer.
        qint64 promised = -1;
        qint64 received = 0;
        Request req;
        req.method = "GET";
        req.url = current;
        req.headers = { { "Accept-Encoding", "identity" } };
        if (from > 0)
            req.headers.append(qMakePair(QByteArrayLiteral("Range"), "bytes=" + QByteArray::number(from) + '-'));
        if (resuming)
            req.headers.append(qMakePair(QByteArrayLiteral("If-Range"), validator));
        int status = 0;
        req.onHead = [&](int answered, const QList<QNetworkReply::RawHeaderPair> &headers, const QUrl &at) -> Result {
            status = answered;
            if (status != 200 && status != 206)
                return Result::pass();
            ResourceInfo info;
            fillInfo(&info, status, headers);
            info.url = at;
            if (status == 206) {
                const auto cr = parseContentRange(headerOf(headers, "content-range"));
                if (!cr || cr->start != from || (total >= 0 && cr->total >= 0 && cr->total != total)) {
                    qCWarning(QVFS_HTTP) << "a 206 that does not continue at byte" << from << ":"
                                         << headerOf(headers, "content-range");
                    if (resuming)
                        return Result::fail(ErrSourceChanged, current, status);
                    return Result::fail(ErrServerError, urlArgument(current),
                        "the server sent a range other than the one asked for", status);
                }
                if (resuming && !sameVersion(headers, validator)) {
                    qCWarning(QVFS_HTTP) << "a resumed download of" << current.toDisplayString()
                                         << "came back as another version: ETag" << headerOf(headers, "etag")
                                         << "Last-Modified" << headerOf(headers, "last-modified") << "instead of"
                                         << validator;
                    return Result::fail(ErrSourceChanged, current, status);
                }
                promised = cr->end - cr->start + 1;
            } else if (from > 0) {
                // the whole resource instead of the part asked for: the If-Range validator
                // did not match (it changed), or the server does not do ranges
                if (resuming)
                    return Result::fail(ErrSourceChanged, current, status);
                return Result::fail(ErrUnsupportedAction, current, status);
            }
            if (status == 200)
                promised = info.size;
            if (!announced) {
                announced = true;
                total = info.size;
                validator = isStrongEtag(info.etag) ? info.etag : headerOf(headers, "last-modified").trimmed();
                if (handler.headers && !handler.headers(info))
                    return Result::fail(ErrCancelled);
            }
            return Result::pass();
        };
        req.onBody = [&](QByteArrayView chunk) -> Result {
            received += chunk.size();
            if ((promised >= 0 && received > promised) || (total >= 0 && from + received > total))
                return Result::fail(ErrServerError, urlArgument(current),
                    "the server sent more bytes than its reply announced ("
                        + QByteArray::number(promised >= 0 ? promised : total - from) + ")",
                    status);
            if (handler.data && !handler.data(chunk))
                return Result::fail(ErrCancelled);
            delivered += chunk.size();
            if (m_callbacks.cancelled && m_callbacks.cancelled())
                return Result::fail(ErrCancelled);
            return Result::pass();
        };
        Response resp;
        Result r = send(req, &resp);
        if (!resp.url.isEmpty())
            current = resp.url;
        bool dropped = false;
        if (r.ok()) {
            if (resp.status == 200 || resp.status == 206) {
                if ((total < 0 || offset + delivered >= total) && (promised < 0 || received >= promised))
                    return Result::pass(resp.status);
                dropped = true; // ended early without an error
                r = Result::fail(ErrConnectionFailed, Url::Detail::hostDisplay(current),
                    "the connection closed before the end of the data", resp.status);
            } else if (resp.status == 416 && from > 0) {
                // Nothing at or after the offset. nginx says how long the resource is
                // ("bytes */N"), Apache does not: ask.
                auto cr = parseContentRange(resp.header("content-range"));
                if (!cr || cr->total < 0) {
                    ResourceInfo probe;
                    if (head(current, &probe).ok() && probe.size >= 0) {
                        cr = ContentRange();
                        cr->total = probe.size;
                    }
                }
                if (cr && cr->total == from) {
                    if (!announced && handler.headers) {
                        ResourceInfo info;
                        fillInfo(&info, resp.status, resp.headers);
                        info.size = from;
                        info.url = current;
                        if (!handler.headers(info))
                            return Result::fail(ErrCancelled);
                    }
                    return Result::pass(resp.status);
                }
                return Result::fail(ErrCannotRead, current, resp.status);
            } else {
                return statusResult(Method::Get, resp.status, current, QUrl(), resp.reason);
            }
        } else {
            dropped = r.error == ErrConnectionFailed && announced;
        }
        if (!dropped || ++drops > 3)
            return r;
        if (delivered > 0 && validator.isEmpty()) {
            qCWarning(QVFS_HTTP) << "the download of" << current.toDisplayString()
                                 << "dropped and cannot be resumed safely (no validator)";
            return r;
        }
        qCInfo(QVFS_HTTP) << "the download of" << current.toDisplayString() << "dropped at byte" << offset + delivered
                          << (delivered > 0 ? "; resuming" : "; starting again");
    }
}

Result HttpClient::readRange(const QUrl &url, qint64 offset, char *buffer, qint64 length, qint64 *got,
    const QByteArray &validator, bool allowSkip)
{
    *got = 0;
    if (length <= 0)
        return Result::pass();
    Request req;
    req.method = "GET";
    req.url = url;
    req.headers = { { "Accept-Encoding", "identity" },
        { "Range", "bytes=" + QByteArray::number(offset) + '-' + QByteArray::number(offset + length - 1) } };
    if (!validator.isEmpty())
        req.headers.append(qMakePair(QByteArrayLiteral("If-Range"), validator));
    qint64 skip = 0; // bytes of a whole-resource answer before offset, still to drop
    bool whole = false; // a 200: the whole resource, not the range
    bool enough = false;
    req.onHeaders = [&](QNetworkReply *reply, int status) -> Result {
        if (status == 206) {
            const auto cr = parseContentRange(reply->rawHeader("Content-Range"));
            if (!cr || cr->start != offset)
                return Result::fail(
                    ErrServerError, urlArgument(url), "the server sent a range other than the one asked for", status);
            if (!validator.isEmpty() && !sameVersion(reply, validator))
                return Result::fail(ErrSourceChanged, url, status); // a server that ignores If-Range
            return Result::pass();
        }
        if (status != 200)
            return Result::pass();
        whole = true;
        if (offset == 0)
            return Result::pass();
        // The whole resource: the If-Range validator did not match, or no ranges.
        if (!validator.isEmpty())
            return Result::fail(ErrSourceChanged, url, status);
        if (!allowSkip)
            return Result::fail(ErrCannotSeek, url, status);
        skip = offset;
        return Result::pass();
    };
    req.onData = [&](QNetworkReply *reply) -> Result {
        char scratch[16384];
        while (reply->bytesAvailable() > 0) {
            qint64 n = 0;
            if (skip > 0) {
                n = reply->read(scratch, qMin<qint64>(skip, qint64(sizeof scratch)));
                if (n <= 0)
                    break;
                skip -= n;
            } else {
                if (*got == length)
                    return Result::fail(ErrServerError, urlArgument(url), "the server sent more than the range");
                n = reply->read(buffer + *got, qMin(length - *got, m_chunkSize));
                if (n <= 0)
                    break;
                *got += n;
                if (*got == length && whole) {
                    enough = true; // the whole resource goes on past the range: not read
                    return Result::fail(ErrCancelled);
                }
            }
            if (m_callbacks.cancelled && m_callbacks.cancelled())
                return Result::fail(ErrCancelled);
        }
        return Result::pass();
    };
    Response resp;
    const Result r = send(req, &resp);
    if (enough)
        return Result::pass(resp.status);
    if (!r.ok())
        return r;
    if (resp.status == 416) // nothing at or after offset
        return Result::pass(resp.status);
    if (resp.status != 200 && resp.status != 206)
        return statusResult(Method::Get, resp.status, url, QUrl(), resp.reason);
    return Result::pass(resp.status);
}

} // namespace Qvfs::Http
