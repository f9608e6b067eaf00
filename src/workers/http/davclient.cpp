// SPDX-License-Identifier: LGPL-2.1-or-later
#include "copyrules.h"
#include "davclient_p.h"
#include "error.h"
#include "http_debug.h"
#include "httpdate_p.h"
#include "url.h"

#include <QMimeDatabase>
#include <QRandomGenerator>
#include <QThread>

#include <algorithm>

namespace Qvfs::Http
{

namespace
{

QByteArray encodedPath(const QUrl &url)
{
    return url.path(QUrl::FullyEncoded).toLatin1();
}

QUrl withEncodedPath(const QUrl &url, const QByteArray &path)
{
    QUrl u = url;
    u.setPath(QString::fromLatin1(path), QUrl::TolerantMode);
    return u;
}

// The temporary beside \a target (copyrules.h's rule).
QByteArray temporaryNameBeside(const QUrl &target)
{
    const quint64 r = QRandomGenerator::system()->generate64();
    return temporaryNameFor(Url::fileName(target), QByteArray::number(r, 16).rightJustified(16, '0'));
}

// An argument naming one URL is replaced by another (a temporary by the name the
// caller asked for).
Result renamed(Result r, const QUrl &from, const QUrl &to)
{
    const QByteArray f = urlArgument(from);
    if (r.arg1 == f)
        r.arg1 = urlArgument(to);
    if (r.arg2 == f)
        r.arg2 = urlArgument(to);
    return r;
}

bool isSuccess(int status)
{
    return status >= 200 && status < 300;
}

// The raw-byte segments of a wire URL's path ("/a//b/" and "/a/b" alike).
QByteArrayList segments(const QUrl &url)
{
    QByteArrayList out;
    for (const QByteArray &s : encodedPath(url).split('/')) {
        if (!s.isEmpty())
            out.append(QByteArray::fromPercentEncoding(s));
    }
    return out;
}

// Whether \a url is \a ancestor or lies below it, on the same server.
bool isAncestorOrSame(const QUrl &ancestor, const QUrl &url)
{
    if (HttpClient::origin(ancestor) != HttpClient::origin(url))
        return false;
    const QByteArrayList a = segments(ancestor);
    const QByteArrayList u = segments(url);
    return a.size() <= u.size() && std::equal(a.cbegin(), a.cend(), u.cbegin());
}

} // namespace

DavClient::DavClient(HttpClient *http)
    : m_http(http)
{ }

QUrl DavClient::collectionUrl(const QUrl &url)
{
    const QUrl u = HttpClient::wireUrl(url);
    QByteArray p = encodedPath(u);
    if (!p.endsWith('/'))
        p += '/';
    return withEncodedPath(u, p);
}

QUrl DavClient::resourceUrl(const QUrl &url)
{
    const QUrl u = HttpClient::wireUrl(url);
    QByteArray p = encodedPath(u);
    while (p.size() > 1 && p.endsWith('/'))
        p.chop(1);
    return withEncodedPath(u, p);
}

QByteArray DavClient::guessMimeType(QByteArrayView name)
{
    static const QMimeDatabase db;
    const QMimeType t = db.mimeTypeForFile(QString::fromUtf8(name), QMimeDatabase::MatchExtension);
    return t.isValid() ? t.name().toUtf8() : QByteArrayLiteral("application/octet-stream");
}

Result DavClient::propfind(const QUrl &url, int depth, PropfindParser::Mode mode,
    const std::function<bool(const DavEntry &)> &onEntry, DavEntry *self, ListStats *stats, bool http2,
    const PropfindParser::UnsafeNameHandler &onUnsafeName, DavProperties props)
{
    HttpClient::Request req;
    req.method = "PROPFIND";
    req.url = url;
    req.headers = { { "Depth", QByteArray::number(depth) }, { "Content-Type", "application/xml; charset=utf-8" } };
    req.body = propfindRequestBody(props);
    // A listing streams a body of any length: HTTP/1.1, where the read buffer holds the
    // server back (see HttpClient).
    req.http2 = http2 && depth == 0;
    if (depth == 0)
        return propfindOne(req, mode, self);
    std::unique_ptr<PropfindParser> parser;
    qint64 received = 0;
    qint64 chunks = 0;
    qint64 atFirst = -1;
    bool handlerStopped = false;
    req.onHeaders = [&](QNetworkReply *reply, int st) {
        if (st == 207) {
            parser = std::make_unique<PropfindParser>(encodedPath(reply->url()), mode, [&](const DavEntry &e) {
                if (atFirst < 0)
                    atFirst = received;
                if (onEntry && !onEntry(e)) {
                    handlerStopped = true;
                    return false;
                }
                return true;
            });
            parser->setUnsafeNameHandler(onUnsafeName);
        } else if (isSuccess(st)) {
            // a plain web server answering 200: not WebDAV here
            return Result::fail(ErrUnsupportedAction, url, st);
        }
        return Result::pass();
    };
    req.onData = [&](QNetworkReply *reply) {
        if (!parser)
            return Result::pass();
        while (reply->bytesAvailable() > 0) {
            const QByteArray chunk = reply->read(m_http->chunkSize());
            if (chunk.isEmpty())
                break;
            received += chunk.size();
            ++chunks;
            if (!parser->addData(chunk)) {
                if (handlerStopped)
                    return Result::fail(ErrCancelled); // stops the transfer; not an error (below)
                qCWarning(QVFS_HTTP) << "PROPFIND" << url.toDisplayString() << ":" << parser->errorString();
                return Result::fail(ErrServerError, urlArgument(url),
                    "malformed PROPFIND reply: " + parser->errorString().toUtf8(), 207);
            }
        }
        return Result::pass();
    };
    HttpClient::Response resp;
    const Result r = m_http->send(req, &resp);
    if (stats) {
        stats->bytes = received;
        stats->chunks = chunks;
        stats->bytesAtFirstEntry = atFirst;
        if (parser) {
            stats->entries = parser->entryCount();
            stats->skipped = parser->skippedCount();
        }
    }
    if (handlerStopped && r.error == ErrCancelled) {
        if (self && parser && parser->haveSelf())
            *self = parser->self();
        return Result::pass(resp.status);
    }
    if (!r.ok())
        return r;
    if (resp.status != 207)
        return statusResult(Method::Propfind, resp.status, resp.url, QUrl(), resp.reason);
    if (!parser || !parser->finish()) {
        const QString why = parser ? parser->errorString() : QStringLiteral("no body");
        qCWarning(QVFS_HTTP) << "PROPFIND" << url.toDisplayString() << ":" << why;
        return Result::fail(ErrServerError, urlArgument(url), "malformed PROPFIND reply: " + why.toUtf8(), 207);
    }
    if (self && parser->haveSelf())
        *self = parser->self();
    if (!parser->haveSelf() && mode == PropfindParser::Mode::Self)
        return Result::fail(ErrServerError, urlArgument(url), "the PROPFIND reply has no response", 207);
    return Result::pass(207);
}

Result DavClient::propfindOne(HttpClient::Request &req, PropfindParser::Mode mode, DavEntry *self)
{
    // One response: read whole (up to the client's 1 MiB for an answer nobody streams,
    // which a stat's never nears), then parsed; no streaming callbacks, so that the
    // client may send it on its own kept-alive connection (HttpClient::setDirect()).
    HttpClient::Response resp;
    const Result r = m_http->send(req, &resp);
    if (!r.ok())
        return r;
    if (isSuccess(resp.status) && resp.status != 207)
        return Result::fail(ErrUnsupportedAction, req.url, resp.status); // a plain web server: not WebDAV here
    if (resp.status != 207)
        return statusResult(Method::Propfind, resp.status, resp.url, QUrl(), resp.reason);
    PropfindParser parser(encodedPath(resp.url), mode, nullptr);
    if (resp.bodyTruncated || !parser.addData(resp.body) || !parser.finish()) {
        const QString why = resp.bodyTruncated ? QStringLiteral("longer than 1 MiB") : parser.errorString();
        qCWarning(QVFS_HTTP) << "PROPFIND" << req.url.toDisplayString() << ":" << why;
        return Result::fail(ErrServerError, urlArgument(req.url), "malformed PROPFIND reply: " + why.toUtf8(), 207);
    }
    if (self && parser.haveSelf())
        *self = parser.self();
    if (!parser.haveSelf() && mode == PropfindParser::Mode::Self)
        return Result::fail(ErrServerError, urlArgument(req.url), "the PROPFIND reply has no response", 207);
    return Result::pass(207);
}

Result DavClient::stat(const QUrl &url, DavEntry *entry)
{
    return statWith(url, entry, true);
}

Result DavClient::statBeforeWrite(const QUrl &url, DavEntry *entry)
{
    return statWith(url, entry, false);
}

Result DavClient::statWith(const QUrl &url, DavEntry *entry, bool http2)
{
    DavEntry e;
    const QUrl u = HttpClient::wireUrl(url);
    Result r = propfind(u, 0, PropfindParser::Mode::Self, nullptr, &e, nullptr, http2);
    if (!r.ok())
        return r;
    if (e.status != 0 && !isSuccess(e.status))
        return statusResult(Method::Propfind, e.status, u);
    e.name = Url::fileName(u);
    if (entry)
        *entry = std::move(e);
    return r;
}

Result DavClient::quota(const QUrl &url, Quota *quota)
{
    DavEntry e;
    const QUrl u = HttpClient::wireUrl(url);
    const Result r = propfind(u, 0, PropfindParser::Mode::Self, nullptr, &e, nullptr, true, {},
        DavProperties(DavProperty::QuotaAvailableBytes) | DavProperty::QuotaUsedBytes);
    if (!r.ok())
        return r;
    if (e.status != 0 && !isSuccess(e.status))
        return statusResult(Method::Propfind, e.status, u);
    quota->available = e.quotaAvailable;
    quota->used = e.quotaUsed;
    qCDebug(QVFS_HTTP) << "quota of" << u.toDisplayString() << "available" << e.quotaAvailable << "used" << e.quotaUsed;
    return r;
}

Result DavClient::list(const QUrl &url, const std::function<bool(const DavEntry &)> &onEntry, ListStats *stats,
    const PropfindParser::UnsafeNameHandler &onUnsafeName)
{
    const QUrl u = collectionUrl(url);
    DavEntry self;
    Result r = propfind(u, 1, PropfindParser::Mode::Children, onEntry, &self, stats, false, onUnsafeName);
    const bool refused = r.error == ErrDoesNotExist || r.httpStatus == 400 || r.httpStatus == 409;
    if (refused || (r.ok() && self.isSelf && self.hasProperties && !self.isCollection)) {
        // "file/" is not found (nginx: 404, Apache: 400); is "file" there?
        DavEntry e;
        const Result s = stat(resourceUrl(url), &e);
        if (s.ok() && !e.isCollection)
            return Result::fail(ErrIsNotDirectory, resourceUrl(url), r.httpStatus);
        if (!r.ok())
            return r;
    }
    return r;
}

Result DavClient::mkcol(const QUrl &url)
{
    const QUrl u = collectionUrl(url);
    HttpClient::Request req;
    req.method = "MKCOL";
    req.url = u;
    req.write = true;
    HttpClient::Response resp;
    Result r = m_http->send(req, &resp);
    if (!r.ok())
        return r;
    if (isSuccess(resp.status))
        return Result::pass(resp.status);
    if (resp.status == 405 || resp.status == 400) {
        // "already exists" (Apache answers 400 where a file has the name), or MKCOL is
        // not allowed here at all
        const Result s = statBeforeWrite(resourceUrl(url), nullptr);
        if (s.ok())
            return Result::fail(ErrAlreadyExists, resourceUrl(url), resp.status);
        if (resp.status == 405)
            return Result::fail(ErrUnsupportedAction, u, 405);
    }
    return statusResult(Method::Mkcol, resp.status, u, QUrl(), resp.reason);
}

Result DavClient::multistatusError(Method method, const QUrl &url, const QByteArray &body, const QUrl &dest)
{
    std::optional<Result> first;
    PropfindParser parser(encodedPath(url), PropfindParser::Mode::All, [&](const DavEntry &e) {
        if (e.status != 0 && !isSuccess(e.status) && e.status != 424) { // 424: failed because another did
            const QUrl member = url.resolved(QUrl::fromEncoded(e.href, QUrl::TolerantMode));
            first = statusResult(method, e.status, member.isValid() ? member : url, dest);
            return false;
        }
        return true;
    });
    parser.addData(body);
    if (first)
        return *first;
    if (!parser.finish() && !parser.stopped())
        qCWarning(QVFS_HTTP) << "unreadable multistatus answer for" << url.toDisplayString() << parser.errorString();
    // A 207 without a readable failure: the operation did not fully succeed.
    return Result::fail(method == Method::Delete ? ErrCannotDelete : ErrCannotWrite, url, 207);
}

void DavClient::removeQuietly(const QUrl &url, bool afterAbortedPut)
{
    for (int waitMs = 50;; waitMs *= 2) {
        HttpClient::Request req;
        req.method = "DELETE";
        req.url = url;
        req.write = true;
        req.ignoreCancel = true;
        HttpClient::Response resp;
        const Result r = m_http->send(req, &resp);
        qCDebug(QVFS_HTTP) << "removed the temporary" << url.toDisplayString() << r.error << resp.status;
        if (!afterAbortedPut || resp.status != 404 || waitMs > 400)
            return;
        QThread::msleep(waitMs); // 50 + 100 + 200 + 400 ms at most
    }
}

Result DavClient::resolveKind(const QUrl &url, Kind *kind)
{
    if (*kind != Kind::Unknown)
        return Result::pass();
    DavEntry e;
    const Result s = statBeforeWrite(url, &e);
    if (s.ok())
        *kind = e.isCollection ? Kind::Collection : Kind::File;
    return s;
}

Result DavClient::remove(const QUrl &url, bool recursive, Kind kind)
{
    if (const Result s = resolveKind(url, &kind); !s.ok())
        return s;
    HttpClient::Request req;
    req.method = "DELETE";
    req.write = true;
    if (kind == Kind::Collection) {
        req.url = collectionUrl(url);
        if (!recursive) {
            bool members = false;
            const Result l = list(req.url, [&](const DavEntry &) {
                members = true;
                return false;
            });
            if (!l.ok())
                return l;
            if (members)
                return Result::fail(ErrDirectoryNotEmpty, resourceUrl(url));
        }
        req.headers = { { "Depth", "infinity" } };
    } else {
        req.url = resourceUrl(url);
    }
    HttpClient::Response resp;
    Result r = m_http->send(req, &resp);
    if (!r.ok())
        return r;
    if (resp.status == 207)
        return multistatusError(Method::Delete, req.url, resp.body, QUrl());
    return statusResult(Method::Delete, resp.status, resourceUrl(url), QUrl(), resp.reason);
}

Result DavClient::move(const QUrl &from, const QUrl &to, bool overwrite, Kind kind)
{
    return copyOrMove("MOVE", from, to, overwrite, kind);
}

Result DavClient::copy(const QUrl &from, const QUrl &to, bool overwrite, Kind kind)
{
    return copyOrMove("COPY", from, to, overwrite, kind);
}

Result DavClient::copyOrMove(const QByteArray &method, const QUrl &from, const QUrl &to, bool overwrite, Kind kind)
{
    const Method m = method == "MOVE" ? Method::Move : Method::Copy;
    const QUrl src0 = resourceUrl(from);
    const QUrl dst0 = resourceUrl(to);
    if (isAncestorOrSame(src0, dst0) && isAncestorOrSame(dst0, src0))
        return Result::fail(ErrIdenticalFiles, src0);
    if (HttpClient::origin(src0) != HttpClient::origin(dst0))
        return Result::fail(ErrUnsupportedAction, dst0);
    if (const Result s = resolveKind(src0, &kind); !s.ok())
        return s;
    const bool collection = kind == Kind::Collection;
    if (collection && isAncestorOrSame(src0, dst0))
        return Result::fail(ErrCycle, dst0);
    HttpClient::Request req;
    req.method = method;
    req.url = collection ? collectionUrl(from) : src0;
    const QUrl dst = collection ? collectionUrl(to) : dst0;
    req.write = true;
    req.headers = { { "Destination", dst.toEncoded() }, { "Overwrite", overwrite ? "T" : "F" } };
    if (collection)
        req.headers.append(qMakePair(QByteArrayLiteral("Depth"), QByteArrayLiteral("infinity")));
    HttpClient::Response resp;
    Result r = m_http->send(req, &resp);
    if (!r.ok())
        return r;
    const int st = resp.status;
    if (st == 207)
        return multistatusError(m, req.url, resp.body, dst0);
    if (isSuccess(st))
        return Result::pass(st);
    if (st == 404)
        return Result::fail(ErrDoesNotExist, src0, st);
    if (st == 500 || st == 409) {
        // Apache answers 500 when the destination's folder is missing
        const QUrl parent = collectionUrl(Url::parent(dst0));
        const Result s = statBeforeWrite(parent, nullptr);
        if (s.error == ErrDoesNotExist)
            return Result::fail(ErrDoesNotExist, parent, st);
    }
    return statusResult(m, st, src0, dst0, resp.reason);
}

Result DavClient::checkFolder(const QUrl &url)
{
    const QUrl folder = collectionUrl(url);
    DavEntry e;
    Result s = statBeforeWrite(folder, &e);
    if (s.ok())
        return e.isCollection ? s : Result::fail(ErrIsNotDirectory, resourceUrl(url));
    if (s.error != ErrDoesNotExist && s.httpStatus != 400 && s.httpStatus != 409)
        return s;
    // "file/" refused: is "file" a file?
    if (statBeforeWrite(resourceUrl(url), &e).ok() && !e.isCollection)
        return Result::fail(ErrIsNotDirectory, resourceUrl(url));
    return Result::fail(ErrDoesNotExist, folder, s.httpStatus);
}

Result DavClient::checkPutDestination(const QUrl &url, bool overwrite)
{
    const QUrl target = resourceUrl(url);
    if (Url::fileName(target).isEmpty())
        return Result::fail(ErrIsDirectory, target);
    DavEntry existing;
    Result s = statBeforeWrite(target, &existing);
    if (s.ok()) {
        if (existing.isCollection)
            return Result::fail(ErrIsDirectory, target);
        if (!overwrite)
            return Result::fail(ErrAlreadyExists, target);
        return Result::pass();
    }
    if (s.error == ErrDoesNotExist || s.httpStatus == 400 || s.httpStatus == 409) {
        // (Apache answers 400 when a file stands where a folder of the path should be)
        return checkFolder(Url::parent(target));
    }
    return s;
}

Result DavClient::upload(
    const QUrl &url, qint64 size, const UploadDevice::Pull &pull, std::optional<qint64> mtime, bool *mtimeAccepted)
{
    const QUrl u = resourceUrl(url);
    if (size < 0)
        return Result::fail(ErrUnsupportedAction, u);
    UploadDevice body(size, pull);
    HttpClient::Request req;
    req.method = "PUT";
    req.url = u;
    req.upload = &body;
    req.write = true;
    if (mtime) {
        req.headers.append(qMakePair(QByteArrayLiteral("X-OC-Mtime"), QByteArray::number(*mtime)));
        req.headers.append(qMakePair(QByteArrayLiteral("Date"), formatHttpDate(*mtime)));
    }
    HttpClient::Response resp;
    Result r = m_http->send(req, &resp);
    if (r.ok() && !isSuccess(resp.status))
        r = statusResult(Method::Put, resp.status, u, QUrl(), resp.reason);
    if (r.ok() && body.delivered() < size && !body.isShort()) {
        // A success before the body was all sent: the server stopped reading and cannot
        // hold what it was not given. Its fault, not the source's.
        qCWarning(QVFS_HTTP) << "the server answered" << resp.status << "to the PUT of" << u.toDisplayString()
                             << "after" << body.delivered() << "of" << size << "bytes";
        r = Result::fail(ErrServerError, urlArgument(u),
            "the server answered " + QByteArray::number(resp.status) + " before the whole body was sent ("
                + QByteArray::number(body.delivered()) + " of " + QByteArray::number(size) + " bytes)");
    }
    if (r.ok() && !body.checkEnd()) {
        qCWarning(QVFS_HTTP) << "the data for" << u.toDisplayString() << "was not" << size << "bytes";
        r = Result::fail(ErrCannotWrite, u);
    }
    if (r.error == ErrConnectionFailed) {
        // Qt 6.4 drops an answer that comes while it is still sending the body (Apache
        // refusing a body over LimitRequestBody: 413, then close), so say what we know.
        r.arg2 = "the server closed the connection during the upload (it may have refused it; "
            + QByteArray::number(body.delivered()) + " of " + QByteArray::number(size)
            + " bytes were handed over); nothing was written";
    }
    if (mtimeAccepted)
        *mtimeAccepted = r.ok() && resp.header("x-oc-mtime").trimmed().compare("accepted", Qt::CaseInsensitive) == 0;
    return r;
}

Result DavClient::put(
    const QUrl &url, qint64 size, const UploadDevice::Pull &pull, const PutOptions &options, PutOutcome *outcome)
{
    const QUrl target = resourceUrl(url);
    if (size < 0)
        return Result::fail(ErrUnsupportedAction, target);
    Result r = checkPutDestination(target, options.overwrite);
    if (!r.ok())
        return r;

    const QUrl temp = Url::child(collectionUrl(Url::parent(target)), temporaryNameBeside(target));
    bool ocAccepted = false;
    r = upload(temp, size, pull, options.mtime, &ocAccepted);
    if (!r.ok()) {
        removeQuietly(temp);
        if (r.error == ErrDoesNotExist && r.arg1 == urlArgument(temp))
            r.arg1 = urlArgument(collectionUrl(Url::parent(target))); // the folder vanished meanwhile
        return renamed(r, temp, target);
    }
    r = move(temp, target, options.overwrite, Kind::File);
    if (!r.ok()) {
        removeQuietly(temp);
        return renamed(r, temp, target);
    }
    if (outcome) {
        outcome->url = target;
        outcome->mtimeKept = false;
        if (options.mtime) {
            outcome->mtimeKept = ocAccepted;
            DavEntry e;
            if (!ocAccepted && stat(target, &e).ok() && e.mtime && *e.mtime == *options.mtime)
                outcome->mtimeKept = true;
        }
    }
    return r;
}

} // namespace Qvfs::Http
