// SPDX-License-Identifier: LGPL-2.1-or-later
// The http(s)/WebDAV worker: the engine's callbacks, URL and error mapping, and the
// read side (stat, free space, get, list). Writes are in httpworker_dav.cpp, uploads and
// local-file copies in httpworker_transfer.cpp.
#include "httpworker.h"

#include "certificatepins_p.h"
#include "http_debug.h"
#include "rawpath_p.h"
#include "url.h"

namespace Qvfs
{

using namespace Http;

namespace
{

QString schemeOf(const QUrl &url)
{
    return url.scheme().toLower();
}

bool isHidden(QByteArrayView name)
{
    const qsizetype slash = name.lastIndexOf('/');
    const QByteArrayView last = slash >= 0 ? name.sliced(slash + 1) : name;
    return last.startsWith('.');
}

} // namespace

HttpWorker::HttpWorker()
    : WorkerBase(QByteArrayLiteral("http"), EventLoop)
{ }

HttpWorker::~HttpWorker() = default;

bool HttpWorker::isDav(const QUrl &url)
{
    const QString s = schemeOf(url);
    return s == QLatin1String("webdav") || s == QLatin1String("webdavs") || s == QLatin1String("dav")
        || s == QLatin1String("davs");
}

void HttpWorker::ensureClient()
{
    if (m_http)
        return;
    m_http = std::make_unique<HttpClient>();
    m_dav = std::make_unique<DavClient>(m_http.get());
    HttpClient::Callbacks cb;
    cb.cancelled = [this] { return wasKilled(); };
    cb.redirected = [this](const QUrl &from, const QUrl &to, int status) { onRedirected(from, to, status); };
    cb.credentials = [this](const AuthQuestion &q) { return answerCredentials(q); };
    cb.trust = [this](const CertificateQuestion &q) { return answerTrust(q); };
    m_http->setCallbacks(cb);
    // A request that makes no progress this long fails (ErrServerTimedOut); below the pool's
    // silence deadline. The variable is for tests that wait for a timeout.
    bool set = false;
    const int timeoutMs = qEnvironmentVariableIntValue("QVFS_HTTP_TIMEOUT_MS", &set);
    if (set && timeoutMs > 0)
        m_http->setTransferTimeout(timeoutMs);
    // tests and measurements: QVFS_HTTP_DIRECT=0 sends everything through Qt;
    // QVFS_HTTP_DIRECT_GETS=1 sends downloads over plain http direct too (as https ones go)
    if (qEnvironmentVariableIsSet("QVFS_HTTP_DIRECT"))
        m_http->setDirect(qEnvironmentVariableIntValue("QVFS_HTTP_DIRECT") > 0);
    m_http->setDirectHttpGets(qEnvironmentVariableIntValue("QVFS_HTTP_DIRECT_GETS") > 0);
    CertificatePins::load(m_http.get());
}

void HttpWorker::setHost(const QUrl &host)
{
    // One client for every host, for the worker's life: Qt keeps a connection set per
    // host and the engine credentials per server, so nothing is dropped when the pool
    // hands this worker another server. Another user on the same server is another
    // matter: the connections, Qt's authentication cache and the engine's credentials
    // belong to the previous one, so they go (a fresh client).
    const QString origin = HttpClient::origin(host);
    const QString user = host.userName(QUrl::FullyDecoded);
    if (m_http && origin == m_hostOrigin && user != m_hostUser) {
        qCDebug(QVFS_HTTP) << "another user on" << origin << ": a fresh client";
        m_dav.reset();
        m_http.reset();
    }
    m_hostOrigin = origin;
    m_hostUser = user;
    ensureClient();
}

void HttpWorker::begin(const QUrl &url)
{
    ensureClient();
    m_scheme = schemeOf(url);
    m_requestUrl = url;
    m_davRequest = isDav(url);
    // A password in the URL counts whatever the scheme: the WebDAV layer sends URLs
    // without user information, so the client hears of it here.
    m_http->useUrlCredentials(url);
    m_redirectedToCollection = false;
    m_expectSlashRedirect = false;
}

QUrl HttpWorker::toRequestScheme(const QUrl &url) const
{
    if (!m_davRequest)
        return url;
    QUrl u = url;
    const bool tls = url.scheme() == QLatin1String("https");
    const bool requestTls = m_scheme == QLatin1String("webdavs") || m_scheme == QLatin1String("davs");
    if (tls == requestTls)
        u.setScheme(m_scheme);
    else
        u.setScheme(tls ? QStringLiteral("webdavs") : QStringLiteral("webdav"));
    return u;
}

QByteArray HttpWorker::toRequestScheme(const QByteArray &arg) const
{
    if (!m_davRequest || !(arg.startsWith("http://") || arg.startsWith("https://")))
        return arg;
    const QUrl u = QUrl::fromEncoded(arg, QUrl::StrictMode);
    if (!u.isValid())
        return arg;
    return toRequestScheme(u).toEncoded();
}

WorkerResult HttpWorker::result(const Result &r)
{
    if (r.ok())
        return WorkerResult::pass();
    if (wasKilled())
        return WorkerResult::fail(ErrCancelled);
    return WorkerResult::fail(r.error, r.arg1.isNull() ? r.arg1 : toRequestScheme(r.arg1),
        r.arg2.isNull() ? r.arg2 : toRequestScheme(r.arg2));
}

// ---------------------------------------------------------------- the engine's callbacks

void HttpWorker::onRedirected(const QUrl &from, const QUrl &to, int status)
{
    Q_UNUSED(status)
    if (m_expectSlashRedirect && HttpClient::origin(from) == HttpClient::origin(to)
        && to.path(QUrl::FullyEncoded) == from.path(QUrl::FullyEncoded) + QLatin1Char('/')) {
        // a WebDAV GET of a collection named without its slash: not a move of the
        // resource, so not reported (get() fails with ErrIsDirectory)
        m_redirectedToCollection = true;
        return;
    }
    QUrl target = toRequestScheme(to);
    // the user name stays with its server (the application's credential cache is keyed by it)
    if (!m_requestUrl.userName().isEmpty() && HttpClient::origin(to) == HttpClient::origin(m_requestUrl))
        target.setUserName(m_requestUrl.userName());
    redirection(target);
}

std::optional<Http::Credentials> HttpWorker::answerCredentials(const AuthQuestion &q)
{
    PasswordQuestion pq;
    pq.url = toRequestScheme(q.url);
    // The user name the URL gives, and no other: the application's credential cache is
    // keyed by it, so every worker (and the question after a refusal) must name the same.
    if (HttpClient::origin(q.url) == HttpClient::origin(m_requestUrl))
        pq.user = m_requestUrl.userName(QUrl::FullyDecoded);
    if (!pq.user.isEmpty())
        pq.url.setUserName(pq.user);
    pq.realm = q.realm;
    pq.retry = q.previousFailed;
    const Qvfs::Credentials answer = askPassword(pq);
    if (!answer.answered)
        return std::nullopt;
    return Http::Credentials { answer.user, answer.password };
}

Http::TrustDecision HttpWorker::answerTrust(const CertificateQuestion &q)
{
    TrustQuestion tq;
    tq.kind = QuestionKind::Certificate;
    const bool defaultPort = q.port == 443;
    tq.host = defaultPort ? q.host : q.host + QLatin1Char(':') + QString::number(q.port);
    tq.fingerprint = QStringLiteral("SHA256:") + QString::fromLatin1(q.sha256);
    QString detail = q.errorText;
    if (!q.chain.isEmpty()) {
        const QSslCertificate &peer = q.chain.constFirst();
        detail += QStringLiteral("; subject: ") + peer.subjectDisplayName() + QStringLiteral("; issuer: ")
            + peer.issuerDisplayName() + QStringLiteral("; valid until ") + peer.expiryDate().toString(Qt::ISODate);
    }
    tq.detail = detail;
    switch (askTrust(tq)) {
    case Trust::Refuse:
        return TrustDecision::Refuse;
    case Trust::Once:
        return TrustDecision::Once;
    case Trust::Always:
        if (!CertificatePins::store(q.host, q.port, q.sha256, q.errors))
            qCWarning(QVFS_HTTP) << "could not record the trusted certificate in" << CertificatePins::filePath();
        return TrustDecision::Always;
    }
    return TrustDecision::Refuse;
}

// ---------------------------------------------------------------- entries

void HttpWorker::addDavEntry(QByteArrayView name, const DavEntry &e, Details details)
{
    beginEntry();
    addString(Name, name);
    if (details & DetailBasic) {
        addNumber(Type, qint64(e.isCollection ? FileType::Directory : FileType::Regular));
        if (!e.isCollection && e.size >= 0)
            addNumber(Size, e.size);
        if (isHidden(name))
            addNumber(Hidden, 1);
    }
    if ((details & DetailTime) && e.mtime)
        addNumber(MTime, *e.mtime);
    if (details & DetailMimeType) {
        if (e.isCollection)
            addAtom(MimeType, "inode/directory");
        else if (!e.contentType.isEmpty())
            addAtom(MimeType, e.contentType);
        else
            addAtom(MimeType, DavClient::guessMimeType(e.name));
    }
    endEntry();
}

// ---------------------------------------------------------------- stat

WorkerResult HttpWorker::stat(const StatRequest &request)
{
    begin(request.url);
    QByteArray name = Url::fileName(request.url);
    if (name.isEmpty())
        name = QByteArrayLiteral("/");
    if (m_davRequest) {
        DavEntry e;
        const Result r = m_dav->stat(request.url, &e);
        if (!r.ok())
            return result(r);
        addDavEntry(name, e, request.details);
        return WorkerResult::pass();
    }
    ResourceInfo info;
    const Result r = m_http->head(request.url, &info);
    if (!r.ok())
        return result(r);
    beginEntry();
    addString(Name, name);
    if (request.details & DetailBasic) {
        addNumber(Type, qint64(FileType::Regular));
        if (info.size >= 0)
            addNumber(Size, info.size);
        if (isHidden(name))
            addNumber(Hidden, 1);
    }
    if ((request.details & DetailTime) && info.mtime)
        addNumber(MTime, *info.mtime);
    if (request.details & DetailMimeType)
        addAtom(MimeType, info.contentType.isEmpty() ? DavClient::guessMimeType(name) : info.contentType);
    endEntry();
    return WorkerResult::pass();
}

// ---------------------------------------------------------------- free space

WorkerResult HttpWorker::freeSpace(const FreeSpaceRequest &request)
{
    begin(request.url);
    if (!m_davRequest)
        return result(Result::fail(ErrUnsupportedAction, HttpClient::wireUrl(request.url)));
    DavClient::Quota quota;
    const Result r = m_dav->quota(request.url, &quota);
    if (!r.ok())
        return result(r);
    if (quota.available < 0 && quota.used < 0) {
        qCDebug(QVFS_HTTP) << "no quota properties for" << HttpClient::wireUrl(request.url).toDisplayString();
        return result(Result::fail(ErrUnsupportedAction, HttpClient::wireUrl(request.url), r.httpStatus));
    }
    // RFC 4331 knows no reserve: what the user may still store is free space too.
    if (quota.available >= 0) {
        setResult(ResultKey::SpaceAvailable, quota.available);
        setResult(ResultKey::SpaceFree, quota.available);
    }
    if (quota.used >= 0)
        setResult(ResultKey::SpaceUsed, quota.used);
    if (quota.available >= 0 && quota.used >= 0) {
        const qint64 total = quota.used > INT64_MAX - quota.available ? INT64_MAX : quota.available + quota.used;
        setResult(ResultKey::SpaceTotal, total);
    }
    return WorkerResult::pass();
}

// ---------------------------------------------------------------- get

WorkerResult HttpWorker::download(const QUrl &requestUrl, qint64 offset, const Http::HttpClient::GetHandler &handler)
{
    m_expectSlashRedirect = m_davRequest && !requestUrl.path().endsWith(QLatin1Char('/'));
    const QUrl url = m_davRequest ? DavClient::resourceUrl(requestUrl) : requestUrl;
    bool delivered = false;
    HttpClient::GetHandler h;
    h.headers = [&](const ResourceInfo &info) {
        if (m_redirectedToCollection)
            return false;
        return !handler.headers || handler.headers(info);
    };
    h.data = [&](QByteArrayView chunk) {
        delivered = true;
        return handler.data(chunk);
    };
    const Result r = m_http->get(url, offset, h);
    if (m_redirectedToCollection)
        return WorkerResult::fail(ErrIsDirectory, requestUrl);
    if (!r.ok() && m_davRequest && !delivered && r.error != ErrCancelled && r.error != ErrServerTimedOut
        && r.error != ErrConnectionFailed && r.error != ErrHostNotFound && r.error != ErrUntrustedCertificate) {
        // a collection (nginx: 403 for "folder/", Apache: an index or 403)?
        DavEntry e;
        if (m_dav->stat(requestUrl, &e).ok() && e.isCollection)
            return WorkerResult::fail(ErrIsDirectory, requestUrl);
    }
    return result(r);
}

WorkerResult HttpWorker::get(const GetRequest &request)
{
    begin(request.url);
    qint64 done = 0;
    HttpClient::GetHandler h;
    h.headers = [&](const ResourceInfo &info) {
        QByteArray type = info.contentType;
        if (type.isEmpty())
            type = DavClient::guessMimeType(Url::fileName(request.url));
        mimeType(QString::fromLatin1(type)); // before any data
        if (info.size >= 0)
            setTotals(qMax<qint64>(info.size - request.offset, 0), 1, -1);
        return true;
    };
    h.data = [&](QByteArrayView chunk) {
        data(chunk); // blocks while the application is slow: the server waits
        done += chunk.size();
        setProcessed(done);
        return !wasKilled();
    };
    const WorkerResult r = download(request.url, request.offset, h);
    if (r.ok())
        setProcessed(done, 1);
    return r;
}

// ---------------------------------------------------------------- list

WorkerResult HttpWorker::listDir(const ListRequest &request)
{
    begin(request.url);
    if (!m_davRequest)
        return WorkerResult::fail(ErrUnsupportedAction, request.url);
    // A recursive listing goes folder by folder (servers refuse Depth infinity), each
    // folder streamed as it arrives; the names are paths relative to the first.
    struct Folder
    {
        QUrl url;
        QByteArray prefix;
    };
    QList<Folder> folders { Folder { request.url, QByteArray() } };
    qint64 skipped = 0;
    bool killed = false;
    for (qsizetype i = 0; i < folders.size(); ++i) {
        const Folder folder = folders.at(i);
        const Result r = m_dav->list(
            folder.url,
            [&](const DavEntry &e) {
                if (wasKilled()) {
                    killed = true;
                    return false;
                }
                const QByteArray name = Internal::joinPath(folder.prefix, e.name);
                addDavEntry(name, e, request.details);
                if (request.recursive && e.isCollection) {
                    if (name.size() > MaxTreePathBytes)
                        leftOut(Url::child(folder.url, e.name), ErrUrlTooLong); // listed, not entered
                    else
                        folders.append(Folder { Url::child(folder.url, e.name), name });
                }
                return true;
            },
            nullptr, [&](QByteArrayView unsafe) { leftOutUnsafeName(folder.url, unsafe); });
        if (killed || wasKilled())
            return WorkerResult::fail(ErrCancelled);
        if (!r.ok()) {
            if (i == 0)
                return result(r);
            qCInfo(QVFS_HTTP) << "could not list" << folder.url.toDisplayString() << r.error << r.httpStatus;
            ++skipped;
        }
    }
    if (request.recursive && skipped)
        setResult(ResultKey::SkippedFolders, skipped);
    return WorkerResult::pass();
}

} // namespace Qvfs
