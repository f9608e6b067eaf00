// SPDX-License-Identifier: LGPL-2.1-or-later
// Random access for the http(s) and WebDAV worker (OpenRequest), read-only: HEAD when
// the file is opened (size, type, Accept-Ranges, ETag), then one Range GET per piece the
// base class asks for. A server without ranges can only be read in order.
#include "httpworker.h"

#include "http_debug.h"
#include "url.h"

namespace Qvfs
{

using namespace Http;

WorkerResult HttpWorker::openFile(const OpenRequest &request, OpenedFile *file)
{
    begin(request.url);
    // Read-only: no PUT at an offset exists in HTTP (nor in WebDAV without extensions).
    if (request.write || request.append || request.truncate || request.create || request.exclusive)
        return WorkerResult::fail(ErrUnsupportedAction, request.url);
    QUrl url = request.url;
    if (m_davRequest) {
        // A collection is no file; its size and type come with the HEAD below.
        DavEntry e;
        const Result r = m_dav->stat(request.url, &e);
        if (!r.ok())
            return result(r);
        if (e.isCollection)
            return WorkerResult::fail(ErrIsDirectory, request.url);
        url = DavClient::resourceUrl(request.url);
    }
    ResourceInfo info;
    const Result r = m_http->head(url, &info);
    if (!r.ok())
        return result(r);
    // The reads go to where the redirects led, with the same credentials (same origin) or
    // the ones the redirect's server was given.
    m_openUrl = info.url.isValid() ? info.url : url;
    m_openSeekable = info.acceptsRanges;
    // If-Range with a strong ETag: a resource that changes between reads is noticed.
    m_openValidator = info.etag.startsWith('"') ? info.etag : QByteArray();
    m_openNext = 0;
    file->size = info.size;
    file->canSeek = m_openSeekable;
    QByteArray type = info.contentType;
    if (type.isEmpty())
        type = DavClient::guessMimeType(Url::fileName(request.url));
    file->mimeType = QString::fromLatin1(type);
    qCDebug(QVFS_HTTP) << "opened" << m_openUrl.toDisplayString() << "size" << info.size
                       << (m_openSeekable ? "with ranges" : "without ranges");
    return WorkerResult::pass();
}

WorkerResult HttpWorker::readAt(qint64 offset, char *buffer, qint64 length, qint64 *bytesRead)
{
    // Without ranges only in order: each piece is the whole resource again, read up to
    // the piece and dropped before it (the server sends no less).
    if (!m_openSeekable && offset != m_openNext)
        return WorkerResult::fail(ErrCannotSeek, m_requestUrl);
    const Result r = m_http->readRange(
        m_openUrl, offset, buffer, length, bytesRead, m_openSeekable ? m_openValidator : QByteArray(), !m_openSeekable);
    if (!r.ok()) {
        if (r.error == ErrCannotSeek || r.error == ErrSourceChanged)
            return WorkerResult::fail(r.error, m_requestUrl);
        return result(r);
    }
    m_openNext = offset + *bytesRead;
    return WorkerResult::pass();
}

WorkerResult HttpWorker::writeAt(qint64, QByteArrayView)
{
    return WorkerResult::fail(ErrUnsupportedAction, m_requestUrl);
}

WorkerResult HttpWorker::append(QByteArrayView, qint64 *)
{
    return WorkerResult::fail(ErrUnsupportedAction, m_requestUrl);
}

WorkerResult HttpWorker::truncate(qint64)
{
    return WorkerResult::fail(ErrUnsupportedAction, m_requestUrl);
}

WorkerResult HttpWorker::fileSize(qint64 *size)
{
    ResourceInfo info;
    const Result r = m_http->head(m_openUrl, &info);
    if (!r.ok())
        return result(r);
    *size = info.size;
    return WorkerResult::pass();
}

WorkerResult HttpWorker::closeFile()
{
    // Nothing is held on the server: the connection stays for the next request.
    m_openUrl.clear();
    return WorkerResult::pass();
}

} // namespace Qvfs
