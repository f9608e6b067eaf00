// SPDX-License-Identifier: LGPL-2.1-or-later
#include "s3client_p.h"

#include "error.h"
#include "httpdate_p.h"
#include "s3_debug.h"
#include "s3xml_p.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QHostAddress>

namespace Qvfs::S3
{

using Http::HttpClient;

namespace
{

bool isSuccess(int status)
{
    return status >= 200 && status < 300;
}

// An ETag without its quotes.
QByteArray unquoted(QByteArray etag)
{
    etag = etag.trimmed();
    if (etag.size() >= 2 && etag.startsWith('"') && etag.endsWith('"'))
        etag = etag.mid(1, etag.size() - 2);
    return etag;
}

QByteArray xmlEscaped(const QByteArray &raw)
{
    return QString::fromUtf8(raw).toHtmlEscaped().toUtf8();
}

// Whether XML 1.0 can carry \a key as text (valid UTF-8, no control characters but tab,
// newline and carriage return, which an XML parser would normalise anyway: those go too).
bool xmlCarries(const QByteArray &key)
{
    if (!QUtf8StringView(key).isValidUtf8())
        return false;
    for (const char c : key) {
        if (uchar(c) < 0x20)
            return false;
    }
    return true;
}

// Hands \a entry to \a onEntry and clears it for the next; false (\a stopped set) when the
// handler wants no more.
bool handOver(ListEntry *entry, const std::function<bool(const ListEntry &)> &onEntry, bool *stopped)
{
    if (!onEntry(*entry)) {
        *stopped = true;
        return false;
    }
    entry->clear();
    return true;
}

// What an answer's headers say about an object; \a header(name) gives a header's value.
template<typename Header>
ObjectInfo infoFrom(const Header &header)
{
    ObjectInfo info;
    bool ok = false;
    const qint64 length = header("Content-Length").toLongLong(&ok);
    if (ok)
        info.size = length;
    const QByteArray range = header("Content-Range"); // "bytes 0-9/1234"
    const qsizetype slash = range.lastIndexOf('/');
    if (slash > 0) {
        const qint64 total = range.mid(slash + 1).toLongLong(&ok);
        if (ok)
            info.size = total;
    }
    info.etag = unquoted(header("ETag"));
    info.contentType = header("Content-Type").split(';').constFirst().trimmed().toLower();
    const QByteArray meta = header("x-amz-meta-mtime"); // rclone's: seconds, maybe with a fraction
    const double seconds = meta.toDouble(&ok);
    if (ok && !meta.isEmpty())
        info.mtime = qint64(seconds);
    else
        info.mtime = Http::parseHttpDate(header("Last-Modified"));
    return info;
}

ObjectInfo infoFrom(QNetworkReply *reply)
{
    return infoFrom([reply](const char *name) { return reply->rawHeader(name); });
}

/*! A request that changes something (Call::write: sent once at most). */
Client::Call changing(const QByteArray &method, const Location &at, SigV4::Pairs query = {}, QByteArray body = {})
{
    Client::Call call;
    call.method = method;
    call.location = at;
    call.query = std::move(query);
    call.body = std::move(body);
    call.write = true;
    return call;
}

} // namespace

// ---------------------------------------------------------------- Location

bool Location::parse(const QUrl &url, Location *out)
{
    const QString scheme = url.scheme().toLower();
    QString wire;
    if (scheme == QLatin1String("s3"))
        wire = QStringLiteral("https");
    else if (scheme == QLatin1String("s3+http"))
        wire = QStringLiteral("http");
    else
        return false;
    if (url.host().isEmpty())
        return false;
    out->url = url.adjusted(QUrl::RemovePassword | QUrl::RemoveUserInfo);
    QUrl endpoint;
    endpoint.setScheme(wire);
    endpoint.setHost(url.host());
    endpoint.setPort(url.port());
    endpoint.setPath(QStringLiteral("/"));
    out->endpoint = endpoint;
    QByteArray path = QByteArray::fromPercentEncoding(url.path(QUrl::FullyEncoded).toLatin1());
    while (path.startsWith('/'))
        path.remove(0, 1);
    const qsizetype slash = path.indexOf('/');
    out->bucket = slash < 0 ? path : path.left(slash);
    out->key = slash < 0 ? QByteArray() : path.mid(slash + 1);
    return true;
}

Location Location::bucketOnly() const
{
    Location l = *this;
    l.key.clear();
    return l;
}

Location Location::withKey(const QByteArray &k) const
{
    Location l = *this;
    l.key = k;
    QUrl u = url;
    u.setPath(QString(), QUrl::StrictMode);
    const QByteArray raw = k.isEmpty() ? bucket : QByteArray(bucket + '/' + k);
    const QByteArray path = '/' + SigV4::uriEncode(raw, true);
    l.url = QUrl::fromEncoded(u.toEncoded() + path, QUrl::StrictMode);
    return l;
}

void ListEntry::clear()
{
    key.resize(0);
    isPrefix = false;
    size = -1;
    mtime.reset();
    etag.resize(0);
}

// ---------------------------------------------------------------- Client

Client::Client(HttpClient *http)
    : m_http(http)
{ }

Client::~Client() = default;

void Client::setKeys(const Keys &keys)
{
    m_keys = keys;
    m_signer.reset(keys.isValid() ? new SigV4(keys.accessKey, keys.secretKey, m_region) : nullptr);
}

void Client::setRegion(const QByteArray &region)
{
    m_region = region.isEmpty() ? QByteArrayLiteral("us-east-1") : region;
    setKeys(m_keys);
}

void Client::configureLike(const Client &other)
{
    m_region = other.m_region;
    m_clockOffset = other.m_clockOffset;
    m_virtualHosted = other.m_virtualHosted;
    setKeys(other.m_keys);
}

bool Client::hostsBucket(const Location &at)
{
    const QByteArray &b = at.bucket;
    if (b.size() < 3 || b.size() > 63 || b.startsWith('-') || b.endsWith('-'))
        return false;
    for (const char c : b) {
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'))
            return false;
    }
    return !QHostAddress().setAddress(at.endpoint.host()) && !at.endpoint.host().isEmpty();
}

QByteArray Client::hostHeader(const QUrl &endpoint)
{
    QByteArray host = endpoint.host(QUrl::FullyEncoded).toLatin1();
    if (host.contains(':'))
        host = '[' + host + ']';
    const int port = endpoint.port();
    const int standard = endpoint.scheme() == QLatin1String("https") ? 443 : 80;
    if (port > 0 && port != standard)
        host += ':' + QByteArray::number(port);
    return host;
}

Result Client::errorResult(const Call &call, int status, const QByteArray &body) const
{
    const QByteArray code = leafValue(body, u"Code");
    const QUrl &url = call.location.url;
    qCDebug(QVFS_S3) << call.method << url.toDisplayString() << status << code;
    if (code == "SignatureDoesNotMatch" || code == "InvalidAccessKeyId" || code == "InvalidToken"
        || code == "ExpiredToken" || status == 401)
        return Result::fail(ErrCannotAuthenticate, url, status);
    if (code == "RequestTimeTooSkewed")
        return Result::fail(ErrClockSkewed, url, status);
    if (code == "NoSuchKey" || code == "NoSuchBucket" || code == "NoSuchUpload" || status == 404)
        return Result::fail(ErrDoesNotExist, url, status);
    if (code == "AccessDenied" || status == 403)
        return Result::fail(ErrAccessDenied, url, status);
    if (code == "BucketAlreadyExists" || code == "BucketAlreadyOwnedByYou")
        return Result::fail(ErrAlreadyExists, url, status);
    if (code == "BucketNotEmpty")
        return Result::fail(ErrDirectoryNotEmpty, url, status);
    if (code == "EntityTooLarge")
        return Result::fail(ErrFileTooLarge, url, status);
    if (code == "KeyTooLongError")
        return Result::fail(ErrNameTooLong, url, status);
    if (status >= 500 || status < 400) {
        QByteArray detail = "HTTP " + QByteArray::number(status);
        if (!code.isEmpty())
            detail += ' ' + code;
        return Result::fail(ErrServerError, Http::urlArgument(url), detail, status);
    }
    if (call.method == "GET" || call.method == "HEAD")
        return Result::fail(ErrCannotRead, url, status);
    if (call.method == "DELETE")
        return Result::fail(ErrCannotDelete, url, status);
    return Result::fail(ErrCannotWrite, url, status);
}

Result Client::send(Call &call, HttpClient::Response *response)
{
    HttpClient::Response local;
    if (!response)
        response = &local;
    const Location &at = call.location;
    QByteArray path = "/";
    QUrl endpoint = at.endpoint;
    if (m_virtualHosted && !at.bucket.isEmpty() && hostsBucket(at)) {
        endpoint.setHost(QString::fromLatin1(at.bucket) + QLatin1Char('.') + endpoint.host());
        path += at.key;
    } else if (!at.bucket.isEmpty()) {
        path += at.bucket + '/' + at.key;
    }
    const QByteArray query = SigV4::canonicalQuery(call.query);
    const QByteArray host = hostHeader(endpoint);
    QByteArray base = endpoint.toEncoded(QUrl::RemovePath | QUrl::RemoveQuery | QUrl::RemoveFragment);
    HttpClient::Request req;
    req.method = call.method;
    req.url = QUrl::fromEncoded(
        base + SigV4::uriEncode(path, true) + (query.isEmpty() ? QByteArray() : '?' + query), QUrl::StrictMode);
    req.body = call.body;
    req.write = call.write;
    req.followRedirects = false; // a signature is for one URL
    req.ignoreCancel = call.ignoreCancel;
    req.onHeaders = call.onHeaders;
    req.onData = call.onData;
    req.headers = call.headers;
    req.headers.append({ QByteArrayLiteral("Host"), host });
    if (m_signer) {
        SigV4::Request s { call.method, path, call.query, call.headers,
            call.body.isEmpty() ? SigV4::emptyPayloadHash() : SigV4::payloadHash(call.body) };
        s.headers.append({ QByteArrayLiteral("x-amz-content-sha256"), s.payloadHash });
        if (!m_keys.sessionToken.isEmpty())
            s.headers.append({ QByteArrayLiteral("x-amz-security-token"), m_keys.sessionToken });
        req.headers.append(s.headers.mid(call.headers.size()));
        const QDateTime now = QDateTime::currentDateTimeUtc().addSecs(m_clockOffset);
        req.headers.append(m_signer->sign(s, host, now));
    }
    const Result r = m_http->send(req, response);
    if (!r.ok()) {
        // the engine names the http(s) URL; the caller's is the s3 one
        Result mapped = r;
        const QByteArray wire = Http::urlArgument(req.url);
        if (mapped.arg1 == wire)
            mapped.arg1 = Http::urlArgument(at.url);
        return mapped;
    }
    if (!isSuccess(response->status))
        return errorResult(call, response->status, response->body);
    return Result::pass(response->status);
}

std::function<Result(QNetworkReply *)> Client::feedReader(XmlReader *reader, const bool *stopped, const QUrl &url) const
{
    return [=](QNetworkReply *reply) {
        while (reply->bytesAvailable() > 0) {
            if (!reader->addData(reply->read(m_http->chunkSize())))
                return *stopped ? Result::fail(ErrCancelled)
                                : Result::fail(ErrServerError, Http::urlArgument(url),
                                    "malformed answer: " + reader->errorString().toUtf8());
        }
        return Result::pass();
    };
}

Result Client::listBuckets(const Location &at, const std::function<bool(const ListEntry &)> &onEntry)
{
    Call call;
    call.location = at;
    call.location.bucket.clear();
    call.location.key.clear();
    ListEntry entry;
    bool stopped = false;
    XmlReader reader(
        [&](QStringView name, int depth, QStringView text) {
            if (depth == 4 && name == u"Name")
                entry.key = text.toUtf8();
            else if (depth == 4 && name == u"CreationDate")
                entry.mtime = parseIsoTime(text);
            return true;
        },
        [&](QStringView name, int depth) {
            if (depth == 3 && name == u"Bucket") {
                entry.isPrefix = true;
                return handOver(&entry, onEntry, &stopped);
            }
            return true;
        });
    call.onData = feedReader(&reader, &stopped, at.url);
    return send(call);
}

Result Client::list(const Location &at, const QByteArray &prefix, bool delimited,
    const std::function<bool(const ListEntry &)> &onEntry, int maxKeys)
{
    QByteArray token;
    for (;;) {
        Call call;
        call.location = at.bucketOnly();
        call.query = { { "list-type", "2" }, { "max-keys", QByteArray::number(maxKeys) }, { "encoding-type", "url" } };
        if (!prefix.isEmpty())
            call.query.append(qMakePair(QByteArray("prefix"), prefix));
        if (delimited)
            call.query.append(qMakePair(QByteArray("delimiter"), QByteArray("/")));
        if (!token.isEmpty())
            call.query.append(qMakePair(QByteArray("continuation-token"), token));
        ListEntry entry;
        bool truncated = false;
        bool stopped = false;
        QByteArray next;
        XmlReader reader(
            [&](QStringView name, int depth, QStringView text) {
                if (depth == 2) {
                    if (name == u"IsTruncated")
                        truncated = text == u"true";
                    else if (name == u"NextContinuationToken")
                        next = text.toUtf8();
                } else if (depth == 3) {
                    if (name == u"Key") {
                        entry.key = decodeKey(text);
                    } else if (name == u"Prefix") {
                        entry.key = decodeKey(text);
                        entry.isPrefix = true;
                    } else if (name == u"Size") {
                        entry.size = text.toLongLong();
                    } else if (name == u"LastModified") {
                        entry.mtime = parseIsoTime(text);
                    } else if (name == u"ETag") {
                        entry.etag = unquoted(text.toUtf8());
                    }
                }
                return true;
            },
            [&](QStringView name, int depth) {
                if (depth == 2 && (name == u"Contents" || name == u"CommonPrefixes"))
                    return handOver(&entry, onEntry, &stopped);
                return true;
            });
        call.onData = feedReader(&reader, &stopped, at.url);
        const Result r = send(call);
        if (!r.ok())
            return r;
        if (!reader.atEnd())
            return Result::fail(ErrServerError, Http::urlArgument(at.url), "the listing ended early");
        if (!truncated)
            return r;
        if (next.isEmpty())
            return Result::fail(ErrServerError, Http::urlArgument(at.url), "a truncated listing without a token");
        token = next;
    }
}

Result Client::head(const Location &at, ObjectInfo *info)
{
    Call call;
    call.method = "HEAD";
    call.location = at;
    // the headers are read from the response, not as they arrive: an answer nobody
    // streams may come over the engine's own kept-alive socket (httpclient_direct.cpp)
    HttpClient::Response response;
    Result r = send(call, &response);
    if (r.ok())
        *info = infoFrom([&response](const char *name) { return response.header(name); });
    if (r.httpStatus == 403) {
        // HEAD has no body to tell a refused signature from a refused access: ask with one
        Call again;
        again.location = at;
        again.headers = { { "Range", "bytes=0-0" } };
        const Result g = send(again);
        if (!g.ok())
            return g;
    }
    return r;
}

Result Client::headBucket(const Location &at)
{
    Call call;
    call.method = "HEAD";
    call.location = at.bucketOnly();
    return send(call);
}

Result Client::get(const Location &at, qint64 offset, qint64 length,
    const std::function<void(const ObjectInfo &)> &onInfo, const std::function<bool(QByteArrayView)> &onChunk,
    const QByteArray &ifMatch)
{
    Call call;
    call.location = at;
    call.headers = { { "Accept-Encoding", "identity" } };
    if (!ifMatch.isEmpty())
        call.headers.append(qMakePair(QByteArray("If-Match"), QByteArray('"' + ifMatch + '"')));
    if (offset > 0 || length >= 0) {
        const QByteArray last = length >= 0 ? QByteArray::number(offset + length - 1) : QByteArray();
        call.headers.append({ "Range", "bytes=" + QByteArray::number(offset) + '-' + last });
    }
    qint64 expected = -1;
    qint64 received = 0;
    call.onHeaders = [&](QNetworkReply *reply, int status) {
        if (!isSuccess(status))
            return Result::pass();
        if ((offset > 0 || length >= 0) && status != 206)
            return Result::fail(ErrCannotSeek, at.url, status);
        bool ok = false;
        expected = reply->rawHeader("Content-Length").toLongLong(&ok);
        if (!ok)
            expected = -1;
        if (onInfo)
            onInfo(infoFrom(reply));
        return Result::pass();
    };
    call.onData = [&](QNetworkReply *reply) {
        while (reply->bytesAvailable() > 0) {
            const QByteArray chunk = reply->read(m_http->chunkSize());
            received += chunk.size();
            if (!onChunk(chunk))
                return Result::fail(ErrCancelled);
        }
        return Result::pass();
    };
    Result r = send(call);
    if (r.httpStatus == 412)
        r = Result::fail(ErrSourceChanged, at.url, 412);
    if (r.ok() && expected >= 0 && received != expected)
        return Result::fail(ErrConnectionFailed, at.endpoint.host().toUtf8(),
            "the object ended after " + QByteArray::number(received) + " of " + QByteArray::number(expected)
                + " bytes");
    return r;
}

Result Client::put(const Location &at, const QByteArray &data, const SigV4::Pairs &headers)
{
    Call call = changing("PUT", at, {}, data);
    call.headers = headers;
    HttpClient::Response resp;
    const Result r = send(call, &resp);
    if (!r.ok())
        return r;
    if (unquoted(resp.header("etag")) != SigV4::md5Hex(data))
        return Result::fail(ErrServerError, Http::urlArgument(at.url), "the stored object's ETag is not its MD5");
    return r;
}

Result Client::createMultipart(const Location &at, const SigV4::Pairs &headers, QByteArray *uploadId)
{
    Call call = changing("POST", at, { { "uploads", "" } });
    call.headers = headers;
    HttpClient::Response resp;
    const Result r = send(call, &resp);
    if (!r.ok())
        return r;
    *uploadId = leafValue(resp.body, u"UploadId");
    if (uploadId->isEmpty())
        return Result::fail(ErrServerError, Http::urlArgument(at.url), "no UploadId in the answer");
    return r;
}

Result Client::uploadPart(
    const Location &at, const QByteArray &uploadId, int number, const QByteArray &data, QByteArray *etag)
{
    Call call = changing("PUT", at, { { "partNumber", QByteArray::number(number) }, { "uploadId", uploadId } }, data);
    HttpClient::Response resp;
    const Result r = send(call, &resp);
    if (!r.ok())
        return r;
    *etag = unquoted(resp.header("etag"));
    if (*etag != SigV4::md5Hex(data))
        return Result::fail(
            ErrServerError, Http::urlArgument(at.url), "part " + QByteArray::number(number) + "'s ETag is not its MD5");
    return r;
}

Result Client::completeMultipart(const Location &at, const QByteArray &uploadId, const QList<QByteArray> &etags)
{
    QByteArray body = "<CompleteMultipartUpload>";
    for (qsizetype i = 0; i < etags.size(); ++i)
        body += "<Part><PartNumber>" + QByteArray::number(i + 1) + "</PartNumber><ETag>\"" + etags.at(i)
            + "\"</ETag></Part>";
    body += "</CompleteMultipartUpload>";
    Call call = changing("POST", at, { { "uploadId", uploadId } }, body);
    HttpClient::Response resp;
    const Result r = send(call, &resp);
    if (!r.ok())
        return r;
    // an error may come with 200, after the server worked on it a while
    if (!leafValue(resp.body, u"Code").isEmpty())
        return errorResult(call, 500, resp.body);
    QByteArray parts;
    for (const QByteArray &e : etags)
        parts += QByteArray::fromHex(e);
    const QByteArray expected = SigV4::md5Hex(parts) + '-' + QByteArray::number(etags.size());
    QByteArray etag = unquoted(leafValue(resp.body, u"ETag"));
    if (etag.isEmpty()) {
        // radosgw 16 answers an empty ETag here: the object's own says it
        ObjectInfo info;
        const Result h = head(at, &info);
        if (!h.ok())
            return h;
        etag = info.etag;
    }
    if (etag != expected) {
        qCWarning(QVFS_S3) << "the completed object" << at.url.toDisplayString() << "has the ETag" << etag
                           << "instead of" << expected << ": deleted";
        (void)deleteObject(at);
        return Result::fail(ErrServerError, Http::urlArgument(at.url), "the completed object's ETag is not its parts'");
    }
    return r;
}

Result Client::abortMultipart(const Location &at, const QByteArray &uploadId)
{
    Call call = changing("DELETE", at, { { "uploadId", uploadId } });
    call.ignoreCancel = true;
    return send(call);
}

Result Client::copyObject(const Location &from, const Location &to)
{
    Call call = changing("PUT", to);
    const QByteArray source = '/' + from.bucket + '/' + from.key;
    call.headers = { { "x-amz-copy-source", SigV4::uriEncode(source, true) } };
    HttpClient::Response resp;
    Result r = send(call, &resp);
    if (r.ok() && !leafValue(resp.body, u"Code").isEmpty())
        return errorResult(call, 500, resp.body);
    if (r.error == ErrDoesNotExist)
        r.arg1 = Http::urlArgument(from.url); // the source is what is missing
    return r;
}

Result Client::copyObjectInParts(const Location &from, const ObjectInfo &info, const Location &to, qint64 partSize,
    const std::function<void(qint64)> &progress)
{
    constexpr qint64 MaxParts = 10000;
    const qint64 size = qMax<qint64>(info.size, 0);
    partSize = qMax(partSize, (size + MaxParts - 1) / MaxParts);
    SigV4::Pairs headers;
    if (!info.contentType.isEmpty())
        headers.append({ "Content-Type", info.contentType });
    if (info.mtime)
        headers.append({ "x-amz-meta-mtime", QByteArray::number(*info.mtime) });
    QByteArray uploadId;
    Result r = createMultipart(to, headers, &uploadId);
    if (!r.ok())
        return r;
    const QByteArray source = SigV4::uriEncode(QByteArray('/' + from.bucket + '/' + from.key), true);
    QList<QByteArray> etags;
    for (qint64 offset = 0; r.ok() && offset < size; offset += partSize) {
        const qint64 last = qMin(offset + partSize, size) - 1;
        Call call
            = changing("PUT", to, { { "partNumber", QByteArray::number(etags.size() + 1) }, { "uploadId", uploadId } });
        call.headers = { { "x-amz-copy-source", source },
            { "x-amz-copy-source-if-match", QByteArray('"' + info.etag + '"') },
            { "x-amz-copy-source-range", "bytes=" + QByteArray::number(offset) + '-' + QByteArray::number(last) } };
        HttpClient::Response resp;
        r = send(call, &resp);
        if (r.ok() && !leafValue(resp.body, u"Code").isEmpty())
            r = errorResult(call, 500, resp.body); // an error may come with 200
        if (r.httpStatus == 412)
            r = Result::fail(ErrSourceChanged, from.url, 412);
        else if (r.error == ErrDoesNotExist)
            r.arg1 = Http::urlArgument(from.url); // the source is what is missing
        const QByteArray etag = unquoted(leafValue(resp.body, u"ETag"));
        if (r.ok() && etag.isEmpty())
            r = Result::fail(ErrServerError, Http::urlArgument(to.url), "no ETag for a copied part");
        if (r.ok()) {
            etags.append(etag);
            if (progress)
                progress(last + 1);
        }
    }
    if (r.ok() && etags.isEmpty())
        r = Result::fail(ErrServerError, Http::urlArgument(from.url), "nothing to copy in parts");
    if (r.ok())
        r = completeMultipart(to, uploadId, etags);
    if (!r.ok()) {
        const Result a = abortMultipart(to, uploadId);
        if (!a.ok())
            qCWarning(QVFS_S3) << "could not abort the copy to" << to.url.toDisplayString() << a.error;
    }
    return r;
}

Result Client::deleteObject(const Location &at)
{
    Call call = changing("DELETE", at);
    return send(call);
}

Result Client::deleteObjects(const Location &at, const QList<QByteArray> &keys)
{
    QByteArray body = "<Delete><Quiet>true</Quiet>";
    QList<QByteArray> one; // keys XML cannot carry go one by one
    for (const QByteArray &k : keys) {
        if (xmlCarries(k))
            body += "<Object><Key>" + xmlEscaped(k) + "</Key></Object>";
        else
            one.append(k);
    }
    body += "</Delete>";
    if (one.size() < keys.size()) {
        Call call = changing("POST", at.bucketOnly(), { { "delete", "" } }, body);
        call.headers = { { "Content-MD5", QCryptographicHash::hash(body, QCryptographicHash::Md5).toBase64() },
            { "Content-Type", "application/xml" } };
        HttpClient::Response resp;
        const Result r = send(call, &resp);
        if (!r.ok())
            return r;
        const QByteArray failed = leafValue(resp.body, u"Key");
        if (!failed.isEmpty()) {
            qCInfo(QVFS_S3) << "DeleteObjects left" << failed << leafValue(resp.body, u"Code");
            return Result::fail(ErrCannotDelete, at.withKey(failed).url);
        }
    }
    for (const QByteArray &k : std::as_const(one)) {
        const Result r = deleteObject(at.withKey(k));
        if (!r.ok())
            return r;
    }
    return Result::pass();
}

Result Client::bucketRequest(const QByteArray &method, const Location &at)
{
    Call call = changing(method, at.bucketOnly());
    return send(call);
}

Result Client::createBucket(const Location &at)
{
    return bucketRequest("PUT", at);
}

Result Client::deleteBucket(const Location &at)
{
    return bucketRequest("DELETE", at);
}

} // namespace Qvfs::S3
