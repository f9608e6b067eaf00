// SPDX-License-Identifier: LGPL-2.1-or-later
// Random access for the http(s) and WebDAV worker (OpenRequest), read-only: HEAD when
// the file is opened (size, type, Accept-Ranges, ETag), then one Range GET per piece the
// base class asks for. A server without ranges can only be read in order.
#include "httpworker.h"

#include "http_debug.h"
#include "url.h"

#include <cstring>

namespace Qvfs
{

using namespace Http;

namespace
{
/*! What a read in order asks for beyond its piece (kept for the next reads). */
constexpr qint64 ReadAheadBytes = 4 * 1024 * 1024;
} // namespace

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
    m_openValidator = isStrongEtag(info.etag) ? info.etag : QByteArray();
    m_openNext = 0;
    m_aheadOffset = -1;
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
    // A piece that was read ahead.
    const qint64 aheadEnd = m_aheadOffset + m_ahead.size();
    if (m_aheadOffset >= 0 && offset >= m_aheadOffset && offset <= aheadEnd) {
        const qint64 n = qMin(length, aheadEnd - offset);
        if (n > 0 || m_aheadEof) {
            std::memcpy(buffer, m_ahead.constData() + (offset - m_aheadOffset), size_t(n));
            *bytesRead = n;
            m_openNext = offset + n;
            return WorkerResult::pass();
        }
    }
    m_aheadOffset = -1;
    // A read that follows on from the last one asks for the next ReadAheadBytes with it,
    // in the same GET: one request per 4 MiB and more instead of one per piece (256 KiB).
    const bool sequential = m_openSeekable && offset > 0 && offset == m_openNext;
    const QByteArray validator = m_openSeekable ? m_openValidator : QByteArray();
    Result r;
    if (sequential) {
        m_ahead.resize(length + ReadAheadBytes);
        qint64 got = 0;
        r = m_http->readRange(m_openUrl, offset, m_ahead.data(), m_ahead.size(), &got, validator, false);
        if (r.ok()) {
            *bytesRead = qMin(got, length);
            std::memcpy(buffer, m_ahead.constData(), size_t(*bytesRead));
            m_ahead.resize(got);
            m_aheadOffset = offset;
            m_aheadEof = got < length + ReadAheadBytes;
        }
    } else {
        r = m_http->readRange(m_openUrl, offset, buffer, length, bytesRead, validator, !m_openSeekable);
    }
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
    m_aheadOffset = -1;
    m_ahead = QByteArray(); // the memory goes with the file
    return WorkerResult::pass();
}

} // namespace Qvfs
